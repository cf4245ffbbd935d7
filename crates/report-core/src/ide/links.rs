//! The project's files a report names: which string values are paths of
//! files (an entry's `path`, `canonical_ref`, `dest_path`,
//! `served_when_path`, a repo-durable extraction's `target_doc`, shortlist
//! items and promotion candidates), with their ranges and the lines they
//! point at. Whether a file is there, and where, is the caller's to find
//! out: nothing here touches the file system.

use super::ReportIndex;
use crate::host::snapshot::Snapshot;
use crate::text::TextRange;
use crate::validate::{EntryFacts, names_project_file, parse_canonical_ref};

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

/// The file references of one entry, from its facts (recorded while it was
/// checked, see [`crate::validate::EntryLinks`]): its `path`'s string is kept, the other
/// values are read with `text` (the document's text of a range).
pub fn entry_refs(facts: &EntryFacts, text: &impl Fn(TextRange) -> String, out: &mut Vec<FileRef>) {
    let links = facts.links.as_deref();
    if let Some((path, range)) = &facts.path
        && names_project_file(path)
    {
        out.push(FileRef {
            range: *range,
            path: path.clone(),
            lines: links.and_then(|l| l.anchor),
        });
    }
    for &(range, canonical) in links.map_or(&[][..], |l| &l.others[..]) {
        let range = range.at(facts.range.start);
        let Some(value) = string_value(&text(range)) else {
            continue;
        };
        if !canonical {
            push(out, range, value, None);
        } else if let Ok((path, start, end)) = parse_canonical_ref(&value) {
            let path = path.to_string();
            push(out, range, path, Some((start, end)));
        }
    }
}

/// The files an entry's `canonical_ref`s name (a dedupe's canonical
/// copies), from its facts; the values are read with `text`.
pub(crate) fn canonical_files(
    facts: &EntryFacts,
    text: &impl Fn(TextRange) -> String,
) -> impl Iterator<Item = String> {
    let others = facts.links.as_deref().map_or(&[][..], |l| &l.others[..]);
    others
        .iter()
        .filter(|&&(_, canonical)| canonical)
        .filter_map(move |&(range, _)| string_value(&text(range.at(facts.range.start))))
        .filter_map(|value| Some(parse_canonical_ref(&value).ok()?.0.to_string()))
}

/// The string a JSON string literal (quotes included) stands for.
pub(crate) fn string_value(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    match inner.contains('\\') {
        false => Some(inner.to_string()),
        true => serde_json::from_str(literal).ok(),
    }
}

fn push(out: &mut Vec<FileRef>, range: TextRange, path: String, lines: Option<(u64, u64)>) {
    if names_project_file(&path) {
        out.push(FileRef { range, path, lines });
    }
}

/// The string values overlapping `range` that name a project file, in
/// document order: what `documentLink` shows and definition opens. From
/// the facts the checks recorded: nothing is parsed.
pub fn file_refs(document: Snapshot<'_>, range: TextRange) -> Vec<FileRef> {
    let Some(index) = document.index() else {
        return Vec::new();
    };
    let read = |range: TextRange| document.read(range);
    let mut refs = Vec::new();
    let first = index.entries.partition_point(|e| e.range.end < range.start);
    for facts in index.entries[first..]
        .iter()
        .take_while(|e| e.range.start <= range.end)
    {
        entry_refs(facts, &read, &mut refs);
    }
    outside_entries(&index, &read, range, &mut refs);
    refs.retain(|r| r.range.meets(range));
    refs.sort_by_key(|r| r.range.start);
    refs
}

/// At most `limit` of the whole text's file references, in document
/// order: the entries' first, then, if there is room, the shortlist's
/// and the candidates'; and whether some were left out. A 50,000-entry
/// report names some 110,000 files: links for all of them make a 22 MB
/// answer after every change.
pub fn file_refs_up_to(document: Snapshot<'_>, limit: usize) -> (Vec<FileRef>, bool) {
    let Some(index) = document.index() else {
        return (Vec::new(), false);
    };
    let read = |range: TextRange| document.read(range);
    let mut refs = Vec::new();
    for facts in index.entries.iter() {
        let from = refs.len();
        entry_refs(facts, &read, &mut refs);
        refs[from..].sort_by_key(|r| r.range.start);
        if refs.len() > limit {
            refs.truncate(limit);
            return (refs, true);
        }
    }
    let mut outside = Vec::new();
    let whole = TextRange::new(0, document.text.len());
    outside_entries(&index, &read, whole, &mut outside);
    outside.sort_by_key(|r| r.range.start);
    let room = limit - refs.len();
    let more = outside.len() > room;
    refs.extend(outside.into_iter().take(room));
    refs.sort_by_key(|r| r.range.start);
    (refs, more)
}

/// The file the string value at `offset` names, if it names one.
pub fn file_ref_at(document: Snapshot<'_>, offset: usize) -> Option<FileRef> {
    file_refs(document, TextRange::empty(offset))
        .into_iter()
        .find(|r| r.range.touches(offset))
}

/// Up to this many shortlist items are read from the text; more are taken
/// from the shortlist's paths (a hash map to walk, worth it for many).
const READ_AT_MOST: usize = 64;

/// The shortlist's and the promotion candidates' paths that overlap `range`.
pub(crate) fn outside_entries(
    index: &ReportIndex<'_>,
    text: &impl Fn(TextRange) -> String,
    range: TextRange,
    out: &mut Vec<FileRef>,
) {
    let overlaps = |r: TextRange| r.start <= range.end && range.start <= r.end;
    if let Some(shortlist) = index.shortlist {
        let items = shortlist.item_ranges();
        let first = items.partition_point(|r| r.end < range.start);
        let overlapping = items[first..].partition_point(|r| r.start <= range.end);
        if overlapping <= READ_AT_MOST {
            for &item in items[first..first + overlapping]
                .iter()
                .filter(|r| !r.is_empty())
            {
                if let Some(path) = string_value(&text(item)) {
                    push(out, item, path, None);
                }
            }
        } else {
            // Many (the whole text's): from the paths the checks kept, unread.
            for path in shortlist.paths().filter(|p| names_project_file(p)) {
                for item in shortlist
                    .occurrences(path)
                    .into_iter()
                    .filter(|r| overlaps(*r))
                {
                    out.push(FileRef {
                        range: item,
                        path: path.to_string(),
                        lines: None,
                    });
                }
            }
        }
    }
    for candidate in index.candidates.iter().filter(|c| overlaps(c.range())) {
        push(out, candidate.range(), candidate.path().to_string(), None);
    }
}
