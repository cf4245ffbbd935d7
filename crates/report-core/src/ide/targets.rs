//! The report seen from the documents it names: for each file, the entries
//! that name it, with what the file's editor shows of them (the kind, the
//! tier, the tokens, the anchored lines, the signals). The index is built
//! once per text of the report from the facts its analysis kept, and looked
//! up by path: a document no entry names costs one hash lookup, and one
//! that is named reads only the entries naming it.

use std::collections::{HashMap, HashSet};

use crate::host::snapshot::Snapshot;
use crate::paths::path_key;
use crate::project_checks::WorkspaceFacts;
use crate::schema::SafetyTier;
use crate::syntax::Node;
use crate::text::TextRange;
use crate::validate::EntryFacts;

/// What one entry says of the file it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetSpan {
    /// Its position in `entries`.
    pub entry: usize,
    /// Its `path` value in the report (quotes included): where to go to it.
    pub path_range: TextRange,
    /// The exact edit's kind, else the op.
    pub op: Option<String>,
    /// The anchored lines (1-based, inclusive); None for the whole file.
    pub lines: Option<(u64, u64)>,
    /// The tier it derives to (live for a lifecycle entry, when the
    /// project's facts are at hand); None when its fields do not say.
    pub tier: Option<SafetyTier>,
    /// Why it is that tier, in words.
    pub reason: Option<String>,
    pub raw_tokens: Option<u64>,
    /// The file's sha256 the exact edit was computed against.
    pub expected_sha256: Option<String>,
    pub signals: Vec<String>,
    /// A dedupe's canonical copy (`path#Lstart-Lend`).
    pub canonical_ref: Option<String>,
    /// The canonical copy's lines, when the project's facts hold its file.
    pub canonical_lines: Option<Vec<String>>,
    /// A replace-text's `match`.
    pub match_text: Option<String>,
    /// The tier's derivation trace, as the report's hover shows it (for a
    /// report open in the editor; None for one read from disk, whose every
    /// entry's trace is not kept).
    pub trace: Option<String>,
}

impl TargetSpan {
    /// Whether the edit removes the anchored lines (or the whole file),
    /// which an editor may show faded.
    pub fn removes(&self) -> bool {
        matches!(
            self.op.as_deref(),
            Some("delete-range" | "dedupe" | "move-to-archive" | "delete" | "extract-then-delete")
        )
    }

    /// Whether the file's text no longer is the one the edit was made for.
    pub fn stale_for(&self, sha256: &str) -> bool {
        self.expected_sha256
            .as_deref()
            .is_some_and(|expected| !expected.eq_ignore_ascii_case(sha256))
    }

    /// Whether the span holds the 1-based `line` (a whole-file span holds every line).
    pub fn holds_line(&self, line: u64) -> bool {
        self.lines
            .is_none_or(|(start, end)| start <= line && line <= end)
    }
}

/// The files the entries of a report read from disk name ([`path_key`]),
/// from the facts its analysis kept (no entry is parsed to build it): what
/// is kept of a report found, not opened, to tell whether a document
/// opened is one of its targets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetIndex {
    files: HashSet<String>,
}

impl TargetIndex {
    pub fn of(document: Snapshot<'_>) -> TargetIndex {
        let files = document
            .index()
            .map(|index| {
                let paths = index.entries.iter().filter_map(|e| e.path.as_ref());
                paths.map(|(path, _)| path_key(path)).collect()
            })
            .unwrap_or_default();
        TargetIndex { files }
    }

    /// Whether some entry names `path`.
    pub fn names(&self, path: &str) -> bool {
        self.files.contains(&path_key(path))
    }

    /// How many files its entries name.
    pub fn files(&self) -> usize {
        self.files.len()
    }

    /// The files its entries name, as compared ([`path_key`]).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(String::as_str)
    }
}

/// The spans of the entries naming `path` (as compared, [`path_key`]), in
/// the report's order: found through the per-entry analysis's index by
/// path, and only those entries are read.
pub fn spans_naming(
    document: Snapshot<'_>,
    path: &str,
    workspace: Option<&WorkspaceFacts>,
) -> Vec<TargetSpan> {
    let mut spans = Vec::new();
    for start in document.entries_naming(path) {
        document.entry_starting(start, |entry, facts, _| {
            if let Some(mut span) = span_of(entry, facts, workspace) {
                span.trace = Some(crate::hover::tier_markdown(facts));
                spans.push(span);
            }
        });
    }
    spans
}

/// Every entry's span by the file it names: for a report read from disk,
/// whose text is not kept.
pub fn all_spans(
    document: Snapshot<'_>,
    workspace: Option<&WorkspaceFacts>,
) -> HashMap<String, Vec<TargetSpan>> {
    let mut all: HashMap<String, Vec<TargetSpan>> = HashMap::new();
    let everything = TextRange::new(0, document.text.len());
    document.each_entry_in(everything, |entry, facts| {
        if let Some(facts) = facts
            && let Some((path, _)) = &facts.path
            && let Some(span) = span_of(entry, facts, workspace)
        {
            all.entry(path_key(path)).or_default().push(span);
        }
    });
    all
}

fn span_of(
    entry: Node<'_>,
    facts: &EntryFacts,
    workspace: Option<&WorkspaceFacts>,
) -> Option<TargetSpan> {
    let (_, path_range) = facts.path.clone()?;
    let edit = entry.get("exact_edit");
    let text = |node: Option<Node<'_>>| node.and_then(Node::as_str).map(str::to_string);
    let summary = facts.summary.as_deref();
    Some(TargetSpan {
        entry: facts.index,
        path_range,
        op: summary.and_then(|s| s.op.clone()),
        lines: facts.links.as_ref().and_then(|l| l.anchor),
        tier: super::clean::tier_now(entry, facts, workspace),
        reason: facts.tier.as_ref().map(|t| t.derivation.reason()),
        raw_tokens: summary.and_then(|s| s.raw_tokens.as_ref().map(|(n, _)| *n)),
        expected_sha256: text(edit.and_then(|e| e.get("expected_sha256"))),
        signals: entry
            .get("signals")
            .and_then(Node::items)
            .map(|items| {
                items
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        canonical_ref: text(edit.and_then(|e| e.get("canonical_ref"))),
        canonical_lines: edit
            .and_then(|e| e.get("canonical_ref")?.as_str())
            .and_then(|r| canonical_lines(r, workspace?)),
        match_text: text(edit.and_then(|e| e.get("match"))),
        trace: None,
    })
}

/// The lines a canonical reference (`path#Lstart-Lend`) names, from the
/// text the facts hold of its file.
fn canonical_lines(reference: &str, workspace: &WorkspaceFacts) -> Option<Vec<String>> {
    let (path, start, end) = crate::validate::parse_canonical_ref(reference).ok()?;
    let text = workspace.file(path)?.text.as_deref()?;
    let lines = crate::project_checks::anchored_lines(text, start, end)?;
    Some(lines.into_iter().map(str::to_string).collect())
}

/// What changed for `span` between `made_from` (the text its edit was made
/// for: the file on disk while its sha256 is the expected one) and `now`
/// (the editor's): its anchored lines unchanged, moved with the same
/// content, changed, or a replace-text's match gone from them.
pub fn stale_detail(span: &TargetSpan, made_from: &str, now: &str) -> String {
    use crate::project_checks::anchored_lines;
    let Some((start, end)) = span.lines else {
        return "the file changed since the report".into();
    };
    let lines = format!("lines {start}–{end}");
    let Some(before) = anchored_lines(made_from, start, end) else {
        return format!("the file changed since the report; its {lines} were not in it");
    };
    let at_anchor = anchored_lines(now, start, end);
    if let (Some(found), Some(after)) = (&span.match_text, &at_anchor)
        && !after.join("\n").contains(found.as_str())
    {
        return format!("the match `{found}` is gone from {lines}");
    }
    if at_anchor.as_ref() == Some(&before) {
        return format!("{lines} unchanged; the change is elsewhere in the file");
    }
    let now_lines: Vec<&str> = now.lines().collect();
    let moved = now_lines
        .windows(before.len())
        .position(|window| window == before.as_slice());
    match moved {
        Some(at) => format!(
            "content identical, now at lines {}–{}",
            at + 1,
            at + before.len()
        ),
        None => match (&span.canonical_ref, &span.canonical_lines, &at_anchor) {
            (Some(reference), Some(kept), Some(after))
                if !kept.iter().map(String::as_str).eq(after.iter().copied()) =>
            {
                format!(
                    "{lines} changed: they diverged from their canonical copy `{reference}`, so the dedupe would lose what differs"
                )
            }
            _ => format!("{lines} changed"),
        },
    }
}
