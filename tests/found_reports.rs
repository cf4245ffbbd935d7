//! Reports found, not only opened, over stdio: the workspace folders
//! searched as `check DIR` searches them, `workspace/diagnostic` (full,
//! then unchanged; partial results during the first search; a change on
//! disk, an open and a close, a deletion), pushes for clients that ask, and
//! `workspace/symbol` across open and unopened reports.

mod common;

use std::time::{Duration, Instant};

use common::editor::{Editor, capable_client_with};
use common::file_uri;
use common::project::Project;
use common::views::{diagnostics_until, pull, pulling_client};
use serde_json::{Value, json};

fn golden(name: &str) -> String {
    std::fs::read_to_string(common::golden_dir().join(name)).unwrap()
}

/// A workspace: a valid report, an invalid one under a CJK and emoji
/// folder, a JSON file that is no report, and an ignored report.
fn workspace() -> Project {
    let project = Project::new();
    project.write("a/hygiene.report.json", &golden("valid.report.json"));
    project.write(
        "b/报告 🚀/machine-report.json",
        &golden("invalid.report.json"),
    );
    project.write("package.json", "{\"name\": \"x\"}");
    project.write("build/old.report.json", &golden("invalid.report.json"));
    project.write(".gitignore", "build/\n");
    std::fs::create_dir_all(project.path().join(".git")).unwrap();
    project
}

fn ids(items: &[(String, String, String, Vec<Value>)]) -> Vec<(String, String)> {
    items.iter().map(|i| (i.0.clone(), i.2.clone())).collect()
}

/// Pulls until `done` accepts the items (the thread reads changes on its own).
fn pull_until(
    editor: &mut Editor,
    previous: &[(String, String)],
    done: impl Fn(&[(String, String, String, Vec<Value>)]) -> bool,
) -> Vec<(String, String, String, Vec<Value>)> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let items = pull(editor, previous);
        if done(&items) {
            return items;
        }
        assert!(
            Instant::now() < deadline,
            "no pull satisfied the test: {items:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn workspace_diagnostics_list_every_unopened_report_and_then_say_unchanged() {
    let project = workspace();
    let root = project.path();
    let mut editor = Editor::start_in_folders_with(pulling_client(), &[root], Value::Null);
    let provider = &editor.initialized["result"]["capabilities"]["diagnosticProvider"];
    assert_eq!(provider["workspaceDiagnostics"], true);
    assert_eq!(
        editor.initialized["result"]["capabilities"]["workspaceSymbolProvider"],
        true
    );
    let valid = file_uri(&root.join("a/hygiene.report.json"));
    let invalid = file_uri(&root.join("b/报告 🚀/machine-report.json"));

    // The first pull waits for the first search: both reports, and nothing else.
    let first = pull(&mut editor, &[]);
    let uris: Vec<&str> = first.iter().map(|i| i.0.as_str()).collect();
    assert_eq!(uris, [valid.as_str(), invalid.as_str()]);
    assert!(first.iter().all(|i| i.1 == "full"));
    assert!(first[0].3.is_empty(), "{:?}", first[0].3);
    let expected = common::diagnostic_starts(&golden("invalid.report.json"));
    let shown: Vec<(u32, u32, String)> = first[1]
        .3
        .iter()
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap() as u32,
                d["range"]["start"]["character"].as_u64().unwrap() as u32,
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(u32, u32, String)> = expected
        .into_iter()
        .map(|(l, c, code)| (l, c, code.to_string()))
        .collect();
    assert_eq!(
        shown, expected,
        "the same problems as `check`, at the same places"
    );

    // Nothing changed: unchanged, by the same ids.
    let again = pull(&mut editor, &ids(&first));
    assert!(again.iter().all(|i| i.1 == "unchanged"), "{again:?}");
    assert_eq!(ids(&again), ids(&first));

    // A change on disk, announced by the watcher: that report again, in full.
    let path = root.join("a/hygiene.report.json");
    let broken = golden("valid.report.json").replacen("\"1.0\"", "1", 1);
    std::fs::write(&path, &broken).unwrap();
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": valid, "type": 2}]}),
    );
    let changed = pull_until(&mut editor, &ids(&first), |items| {
        items.iter().any(|i| i.0 == valid && i.1 == "full")
    });
    let now = changed.iter().find(|i| i.0 == valid).unwrap();
    assert!(
        now.3.iter().any(|d| d["code"] == "wrong-type"),
        "{:?}",
        now.3
    );
    assert!(changed.iter().any(|i| i.0 == invalid && i.1 == "unchanged"));

    // Open: the document pull's, left out here. Closed: back, from disk.
    editor.open(&invalid, "{}", 1);
    let while_open = pull(&mut editor, &ids(&changed));
    assert!(while_open.iter().all(|i| i.0 != invalid), "{while_open:?}");
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": invalid}}),
    );
    let closed = pull_until(&mut editor, &ids(&changed), |items| {
        items.iter().any(|i| i.0 == invalid && i.1 == "full")
    });
    let back = closed.iter().find(|i| i.0 == invalid).unwrap();
    assert_eq!(
        back.3.len(),
        first[1].3.len(),
        "the file's problems, not the editor's text's"
    );
    // VS Code pulls the closed document once more: the file answers.
    let reply = editor.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": invalid}}),
    );
    assert_eq!(reply["result"]["kind"], "full", "{reply}");
    assert_eq!(
        reply["result"]["items"].as_array().unwrap().len(),
        back.3.len()
    );

    // Deleted: said once, as empty.
    std::fs::remove_file(&path).unwrap();
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": valid, "type": 3}]}),
    );
    let gone = pull_until(&mut editor, &ids(&closed), |items| {
        items
            .iter()
            .any(|i| i.0 == valid && i.1 == "full" && i.3.is_empty())
    });
    assert!(gone.iter().any(|i| i.0 == invalid && i.1 == "unchanged"));

    // A new report on disk is found by its watched creation.
    let created = root.join("c/new.report.json");
    std::fs::create_dir_all(created.parent().unwrap()).unwrap();
    std::fs::write(&created, golden("invalid.report.json")).unwrap();
    let created_uri = file_uri(&created);
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": created_uri, "type": 1}]}),
    );
    pull_until(&mut editor, &ids(&gone), |items| {
        items.iter().any(|i| i.0 == created_uri && !i.3.is_empty())
    });
    editor.shutdown();
}

#[test]
fn the_first_search_streams_partial_results_that_the_answer_does_not_repeat() {
    let project = Project::new();
    let report = common::reports::many_errors_report(3000, false);
    for i in 0..12 {
        project.write(&format!("r{i:02}/machine-report.json"), &report);
    }
    let mut editor =
        Editor::start_in_folders_with(pulling_client(), &[project.path()], Value::Null);
    // Sent at once: the search has not finished.
    let reply = editor.request(
        "workspace/diagnostic",
        json!({"identifier": "report-lsp", "previousResultIds": [], "partialResultToken": "p-1"}),
    );
    let mut uris: Vec<String> = reply["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["uri"].as_str().unwrap().to_string())
        .collect();
    let mut partials = 0;
    while let Some(at) = editor
        .backlog
        .iter()
        .position(|m| m["method"] == "$/progress" && m["params"]["token"] == "p-1")
    {
        let partial = editor.backlog.remove(at);
        partials += 1;
        for item in partial["params"]["value"]["items"].as_array().unwrap() {
            assert_eq!(item["kind"], "full");
            uris.push(item["uri"].as_str().unwrap().to_string());
        }
    }
    assert!(partials >= 1, "some results came before the answer");
    assert_eq!(
        reply["result"]["items"],
        json!([]),
        "after partial results the answer is empty"
    );
    let count = uris.len();
    uris.sort();
    uris.dedup();
    assert_eq!(uris.len(), count, "no report twice");
    assert_eq!(count, 12);
    editor.shutdown();
}

#[test]
fn a_client_that_takes_pushes_gets_unopened_reports_only_when_it_asks() {
    let project = workspace();
    let root = project.path();
    let mut editor =
        Editor::start_in_folders(env!("CARGO_BIN_EXE_report-lsp"), &[root], Value::Null);
    assert!(
        editor.initialized["result"]["capabilities"]["diagnosticProvider"].is_null(),
        "a client that does not pull is not offered pulls"
    );
    let invalid = file_uri(&root.join("b/报告 🚀/machine-report.json"));
    // Found (its symbols are known), and not pushed.
    wait_for_symbols(&mut editor, "roadmap", 2);
    assert!(
        !editor
            .backlog
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics"),
        "nothing pushed for an unopened report by default"
    );
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"diagnoseUnopenedReports": true}}}),
    );
    let (version, diagnostics) = editor.diagnostics(&invalid);
    assert_eq!(version, None);
    assert!(!diagnostics.is_empty());
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"diagnoseUnopenedReports": false}}}),
    );
    let (_, withdrawn) = editor.diagnostics(&invalid);
    assert!(withdrawn.is_empty());
    editor.shutdown();
}

/// Asks `workspace/symbol` until it answers at least `count` symbols.
fn wait_for_symbols(editor: &mut Editor, query: &str, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let reply = editor.request("workspace/symbol", json!({"query": query}));
        assert!(reply.get("error").is_none(), "{reply}");
        let symbols = reply["result"].as_array().cloned().unwrap_or_default();
        if symbols.len() >= count {
            return symbols;
        }
        assert!(Instant::now() < deadline, "{query}: {symbols:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn workspace_symbols_find_entries_in_open_and_unopened_reports_by_path_and_class() {
    let project = Project::new();
    let root = project.path();
    let entry =
        |path: &str| json!({"path": path, "category": {"class": "stale", "subtype": "orphaned"}});
    let text = |paths: &[&str]| {
        serde_json::to_string_pretty(&json!({
            "schema_version": "1.0",
            "entries": paths.iter().map(|p| entry(p)).collect::<Vec<_>>(),
        }))
        .unwrap()
    };
    project.write(
        "disk.report.json",
        &text(&["docs/指南 🚀.md", "docs/setup.md"]),
    );
    project.write("open.report.json", &text(&["docs/other.md"]));
    let mut editor = Editor::start_in_folders_with(pulling_client(), &[root], Value::Null);
    let open_uri = file_uri(&root.join("open.report.json"));
    let disk_uri = file_uri(&root.join("disk.report.json"));
    // The open report's text is the editor's, not the file's.
    let edited = text(&["docs/edited-in-editor.md"]);
    editor.open(&open_uri, &edited, 1);

    let found = wait_for_symbols(&mut editor, "指南", 1);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["name"], "docs/指南 🚀.md");
    assert_eq!(found[0]["location"]["uri"], disk_uri);
    let container = found[0]["containerName"].as_str().unwrap();
    assert!(
        container.starts_with("disk.report.json entries[0] · stale/orphaned"),
        "{container}"
    );
    // UTF-16 columns: the path's value, quotes and all.
    let line = text(&["docs/指南 🚀.md", "docs/setup.md"])
        .lines()
        .position(|l| l.contains("指南"))
        .unwrap();
    assert_eq!(found[0]["location"]["range"]["start"]["line"], line);
    let start = found[0]["location"]["range"]["start"]["character"]
        .as_u64()
        .unwrap();
    let end = found[0]["location"]["range"]["end"]["character"]
        .as_u64()
        .unwrap();
    assert_eq!(
        end - start,
        "\"docs/指南 🚀.md\"".encode_utf16().count() as u64
    );

    let edited_found = wait_for_symbols(&mut editor, "edited-in-editor", 1);
    assert_eq!(edited_found[0]["location"]["uri"], open_uri);
    let none = editor.request("workspace/symbol", json!({"query": "docs/other"}));
    assert_eq!(
        none["result"],
        json!([]),
        "the file's text of an open report is not searched"
    );

    // By class and subtype: every entry of both.
    let all = wait_for_symbols(&mut editor, "orphaned", 3);
    assert_eq!(all.len(), 3, "{all:?}");
    let nothing = editor.request("workspace/symbol", json!({"query": "zzzz"}));
    assert_eq!(nothing["result"], json!([]));
    editor.shutdown();
}

#[test]
fn folders_added_and_removed_while_running_are_searched_and_forgotten() {
    let first = Project::new();
    let second = Project::new();
    first.write("a.report.json", &golden("invalid.report.json"));
    second.write("第二/b.report.json", &golden("invalid.report.json"));
    let mut editor = Editor::start_in_folders_with(pulling_client(), &[first.path()], Value::Null);
    let folders = &editor.initialized["result"]["capabilities"]["workspace"]["workspaceFolders"];
    assert_eq!(folders["supported"], true);
    assert_eq!(folders["changeNotifications"], true);
    let a = file_uri(&first.path().join("a.report.json"));
    let b = file_uri(&second.path().join("第二/b.report.json"));
    let folder = |p: &Project| json!({"uri": file_uri(p.path()), "name": "f"});

    let before = pull(&mut editor, &[]);
    assert_eq!(
        before.iter().map(|i| i.0.as_str()).collect::<Vec<_>>(),
        [a.as_str()]
    );

    editor.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [folder(&second)], "removed": []}}),
    );
    let both = pull_until(&mut editor, &ids(&before), |items| {
        items.iter().any(|i| i.0 == b && !i.3.is_empty())
    });
    assert!(
        both.iter().any(|i| i.0 == a && i.1 == "unchanged"),
        "{both:?}"
    );

    editor.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [], "removed": [folder(&first)]}}),
    );
    let all_ids: Vec<(String, String)> = ids(&both);
    let without = pull_until(&mut editor, &all_ids, |items| {
        items
            .iter()
            .any(|i| i.0 == a && i.1 == "full" && i.3.is_empty())
    });
    assert!(
        without.iter().any(|i| i.0 == b && i.1 == "unchanged"),
        "{without:?}"
    );

    // Added again, unchanged on disk: read again all the same.
    editor.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [folder(&first)], "removed": []}}),
    );
    pull_until(&mut editor, &ids(&without), |items| {
        items.iter().any(|i| i.0 == a && !i.3.is_empty())
    });
    editor.shutdown();
}

#[test]
fn each_folder_takes_its_own_settings_from_workspace_configuration() {
    let first = Project::new();
    let second = Project::new();
    first.write("a.report.json", &golden("invalid.report.json"));
    second.write("b.report.json", &golden("invalid.report.json"));
    let capabilities = capable_client_with(json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}, "configuration": true},
    }));
    let mut editor =
        Editor::start_in_folders_with(capabilities, &[first.path(), second.path()], Value::Null);
    let a = file_uri(&first.path().join("a.report.json"));
    let b = file_uri(&second.path().join("b.report.json"));
    let all = pull(&mut editor, &[]);
    let full = all.iter().find(|i| i.0 == a).unwrap().3.len();
    assert!(full > 3, "{full}");

    // The second folder's own value (as a `.vscode/settings.json` gives it).
    editor
        .configuration_by_scope
        .insert(file_uri(second.path()), json!({"maxDiagnostics": 2}));
    editor.notify("workspace/didChangeConfiguration", json!({"settings": {}}));
    let capped = pull_until(&mut editor, &ids(&all), |items| {
        items.iter().any(|i| i.0 == b && i.3.len() == 3)
    });
    let summary = &capped.iter().find(|i| i.0 == b).unwrap().3[2];
    assert_eq!(summary["code"], "too-many-diagnostics", "{summary}");
    assert!(
        capped.iter().any(|i| i.0 == a && i.1 == "unchanged"),
        "the first folder keeps the settings at large: {capped:?}"
    );

    // Opened, the report is analysed with its folder's settings too.
    editor.open(&b, &golden("invalid.report.json"), 1);
    let reply = editor.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": b}}),
    );
    assert_eq!(
        reply["result"]["items"].as_array().unwrap().len(),
        3,
        "{reply}"
    );
    editor.open(&a, &golden("invalid.report.json"), 1);
    let reply = editor.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": a}}),
    );
    assert_eq!(reply["result"]["items"].as_array().unwrap().len(), full);
    editor.shutdown();
}

#[test]
fn a_folder_deleted_takes_its_reports_and_one_created_brings_them() {
    let project = Project::new();
    let root = project.path();
    project.write("old/机器.report.json", &golden("invalid.report.json"));
    let mut editor = Editor::start_in_folders_with(pulling_client(), &[root], Value::Null);
    let old = file_uri(&root.join("old/机器.report.json"));
    let new = file_uri(&root.join("new/机器.report.json"));
    let first = pull(&mut editor, &[]);
    assert_eq!(first.len(), 1);
    // Renamed: VS Code reports the folders, not the files in them.
    std::fs::rename(root.join("old"), root.join("new")).unwrap();
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [
            {"uri": file_uri(&root.join("old")), "type": 3},
            {"uri": file_uri(&root.join("new")), "type": 1},
        ]}),
    );
    let moved = pull_until(&mut editor, &ids(&first), |items| {
        items
            .iter()
            .any(|i| i.0 == old && i.1 == "full" && i.3.is_empty())
            && items.iter().any(|i| i.0 == new && !i.3.is_empty())
    });
    assert_eq!(moved.len(), 2, "{moved:?}");
    editor.shutdown();
}

#[test]
fn no_search_when_find_reports_is_off_or_the_workspace_is_restricted() {
    for options in [
        json!({"findReports": false}),
        json!({"restrictedWorkspace": true}),
    ] {
        let project = workspace();
        let mut editor =
            Editor::start_in_folders_with(pulling_client(), &[project.path()], options.clone());
        let items = pull(&mut editor, &[]);
        assert!(items.is_empty(), "{options}: {items:?}");
        let path = project.path().join("a/hygiene.report.json");
        editor.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": file_uri(&path), "type": 2}]}),
        );
        let symbols = editor.request("workspace/symbol", json!({"query": ""}));
        assert_eq!(symbols["result"], json!([]), "{options}");
        assert!(pull(&mut editor, &[]).is_empty(), "{options}");
        editor.shutdown();
    }
}

#[test]
fn a_workspace_without_folders_answers_at_once_with_nothing() {
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        pulling_client(),
        &[],
        Value::Null,
    );
    assert!(pull(&mut editor, &[]).is_empty());
    editor.shutdown();
}

/// A project whose report (`a.report.json`, its URI) names `gone.md`,
/// which is not there, and has an unknown field.
fn a_report_naming_a_missing_file() -> (Project, String) {
    let project = Project::new();
    let text = r#"{"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07Z",
  "scan": {"project_root": ".", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0},
  "shortlist": ["gone.md"], "entries": [], "promotion_candidates": [], "extra": 1}"#;
    project.write("a.report.json", text);
    let uri = file_uri(&project.path().join("a.report.json"));
    (project, uri)
}

/// The codes of `diagnostics`, sorted.
fn codes(diagnostics: &[Value]) -> Vec<String> {
    let mut codes: Vec<String> = diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    codes.sort();
    codes
}

/// A report left unopened is checked against its project as an open one
/// is: with `workspaceChecks` off, not at all; on, its missing files are
/// said; one created, it is read again and they are not.
#[test]
fn an_unopened_reports_workspace_checks_follow_the_settings_and_the_files() {
    let (project, uri) = a_report_naming_a_missing_file();
    let root = project.path();
    let options = json!({"diagnoseUnopenedReports": true, "workspaceChecks": "off"});
    let mut editor =
        Editor::start_in_folders_with(capable_client_with(json!({})), &[root], options);
    let off = diagnostics_until(&mut editor, &uri, |d| !d.is_empty());
    assert_eq!(codes(&off), ["unknown-field"]);
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"diagnoseUnopenedReports": true, "workspaceChecks": "on"}}}),
    );
    let on = diagnostics_until(&mut editor, &uri, |d| d.len() == 2);
    assert_eq!(codes(&on), ["path-missing", "unknown-field"]);
    project.write("gone.md", "back\n");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&root.join("gone.md")), "type": 1}]}),
    );
    let back = diagnostics_until(&mut editor, &uri, |d| d.len() == 1);
    assert_eq!(codes(&back), ["unknown-field"]);
    editor.shutdown();
}

/// The trust of an open report holds for an unopened one: a root outside
/// every workspace folder is not read (one `root-outside-workspace` says
/// so), unless `allowRootOutsideWorkspace`.
#[test]
fn an_unopened_report_whose_root_is_outside_the_folders_is_not_read_unless_allowed() {
    let elsewhere = Project::new();
    let folder = Project::new();
    let text = format!(
        r#"{{"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07Z",
  "scan": {{"project_root": {}, "scope_globs": [], "excluded_dirs": [], "files_scanned": 0}},
  "shortlist": ["gone.md"], "entries": [], "promotion_candidates": []}}"#,
        json!(elsewhere.path().display().to_string())
    );
    folder.write("a.report.json", &text);
    let uri = file_uri(&folder.path().join("a.report.json"));
    let options = json!({"diagnoseUnopenedReports": true});
    let client = capable_client_with(json!({}));
    let mut editor = Editor::start_in_folders_with(client, &[folder.path()], options);
    let refused = diagnostics_until(&mut editor, &uri, |d| !d.is_empty());
    let codes: Vec<&str> = refused
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["root-outside-workspace"]);
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"diagnoseUnopenedReports": true, "allowRootOutsideWorkspace": true}}}),
    );
    let read = diagnostics_until(&mut editor, &uri, |d| {
        d.iter().any(|d| d["code"] == "path-missing")
    });
    assert!(
        !read.iter().any(|d| d["code"] == "root-outside-workspace"),
        "{read:?}"
    );
    editor.shutdown();
}

/// A search reads each report from disk once, its workspace checks
/// included: the second pass (once every report is known) checks the
/// analysis the first one kept. Seen in the server's debug trace.
#[test]
fn a_search_reads_a_report_whose_checks_read_its_project_once() {
    let (project, uri) = a_report_naming_a_missing_file();
    let root = project.path();
    let options = json!({"diagnoseUnopenedReports": true, "logLevel": "debug"});
    let mut editor =
        Editor::start_in_folders_with(capable_client_with(json!({})), &[], options.clone());
    // A pull of the settings gets the same.
    editor.configuration = options.clone();
    editor.notify("$/setTrace", json!({"value": "verbose"}));
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": options}}),
    );
    // Traced from now on once a document opened elsewhere is.
    editor.open("file:///tmp/elsewhere/x.report.json", "{}", 1);
    editor.next_matching(|m| m["method"] == "$/logTrace");
    editor.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [{"uri": file_uri(root), "name": "f"}], "removed": []}}),
    );
    // Each pass says it published the report, and whether it read it.
    let published: Vec<String> = (0..2)
        .map(|_| {
            let trace = editor.next_matching(|m| {
                m["method"] == "$/logTrace"
                    && m["params"]["message"].as_str().is_some_and(|t| {
                        t.starts_with("found report published") && t.contains("a.report.json")
                    })
            });
            trace["params"]["message"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(published[0].contains("from_disk=true"), "{published:#?}");
    assert!(published[1].contains("from_disk=false"), "{published:#?}");
    // The publications came meanwhile: the second with the workspace checks.
    let checked = editor.diagnostics_until(&uri, |d| d.len() == 2);
    assert_eq!(codes(&checked), ["path-missing", "unknown-field"]);
    editor.shutdown();
}

/// The text of a `$/logTrace`, or "".
fn trace(message: &Value) -> &str {
    match message["method"] == "$/logTrace" {
        true => message["params"]["message"].as_str().unwrap_or(""),
        false => "",
    }
}

/// The editor's large messages come first. While one is read (a big
/// report being opened), the search reads no file; it would otherwise read
/// from disk, at the same time, the very report being opened. Here the
/// folder's search starts while the report's `didOpen` is half sent: it
/// waits, and then leaves the report to the editor.
#[test]
fn the_search_waits_for_a_large_message_and_leaves_the_report_being_opened_to_it() {
    let project = Project::new();
    // Past a large message's size (1 MiB) with blanks after the report.
    let text = golden("valid.report.json") + &" ".repeat(1 << 21);
    project.write("big.report.json", &text);
    let uri = file_uri(&project.path().join("big.report.json"));
    let options = json!({"logLevel": "debug"});
    let mut editor =
        Editor::start_in_folders_with(capable_client_with(json!({})), &[], options.clone());
    editor.configuration = options;
    editor.notify("$/setTrace", json!({"value": "verbose"}));
    // Traced from now on once a document opened elsewhere is.
    editor.open("file:///tmp/elsewhere/x.report.json", "{}", 1);
    editor.next_matching(|m| m["method"] == "$/logTrace");
    let folders = Editor::frame(&json!({
        "jsonrpc": "2.0",
        "method": "workspace/didChangeWorkspaceFolders",
        "params": {"event": {"added": [{"uri": file_uri(project.path()), "name": "f"}], "removed": []}},
    }));
    let open = Editor::frame(&json!({
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}},
    }));
    let half = open.len() / 2;
    editor.send_raw(&[folders, open[..half].to_vec()].concat());
    let waits = editor.next_matching(|m| trace(m).starts_with("the search waits"));
    assert!(trace(&waits).contains("big.report.json"), "{waits}");
    editor.send_raw(&open[half..]);
    // The folder's search (the first, of no folder, may be told later).
    let done = editor.next_matching(|m| trace(m).starts_with("reports found files=1"));
    assert!(
        trace(&done).contains("files=1 reports=0"),
        "the report being opened was read by the search: {done}"
    );
    let published = editor.next_matching(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
    });
    assert_eq!(published["params"]["version"], 1, "{published}");
    editor.shutdown();
}

/// A report found on disk, never opened, is watched for as an open one
/// is: the files it names join the client's watchers by extension, so a
/// change to one reaches the server; the folders holding reports join by
/// name, so their deletion does.
#[test]
fn the_files_a_found_report_names_are_watched_by_extension() {
    let project = Project::new();
    project.write("docs/guide.md", "# Guide\n");
    project.write("notes/plan.txt", "later\n");
    let entry = |path: &str, text: &str| {
        common::project::edit_entry(
            path,
            json!({"kind": "replace-text", "anchor": {"start_line": 1, "end_line": 1}, "match": "a", "replacement": "b", "expected_sha256": common::project::sha256(text)}),
        )
    };
    project.write_report(&common::project::report(
        "2099-01-01T00:00:00Z",
        vec![json!("docs/guide.md"), json!("notes/plan.txt")],
        vec![
            entry("docs/guide.md", "# Guide\n"),
            entry("notes/plan.txt", "later\n"),
        ],
        vec![],
    ));
    // Another, deeper: a client says its folder was deleted as the folder alone.
    project.write("old/2026/kept.report.json", &golden("valid.report.json"));
    let capabilities =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut editor = Editor::start_in_folders_with(
        capable_client_with(capabilities),
        &[project.path()],
        Value::Null,
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let globs = loop {
        assert!(
            Instant::now() < deadline,
            "the named files' globs never came"
        );
        let registration = editor.next_matching(|m| m["method"] == "client/registerCapability");
        editor.send(json!({"jsonrpc": "2.0", "id": registration["id"], "result": null}));
        let globs: Vec<String> =
            registration["params"]["registrations"][0]["registerOptions"]["watchers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["globPattern"].as_str().unwrap().to_string())
                .collect();
        if globs.iter().any(|g| g == "**/*.md") && globs.iter().any(|g| g == "**/2026") {
            break globs;
        }
    };
    assert!(globs.iter().any(|g| g == "**/*.txt"), "{globs:?}");
    assert!(globs.iter().any(|g| g == "**/old"), "{globs:?}");
    assert!(!globs.iter().any(|g| g == "**/*"), "{globs:?}");
    editor.shutdown();
}
