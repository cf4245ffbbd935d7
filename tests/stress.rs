//! What an independent stress run found holds, kept (issue 27): twenty
//! reports open, 3 000 keystrokes, 1 000 requests of six kinds kept in
//! flight, half of them cancelled right after they are sent. Every request
//! is answered once, with `RequestCancelled` or with a result for the text
//! it was sent against; the server serves correctly afterwards; and the
//! memory the documents took is returned when they are closed. The client
//! is a sloppy one (issue 45): every other id a string, `null` and unknown
//! members in the params, and `shutdown` with `{}`.
//!
//! The keystrokes and requests come from a seeded generator: a failure
//! prints its seed, and `STRESS_SEED=<seed> cargo test --test stress`
//! replays the same session.

mod common;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use common::editor::Editor;
use serde_json::{Value, json};

const KEYSTROKES: usize = 3000;
const REQUESTS: usize = 1000;
const CANCELLED: usize = 500;
/// Our request ids start here, far above the ones `Editor` counts up from 1.
const FIRST_ID: i64 = 1_000_000;
const DEFAULT_SEED: u64 = 0x2700_5eed_c0ff_ee27;
const FOLDER: &str = "file:///tmp/report-lsp-stress/";

/// The reports' sizes in entries, one per document: 20 reports, 15 650
/// entries in all (some 11 MB of text).
const SIZES: [usize; 20] = [
    2000, 200, 1200, 300, 800, 500, 1500, 250, 600, 400, 1000, 200, 700, 350, 900, 450, 1100, 300,
    550, 650,
];

/// A tiny xorshift generator: the same seed, the same session.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A document's text as lines (split at `\n`; the text never holds `\r`),
/// which is how LSP positions count it.
#[derive(Clone)]
struct Text {
    lines: Vec<String>,
}

/// One change, as the editor makes it to its copy and sends it.
#[derive(Clone, Debug)]
enum Edit {
    /// Bytes `start..end` of line `line` replaced by `text`, which holds no line break.
    InLine {
        line: usize,
        start: usize,
        end: usize,
        text: String,
    },
    /// Lines `at..at + remove` replaced by `insert` (whole lines).
    Lines {
        at: usize,
        remove: usize,
        insert: Vec<String>,
    },
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

impl Text {
    fn new(text: &str) -> Text {
        Text {
            lines: text.split('\n').map(str::to_string).collect(),
        }
    }

    fn joined(&self) -> String {
        self.lines.join("\n")
    }

    /// The change `edit` makes to this text, in UTF-16 positions.
    fn lsp_change(&self, edit: &Edit) -> Value {
        match edit {
            Edit::InLine {
                line,
                start,
                end,
                text,
            } => {
                let at = |byte: usize| utf16_len(&self.lines[*line][..byte]);
                json!({"range": {"start": {"line": line, "character": at(*start)},
                                 "end": {"line": line, "character": at(*end)}},
                       "text": text})
            }
            Edit::Lines { at, remove, insert } => {
                let text: String = insert.iter().map(|l| format!("{l}\n")).collect();
                json!({"range": {"start": {"line": at, "character": 0},
                                 "end": {"line": at + remove, "character": 0}},
                       "text": text})
            }
        }
    }

    fn apply(&mut self, edit: &Edit) {
        match edit {
            Edit::InLine {
                line,
                start,
                end,
                text,
            } => self.lines[*line].replace_range(*start..*end, text),
            Edit::Lines { at, remove, insert } => {
                self.lines
                    .splice(*at..*at + *remove, insert.iter().cloned());
            }
        }
    }

    /// The text between two positions, if they are on one line, inside it and in order.
    fn slice(&self, start: &Value, end: &Value) -> Option<&str> {
        let line = start["line"].as_u64()? as usize;
        if end["line"].as_u64()? as usize != line {
            return None;
        }
        let text = self.lines.get(line)?;
        let byte = |units: u64| {
            let mut counted = 0;
            for (i, c) in text.char_indices() {
                if counted == units {
                    return Some(i);
                }
                counted += c.len_utf16() as u64;
            }
            (counted == units).then_some(text.len())
        };
        let (from, to) = (
            byte(start["character"].as_u64()?)?,
            byte(end["character"].as_u64()?)?,
        );
        text.get(from..to)
    }
}

/// The string values keystrokes are typed into: an entry's `path`, and the
/// first of its `signals`.
const TYPED_IN: [&str; 2] = ["      \"path\": \"", "      \"signals\": [\""];
/// What is typed: ASCII, a path separator, and characters of two and four
/// UTF-8 bytes (the last two UTF-16 units).
const TYPED: [char; 10] = ['a', 'z', '-', '_', '.', '/', ' ', 'é', '路', '😀'];
const ENTRY_START: &str = "    {";

/// The byte range of the string content on `line`, when it is one we type in.
fn typed_content(line: &str) -> Option<std::ops::Range<usize>> {
    TYPED_IN.iter().find_map(|prefix| {
        let rest = line.strip_prefix(prefix)?;
        Some(prefix.len()..prefix.len() + rest.find('"').expect("a closing quote"))
    })
}

fn closes_entry(line: &str) -> bool {
    line == "    }," || line == "    }"
}

/// An open document as the editor keeps it.
struct Doc {
    uri: String,
    initial: String,
    text: Text,
    version: i64,
    /// Every change sent, in order: change `k` made version `k + 2`.
    log: Vec<Edit>,
    /// How many entries the text has (when it parses).
    entries: usize,
    /// The line whose entry's closing `}` was deleted, until it is typed again.
    broken: Option<usize>,
    /// An entry cut, waiting to be pasted.
    clipboard: Option<Vec<String>>,
    /// The string being typed in: its line, and the cursor in characters of its content.
    cursor: Option<(usize, usize)>,
}

impl Doc {
    fn new(name: &str, entries: usize, seed: u64, violation_every: usize) -> Doc {
        let initial =
            report_core::generate::generate_report(report_core::generate::GenerateOptions {
                entries,
                seed,
                violation_every,
            });
        Doc {
            uri: format!("{FOLDER}{}", percent_encoded(name)),
            text: Text::new(&initial),
            initial,
            version: 1,
            log: Vec::new(),
            entries,
            broken: None,
            clipboard: None,
            cursor: None,
        }
    }

    /// Makes `edit` to the copy and sends it as the next version.
    fn change(&mut self, editor: &mut Editor, edit: Edit) {
        let change = self.text.lsp_change(&edit);
        self.text.apply(&edit);
        self.log.push(edit);
        self.version += 1;
        editor.change(&self.uri, self.version, json!([change]));
    }

    /// The next keystroke: mostly a character typed or deleted in a string,
    /// now and then an entry's `}` deleted (and typed again a few
    /// keystrokes later), or an entry cut or pasted.
    /// What it was is returned too, for the tally.
    fn keystroke(&mut self, rng: &mut Rng) -> (&'static str, Edit) {
        if let Some(line) = self.broken {
            if rng.chance(30) {
                return ("`}` typed again", self.restore(line));
            }
        } else if rng.chance(2) {
            if let Some(edit) = self.break_entry(rng) {
                return ("`}` deleted", edit);
            }
        } else if rng.chance(1)
            && let Some(edit) = self.cut_or_paste(rng)
        {
            return ("entry cut or pasted", edit);
        }
        self.type_in_string(rng)
    }

    fn restore(&mut self, line: usize) -> Edit {
        self.broken = None;
        Edit::InLine {
            line,
            start: 4,
            end: 4,
            text: "}".into(),
        }
    }

    /// Deletes the `}` of the entry at or after the cursor.
    fn break_entry(&mut self, rng: &mut Rng) -> Option<Edit> {
        let from = self
            .cursor
            .map_or_else(|| rng.below(self.text.lines.len()), |(line, _)| line);
        let line = (from..self.text.lines.len()).find(|&i| closes_entry(&self.text.lines[i]))?;
        self.broken = Some(line);
        Some(Edit::InLine {
            line,
            start: 4,
            end: 5,
            text: String::new(),
        })
    }

    /// Cuts a whole entry (not the last), or pastes the one cut before another.
    fn cut_or_paste(&mut self, rng: &mut Rng) -> Option<Edit> {
        let lines = &self.text.lines;
        let from = rng.below(lines.len());
        let start = (0..=from).rev().find(|&i| lines[i] == ENTRY_START)?;
        let edit = match self.clipboard.take() {
            Some(entry) => {
                self.entries += 1;
                Edit::Lines {
                    at: start,
                    remove: 0,
                    insert: entry,
                }
            }
            None => {
                let close = (start..lines.len()).find(|&i| closes_entry(&lines[i]))?;
                if lines[close] != "    }," {
                    return None;
                }
                self.clipboard = Some(lines[start..=close].to_vec());
                self.entries -= 1;
                Edit::Lines {
                    at: start,
                    remove: close + 1 - start,
                    insert: Vec::new(),
                }
            }
        };
        self.cursor = None;
        Some(edit)
    }

    /// Types a character at the cursor, or deletes the one before it (after
    /// it at the start), mostly where the last keystroke was.
    fn type_in_string(&mut self, rng: &mut Rng) -> (&'static str, Edit) {
        let (line, col) = match self.cursor {
            Some(cursor) if rng.chance(85) => cursor,
            _ => self.jump(rng),
        };
        let range = typed_content(&self.text.lines[line]).expect("the cursor is in a string");
        let content = &self.text.lines[line][range.clone()];
        let starts: Vec<usize> = content.char_indices().map(|(i, _)| i).collect();
        let col = col.min(starts.len());
        let byte = |c: usize| range.start + starts.get(c).copied().unwrap_or(content.len());
        let (what, start, end, text, cursor) = if rng.chance(75) || starts.is_empty() {
            let typed = TYPED[rng.below(TYPED.len())].to_string();
            ("character typed", byte(col), byte(col), typed, col + 1)
        } else if col > 0 {
            (
                "character deleted",
                byte(col - 1),
                byte(col),
                String::new(),
                col - 1,
            )
        } else {
            ("character deleted", byte(0), byte(1), String::new(), 0)
        };
        self.cursor = Some((line, cursor));
        let edit = Edit::InLine {
            line,
            start,
            end,
            text,
        };
        (what, edit)
    }

    /// A string to type in, from a random line on, and a cursor in it.
    fn jump(&self, rng: &mut Rng) -> (usize, usize) {
        let lines = &self.text.lines;
        let from = rng.below(lines.len());
        let line = (from..lines.len())
            .chain(0..from)
            .find(|&i| typed_content(&lines[i]).is_some())
            .expect("a string to type in");
        let range = typed_content(&lines[line]).unwrap();
        let chars = lines[line][range].chars().count();
        (line, rng.below(chars + 1))
    }

    /// A position in the text: near the cursor or anywhere, at a character boundary.
    fn position(&self, rng: &mut Rng) -> (usize, usize) {
        let last = self.text.lines.len() - 1;
        let line = match self.cursor {
            Some((line, _)) if rng.chance(60) => (line + rng.below(7)).saturating_sub(3).min(last),
            _ => rng.below(last + 1),
        };
        let chars: Vec<char> = self.text.lines[line].chars().collect();
        let taken = rng.below(chars.len() + 1);
        (line, chars[..taken].iter().map(|c| c.len_utf16()).sum())
    }
}

/// A file name in a URI as RFC 3986 wants it: every byte but unreserved ones percent-encoded.
fn percent_encoded(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Hover,
    Symbols,
    Folding,
    CodeAction,
    Completion,
    InlayHint,
}

const KINDS: [Kind; 6] = [
    Kind::Hover,
    Kind::Symbols,
    Kind::Folding,
    Kind::CodeAction,
    Kind::Completion,
    Kind::InlayHint,
];

/// Lines an inlay hint request covers, as an editor's viewport.
const VIEWPORT_LINES: usize = 40;

impl Kind {
    fn method(self) -> &'static str {
        match self {
            Kind::Hover => "textDocument/hover",
            Kind::Symbols => "textDocument/documentSymbol",
            Kind::Folding => "textDocument/foldingRange",
            Kind::CodeAction => "textDocument/codeAction",
            Kind::Completion => "textDocument/completion",
            Kind::InlayHint => "textDocument/inlayHint",
        }
    }

    fn params(self, doc: &Doc, (line, character): (usize, usize)) -> Value {
        let document = json!({"uri": doc.uri});
        let position = json!({"line": line, "character": character});
        match self {
            Kind::Hover => json!({"textDocument": document, "position": position}),
            Kind::Symbols | Kind::Folding => json!({"textDocument": document}),
            Kind::CodeAction => json!({"textDocument": document,
                "range": {"start": position, "end": position},
                "context": {"diagnostics": [], "triggerKind": 2}}),
            Kind::Completion => json!({"textDocument": document, "position": position,
                "context": {"triggerKind": 1}}),
            Kind::InlayHint => {
                let end = (line + VIEWPORT_LINES).min(doc.text.lines.len() - 1);
                json!({"textDocument": document,
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": end, "character": 0}}})
            }
        }
    }
}

/// A request sent, and what was true of its document's text when it was.
struct Sent {
    id: i64,
    kind: Kind,
    doc: usize,
    version: i64,
    params: Value,
    cancelled: bool,
    /// The entries the text had, when it parsed (no `}` deleted).
    entries: Option<usize>,
}

/// What the server sent, as it is read.
#[derive(Default)]
struct Seen {
    answers: HashMap<i64, Value>,
    /// Answers to an id already answered.
    duplicates: Vec<Value>,
    /// The last diagnostics published per URI, with their version.
    published: HashMap<String, (Option<i64>, Vec<Value>)>,
    /// Requests of the server's (refreshes), answered as an editor does.
    server_requests: Vec<String>,
}

impl Seen {
    fn absorb(&mut self, editor: &mut Editor, message: Value) {
        if let Some(method) = message["method"].as_str() {
            if let Some(id) = message.get("id") {
                self.server_requests.push(method.to_string());
                editor.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
            } else if method == "textDocument/publishDiagnostics" {
                let params = &message["params"];
                let uri = params["uri"].as_str().unwrap().to_string();
                let version = params["version"].as_i64();
                // (Unversioned: the diagnostics cleared when it was closed.)
                if let (Some(version), Some((Some(last), _))) = (version, self.published.get(&uri))
                {
                    assert!(
                        version >= *last,
                        "diagnostics of {uri} went back from {last} to {version}"
                    );
                }
                let diagnostics = params["diagnostics"].as_array().unwrap().clone();
                self.published.insert(uri, (version, diagnostics));
            }
            return;
        }
        // Every other request's id went as a string (see `sent_id`).
        let id = match &message["id"] {
            Value::String(id) => id.parse().unwrap_or(-1),
            id => id.as_i64().unwrap_or(-1),
        };
        if id >= FIRST_ID {
            match self.answers.entry(id) {
                Entry::Occupied(_) => self.duplicates.push(message),
                Entry::Vacant(first) => {
                    first.insert(message);
                }
            }
        }
    }

    /// What `Editor::request` put aside while waiting for its answer.
    fn absorb_backlog(&mut self, editor: &mut Editor) {
        for message in std::mem::take(&mut editor.backlog) {
            self.absorb(editor, message);
        }
    }
}

/// The id request `id` goes with: a number, or for every other one a
/// string, as clients send either (the answer must carry it as it came).
fn sent_id(id: i64) -> Value {
    match id % 2 {
        0 => json!(id),
        _ => json!(id.to_string()),
    }
}

/// A client like VS Code: UTF-16, snippets, code actions resolved,
/// versioned edits, refreshes; it can pull diagnostics, but the setting
/// `pullDiagnostics: false` makes the server push them.
fn start_editor() -> Editor {
    let symbol_kinds: Vec<u32> = (1..=26).collect();
    let capabilities = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"didSave": true},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {"completionItem": {"snippetSupport": true}, "contextSupport": true},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true,
                "symbolKind": {"valueSet": symbol_kinds}},
            "foldingRange": {"rangeLimit": 5000, "lineFoldingOnly": true},
            "codeAction": {"dataSupport": true, "resolveSupport": {"properties": ["edit"]},
                "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source"]}}},
            "inlayHint": {},
            "diagnostic": {},
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true},
        },
        "workspace": {
            "workspaceEdit": {"documentChanges": true},
            "diagnostics": {"refreshSupport": true},
            "inlayHint": {"refreshSupport": true},
        },
    });
    Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capabilities,
        &[],
        json!({"pullDiagnostics": false}),
    )
}

/// The positions in `value` that are not inside `text` (or ranges that end
/// before they start), skipping what is said of other documents.
fn outside(value: &Value, uri: &str, text: &Text, version: i64, problems: &mut Vec<String>) {
    let line_ok = |line: u64| (line as usize) < text.lines.len();
    let character_ok =
        |line: u64, character: u64| character as usize <= utf16_len(&text.lines[line as usize]);
    match value {
        Value::Array(items) => {
            for item in items {
                outside(item, uri, text, version, problems);
            }
        }
        Value::Object(fields) => {
            if fields
                .get("uri")
                .and_then(Value::as_str)
                .is_some_and(|u| u != uri)
            {
                return;
            }
            if let (Some(line), Some(character)) = (
                fields.get("line").and_then(Value::as_u64),
                fields.get("character").and_then(Value::as_u64),
            ) && !(line_ok(line) && character_ok(line, character))
            {
                problems.push(format!("position {value} outside the text"));
            }
            if let (Some(start), Some(end)) = (
                fields.get("startLine").and_then(Value::as_u64),
                fields.get("endLine").and_then(Value::as_u64),
            ) && !(line_ok(start) && line_ok(end) && start <= end)
            {
                problems.push(format!("folding range {value} outside the text"));
            }
            if let (Some(start), Some(end)) = (fields.get("start"), fields.get("end")) {
                let at = |p: &Value| (p["line"].as_u64(), p["character"].as_u64());
                if at(start) > at(end) {
                    problems.push(format!("range {value} ends before it starts"));
                }
            }
            // An edit tied to a version is for the version the request was sent at.
            if let Some(edited) = fields
                .get("textDocument")
                .and_then(|d| d["version"].as_i64())
                && edited != version
            {
                problems.push(format!(
                    "edit for version {edited}, the request was sent at {version}: {value}"
                ));
            }
            for (key, field) in fields {
                if key.starts_with("file:") && key != uri {
                    continue;
                }
                outside(field, uri, text, version, problems);
            }
        }
        _ => {}
    }
}

/// The entries in the outline's `entries` symbol: under it their classes,
/// under those their subtypes, under those the entries (past the cap, a
/// notice beside the classes has no children).
fn entry_symbols(entries: &Value) -> Vec<&Value> {
    fn children(symbol: &Value) -> &[Value] {
        symbol["children"].as_array().map_or(&[], Vec::as_slice)
    }
    children(entries)
        .iter()
        .flat_map(children)
        .flat_map(children)
        .collect()
}

/// What is wrong with an answer's result, given the text it was sent against.
fn check_result(sent: &Sent, result: &Value, uri: &str, text: &Text) -> Vec<String> {
    let mut problems = Vec::new();
    outside(result, uri, text, sent.version, &mut problems);
    match sent.kind {
        Kind::InlayHint => {
            let (first, last) = (
                sent.params["range"]["start"]["line"].as_u64().unwrap(),
                sent.params["range"]["end"]["line"].as_u64().unwrap(),
            );
            for hint in result.as_array().into_iter().flatten() {
                let line = hint["position"]["line"].as_u64().unwrap_or(u64::MAX);
                if !(first..=last).contains(&line) {
                    problems.push(format!("hint outside lines {first}..={last}: {hint}"));
                }
            }
        }
        Kind::Completion => {
            // The protocol: an item's edit is on one line, around the position asked at.
            let position = &sent.params["position"];
            let at = |p: &Value| (p["line"].as_u64(), p["character"].as_u64());
            let items = match result {
                Value::Array(items) => items,
                list => list["items"].as_array().unwrap_or(const { &Vec::new() }),
            };
            for item in items {
                let edit = &item["textEdit"];
                let around = [&edit["range"], &edit["insert"], &edit["replace"]]
                    .into_iter()
                    .filter(|range| range.is_object())
                    .all(|range| {
                        let (start, end) = (&range["start"], &range["end"]);
                        start["line"] == end["line"]
                            && at(start) <= at(position)
                            && at(position) <= at(end)
                    });
                if around {
                    continue;
                }
                problems.push(format!(
                    "completion edit not on one line around the position: {item}"
                ));
            }
        }
        Kind::Symbols => {
            let Some(expected) = sent.entries else {
                return problems;
            };
            let top = result.as_array().map_or(&[][..], Vec::as_slice);
            let Some(entries) = top.iter().find(|s| s["name"] == "entries") else {
                problems.push("no `entries` symbol in the outline".into());
                return problems;
            };
            if entries["detail"] != format!("{expected} entries") {
                problems.push(format!(
                    "`entries` says {}, the text has {expected}",
                    entries["detail"]
                ));
            }
            let listed = entry_symbols(entries);
            if listed.len() != expected {
                problems.push(format!(
                    "{} entry symbols, the text has {expected} entries",
                    listed.len()
                ));
            }
            // Each entry is named by its path, and selects it: in the text
            // as it was, paths being typed in all the time.
            for symbol in listed {
                let selection = &symbol["selectionRange"];
                let selected = text.slice(&selection["start"], &selection["end"]);
                let name = symbol["name"].as_str().unwrap_or_default();
                match selected.and_then(|s| s.strip_prefix('"')?.strip_suffix('"')) {
                    Some(path) if name.starts_with(&format!("{path} — ")) => {}
                    _ => problems.push(format!(
                        "entry symbol {name:?} selects {selected:?} of the text it was sent against"
                    )),
                }
            }
        }
        _ => {}
    }
    problems
}

/// Diagnostics as compared: range, severity, code, message.
fn comparable(diagnostics: &[Value]) -> Vec<(Value, Value, Value, Value)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d["range"].clone(),
                d["severity"].clone(),
                d["code"].clone(),
                d["message"].clone(),
            )
        })
        .collect()
}

/// Waits for the next message, failing with `what` is missing rather than
/// the editor's bare timeout.
fn next_or_fail(editor: &mut Editor, limit: Duration, missing: impl FnOnce() -> String) -> Value {
    match catch_unwind(AssertUnwindSafe(|| editor.next_message_within(limit))) {
        Ok(message) => message,
        // Only the wait's own panic says nothing came; any other (a
        // violation of the protocol the editor found) is raised as it is.
        Err(panic) => match panic.downcast_ref::<String>() {
            Some(said) if said.starts_with("the server answers within") => {
                panic!("nothing from the server for {limit:?}; {}", missing())
            }
            _ => std::panic::resume_unwind(panic),
        },
    }
}

#[test]
fn a_thousand_requests_in_flight_among_three_thousand_keystrokes_are_all_answered() {
    let seed = std::env::var("STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    eprintln!("stress seed {seed} (STRESS_SEED={seed} replays it)");
    let began = Instant::now();
    let mut rng = Rng(seed | 1);
    let mut editor = start_editor();
    let start_rss = editor.memory_kb("VmRSS");

    // Twenty reports, one named in CJK and emoji, one with a space; some
    // with problems every few entries, so that there are fixes to offer.
    let mut docs: Vec<Doc> = SIZES
        .iter()
        .enumerate()
        .map(|(i, &entries)| {
            let name = match i {
                0 => "報告😀.report.json".to_string(),
                1 => "with space.report.json".to_string(),
                _ => format!("stress-{i:02}.report.json"),
            };
            let violation_every = [0, 7, 0, 23][i % 4];
            Doc::new(&name, entries, 27 + i as u64, violation_every)
        })
        .collect();
    for doc in &docs {
        editor.open(&doc.uri, &doc.initial, 1);
    }

    // The keystrokes, and among them the requests at random moments, each
    // sent right after the change before it, half cancelled at once.
    let mut sent: Vec<Sent> = Vec::new();
    let mut active = 0;
    let mut keystrokes: HashMap<&str, usize> = HashMap::new();
    for step in 0..KEYSTROKES {
        if rng.chance(3) {
            active = rng.below(docs.len());
        }
        let (what, edit) = docs[active].keystroke(&mut rng);
        *keystrokes.entry(what).or_insert(0) += 1;
        docs[active].change(&mut editor, edit);
        // Exactly REQUESTS of KEYSTROKES steps, each as likely (selection sampling).
        if rng.below(KEYSTROKES - step) >= REQUESTS - sent.len() {
            continue;
        }
        let doc = if rng.chance(70) {
            active
        } else {
            rng.below(docs.len())
        };
        let kind = KINDS[rng.below(KINDS.len())];
        let params = kind.params(&docs[doc], docs[doc].position(&mut rng));
        let id = FIRST_ID + sent.len() as i64;
        let still_to_cancel = CANCELLED - sent.iter().filter(|s| s.cancelled).count();
        let cancelled = rng.below(REQUESTS - sent.len()) < still_to_cancel;
        // As sloppy clients send them: `null` for what may be absent, and
        // a member the protocol does not have.
        let mut sloppy = params.clone();
        sloppy["workDoneToken"] = Value::Null;
        sloppy["x-client-extra"] = json!({"n": id});
        editor.send(
            json!({"jsonrpc": "2.0", "id": sent_id(id), "method": kind.method(), "params": sloppy}),
        );
        if cancelled {
            editor.notify("$/cancelRequest", json!({"id": sent_id(id)}));
        }
        sent.push(Sent {
            id,
            kind,
            doc,
            version: docs[doc].version,
            params,
            cancelled,
            entries: docs[doc].broken.is_none().then_some(docs[doc].entries),
        });
    }
    // The `}` still deleted are typed again, so that every text ends valid JSON.
    let mut restores = 0;
    for doc in &mut docs {
        if let Some(line) = doc.broken {
            let edit = doc.restore(line);
            doc.change(&mut editor, edit);
            restores += 1;
        }
    }
    let sent_in = began.elapsed();
    assert_eq!(sent.len(), REQUESTS);
    assert_eq!(sent.iter().filter(|s| s.cancelled).count(), CANCELLED);

    // Every answer, and the diagnostics of every document's last version.
    let mut seen = Seen::default();
    let settled = |seen: &Seen, docs: &[Doc]| {
        seen.answers.len() == REQUESTS
            && docs.iter().all(|d| {
                seen.published
                    .get(&d.uri)
                    .is_some_and(|p| p.0 == Some(d.version))
            })
    };
    while !settled(&seen, &docs) {
        let message = next_or_fail(&mut editor, Duration::from_secs(30), || {
            let missing: Vec<i64> = sent
                .iter()
                .map(|s| s.id)
                .filter(|id| !seen.answers.contains_key(id))
                .collect();
            let behind: Vec<String> = docs
                .iter()
                .filter(|d| seen.published.get(&d.uri).map(|p| p.0) != Some(Some(d.version)))
                .map(|d| format!("{} (at {})", d.uri, d.version))
                .collect();
            format!(
                "requests never answered: {missing:?}; documents without diagnostics for their last version: {behind:?}"
            )
        });
        seen.absorb(&mut editor, message);
    }
    let answered_in = began.elapsed();
    let peak_rss = editor.memory_kb("VmRSS");
    let peak_hwm = editor.memory_kb("VmHWM");
    // The server holds the twenty texts at least: else the peak was not one.
    let texts_kb = docs.iter().map(|d| d.initial.len() as u64).sum::<u64>() >> 10;
    assert!(
        peak_rss >= start_rss + texts_kb,
        "RSS {peak_rss} KiB with the reports open, {start_rss} KiB at the start, the texts {texts_kb} KiB"
    );

    // Each answer against the text its request was sent at: the documents'
    // changes replayed on copies of their first texts.
    let mut tally: HashMap<(Kind, &str), usize> = HashMap::new();
    let mut problems: Vec<String> = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        let mut text = Text::new(&doc.initial);
        let mut applied = 0;
        for request in sent.iter().filter(|s| s.doc == d) {
            while (applied as i64) + 1 < request.version {
                text.apply(&doc.log[applied]);
                applied += 1;
            }
            let answer = &seen.answers[&request.id];
            assert_eq!(answer["id"], sent_id(request.id), "the id as it was sent");
            let what = format!(
                "{} #{} at version {} (cancelled: {}), params {}: {answer}",
                request.kind.method(),
                request.id,
                request.version,
                request.cancelled,
                request.params,
            );
            if let Some(error) = answer.get("error") {
                if error["code"] == -32800 && request.cancelled {
                    *tally.entry((request.kind, "cancelled")).or_default() += 1;
                } else {
                    problems.push(format!("an error other than a cancellation: {what}"));
                }
                continue;
            }
            let Some(result) = answer.get("result") else {
                problems.push(format!("neither result nor error: {what}"));
                continue;
            };
            if result.is_null() {
                // The text changed again before the request was served: the
                // server answers nothing rather than for a stale text. For a
                // text that never changed again there is a result (only a
                // hover may be null: nothing under the position).
                if request.kind != Kind::Hover && request.version == doc.version {
                    problems.push(format!(
                        "null for a text the editor never changed again: {what}"
                    ));
                }
                *tally.entry((request.kind, "null")).or_default() += 1;
                continue;
            }
            *tally.entry((request.kind, "result")).or_default() += 1;
            for problem in check_result(request, result, &doc.uri, &text) {
                problems.push(format!("{problem}\n  in {what:.2000}"));
            }
        }
    }
    let mut tallied: Vec<_> = tally.iter().collect();
    tallied.sort();
    eprintln!("answers by kind: {tallied:?}");
    let mut keystrokes: Vec<_> = keystrokes.into_iter().collect();
    keystrokes.sort();
    let mut server_requests = seen.server_requests.clone();
    server_requests.sort();
    server_requests.dedup();
    eprintln!(
        "keystrokes: {keystrokes:?}, and {restores} `}}` typed again at the end; \
         {} requests of the server's answered ({server_requests:?})",
        seen.server_requests.len()
    );
    assert!(
        problems.is_empty(),
        "{} problems, the first:\n{}",
        problems.len(),
        problems[..problems.len().min(5)].join("\n")
    );
    assert!(
        seen.duplicates.is_empty(),
        "answered twice: {:?}",
        seen.duplicates
    );
    let checked_results: usize = tally
        .iter()
        .filter(|((_, how), _)| *how == "result")
        .map(|(_, n)| n)
        .sum();
    assert!(checked_results > 0, "no result was checked: {tallied:?}");

    // Afterwards the server serves the final texts correctly: a hover on a
    // tier's key shows that entry's derivation, the outline lists every
    // entry by its path, and the diagnostics last published are what a
    // fresh server finds.
    let mut most_edited: Vec<usize> = (0..docs.len()).collect();
    most_edited.sort_by_key(|&d| std::cmp::Reverse(docs[d].log.len()));
    let mut compared: Vec<usize> = vec![0];
    compared.extend(most_edited.iter().filter(|&&d| d != 0).take(2));
    for &d in &compared {
        let doc = &docs[d];
        let lines = &doc.text.lines;
        let near = doc.cursor.map_or(0, |(line, _)| line);
        let tier = (near..lines.len())
            .chain(0..near)
            .find(|&i| lines[i].starts_with("      \"safety_tier\": "))
            .unwrap();
        let start = (0..tier).rev().find(|&i| lines[i] == ENTRY_START).unwrap();
        let value = |key: &str| {
            let prefix = format!("      \"{key}\": ");
            let line = lines[start..tier]
                .iter()
                .find_map(|l| l.strip_prefix(&prefix));
            line.unwrap().trim_end_matches(',').to_string()
        };
        let expected = format!(
            "derive_safety_tier(op_type={}, is_destructive={}, is_reversible={}",
            value("op_type"),
            value("is_destructive"),
            value("is_reversible")
        );
        let hover = editor.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": doc.uri}, "position": {"line": tier, "character": 8}}),
        );
        let markdown = hover["result"]["contents"]["value"].as_str().unwrap_or("");
        assert!(markdown.contains(&expected), "{expected} in {hover}");
        let outline = editor.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": doc.uri}}),
        );
        let last = Sent {
            id: 0,
            kind: Kind::Symbols,
            doc: d,
            version: doc.version,
            params: Value::Null,
            cancelled: false,
            entries: Some(doc.entries),
        };
        let problems = check_result(&last, &outline["result"], &doc.uri, &doc.text);
        assert!(
            problems.is_empty(),
            "final outline of {}: {problems:?}",
            doc.uri
        );
    }
    seen.absorb_backlog(&mut editor);
    let mut fresh = start_editor();
    for &d in &compared {
        fresh.open(&docs[d].uri, &docs[d].text.joined(), 1);
    }
    for &d in &compared {
        let uri = &docs[d].uri;
        let (_, expected) = fresh.diagnostics(uri);
        let (_, last) = &seen.published[uri];
        assert_eq!(
            comparable(last),
            comparable(&expected),
            "diagnostics last published for {uri} (version {}) against a fresh server's",
            docs[d].version
        );
    }
    fresh.shutdown();

    // Memory: every document closed, what they took goes back to the system.
    for doc in &docs {
        editor.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": doc.uri}}),
        );
    }
    // Requests are answered after the notifications before them: once this
    // one is, the closes have been handled.
    let reply = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": docs[0].uri}, "position": {"line": 0, "character": 0}}),
    );
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not open")),
        "{reply}"
    );
    let closed = Instant::now();
    // Measured with the debug binary on a 2-core machine, over 20 runs: 22
    // MB after `initialize` (20 MB of it the binary's code pages), 73-82 MB
    // with the twenty reports open (some 50 MB of it heap), 35-42 MB once
    // they are closed, at once; it stays there, and four more cycles of
    // opening and closing all twenty end at the same figure. What stays
    // above the start is code run for the first time (2 MB) and what the
    // allocator's per-thread arenas keep, which `malloc_trim` cannot give
    // back (11-18 MB). So at least two fifths of what the documents added
    // must go back (a bound of 53-58 MB): a server that keeps the closed
    // documents, or most of what they took, fails; the margin, 11 MB at
    // the least seen, covers the arenas' spread on a loaded machine.
    let bound = start_rss + (peak_rss - start_rss) * 3 / 5;
    // The closes reach the analysis threads after the reply above, and each
    // gives its memory back when it handles them: the test waits for the
    // drop, not for a time. 60 s only ends a wait for a server that keeps
    // the memory; it is measured at once here (the figures above).
    let mut after_rss = editor.memory_kb("VmRSS");
    while after_rss > bound && closed.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(100));
        after_rss = editor.memory_kb("VmRSS");
    }
    eprintln!(
        "RSS: start {start_rss} KiB, peak {peak_rss} KiB (high-water mark {peak_hwm} KiB), \
         after closing {after_rss} KiB ({:?} after); sent in {sent_in:?}, answered in {answered_in:?}, \
         all in {:?}",
        closed.elapsed(),
        began.elapsed()
    );
    assert!(
        after_rss <= bound,
        "RSS after closing every document {after_rss} KiB, bound {bound} KiB (start {start_rss}, peak {peak_rss})"
    );
    seen.absorb_backlog(&mut editor);
    assert!(
        seen.duplicates.is_empty(),
        "answered twice: {:?}",
        seen.duplicates
    );
    // `shutdown` and `exit` with `{}`, as Emacs lsp-mode 8 sends them.
    editor.shutdown_with(json!({}));
}
