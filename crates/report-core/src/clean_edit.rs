//! The clean, before it runs: the text edits an entry's `exact_edit`
//! describes, computed from its anchor and kind on the target files as
//! they are now (the caller's facts), or the reason it cannot be applied
//! (stale, missing, outside the root, dirty in git, a `match` gone). The
//! editor turns them into a `WorkspaceEdit`, `check --preview` into a
//! unified diff. Where the contract leaves the mechanics open, the reading
//! taken is in invariants.md ("What a clean edits").

use std::collections::HashMap;
use std::ops::Range;

use crate::paths::path_key;
use crate::project_checks::{FileFacts, FileKind, WorkspaceFacts, Worktree};
use crate::syntax::Node;

pub use crate::fix::{TextEdit, apply};
use crate::text::TextRange;

/// What a clean does to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileChange {
    /// Edits of an existing file, in order, none overlapping.
    Edit { path: String, edits: Vec<TextEdit> },
    /// A file that does not exist yet (a `move-to-archive` destination).
    Create { path: String, text: String },
    /// The file removed; `directory` for a directory-rule aggregate.
    Delete { path: String, directory: bool },
}

impl FileChange {
    pub fn path(&self) -> &str {
        match self {
            FileChange::Edit { path, .. }
            | FileChange::Create { path, .. }
            | FileChange::Delete { path, .. } => path,
        }
    }
}

/// The clean of one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CleanEdit {
    pub kind: String,
    pub changes: Vec<FileChange>,
    /// Why this edit is only part of the clean and must not be applied on
    /// its own (the delete half of an `extract-then-delete`, which applies
    /// only once the extraction, made at clean time, succeeded).
    pub held: Option<String>,
    /// The files whose text the edit relies on without changing them (a
    /// dedupe's canonical copy): no other edit may change them with it.
    pub reads: Vec<String>,
}

/// The files a clean reads: the project's facts, with the editor's texts
/// of the documents open there laid over them (the edit must fit the text
/// the editor will apply it to, and an unsaved change may make it stale).
#[derive(Clone, Copy)]
pub struct Targets<'a> {
    pub facts: &'a WorkspaceFacts,
    /// The open documents' facts (their text and its sha256), keyed by the
    /// path as the report writes it.
    pub open: &'a HashMap<String, FileFacts>,
}

impl<'a> Targets<'a> {
    pub fn file(&self, path: &str) -> Option<&'a FileFacts> {
        self.open
            .get(&path_key(path))
            .or_else(|| self.facts.file(path))
    }
}

/// The clean of `entry` (an element of `entries`) on the files of `facts`,
/// or why it is refused.
pub fn entry_edit(entry: Node<'_>, facts: &WorkspaceFacts) -> Result<CleanEdit, String> {
    let open = HashMap::new();
    entry_edit_over(entry, Targets { facts, open: &open })
}

/// [`entry_edit`] on the files as `targets` has them.
pub fn entry_edit_over(entry: Node<'_>, targets: Targets<'_>) -> Result<CleanEdit, String> {
    if let Some(why) = &targets.facts.not_read {
        return Err(format!("the project's files were not read: {why}"));
    }
    let path = entry
        .get("path")
        .and_then(Node::as_str)
        .ok_or("the entry has no `path`")?;
    let edit = entry
        .get("exact_edit")
        .ok_or("a generative entry has no exact edit: its edit is made at clean time")?;
    let kind = edit
        .get("kind")
        .and_then(Node::as_str)
        .ok_or("the exact edit has no `kind`")?;
    let target = target_text(path, edit, targets, kind)?;
    let anchor =
        || anchor_of(edit).ok_or_else(|| "the exact edit has no valid `anchor`".to_string());
    let mut reads = Vec::new();
    let changes = match kind {
        "delete-range" | "dedupe" => {
            let (start, end) = anchor()?;
            if kind == "dedupe" {
                let kept =
                    dedupe_kept(path, edit, targets, target.unwrap_or_default(), start, end)?;
                reads.push(kept);
            }
            let range = line_span(target.unwrap_or_default(), start, end)?;
            vec![edit_of(path, range, String::new())]
        }
        "move-to-archive" => {
            let (start, end) = anchor()?;
            let text = target.unwrap_or_default();
            let range = line_span(text, start, end)?;
            let dest = edit
                .get("dest_path")
                .and_then(Node::as_str)
                .ok_or("the exact edit has no `dest_path`")?;
            let mut moved = text[range.clone()].to_string();
            if !moved.ends_with('\n') {
                moved.push_str(line_ending(text));
            }
            vec![
                edit_of(path, range, String::new()),
                append(dest, path, moved, targets)?,
            ]
        }
        "replace-text" => {
            let (start, end) = anchor()?;
            let found = edit.get("match").and_then(Node::as_str);
            let replacement = edit.get("replacement").and_then(Node::as_str);
            let (Some(found), Some(replacement)) = (found, replacement) else {
                return Err("the exact edit lacks `match` or `replacement`".into());
            };
            let edits = replacements(target.unwrap_or_default(), start, end, found, replacement)?;
            vec![FileChange::Edit {
                path: path.to_string(),
                edits,
            }]
        }
        "insert-frontmatter" => {
            let key = edit.get("key").and_then(Node::as_str);
            let value = edit.get("value").and_then(Node::as_str);
            let (Some(key), Some(value)) = (key, value) else {
                return Err("the exact edit lacks `key` or `value`".into());
            };
            let edits = frontmatter(target.unwrap_or_default(), key, value)?;
            vec![FileChange::Edit {
                path: path.to_string(),
                edits,
            }]
        }
        "delete" | "extract-then-delete" => vec![FileChange::Delete {
            path: path.to_string(),
            directory: path.ends_with('/'),
        }],
        other => return Err(format!("`{other}` is not a kind of exact edit")),
    };
    let held = (kind == "extract-then-delete").then(|| {
        let into = edit
            .get("target_doc")
            .and_then(Node::as_str)
            .map(|doc| format!(" into `{doc}`"))
            .unwrap_or_else(|| " (cross-repo)".to_string());
        format!(
            "only the delete half is mechanical: the extraction{into} is made at clean time, and the delete applies only once it succeeded"
        )
    });
    Ok(CleanEdit {
        kind: kind.to_string(),
        changes,
        held,
        reads,
    })
}

/// The cleans of several entries as one edit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Combined {
    /// One change per file, in the order the files first appear: a file's
    /// edits together, sorted, none overlapping.
    pub changes: Vec<FileChange>,
    /// The keys of the entries whose cleans it holds, in order.
    pub taken: Vec<usize>,
    /// The entries left out, and why (held, or in conflict with one taken
    /// before it).
    pub left_out: Vec<(usize, String)>,
}

/// What is planned for one file so far.
enum Planned {
    /// Each edit with the key of the entry it is of.
    Edited(Vec<(TextEdit, usize)>),
    Created(String),
    Deleted,
}

/// What the cleans taken so far change and rely on, by [`path_key`].
#[derive(Default)]
struct Plan {
    order: Vec<String>,
    changes: HashMap<String, (Planned, usize)>,
    /// Each file an edit relies on, with the first entry that does.
    reads: HashMap<String, usize>,
}

/// The cleans of `cleans` (each under the caller's key, an entry's index)
/// as one edit, in order. An entry whose changes overlap those of an entry
/// taken before it, or change a file an earlier one relies on (a dedupe's
/// canonical copy), or rely on one an earlier one changes, is left out
/// whole, with the earlier one named: its edit would apply to text the
/// first has changed. Two moves into one new archive are appended to it in
/// turn. Paths are compared as written without `.` segments.
pub fn combine(cleans: impl IntoIterator<Item = (usize, CleanEdit)>) -> Combined {
    let mut plan = Plan::default();
    let mut combined = Combined::default();
    for (key, clean) in cleans {
        if let Some(why) = &clean.held {
            combined.left_out.push((key, format!("held: {why}")));
            continue;
        }
        let why = clean
            .changes
            .iter()
            .find_map(|change| plan.conflict(change))
            .or_else(|| clean.reads.iter().find_map(|read| plan.read_conflict(read)));
        if let Some(why) = why {
            combined.left_out.push((key, why));
            continue;
        }
        for read in &clean.reads {
            plan.reads.entry(path_key(read)).or_insert(key);
        }
        for change in clean.changes {
            let path = path_key(change.path());
            if !plan.changes.contains_key(&path) {
                plan.order.push(path.clone());
            }
            let next = match (plan.changes.remove(&path), change) {
                (Some((Planned::Edited(mut edits), _)), FileChange::Edit { edits: more, .. }) => {
                    edits.extend(more.into_iter().map(|e| (e, key)));
                    Planned::Edited(edits)
                }
                (Some((Planned::Created(mut text), _)), FileChange::Create { text: more, .. }) => {
                    text.push_str(&more);
                    Planned::Created(text)
                }
                (_, FileChange::Edit { edits, .. }) => {
                    Planned::Edited(edits.into_iter().map(|e| (e, key)).collect())
                }
                (_, FileChange::Create { text, .. }) => Planned::Created(text),
                (_, FileChange::Delete { .. }) => Planned::Deleted,
            };
            plan.changes.insert(path, (next, key));
        }
        combined.taken.push(key);
    }
    for path in plan.order {
        let Some((planned, _)) = plan.changes.remove(&path) else {
            continue;
        };
        combined.changes.push(match planned {
            Planned::Edited(mut edits) => {
                edits.sort_by_key(|(e, _)| e.range.start);
                let edits = edits.into_iter().map(|(e, _)| e).collect();
                FileChange::Edit { path, edits }
            }
            Planned::Created(text) => FileChange::Create { path, text },
            Planned::Deleted => FileChange::Delete {
                directory: path.ends_with('/'),
                path,
            },
        });
    }
    combined
}

/// The folders `path` lies in, innermost last (`a/b/c.md`: `a/`, `a/b/`).
fn folders_of(path: &str) -> impl Iterator<Item = &str> {
    let inner = path.strip_suffix('/').unwrap_or(path);
    inner.match_indices('/').map(move |(i, _)| &path[..=i])
}

fn entry_name(key: usize) -> String {
    format!("entries[{key}]")
}

impl Plan {
    /// Why `change` cannot join what is planned, if it cannot.
    fn conflict(&self, change: &FileChange) -> Option<String> {
        let path = path_key(change.path());
        let path = path.as_str();
        // A path under a folder about to be deleted cannot be changed.
        for folder in folders_of(path) {
            if let Some((Planned::Deleted, key)) = self.changes.get(folder) {
                return Some(format!(
                    "`{path}` is inside `{folder}`, which {} deletes",
                    entry_name(*key)
                ));
            }
        }
        if let Some(key) = self.reads.get(path) {
            return Some(format!(
                "it changes `{path}`, the canonical copy {} keeps",
                entry_name(*key)
            ));
        }
        if path.ends_with('/') {
            // A folder changed takes every path under it.
            let under = |other: &String| other.starts_with(path) && other != path;
            if let Some((other, (_, key))) = self.changes.iter().find(|(other, _)| under(other)) {
                return Some(format!(
                    "`{other}`, which {} changes, is inside `{path}`",
                    entry_name(*key)
                ));
            }
            if let Some((other, key)) = self.reads.iter().find(|(other, _)| under(other)) {
                return Some(format!(
                    "`{other}`, the canonical copy {} keeps, is inside `{path}`",
                    entry_name(*key)
                ));
            }
        }
        let (planned, key) = self.changes.get(path)?;
        match (planned, change) {
            (Planned::Edited(edits), FileChange::Edit { edits: more, .. }) => {
                let (_, key) = more
                    .iter()
                    .find_map(|m| edits.iter().find(|(e, _)| overlaps(e, m)))?;
                Some(format!(
                    "its edit of `{path}` overlaps the one of {}: the second would apply to text the first has changed",
                    entry_name(*key)
                ))
            }
            (Planned::Created(_), FileChange::Create { .. }) => None,
            _ => Some(format!("{} changes `{path}` too", entry_name(*key))),
        }
    }

    /// Why an edit that relies on `read` cannot join, if it cannot.
    fn read_conflict(&self, read: &str) -> Option<String> {
        let read = path_key(read);
        let (path, key) = std::iter::once(read.as_str())
            .chain(folders_of(&read))
            .find_map(|p| Some((p, self.changes.get(p)?.1)))?;
        Some(match path == read {
            true => format!(
                "its canonical copy `{read}` is changed by {}",
                entry_name(key)
            ),
            false => format!(
                "its canonical copy `{read}` is in `{path}`, which {} deletes",
                entry_name(key)
            ),
        })
    }
}

/// Whether two edits of one text touch the same text: overlapping spans,
/// an insertion strictly inside a replaced span, or two insertions at one
/// offset (whose order would decide the text, as two frontmatter blocks).
fn overlaps(a: &TextEdit, b: &TextEdit) -> bool {
    let (a, b) = (a.range, b.range);
    let inside = |point: TextRange, span: TextRange| {
        point.is_empty() && span.start < point.start && point.start < span.end
    };
    let same_point = a.is_empty() && b.is_empty() && a.start == b.start;
    a.start.max(b.start) < a.end.min(b.end) || inside(a, b) || inside(b, a) || same_point
}

/// The target's text (None for the delete kinds, which need none), once
/// the file is there, inside the root, unchanged since the check and clean
/// in git.
fn target_text<'f>(
    path: &str,
    edit: Node<'_>,
    targets: Targets<'f>,
    kind: &str,
) -> Result<Option<&'f str>, String> {
    let facts = targets.facts;
    let file = targets
        .file(path)
        .ok_or_else(|| format!("`{path}` was not read"))?;
    let directory = path.ends_with('/');
    match &file.kind {
        FileKind::File if !directory => {}
        FileKind::Directory if directory => {}
        FileKind::Missing => return Err(format!("`{path}` does not exist")),
        FileKind::Refused(why) => return Err(format!("`{path}` is refused: {why}")),
        FileKind::Unreadable(why) => return Err(format!("`{path}` cannot be read: {why}")),
        _ => return Err(format!("`{path}` is not what the entry says it is")),
    }
    if let Some(git) = &facts.git {
        match git.paths.get(path).map(|p| &p.worktree) {
            Some(Worktree::Changed(how)) => {
                return Err(format!(
                    "`{path}` is dirty in git ({how}): commit or stash it first"
                ));
            }
            Some(Worktree::Undecided(why)) => {
                return Err(format!("git cannot tell whether `{path}` is clean ({why})"));
            }
            _ => {}
        }
    }
    if directory {
        return Ok(None);
    }
    let expected = edit.get("expected_sha256").and_then(Node::as_str);
    match (expected, &file.sha256) {
        (Some(expected), Some(actual)) if expected != actual => {
            return Err(format!(
                "`{path}` is stale: it changed since the check (sha256 now {actual}); regenerate the report"
            ));
        }
        (Some(_), Some(_)) => {}
        _ => {
            return Err(format!(
                "`{path}`'s sha256 is unknown, so staleness cannot be ruled out"
            ));
        }
    }
    if matches!(kind, "delete" | "extract-then-delete") {
        return Ok(None);
    }
    file.text
        .as_deref()
        .map(Some)
        .ok_or_else(|| format!("`{path}` is not read as text (too large, or not UTF-8)"))
}

fn anchor_of(edit: Node<'_>) -> Option<(usize, usize)> {
    let (start, end, _) = crate::project_checks::anchor_of(edit)?;
    Some((usize::try_from(start).ok()?, usize::try_from(end).ok()?))
}

/// The byte offset where each line starts, as `str::lines` counts lines,
/// and the text's length at the end.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
    if starts.last() == Some(&text.len()) && !text.is_empty() {
        // A final newline ends the last line; it starts none.
        starts.pop();
    }
    if text.is_empty() {
        starts.clear();
    }
    starts
}

/// Lines `start..=end` (1-based) with their line breaks, as bytes.
fn line_span(text: &str, start: usize, end: usize) -> Result<Range<usize>, String> {
    let starts = line_starts(text);
    if start == 0 || end < start || end > starts.len() {
        return Err(format!(
            "the anchor (lines {start}-{end}) passes the end of the file ({} lines)",
            starts.len()
        ));
    }
    let to = starts.get(end).copied().unwrap_or(text.len());
    Ok(starts[start - 1]..to)
}

/// The file's line break: `\r\n` when its first line ends with one.
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(at) if text[..at].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

fn edit_of(path: &str, range: Range<usize>, new_text: String) -> FileChange {
    FileChange::Edit {
        path: path.to_string(),
        edits: vec![TextEdit::replace(
            TextRange::new(range.start, range.end),
            new_text,
        )],
    }
}

/// The dedupe's removed span must be verbatim at `canonical_ref`: else
/// removing it loses information. The canonical copy's path.
fn dedupe_kept(
    path: &str,
    edit: Node<'_>,
    targets: Targets<'_>,
    text: &str,
    start: usize,
    end: usize,
) -> Result<String, String> {
    let reference = edit
        .get("canonical_ref")
        .and_then(Node::as_str)
        .ok_or("the dedupe has no `canonical_ref`")?;
    let (kept_path, kept_start, kept_end) = crate::validate::parse_canonical_ref(reference)?;
    let kept_text = targets
        .file(kept_path)
        .filter(|f| f.kind == FileKind::File)
        .and_then(|f| f.text.as_deref())
        .ok_or_else(|| format!("the canonical copy `{kept_path}` was not read"))?;
    let kept = crate::project_checks::anchored_lines(kept_text, kept_start, kept_end);
    let removed = crate::project_checks::anchored_lines(text, start as u64, end as u64);
    if kept.is_none() || kept != removed {
        return Err(format!(
            "the span removed from `{path}` is not verbatim at `{reference}`: removing it would lose information"
        ));
    }
    Ok(kept_path.to_string())
}

/// The moved span appended to `dest` (created when it does not exist).
fn append(
    dest: &str,
    from: &str,
    moved: String,
    targets: Targets<'_>,
) -> Result<FileChange, String> {
    if dest == from {
        return Err("`dest_path` is the file the span is moved from".into());
    }
    let file = targets
        .file(dest)
        .ok_or_else(|| format!("the destination `{dest}` was not read"))?;
    match &file.kind {
        FileKind::Missing => Ok(FileChange::Create {
            path: dest.to_string(),
            text: moved,
        }),
        FileKind::File => {
            let text = file
                .text
                .as_deref()
                .ok_or_else(|| format!("the destination `{dest}` is not read as text"))?;
            let mut new_text = String::new();
            if !text.is_empty() && !text.ends_with('\n') {
                new_text.push_str(line_ending(text));
            }
            new_text.push_str(&moved);
            Ok(edit_of(dest, text.len()..text.len(), new_text))
        }
        FileKind::Refused(why) => Err(format!("the destination `{dest}` is refused: {why}")),
        FileKind::Unreadable(why) => Err(format!("the destination `{dest}` cannot be read: {why}")),
        FileKind::Directory => Err(format!("the destination `{dest}` is a folder")),
    }
}

/// Every occurrence of `found` within the anchored lines, replaced.
fn replacements(
    text: &str,
    start: usize,
    end: usize,
    found: &str,
    replacement: &str,
) -> Result<Vec<TextEdit>, String> {
    if found.is_empty() {
        return Err("`match` is empty".into());
    }
    let span = line_span(text, start, end)?;
    // The anchored lines without the last one's line break.
    let inner = text[span.clone()]
        .trim_end_matches('\n')
        .trim_end_matches('\r');
    let crlf = line_ending(text) == "\r\n";
    let (found, replacement) = if crlf && found.contains('\n') && !inner.contains(found) {
        (
            found.replace('\n', "\r\n"),
            replacement.replace('\n', "\r\n"),
        )
    } else {
        (found.to_string(), replacement.to_string())
    };
    let edits: Vec<TextEdit> = inner
        .match_indices(found.as_str())
        .map(|(at, _)| {
            let start = span.start + at;
            TextEdit::replace(
                TextRange::new(start, start + found.len()),
                replacement.clone(),
            )
        })
        .collect();
    if edits.is_empty() {
        return Err(format!(
            "`match` no longer occurs in lines {start}-{end}: the text changed since the check"
        ));
    }
    Ok(edits)
}

/// `key: value` in the YAML frontmatter: the key's line rewritten when it
/// is there, else added before the closing `---`; a frontmatter block
/// added at the top when the file has none.
fn frontmatter(text: &str, key: &str, value: &str) -> Result<Vec<TextEdit>, String> {
    let eol = line_ending(text);
    let top = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let wanted = format!("{key}: {value}");
    let starts: Vec<usize> = line_starts(text)
        .into_iter()
        .filter(|&s| s >= top)
        .collect();
    let line = |i: usize| {
        let from = if i == 0 { top } else { starts[i] };
        let to = starts.get(i + 1).copied().unwrap_or(text.len());
        let whole = &text[from..to];
        (from, whole.trim_end_matches('\n').trim_end_matches('\r'))
    };
    if starts.is_empty() || line(0).1 != "---" {
        return Ok(vec![TextEdit::insert(
            top,
            format!("---{eol}{wanted}{eol}---{eol}"),
        )]);
    }
    for i in 1..starts.len() {
        let (from, content) = line(i);
        if content == "---" || content == "..." {
            return Ok(vec![TextEdit::insert(from, format!("{wanted}{eol}"))]);
        }
        if let Some(rest) = content.strip_prefix(key)
            && rest.starts_with(':')
        {
            if content == wanted {
                return Ok(Vec::new());
            }
            return Ok(vec![TextEdit::replace(
                TextRange::new(from, from + content.len()),
                wanted,
            )]);
        }
    }
    Err("the frontmatter that opens the file is never closed (no `---` line)".into())
}

#[cfg(test)]
pub(crate) mod tests;
