//! The project's files a report names: which string values are paths of
//! files (an entry's `path`, `canonical_ref`, `dest_path`,
//! `served_when_path`, a repo-durable extraction's `target_doc`, shortlist
//! items and promotion candidates), with their ranges and the lines they
//! point at. Whether a file is there, and where, is the caller's to find
//! out: nothing here touches the file system.

use super::ReportIndex;
use crate::syntax::{Node, Value};
use crate::text::TextRange;
use crate::validate::{parse_canonical_ref, relative_path_problem};

/// One string value that names a project file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    /// The string value's range, quotes included.
    pub range: TextRange,
    /// The project-root-relative path it names (never absolute, never `..`).
    pub path: String,
    /// The lines (1-based, inclusive) it points at: an entry's exact edit's
    /// anchor for its `path`, the `#L<start>-L<end>` of a `canonical_ref`.
    pub lines: Option<(u64, u64)>,
}

/// The file references of one entry object, in the entry's text's offsets.
pub(crate) fn entry_refs(entry: Node<'_>, out: &mut Vec<FileRef>) {
    let edit = entry.get("exact_edit");
    let anchor = edit.and_then(|e| e.get("anchor")).and_then(|a| {
        let line = |key| match a.get(key)?.value() {
            Value::Number(n) => n.parse::<u64>().ok().filter(|&n| n >= 1),
            _ => None,
        };
        let (start, end) = (line("start_line")?, line("end_line")?);
        (start <= end).then_some((start, end))
    });
    let mut add = |node: Option<Node<'_>>, lines: Option<(u64, u64)>| {
        if let Some(node) = node
            && let Some(path) = node.as_str()
        {
            push(out, node.range(), path, lines);
        }
    };
    add(entry.get("path"), anchor);
    add(entry.lookup("/lifecycle/served_when_path"), None);
    let Some(edit) = edit else { return };
    add(edit.lookup("/lifecycle/served_when_path"), None);
    add(edit.get("dest_path"), None);
    if edit.get("extraction_target").and_then(Node::as_str) == Some("repo-durable") {
        add(edit.get("target_doc"), None);
    }
    if let Some(node) = edit.get("canonical_ref")
        && let Some(Ok((path, start, end))) = node.as_str().map(parse_canonical_ref)
    {
        push(out, node.range(), path, Some((start, end)));
    }
}

fn push(out: &mut Vec<FileRef>, range: TextRange, path: &str, lines: Option<(u64, u64)>) {
    if path.is_empty() || relative_path_problem(path).is_some() {
        return;
    }
    out.push(FileRef {
        range,
        path: path.to_string(),
        lines,
    });
}

/// The shortlist's and the promotion candidates' paths that overlap `range`.
pub(crate) fn outside_entries(
    index: &ReportIndex<'_>,
    text: &impl Fn(TextRange) -> String,
    range: TextRange,
    out: &mut Vec<FileRef>,
) {
    let overlaps = |r: TextRange| r.start <= range.end && range.start <= r.end;
    if let Some(shortlist) = index.shortlist {
        for item in shortlist
            .item_ranges()
            .iter()
            .copied()
            .filter(|r| overlaps(*r))
        {
            if let Ok(path) = serde_json::from_str::<String>(&text(item)) {
                push(out, item, &path, None);
            }
        }
    }
    for candidate in index.candidates.iter().filter(|c| overlaps(c.range())) {
        push(out, candidate.range(), candidate.path(), None);
    }
}
