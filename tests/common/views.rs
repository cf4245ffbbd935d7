//! The three views of a report's diagnostics, as a client or a script
//! sees them: `check --format json`, the open document's publications, and
//! `workspace/diagnostic` for a report that is not open. Each is read into
//! the same [`View`], so that tests can say they agree.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::editor::{Editor, capable_client_with};

/// A client that pulls diagnostics, as VS Code does.
pub fn pulling_client() -> Value {
    capable_client_with(json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}},
    }))
}

/// `workspace/diagnostic` with these previous result ids: uri → (kind,
/// result id, items). The first answer waits for the first search.
pub fn pull(
    editor: &mut Editor,
    previous: &[(String, String)],
) -> Vec<(String, String, String, Vec<Value>)> {
    let previous: Vec<Value> = previous
        .iter()
        .map(|(uri, id)| json!({"uri": uri, "value": id}))
        .collect();
    let reply = editor.request(
        "workspace/diagnostic",
        json!({"identifier": "report-lsp", "previousResultIds": previous}),
    );
    assert!(reply.get("error").is_none(), "{reply}");
    let mut items: Vec<_> = reply["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            assert!(item["version"].is_null(), "{item}");
            (
                item["uri"].as_str().unwrap().to_string(),
                item["kind"].as_str().unwrap().to_string(),
                item["resultId"].as_str().unwrap().to_string(),
                item["items"].as_array().cloned().unwrap_or_default(),
            )
        })
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    items
}

/// Waits for the diagnostics of `uri` that `done` accepts; the last ones
/// seen on failure.
pub fn diagnostics_until(
    editor: &mut Editor,
    uri: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = Vec::new();
    while Instant::now() < deadline {
        let message = editor.next_message_within(deadline - Instant::now());
        if message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
        {
            last = message["params"]["diagnostics"].as_array().unwrap().clone();
            if done(&last) {
                return last;
            }
        }
    }
    panic!("no diagnostics as expected for {uri}; the last: {last:?}");
}

/// (code, severity 1-4) of each diagnostic, sorted.
pub fn severities(diagnostics: &[Value]) -> Vec<(String, i64)> {
    let mut found: Vec<(String, i64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["severity"].as_i64().unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

/// One diagnostic as the views are compared: code, range (line, character,
/// line, character, UTF-16), severity (1 error to 4 hint).
pub type Shown = (String, [u64; 4], i64);

/// What a view shows of one report: its diagnostics (in document order)
/// and how many it left out, with the summary's severity when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub diagnostics: Vec<Shown>,
    pub left_out: usize,
}

fn range_of(range: &Value) -> [u64; 4] {
    let at = |end: &str, key: &str| range[end][key].as_u64().unwrap();
    [
        at("start", "line"),
        at("start", "character"),
        at("end", "line"),
        at("end", "character"),
    ]
}

/// `check --format json REL` in `dir`: the one file's view.
pub fn check_view(dir: &Path, rel: &str) -> View {
    let output = super::report_lsp(&["check", "--format", "json", rel], dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    let file = &json["files"][0];
    let severity = |s: &Value| match s.as_str().unwrap() {
        "error" => 1,
        "warning" => 2,
        "information" => 3,
        "hint" => 4,
        other => panic!("severity {other}"),
    };
    let diagnostics = file["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{json}"))
        .iter()
        .map(|d| {
            let code = d["code"].as_str().unwrap().to_string();
            (code, range_of(&d["range"]), severity(&d["severity"]))
        })
        .collect();
    View {
        diagnostics,
        left_out: file["omitted"].as_u64().unwrap() as usize,
    }
}

/// A publication or a pull's items as a view, and its
/// `too-many-diagnostics` summary apart.
pub fn lsp_view(items: &[Value]) -> (View, Option<Value>) {
    let summary = items
        .iter()
        .find(|d| d["code"] == "too-many-diagnostics")
        .cloned();
    let left_out = summary.as_ref().map_or(0, |s| {
        let message = s["message"].as_str().unwrap();
        let count = message.split(' ').next().unwrap();
        count.parse().unwrap_or_else(|_| panic!("{message}"))
    });
    let mut diagnostics: Vec<Shown> = items
        .iter()
        .filter(|d| d["code"] != "too-many-diagnostics")
        .map(|d| {
            let code = d["code"].as_str().unwrap().to_string();
            (code, range_of(&d["range"]), d["severity"].as_i64().unwrap())
        })
        .collect();
    // Document order, as `check` lists them.
    diagnostics.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    let view = View {
        diagnostics,
        left_out,
    };
    (view, summary)
}

/// The sorted view of `check`, to compare with an LSP view.
pub fn sorted(mut view: View) -> View {
    view.diagnostics
        .sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    view
}

/// The open document's view, once its publication agrees with `expected`
/// (the workspace checks' come after the first), or the last one seen.
pub fn open_view(
    editor: &mut Editor,
    uri: &str,
    text: &str,
    expected: &View,
) -> (View, Option<Value>) {
    editor.open(uri, text, 1);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = None;
    while Instant::now() < deadline {
        let message = editor.next_message_within(deadline - Instant::now());
        if message["method"] != "textDocument/publishDiagnostics" || message["params"]["uri"] != uri
        {
            continue;
        }
        let items = message["params"]["diagnostics"].as_array().unwrap().clone();
        let (view, summary) = lsp_view(&items);
        if &view == expected {
            return (view, summary);
        }
        last = Some((view, summary));
    }
    last.unwrap_or_else(|| panic!("nothing published for {uri}"))
}

/// The unopened report's view: the first `workspace/diagnostic` answer
/// (given once the folders were searched) for `uri`.
pub fn found_view(editor: &mut Editor, uri: &str) -> (View, Option<Value>) {
    let items = pull(editor, &[]);
    let item = items
        .iter()
        .find(|i| i.0 == uri)
        .unwrap_or_else(|| panic!("{uri} not found: {items:?}"));
    lsp_view(&item.3)
}
