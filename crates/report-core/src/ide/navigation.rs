//! Go to definition, find references and rename, for the one kind of name
//! a report has: a path. A shortlist item defines it; entries and promotion
//! candidates refer to it.

use super::ReportIndex;
use crate::fix::{TextEdit, json_string};
use crate::host::snapshot::Snapshot;
use crate::text::TextRange;
use crate::validate::relative_path_problem;

/// A path under the cursor: the string value's range and the path it spells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathAt {
    pub range: TextRange,
    pub path: String,
    pub role: Role,
}

/// Where the path under the cursor stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Shortlist,
    Entry,
    Candidate,
}

/// Where the path under the cursor of a document is defined.
pub fn definition_at(document: Snapshot<'_>, offset: usize) -> Vec<TextRange> {
    with_path_at(document, offset, definition).unwrap_or_default()
}

/// Where the path under the cursor of a document is named.
pub fn references_at(document: Snapshot<'_>, offset: usize, declaration: bool) -> Vec<TextRange> {
    with_path_at(document, offset, |index, at| {
        references(index, at, declaration)
    })
    .unwrap_or_default()
}

/// The range a rename of the path under the cursor changes, and the path.
pub fn prepare_rename_at(document: Snapshot<'_>, offset: usize) -> Option<(TextRange, String)> {
    with_path_at(document, offset, |_, at| {
        (prepare_rename(at), at.path.clone())
    })
}

/// The edits that rename the path under the cursor of a document everywhere.
pub fn rename_at(
    document: Snapshot<'_>,
    offset: usize,
    new_path: &str,
) -> Result<Vec<TextEdit>, String> {
    if !document.is_report() {
        return Err("this document is not a report".into());
    }
    with_path_at(document, offset, |index, at| rename(index, at, new_path))
        .unwrap_or_else(|| Err("there is no path here to rename".into()))
}

/// Runs `f` on the report's index and the path under the cursor, if both are there.
fn with_path_at<R>(
    document: Snapshot<'_>,
    offset: usize,
    f: impl FnOnce(&ReportIndex<'_>, &PathAt) -> R,
) -> Option<R> {
    let index = document.index()?;
    let at = path_at(&index, &|range| document.read(range), offset)?;
    Some(f(&index, &at))
}

/// The path value whose string holds `offset`, if any.
pub fn path_at(
    index: &ReportIndex<'_>,
    text: &impl Fn(TextRange) -> String,
    offset: usize,
) -> Option<PathAt> {
    let holds = |range: TextRange| range.start <= offset && offset <= range.end;
    if let Some(entry) = index.entry_at(offset)
        && let Some((path, range)) = &entry.path
        && holds(*range)
    {
        return Some(PathAt {
            range: *range,
            path: path.clone(),
            role: Role::Entry,
        });
    }
    if let Some(candidate) = index.candidates.iter().find(|c| holds(c.range())) {
        return Some(PathAt {
            range: candidate.range(),
            path: candidate.path().to_string(),
            role: Role::Candidate,
        });
    }
    let range = index.shortlist?.path_at(offset)?;
    let path: String = serde_json::from_str(&text(range)).ok()?;
    Some(PathAt {
        range,
        path,
        role: Role::Shortlist,
    })
}

/// Where the path under the cursor is defined: for an entry's path, its
/// shortlist item; for a promotion candidate's, the entry it applies to.
pub fn definition(index: &ReportIndex<'_>, at: &PathAt) -> Vec<TextRange> {
    match at.role {
        Role::Entry => index
            .shortlist
            .and_then(|s| s.find(&at.path))
            .into_iter()
            .collect(),
        Role::Candidate => index
            .entries_named(&at.path)
            .filter_map(|e| e.path.as_ref().map(|(_, range)| *range))
            .collect(),
        Role::Shortlist => Vec::new(),
    }
}

/// Every place the path under the cursor stands: its shortlist items (when
/// `declaration` is asked for), the entries and the candidates naming it.
pub fn references(index: &ReportIndex<'_>, at: &PathAt, declaration: bool) -> Vec<TextRange> {
    let mut all = Vec::new();
    if declaration && let Some(shortlist) = index.shortlist {
        all.extend(shortlist.occurrences(&at.path));
    }
    all.extend(
        index
            .entries_named(&at.path)
            .filter_map(|e| e.path.as_ref().map(|(_, r)| *r)),
    );
    all.extend(
        index
            .candidates
            .iter()
            .filter(|c| c.path() == at.path)
            .map(|c| c.range()),
    );
    all.sort_by_key(|r| r.start);
    all
}

/// What a rename would change: the path's text inside the quotes of the
/// value under the cursor, None when no path is there.
pub fn prepare_rename(at: &PathAt) -> TextRange {
    TextRange::new(
        at.range.start + 1,
        at.range.end.saturating_sub(1).max(at.range.start + 1),
    )
}

/// Renames the path everywhere it stands (shortlist, entries, candidates) in
/// one set of edits. Refused with a reason when the new path is not a
/// project-root-relative path.
pub fn rename(
    index: &ReportIndex<'_>,
    at: &PathAt,
    new_path: &str,
) -> Result<Vec<TextEdit>, String> {
    if let Some(problem) = relative_path_problem(new_path) {
        return Err(format!(
            "\"{new_path}\" {problem}; a report's paths are project-root-relative"
        ));
    }
    let value = json_string(new_path);
    Ok(references(index, at, true)
        .into_iter()
        .map(|range| TextEdit::replace(range, value.clone()))
        .collect())
}
