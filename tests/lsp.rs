//! The language server end to end: the real binary over stdio, framed
//! JSON-RPC, a real initialize handshake, as an editor drives it.

mod common;

use common::editor::{Editor, capable_client_with};
use serde_json::{Value, json};

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(common::golden_dir().join(name)).unwrap()
}

const URI: &str = "file:///tmp/report-lsp-e2e/%E8%B7%AF%E5%BE%84/invalid.report.json";

#[test]
fn diagnostics_on_open_carry_code_source_link_and_related() {
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(URI, &golden("invalid.report.json"), 1);
    let (version, diagnostics) = editor.diagnostics(URI);
    assert_eq!(version, Some(1));
    let expected = [
        "missing-field",
        "characterization-mismatch",
        "tier-mismatch",
        "tier-mismatch",
        "exact-edit-forbidden",
        "entry-path-not-in-shortlist",
    ];
    assert_eq!(codes(&diagnostics), expected);
    let tier = &diagnostics[3];
    assert_eq!(tier["source"], "report-lsp");
    assert_eq!(tier["severity"], 1);
    // No link to a file of the build machine: `report-lsp explain` has the text.
    assert!(
        diagnostics
            .iter()
            .all(|d| d.get("codeDescription").is_none()),
        "{diagnostics:?}"
    );
    assert_eq!(
        tier["range"],
        json!({"start": {"line": 212, "character": 21}, "end": {"line": 212, "character": 27}})
    );
    let shortlist = &diagnostics[5]["relatedInformation"][0];
    assert_eq!(shortlist["location"]["uri"], URI);
    editor.shutdown();
}

#[test]
fn incremental_edits_break_and_fix_a_report_with_versions() {
    let mut editor = Editor::start(&["utf-16"]);
    let text = golden("valid.report.json");
    editor.open(URI, &text, 1);
    assert_eq!(editor.diagnostics(URI), (Some(1), vec![]));
    // Line 1 is `  "schema_version": "1.0",`: delete its comma (column 25).
    editor.change(URI, 2, json!([{"range": {"start": {"line": 1, "character": 25}, "end": {"line": 1, "character": 26}}, "text": ""}]));
    let (version, diagnostics) = editor.diagnostics(URI);
    assert_eq!(version, Some(2));
    assert_eq!(codes(&diagnostics), ["syntax-error"]);
    editor.change(URI, 3, json!([{"range": {"start": {"line": 1, "character": 25}, "end": {"line": 1, "character": 25}}, "text": ","}]));
    assert_eq!(editor.diagnostics(URI), (Some(3), vec![]));
    editor.shutdown();
}

#[test]
fn multi_byte_edits_in_both_encodings() {
    let text = golden("valid.report.json");
    // The promotion candidate's emoji path (the last of three occurrences):
    // `      "path": "handoff/会议记录-😀.md",`.
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("\"path\": \"handoff/"))
        .last()
        .unwrap()
        .0;
    let content = text.lines().nth(line).unwrap();
    let before_quote = &content[..content.rfind('"').unwrap()];
    for (encoding, column) in [
        ("utf-16", before_quote.encode_utf16().count()),
        ("utf-8", before_quote.len()),
    ] {
        let mut editor = Editor::start(&[encoding]);
        editor.open(URI, &text, 1);
        editor.diagnostics(URI);
        // Append "x" to the candidate's path: it names no entry any more.
        let at = json!({"line": line, "character": column});
        editor.change(
            URI,
            2,
            json!([{"range": {"start": at, "end": at}, "text": "x"}]),
        );
        let (_, diagnostics) = editor.diagnostics(URI);
        let codes = codes(&diagnostics);
        assert_eq!(codes, ["promotion-candidate-unknown-entry"], "{encoding}");
        let path_range = &diagnostics[0]["range"];
        assert_eq!(
            path_range["end"],
            json!({"line": line, "character": column + 2}),
            "{encoding}"
        );
        editor.shutdown();
    }
}

/// The LSP position of byte `offset` of `text`, in `encoding`'s units,
/// counted here from the text alone: a line ends at `\n`, `\r\n` or `\r`.
fn position_of(text: &str, offset: usize, encoding: &str) -> Value {
    let before = &text[..offset];
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + before.matches('\r').count()
        - before.matches("\r\n").count();
    let character: usize = before[line_start..]
        .chars()
        .map(|c| match encoding {
            "utf-16" => c.len_utf16(),
            _ => c.len_utf8(),
        })
        .sum();
    json!({"line": line, "character": character})
}

#[test]
fn an_openings_first_publication_is_placed_through_its_text() {
    // The first diagnostics of an opening are converted through its text,
    // before its rope is made (later ones reuse their positions where an
    // edit left them). Each is where the core puts it, counted here: with
    // the golden report's line ends, with CRLF, and on one line, where each
    // problem's column counts the CJK and emoji of the entries before it.
    // Past a megabyte the line index is built in parts on the opening's
    // pool: blank lines or spaces first, then the report.
    let golden = golden("invalid.report.json");
    let one_line = golden.replace('\n', "");
    let large = report_core::text::INDEX_IN_PARTS_FROM + 4096;
    let texts = [
        golden.clone(),
        golden.replace('\n', "\r\n"),
        // (A JSON text's line ends are all between its tokens.)
        one_line.clone(),
        format!("{}{golden}", " \n".repeat(large / 2)),
        format!("{}{one_line}", " ".repeat(large)),
    ];
    for text in &texts {
        let core = report_core::analyze(text);
        assert!(core.diagnostics.len() > 3, "{:?}", core.diagnostics);
        let mut columns = Vec::new();
        for encoding in ["utf-16", "utf-8"] {
            let mut expected: Vec<_> = core
                .diagnostics
                .iter()
                .map(|d| {
                    let (start, end) = (d.range.start, d.range.end);
                    let range = json!({"start": position_of(text, start, encoding), "end": position_of(text, end, encoding)});
                    (d.code.as_str().to_string(), range)
                })
                .collect();
            expected.sort_by_key(|e| e.1.to_string());
            let placed = |diagnostics: &[Value]| {
                let mut placed: Vec<_> = diagnostics
                    .iter()
                    .map(|d| (d["code"].as_str().unwrap().to_string(), d["range"].clone()))
                    .collect();
                placed.sort_by_key(|p| p.1.to_string());
                placed
            };
            // Pushed: the publication.
            let mut editor = Editor::start(&[encoding]);
            editor.open(URI, text, 1);
            let (version, first) = editor.diagnostics(URI);
            assert_eq!(version, Some(1));
            assert_eq!(placed(&first), expected, "{encoding}, pushed");
            columns.push(placed(&first));
            editor.shutdown();
            // Pulled, the pull sent with the opening: most often answered
            // in the batch that analysed it, before its rope is made.
            let capabilities = capable_client_with(json!({
                "general": {"positionEncodings": [encoding]},
                "textDocument": {"diagnostic": {"dynamicRegistration": false}},
                "workspace": {"diagnostics": {"refreshSupport": true}},
            }));
            let mut editor = Editor::start_with_capabilities(
                env!("CARGO_BIN_EXE_report-lsp"),
                capabilities,
                &[],
                Value::Null,
            );
            let open = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text}}});
            let pull = json!({"jsonrpc": "2.0", "id": 5, "method": "textDocument/diagnostic",
                "params": {"textDocument": {"uri": URI}}});
            editor.send_frames(&[&Editor::frame(&open), &Editor::frame(&pull)]);
            let reply = editor.next_matching(|m| m["id"] == 5);
            let pulled = reply["result"]["items"].as_array().unwrap();
            assert_eq!(placed(pulled), expected, "{encoding}, pulled");
            editor.shutdown();
        }
        if !text.contains('\n') {
            assert_ne!(columns[0], columns[1], "the encodings count apart");
        }
    }
}

#[test]
fn each_code_action_applied_clears_its_diagnostic() {
    let mut editor = Editor::start(&["utf-16"]);
    let mut text = golden("invalid.report.json");
    let mut version = 1;
    editor.open(URI, &text, version);
    let (_, mut diagnostics) = editor.diagnostics(URI);
    let mut applied = Vec::new();
    while let Some(target) = diagnostics
        .iter()
        .find(|d| !applied.contains(&(d["code"].clone(), d["message"].clone())))
        .cloned()
    {
        applied.push((target["code"].clone(), target["message"].clone()));
        let reply = editor.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": target["range"], "context": {"diagnostics": [target], "only": ["quickfix"]}}),
        );
        let actions = reply["result"].as_array().unwrap().clone();
        let Some(action) = actions
            .iter()
            .find(|a| a["diagnostics"][0]["message"] == target["message"])
        else {
            continue;
        };
        assert_eq!(action["kind"], "quickfix");
        let edits = action["edit"]["changes"][URI].as_array().unwrap();
        text = common::apply_lsp_edits(&text, edits);
        version += 1;
        editor.change(URI, version, json!([{"text": text}]));
        let (v, next) = editor.diagnostics(URI);
        assert_eq!(v, Some(version));
        assert!(
            !next.iter().any(|d| d["message"] == target["message"]),
            "{} left its diagnostic",
            action["title"]
        );
        assert!(
            next.len() < diagnostics.len(),
            "{} added a diagnostic",
            action["title"]
        );
        diagnostics = next;
    }
    assert!(applied.len() >= 5);
    assert!(diagnostics.is_empty(), "left: {diagnostics:?}");
    editor.shutdown();
}

#[test]
fn fix_all_source_action_applies_every_unambiguous_fix() {
    let mut editor = Editor::start(&["utf-16"]);
    let text = golden("invalid.report.json");
    editor.open(URI, &text, 1);
    editor.diagnostics(URI);
    let reply = editor.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
    );
    let actions = reply["result"].as_array().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0]["kind"], "source.fixAll.report-lsp");
    let fixed = common::apply_lsp_edits(
        &text,
        actions[0]["edit"]["changes"][URI].as_array().unwrap(),
    );
    editor.change(URI, 2, json!([{"text": fixed}]));
    let (_, diagnostics) = editor.diagnostics(URI);
    assert_eq!(
        codes(&diagnostics),
        ["exact-edit-forbidden", "entry-path-not-in-shortlist"]
    );
    editor.shutdown();
}

#[test]
fn hover_shows_the_derivation_trace() {
    let mut editor = Editor::start(&["utf-16"]);
    let text = golden("invalid.report.json");
    editor.open(URI, &text, 1);
    editor.diagnostics(URI);
    let reply = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": {"line": 212, "character": 24}}),
    );
    let markdown = reply["result"]["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("derive_safety_tier(op_type=\"generative\", is_destructive=true, is_reversible=false, lifecycle=None)"), "{markdown}");
    assert!(
        markdown.contains("op_type is generative? **yes**"),
        "{markdown}"
    );
    assert!(
        markdown.contains("Recorded: `auto`, which **disagrees**"),
        "{markdown}"
    );
    editor.shutdown();
}

#[test]
fn non_report_json_gets_no_diagnostics_and_reports_are_found_by_content() {
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(
        "file:///tmp/p/package.json",
        r#"{"name": "x", "version": "1.0.0"}"#,
        1,
    );
    editor.open(
        "file:///tmp/p/data.json",
        r#"{"schema_version": "1", "entries": []}"#,
        1,
    );
    let (_, diagnostics) = editor.diagnostics("file:///tmp/p/data.json");
    assert!(codes(&diagnostics).contains(&"missing-field".to_string()));
    // The package.json job ran first; had it published, it would be in the backlog.
    assert!(
        !editor
            .backlog
            .iter()
            .any(|m| m["params"]["uri"] == "file:///tmp/p/package.json")
    );
    // An empty file with a report name is always validated.
    editor.open("file:///tmp/p/empty.report.json", "", 1);
    assert_eq!(
        codes(&editor.diagnostics("file:///tmp/p/empty.report.json").1),
        ["empty-document"]
    );
    editor.shutdown();
}

/// A report edited into other JSON has its published diagnostics cleared.
#[test]
fn a_report_edited_into_non_report_json_is_cleared() {
    let mut editor = Editor::start(&["utf-16"]);
    let uri = "file:///tmp/p/data.json";
    editor.open(uri, r#"{"schema_version": "1", "entries": []}"#, 1);
    assert!(!editor.diagnostics(uri).1.is_empty());
    editor.change(uri, 2, json!([{"text": r#"{"name": "x"}"#}]));
    let (version, diagnostics) = editor.diagnostics(uri);
    assert_eq!(version, Some(2));
    assert_eq!(diagnostics, Vec::<Value>::new());
    editor.shutdown();
}

#[test]
fn garbage_and_out_of_range_edits_do_not_kill_the_server() {
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(URI, "{}", 1);
    editor.diagnostics(URI);
    editor.change(URI, 2, json!([{"range": {"start": {"line": 99, "character": 0}, "end": {"line": 99, "character": 1}}, "text": "x"}]));
    // The stale diagnostics are replaced by one warning until the full text comes.
    let (version, diagnostics) = editor.diagnostics(URI);
    assert_eq!(version, Some(2));
    assert_eq!(codes(&diagnostics), ["document-out-of-sync"]);
    // Further incremental edits are ignored while out of sync.
    editor.change(URI, 3, json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]));
    editor.change(
        "file:///never/opened.report.json",
        1,
        json!([{"text": "{}"}]),
    );
    let hover = editor.request("textDocument/hover", json!({"textDocument": {"uri": "file:///never/opened.json"}, "position": {"line": 0, "character": 0}}));
    assert!(
        hover["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not open"),
        "{hover}"
    );
    let unknown = editor.request("report/unknownMethod", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    // A full-text change brings the document back in sync.
    editor.change(URI, 4, json!([{"text": "[1,"}]));
    let (version, diagnostics) = editor.diagnostics(URI);
    assert_eq!(version, Some(4));
    assert_eq!(codes(&diagnostics), ["syntax-error"]);
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(editor.diagnostics(URI), (None, vec![]));
    editor.shutdown();
}

#[test]
fn a_panicking_handler_gets_an_error_reply_and_the_server_keeps_serving() {
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let mut editor = Editor::start_with(
        binary,
        &["utf-16"],
        &[("REPORT_LSP_PANIC_IN", "hover")],
        Value::Null,
    );
    editor.open(URI, &golden("invalid.report.json"), 1);
    editor.diagnostics(URI);
    let hover = json!({"textDocument": {"uri": URI}, "position": {"line": 212, "character": 24}});
    let reply = editor.request("textDocument/hover", hover.clone());
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("injected fault in hover")
    );
    // The server is alive: other requests and notifications still work.
    editor.change(URI, 2, json!([{"text": "{}"}]));
    let (version, _) = editor.diagnostics(URI);
    assert_eq!(version, Some(2));
    let again = editor.request("textDocument/hover", hover);
    assert_eq!(again["error"]["code"], -32603);
    editor.shutdown();
}

#[test]
fn file_globs_come_from_initialization_options_and_configuration() {
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let mut editor = Editor::start_with(
        binary,
        &["utf-16"],
        &[],
        json!({"files": ["**/*.audit.json"]}),
    );
    editor.open("file:///tmp/g/a.audit.json", "[]", 1);
    assert_eq!(
        codes(&editor.diagnostics("file:///tmp/g/a.audit.json").1),
        ["root-not-object"]
    );
    // The default globs no longer apply: an empty-object report name is not validated.
    editor.open("file:///tmp/g/b.report.json", "[]", 1);
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"files": ["**/*.report.json"]}}}),
    );
    assert_eq!(
        codes(&editor.diagnostics("file:///tmp/g/b.report.json").1),
        ["root-not-object"]
    );
    // a.audit.json no longer matches and does not look like a report: its diagnostics are cleared.
    assert_eq!(
        editor.diagnostics("file:///tmp/g/a.audit.json").1,
        Vec::<Value>::new()
    );
    editor.shutdown();
}

/// A generated report with many problems, to see the `maxDiagnostics` cap.
fn many_problems() -> String {
    report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 300,
        seed: 3,
        violation_every: 5,
    })
}

/// The diagnostics published for `uri` until there are `shown` of them (the
/// cap plus its summary): the settings may land after the first analysis.
fn wait_for_cap(editor: &mut Editor, uri: &str, shown: usize) {
    for _ in 0..20 {
        let (_, diagnostics) = editor.diagnostics(uri);
        if diagnostics.len() == shown {
            assert_eq!(diagnostics[shown - 1]["code"], "too-many-diagnostics");
            return;
        }
    }
    panic!("never {shown} diagnostics for {uri}");
}

#[test]
fn a_partial_settings_change_keeps_the_other_settings() {
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let mut editor = Editor::start_with(
        binary,
        &["utf-16"],
        &[],
        json!({"files": ["**/*.audit.json"], "maxDiagnostics": 5}),
    );
    // Only maxDiagnostics: the custom file globs must survive it.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"maxDiagnostics": 2}}}),
    );
    editor.open("file:///tmp/g/a.audit.json", "[]", 1);
    assert_eq!(
        codes(&editor.diagnostics("file:///tmp/g/a.audit.json").1),
        ["root-not-object"]
    );
    editor.open("file:///tmp/g/many.audit.json", &many_problems(), 1);
    wait_for_cap(&mut editor, "file:///tmp/g/many.audit.json", 3);
    // Only files: the cap of 2 survives that.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"files": ["**/*.json"]}}}),
    );
    editor.open("file:///tmp/g/b.json", &many_problems(), 1);
    wait_for_cap(&mut editor, "file:///tmp/g/b.json", 3);
    editor.shutdown();
}

#[test]
fn wrong_typed_settings_are_refused_with_a_log_line_and_the_previous_value_kept() {
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let mut editor = Editor::start_with(binary, &["utf-16"], &[], json!({"maxDiagnostics": 5}));
    let refused = |editor: &mut Editor| loop {
        let line = editor.log_message();
        if line.contains("refused") {
            break line;
        }
    };
    for (name, bad) in [
        ("maxDiagnostics", json!("10")),
        ("maxDiagnostics", json!(10.5)),
        ("maxDiagnostics", json!(-1)),
        ("maxDocumentBytes", json!(0)),
        ("files", json!("**/*.json")),
        ("files", json!(["[unclosed"])),
        ("workspaceChecks", json!("maybe")),
        ("workspaceChecks", json!(false)),
        ("allowRootOutsideWorkspace", json!("yes")),
        ("restrictedWorkspace", json!(1)),
    ] {
        editor.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"reportLsp": {name: bad}}}),
        );
        let line = refused(&mut editor);
        assert!(
            line.contains(&format!("reportLsp.{name} = {bad}")),
            "{line}"
        );
    }
    // The cap of 5 and the default globs still hold.
    editor.open(URI, &many_problems(), 1);
    wait_for_cap(&mut editor, URI, 6);
    editor.shutdown();

    // Wrong values in initializationOptions are refused the same way.
    let mut editor = Editor::start_with(binary, &["utf-16"], &[], json!({"maxDiagnostics": "10"}));
    assert!(refused(&mut editor).contains("reportLsp.maxDiagnostics = \"10\""));
    editor.shutdown();
}

#[test]
fn settings_are_pulled_after_initialized_and_on_each_change() {
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let capabilities = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "workspace": {"configuration": true},
    });
    let mut editor = Editor::start_with_capabilities(
        binary,
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    // Nothing read yet: the pull sent after `initialized` gets this answer.
    editor.configuration = json!({"maxDiagnostics": 3});
    editor.open(URI, &many_problems(), 1);
    wait_for_cap(&mut editor, URI, 4);
    assert_eq!(editor.pulls, 1);
    // A change notification without settings, as VS Code sends: the server asks again.
    editor.configuration = json!({"maxDiagnostics": 2});
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    wait_for_cap(&mut editor, URI, 3);
    assert_eq!(editor.pulls, 2);
    editor.shutdown();
}

#[test]
fn a_flood_of_unawaited_edits_is_applied_in_order() {
    let mut editor = Editor::start(&["utf-16"]);
    let mut text = golden("valid.report.json");
    editor.open(URI, &text, 1);
    editor.diagnostics(URI);
    // Type 400 characters into the tool_version string, one change per keystroke, without waiting.
    let line = 2;
    let mut column = text.lines().nth(line).unwrap().rfind('"').unwrap();
    let typed = "naïve 路径 😀 typing ".repeat(20);
    let mut version = 1;
    for ch in typed.chars() {
        version += 1;
        let at = json!({"line": line, "character": column});
        editor.change(
            URI,
            version,
            json!([{"range": {"start": at, "end": at}, "text": ch.to_string()}]),
        );
        column += ch.len_utf16();
    }
    let offset = text.lines().take(line).map(|l| l.len() + 1).sum::<usize>()
        + text.lines().nth(line).unwrap().rfind('"').unwrap();
    text.insert_str(offset, &typed);
    // The last publication is for the last version, and the text is intact: still valid.
    let (mut last, mut diagnostics) = editor.diagnostics(URI);
    while last != Some(version) {
        let previous = last;
        (last, diagnostics) = editor.diagnostics(URI);
        assert!(
            last > previous,
            "diagnostics went back from {previous:?} to {last:?}"
        );
    }
    assert_eq!(diagnostics, Vec::<Value>::new());
    // Hover positions after the typed text still land on the right node.
    let tier_line = text
        .lines()
        .position(|l| l.contains("\"safety_tier\""))
        .unwrap();
    let reply = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": {"line": tier_line, "character": 8}}),
    );
    assert!(
        reply["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("derive_safety_tier("),
        "{reply}"
    );
    editor.shutdown();
}

#[test]
fn diagnostics_are_capped_with_one_summary() {
    let binary = env!("CARGO_BIN_EXE_report-lsp");
    let mut editor = Editor::start_with(binary, &["utf-16"], &[], json!({"maxDiagnostics": 5}));
    let text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 300,
        seed: 3,
        violation_every: 5,
    });
    let all = report_core::analyze(&text).diagnostics.len();
    assert!(all > 5);
    editor.open(URI, &text, 1);
    let (_, diagnostics) = editor.diagnostics(URI);
    assert_eq!(diagnostics.len(), 6);
    assert!(
        codes(&diagnostics[..5])
            .iter()
            .all(|c| c != "too-many-diagnostics")
    );
    let summary = &diagnostics[5];
    assert_eq!(summary["code"], "too-many-diagnostics");
    let message = summary["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "{} more problems are not shown ({all} in all",
            all - 5
        )),
        "{message}"
    );
    editor.shutdown();
}

/// What the core finds in `text`, as the server should publish it: range
/// (UTF-16), code and message of each diagnostic, in order.
fn expected_diagnostics(text: &str) -> Vec<(Value, String, String)> {
    let analysis = report_core::analyze(text);
    let index = report_core::text::LineIndex::new(text);
    let position = |offset: usize| {
        let p = index.line_col(text, offset, report_core::text::Encoding::Utf16);
        json!({"line": p.line, "character": p.col})
    };
    analysis
        .diagnostics
        .iter()
        .map(|d| {
            (
                json!({"start": position(d.range.start), "end": position(d.range.end)}),
                d.code.as_str().to_string(),
                d.message.clone(),
            )
        })
        .collect()
}

fn published(diagnostics: &[Value]) -> Vec<(Value, String, String)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d["range"].clone(),
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The UTF-16 position of a byte offset.
/// A document edited through didChange, with the text the editor has.
struct Editing {
    editor: Editor,
    text: String,
    version: i64,
}

impl Editing {
    /// Replaces `range` (bytes) and checks that the server publishes, for
    /// that version, what a full check of the new text finds.
    fn edit(&mut self, range: std::ops::Range<usize>, new_text: &str) {
        let text = &self.text;
        let lsp_range = json!({"start": common::lsp_position(text, range.start), "end": common::lsp_position(text, range.end)});
        self.version += 1;
        self.editor.change(
            URI,
            self.version,
            json!([{"range": lsp_range, "text": new_text}]),
        );
        self.text.replace_range(range, new_text);
        let (version, diagnostics) = self.editor.diagnostics(URI);
        assert_eq!(version, Some(self.version));
        assert_eq!(
            published(&diagnostics),
            expected_diagnostics(&self.text),
            "after replacing with {new_text:?}"
        );
    }

    /// The byte range of the value at `pointer` in the current text.
    fn value(&self, pointer: &str) -> std::ops::Range<usize> {
        let parse = report_core::syntax::parse(&self.text);
        let node = parse.root().and_then(|root| root.lookup(pointer));
        node.unwrap_or_else(|| panic!("no {pointer}"))
            .range()
            .as_range()
    }
}

#[test]
fn edits_inside_entries_publish_what_a_full_check_finds() {
    let mut editor = Editor::start(&["utf-16"]);
    let text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 200,
        seed: 11,
        violation_every: 9,
    });
    editor.open(URI, &text, 1);
    let (_, diagnostics) = editor.diagnostics(URI);
    assert_eq!(published(&diagnostics), expected_diagnostics(&text));
    let mut session = Editing {
        editor,
        text,
        version: 1,
    };
    // Inside entries (the incremental path, also for an entry replaced
    // whole), then in the envelope (a full analysis), then inside again.
    let steps = [
        ("/entries/120/safety_tier", "\"auto\""),
        ("/entries/120/path", "\"docs/路径/😀 new.md\""),
        ("/entries/3/is_reversible", "false"),
        ("/entries/3/op", "\"delete\""),
        ("/entries/199/signals", "[\"é\", 1]"),
        ("/tool_version", "\"doc-hygiene 0.5.0\""),
        ("/entries/50", "{}"),
        ("/entries/120/safety_tier", "\"confirm\""),
    ];
    for (pointer, new_text) in steps {
        session.edit(session.value(pointer), new_text);
    }
    // Lines added and removed inside an entry, and a wider character in a
    // string: the positions after them move (and are not stale).
    let entry = session.value("/entries/120");
    session.edit(entry.start + 1..entry.start + 1, "\r\n\n      ");
    let path = session.value("/entries/121/path");
    session.edit(path.start + 1..path.start + 1, "😀");
    session.edit(entry.start + 1..entry.start + 10, "");
    // Broken JSON and its repair.
    let entry = session.value("/entries/50");
    let original = session.text[entry.clone()].to_string();
    session.edit(entry.clone(), "{\"path\": ");
    assert!(!report_core::syntax::parse(&session.text).errors.is_empty());
    session.edit(entry.start..entry.start + "{\"path\": ".len(), &original);
    session.edit(session.value("/entries/120/is_destructive"), "true");
    // Open, the broken text and its repair were analysed in full; the
    // envelope edit and the eleven edits within entries incrementally.
    let Editing {
        mut editor, text, ..
    } = session;
    let status = editor.request("report-lsp/status", json!({"uri": URI}));
    assert_eq!(status["result"]["fullAnalyses"], 3, "{status}");
    assert_eq!(status["result"]["incrementalUpdates"], 12, "{status}");
    assert_eq!(status["result"]["entries"], 200, "{status}");
    let tier = report_core::syntax::parse(&text)
        .root()
        .and_then(|root| root.lookup("/entries/120/safety_tier"))
        .unwrap()
        .range();
    let reply = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": common::lsp_position(&text, tier.start + 1)}),
    );
    let markdown = reply["result"]["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("`entries[120]`"), "{markdown}");
    assert!(markdown.contains("is_destructive=true"), "{markdown}");
    assert!(markdown.contains("Recorded: `confirm`"), "{markdown}");
    // Hovers inside and outside entries are the core's.
    let analysis = report_core::analyze(&text);
    let keys = [
        "\"schema_version\"",
        "\"shortlist\"",
        "\"entries\"",
        "\"op_type\"",
        "\"generative\"",
        "\"served_when\"",
        "\"promotion_candidates\"",
    ];
    for key in keys {
        let offset = text.find(key).unwrap() + 1;
        let reply = editor.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": common::lsp_position(&text, offset)}),
        );
        let expected = report_core::hover::hover(&analysis, offset).map(|h| h.markdown);
        assert_eq!(
            reply["result"]["contents"]["value"].as_str(),
            expected.as_deref(),
            "hover on {key}"
        );
    }
    editor.shutdown();
}

#[test]
fn fix_all_is_resolved_lazily_when_the_client_can() {
    let capabilities = json!({"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}, "dataSupport": true}}});
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    let text = golden("invalid.report.json");
    editor.open(URI, &text, 1);
    editor.diagnostics(URI);
    let params = json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": [], "only": ["source.fixAll"]}});
    let reply = editor.request("textDocument/codeAction", params.clone());
    let action = reply["result"][0].clone();
    assert_eq!(action["kind"], "source.fixAll.report-lsp");
    assert!(action.get("edit").is_none(), "{action}");
    let resolved = editor.request("codeAction/resolve", action.clone());
    let fixed = common::apply_lsp_edits(
        &text,
        resolved["result"]["edit"]["changes"][URI]
            .as_array()
            .unwrap(),
    );
    editor.change(URI, 2, json!([{"text": fixed}]));
    let (_, diagnostics) = editor.diagnostics(URI);
    assert_eq!(
        codes(&diagnostics),
        ["exact-edit-forbidden", "entry-path-not-in-shortlist"]
    );
    // An action offered for an older text is not resolved against the new one.
    let stale = editor.request("codeAction/resolve", action);
    assert_eq!(stale["error"]["code"], -32801, "{stale}");
    editor.shutdown();
}

/// A report recognised by its content alone, broken inside one entry: the
/// syntax error is published with every violation outside that entry, and
/// the break and its repair are each rechecked per entry.
#[test]
fn a_broken_entry_keeps_the_other_problems_and_stays_a_report() {
    const NAMED_BY_CONTENT: &str = "file:///tmp/report-lsp-e2e/report-1000-valid.json";
    let text = golden("invalid.report.json");
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(NAMED_BY_CONTENT, &text, 1);
    let (_, before) = editor.diagnostics(NAMED_BY_CONTENT);
    let before_codes = codes(&before);
    assert!(before_codes.len() >= 5, "{before_codes:?}");
    // Delete the comma after the first entry's "op" value.
    let (line, column) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find("\"op\": ").map(|_| (i, l.rfind(',').unwrap())))
        .unwrap();
    let at = |c: usize| json!({"line": line, "character": c});
    editor.change(
        NAMED_BY_CONTENT,
        2,
        json!([{"range": {"start": at(column), "end": at(column + 1)}, "text": ""}]),
    );
    let (version, broken) = loop {
        let (version, diagnostics) = editor.diagnostics(NAMED_BY_CONTENT);
        if version == Some(2) {
            break (version, diagnostics);
        }
    };
    assert_eq!(version, Some(2));
    let syntax: Vec<&Value> = broken
        .iter()
        .filter(|d| d["code"] == "syntax-error")
        .collect();
    assert_eq!(syntax.len(), 1, "{broken:?}");
    assert_eq!(syntax[0]["range"]["start"]["line"], line);
    // Every problem not on the broken entry is still there, at its place.
    let entry_lines = |d: &Value| d["range"]["start"]["line"].as_u64().unwrap() as usize;
    let first_entry_end = text
        .lines()
        .enumerate()
        .skip(line)
        .find(|(_, l)| l.trim() == "},")
        .unwrap()
        .0;
    for d in &before {
        let l = entry_lines(d);
        if l > first_entry_end || l < line.saturating_sub(10) {
            assert!(
                broken
                    .iter()
                    .any(|b| b["code"] == d["code"] && b["range"] == d["range"]),
                "lost {d}"
            );
        }
    }
    // The repair brings back what was there before.
    editor.change(
        NAMED_BY_CONTENT,
        3,
        json!([{"range": {"start": at(column), "end": at(column)}, "text": ","}]),
    );
    let repaired = loop {
        let (version, diagnostics) = editor.diagnostics(NAMED_BY_CONTENT);
        if version == Some(3) {
            break diagnostics;
        }
    };
    assert_eq!(repaired, before);
    let status = editor.request(
        report_lsp::lsp::STATUS_METHOD,
        json!({"uri": NAMED_BY_CONTENT}),
    );
    assert_eq!(status["result"]["isReport"], true, "{status}");
    assert_eq!(status["result"]["incrementalUpdates"], 2, "{status}");
    assert_eq!(status["result"]["fullAnalyses"], 1, "{status}");
    editor.shutdown();
}

/// The editor features over stdio, each once, on the realistic valid
/// report: positions in UTF-16 on a line with CJK and emoji paths.
#[test]
fn completion_navigation_outline_hints_and_lenses_over_stdio() {
    const DOC: &str = "file:///tmp/report-lsp-e2e/features.report.json";
    let text = golden("valid.report.json");
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(DOC, &text, 1);
    let _ = editor.diagnostics(DOC);
    let position_of = |needle: &str, after: usize| {
        let offset = text.find(needle).unwrap() + after;
        let line = text[..offset].matches('\n').count();
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let character: usize = text[line_start..offset].chars().map(char::len_utf16).sum();
        json!({"line": line, "character": character})
    };
    let doc = json!({"uri": DOC});

    // Completion of op_type's value offers both op types.
    let op_type = position_of("\"op_type\": \"", 12);
    let reply = editor.request(
        "textDocument/completion",
        json!({"textDocument": doc, "position": op_type}),
    );
    let labels: Vec<&str> = reply["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["deterministic", "generative"], "{reply}");

    // Definition from the first entry's path to its shortlist item.
    let entries_at = text.find("\"entries\"").unwrap();
    let path_in_entry = text[entries_at..].find("\"path\": \"").unwrap() + entries_at + 10;
    let line = text[..path_in_entry].matches('\n').count();
    let line_start = text[..path_in_entry].rfind('\n').unwrap() + 1;
    let character: usize = text[line_start..path_in_entry]
        .chars()
        .map(char::len_utf16)
        .sum();
    let on_path = json!({"line": line, "character": character});
    let reply = editor.request(
        "textDocument/definition",
        json!({"textDocument": doc, "position": on_path}),
    );
    let target = &reply["result"][0];
    assert_eq!(target["uri"], DOC, "{reply}");
    let target_line = target["range"]["start"]["line"].as_u64().unwrap() as usize;
    let shortlist_line = text[..text.find("\"shortlist\"").unwrap()]
        .matches('\n')
        .count();
    assert!(
        target_line > shortlist_line && target_line < line,
        "{reply}"
    );

    // References of that path include the definition and the entry.
    let reply = editor.request(
        "textDocument/references",
        json!({"textDocument": doc, "position": on_path, "context": {"includeDeclaration": true}}),
    );
    assert!(reply["result"].as_array().unwrap().len() >= 2, "{reply}");

    // Rename changes every occurrence in one edit.
    let reply = editor.request(
        "textDocument/prepareRename",
        json!({"textDocument": doc, "position": on_path}),
    );
    assert!(reply["result"]["placeholder"].is_string(), "{reply}");
    let reply = editor.request(
        "textDocument/rename",
        json!({"textDocument": doc, "position": on_path, "newName": "docs/renamed.md"}),
    );
    let edits = reply["result"]["changes"][DOC].as_array().unwrap();
    assert!(edits.len() >= 2, "{reply}");
    let renamed = common::apply_lsp_edits(&text, edits);
    assert!(renamed.contains("\"docs/renamed.md\""));

    // The outline has the envelope and the grouped entries.
    let reply = editor.request("textDocument/documentSymbol", json!({"textDocument": doc}));
    let names: Vec<&str> = reply["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"entries") && names.contains(&"shortlist"),
        "{names:?}"
    );

    // Inlay hints give every entry's token share; the lens the roll-up.
    let reply = editor.request(
        "textDocument/inlayHint",
        json!({"textDocument": doc, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100000, "character": 0}}}),
    );
    assert!(
        reply["result"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["label"].as_str().unwrap().ends_with(" %")),
        "{reply}"
    );
    let reply = editor.request("textDocument/codeLens", json!({"textDocument": doc}));
    assert!(
        reply["result"][0]["command"]["title"]
            .as_str()
            .unwrap()
            .contains("raw tokens"),
        "{reply}"
    );

    // Folding and selection ranges.
    let reply = editor.request("textDocument/foldingRange", json!({"textDocument": doc}));
    assert!(reply["result"].as_array().unwrap().len() > 3, "{reply}");
    let reply = editor.request(
        "textDocument/selectionRange",
        json!({"textDocument": doc, "positions": [op_type]}),
    );
    assert!(
        reply["result"][0]["parent"]["parent"].is_object(),
        "{reply}"
    );
    editor.shutdown();
}

/// A client that pulls diagnostics and can be told to pull again gets them
/// on request, the same list a push carries, and an unchanged document is
/// answered as unchanged; one that cannot be told (Neovim 0.11), or that
/// opts out, is pushed to.
#[test]
fn diagnostics_are_pulled_when_the_client_can_be_told_to_pull_again() {
    let text = golden("invalid.report.json");
    let mut pushing = Editor::start(&["utf-16"]);
    pushing.open(URI, &text, 1);
    let (_, pushed) = pushing.diagnostics(URI);
    pushing.shutdown();

    let pulls = json!({"diagnostic": {"dynamicRegistration": false}});
    let refresh = json!({"diagnostics": {"refreshSupport": true}});
    // Pulls without refreshSupport, or opted out: pushed, and no pull offered.
    for (capabilities, options) in [
        (json!({"textDocument": pulls}), Value::Null),
        (
            json!({"textDocument": pulls, "workspace": refresh}),
            json!({"pullDiagnostics": false}),
        ),
    ] {
        let mut editor = Editor::start_with_capabilities(
            env!("CARGO_BIN_EXE_report-lsp"),
            capable_client_with(capabilities),
            &[],
            options,
        );
        editor.open(URI, &text, 1);
        let (_, diagnostics) = editor.diagnostics(URI);
        assert_eq!(diagnostics, pushed);
        // The status says how they came.
        let status = editor.request(report_lsp::lsp::STATUS_METHOD, json!({"uri": URI}));
        assert_eq!(status["result"]["diagnostics"], "push", "{status}");
        assert_eq!(status["result"]["pulls"], 0, "{status}");
        assert!(status["result"]["pushes"].as_u64() >= Some(1), "{status}");
        editor.shutdown();
    }

    let capabilities = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": pulls,
        "workspace": refresh,
    });
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    editor.open(URI, &text, 1);
    let pull = |editor: &mut Editor, previous: Value| {
        editor.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": URI}, "previousResultId": previous}),
        )
    };
    let first = pull(&mut editor, Value::Null);
    assert_eq!(first["result"]["kind"], "full", "{first}");
    assert_eq!(first["result"]["items"], Value::Array(pushed));
    let id = first["result"]["resultId"].clone();
    let again = pull(&mut editor, id.clone());
    assert_eq!(again["result"]["kind"], "unchanged", "{again}");
    editor.change(URI, 2, json!([{"text": golden("valid.report.json")}]));
    let changed = pull(&mut editor, id.clone());
    assert_eq!(changed["result"]["kind"], "full", "{changed}");
    assert_eq!(changed["result"]["items"], json!([]));
    // Closed and opened again, its generations count anew: the old id is not taken.
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    editor.open(URI, &text, 1);
    let reopened = pull(&mut editor, id);
    assert_eq!(reopened["result"]["kind"], "full", "{reopened}");
    // The status request keeps working, and says the diagnostics were
    // pulled: once since the document was opened again, never pushed.
    let status = editor.request(report_lsp::lsp::STATUS_METHOD, json!({"uri": URI}));
    assert_eq!(status["result"]["isReport"], true, "{status}");
    assert_eq!(status["result"]["diagnostics"], "pull", "{status}");
    assert_eq!(status["result"]["pulls"], 1, "{status}");
    assert_eq!(status["result"]["pushes"], 0, "{status}");
    // Nothing was pushed meanwhile.
    assert!(
        editor
            .backlog
            .iter()
            .all(|m| m["method"] != "textDocument/publishDiagnostics"),
        "{:?}",
        editor.backlog
    );
    editor.shutdown();
}

/// A pull answered while a change sent after it is still queued (the
/// document's analysis thread busy with its previous, big text) answers
/// for the changed text: it used to answer with nothing, and an editor that
/// pulls only after its own changes showed nothing until the next one.
#[test]
fn a_pull_overtaken_by_a_change_answers_for_the_changed_text() {
    let big = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 20_000,
        seed: 7,
        violation_every: 0,
    });
    let capabilities = json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}},
    });
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    let invalid = golden("invalid.report.json");
    editor.open(URI, &golden("valid.report.json"), 1);
    let _ = editor.request(report_lsp::lsp::STATUS_METHOD, json!({"uri": URI}));
    for round in 0..3 {
        // The big text keeps the document's analysis thread busy while the
        // pull and the change behind it are queued.
        editor.change(URI, 2 + 2 * round, json!([{"text": big}]));
        editor.send(
            json!({"jsonrpc": "2.0", "id": 1000 + round, "method": "textDocument/diagnostic",
            "params": {"textDocument": {"uri": URI}}}),
        );
        let text = if round % 2 == 0 {
            &invalid
        } else {
            &golden("valid.report.json")
        };
        editor.change(URI, 3 + 2 * round, json!([{"text": text}]));
        let reply = editor.next_matching(|m| m["id"] == 1000 + round);
        let expected = report_core::analyze(text).diagnostics.len();
        assert_eq!(
            reply["result"]["items"].as_array().map(Vec::len),
            Some(expected),
            "round {round}: {reply}"
        );
    }
    editor.shutdown();
}

/// A pull queued behind a change, and one more change sent while that
/// change is analysed: the pull waits for the last change too. It used to
/// answer with nothing, and Neovim 0.11, which pulls once after its
/// `didOpen` while the settings it sends after `initialized` check the
/// report again, showed nothing until the user typed.
#[test]
fn a_pull_waits_for_a_change_sent_while_the_change_before_it_is_analysed() {
    let report = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 20_000,
        seed: 7,
        violation_every: 0,
    });
    let invalid = golden("invalid.report.json");
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(URI, &report, 1);
    let _ = editor.request(report_lsp::lsp::STATUS_METHOD, json!({"uri": URI}));
    // What the opening asked of the project comes back to the document's
    // thread and would make it take the changes below one by one.
    std::thread::sleep(std::time::Duration::from_millis(500));
    // A byte that breaks the whole text, so each analysis takes a while.
    let start = json!({"line": 0, "character": 0});
    let bracket = json!([{"range": {"start": start, "end": start}, "text": "["}]);
    editor.change(URI, 2, bracket.clone());
    // While the thread analyses that change: a hover, the pull, another change.
    editor.send(
        json!({"jsonrpc": "2.0", "id": 76, "method": "textDocument/hover",
        "params": {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 4}}}),
    );
    editor.send(
        json!({"jsonrpc": "2.0", "id": 77, "method": "textDocument/diagnostic",
        "params": {"textDocument": {"uri": URI}}}),
    );
    editor.change(URI, 3, bracket);
    // The thread has taken the three together: the hover is answered at
    // once, the pull is kept, and the change is being analysed. One more
    // change comes meanwhile.
    editor.next_matching(|m| m["id"] == 76);
    editor.change(URI, 4, json!([{"text": invalid}]));
    let reply = editor.next_matching(|m| m["id"] == 77);
    let expected = report_core::analyze(&invalid).diagnostics.len();
    assert!(expected > 0);
    assert_eq!(
        reply["result"]["items"].as_array().map(Vec::len),
        Some(expected),
        "{reply}"
    );
    assert!(reply["result"]["resultId"].is_string(), "{reply}");
    editor.shutdown();
}

/// A whole-text change (what formatters send) that differs in one value
/// is rechecked per entry: the server diffs the two ropes.
#[test]
fn a_whole_text_replacement_is_diffed_and_rechecked_per_entry() {
    const DOC: &str = "file:///tmp/report-lsp-e2e/replaced.report.json";
    let text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 2000,
        seed: 4,
        violation_every: 0,
    });
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(DOC, &text, 1);
    let _ = editor.diagnostics(DOC);
    let middle = text.len() / 2;
    let at = middle + text[middle..].find("\"safety_tier\": \"confirm\"").unwrap();
    let mut changed = text.clone();
    changed.replace_range(at..at + 24, "\"safety_tier\": \"auto\"");
    editor.change(DOC, 2, json!([{"text": changed}]));
    let published = loop {
        let (version, diagnostics) = editor.diagnostics(DOC);
        if version == Some(2) {
            break diagnostics;
        }
    };
    let expected = report_core::analyze(&changed);
    assert_eq!(codes(&published), ["tier-mismatch"]);
    assert_eq!(expected.diagnostics.len(), 1);
    let status = editor.request(report_lsp::lsp::STATUS_METHOD, json!({"uri": DOC}));
    assert_eq!(status["result"]["incrementalUpdates"], 1, "{status}");
    assert_eq!(status["result"]["fullAnalyses"], 1, "{status}");
    editor.shutdown();
}

#[test]
fn quick_fixes_are_tied_to_the_document_version_when_the_client_can() {
    let capabilities = json!({"workspace": {"workspaceEdit": {"documentChanges": true}}});
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    let text = golden("invalid.report.json");
    editor.open(URI, &text, 7);
    let (_, diagnostics) = editor.diagnostics(URI);
    let with_fix = diagnostics.iter().find_map(|target| {
        let reply = editor.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": target["range"], "context": {"diagnostics": [target], "only": ["quickfix"]}}),
        );
        reply["result"].as_array().and_then(|a| a.first().cloned())
    });
    let action = with_fix.expect("a quick fix");
    assert!(action["edit"].get("changes").is_none(), "{action}");
    let change = &action["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"]["uri"], URI, "{action}");
    assert_eq!(change["textDocument"]["version"], 7, "{action}");
    assert!(!change["edits"].as_array().unwrap().is_empty(), "{action}");
    editor.shutdown();
}

fn set_log_level(editor: &mut Editor, level: &str) {
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"logLevel": level}}}),
    );
}

/// The `$/logTrace` notifications received so far, after a round trip that
/// lets those already sent arrive.
fn log_traces(editor: &mut Editor) -> Vec<Value> {
    let reply = editor.request("report-lsp/status", json!({"uri": "file:///tmp/none.json"}));
    assert!(reply.get("id").is_some());
    let (traces, others): (Vec<Value>, Vec<Value>) = editor
        .backlog
        .drain(..)
        .partition(|m| m["method"] == "$/logTrace");
    editor.backlog = others;
    traces
}

/// The trace follows `$/setTrace`: `verbose` sends the debug events with
/// their `verbose` text whatever `logLevel` says (a user turning the trace
/// up to attach it to a bug report needs no second setting), `messages`
/// sends the events at `logLevel`, and `off` sends nothing.
#[test]
fn set_trace_sends_the_log_verbose_in_detail_messages_at_the_log_level_and_off_nothing() {
    let mut editor = Editor::start_with(
        env!("CARGO_BIN_EXE_report-lsp"),
        &["utf-16"],
        &[],
        json!({"logLevel": "loud"}),
    );
    assert!(
        editor.log_message().contains("logLevel"),
        "a wrong level is refused"
    );
    let text = golden("valid.report.json");
    let uri = |name: &str| format!("file:///tmp/trace/{name}.report.json");
    // Off at first (initialize asked for no trace).
    editor.open(&uri("a"), &text, 1);
    editor.diagnostics(&uri("a"));
    assert_eq!(log_traces(&mut editor), Vec::<Value>::new());

    let traced = |event: &'static str, name: &'static str| {
        move |m: &Value| {
            m["method"] == "$/logTrace"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|t| t.starts_with(event) && t.contains(&format!("/{name}.report")))
        }
    };
    // Verbose at the default level (info): the debug timings, in detail.
    editor.notify("$/setTrace", json!({"value": "verbose"}));
    editor.open(&uri("b"), &text, 1);
    let trace = editor.next_matching(traced("analysed and published", "b"));
    editor.next_matching(traced("workspace pass", "b"));
    let message = trace["params"]["message"].as_str().unwrap();
    assert!(message.contains("analysis_ms="), "{message}");
    let verbose = trace["params"]["verbose"].as_str().unwrap();
    assert!(
        verbose.starts_with("DEBUG report_lsp::lsp::analysis::worker (thread "),
        "{verbose}"
    );

    // Messages at info: the debug timings are not sent.
    editor.notify("$/setTrace", json!({"value": "messages"}));
    log_traces(&mut editor);
    editor.open(&uri("c"), &text, 1);
    editor.diagnostics(&uri("c"));
    assert_eq!(log_traces(&mut editor), Vec::<Value>::new());

    // Messages at debug: they are, without the detail. Each new level
    // checks the open documents again, on the analysis threads: waiting
    // for those checks to be traced keeps a late one out of the next phase.
    set_log_level(&mut editor, "debug");
    editor.next_matching(traced("analysed and published", "c"));
    editor.open(&uri("d"), &text, 1);
    let trace = editor.next_matching(traced("analysed and published", "d"));
    editor.next_matching(traced("workspace pass", "d"));
    assert!(trace["params"].get("verbose").is_none(), "{trace}");

    // Off, at debug: nothing.
    editor.notify("$/setTrace", json!({"value": "off"}));
    log_traces(&mut editor);
    editor.open(&uri("e"), &text, 1);
    editor.diagnostics(&uri("e"));
    assert_eq!(log_traces(&mut editor), Vec::<Value>::new());
    editor.shutdown();
}
