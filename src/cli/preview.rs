//! `check --preview`: what a clean would do to the project's documents, as
//! a unified diff per entry, from the core's clean edits (`clean_edit`) on
//! the files as they are now. Nothing is written; an entry whose edit is
//! refused says why, and the delete half of an `extract-then-delete` is
//! shown as held.

use std::fmt::Write;
use std::path::Path;

use report_core::Analysis;
use report_core::clean_edit::{self, CleanEdit, FileChange};
use report_core::project_checks::WorkspaceFacts;
use report_core::syntax::Node;

use super::fix::unified;

/// Texts larger than this are not shown whole when a delete removes them.
const MAX_SHOWN_BYTES: u64 = 8 << 20;

/// The previews of every deterministic entry of `analysis`, whose project
/// is `root` (its facts gathered), for the report shown as `report`.
pub(super) fn previews(
    analysis: &Analysis,
    root: &Path,
    facts: &WorkspaceFacts,
    report: &str,
) -> String {
    let mut out = String::new();
    let Some(entries) = analysis
        .root()
        .and_then(|r| r.get("entries"))
        .and_then(Node::items)
    else {
        return out;
    };
    for (index, entry) in entries.enumerate() {
        if entry.get("exact_edit").is_none() {
            continue;
        }
        let path = entry.get("path").and_then(Node::as_str).unwrap_or("?");
        let tier = entry
            .get("safety_tier")
            .and_then(Node::as_str)
            .unwrap_or("?");
        match clean_edit::entry_edit(entry, facts) {
            Ok(edit) => {
                let _ = writeln!(
                    out,
                    "# {report} entries[{index}] {path}: {} · recorded {tier}",
                    edit.kind
                );
                if let Some(why) = &edit.held {
                    let _ = writeln!(out, "# held: {why}");
                }
                write_changes(&mut out, &edit, root, facts);
            }
            Err(why) => {
                let kind = entry
                    .get("exact_edit")
                    .and_then(|e| e.get("kind"))
                    .and_then(Node::as_str)
                    .unwrap_or("?");
                let _ = writeln!(
                    out,
                    "# {report} entries[{index}] {path}: {kind} · recorded {tier}, refused: {why}"
                );
            }
        }
    }
    out
}

fn write_changes(out: &mut String, edit: &CleanEdit, root: &Path, facts: &WorkspaceFacts) {
    for change in &edit.changes {
        let path = change.path();
        let before = || {
            facts
                .file(path)
                .and_then(|f| f.text.as_deref().map(str::to_string))
        };
        match change {
            FileChange::Edit { edits, .. } => {
                let Some(before) = before() else { continue };
                let after = match clean_edit::apply(&before, edits) {
                    Ok(after) => after,
                    Err(error) => {
                        let _ = writeln!(out, "# {path}: the edits do not apply ({error:?})");
                        continue;
                    }
                };
                if after != before {
                    out.push_str(&unified(
                        &before,
                        &after,
                        &format!("a/{path}"),
                        &format!("b/{path}"),
                    ));
                }
            }
            FileChange::Create { text, .. } => {
                out.push_str(&unified("", text, "/dev/null", &format!("b/{path}")));
            }
            FileChange::Delete {
                directory: true, ..
            } => {
                let _ = writeln!(out, "# deletes the folder {path} and everything under it");
            }
            FileChange::Delete { .. } => {
                // The workspace checks read a delete's text only to recount it.
                let text = before().or_else(|| read_small(&root.join(path)));
                match text {
                    Some(text) => {
                        out.push_str(&unified(&text, "", &format!("a/{path}"), "/dev/null"))
                    }
                    None => {
                        let _ =
                            writeln!(out, "# deletes {path} (not shown: too large, or not text)");
                    }
                }
            }
        }
    }
}

fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SHOWN_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}
