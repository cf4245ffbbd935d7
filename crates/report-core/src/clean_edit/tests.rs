use std::collections::HashMap;
use std::sync::Arc;

use super::*;
use crate::project_checks::{FileFacts, GitFacts};

const SHA: &str = "1111111111111111111111111111111111111111111111111111111111111111";

fn file(text: &str) -> FileFacts {
    let mut facts = FileFacts::of_kind(FileKind::File);
    facts.sha256 = Some(SHA.into());
    facts.text = Some(Arc::from(text));
    facts
}

fn facts(files: &[(&str, FileFacts)]) -> WorkspaceFacts {
    WorkspaceFacts {
        root: Some("/p".into()),
        files: files
            .iter()
            .map(|(p, f)| (p.to_string(), f.clone()))
            .collect(),
        ..Default::default()
    }
}

/// The clean of an entry at `path` whose exact edit is `edit` (JSON
/// members, without the sha256).
fn clean(path: &str, edit: &str, facts: &WorkspaceFacts) -> Result<CleanEdit, String> {
    let text = format!(
        r#"{{"entries": [{{"path": "{path}", "exact_edit": {{{edit}, "expected_sha256": "{SHA}"}}}}]}}"#
    );
    let analysis = crate::analyze(&text);
    let entry = analysis.root().unwrap().lookup("/entries/0").unwrap();
    entry_edit(entry, facts)
}

/// The text of `path` once the clean's changes to it are made (None: deleted).
fn after(edit: &CleanEdit, path: &str, before: Option<&str>) -> Option<String> {
    let mut text = before.map(str::to_string);
    for change in edit.changes.iter().filter(|c| c.path() == path) {
        text = match change {
            FileChange::Edit { edits, .. } => Some(apply(text.as_deref().unwrap(), edits).unwrap()),
            FileChange::Create { text, .. } => Some(text.clone()),
            FileChange::Delete { .. } => None,
        };
    }
    text
}

#[test]
fn delete_range_removes_the_anchored_lines_with_their_breaks() {
    for (before, anchor, expected) in [
        ("a\nb\nc\nd\n", (2, 3), "a\nd\n"),
        ("a\nb\nc", (3, 3), "a\nb\n"),
        ("a\r\nb\r\nc\r\n", (1, 2), "c\r\n"),
        ("only\n", (1, 1), ""),
    ] {
        let f = facts(&[("d.md", file(before))]);
        let edit = clean(
            "d.md",
            &format!(
                r#""kind": "delete-range", "anchor": {{"start_line": {}, "end_line": {}}}"#,
                anchor.0, anchor.1
            ),
            &f,
        )
        .unwrap();
        assert_eq!(
            after(&edit, "d.md", Some(before)).unwrap(),
            expected,
            "{before:?}"
        );
        assert_eq!(edit.held, None);
    }
    let f = facts(&[("d.md", file("a\nb\n"))]);
    let refused = clean(
        "d.md",
        r#""kind": "delete-range", "anchor": {"start_line": 2, "end_line": 3}"#,
        &f,
    );
    assert_eq!(
        refused,
        Err("the anchor (lines 2-3) passes the end of the file (2 lines)".into())
    );
}

#[test]
fn move_to_archive_appends_the_span_to_its_destination_or_creates_it() {
    let source = "# Roadmap\nold 1\nold 2\nkept\n";
    let edit_json = r#""kind": "move-to-archive", "anchor": {"start_line": 2, "end_line": 3}, "dest_path": "archive/r.md""#;
    let mut dest = FileFacts::of_kind(FileKind::Missing);
    dest.sha256 = None;
    let f = facts(&[("r.md", file(source)), ("archive/r.md", dest)]);
    let edit = clean("r.md", edit_json, &f).unwrap();
    assert_eq!(
        after(&edit, "r.md", Some(source)).unwrap(),
        "# Roadmap\nkept\n"
    );
    assert_eq!(
        after(&edit, "archive/r.md", None).unwrap(),
        "old 1\nold 2\n"
    );
    // An existing destination without a final newline gets one first.
    let f = facts(&[("r.md", file(source)), ("archive/r.md", file("earlier"))]);
    let edit = clean("r.md", edit_json, &f).unwrap();
    assert_eq!(
        after(&edit, "archive/r.md", Some("earlier")).unwrap(),
        "earlier\nold 1\nold 2\n"
    );
    let f = facts(&[
        ("r.md", file(source)),
        (
            "archive/r.md",
            FileFacts::of_kind(FileKind::Refused("`..` leaves the root".into())),
        ),
    ]);
    assert_eq!(
        clean("r.md", edit_json, &f),
        Err("the destination `archive/r.md` is refused: `..` leaves the root".into())
    );
}

#[test]
fn insert_frontmatter_adds_rewrites_or_leaves_the_key() {
    let edit_json = r#""kind": "insert-frontmatter", "key": "hygiene", "value": "frozen""#;
    for (before, expected) in [
        ("# Spec\n", "---\nhygiene: frozen\n---\n# Spec\n"),
        (
            "---\ntitle: x\n---\nbody\n",
            "---\ntitle: x\nhygiene: frozen\n---\nbody\n",
        ),
        ("---\nhygiene: live\n---\n", "---\nhygiene: frozen\n---\n"),
        (
            "---\r\ntitle: x\r\n---\r\n",
            "---\r\ntitle: x\r\nhygiene: frozen\r\n---\r\n",
        ),
        (
            "\u{feff}# Spec\n",
            "\u{feff}---\nhygiene: frozen\n---\n# Spec\n",
        ),
        ("", "---\nhygiene: frozen\n---\n"),
    ] {
        let f = facts(&[("s.md", file(before))]);
        let edit = clean("s.md", edit_json, &f).unwrap();
        assert_eq!(
            after(&edit, "s.md", Some(before)).unwrap(),
            expected,
            "{before:?}"
        );
    }
    // Already set: nothing to do.
    let f = facts(&[("s.md", file("---\nhygiene: frozen\n---\n"))]);
    let edit = clean("s.md", edit_json, &f).unwrap();
    assert_eq!(
        edit.changes,
        vec![FileChange::Edit {
            path: "s.md".into(),
            edits: vec![]
        }]
    );
    let f = facts(&[("s.md", file("---\ntitle: x\nbody\n"))]);
    assert!(
        clean("s.md", edit_json, &f)
            .unwrap_err()
            .contains("never closed")
    );
}

#[test]
fn replace_text_replaces_every_match_inside_the_anchor_only() {
    let before = "make install\nrun make install, then make install\nmake install\n";
    let f = facts(&[("s.md", file(before))]);
    let edit = clean(
        "s.md",
        r#""kind": "replace-text", "anchor": {"start_line": 2, "end_line": 2}, "match": "make install", "replacement": "cargo install""#,
        &f,
    )
    .unwrap();
    assert_eq!(
        after(&edit, "s.md", Some(before)).unwrap(),
        "make install\nrun cargo install, then cargo install\nmake install\n"
    );
    // A match across lines of a CRLF file.
    let before = "a\r\nold\r\ntext\r\nb\r\n";
    let f = facts(&[("s.md", file(before))]);
    let edit = clean(
        "s.md",
        r#""kind": "replace-text", "anchor": {"start_line": 2, "end_line": 3}, "match": "old\ntext", "replacement": "new\ntext""#,
        &f,
    )
    .unwrap();
    assert_eq!(
        after(&edit, "s.md", Some(before)).unwrap(),
        "a\r\nnew\r\ntext\r\nb\r\n"
    );
    let f = facts(&[("s.md", file("x\ny\n"))]);
    let refused = clean(
        "s.md",
        r#""kind": "replace-text", "anchor": {"start_line": 1, "end_line": 1}, "match": "y", "replacement": "z""#,
        &f,
    );
    assert!(
        refused
            .unwrap_err()
            .contains("no longer occurs in lines 1-1")
    );
}

#[test]
fn dedupe_removes_the_span_only_while_the_canonical_copy_holds_it() {
    let dup = "intro\nshared 1\nshared 2\noutro\n";
    let canonical = "# Overview\nshared 1\nshared 2\n";
    let edit_json = r#""kind": "dedupe", "anchor": {"start_line": 2, "end_line": 3}, "canonical_ref": "o.md#L2-L3""#;
    let f = facts(&[("a.md", file(dup)), ("o.md", file(canonical))]);
    let edit = clean("a.md", edit_json, &f).unwrap();
    assert_eq!(after(&edit, "a.md", Some(dup)).unwrap(), "intro\noutro\n");
    assert_eq!(edit.changes.len(), 1, "the canonical copy is not touched");
    let f = facts(&[
        ("a.md", file(dup)),
        ("o.md", file("# Overview\nshared 1\nchanged\n")),
    ]);
    assert!(
        clean("a.md", edit_json, &f)
            .unwrap_err()
            .contains("would lose information")
    );
}

#[test]
fn the_delete_kinds_delete_the_file_and_extract_then_delete_is_held() {
    let f = facts(&[
        ("n.md", file("x\n")),
        ("tmp/", FileFacts::of_kind(FileKind::Directory)),
    ]);
    let edit = clean(
        "n.md",
        r#""kind": "delete", "anchor": {"start_line": 1, "end_line": 1}"#,
        &f,
    )
    .unwrap();
    assert_eq!(
        edit.changes,
        vec![FileChange::Delete {
            path: "n.md".into(),
            directory: false
        }]
    );
    assert_eq!(edit.held, None);
    let edit = clean(
        "tmp/",
        r#""kind": "delete", "anchor": {"whole": "directory"}"#,
        &f,
    )
    .unwrap();
    assert_eq!(
        edit.changes,
        vec![FileChange::Delete {
            path: "tmp/".into(),
            directory: true
        }]
    );
    let edit = clean(
        "n.md",
        r#""kind": "extract-then-delete", "anchor": {"start_line": 1, "end_line": 1}, "extraction_target": "repo-durable", "target_doc": "docs/decisions.md""#,
        &f,
    )
    .unwrap();
    assert_eq!(
        edit.changes,
        vec![FileChange::Delete {
            path: "n.md".into(),
            directory: false
        }]
    );
    assert!(
        edit.held
            .unwrap()
            .contains("the extraction into `docs/decisions.md` is made at clean time")
    );
}

#[test]
fn stale_missing_refused_and_dirty_targets_are_refused_with_the_reason() {
    let edit_json = r#""kind": "delete-range", "anchor": {"start_line": 1, "end_line": 1}"#;
    let mut stale = file("x\n");
    stale.sha256 = Some("2".repeat(64));
    let cases = [
        (stale, "is stale: it changed since the check"),
        (FileFacts::missing(), "does not exist"),
        (
            FileFacts::of_kind(FileKind::Refused("absolute".into())),
            "is refused: absolute",
        ),
    ];
    for (target, why) in cases {
        let f = facts(&[("d.md", target)]);
        let refused = clean("d.md", edit_json, &f).unwrap_err();
        assert!(refused.contains(why), "{refused}");
    }
    let mut f = facts(&[("d.md", file("x\n"))]);
    let mut git = GitFacts::default();
    git.insert(
        "d.md",
        true,
        Worktree::Changed("modified in the worktree".into()),
    );
    f.git = Some(git);
    assert_eq!(
        clean("d.md", edit_json, &f),
        Err("`d.md` is dirty in git (modified in the worktree): commit or stash it first".into())
    );
    let generative = crate::analyze(r#"{"entries": [{"path": "d.md", "op_type": "generative"}]}"#);
    let entry = generative.root().unwrap().lookup("/entries/0").unwrap();
    assert!(entry_edit(entry, &f).unwrap_err().contains("generative"));
}

/// Every deterministic entry of the valid golden report, on files made to
/// fit it: each kind gives its edit.
fn entries_of(analysis: &crate::Analysis) -> Vec<Node<'_>> {
    let entries = analysis.root().unwrap().get("entries").unwrap();
    entries.items().unwrap().collect()
}

/// The golden valid report, and facts under which each of its exact
/// edits can be made: every target holds lines that fit its anchor and
/// has the sha256 the entry expects.
pub(crate) fn golden() -> (String, WorkspaceFacts) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/golden/valid.report.json"
    ))
    .unwrap();
    let analysis = crate::analyze(&text);
    let entries = entries_of(&analysis);
    let lines = |n: usize, insert: Option<(usize, &str)>| -> String {
        (1..=n)
            .map(|i| match insert {
                Some((at, line)) if at == i => format!("{line}\n"),
                _ if (40..=58).contains(&i) => format!("shared {i}\n"),
                _ => format!("line {i}\n"),
            })
            .collect()
    };
    let mut files: Vec<(String, FileFacts)> = Vec::new();
    for entry in &entries {
        let Some(edit) = entry.get("exact_edit") else {
            continue;
        };
        let path = entry.get("path").and_then(Node::as_str).unwrap();
        let sha = edit.get("expected_sha256").and_then(Node::as_str).unwrap();
        let mut facts = if path.ends_with('/') {
            FileFacts::of_kind(FileKind::Directory)
        } else {
            file(&lines(200, Some((14, "run make install first"))))
        };
        facts.sha256 = Some(sha.to_string());
        files.push((path.to_string(), facts));
    }
    // The canonical copy of the dedupe: lines 12-30 of the overview hold
    // lines 40-58 of the architecture document.
    let overview: String = (1..=40)
        .map(|i| match i {
            12..=30 => format!("shared {}\n", i + 28),
            _ => format!("overview {i}\n"),
        })
        .collect();
    files.push(("docs/overview.md".into(), file(&overview)));
    files.push(("docs/archive/roadmap-2023.md".into(), FileFacts::missing()));
    let f = WorkspaceFacts {
        root: Some("/p".into()),
        files: files.into_iter().collect(),
        ..Default::default()
    };
    (text, f)
}

#[test]
fn every_kind_of_the_golden_report_gives_its_edit() {
    let (text, f) = golden();
    let analysis = crate::analyze(&text);
    let entries = entries_of(&analysis);
    let mut kinds = Vec::new();
    for entry in entries.iter().filter(|e| e.get("exact_edit").is_some()) {
        let edit = entry_edit(*entry, &f).unwrap_or_else(|why| panic!("{why}"));
        assert!(!edit.changes.is_empty());
        kinds.push(edit.kind.clone());
    }
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "dedupe",
            "delete",
            "delete-range",
            "extract-then-delete",
            "insert-frontmatter",
            "move-to-archive",
            "replace-text"
        ]
    );
}

fn edits(path: &str, spans: &[(usize, usize, &str)]) -> FileChange {
    FileChange::Edit {
        path: path.into(),
        edits: spans
            .iter()
            .map(|(s, e, t)| TextEdit::replace(TextRange::new(*s, *e), *t))
            .collect(),
    }
}

fn of(changes: Vec<FileChange>) -> CleanEdit {
    CleanEdit {
        kind: "delete-range".into(),
        changes,
        held: None,
        reads: vec![],
    }
}

#[test]
fn combine_joins_disjoint_edits_per_file_sorted_and_leaves_out_conflicts() {
    let combined = combine([
        (0, of(vec![edits("a.md", &[(10, 20, "")])])),
        (1, of(vec![edits("b.md", &[(0, 5, "")])])),
        (2, of(vec![edits("a.md", &[(0, 4, "")])])),
        // Overlaps entries[0]'s span of a.md.
        (3, of(vec![edits("a.md", &[(15, 25, "")])])),
        // An insert strictly inside a replaced span.
        (4, of(vec![edits("a.md", &[(12, 12, "x")])])),
        // Touching spans do not overlap.
        (5, of(vec![edits("a.md", &[(20, 22, "")])])),
    ]);
    assert_eq!(combined.taken, vec![0, 1, 2, 5]);
    assert_eq!(
        combined.changes,
        vec![
            edits("a.md", &[(0, 4, ""), (10, 20, ""), (20, 22, "")]),
            edits("b.md", &[(0, 5, "")]),
        ]
    );
    let left: Vec<usize> = combined.left_out.iter().map(|(k, _)| *k).collect();
    assert_eq!(left, vec![3, 4]);
    assert!(
        combined.left_out[0]
            .1
            .contains("overlaps the one of entries[0]"),
        "{:?}",
        combined.left_out
    );
}

#[test]
fn combine_leaves_out_held_edits_and_a_file_changed_another_way() {
    let held = CleanEdit {
        kind: "extract-then-delete".into(),
        changes: vec![FileChange::Delete {
            path: "x.md".into(),
            directory: false,
        }],
        held: Some("only the delete half".into()),
        reads: vec![],
    };
    let delete = |path: &str| FileChange::Delete {
        path: path.into(),
        directory: path.ends_with('/'),
    };
    let combined = combine([
        (0, held),
        (1, of(vec![delete("old/")])),
        // Inside a folder entries[1] deletes.
        (2, of(vec![edits("old/a.md", &[(0, 1, "")])])),
        (3, of(vec![edits("c.md", &[(0, 1, "")])])),
        // c.md is edited by entries[3]: it cannot also be deleted.
        (4, of(vec![delete("c.md")])),
        // Two moves into one new archive append in turn.
        (
            5,
            of(vec![FileChange::Create {
                path: "archive/r.md".into(),
                text: "one\n".into(),
            }]),
        ),
        (
            6,
            of(vec![FileChange::Create {
                path: "archive/r.md".into(),
                text: "two\n".into(),
            }]),
        ),
    ]);
    assert_eq!(combined.taken, vec![1, 3, 5, 6]);
    let left: Vec<(usize, &str)> = combined
        .left_out
        .iter()
        .map(|(k, why)| (*k, why.as_str()))
        .collect();
    assert_eq!(left[0], (0, "held: only the delete half"));
    assert_eq!(left[1].0, 2);
    assert_eq!(
        left[1],
        (2, "`old/a.md` is inside `old/`, which entries[1] deletes")
    );
    assert_eq!(left[2], (4, "entries[3] changes `c.md` too"));
    assert_eq!(
        combined.changes[2],
        FileChange::Create {
            path: "archive/r.md".into(),
            text: "one\ntwo\n".into()
        }
    );
}

#[test]
fn the_editors_text_of_an_open_target_is_the_one_cleaned() {
    let disk = "a\nb\nc\n";
    let f = facts(&[("d.md", file(disk))]);
    let text = format!(
        r#"{{"entries": [{{"path": "d.md", "exact_edit": {{"kind": "delete-range", "anchor": {{"start_line": 2, "end_line": 2}}, "expected_sha256": "{SHA}"}}}}]}}"#
    );
    let analysis = crate::analyze(&text);
    let entry = analysis.root().unwrap().lookup("/entries/0").unwrap();
    // The editor's text with an unsaved change: its sha256 differs.
    let mut edited = file("a\nB!\nc\n");
    edited.sha256 = Some("2".repeat(64));
    let open = HashMap::from([("d.md".to_string(), edited)]);
    let refused = entry_edit_over(
        entry,
        Targets {
            facts: &f,
            open: &open,
        },
    );
    assert!(
        refused.unwrap_err().contains("stale"),
        "the unsaved change makes it stale"
    );
    // Saved back to the text the report was made from: it applies again.
    let open = HashMap::from([("d.md".to_string(), file(disk))]);
    let edit = entry_edit_over(
        entry,
        Targets {
            facts: &f,
            open: &open,
        },
    )
    .unwrap();
    assert_eq!(after(&edit, "d.md", Some(disk)).unwrap(), "a\nc\n");
    // Files not read at all: refused with the reason.
    let unread = WorkspaceFacts {
        not_read: Some("workspace checks are off".into()),
        ..f
    };
    assert_eq!(
        entry_edit(entry, &unread),
        Err("the project's files were not read: workspace checks are off".into())
    );
}

#[test]
fn combine_leaves_out_what_would_reorder_inserts_touch_a_kept_copy_or_alias_a_path() {
    let dedupe = |path: &str, kept: &str| CleanEdit {
        kind: "dedupe".into(),
        changes: vec![edits(path, &[(0, 3, "")])],
        held: None,
        reads: vec![kept.into()],
    };
    let delete = |path: &str| FileChange::Delete {
        path: path.into(),
        directory: path.ends_with('/'),
    };
    let combined = combine([
        // Two frontmatter blocks at the top of one file.
        (0, of(vec![edits("s.md", &[(0, 0, "---\na: 1\n---\n")])])),
        (1, of(vec![edits("./s.md", &[(0, 0, "---\nb: 2\n---\n")])])),
        // A dedupe keeps `o.md`'s copy: nothing else may change `o.md` ...
        (2, dedupe("a.md", "docs/../o.md")),
        (3, dedupe("b.md", "o.md")),
        (4, of(vec![delete("o.md")])),
        // ... and a dedupe whose copy an earlier entry changed is left out.
        (5, dedupe("c.md", "s.md")),
        // A file first, then the folder around it.
        (6, of(vec![edits("tmp/x.md", &[(0, 1, "")])])),
        (7, of(vec![delete("tmp/")])),
    ]);
    assert_eq!(combined.taken, vec![0, 2, 3, 6]);
    let left: Vec<(usize, &str)> = combined
        .left_out
        .iter()
        .map(|(k, why)| (*k, why.as_str()))
        .collect();
    assert_eq!(
        left,
        [
            (
                1,
                "its edit of `s.md` overlaps the one of entries[0]: the second would apply to text the first has changed"
            ),
            (4, "it changes `o.md`, the canonical copy entries[3] keeps"),
            (5, "its canonical copy `s.md` is changed by entries[0]"),
            (7, "`tmp/x.md`, which entries[6] changes, is inside `tmp/`"),
        ]
    );
    // `docs/../o.md` is not `o.md` by its segments: only `.` is dropped,
    // so entries[2] and entries[3] rely on what they name each.
}
