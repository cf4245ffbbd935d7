//! The documents a report names, over stdio: opened as Markdown, each span
//! an entry anchors gets a code lens (kind, tier, tokens, stale, the
//! report and entry) that leads to the entry through `window/showDocument`,
//! a hover with the entry's signals and tier, and go to definition to its
//! `path` in the report; an edit that changes the text marks its entries
//! stale and undoing it clears them. It works for the report open in the
//! editor and for one only found on disk; a file no entry names gets
//! nothing, and no target document is analysed as a report.

mod common;

use common::editor::{Editor, capable_client_with};
use common::file_uri;
use common::project::{Project, edit_entry, report, sha256};
use serde_json::{Value, json};

const TARGET: &str = "docs/旧-api 😀.md";
const TEXT: &str = "# API\nkeep\nold 1 — 路\nold 2\nkeep too\n";

/// A project whose report names the target twice (a `confirm`
/// delete-range of lines 3–4, an `auto` frontmatter insert on the whole
/// file), and a file it does not name; the report's text.
fn project() -> (Project, String) {
    let project = Project::new();
    project.write(TARGET, TEXT);
    project.write("docs/other.md", "# Other\n");
    let mut delete = edit_entry(
        TARGET,
        json!({"kind": "delete-range", "anchor": {"start_line": 3, "end_line": 4}, "expected_sha256": sha256(TEXT)}),
    );
    delete["is_destructive"] = json!(true);
    delete["is_reversible"] = json!(false);
    delete["safety_tier"] = json!("confirm");
    delete["signals"] = json!(["superseded by docs/api.md", "no inbound links"]);
    delete["token_estimate"] = json!({"raw_tokens": 812});
    let frontmatter = edit_entry(
        TARGET,
        json!({"kind": "insert-frontmatter", "key": "hygiene", "value": "frozen", "expected_sha256": sha256(TEXT)}),
    );
    let text = project.write_report(&report(
        "2099-01-01T00:00:00Z",
        vec![json!(TARGET)],
        vec![delete, frontmatter],
        vec![],
    ));
    project.commit_all();
    (project, text)
}

fn start(project: &Project) -> Editor {
    let capabilities = capable_client_with(json!({
        "window": {"showDocument": {"support": true}},
        "textDocument": {"publishDiagnostics": {"tagSupport": {"valueSet": [1, 2]}}},
    }));
    Editor::start_in_folders_with(capabilities, &[project.path()], Value::Null)
}

/// The code lenses of `uri`, asked until some come (at most 100 tries).
fn lenses(editor: &mut Editor, uri: &str, until: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut last = Vec::new();
    for _ in 0..100 {
        let reply = editor.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        );
        assert!(reply.get("error").is_none(), "{reply}");
        last = reply["result"].as_array().cloned().unwrap_or_default();
        if until(&last) {
            return last;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("no lenses satisfied the test: {last:#?}");
}

fn titles(lenses: &[Value]) -> Vec<String> {
    lenses
        .iter()
        .map(|l| {
            format!(
                "{}: {}",
                l["range"]["start"]["line"],
                l["command"]["title"].as_str().unwrap()
            )
        })
        .collect()
}

/// The range of the first `"path": "<path>"` value in `text`, quotes included, in UTF-16.
fn path_value_range(text: &str, path: &str) -> Value {
    let needle = format!("\"path\": \"{path}\"");
    let start = text.find(&needle).unwrap() + "\"path\": ".len();
    let end = start + path.len() + 2;
    let at = |offset: usize| {
        let line = text[..offset].matches('\n').count();
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        json!({"line": line, "character": text[line_start..offset].encode_utf16().count()})
    };
    json!({"start": at(start), "end": at(end)})
}

fn stale_codes(diagnostics: &[Value]) -> usize {
    diagnostics
        .iter()
        .filter(|d| d["code"] == "stale-exact-edit")
        .count()
}

fn at(line: u32) -> Value {
    json!({"line": line, "character": 1})
}

#[test]
fn a_target_document_shows_its_entries_follows_its_edits_and_leads_to_them() {
    let (project, text) = project();
    let report = file_uri(&project.report_path());
    let target = file_uri(&project.path().join(TARGET));
    let mut editor = start(&project);
    editor.open(&report, &text, 1);
    editor.open_as(&target, "markdown", TEXT, 1);
    // The span the clean removes, faded: a hint (the insert removes nothing).
    let (version, hints) = editor.diagnostics(&target);
    assert_eq!(version, Some(1));
    assert_eq!(
        hints,
        [json!({
            "range": {"start": {"line": 2, "character": 0}, "end": {"line": 4, "character": 0}},
            "severity": 4,
            "source": "report-lsp",
            "message": "the clean removes this: delete-range · confirm — hygiene.report.json entries[0]",
            "tags": [1],
        })]
    );
    let found = lenses(&mut editor, &target, |l| l.len() == 2);
    assert_eq!(
        titles(&found),
        [
            "2: delete-range · confirm · 812 tok — hygiene.report.json entries[0]",
            "0: insert-frontmatter · auto · 1 tok — hygiene.report.json entries[1]",
        ]
    );
    let entry = json!({"uri": report, "range": path_value_range(&text, TARGET)});
    assert_eq!(found[0]["command"]["command"], "report-lsp.showEntry");
    assert_eq!(found[0]["command"]["arguments"], json!([entry]));

    // The lens leads to the entry: the server asks the editor to show it.
    editor.send(
        json!({"jsonrpc": "2.0", "id": 9001, "method": "workspace/executeCommand",
        "params": {"command": "report-lsp.showEntry", "arguments": [entry]}}),
    );
    let show = editor.next_matching(|m| m["method"] == "window/showDocument");
    assert_eq!(
        show["params"],
        json!({"uri": report, "takeFocus": true, "selection": entry["range"]})
    );
    editor.send(json!({"jsonrpc": "2.0", "id": show["id"], "result": {"success": true}}));
    let done = editor.next_matching(|m| m["id"] == 9001);
    assert_eq!(done["result"], Value::Null, "{done}");

    // Hover and definition on an anchored line; nothing outside the spans
    // but the whole-file entry.
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": target}, "position": at(2)}),
    );
    let markdown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        markdown.starts_with(
            "**delete-range** · confirm — `hygiene.report.json` entries[0]\n\nlines 3–4 · 812 tok"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("signals: superseded by docs/api.md; no inbound links"),
        "{markdown}"
    );
    assert!(markdown.contains("tier confirm — "), "{markdown}");
    // The report is open: the derivation trace, as its own hover shows it.
    assert!(
        markdown.contains(
            "derive_safety_tier(op_type=\"deterministic\", is_destructive=true, is_reversible=false"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("**insert-frontmatter** · auto"),
        "{markdown}"
    );
    let definition = editor.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": target}, "position": at(3)}),
    );
    assert_eq!(definition["result"].as_array().unwrap().len(), 2);
    assert_eq!(definition["result"][0], entry);
    let definition = editor.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": target}, "position": at(0)}),
    );
    assert_eq!(
        definition["result"].as_array().unwrap().len(),
        1,
        "only the whole-file entry"
    );

    // An unsaved edit makes both entries stale; undone, they are not.
    editor.change(
        &target,
        2,
        json!([{"text": TEXT.replace("keep too", "kept")}]),
    );
    let (_, hints) = editor.diagnostics(&target);
    assert!(
        hints[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("(stale: lines 3–4 unchanged; the change is elsewhere in the file)"),
        "{hints:?}"
    );
    // The report says so too, from the editor's text (the file is unchanged).
    let stale_in_report = editor.diagnostics_until(&report, |d| stale_codes(d) > 0);
    assert_eq!(stale_codes(&stale_in_report), 2, "both entries");
    let stale = lenses(&mut editor, &target, |l| {
        titles(l).iter().all(|t| t.contains("· stale"))
    });
    assert_eq!(
        titles(&stale)[0],
        "2: delete-range · confirm · 812 tok · stale — hygiene.report.json entries[0]"
    );
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": target}, "position": at(2)}),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("**stale**: lines 3–4 unchanged; the change is elsewhere in the file")
    );
    // Two lines added above: the anchored lines moved, their content intact.
    editor.change(&target, 3, json!([{"text": format!("new\nlines\n{TEXT}")}]));
    let (_, hints) = editor.diagnostics(&target);
    assert!(
        hints[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("(stale: content identical, now at lines 5–6)"),
        "{hints:?}"
    );
    editor.change(&target, 30, json!([{"text": TEXT}]));
    let (_, hints) = editor.diagnostics(&target);
    assert!(!hints[0]["message"].as_str().unwrap().contains("stale"));
    editor.diagnostics_until(&report, |d| stale_codes(d) == 0);
    let fresh = lenses(&mut editor, &target, |l| {
        titles(l).iter().all(|t| !t.contains("stale"))
    });
    assert_eq!(fresh.len(), 2);

    // The report edited: the lenses follow its text (its entry removed).
    let mut edited: Value = serde_json::from_str(&text).unwrap();
    edited["entries"].as_array_mut().unwrap().remove(1);
    let edited = serde_json::to_string_pretty(&edited).unwrap();
    editor.change(&report, 2, json!([{"text": edited}]));
    let one = lenses(&mut editor, &target, |l| l.len() == 1);
    assert!(titles(&one)[0].starts_with("2: delete-range"));

    // Hints switched off: withdrawn.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"targetHints": false}}}),
    );
    editor.change(&target, 40, json!([{"text": TEXT}]));
    assert_eq!(editor.diagnostics(&target), (Some(40), vec![]));

    // A file no entry names gets nothing, and is no report: no diagnostics.
    let other = file_uri(&project.path().join("docs/other.md"));
    editor.open_as(&other, "markdown", "# Other\n", 1);
    let reply = editor.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": other}}),
    );
    assert_eq!(reply["result"], json!([]));
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": other}, "position": at(0)}),
    );
    assert_eq!(hover["result"], Value::Null);
    let symbols = editor.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": target}}),
    );
    assert!(
        symbols["result"].as_array().is_none_or(Vec::is_empty),
        "a target document is not analysed: {symbols}"
    );
    editor.shutdown();
}

#[test]
fn a_report_found_on_disk_shows_its_entries_on_the_target_too() {
    let (project, _text) = project();
    let target = file_uri(&project.path().join(TARGET));
    let mut editor = start(&project);
    // Only the target is open: the report is the one the server found.
    editor.open_as(&target, "markdown", TEXT, 1);
    let found = lenses(&mut editor, &target, |l| l.len() == 2);
    assert_eq!(
        titles(&found)[0],
        "2: delete-range · confirm · 812 tok — hygiene.report.json entries[0]"
    );
    let report = file_uri(&project.report_path());
    assert_eq!(found[0]["command"]["arguments"][0]["uri"], report);
    editor.change(&target, 2, json!([{"text": "changed\n"}]));
    let stale = lenses(&mut editor, &target, |l| {
        titles(l).iter().all(|t| t.contains("stale"))
    });
    assert_eq!(stale.len(), 2);
    editor.shutdown();
}

/// How many `path-missing` diagnostics name `path`.
fn missing(diagnostics: &[Value], path: &str) -> usize {
    let names = |d: &&Value| d["message"].as_str().unwrap().contains(path);
    let of_path = diagnostics.iter().filter(names);
    of_path.filter(|d| d["code"] == "path-missing").count()
}

/// A keystroke in a target document checks again only the entries naming
/// it: a file another entry names, deleted on disk without a word to the
/// server, is not noticed then; the whole check its watched change asks
/// for notices it, and keeps the target's unsaved text.
#[test]
fn a_keystroke_in_a_target_checks_only_the_entries_naming_it() {
    let project = Project::new();
    project.write(TARGET, TEXT);
    project.write("docs/other.md", "# Other\n");
    let entry = |path: &str, text: &str| {
        edit_entry(
            path,
            json!({"kind": "insert-frontmatter", "key": "hygiene", "value": "frozen", "expected_sha256": sha256(text)}),
        )
    };
    let text = project.write_report(&report(
        "2099-01-01T00:00:00Z",
        vec![json!(TARGET), json!("docs/other.md"), json!("docs/gone.md")],
        vec![
            entry(TARGET, TEXT),
            entry("docs/other.md", "# Other\n"),
            entry("docs/gone.md", ""),
        ],
        vec![],
    ));
    project.commit_all();
    let report = file_uri(&project.report_path());
    let target = file_uri(&project.path().join(TARGET));
    let mut editor = start(&project);
    editor.open(&report, &text, 1);
    // The first check is done: it found the file that was never there.
    editor.diagnostics_until(&report, |d| missing(d, "docs/gone.md") > 0);
    editor.open_as(&target, "markdown", TEXT, 1);
    std::fs::remove_file(project.path().join("docs/other.md")).unwrap();
    editor.change(&target, 2, json!([{"text": format!("{TEXT}more\n")}]));
    let typed = editor.diagnostics_until(&report, |d| stale_codes(d) == 1);
    assert_eq!(
        missing(&typed, "docs/other.md"),
        0,
        "not checked: {typed:#?}"
    );
    // The deletion told: the whole check finds it, with the target still stale.
    let other = file_uri(&project.path().join("docs/other.md"));
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": other, "type": 3}]}),
    );
    let whole = editor.diagnostics_until(&report, |d| missing(d, "docs/other.md") > 0);
    assert_eq!(stale_codes(&whole), 1, "the target's text kept: {whole:#?}");
    // Undone in the editor: no longer stale.
    editor.change(&target, 3, json!([{"text": TEXT}]));
    let undone = editor.diagnostics_until(&report, |d| stale_codes(d) == 0);
    assert!(missing(&undone, "docs/other.md") > 0);
    editor.shutdown();
}
