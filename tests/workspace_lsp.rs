//! The workspace checks in the server over stdio: diagnostics published
//! after the project is read, the hover's edit preview and live derivation
//! with each fact's source, offsets kept through keystrokes, and a refresh
//! when a file changes on disk (`didChangeWatchedFiles`) or is saved.

mod common;

use common::editor::{Editor, capable_client, capable_client_with};
use common::file_uri;
use common::project::{Project, delete_entry, edit_entry, report, sha256, tokens};
use serde_json::{Value, json};

const FUTURE: &str = "2099-01-01T00:00:00Z";
const PLAN: &str = "# plan\n";
const SETUP: &str = "one\nmake install\nthree\n";

fn uri_of(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

/// The server for a client that reads everything (UTF-16), with `options`.
fn start_capable(options: Value) -> Editor {
    Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client(&["utf-16"]),
        &[],
        options,
    )
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
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    editor.open(&uri, &text, 1);
    // The served path is gone: the recorded auto no longer derives.
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "live-tier-confirm"));
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
        markdown.contains("- clean: yes, the worktree matches the index and HEAD"),
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

    // The same text again as a change over all of it (a select-all and
    // paste): the workspace diagnostics stay where they are.
    let edited = format!(
        "{}\n{}",
        &text[..=text.find('\n').unwrap()],
        &text[text.find('\n').unwrap() + 1..]
    );
    let end = position_at(&edited, edited.len());
    editor.change(
        &uri,
        3,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": end}, "text": edited}]),
    );
    let (version, kept) = editor.diagnostics(&uri);
    assert_eq!(version, Some(3));
    let line = kept
        .iter()
        .find(|d| d["code"] == "live-tier-confirm")
        .expect("kept through a change of all of the text")["range"]["start"]["line"]
        .as_u64()
        .unwrap();
    assert_eq!(line, after);

    // The served path appears on disk: the watcher's notification rechecks.
    project.write("docs/done.md", "done\n");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&project.path().join("docs/done.md")), "type": 1}]}),
    );
    editor.diagnostics_until(&uri, |d| !has(d, "live-tier-confirm"));

    // A file it names changes and is saved: its edit is stale now.
    project.write("docs/setup.md", "one\ntwo\n");
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri_of(&project.path().join("docs/setup.md"))}}),
    );
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));
    assert!(
        has(&diagnostics, "replace-match-missing"),
        "{diagnostics:?}"
    );
    editor.shutdown();
}

/// The next `client/registerCapability` for the watchers, answered; the
/// unregistration of the one before, if `replacing`, answered too.
fn next_watchers(editor: &mut Editor, replacing: Option<&str>) -> (String, Vec<String>) {
    let registration = editor.next_matching(|m| m["method"] == "client/registerCapability");
    editor.send(json!({"jsonrpc": "2.0", "id": registration["id"], "result": null}));
    let registered = &registration["params"]["registrations"][0];
    assert_eq!(registered["method"], "workspace/didChangeWatchedFiles");
    let id = registered["id"].as_str().unwrap().to_string();
    assert_ne!(Some(id.as_str()), replacing, "a new set, a new id");
    let globs = registered["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["globPattern"].as_str().unwrap().to_string())
        .collect();
    if let Some(old) = replacing {
        let gone = editor.next_matching(|m| m["method"] == "client/unregisterCapability");
        editor.send(json!({"jsonrpc": "2.0", "id": gone["id"], "result": null}));
        let unregistered = &gone["params"]["unregisterations"][0];
        assert_eq!(unregistered["id"], old, "{gone}");
        assert_eq!(unregistered["method"], "workspace/didChangeWatchedFiles");
    }
    (id, globs)
}

/// The watchers ask for what the server reads, and no more: the reports,
/// the project files, git's index and HEAD, `conventions.json`, and the
/// files the open reports name, by extension. Never `**/*`, which has a
/// client send every change in the tree. Registered again, under a new
/// id, as what the reports name changes.
#[test]
fn the_server_watches_what_it_reads_and_registers_again_as_that_changes() {
    let (project, text) = project();
    project.write("notes/todo.txt", "later\n");
    let capabilities =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    // No workspace folder: no report is found on disk, only the one opened.
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    let (first, globs) = next_watchers(&mut editor, None);
    // Every JSON file (a report may be one by its content), which holds
    // the default report globs and `conventions.json`.
    let mut always = [
        "**/*.json",
        "**/report-lsp.toml",
        "**/pyproject.toml",
        "**/.git/index",
        "**/.git/HEAD",
    ]
    .map(String::from);
    always.sort();
    assert_eq!(globs, always);

    // The report names two Markdown files: `**/*.md` joins.
    let uri = uri_of(&project.report_path());
    editor.open(&uri, &text, 1);
    let (second, globs) = next_watchers(&mut editor, Some(&first));
    assert!(globs.contains(&"**/*.md".to_string()), "{globs:?}");
    assert!(
        always.iter().all(|g| globs.contains(&g.to_string())),
        "{globs:?}"
    );
    assert!(!globs.iter().any(|g| g == "**/*" || g == "**"), "{globs:?}");

    // It names a text file too: `**/*.txt` joins.
    let mut more: Value = serde_json::from_str(&text).unwrap();
    more["shortlist"]
        .as_array_mut()
        .unwrap()
        .push(json!("notes/todo.txt"));
    let more = serde_json::to_string_pretty(&more).unwrap();
    editor.change(&uri, 2, json!([{"text": more}]));
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    let (third, globs) = next_watchers(&mut editor, Some(&second));
    assert!(globs.contains(&"**/*.txt".to_string()), "{globs:?}");

    // Closed, it names nothing: back to what is always watched.
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    let (_, globs) = next_watchers(&mut editor, Some(&third));
    assert_eq!(globs, always);
    editor.shutdown();
}

/// The 0-based line and UTF-16 column of byte `offset` in `text`.
/// The text a protocol range covers, in UTF-16 columns, on one line.
fn covered(text: &str, range: &Value) -> String {
    let line = text
        .lines()
        .nth(range["start"]["line"].as_u64().unwrap() as usize)
        .unwrap();
    let units: Vec<u16> = line.encode_utf16().collect();
    let (from, to) = (
        range["start"]["character"].as_u64().unwrap() as usize,
        range["end"]["character"].as_u64().unwrap() as usize,
    );
    String::from_utf16(&units[from..to]).unwrap()
}

/// A project whose report names files by every kind of reference: a CJK
/// and emoji name, a canonical ref, a symlink leading outside the root and a
/// missing destination. Returns the project, the folder outside it, the
/// report's text and URI, the CJK name, and a server (started with
/// `options`) that has the report open.
fn linked_project(
    options: Value,
) -> (
    Project,
    tempfile::TempDir,
    String,
    String,
    &'static str,
    Editor,
) {
    linked_project_for(capable_client(&["utf-16"]), options)
}

/// [`linked_project`], for a client announcing `capabilities`.
fn linked_project_for(
    capabilities: Value,
    options: Value,
) -> (
    Project,
    tempfile::TempDir,
    String,
    String,
    &'static str,
    Editor,
) {
    let project = Project::new();
    let cjk = "文档/旧 🚀.md";
    project.write(cjk, "a\nb\nc\nd\n");
    project.write("docs/keep.md", "1\n2\n3\n");
    project.write("docs/dup.md", "2\n3\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "s\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        project.path().join("link.md"),
    )
    .unwrap();
    project.commit_all();
    let text = project.write_report(&report(
        FUTURE,
        vec![json!(cjk), json!("docs/dup.md"), json!("link.md")],
        vec![
            edit_entry(cjk, json!({"kind": "delete-range", "anchor": {"start_line": 2, "end_line": 3}})),
            edit_entry("docs/dup.md", json!({"kind": "dedupe", "anchor": {"start_line": 1, "end_line": 2}, "canonical_ref": "docs/keep.md#L2-L3"})),
            edit_entry("link.md", json!({"kind": "move-to-archive", "anchor": {"start_line": 1, "end_line": 1}, "dest_path": "archive/gone.md"})),
        ],
        vec![],
    ));
    let uri = uri_of(&project.report_path());
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capabilities,
        &[],
        options,
    );
    editor.open(&uri, &text, 1);
    (project, outside, text, uri, cjk, editor)
}

#[test]
fn document_links_carry_tooltips_only_for_a_client_that_reads_them() {
    let (project, _outside, _text, uri, cjk, mut editor) = linked_project(Value::Null);
    let links = links_when_rooted(&mut editor, &uri);
    assert!(
        links
            .iter()
            .any(|l| l["tooltip"].as_str().is_some_and(|t| t.starts_with(cjk))),
        "{links:?}"
    );
    editor.shutdown();
    let mut capabilities = capable_client(&["utf-16"]);
    capabilities["textDocument"]["documentLink"] = json!({});
    let (_project, _outside, _text, uri, _cjk, mut editor) =
        linked_project_for(capabilities, Value::Null);
    let bare = links_when_rooted(&mut editor, &uri);
    assert_eq!(bare.len(), links.len());
    assert!(bare.iter().all(|l| l.get("tooltip").is_none()), "{bare:?}");
    let _ = project;
    editor.shutdown();
}

/// A client that announces nothing, in a project whose workspace checks
/// run: it is asked nothing (no settings, watchers, progress or refreshes),
/// and the checks' results reach it all the same.
#[test]
fn a_bare_client_is_asked_nothing_while_the_project_is_checked() {
    let (project, text) = project();
    let uri = uri_of(&project.report_path());
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        json!({}),
        &[],
        Value::Null,
    );
    editor.open(&uri, &text, 1);
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "live-tier-confirm"));
    assert!(
        diagnostics
            .iter()
            .all(|d| d.get("relatedInformation").is_none())
    );
    // A save checks the project again, with progress where it is shown.
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(&text, "\"exact_edit\"")}),
    );
    assert!(hover["result"]["contents"].is_string(), "{hover}");
    let asked: Vec<&Value> = editor
        .backlog
        .iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_some())
        .collect();
    assert!(asked.is_empty(), "{asked:?}");
    assert_eq!(editor.pulls, 0);
    editor.shutdown();
}

/// The document links once the workspace check has found the root.
fn links_when_rooted(editor: &mut Editor, uri: &str) -> Vec<Value> {
    // Up to 20 s: the root is resolved by the workspace pass, which a
    // loaded machine (CI beside other builds) may take seconds to run.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        let reply = editor.request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        );
        assert!(reply.get("error").is_none(), "{reply}");
        let links = reply["result"].as_array().cloned().unwrap_or_default();
        if !links.is_empty() {
            return links;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Vec::new()
}

#[test]
fn document_links_stop_at_the_setting_entries_first_and_the_log_says_so_once() {
    let (project, _outside, text, uri, cjk, mut editor) =
        linked_project(json!({"maxDocumentLinks": 2}));
    let covered_texts = |links: &[Value]| -> Vec<String> {
        links.iter().map(|l| covered(&text, &l["range"])).collect()
    };
    let links = links_when_rooted(&mut editor, &uri);
    // The entries' first two references, not the shortlist's.
    assert_eq!(covered_texts(&links), [cjk, "docs/keep.md#L2-L3"]);
    let said = |logged: &str| logged.contains("maxDocumentLinks");
    let logged = (0..5)
        .map(|_| editor.log_message())
        .find(|l| said(l))
        .expect("the log says why links stop");
    assert!(logged.contains("more files than the 2"), "{logged}");
    // Asked again: the same links, said once only (the next log line is the
    // one a refused setting causes, sent after the second request).
    let again = links_when_rooted(&mut editor, &uri);
    assert_eq!(covered_texts(&again), covered_texts(&links));
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"maxDocumentLinks": 0}}),
    );
    let next = editor.log_message();
    assert!(
        next.contains("at least 1") && !next.contains("more files"),
        "{next}"
    );
    let _ = project;
    editor.shutdown();
}

#[test]
fn links_and_definitions_open_the_named_files_inside_the_root_only() {
    let (project, _outside, text, uri, cjk, mut editor) = linked_project(Value::Null);
    // The links appear once the workspace check has found the root.
    let links = links_when_rooted(&mut editor, &uri);
    let shown: Vec<(String, String)> = links
        .iter()
        .map(|l| {
            (
                covered(&text, &l["range"]),
                l["target"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let to = |p: &str| file_uri(&project.path().join(p));
    assert_eq!(
        shown,
        [
            // In document order (the keys are written sorted: entries first).
            (cjk.to_string(), to(cjk)),
            ("docs/keep.md#L2-L3".into(), to("docs/keep.md")),
            ("docs/dup.md".into(), to("docs/dup.md")),
            (cjk.to_string(), to(cjk)),
            ("docs/dup.md".into(), to("docs/dup.md")),
        ],
        "the symlink leading outside and the missing destination have no link"
    );
    assert!(to(cjk).ends_with("/%E6%96%87%E6%A1%A3/%E6%97%A7%20%F0%9F%9A%80.md"));

    // Definition on the entry's path: its shortlist item, then the file at the anchor.
    let entry_path = text.find(&format!("\"path\": \"{cjk}\"")).unwrap() + 12;
    let reply = editor.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": common::lsp_position(&text, entry_path)}),
    );
    let locations = reply["result"].as_array().unwrap();
    assert_eq!(locations.len(), 2, "{reply}");
    assert_eq!(locations[0]["uri"], uri);
    assert_eq!(locations[1]["uri"], to(cjk));
    assert_eq!(
        locations[1]["range"]["start"],
        json!({"line": 1, "character": 0})
    );
    assert_eq!(locations[1]["range"]["end"]["line"], 2);
    // On a canonical ref: the kept lines.
    let reference = text.find("docs/keep.md#").unwrap() + 3;
    let reply = editor.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": common::lsp_position(&text, reference)}),
    );
    assert_eq!(reply["result"][0]["uri"], to("docs/keep.md"), "{reply}");
    assert_eq!(reply["result"][0]["range"]["start"]["line"], 1);
    // On the symlink leading outside, or the missing destination: nothing outside.
    for needle in ["\"path\": \"link.md\"", "archive/gone.md"] {
        let at = text.find(needle).unwrap() + needle.len() - 3;
        let reply = editor.request(
            "textDocument/definition",
            json!({"textDocument": {"uri": uri}, "position": common::lsp_position(&text, at)}),
        );
        // An answer, not an error: no location (null) or only the report's own.
        assert!(reply.get("error").is_none(), "{needle}: {reply}");
        let found = match &reply["result"] {
            Value::Null => Vec::new(),
            Value::Array(found) => found.clone(),
            other => panic!("{needle}: a definition answer is a list of locations: {other}"),
        };
        assert!(found.iter().all(|l| l["uri"] == uri), "{needle}: {reply}");
    }

    // The files' URIs are looked up once per workspace check: a file that
    // appears links once a check has run again (here: the report saved),
    // and an edit moves the links without a look-up of its own.
    project.write("archive/gone.md", "moved\n");
    let link_texts = |editor: &mut Editor, text: &str| -> Vec<String> {
        let reply = editor.request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        );
        reply["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| covered(text, &l["range"]))
            .collect()
    };
    assert!(!link_texts(&mut editor, &text).contains(&"archive/gone.md".to_string()));
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    let mut found = Vec::new();
    for _ in 0..100 {
        found = link_texts(&mut editor, &text);
        if found.contains(&"archive/gone.md".to_string()) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(found.contains(&"archive/gone.md".to_string()), "{found:?}");
    // A line of CJK and emoji typed before the entries: every link moves.
    let at = text.find("\"entries\"").unwrap();
    let typed = "\"注释🚀\": \"文\",\n  ";
    let mut edited = text.clone();
    edited.insert_str(at, typed);
    editor.change(
        &uri,
        2,
        json!([{"range": {"start": common::lsp_position(&text, at), "end": common::lsp_position(&text, at)}, "text": typed}]),
    );
    assert_eq!(link_texts(&mut editor, &edited), found);
    editor.shutdown();
}

/// Answers the server's next request `method` (a refresh) and returns it.
fn answer_request(editor: &mut Editor, method: &str) -> Value {
    let request = editor.next_matching(|m| m["method"] == method && m.get("id").is_some());
    editor.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": null}));
    request
}

/// Answers the refreshes read so far (one per burst of changes may be left).
fn answer_waiting(editor: &mut Editor) {
    let waiting: Vec<Value> = editor
        .backlog
        .iter()
        .filter(|m| {
            m.get("id").is_some()
                && m["method"]
                    .as_str()
                    .is_some_and(|m| m.ends_with("/refresh"))
        })
        .cloned()
        .collect();
    editor.backlog.retain(|m| !waiting.contains(m));
    for request in waiting {
        editor.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": null}));
    }
}

/// The inlay hints after each `safety_tier` of the whole text.
fn tier_hints(editor: &mut Editor, uri: &str, text: &str) -> Vec<String> {
    let lines = text.lines().count() as u32 + 1;
    let reply = editor.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}}),
    );
    reply["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap().to_string())
        .filter(|l| !l.ends_with('%'))
        .collect()
}

/// The tier hints once they are `wanted`, or as they are after 10 s. The
/// refresh a test answers may be one sent for the facts before, which a
/// loaded machine delivers late: the hints then change a moment after it.
fn hints_until(editor: &mut Editor, uri: &str, text: &str, wanted: &[&str]) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        answer_waiting(editor);
        let hints = tier_hints(editor, uri, text);
        if hints == wanted || std::time::Instant::now() > deadline {
            return hints;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_pulling_client_is_told_to_pull_again_and_the_live_tier_shows_in_the_hints() {
    let (project, text) = project();
    let uri = uri_of(&project.report_path());
    let capabilities = json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}, "inlayHint": {"refreshSupport": true}},
    });
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    editor.open(&uri, &text, 1);
    let pull = |editor: &mut Editor| {
        let reply = editor.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}}),
        );
        reply["result"]["items"].as_array().unwrap().clone()
    };
    // The workspace check ends after the first pull, or before: either way
    // its diagnostics reach a pull, the later ones after a refresh.
    let mut pulled = pull(&mut editor);
    if !has(&pulled, "live-tier-confirm") {
        answer_request(&mut editor, "workspace/diagnostic/refresh");
        pulled = pull(&mut editor);
    }
    assert!(has(&pulled, "live-tier-confirm"), "{pulled:?}");
    answer_waiting(&mut editor);
    // The served path is missing: live, the recorded auto is confirm.
    assert_eq!(
        tier_hints(&mut editor, &uri, &text),
        ["auto→confirm: not served"]
    );

    // The served path appears: the client is told to pull again, and to
    // ask for hints again; the live tier is auto, as recorded.
    project.write("docs/done.md", "done\n");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&project.path().join("docs/done.md")), "type": 1}]}),
    );
    answer_request(&mut editor, "workspace/inlayHint/refresh");
    answer_request(&mut editor, "workspace/diagnostic/refresh");
    assert!(!has(&pull(&mut editor), "live-tier-confirm"));
    assert!(hints_until(&mut editor, &uri, &text, &[]).is_empty());
    answer_waiting(&mut editor);

    // The file to delete is changed in the worktree: dirty.
    project.write("plans/plan.md", "# plan, edited\n");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&project.path().join("plans/plan.md")), "type": 2}]}),
    );
    answer_request(&mut editor, "workspace/inlayHint/refresh");
    assert_eq!(
        hints_until(&mut editor, &uri, &text, &["auto→confirm: dirty"]),
        ["auto→confirm: dirty"]
    );
    assert!(
        editor
            .backlog
            .iter()
            .all(|m| m["method"] != "textDocument/publishDiagnostics"),
        "pushed to a pulling client"
    );
    editor.shutdown();
}

#[test]
fn the_hover_on_raw_tokens_shows_both_counts_and_the_tolerance_is_a_setting() {
    let project = Project::new();
    let notes = "# 笔记 😀\nRun `make install` then read the 漢字 guide.\nlast\n";
    let path = "docs/笔记😀.md";
    project.write(path, notes);
    project.commit_all();
    let counted = tokens("# 笔记 😀\nRun `make install` then read the 漢字 guide.");
    let mut entry = edit_entry(
        path,
        json!({"kind": "delete-range", "anchor": {"start_line": 1, "end_line": 2}, "expected_sha256": sha256(notes)}),
    );
    entry["token_estimate"]["raw_tokens"] = json!(counted * 2);
    // One line: the path's CJK and emoji come before `raw_tokens`, so UTF-16 columns differ from bytes.
    let text =
        serde_json::to_string(&report(FUTURE, vec![json!(path)], vec![entry], vec![])).unwrap();
    std::fs::write(project.report_path(), &text).unwrap();
    let uri = uri_of(&project.report_path());
    let mut editor = start_capable(Value::Null);
    editor.open(&uri, &text, 1);
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "token-count-mismatch"));
    let hint = diagnostics
        .iter()
        .find(|d| d["code"] == "token-count-mismatch")
        .unwrap();
    let value_at = text.find("\"raw_tokens\":").unwrap() + "\"raw_tokens\":".len();
    assert_eq!(
        hint["range"]["start"],
        common::lsp_position(&text, value_at)
    );
    assert_eq!(hint["severity"], 4);
    assert!(
        hint["message"]
            .as_str()
            .unwrap()
            .contains(&format!("counts {counted} tokens in lines 1-2 of `{path}`")),
        "{hint}"
    );

    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": common::lsp_position(&text, value_at - 3)}),
    );
    let markdown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        markdown.contains("**Token recount** (o200k_base, offline)"),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!("- recorded: {}\n", counted * 2)),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!(
            "- recounted: {counted}, in lines 1-2 of `{path}` as it is now"
        )),
        "{markdown}"
    );
    // The glossary line is still there.
    assert!(markdown.contains("local tokenizer"), "{markdown}");

    // A wider tolerance: the workspace pass runs again with it, and the hint goes.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"tokenTolerance": 1.5}}}),
    );
    let hover_text = |editor: &mut Editor| {
        let hover = editor.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": common::lsp_position(&text, value_at - 3)}),
        );
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let mut markdown = String::new();
    for _ in 0..100 {
        markdown = hover_text(&mut editor);
        if markdown.contains("within the tolerance of 150%") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        markdown.contains("within the tolerance of 150%"),
        "{markdown}"
    );
    editor.diagnostics_until(&uri, |d| !has(d, "token-count-mismatch"));
    // A wrong value is refused and the wider tolerance kept.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"tokenTolerance": -1}}}),
    );
    let log = (0..5)
        .map(|_| editor.log_message())
        .find(|l| l.contains("tokenTolerance"))
        .unwrap();
    assert!(
        log.contains("reportLsp.tokenTolerance = -1 refused"),
        "{log}"
    );
    let markdown = hover_text(&mut editor);
    assert!(
        markdown.contains("within the tolerance of 150%"),
        "{markdown}"
    );
    editor.shutdown();
}

fn progress_of(message: &Value, token: &Value) -> Option<Value> {
    (message["method"] == "$/progress" && message["params"]["token"] == *token)
        .then(|| message["params"]["value"].clone())
}

#[test]
fn the_first_pass_reports_progress_when_the_client_shows_it() {
    let (project, text) = project();
    let uri = uri_of(&project.report_path());
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(json!({"window": {"workDoneProgress": true}})),
        &[],
        Value::Null,
    );
    editor.open(&uri, &text, 1);
    let create = editor.next_matching(|m| m["method"] == "window/workDoneProgress/create");
    let token = create["params"]["token"].clone();
    assert!(token.is_string(), "{create}");
    editor.send(json!({"jsonrpc": "2.0", "id": create["id"], "result": null}));
    let mut values = Vec::new();
    loop {
        let message = editor.next_matching(|m| progress_of(m, &token).is_some());
        let value = progress_of(&message, &token).unwrap();
        let end = value["kind"] == "end";
        values.push(value);
        if end {
            break;
        }
    }
    assert_eq!(values[0]["kind"], "begin", "{values:?}");
    assert!(values[0]["title"].is_string(), "{values:?}");
    // The report names three paths: its two files and the served path.
    let last_report = values.iter().rev().find(|v| v["kind"] == "report").unwrap();
    assert_eq!(last_report["message"], "3 of 3 files checked", "{values:?}");
    assert_eq!(last_report["percentage"], 100, "{values:?}");
    assert_eq!(values.iter().filter(|v| v["kind"] == "end").count(), 1);
    editor.diagnostics_until(&uri, |d| has(d, "live-tier-confirm"));

    // A later pass (a named file saved) is not a first one: no new progress.
    project.write("docs/done.md", "done\n");
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri_of(&project.path().join("docs/done.md"))}}),
    );
    editor.diagnostics_until(&uri, |d| !has(d, "live-tier-confirm"));
    editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(&text, "\"exact_edit\"")}),
    );
    assert!(
        !editor
            .backlog
            .iter()
            .any(|m| m["method"] == "window/workDoneProgress/create"),
        "{:?}",
        editor.backlog
    );
    editor.shutdown();
}

#[test]
fn a_client_without_work_done_progress_gets_no_progress() {
    let (project, text) = project();
    let uri = uri_of(&project.report_path());
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(json!({"window": {"workDoneProgress": false}})),
        &[],
        Value::Null,
    );
    editor.open(&uri, &text, 1);
    editor.diagnostics_until(&uri, |d| has(d, "live-tier-confirm"));
    // A round trip after the pass: anything the pass sent has arrived by now.
    editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(&text, "\"exact_edit\"")}),
    );
    assert!(
        !editor.backlog.iter().any(|m| {
            m["method"] == "$/progress" || m["method"] == "window/workDoneProgress/create"
        }),
        "{:?}",
        editor.backlog
    );
    editor.shutdown();
}

/// The hover's text at the first `needle` of `text`, asked until it
/// contains `wanted` (a workspace result lands a moment after its pass).
fn hover_until(editor: &mut Editor, uri: &str, text: &str, needle: &str, wanted: &str) -> String {
    let mut markdown = String::new();
    for _ in 0..100 {
        let hover = editor.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(text, needle)}),
        );
        markdown = hover["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if markdown.contains(wanted) {
            return markdown;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the hover never said {wanted:?}: {markdown}");
}

/// The workspace checks' codes in `diagnostics`, and in the publications
/// for `uri` waiting in the backlog; the refusal of a root aside.
fn workspace_codes(editor: &Editor, uri: &str, diagnostics: &[Value]) -> Vec<String> {
    let waiting = editor
        .backlog
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .flat_map(|m| m["params"]["diagnostics"].as_array().unwrap().clone());
    diagnostics
        .iter()
        .cloned()
        .chain(waiting)
        .filter_map(|d| d["code"].as_str().map(str::to_string))
        .filter(|code| code != "root-outside-workspace")
        .filter(|code| {
            report_core::diagnostic::Code::parse(code).is_some_and(|c| c.invariant() == 13)
        })
        .collect()
}

/// A project whose report is stale (a named file changed after the
/// commit: a stale hash, a dirty worktree) and has a structural problem.
fn stale_project() -> (Project, String) {
    let (project, _) = project();
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(project.report_path()).unwrap()).unwrap();
    value["an_unknown_field"] = json!(1);
    let text = project.write_report(&value);
    project.write("docs/setup.md", "one\ntwo\n");
    (project, text)
}

#[test]
fn workspace_checks_off_read_nothing_and_say_why_in_the_hover_until_turned_on() {
    let (project, text) = stale_project();
    let uri = uri_of(&project.report_path());
    let mut editor = start_capable(json!({"workspaceChecks": "off"}));
    editor.open(&uri, &text, 1);
    // The structural checks run.
    let (_, diagnostics) = editor.diagnostics(&uri);
    assert!(has(&diagnostics, "unknown-field"), "{diagnostics:?}");
    // Where the workspace facts would show, the hover says why there are none.
    let edit_at = "\"exact_edit\"";
    let markdown = hover_until(&mut editor, &uri, &text, edit_at, "**Project not read**");
    assert!(
        markdown
            .contains("the workspace checks are off (the setting `workspaceChecks` is `\"off\"`)"),
        "{markdown}"
    );
    assert!(!markdown.contains("Edit preview"), "{markdown}");
    let markdown = hover_until(
        &mut editor,
        &uri,
        &text,
        "\"raw_tokens\"",
        "**Project not read**",
    );
    assert!(!markdown.contains("Token recount"), "{markdown}");
    // A watched file's change or a save reads nothing either.
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&project.path().join("docs/setup.md")), "type": 2}]}),
    );
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    hover_until(&mut editor, &uri, &text, edit_at, "**Project not read**");
    assert_eq!(
        workspace_codes(&editor, &uri, &diagnostics),
        Vec::<String>::new()
    );

    // Turned on: the project is read, and its diagnostics come.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"workspaceChecks": "on"}}}),
    );
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));
    assert!(has(&diagnostics, "live-tier-confirm"), "{diagnostics:?}");
    assert!(has(&diagnostics, "unknown-field"), "{diagnostics:?}");
    hover_until(&mut editor, &uri, &text, edit_at, "**Edit preview**");

    // Off again: they are withdrawn, the structural ones stay.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"workspaceChecks": "off"}}}),
    );
    let diagnostics = editor.diagnostics_until(&uri, |d| !has(d, "stale-exact-edit"));
    assert!(!has(&diagnostics, "live-tier-confirm"), "{diagnostics:?}");
    assert!(has(&diagnostics, "unknown-field"), "{diagnostics:?}");
    hover_until(&mut editor, &uri, &text, edit_at, "**Project not read**");

    // A restricted workspace (the VS Code extension's word) is off whatever
    // workspaceChecks says, and the hover says so.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"workspaceChecks": "on", "restrictedWorkspace": true}}}),
    );
    let markdown = hover_until(&mut editor, &uri, &text, edit_at, "restricted");
    assert!(
        markdown.contains("workspace is restricted (not trusted)"),
        "{markdown}"
    );
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"restrictedWorkspace": false}}}),
    );
    editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));
    editor.shutdown();
}

#[test]
fn a_project_root_outside_every_workspace_folder_is_not_read_unless_allowed() {
    let (elsewhere, _) = stale_project();
    let folder = Project::new();
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(elsewhere.report_path()).unwrap()).unwrap();
    value["scan"]["project_root"] = json!(elsewhere.path().display().to_string());
    let text = folder.write_report(&value);
    let uri = uri_of(&folder.report_path());
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let mut editor = Editor::start_in_folders(binary, &[folder.path()], Value::Null);
    editor.open(&uri, &text, 1);
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "root-outside-workspace"));
    let said = diagnostics
        .iter()
        .find(|d| d["code"] == "root-outside-workspace")
        .unwrap();
    assert_eq!(said["severity"], 3);
    let value_at = text.find("\"project_root\": ").unwrap() + "\"project_root\": ".len();
    assert_eq!(said["range"]["start"], position_at(&text, value_at));
    let message = said["message"].as_str().unwrap();
    assert!(
        message.contains("outside every workspace folder and is not read")
            && message.contains("allowRootOutsideWorkspace"),
        "{message}"
    );
    assert!(has(&diagnostics, "unknown-field"), "{diagnostics:?}");
    let markdown = hover_until(
        &mut editor,
        &uri,
        &text,
        "\"exact_edit\"",
        "**Project not read**",
    );
    // Nothing from that folder: no workspace diagnostic but this one.
    assert_eq!(
        workspace_codes(&editor, &uri, &diagnostics),
        Vec::<String>::new()
    );
    assert!(
        markdown.contains("lies outside every workspace folder (the setting `allowRootOutsideWorkspace` allows it)"),
        "{markdown}"
    );

    // Allowed: the checks run there.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"allowRootOutsideWorkspace": true}}}),
    );
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));
    assert!(
        !has(&diagnostics, "root-outside-workspace"),
        "{diagnostics:?}"
    );
    assert!(has(&diagnostics, "live-tier-confirm"), "{diagnostics:?}");
    hover_until(
        &mut editor,
        &uri,
        &text,
        "\"exact_edit\"",
        "**Edit preview**",
    );
    editor.shutdown();

    // With no workspace folder, the report's own folder is the folder: a
    // root beside it (`../name`) is refused, and `.` is read (every test above).
    let name = elsewhere.path().file_name().unwrap().to_str().unwrap();
    value["scan"]["project_root"] = json!(format!("../{name}"));
    let text = folder.write_report(&value);
    let mut editor =
        Editor::start_with_capabilities(binary, capable_client(&["utf-16"]), &[], Value::Null);
    editor.open(&uri, &text, 1);
    let diagnostics = editor.diagnostics_until(&uri, |d| has(d, "root-outside-workspace"));
    hover_until(
        &mut editor,
        &uri,
        &text,
        "\"exact_edit\"",
        "**Project not read**",
    );
    assert_eq!(
        workspace_codes(&editor, &uri, &diagnostics),
        Vec::<String>::new()
    );
    editor.shutdown();
}

/// The code lens whose command compares with HEAD, asked once.
fn since_head_lens(editor: &mut Editor, uri: &str) -> Value {
    let reply = editor.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(reply.get("error").is_none(), "{reply}");
    let lenses = reply["result"].as_array().cloned().unwrap_or_default();
    lenses
        .into_iter()
        .find(|l| l["command"]["command"] == "report-lsp.showDiffSinceHead")
        .unwrap_or_else(|| panic!("no since-HEAD lens: {reply}"))
}

#[test]
fn a_code_lens_compares_the_report_with_head_and_its_command_shows_the_whole_comparison() {
    let (project, text) = project();
    let uri = uri_of(&project.report_path());
    // The lens is redrawn when a comparison arrives: the client is told to ask again.
    let capabilities = json!({"workspace": {"codeLens": {"refreshSupport": true}}});
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    let reply = editor.request(
        "workspace/executeCommand",
        json!({"command": "report-lsp.showDiffSinceHead", "arguments": [uri]}),
    );
    assert!(reply["error"]["message"].is_string(), "{reply}");
    editor.open(&uri, &text, 1);
    // Written after the first commit: HEAD has no copy.
    answer_request(&mut editor, "workspace/codeLens/refresh");
    let lens = since_head_lens(&mut editor, &uri);
    assert_eq!(
        lens["command"]["title"],
        json!("since HEAD: a new file, not in HEAD")
    );
    assert_eq!(lens["range"]["start"], json!({"line": 0, "character": 0}));
    project.git(&["add", "-A"]);
    project.git(&["commit", "-q", "-m", "the report"]);

    // The next generation: the delete gone, the replacement changed; saved.
    let mut next: Value = serde_json::from_str(&text).unwrap();
    next["entries"].as_array_mut().unwrap().truncate(1);
    next["entries"][0]["exact_edit"]["replacement"] = json!("cargo build");
    let next_text = serde_json::to_string_pretty(&next).unwrap();
    editor.change(&uri, 2, json!([{"text": next_text}]));
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    answer_request(&mut editor, "workspace/codeLens/refresh");
    let lens = since_head_lens(&mut editor, &uri);
    assert_eq!(
        lens["command"]["title"],
        json!("since HEAD: +0 / −1 entries, 1 changed, 0 tier changes, −1 tokens")
    );
    let reply = editor.request(
        "workspace/executeCommand",
        json!({"command": "report-lsp.showDiffSinceHead", "arguments": lens["command"]["arguments"]}),
    );
    let shown = reply["result"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"));
    assert!(
        shown.starts_with("HEAD:hygiene.report.json → hygiene.report.json: +0 / −1 entries"),
        "{shown}"
    );
    assert!(shown.contains("  − plans/plan.md  delete"), "{shown}");
    assert!(
        shown.contains("exact_edit/replacement  \"cargo install\" → \"cargo build\""),
        "{shown}"
    );

    // Typed into since: the lens says what it compared.
    editor.change(&uri, 3, json!([{"text": format!("{next_text}\n")}]));
    let lens = since_head_lens(&mut editor, &uri);
    let title = lens["command"]["title"].as_str().unwrap();
    assert!(
        title.ends_with("−1 tokens (as of the last save)"),
        "{title}"
    );
    editor.shutdown();
}

/// A report equal to HEAD's copy, as one opened from a commit to review
/// it: the editor says the comparison from its own analysis (nothing is
/// parsed again), and says what `report-lsp diff` says of the two texts,
/// errors included.
#[test]
fn a_report_unchanged_since_head_says_what_diff_says_of_the_two() {
    let (project, text) = project();
    // Errors too: a tier the derivation refuses, and a hash that is no hash.
    let broken = text.replacen("\"confirm\"", "\"auto\"", 1).replacen(
        "\"expected_sha256\": \"",
        "\"expected_sha256\": \"x",
        1,
    );
    for text in [text, broken] {
        std::fs::write(project.report_path(), &text).unwrap();
        project.git(&["add", "-A"]);
        project.git(&["commit", "-q", "-m", "the report"]);
        let (mut editor, lens) = opened_with_its_since_head_lens(&project, &text);
        assert_eq!(lens["command"]["title"], json!("since HEAD: no changes"));
        let shown = run_since_head_lens(&mut editor, &lens);
        editor.shutdown();
        // `diff` of HEAD's copy, under the name the editor gives it.
        let said = diff_says(&text, &text);
        assert!(said.contains("no changes"), "{said}");
        assert_eq!(shown, said);
    }
}

/// A big report changed since HEAD (over 4 MiB) is not compared at each
/// check, which would analyse both texts whole, five times the text at
/// once: the lens says it changed, and its command compares then, saying
/// what `report-lsp diff` says of the two.
#[test]
fn a_big_report_changed_since_head_is_compared_when_the_lens_is_run() {
    let project = Project::new();
    let generated =
        report_core::generate::generate_report(report_core::generate::GenerateOptions {
            entries: 6_000,
            seed: 5,
            violation_every: 0,
        });
    let text = generated.replacen("\"/home/dev/monorepo\"", "\".\"", 1);
    assert!(text.len() > 4 << 20, "{} bytes", text.len());
    std::fs::write(project.report_path(), &text).unwrap();
    project.commit_all();
    // One entry's tokens changed since: as a regenerated report.
    let at = text.find("\"raw_tokens\": ").unwrap();
    let end = at + text[at..].find(',').unwrap();
    let changed = format!("{}\"raw_tokens\": 777777{}", &text[..at], &text[end..]);
    std::fs::write(project.report_path(), &changed).unwrap();
    let (mut editor, lens) = opened_with_its_since_head_lens(&project, &changed);
    assert_eq!(
        lens["command"]["title"],
        json!("since HEAD: changed (run to compare)")
    );
    let shown = run_since_head_lens(&mut editor, &lens);
    editor.shutdown();
    let said = diff_says(&text, &changed);
    assert!(said.contains("1 changed"), "{said}");
    assert_eq!(shown, said);
}

/// The project's report opened with `text` in a server that redraws its
/// lenses when asked, and the since-HEAD lens once its comparison came.
fn opened_with_its_since_head_lens(project: &Project, text: &str) -> (Editor, Value) {
    let uri = uri_of(&project.report_path());
    let capabilities = json!({"workspace": {"codeLens": {"refreshSupport": true}}});
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    editor.open(&uri, text, 1);
    answer_request(&mut editor, "workspace/codeLens/refresh");
    let lens = since_head_lens(&mut editor, &uri);
    (editor, lens)
}

/// The since-HEAD lens's command run: the comparison it answers.
fn run_since_head_lens(editor: &mut Editor, lens: &Value) -> String {
    let reply = editor.request(
        "workspace/executeCommand",
        json!({"command": "report-lsp.showDiffSinceHead", "arguments": lens["command"]["arguments"]}),
    );
    let shown = reply["result"].as_str();
    shown.unwrap_or_else(|| panic!("{reply}")).to_string()
}

/// What `report-lsp diff` says of HEAD's copy `head` and the report
/// `now`, under the names the editor gives them.
fn diff_says(head: &str, now: &str) -> String {
    let away = tempfile::tempdir().unwrap();
    std::fs::write(away.path().join("HEAD:hygiene.report.json"), head).unwrap();
    std::fs::write(away.path().join("hygiene.report.json"), now).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .current_dir(away.path())
        .args(["diff", "HEAD:hygiene.report.json", "hygiene.report.json"])
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap()
}

/// The workspace checks' diagnostics are under the `maxDiagnostics` cap
/// with the report's own: a report naming many missing files shows the
/// cap's worth, the most severe first, and the summary counts the rest.
#[test]
fn the_workspace_checks_diagnostics_are_under_the_cap_too() {
    let project = Project::new();
    let paths: Vec<String> = (0..6).map(|i| format!("docs/gone-{i}.md")).collect();
    let entries = paths
        .iter()
        .map(|p| edit_entry(p, json!({"kind": "insert-frontmatter", "key": "k", "value": "v", "expected_sha256": sha256("")})))
        .collect();
    let text = project.write_report(&report(
        FUTURE,
        paths.iter().map(|p| json!(p)).collect(),
        entries,
        vec![],
    ));
    project.commit_all();
    let uri = uri_of(&project.report_path());
    let mut editor = start_capable(json!({"maxDiagnostics": 4}));
    editor.open(&uri, &text, 1);
    // Each path is missing twice (the shortlist's item and the entry's path).
    let summary_of = |d: &[Value]| -> Option<String> {
        let summary = d.iter().find(|d| d["code"] == "too-many-diagnostics")?;
        Some(summary["message"].as_str().unwrap().to_string())
    };
    let capped = editor.diagnostics_until(&uri, |d| summary_of(d).is_some());
    assert_eq!(capped.len(), 5, "the cap and its summary: {capped:#?}");
    assert!(
        summary_of(&capped)
            .unwrap()
            .starts_with("8 more problems are not shown (12 in all;"),
        "{capped:#?}"
    );
    let shown: Vec<&Value> = capped
        .iter()
        .filter(|d| d["code"] == "path-missing")
        .collect();
    assert_eq!(shown.len(), 4);
    // In document order: the first four of them.
    let lines: Vec<u64> = shown
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
    editor.shutdown();
}

/// New settings that change nothing of the report's analysis (the log
/// level) keep its workspace diagnostics: the publication they bring
/// carries them, and no workspace pass runs again for them.
#[test]
fn settings_that_leave_the_analysis_keep_the_workspace_diagnostics() {
    let (project, text) = project();
    let uri = uri_of(&project.report_path());
    let mut editor = start_capable(Value::Null);
    editor.open(&uri, &text, 1);
    let checked = editor.diagnostics_until(&uri, |d| has(d, "live-tier-confirm"));
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"logLevel": "warn"}}}),
    );
    // The settings' analysis publishes again: the same diagnostics.
    let (_, again) = editor.diagnostics(&uri);
    assert_eq!(again, checked);
    editor.shutdown();
}

/// A folder's own answer to the settings pull that turns its checks off
/// withdraws the workspace diagnostics of the reports in that folder, and
/// on again brings them back: the recheck follows each report's own
/// settings (its folder's), not the settings at large.
#[test]
fn a_folders_own_settings_turn_its_reports_checks_off_and_on() {
    let (project, text) = stale_project();
    let uri = uri_of(&project.report_path());
    let capabilities = capable_client_with(json!({"workspace": {"configuration": true}}));
    let mut editor = Editor::start_in_folders_with(capabilities, &[project.path()], Value::Null);
    editor.open(&uri, &text, 1);
    let checked = editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));
    assert!(has(&checked, "unknown-field"), "{checked:?}");
    let folder = file_uri(project.path());
    editor
        .configuration_by_scope
        .insert(folder.clone(), json!({"workspaceChecks": "off"}));
    editor.notify("workspace/didChangeConfiguration", json!({"settings": {}}));
    let off = editor.diagnostics_until(&uri, |d| !has(d, "stale-exact-edit"));
    assert!(!has(&off, "live-tier-confirm"), "{off:?}");
    assert!(has(&off, "unknown-field"), "{off:?}");
    editor
        .configuration_by_scope
        .insert(folder, json!({"workspaceChecks": "on"}));
    editor.notify("workspace/didChangeConfiguration", json!({"settings": {}}));
    let on = editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));
    assert!(has(&on, "live-tier-confirm"), "{on:?}");
    editor.shutdown();
}

/// A 3 000-entry report alone in a folder that is its project, where no
/// file it names is: every entry gets a workspace diagnostic.
fn big_report_in_its_project() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let generated =
        report_core::generate::generate_report(report_core::generate::GenerateOptions {
            entries: 3000,
            seed: 3,
            violation_every: 0,
        });
    let text = generated.replacen("\"/home/dev/monorepo\"", "\".\"", 1);
    assert_ne!(text, generated);
    let path = dir.path().join("big.report.json");
    std::fs::write(&path, &text).unwrap();
    let uri = uri_of(&path);
    (dir, uri, text)
}

/// Types a space and takes it back at the end of `text`, each keystroke
/// waited for, from `version` on, until the workspace checks give way to
/// one (a traced event); the last version typed.
fn type_until_the_checks_give_way(
    editor: &mut Editor,
    uri: &str,
    text: &str,
    mut version: i64,
) -> i64 {
    let gave_way = |m: &Value| {
        m["method"] == "$/logTrace"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.starts_with("workspace checks gave way"))
    };
    let end = position_at(text, text.len());
    let mut after = end.clone();
    after["character"] = json!(end["character"].as_u64().unwrap() + 1);
    let first = version;
    loop {
        version += 1;
        assert!(version < first + 600, "no check gave way in 600 keystrokes");
        let change = match version % 2 {
            0 => json!([{"range": {"start": end, "end": end}, "text": " "}]),
            _ => json!([{"range": {"start": end, "end": after}, "text": ""}]),
        };
        editor.change(uri, version, change);
        let published = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        };
        if gave_way(&editor.next_matching(|m| published(m) || gave_way(m))) {
            return version;
        }
    }
}

/// A big report's workspace checks give way to the user (issue 44): a
/// keystroke typed while they run is analysed and published first, the
/// checks run again once the typing stops, and what they publish then is
/// what an uninterrupted check publishes.
#[test]
fn the_workspace_checks_give_way_to_keystrokes_and_run_again_when_they_stop() {
    let (dir, uri, text) = big_report_in_its_project();
    let options = json!({"logLevel": "debug", "findReports": false});
    let checked = |editor: &mut Editor| editor.diagnostics_until(&uri, |d| has(d, "path-missing"));

    // Uninterrupted.
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let mut quiet = Editor::start_in_folders(binary, &[dir.path()], options.clone());
    quiet.open(&uri, &text, 1);
    let uninterrupted = checked(&mut quiet);
    quiet.shutdown();

    let mut editor = Editor::start_in_folders(binary, &[dir.path()], options);
    editor.notify("$/setTrace", json!({"value": "verbose"}));
    editor.open(&uri, &text, 1);
    type_until_the_checks_give_way(&mut editor, &uri, &text, 1);
    // The typing stops: the checks run again, to their end.
    let after = checked(&mut editor);
    assert_eq!(after.len(), uninterrupted.len());
    let codes = |d: &[Value]| d.iter().map(|d| d["code"].clone()).collect::<Vec<_>>();
    assert_eq!(codes(&after), codes(&uninterrupted));
    editor.shutdown();
}

/// Checks turned off while a check that gave way waits to run again: the
/// pass that withdraws the workspace diagnostics takes its place, and the
/// old check never publishes them again.
#[test]
fn checks_turned_off_while_one_gave_way_stay_off() {
    let (dir, uri, text) = big_report_in_its_project();
    let capabilities = capable_client_with(json!({"workspace": {"configuration": true}}));
    let options = json!({"logLevel": "debug", "findReports": false});
    let mut editor = Editor::start_in_folders_with(capabilities, &[dir.path()], options);
    editor.notify("$/setTrace", json!({"value": "verbose"}));
    editor.open(&uri, &text, 1);
    let version = type_until_the_checks_give_way(&mut editor, &uri, &text, 1);
    editor.configuration_by_scope.insert(
        file_uri(dir.path()),
        json!({"logLevel": "debug", "workspaceChecks": "off"}),
    );
    editor.notify("workspace/didChangeConfiguration", json!({"settings": {}}));
    // Typed on a little, then nothing: whatever was postponed has run.
    let end = position_at(&text, text.len());
    let space = json!([{"range": {"start": end, "end": end}, "text": " "}]);
    editor.change(&uri, version + 1, space);
    // Round trips with pauses: what the settings and the postponed steps
    // publish arrives meanwhile (a loaded machine gets two seconds).
    for _ in 0..7 {
        editor.request("report-lsp/status", json!({"uri": uri}));
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    editor.request("report-lsp/status", json!({"uri": uri}));
    let last = (editor.backlog.iter())
        .rfind(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
        })
        .expect("published since");
    let diagnostics = last["params"]["diagnostics"].as_array().unwrap();
    assert!(!has(diagnostics, "path-missing"), "{diagnostics:?}");
    editor.shutdown();
}
