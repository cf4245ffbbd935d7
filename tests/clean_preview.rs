//! The clean before it runs, on a real project (non-ASCII paths and text,
//! a git repository). `check --preview`: a unified diff per entry, for
//! every kind of exact edit; refused edits say why and the delete half of
//! an extract-then-delete is held. In the server over stdio: the code
//! action of an entry and the whole report's, as the `WorkspaceEdit` the
//! exact edit describes (UTF-16 positions, files created and deleted,
//! change annotations that ask to confirm below `auto`), made on the
//! editor's text of an open target. Nothing is written.

mod common;

use common::editor::{Editor, capable_client_with, editing_client};
use common::file_uri;
use common::project::{Project, SETUP, cleanable_entries, edit_entry, report, sha256};
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

/// A project whose report has a replace-text and a move-to-archive that
/// derive auto, a delete-range that needs confirmation, and a lifecycle
/// delete that git proves auto; its report's text and URI.
fn clean_project() -> (Project, String, String) {
    let project = Project::new();
    let entries = cleanable_entries(&project);
    let shortlist = entries.iter().map(|e| e["path"].clone()).collect();
    let text = project.write_report(&report("2099-01-01T00:00:00Z", shortlist, entries, vec![]));
    project.commit_all();
    let uri = file_uri(&project.report_path());
    (project, text, uri)
}

/// The position just inside the `n`th (0-based) occurrence of `needle`, in UTF-16.
fn utf16_position(text: &str, needle: &str, n: usize) -> Value {
    let offset = text.match_indices(needle).nth(n).unwrap().0 + 1;
    let line = text[..offset].matches('\n').count();
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let column = text[start..offset].encode_utf16().count();
    json!({"line": line, "character": column})
}

/// The code actions of `only` at `position`, asked until the workspace
/// check has read the project (at most 100 tries).
fn actions_at(editor: &mut Editor, uri: &str, position: &Value, only: &str) -> Vec<Value> {
    for _ in 0..100 {
        let reply = editor.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": {"start": position, "end": position},
                "context": {"diagnostics": [], "only": [only]},
            }),
        );
        assert!(reply.get("error").is_none(), "{reply}");
        let actions = reply["result"].as_array().cloned().unwrap_or_default();
        if !actions.is_empty() {
            return actions;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Vec::new()
}

#[test]
fn the_editor_previews_an_entrys_clean_and_the_whole_reports_auto_clean() {
    let (project, text, uri) = clean_project();
    let mut editor = editing_client(project.path());
    editor.open(&uri, &text, 1);
    let doc = |path: &str| file_uri(&project.path().join(path));
    let entry_path = |path: &str| format!("\"path\": \"{path}\"");

    // replace-text, auto: the match after an emoji, in UTF-16 columns.
    let at = utf16_position(&text, &entry_path("docs/setup.md"), 0);
    let actions = actions_at(&mut editor, &uri, &at, "refactor.clean");
    assert_eq!(actions.len(), 1, "{actions:#?}");
    let action = &actions[0];
    assert_eq!(
        action["title"],
        "Clean entries[0]: replace-text docs/setup.md · auto"
    );
    assert_eq!(action["kind"], "refactor.clean.report-lsp");
    assert_eq!(
        action["edit"],
        json!({
            "documentChanges": [{
                "textDocument": {"uri": doc("docs/setup.md"), "version": null},
                "edits": [{
                    "range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 19}},
                    "newText": "cargo install",
                    "annotationId": "clean",
                }],
            }],
            "changeAnnotations": {"clean": {
                "label": "replace-text · auto",
                "needsConfirmation": false,
                "description": "entries[0] of the report: docs/setup.md",
            }},
        })
    );

    // delete-range, confirm: the lines go, and applying asks to confirm.
    let at = utf16_position(&text, &entry_path("docs/旧-api.md"), 0);
    let actions = actions_at(&mut editor, &uri, &at, "refactor");
    assert_eq!(
        actions[0]["title"],
        "Clean entries[1]: delete-range docs/旧-api.md · confirm"
    );
    let edit = &actions[0]["edit"];
    assert_eq!(
        edit["changeAnnotations"]["clean"]["needsConfirmation"],
        true
    );
    assert_eq!(
        edit["changeAnnotations"]["clean"]["label"],
        "delete-range · confirm"
    );
    assert_eq!(
        edit["documentChanges"][0]["edits"][0]["range"],
        json!({"start": {"line": 2, "character": 0}, "end": {"line": 4, "character": 0}})
    );
    assert_eq!(
        edit["documentChanges"][0]["textDocument"]["uri"],
        doc("docs/旧-api.md")
    );

    // move-to-archive: the archive is created, then written.
    let at = utf16_position(&text, &entry_path("docs/roadmap 🚀.md"), 0);
    let actions = actions_at(&mut editor, &uri, &at, "refactor.clean");
    let changes = actions[0]["edit"]["documentChanges"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(changes.len(), 3, "{changes:#?}");
    assert_eq!(changes[0]["textDocument"]["uri"], doc("docs/roadmap 🚀.md"));
    assert_eq!(
        changes[1],
        json!({"kind": "create", "uri": doc("archive/roadmap.md"), "options": {"overwrite": false, "ignoreIfExists": false}, "annotationId": "clean"})
    );
    assert_eq!(changes[2]["textDocument"]["uri"], doc("archive/roadmap.md"));
    assert_eq!(changes[2]["edits"][0]["newText"], "shipped\n");

    // An unsaved change in the open target makes its entry stale: the
    // action says why it cannot apply; undone, it applies to that version.
    let setup = doc("docs/setup.md");
    editor.open_as(&setup, "markdown", SETUP, 1);
    editor.change(
        &setup,
        2,
        json!([{"text": "one\nrun 😀 make install now\nthree\n"}]),
    );
    let at = utf16_position(&text, &entry_path("docs/setup.md"), 0);
    let actions = actions_at(&mut editor, &uri, &at, "refactor.clean");
    assert_eq!(actions[0]["edit"], Value::Null);
    let reason = actions[0]["disabled"]["reason"].as_str().unwrap();
    assert!(reason.contains("stale"), "{reason}");
    editor.change(&setup, 3, json!([{"text": SETUP}]));
    let actions = actions_at(&mut editor, &uri, &at, "refactor.clean");
    let change = &actions[0]["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"], json!({"uri": setup, "version": 3}));

    // The whole report: only what derives auto now, worked out when chosen.
    let actions = actions_at(
        &mut editor,
        &uri,
        &json!({"line": 0, "character": 0}),
        "source.clean",
    );
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert_eq!(
        actions[0]["title"],
        "Clean every entry that derives auto now"
    );
    assert_eq!(actions[0]["edit"], Value::Null, "resolved when chosen");
    let resolved = editor.request("codeAction/resolve", actions[0].clone());
    let edit = &resolved["result"]["edit"];
    let touched: Vec<String> = edit["documentChanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let uri = c["uri"]
                .as_str()
                .or(c["textDocument"]["uri"].as_str())
                .unwrap();
            format!("{} {}", c["kind"].as_str().unwrap_or("edit"), uri)
        })
        .collect();
    assert_eq!(
        touched,
        [
            format!("edit {}", doc("docs/setup.md")),
            format!("edit {}", doc("docs/roadmap 🚀.md")),
            format!("create {}", doc("archive/roadmap.md")),
            format!("edit {}", doc("archive/roadmap.md")),
            format!("delete {}", doc("notes/scratch.md")),
        ],
        "the confirm delete-range is not taken"
    );
    // Each change under the annotation; the open target at its version.
    for change in edit["documentChanges"].as_array().unwrap() {
        let id = change["annotationId"]
            .as_str()
            .or(change["edits"][0]["annotationId"].as_str());
        assert_eq!(id, Some("clean"), "{change}");
    }
    assert_eq!(
        edit["documentChanges"][0]["textDocument"],
        json!({"uri": setup, "version": 3})
    );
    assert_eq!(
        edit["documentChanges"][0]["edits"][0]["range"],
        json!({"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 19}})
    );
    assert_eq!(
        edit["changeAnnotations"]["clean"],
        json!({"label": "clean · auto", "needsConfirmation": false, "description": "3 entries that derive auto: 1 replace-text, 1 move-to-archive, 1 delete"})
    );
    assert!(
        project.path().join("notes/scratch.md").exists(),
        "nothing is written"
    );
    editor.shutdown();
}

#[test]
fn a_client_without_document_changes_gets_plain_edits_and_no_file_operations() {
    let (project, text, uri) = clean_project();
    let mut editor = Editor::start_in_folders_with(
        capable_client_with(json!({})),
        &[project.path()],
        Value::Null,
    );
    editor.open(&uri, &text, 1);
    let at = utf16_position(&text, "\"path\": \"docs/setup.md\"", 0);
    let actions = actions_at(&mut editor, &uri, &at, "refactor");
    let setup = file_uri(&project.path().join("docs/setup.md"));
    assert_eq!(
        actions[0]["edit"],
        json!({"changes": {setup: [{
            "range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 19}},
            "newText": "cargo install",
        }]}})
    );
    // A move creates a file: not offered to a client that cannot, nor
    // shown disabled to one that shows no reasons.
    let at = utf16_position(&text, "\"path\": \"docs/roadmap 🚀.md\"", 0);
    let reply = editor.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": at, "end": at},
            "context": {"diagnostics": [], "only": ["refactor"]},
        }),
    );
    assert_eq!(reply["result"], json!([]));
    editor.shutdown();
}

#[test]
fn a_folder_is_not_deleted_under_a_document_with_unsaved_changes() {
    let project = Project::new();
    project.write("tmp/runs/x.md", "run 1\n");
    let lifecycle = json!({"rule_ref": "rules/tmp", "lifetime": "temporary"});
    let entry = json!({
        "path": "tmp/runs/",
        "category": {"class": "stale", "subtype": "provisional"},
        "signals": [],
        "op": "delete",
        "op_type": "deterministic",
        "is_destructive": true,
        "is_reversible": false,
        "safety_tier": "confirm",
        "token_estimate": {"raw_tokens": 1},
        "lifecycle": lifecycle,
        "exact_edit": {"kind": "delete", "anchor": {"whole": "directory"}, "lifecycle": lifecycle, "expected_sha256": sha256("")},
    });
    let text = project.write_report(&report(
        "2099-01-01T00:00:00Z",
        vec![json!("tmp/runs/")],
        vec![entry],
        vec![],
    ));
    project.commit_all();
    let uri = file_uri(&project.report_path());
    let mut editor = editing_client(project.path());
    editor.open(&uri, &text, 1);
    let at = utf16_position(&text, "\"path\": \"tmp/runs/\"", 0);
    let actions = actions_at(&mut editor, &uri, &at, "refactor.clean");
    assert_eq!(
        actions[0]["edit"]["documentChanges"],
        json!([{"kind": "delete", "uri": file_uri(&project.path().join("tmp/runs")), "options": {"recursive": true, "ignoreIfNotExists": false}, "annotationId": "clean"}])
    );
    assert_eq!(
        actions[0]["edit"]["changeAnnotations"]["clean"]["needsConfirmation"],
        true
    );
    // The same text open: still offered. Changed in the editor: refused.
    let inside = file_uri(&project.path().join("tmp/runs/x.md"));
    editor.open_as(&inside, "markdown", "run 1\n", 1);
    let actions = actions_at(&mut editor, &uri, &at, "refactor.clean");
    assert!(actions[0]["edit"].is_object(), "{actions:#?}");
    editor.change(&inside, 2, json!([{"text": "run 1\nnotes not saved\n"}]));
    let actions = actions_at(&mut editor, &uri, &at, "refactor.clean");
    assert_eq!(
        actions[0]["disabled"]["reason"],
        "`tmp/runs/x.md` has unsaved changes in the editor: save or close it first"
    );
    editor.shutdown();
}
