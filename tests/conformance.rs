//! The protocol to the letter, over stdio: what a strict or minimal client
//! may rely on. A `$/` request is answered; the server's requests without
//! params leave the key out; a client gets only what it announced it reads
//! (a bare client, then each capability of a capable one turned off in
//! turn); inlay hints stand in the range asked for.

mod common;

use common::editor::{Editor, capable_client};
use serde_json::{Value, json};

const URI: &str = "file:///tmp/report-lsp-conformance/%E5%A0%B1%E5%91%8A%F0%9F%98%80.report.json";

fn golden(name: &str) -> String {
    std::fs::read_to_string(common::golden_dir().join(name)).unwrap()
}

fn start(capabilities: Value) -> Editor {
    Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capabilities,
        &[],
        Value::Null,
    )
}

/// `capabilities` without the member at the JSON pointer `path`.
fn without(mut capabilities: Value, path: &str) -> Value {
    let (parent, key) = path.rsplit_once('/').unwrap();
    let removed = capabilities
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .and_then(|o| o.remove(key));
    assert!(removed.is_some(), "the capable client announces {path}");
    capabilities
}

/// The UTF-16 position of the `after`-th byte past `needle` in `text`.
fn position_of(text: &str, needle: &str, after: usize) -> Value {
    common::lsp_position(text, text.find(needle).unwrap() + after)
}

/// The first diagnostic of `code`.
fn first_of(diagnostics: &[Value], code: &str) -> Value {
    let found = diagnostics.iter().find(|d| d["code"] == code);
    found
        .unwrap_or_else(|| panic!("no {code} in {diagnostics:?}"))
        .clone()
}

fn whole_range() -> Value {
    json!({"start": {"line": 0, "character": 0}, "end": {"line": 100000, "character": 0}})
}

/// What one session answers, for the checks below.
struct Answers {
    initialize: Value,
    diagnostics: Vec<Value>,
    hover: Value,
    completion: Value,
    /// In a `safety_tier` value: the derived tier, preselected where the client reads it.
    tier_completion: Value,
    /// At the start of `entries`: a whole new entry, a snippet.
    new_entry: Value,
    symbols: Value,
    actions: Value,
    /// Every message the server sent that was not an answer.
    server_messages: Vec<Value>,
}

/// Opens the invalid golden report and asks for each feature once.
fn session(capabilities: Value) -> Answers {
    let text = golden("invalid.report.json");
    let mut editor = start(capabilities);
    let initialize = editor.initialized["result"].clone();
    editor.open(URI, &text, 1);
    let (_, diagnostics) = editor.diagnostics(URI);
    let doc = json!({"uri": URI});
    let tier = first_of(&diagnostics, "tier-mismatch");
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": doc, "position": tier["range"]["start"]}),
    );
    let completion = editor.request(
        "textDocument/completion",
        json!({"textDocument": doc, "position": position_of(&text, "\"op_type\": \"", 12)}),
    );
    let tier_completion = editor.request(
        "textDocument/completion",
        json!({"textDocument": doc, "position": position_of(&text, "\"safety_tier\": \"", 16)}),
    );
    let new_entry = editor.request(
        "textDocument/completion",
        json!({"textDocument": doc, "position": position_of(&text, "\"entries\": [", 12)}),
    );
    let symbols = editor.request("textDocument/documentSymbol", json!({"textDocument": doc}));
    let actions = editor.request(
        "textDocument/codeAction",
        json!({"textDocument": doc, "range": tier["range"], "context": {"diagnostics": [tier]}}),
    );
    let server_messages = editor
        .backlog
        .iter()
        .filter(|m| m["method"] != "textDocument/publishDiagnostics")
        .cloned()
        .collect();
    editor.shutdown();
    Answers {
        initialize,
        diagnostics,
        hover: hover["result"].clone(),
        completion: completion["result"].clone(),
        tier_completion: tier_completion["result"].clone(),
        new_entry: new_entry["result"].clone(),
        symbols: symbols["result"].clone(),
        actions: actions["result"].clone(),
        server_messages,
    }
}

fn kinds(items: &Value) -> Vec<i64> {
    items
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["kind"].as_i64())
        .collect()
}

/// Every symbol kind of an outline, children included.
fn symbol_kinds(symbols: &Value) -> Vec<i64> {
    let mut out = Vec::new();
    for s in symbols.as_array().unwrap() {
        out.push(s["kind"].as_i64().unwrap());
        if s.get("children").is_some() {
            out.extend(symbol_kinds(&s["children"]));
        }
    }
    out
}

#[test]
fn a_dollar_request_is_answered_and_a_dollar_notification_is_not() {
    let mut editor = start(capable_client(&["utf-16"]));
    editor.notify("$/anything", json!({}));
    let reply = editor.request("$/anything", json!({}));
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("$/anything"),
        "{reply}"
    );
    // Only the request got an answer, and the server keeps serving.
    editor.open(URI, &golden("valid.report.json"), 1);
    let symbols = editor.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"entries"), "{symbols}");
    assert!(
        editor.backlog.iter().all(|m| m.get("id").is_none()),
        "{:?}",
        editor.backlog
    );
    editor.shutdown();
}

#[test]
fn the_servers_requests_without_params_leave_the_key_out() {
    // A pulling client that can be told to pull again and to ask for hints
    // again: a settings change sends both refreshes.
    let mut capabilities = capable_client(&["utf-16"]);
    capabilities["textDocument"]["diagnostic"] = json!({});
    capabilities["workspace"]["diagnostics"] = json!({"refreshSupport": true});
    capabilities["workspace"]["inlayHint"] = json!({"refreshSupport": true});
    let mut editor = start(capabilities);
    editor.open(URI, &golden("invalid.report.json"), 1);
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"maxDiagnostics": 2}}}),
    );
    let refresh = editor.next_matching(|m| m["method"] == "workspace/diagnostic/refresh");
    assert!(refresh.get("params").is_none(), "{refresh}");
    assert!(refresh.get("id").is_some(), "{refresh}");
    editor.send(json!({"jsonrpc": "2.0", "id": refresh["id"], "result": null}));
    editor.shutdown();
}

#[test]
fn a_bare_client_gets_only_what_the_first_protocol_had() {
    let bare = session(json!({}));
    let offered = &bare.initialize["capabilities"];
    // No code actions (no literals, no applyEdit to run a command): the
    // commands are the comparison with HEAD, which answers with text, the
    // roll-up lens's, which does nothing, and the summary's; and the
    // plain rename capability (it never asks prepareRename).
    assert!(offered.get("codeActionProvider").is_none(), "{offered}");
    assert_eq!(
        offered["executeCommandProvider"]["commands"],
        json!([
            "report-lsp.showDiffSinceHead",
            "report-lsp.displayOnly",
            "report-lsp.summary"
        ]),
        "{offered}"
    );
    assert_eq!(offered["renameProvider"], true, "{offered}");
    assert_eq!(bare.actions, Value::Null);

    // Diagnostics without relatedInformation: the related places are in the message.
    let capable = session(capable_client(&["utf-16"]));
    assert_eq!(bare.diagnostics.len(), capable.diagnostics.len());
    let mut told = 0;
    for (plain, rich) in bare.diagnostics.iter().zip(&capable.diagnostics) {
        assert!(plain.get("relatedInformation").is_none(), "{plain}");
        assert_eq!(plain["range"], rich["range"]);
        let mut message = rich["message"].as_str().unwrap().to_string();
        for related in rich["relatedInformation"].as_array().into_iter().flatten() {
            let line = related["location"]["range"]["start"]["line"]
                .as_u64()
                .unwrap()
                + 1;
            message.push_str(&format!(
                "\nline {line}: {}",
                related["message"].as_str().unwrap()
            ));
            told += 1;
        }
        assert_eq!(plain["message"], message.as_str());
    }
    assert!(told > 0, "the invalid golden report has related places");

    // The hover as the first protocol had it: a string, no Markdown marks.
    let hover = bare.hover["contents"].as_str().unwrap();
    assert!(hover.contains("derive_safety_tier(op_type="), "{hover}");
    assert!(!hover.contains("**") && !hover.contains('`'), "{hover}");
    assert_eq!(capable.hover["contents"]["kind"], "markdown");

    // Completion: the first kinds, plain documentation, no preselection, no snippets.
    let items = bare.completion.as_array().unwrap();
    assert!(!items.is_empty());
    assert!(
        kinds(&bare.completion).iter().all(|k| (1..=18).contains(k)),
        "{}",
        bare.completion
    );
    assert!(
        kinds(&capable.completion).contains(&20),
        "{}",
        capable.completion
    );
    for item in items {
        assert!(!item["documentation"].is_object(), "{item}");
    }
    // The derived tier is preselected for a client that reads it, and only there.
    assert_eq!(
        capable.tier_completion[0]["preselect"], true,
        "{}",
        capable.tier_completion
    );
    let tier_items = bare.tier_completion.as_array().unwrap();
    assert!(!tier_items.is_empty());
    assert!(
        tier_items.iter().all(|i| i.get("preselect").is_none()),
        "{}",
        bare.tier_completion
    );
    // The new entry, a snippet to a capable client, is plain text here.
    assert_eq!(
        capable.new_entry[0]["insertTextFormat"], 2,
        "{}",
        capable.new_entry
    );
    let plain = &bare.new_entry[0];
    assert_eq!(plain["insertTextFormat"], 1, "{plain}");
    assert!(
        !plain["textEdit"]["newText"].as_str().unwrap().contains('$'),
        "{plain}"
    );

    // The outline as the flat list, with the first kinds.
    let flat = bare.symbols.as_array().unwrap();
    assert!(
        flat.iter()
            .all(|s| s["location"]["uri"] == URI && s.get("children").is_none())
    );
    assert!(
        flat.iter().any(|s| s["containerName"] == "entries"),
        "{}",
        bare.symbols
    );
    assert!(
        symbol_kinds(&bare.symbols)
            .iter()
            .all(|k| (1..=18).contains(k))
    );
    assert!(
        symbol_kinds(&capable.symbols).contains(&19),
        "{}",
        capable.symbols
    );

    // Nothing asked of a client that announced nothing.
    assert!(
        bare.server_messages
            .iter()
            .all(|m| m["method"] == "window/logMessage"),
        "{:?}",
        bare.server_messages
    );
}

/// What a session must show with one capability turned off.
type Check = dyn Fn(&Answers);

/// Each capability of the capable client turned off alone: the feature it
/// governs degrades the standard way, and nothing else changes.
#[test]
fn each_capability_turned_off_degrades_its_feature_alone() {
    let capable = session(capable_client(&["utf-16"]));
    let preferred = capable.actions.as_array().unwrap();
    assert!(
        preferred.iter().any(|c| c["isPreferred"] == true),
        "{}",
        capable.actions
    );
    let rows: &[(&str, &Check)] = &[
        ("/textDocument/codeAction/codeActionLiteralSupport", &|a| {
            let commands = a.actions.as_array().unwrap();
            assert!(!commands.is_empty());
            for c in commands {
                assert_eq!(c["command"], "report-lsp.applyEdit", "{c}");
                assert!(c["arguments"][0]["edit"].is_object(), "{c}");
            }
            assert_eq!(a.initialize["capabilities"]["codeActionProvider"], true);
            assert_eq!(
                a.initialize["capabilities"]["executeCommandProvider"]["commands"],
                json!([
                    "report-lsp.showDiffSinceHead",
                    "report-lsp.displayOnly",
                    "report-lsp.summary",
                    "report-lsp.applyEdit"
                ])
            );
        }),
        ("/textDocument/codeAction/isPreferredSupport", &|a| {
            let actions = a.actions.as_array().unwrap();
            assert!(actions.iter().all(|c| c.get("isPreferred").is_none()));
            assert!(
                actions.iter().any(|c| c["kind"] == "quickfix"),
                "{}",
                a.actions
            );
        }),
        ("/workspace/applyEdit", &|a| {
            // Literals carry their edits: nothing to run but the lenses' commands.
            let actions = a.actions.as_array().unwrap();
            assert!(actions.iter().all(|c| c["edit"].is_object()));
            assert_eq!(
                a.initialize["capabilities"]["executeCommandProvider"]["commands"],
                json!([
                    "report-lsp.showDiffSinceHead",
                    "report-lsp.displayOnly",
                    "report-lsp.summary"
                ])
            );
        }),
        ("/textDocument/completion/completionItemKind", &|a| {
            assert!(kinds(&a.completion).iter().all(|k| (1..=18).contains(k)));
            assert!(kinds(&a.completion).contains(&12), "{}", a.completion);
        }),
        (
            "/textDocument/completion/completionItem/documentationFormat",
            &|a| {
                let items = a.completion.as_array().unwrap();
                assert!(
                    items.iter().any(|i| i["documentation"].is_string()),
                    "{}",
                    a.completion
                );
            },
        ),
        (
            "/textDocument/completion/completionItem/preselectSupport",
            &|a| {
                let items = a.tier_completion.as_array().unwrap();
                assert!(!items.is_empty());
                assert!(
                    items.iter().all(|i| i.get("preselect").is_none()),
                    "{items:?}"
                );
            },
        ),
        ("/textDocument/documentSymbol/symbolKind", &|a| {
            let kinds = symbol_kinds(&a.symbols);
            assert!(kinds.iter().all(|k| (1..=18).contains(k)), "{kinds:?}");
            assert!(kinds.contains(&2), "objects are modules: {kinds:?}");
        }),
        (
            "/textDocument/documentSymbol/hierarchicalDocumentSymbolSupport",
            &|a| {
                let flat = a.symbols.as_array().unwrap();
                assert!(flat.iter().all(|s| s.get("location").is_some()));
                assert!(symbol_kinds(&a.symbols).contains(&19));
            },
        ),
        (
            "/textDocument/completion/completionItem/snippetSupport",
            &|a| {
                assert_eq!(a.new_entry[0]["insertTextFormat"], 1, "{}", a.new_entry);
            },
        ),
        ("/textDocument/hover/contentFormat", &|a| {
            assert!(a.hover["contents"].is_string(), "{}", a.hover);
        }),
        (
            "/textDocument/publishDiagnostics/relatedInformation",
            &|a| {
                assert!(
                    a.diagnostics
                        .iter()
                        .all(|d| d.get("relatedInformation").is_none())
                );
                assert!(
                    a.diagnostics
                        .iter()
                        .any(|d| d["message"].as_str().unwrap().contains("\nline "))
                );
            },
        ),
        ("/textDocument/rename/prepareSupport", &|a| {
            assert_eq!(a.initialize["capabilities"]["renameProvider"], true);
        }),
    ];
    for (path, check) in rows {
        let answers = session(without(capable_client(&["utf-16"]), path));
        check(&answers);
        // Everything the flag does not govern is as the capable client has it.
        let governs = |feature: &str| path.contains(feature);
        if !governs("codeAction") && !governs("applyEdit") {
            assert_eq!(answers.actions, capable.actions, "{path}");
        }
        if !governs("completion") {
            assert_eq!(answers.completion, capable.completion, "{path}");
            assert_eq!(answers.new_entry, capable.new_entry, "{path}");
        }
        if !governs("documentSymbol") {
            assert_eq!(answers.symbols, capable.symbols, "{path}");
        }
        if !governs("hover") {
            assert_eq!(answers.hover, capable.hover, "{path}");
        }
        if !governs("publishDiagnostics") {
            assert_eq!(answers.diagnostics, capable.diagnostics, "{path}");
        }
    }
}

#[test]
fn a_fix_offered_as_a_command_applies_its_edit_through_the_client() {
    let capabilities = without(
        capable_client(&["utf-16"]),
        "/textDocument/codeAction/codeActionLiteralSupport",
    );
    let text = golden("invalid.report.json");
    let mut editor = start(capabilities);
    editor.open(URI, &text, 1);
    let (_, diagnostics) = editor.diagnostics(URI);
    let tier = first_of(&diagnostics, "tier-mismatch");
    let actions = editor.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": tier["range"], "context": {"diagnostics": [tier]}}),
    );
    let command = actions["result"][0].clone();
    assert_eq!(command["command"], "report-lsp.applyEdit", "{actions}");
    let execute = json!({"command": command["command"], "arguments": command["arguments"]});

    // Executed: the server sends the edit, the client answers `answer` (or
    // no edit comes), and the command's own answer is returned.
    let mut next_id = 900;
    let mut run = |editor: &mut Editor, answer: Value| -> (Option<Value>, Value) {
        next_id += 1;
        let id = next_id;
        editor.send(json!({"jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand", "params": execute}));
        let message = editor.next_matching(|m| {
            m["method"] == "workspace/applyEdit" || (m["id"] == id && m.get("method").is_none())
        });
        if message["method"] != "workspace/applyEdit" {
            return (None, message);
        }
        let mut reply = json!({"jsonrpc": "2.0", "id": message["id"]});
        match answer.get("error") {
            Some(error) => reply["error"] = error.clone(),
            None => reply["result"] = answer,
        }
        editor.send(reply);
        let done = editor.next_matching(|m| m["id"] == id && m.get("method").is_none());
        (Some(message), done)
    };

    // Any other name is answered `null` with nothing done, whatever it
    // names (a program, a path, a report's value): nothing is started, no
    // edit is sent, and the client shows its user no error for a click.
    // Each with an id of its own, as a client must send them.
    let names = [
        "git",
        "sh",
        "/bin/sh",
        "report-lsp.applyEdit ",
        "docs/setup.md",
        "",
    ];
    for (id, name) in (800..).zip(names) {
        editor.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand",
                           "params": {"command": name, "arguments": command["arguments"]}}),
        );
        let answered = editor.next_matching(|m| m["id"] == id && m.get("method").is_none());
        assert_eq!(answered["result"], Value::Null, "{name}: {answered}");
        assert!(answered.get("error").is_none(), "{name}: {answered}");
    }
    assert!(
        editor
            .backlog
            .iter()
            .all(|m| m["method"] != "workspace/applyEdit")
    );

    // Refused by the client, or answered with an error: RequestFailed.
    let (_, done) = run(
        &mut editor,
        json!({"applied": false, "failureReason": "read-only"}),
    );
    assert_eq!(done["error"]["code"], -32803, "{done}");
    assert!(
        done["error"]["message"]
            .as_str()
            .unwrap()
            .contains("read-only"),
        "{done}"
    );
    let (_, done) = run(
        &mut editor,
        json!({"error": {"code": -32601, "message": "no"}}),
    );
    assert_eq!(done["error"]["code"], -32803, "{done}");

    // Applied: the command ends with null.
    let (apply, done) = run(&mut editor, json!({"applied": true}));
    let apply = apply.expect("the edit is sent to the client");
    assert_eq!(apply["params"]["edit"], command["arguments"][0]["edit"]);
    assert_eq!(done["result"], Value::Null, "{done}");

    // The edit applied by the client; the same command again is refused: its text is gone.
    let edits = apply["params"]["edit"]["changes"][URI].as_array().unwrap();
    let fixed = common::apply_lsp_edits(&text, edits);
    editor.change(URI, 2, json!([{"text": fixed}]));
    let (sent, refused) = run(&mut editor, json!({"applied": true}));
    assert!(sent.is_none(), "a refused command sends no edit");
    assert_eq!(refused["error"]["code"], -32801, "{refused}");

    // Closed: refused. Opened again with the text the fix was made for: still
    // refused, since it was made for the earlier opening.
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    let (sent, closed) = run(&mut editor, json!({"applied": true}));
    assert!(sent.is_none());
    assert_eq!(closed["error"]["code"], -32801, "{closed}");
    assert!(
        closed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not open"),
        "{closed}"
    );
    editor.open(URI, &text, 1);
    let _ = editor.diagnostics(URI);
    let (sent, reopened) = run(&mut editor, json!({"applied": true}));
    assert!(sent.is_none());
    assert_eq!(reopened["error"]["code"], -32801, "{reopened}");
    editor.shutdown();
}

/// Fix-all's edit is left for `codeAction/resolve` only when the client
/// resolves edits and keeps the action's `data`, which says what to resolve.
#[test]
fn fix_all_is_left_to_resolve_only_for_a_client_that_keeps_its_data() {
    let fix_all = |code_action: Value| {
        let mut capabilities = capable_client(&["utf-16"]);
        capabilities["textDocument"]["codeAction"]["resolveSupport"] =
            json!({"properties": ["edit"]});
        if let Some(data) = code_action.get("dataSupport") {
            capabilities["textDocument"]["codeAction"]["dataSupport"] = data.clone();
        }
        let mut editor = start(capabilities);
        let offered = editor.initialized["result"]["capabilities"]["codeActionProvider"].clone();
        editor.open(URI, &golden("invalid.report.json"), 1);
        let _ = editor.diagnostics(URI);
        let reply = editor.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                   "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
        );
        editor.shutdown();
        (offered, reply["result"][0].clone())
    };
    let (offered, action) = fix_all(json!({}));
    assert_eq!(offered["resolveProvider"], false, "{offered}");
    assert!(
        action["edit"].is_object() && action.get("data").is_none(),
        "{action}"
    );
    let (offered, action) = fix_all(json!({"dataSupport": true}));
    assert_eq!(offered["resolveProvider"], true, "{offered}");
    assert!(
        action.get("edit").is_none() && action["data"].is_object(),
        "{action}"
    );
}

#[test]
fn inlay_hints_stand_in_the_range_asked_for() {
    let text = golden("valid.report.json");
    let mut editor = start(capable_client(&["utf-16"]));
    editor.open(URI, &text, 1);
    let _ = editor.diagnostics(URI);
    let ask = |editor: &mut Editor, range: Value| {
        let reply = editor.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": URI}, "range": range}),
        );
        reply["result"].as_array().unwrap().clone()
    };
    let all = ask(&mut editor, whole_range());
    assert!(all.len() >= 2, "{all:?}");
    let line = |h: &Value| h["position"]["line"].as_u64().unwrap();
    // Each hint's own line alone, then the line before it alone.
    for hint in &all {
        let at = line(hint);
        let on_line = ask(
            &mut editor,
            json!({"start": {"line": at, "character": 0}, "end": {"line": at + 1, "character": 0}}),
        );
        assert!(on_line.contains(hint), "{hint} on its line: {on_line:?}");
        assert!(on_line.iter().all(|h| line(h) == at), "{on_line:?}");
        let before = ask(
            &mut editor,
            json!({"start": {"line": at - 1, "character": 0}, "end": {"line": at - 1, "character": 1}}),
        );
        assert!(
            before.iter().all(|h| line(h) == at - 1),
            "line {}: {before:?}",
            at - 1
        );
    }
    editor.shutdown();
}

/// The checker itself, once (not in every binary that holds the editor).
mod meta_model_checker {
    use crate::common::editor::meta_model::*;
    use serde_json::Value;
    use serde_json::json;

    fn published(diagnostic: Value) -> Vec<String> {
        let message = json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
            "params": {"uri": "file:///a.report.json", "version": 1, "diagnostics": [diagnostic]}});
        check_server_message(&message, &mut SentRequests::new())
    }

    fn diagnostic() -> Value {
        json!({"range": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 9}},
            "severity": 1, "code": "missing-field", "source": "report-lsp", "message": "m",
            "codeDescription": {"href": "https://example.org/codes#missing-field"},
            "data": {"anything": [1, "goes"]}})
    }

    #[test]
    fn a_valid_diagnostic_passes() {
        assert_eq!(published(diagnostic()), Vec::<String>::new());
    }

    #[test]
    fn a_line_given_as_a_string_is_reported_at_its_path() {
        let mut wrong = diagnostic();
        wrong["range"]["start"]["line"] = json!("3");
        assert_eq!(
            published(wrong),
            [
                "notification textDocument/publishDiagnostics: params.diagnostics[0].range.start.line: expected uinteger, got \"3\""
            ]
        );
    }

    #[test]
    fn an_unknown_property_and_an_enumeration_value_outside_a_closed_one_are_reported() {
        let mut wrong = diagnostic();
        wrong["colour"] = json!("red");
        wrong["severity"] = json!(7);
        let found = published(wrong);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].contains(
                "params.diagnostics[0].severity: expected DiagnosticSeverity (1, 2, 3, 4), got 7"
            ),
            "{found:#?}"
        );
        assert!(
            found[1].contains("params.diagnostics[0].colour: not a property of Diagnostic"),
            "{found:#?}"
        );
    }

    #[test]
    fn an_enumeration_open_to_custom_values_takes_any_of_its_type() {
        let mut errors = Vec::new();
        let kind = Type::Reference {
            name: "CodeActionKind".into(),
        };
        model().check(
            &json!("source.fixAll.reportLsp"),
            &kind,
            &Path::Root("kind"),
            &mut errors,
        );
        model().check(&json!(3), &kind, &Path::Root("kind"), &mut errors);
        assert_eq!(errors.len(), 1, "{errors:#?}");
    }

    #[test]
    fn work_done_progress_is_checked_by_its_kind() {
        let progress = |value: Value| {
            let message = json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "t", "value": value}});
            check_server_message(&message, &mut SentRequests::new())
        };
        assert!(
            progress(json!({"kind": "begin", "title": "Checking", "percentage": 0})).is_empty()
        );
        assert!(progress(json!({"kind": "report", "message": "3/7", "percentage": 42})).is_empty());
        assert!(progress(json!({"kind": "end"})).is_empty());
        let found = progress(json!({"kind": "begin"}));
        assert!(found.iter().any(|e| e.contains("title")), "{found:#?}");
        let found = progress(json!({"kind": "report", "percentage": "42"}));
        assert!(
            found.iter().any(|e| e.contains("params.value.percentage")),
            "{found:#?}"
        );
        assert_eq!(progress(json!({"done": true})).len(), 1);
    }

    #[test]
    fn a_request_without_params_in_the_model_must_have_no_params_key() {
        let refresh = json!({"jsonrpc": "2.0", "id": 1, "method": "workspace/inlayHint/refresh"});
        assert!(check_server_message(&refresh, &mut SentRequests::new()).is_empty());
        let mut with_null = refresh;
        with_null["params"] = Value::Null;
        let found = check_server_message(&with_null, &mut SentRequests::new());
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].starts_with("request workspace/inlayHint/refresh: params: null given"),
            "{found:#?}"
        );
    }

    #[test]
    fn a_response_is_checked_against_the_request_it_answers() {
        let mut sent = SentRequests::from([("4".to_string(), "textDocument/hover".to_string())]);
        let hover = json!({"jsonrpc": "2.0", "id": 4, "result": {"contents": {"kind": "markdown", "value": "x"}}});
        assert!(check_server_message(&hover, &mut sent).is_empty());
        // Answered once: a second answer answers nothing.
        let found = check_server_message(&hover, &mut sent);
        assert_eq!(
            found,
            ["response to 4: answers no request the client sent (or one already answered)"]
        );
        sent.insert("5".into(), "textDocument/hover".into());
        let wrong = json!({"jsonrpc": "2.0", "id": 5, "result": {"contents": {"kind": "html", "value": "x"}}});
        let found = check_server_message(&wrong, &mut sent);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].starts_with("response to 5 (textDocument/hover): result.contents"),
            "{found:#?}"
        );
    }
}

/// A sloppy client, as clients in the field are (issue 45): `params: {}`
/// and `null` where they may be absent (`shutdown` and `exit` with `{}`, as
/// Emacs lsp-mode 8 sends them; `initialized` with none), `null` for
/// optional members, members the protocol does not have, ids that are
/// strings and numbers, every code lens's command run as a click runs it,
/// and a command the server never listed. Each request is answered
/// without an error, every message checked against the meta model, and
/// the server ends cleanly.
#[test]
fn a_sloppy_client_is_served_as_it_meant() {
    let mut capabilities = capable_client(&["utf-16"]);
    capabilities["x-experimental-thing"] = json!({"on": true});
    capabilities["textDocument"]["hover"]["x-unknown"] = json!(null);
    let mut editor = Editor::start_sloppy(capabilities);
    // `initialized` without params was taken: its handler said so.
    let ready = editor.log_message();
    assert!(ready.contains("ready"), "{ready}");
    let text = golden("invalid.report.json");
    editor.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text, "x-extra": 1},
        "x-extra": [],
    }}));
    let (_, diagnostics) = editor.diagnostics(URI);
    assert!(!diagnostics.is_empty());
    let tier = position_of(&text, "\"safety_tier\": \"", 17);
    let document = json!({"uri": URI, "x-extra": true});
    let asked: Vec<(Value, &str, Value)> = vec![
        (
            json!("hover-1"),
            "textDocument/hover",
            json!({"textDocument": document, "position": tier, "workDoneToken": null}),
        ),
        (
            json!(2),
            "textDocument/completion",
            json!({"textDocument": document, "position": tier, "context": null, "partialResultToken": null}),
        ),
        (
            json!("3"),
            "textDocument/documentSymbol",
            json!({"textDocument": document, "workDoneToken": null, "partialResultToken": null}),
        ),
        (
            json!(-4),
            "textDocument/codeAction",
            json!({"textDocument": document, "range": whole_range(),
            "context": {"diagnostics": [], "only": null, "triggerKind": null}}),
        ),
        (
            json!("lens"),
            "textDocument/codeLens",
            json!({"textDocument": document, "workDoneToken": null}),
        ),
        (
            json!(6),
            "textDocument/foldingRange",
            json!({"textDocument": document}),
        ),
        (
            json!("7"),
            "workspace/symbol",
            json!({"query": "", "workDoneToken": null, "partialResultToken": null}),
        ),
    ];
    let mut answers = Vec::new();
    for (id, method, params) in asked {
        editor.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = editor.next_matching(|m| m["id"] == id && m.get("method").is_none());
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        assert_eq!(answer["id"], id, "{method}: the id as it was sent");
        answers.push((method, answer));
    }
    let result_of = |wanted: &str| {
        let (_, answer) = answers.iter().find(|(m, _)| *m == wanted).unwrap();
        answer["result"].clone()
    };
    assert!(
        result_of("textDocument/hover")["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("derive")),
        "{}",
        result_of("textDocument/hover")
    );
    assert!(
        result_of("textDocument/codeAction")
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );

    // Every lens clicked: its command run as the client runs it.
    let lenses = result_of("textDocument/codeLens");
    let lenses = lenses.as_array().unwrap();
    assert!(!lenses.is_empty());
    for (n, lens) in lenses.iter().enumerate() {
        let command = &lens["command"];
        assert!(
            command["command"].as_str().is_some_and(|c| !c.is_empty()),
            "a lens's command names one: {lens}"
        );
        let listed =
            &editor.initialized["result"]["capabilities"]["executeCommandProvider"]["commands"];
        assert!(
            listed.as_array().unwrap().contains(&command["command"]),
            "a lens runs a command the server lists: {lens}"
        );
        let id = format!("click-{n}");
        let mut params = json!({"command": command["command"], "x-extra": 1});
        if let Some(arguments) = command.get("arguments") {
            params["arguments"] = arguments.clone();
        }
        editor.send(json!({"jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand", "params": params}));
        let answer = editor.next_matching(|m| m["id"] == id && m.get("method").is_none());
        assert!(answer.get("error").is_none(), "{lens}: {answer}");
    }
    // A command never listed: nothing runs, and no error to pop up.
    editor.send(
        json!({"jsonrpc": "2.0", "id": 99, "method": "workspace/executeCommand",
        "params": {"command": "x-not-ours", "arguments": null}}),
    );
    let answer = editor.next_matching(|m| m["id"] == 99 && m.get("method").is_none());
    assert_eq!(answer["result"], Value::Null, "{answer}");
    assert!(answer.get("error").is_none(), "{answer}");
    editor.shutdown_with(json!({}));
}
