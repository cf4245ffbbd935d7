//! The workspace checks in the server over stdio: diagnostics published
//! after the project is read, the hover's edit preview and live derivation
//! with each fact's source, offsets kept through keystrokes, and a refresh
//! when a file changes on disk (`didChangeWatchedFiles`) or is saved.

mod common;

use common::editor::Editor;
use common::project::{Project, delete_entry, edit_entry, report, sha256};
use serde_json::{Value, json};

const FUTURE: &str = "2099-01-01T00:00:00Z";
const PLAN: &str = "# plan\n";
const SETUP: &str = "one\nmake install\nthree\n";

fn uri_of(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

/// The publications for `uri` until one satisfies `done` (at most 10).
fn until(editor: &mut Editor, uri: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    for _ in 0..10 {
        let (_, diagnostics) = editor.diagnostics(uri);
        if done(&diagnostics) {
            return diagnostics;
        }
    }
    panic!("no publication for {uri} satisfied the test");
}

fn has(diagnostics: &[Value], code: &str) -> bool {
    diagnostics.iter().any(|d| d["code"] == code)
}

/// The 0-based line and column just inside the first `needle` in an ASCII `text`.
fn position(text: &str, needle: &str) -> Value {
    position_at(text, text.find(needle).unwrap() + 1)
}

fn position_at(text: &str, offset: usize) -> Value {
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |n| n + 1);
    json!({"line": line, "character": column})
}

fn project() -> (Project, String) {
    let project = Project::new();
    project.write("plans/plan.md", PLAN);
    project.write("docs/setup.md", SETUP);
    project.commit_all();
    let text = project.write_report(&report(
        FUTURE,
        vec![json!("docs/setup.md"), json!("plans/plan.md")],
        vec![
            edit_entry("docs/setup.md", json!({"kind": "replace-text", "anchor": {"start_line": 2, "end_line": 2}, "match": "make install", "replacement": "cargo install", "expected_sha256": sha256(SETUP)})),
            delete_entry("plans/plan.md", "docs/done.md", &sha256(PLAN)),
        ],
        vec![],
    ));
    (project, text)
}

#[test]
fn the_server_checks_the_project_and_refreshes_when_files_change() {
    let (project, text) = project();
    let uri = uri_of(&project.report_path());
    let capabilities =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capabilities,
        &[],
        Value::Null,
    );
    editor.open(&uri, &text, 1);
    // The served path is gone: the recorded auto no longer derives.
    let diagnostics = until(&mut editor, &uri, |d| has(d, "live-tier-confirm"));
    assert!(!has(&diagnostics, "stale-exact-edit"), "{diagnostics:?}");

    // The hover shows the preview and each fact with its source.
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(&text, "\"exact_edit\"")}),
    );
    let markdown = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        markdown.contains("**Edit preview**: `replace-text` on `docs/setup.md`"),
        "{markdown}"
    );
    assert!(
        markdown.contains("-make install\n+cargo install"),
        "{markdown}"
    );
    let delete_at = text.rfind("\"exact_edit\"").unwrap();
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position_at(&text, delete_at + 1)}),
    );
    let markdown = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        markdown.contains("Deletes `plans/plan.md`: 7 bytes."),
        "{markdown}"
    );
    assert!(markdown.contains("Last commit: "), "{markdown}");
    assert!(
        markdown.contains("- tracked: yes, from the git index"),
        "{markdown}"
    );
    assert!(
        markdown.contains("- clean: yes, no change in git status"),
        "{markdown}"
    );
    assert!(
        markdown.contains("- served: no, `docs/done.md` does not exist"),
        "{markdown}"
    );

    // A keystroke before the entries moves the workspace diagnostics with the text.
    let before = diagnostics
        .iter()
        .find(|d| d["code"] == "live-tier-confirm")
        .unwrap()["range"]["start"]["line"]
        .as_u64()
        .unwrap();
    editor.change(&uri, 2, json!([{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "\n"}]));
    let (version, moved) = editor.diagnostics(&uri);
    assert_eq!(version, Some(2));
    let after = moved
        .iter()
        .find(|d| d["code"] == "live-tier-confirm")
        .expect("kept through the edit")["range"]["start"]["line"]
        .as_u64()
        .unwrap();
    assert_eq!(after, before + 1);

    // The served path appears on disk: the watcher's notification rechecks.
    project.write("docs/done.md", "done\n");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&project.path().join("docs/done.md")), "type": 1}]}),
    );
    until(&mut editor, &uri, |d| !has(d, "live-tier-confirm"));

    // A file it names changes and is saved: its edit is stale now.
    project.write("docs/setup.md", "one\ntwo\n");
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri_of(&project.path().join("docs/setup.md"))}}),
    );
    let diagnostics = until(&mut editor, &uri, |d| has(d, "stale-exact-edit"));
    assert!(
        has(&diagnostics, "replace-match-missing"),
        "{diagnostics:?}"
    );
    editor.shutdown();
}

#[test]
fn the_server_registers_its_watchers_when_the_client_allows() {
    let capabilities =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capabilities,
        &[],
        Value::Null,
    );
    let registration = loop {
        let message = editor.next_message();
        if message["method"] == "client/registerCapability" {
            break message;
        }
    };
    let registrations = &registration["params"]["registrations"][0];
    assert_eq!(registrations["method"], "workspace/didChangeWatchedFiles");
    let globs: Vec<&str> = registrations["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["globPattern"].as_str().unwrap())
        .collect();
    assert!(
        globs.contains(&"**/.git/index") && globs.contains(&"**/.git/HEAD"),
        "{globs:?}"
    );
    editor.send(json!({"jsonrpc": "2.0", "id": registration["id"], "result": null}));
    editor.shutdown();
}
