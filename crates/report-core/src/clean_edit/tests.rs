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
            .collect::<HashMap<_, _>>(),
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
#[test]
fn every_kind_of_the_golden_report_gives_its_edit() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/golden/valid.report.json"
    ))
    .unwrap();
    let analysis = crate::analyze(&text);
    let entries: Vec<Node<'_>> = analysis
        .root()
        .unwrap()
        .get("entries")
        .unwrap()
        .items()
        .unwrap()
        .collect();
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
        files: files.into_iter().collect(),
        ..Default::default()
    };
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
