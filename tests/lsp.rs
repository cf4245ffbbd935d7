//! The language server end to end: the real binary over stdio, framed
//! JSON-RPC, a real initialize handshake, as an editor drives it.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

struct Editor {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    /// Notifications read while waiting for something else.
    backlog: Vec<Value>,
    next_id: i64,
}

impl Editor {
    fn start(encodings: &[&str]) -> Editor {
        let mut child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                stdout.read_exact(&mut body).unwrap();
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut editor = Editor {
            child,
            stdin,
            messages,
            backlog: Vec::new(),
            next_id: 1,
        };
        let init = editor.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {"general": {"positionEncodings": encodings}}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "report-lsp");
        editor.notify("initialized", json!({}));
        editor
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next_message();
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
            self.backlog.push(message);
        }
    }

    fn next_message(&mut self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answers within 20 s")
    }

    /// The next diagnostics published for `uri`, from the backlog or the wire.
    fn diagnostics(&mut self, uri: &str) -> (Option<i64>, Vec<Value>) {
        let is_for = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        };
        let message = match self.backlog.iter().position(is_for) {
            Some(i) => self.backlog.remove(i),
            None => loop {
                let message = self.next_message();
                if is_for(&message) {
                    break message;
                }
                self.backlog.push(message);
            },
        };
        let params = &message["params"];
        (
            params["version"].as_i64(),
            params["diagnostics"].as_array().unwrap().clone(),
        )
    }

    fn open(&mut self, uri: &str, text: &str, version: i64) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "json", "version": version, "text": text}}),
        );
    }

    fn change(&mut self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
    }

    fn shutdown(mut self) {
        let reply = self.request("shutdown", Value::Null);
        assert!(reply.get("error").is_none(), "{reply}");
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(common::golden_dir().join(name)).unwrap()
}

/// Applies LSP edits (UTF-16 positions) to `text`, last first.
fn apply_lsp_edits(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let character = p["character"].as_u64().unwrap() as usize;
        let line_start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[line_start..].char_indices() {
            if units == character {
                return line_start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut ranges: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut out = text.to_string();
    for (start, end, new_text) in ranges {
        out.replace_range(start..end, new_text);
    }
    out
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
    assert!(
        tier["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .contains("invariants.md#7-the-safety-tier")
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
        text = apply_lsp_edits(&text, edits);
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
    let fixed = apply_lsp_edits(
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

#[test]
fn garbage_and_out_of_range_edits_do_not_kill_the_server() {
    let mut editor = Editor::start(&["utf-16"]);
    editor.open(URI, "{}", 1);
    editor.diagnostics(URI);
    editor.change(URI, 2, json!([{"range": {"start": {"line": 99, "character": 0}, "end": {"line": 99, "character": 1}}, "text": "x"}]));
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
    editor.change(URI, 3, json!([{"text": "[1,"}]));
    let (version, diagnostics) = editor.diagnostics(URI);
    assert_eq!(version, Some(3));
    assert_eq!(codes(&diagnostics), ["syntax-error"]);
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(editor.diagnostics(URI), (None, vec![]));
    editor.shutdown();
}
