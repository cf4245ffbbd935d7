//! The edit preview (check 7) and the live lifecycle trace (check 4) shown
//! when hovering over an entry's `exact_edit`: rendered here from facts,
//! with the file's current text supplied by the caller.

use std::fmt::Write;

use super::checks::{anchor_of, live_derivation, percent, recount};
use super::{FileKind, WorkspaceFacts, anchored_lines};
use crate::host::snapshot::Snapshot;
use crate::hover::HoverInfo;
use crate::syntax::Node;
use crate::tier::Outcome;
use crate::validate::EntryFacts;

/// Lines of a preview shown at most; a longer span is cut with a note.
const MAX_PREVIEW_LINES: usize = 40;

/// The workspace hover at `offset` of a document, None outside an entry's
/// `exact_edit`: inside an entry kept per entry, from that entry's text
/// alone.
pub fn hover_at(
    document: Snapshot<'_>,
    offset: usize,
    facts: &WorkspaceFacts,
) -> Option<HoverInfo> {
    if let Some(analysis) = document.analysed.whole() {
        let path = analysis.root()?.path_to(offset);
        let (_, entry) = path
            .get(2)
            .filter(|_| matches!(path.get(1), Some((Some(m), _)) if m.key == "entries"))?;
        return hover(*entry, analysis.entry_facts(entry.range()), facts, offset);
    }
    let at = document.entry_at(offset)?;
    let info = hover(at.entry.item()?, Some(at.facts), facts, at.local(offset)?)?;
    Some(HoverInfo {
        range: at.back().range(info.range),
        ..info
    })
}

/// The workspace hover at `offset` inside `entry` (a node of a tree holding
/// the entry), or None when the offset is not in its `exact_edit`.
pub fn hover(
    entry: Node<'_>,
    entry_facts: Option<&EntryFacts>,
    facts: &WorkspaceFacts,
    offset: usize,
) -> Option<HoverInfo> {
    if let Some(why) = &facts.not_read {
        return not_read_hover(entry, why, offset);
    }
    if let Some(info) = tokens_hover(entry, facts, offset) {
        return Some(info);
    }
    let member = entry.member("exact_edit")?;
    let range = member.range();
    if !(range.start <= offset && offset <= range.end) {
        return None;
    }
    let edit = member.value;
    let path = entry.get("path")?.as_str()?;
    let kind = edit.get("kind").and_then(Node::as_str).unwrap_or("");
    let mut text = String::new();
    let _ = writeln!(
        text,
        "**Edit preview**: `{kind}` on `{path}`, as the file is now\n"
    );
    match facts.file(path) {
        None if facts.root.is_none() => {
            text.push_str("No project root found: the file is not read.\n")
        }
        None => text.push_str("The file was not looked at.\n"),
        Some(file) => match &file.kind {
            FileKind::File | FileKind::Directory => render(&mut text, facts, path, kind, edit),
            FileKind::Missing => text.push_str("The file no longer exists.\n"),
            FileKind::Refused(why) | FileKind::Unreadable(why) => {
                let _ = writeln!(text, "Not read: {why}.");
            }
        },
    }
    if let Some(live) = live_derivation(facts, entry, entry_facts) {
        let _ = writeln!(
            text,
            "\n**Live derivation** (from the tree now): `{}`\n",
            live.derivation.tier
        );
        for (name, fact) in [
            ("served", &live.satisfied),
            ("tracked", &live.tracked),
            ("clean", &live.clean),
        ] {
            let answer = match fact.fact {
                crate::tier::Fact::Yes => "yes",
                crate::tier::Fact::No => "no",
                crate::tier::Fact::Unknown => "unknown",
            };
            let _ = writeln!(text, "- {name}: {answer}, {}", fact.source);
        }
        if let Some(step) = live.derivation.deciding_rule() {
            let why = match step.outcome {
                Outcome::Unknown => "unknown, and an unknown fact never yields auto",
                _ => step.answer.as_str(),
            };
            let _ = writeln!(text, "\n`confirm` because {}: {why}", step.rule.question());
        }
    }
    Some(HoverInfo {
        range,
        markdown: text,
    })
}

/// Where the edit preview, the live derivation or the recount would show:
/// why the project was not read.
fn not_read_hover(entry: Node<'_>, why: &str, offset: usize) -> Option<HoverInfo> {
    let raw_tokens = entry
        .get("token_estimate")
        .and_then(|t| t.member("raw_tokens"));
    let range = [entry.member("exact_edit"), raw_tokens]
        .into_iter()
        .flatten()
        .map(|m| m.range())
        .find(|r| r.start <= offset && offset <= r.end)?;
    Some(HoverInfo {
        range,
        markdown: format!("**Project not read**: {why}.\n"),
    })
}

/// Check 8 on `raw_tokens`: the recorded count beside the recount.
fn tokens_hover(entry: Node<'_>, facts: &WorkspaceFacts, offset: usize) -> Option<HoverInfo> {
    let member = entry.get("token_estimate")?.member("raw_tokens")?;
    let range = member.range();
    if !(range.start <= offset && offset <= range.end) {
        return None;
    }
    let tokens = facts.tokens.as_ref()?;
    let found = recount(facts, entry)?;
    let mut text = format!(
        "**Token recount** ({}, offline)

- recorded: {}
",
        tokens.encoding,
        found
            .recorded
            .map_or_else(|| "not a whole number".to_string(), |n| n.to_string())
    );
    match (&found.counted, found.span) {
        (Ok(counted), Ok(span)) => {
            let _ = writeln!(
                text,
                "- recounted: {counted}, in {span} of `{}` as it is now",
                found.path
            );
            if let Some(recorded) = found.recorded {
                let verdict = if tokens.differs(recorded, *counted) {
                    "more than"
                } else {
                    "within"
                };
                let _ = writeln!(
                    text,
                    "
{verdict} the tolerance of {}%",
                    percent(tokens.tolerance)
                );
            }
        }
        (Err(why), _) => {
            let _ = writeln!(text, "- recounted: none ({why})");
        }
        (Ok(_), Err(why)) => {
            let _ = writeln!(text, "- recounted: none ({why})");
        }
    }
    Some(HoverInfo {
        range,
        markdown: text,
    })
}

fn render(text: &mut String, facts: &WorkspaceFacts, path: &str, kind: &str, edit: Node<'_>) {
    let Some(file) = facts.file(path) else { return };
    if matches!(kind, "delete" | "extract-then-delete") {
        let _ = writeln!(text, "Deletes `{path}`: {} bytes.", file.size);
        match &file.last_commit {
            Some(commit) => {
                let _ = writeln!(text, "Last commit: {commit}.");
            }
            None => text.push_str("No commit touches it (or git is not available).\n"),
        }
        return;
    }
    let Some(current) = file.text.as_deref() else {
        text.push_str("The file's text was not read (too large, or not UTF-8).\n");
        return;
    };
    if kind == "insert-frontmatter" {
        let key = edit.get("key").and_then(Node::as_str).unwrap_or("");
        let value = edit.get("value").and_then(Node::as_str).unwrap_or("");
        let mut diff = Vec::new();
        if current.starts_with("---\n") || current.starts_with("---\r\n") {
            diff.push(" ---".to_string());
            diff.push(format!("+{key}: {value}"));
        } else {
            diff.extend([
                "+---".to_string(),
                format!("+{key}: {value}"),
                "+---".into(),
            ]);
            diff.extend(current.lines().next().map(|l| format!(" {l}")));
        }
        fenced(text, &diff);
        return;
    }
    let Some((start, end, _)) = anchor_of(edit) else {
        return;
    };
    let Some(lines) = anchored_lines(current, start, end) else {
        let _ = writeln!(
            text,
            "Lines {start}-{end} lie outside the file ({} lines).",
            current.lines().count()
        );
        return;
    };
    let _ = writeln!(text, "Lines {start}-{end}:\n");
    let mut diff: Vec<String> = Vec::new();
    match kind {
        "replace-text" => {
            let wanted = edit.get("match").and_then(Node::as_str).unwrap_or("");
            let replacement = edit.get("replacement").and_then(Node::as_str).unwrap_or("");
            let before = lines.join("\n");
            if wanted.is_empty() || !before.contains(wanted) {
                diff.extend(lines.iter().map(|l| format!(" {l}")));
                fenced(text, &diff);
                text.push_str("`match` does not occur in these lines: nothing would change.\n");
                return;
            }
            let after = before.replace(wanted, replacement);
            diff.extend(lines.iter().map(|l| format!("-{l}")));
            diff.extend(after.lines().map(|l| format!("+{l}")));
        }
        "move-to-archive" => {
            let dest = edit.get("dest_path").and_then(Node::as_str).unwrap_or("?");
            diff.extend(lines.iter().map(|l| format!("-{l}")));
            fenced(text, &diff);
            let _ = writeln!(text, "appended to `{dest}`.");
            return;
        }
        "dedupe" => {
            let reference = edit
                .get("canonical_ref")
                .and_then(Node::as_str)
                .unwrap_or("?");
            diff.extend(lines.iter().map(|l| format!("-{l}")));
            fenced(text, &diff);
            let _ = writeln!(text, "kept at `{reference}`.");
            return;
        }
        _ => diff.extend(lines.iter().map(|l| format!("-{l}"))),
    }
    fenced(text, &diff);
}

fn fenced(text: &mut String, lines: &[String]) {
    text.push_str("```diff\n");
    for line in lines.iter().take(MAX_PREVIEW_LINES) {
        text.push_str(line);
        text.push('\n');
    }
    if lines.len() > MAX_PREVIEW_LINES {
        let _ = writeln!(text, "… {} more lines", lines.len() - MAX_PREVIEW_LINES);
    }
    text.push_str("```\n");
}
