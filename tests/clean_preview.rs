//! `check --preview`: what a clean would do to the project's documents, as
//! a unified diff per entry, for every kind of exact edit, on a real
//! project (non-ASCII paths, a git repository); refused edits say why and
//! the delete half of an extract-then-delete is held. Nothing is written.

mod common;

use common::project::{Project, edit_entry, report, sha256};
use serde_json::{Value, json};

fn anchor(start: u64, end: u64) -> Value {
    json!({"start_line": start, "end_line": end})
}

#[test]
fn the_preview_shows_each_kind_as_a_diff_and_refuses_what_cannot_apply() {
    let project = Project::new();
    let files = [
        ("docs/旧-api.md", "# API\nkeep\nold 1\nold 2\nkeep too\n"),
        ("docs/roadmap 🚀.md", "# 2023\nshipped\nplanned\n"),
        ("docs/spec.md", "---\ntitle: Spec\n---\nbody\n"),
        ("docs/setup.md", "run make install\nthen make install\n"),
        ("docs/arch.md", "intro\nshared\noutro\n"),
        ("docs/overview.md", "# Overview\nshared\n"),
        ("notes/scratch.md", "scratch\n"),
        ("handoff/会议.md", "decided: X\n"),
        ("docs/stale.md", "now different\n"),
        ("docs/dirty.md", "committed\n"),
        ("plans/done.md", "done\n"),
    ];
    for (path, text) in files {
        project.write(path, text);
    }
    let sha = |path: &str| {
        let text = files.iter().find(|(p, _)| *p == path).unwrap().1;
        sha256(text)
    };
    let lifecycle = json!({"rule_ref": "rules/handoff", "lifetime": "delete-once-served", "served_when_path": "plans/done.md"});
    let entries = vec![
        edit_entry(
            "docs/旧-api.md",
            json!({"kind": "delete-range", "anchor": anchor(3, 4), "expected_sha256": sha("docs/旧-api.md")}),
        ),
        edit_entry(
            "docs/roadmap 🚀.md",
            json!({"kind": "move-to-archive", "anchor": anchor(1, 2), "dest_path": "archive/roadmap.md", "expected_sha256": sha("docs/roadmap 🚀.md")}),
        ),
        edit_entry(
            "docs/spec.md",
            json!({"kind": "insert-frontmatter", "key": "hygiene", "value": "frozen", "expected_sha256": sha("docs/spec.md")}),
        ),
        edit_entry(
            "docs/setup.md",
            json!({"kind": "replace-text", "anchor": anchor(2, 2), "match": "make install", "replacement": "cargo install --path .", "expected_sha256": sha("docs/setup.md")}),
        ),
        edit_entry(
            "docs/arch.md",
            json!({"kind": "dedupe", "anchor": anchor(2, 2), "canonical_ref": "docs/overview.md#L2-L2", "expected_sha256": sha("docs/arch.md")}),
        ),
        edit_entry(
            "notes/scratch.md",
            json!({"kind": "delete", "anchor": anchor(1, 1), "lifecycle": lifecycle, "expected_sha256": sha("notes/scratch.md")}),
        ),
        edit_entry(
            "handoff/会议.md",
            json!({"kind": "extract-then-delete", "anchor": anchor(1, 1), "lifecycle": lifecycle, "extraction_target": "repo-durable", "target_doc": "docs/decisions.md", "expected_sha256": sha("handoff/会议.md")}),
        ),
        edit_entry(
            "docs/stale.md",
            json!({"kind": "delete-range", "anchor": anchor(1, 1), "expected_sha256": sha256("then\n")}),
        ),
        edit_entry(
            "docs/dirty.md",
            json!({"kind": "delete", "anchor": anchor(1, 1), "lifecycle": lifecycle, "expected_sha256": sha256("edited\n")}),
        ),
    ];
    let shortlist = entries.iter().map(|e| e["path"].clone()).collect();
    project.write_report(&report("2026-11-29T18:42:07Z", shortlist, entries, vec![]));
    project.commit_all();
    project.write("docs/dirty.md", "edited\n");
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|(p, _)| std::fs::read(project.path().join(p)).unwrap())
        .collect();

    let output = common::report_lsp(
        &["check", "--preview", "hygiene.report.json"],
        project.path(),
    );
    let shown = String::from_utf8(output.stdout).unwrap();
    let expected = "\
# hygiene.report.json entries[0] docs/旧-api.md: delete-range · recorded auto
--- a/docs/旧-api.md
+++ b/docs/旧-api.md
@@ -1,5 +1,3 @@
 # API
 keep
-old 1
-old 2
 keep too
# hygiene.report.json entries[1] docs/roadmap 🚀.md: move-to-archive · recorded auto
--- a/docs/roadmap 🚀.md
+++ b/docs/roadmap 🚀.md
@@ -1,3 +1 @@
-# 2023
-shipped
 planned
--- /dev/null
+++ b/archive/roadmap.md
@@ -0,0 +1,2 @@
+# 2023
+shipped
# hygiene.report.json entries[2] docs/spec.md: insert-frontmatter · recorded auto
--- a/docs/spec.md
+++ b/docs/spec.md
@@ -1,4 +1,5 @@
 ---
 title: Spec
+hygiene: frozen
 ---
 body
# hygiene.report.json entries[3] docs/setup.md: replace-text · recorded auto
--- a/docs/setup.md
+++ b/docs/setup.md
@@ -1,2 +1,2 @@
 run make install
-then make install
+then cargo install --path .
# hygiene.report.json entries[4] docs/arch.md: dedupe · recorded auto
--- a/docs/arch.md
+++ b/docs/arch.md
@@ -1,3 +1,2 @@
 intro
-shared
 outro
# hygiene.report.json entries[5] notes/scratch.md: delete · recorded auto
--- a/notes/scratch.md
+++ /dev/null
@@ -1 +0,0 @@
-scratch
# hygiene.report.json entries[6] handoff/会议.md: extract-then-delete · recorded auto
# held: only the delete half is mechanical: the extraction into `docs/decisions.md` is made at clean time, and the delete applies only once it succeeded
--- a/handoff/会议.md
+++ /dev/null
@@ -1 +0,0 @@
-decided: X
";
    assert!(shown.starts_with(expected), "{shown}");
    let rest: Vec<&str> = shown[expected.len()..].lines().collect();
    assert_eq!(rest.len(), 2, "{shown}");
    assert!(
        rest[0].starts_with("# hygiene.report.json entries[7] docs/stale.md: delete-range · recorded auto, refused: `docs/stale.md` is stale: it changed since the check (sha256 now "),
        "{}",
        rest[0]
    );
    assert_eq!(
        rest[1],
        "# hygiene.report.json entries[8] docs/dirty.md: delete · recorded auto, refused: `docs/dirty.md` is dirty in git (modified in the worktree): commit or stash it first"
    );
    // Nothing was written.
    for ((path, _), bytes) in files.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(project.path().join(path)).unwrap(),
            bytes,
            "{path}"
        );
    }
    assert!(!project.path().join("archive").exists());
}

#[test]
fn a_report_away_from_its_project_says_there_is_no_preview() {
    let project = Project::new();
    let mut report = report("2026-11-29T18:42:07Z", vec![], vec![], vec![]);
    report["scan"]["project_root"] = json!("/nonexistent/project");
    project.write_report(&report);
    let output = common::report_lsp(
        &["check", "--preview", "hygiene.report.json"],
        project.path(),
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "# hygiene.report.json: no preview: its project is not here (scan.project_root does not exist; see --root)\n"
    );
    let output = common::report_lsp(
        &[
            "check",
            "--preview",
            "--format",
            "json",
            "hygiene.report.json",
        ],
        project.path(),
    );
    assert_eq!(
        output.status.code(),
        Some(2),
        "--preview prints no diagnostics"
    );
}
