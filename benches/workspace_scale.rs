//! The workspace checks at scale: a generated report of N entries (default
//! 50 000) in a project of a file for every path it names (55 000 at
//! 50 000 entries), committed to git, driven over stdio as an editor does.
//! It times the first workspace pass (didOpen → the publication that
//! carries its result), keystroke → diagnostics while that pass runs and
//! after it, and a second pass (one named file changed on disk and
//! reported with didChangeWatchedFiles: everything else is cached by path,
//! size and mtime). For comparison it first times keystrokes on the same
//! report opened away from any project (no workspace pass at all), and
//! `textDocument/documentLink` over the whole report (first, again, right
//! after a keystroke).
//!
//! `cargo bench --bench workspace_scale -- [ENTRIES]`;
//! `REPORT_LSP_BENCH_BIN=path` drives another build.

#[path = "../tests/common/editor.rs"]
mod editor;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use editor::Editor;
use report_core::generate::{GenerateOptions, generate_report};
use serde_json::{Value, json};

const EDITS: usize = 40;
/// Every line holds `make install`, so each `replace-text` matches; every
/// file is the same, so each dedupe's span is found verbatim at its
/// `canonical_ref` and one sha256 fits every exact edit.
fn content() -> String {
    // 470 short lines (6 KB): the anchors reach line 460.
    "make install\n".repeat(470)
}

fn main() {
    let entries = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(50_000);
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let setup = Instant::now();
    let (text, missing, changed) = project(root, entries);
    println!(
        "workspace_scale entries={entries} files={} setup={:.1}s",
        count_files(root),
        setup.elapsed().as_secs_f64()
    );

    git_facts(root, &text);

    // Away from the project: no workspace pass.
    let away = text.replace(&root.display().to_string(), "/nowhere/at/all");
    let mut editor = start(&binary);
    let uri = "file:///bench/away.report.json";
    editor.open(uri, &away, 1);
    let mut pump = Pump::default();
    pump.until(&mut editor, uri, |_, _| true);
    let baseline = keystrokes(&mut editor, &mut pump, uri, &away, 2, EDITS).0;
    editor.shutdown();

    let report = root.join("huge.report.json");
    std::fs::write(&report, &text).unwrap();
    let uri = format!("file://{}", report.display());
    let mut editor = start(&binary);
    let opened = Instant::now();
    editor.open(&uri, &text, 1);
    let mut pump = Pump::default();
    pump.until(&mut editor, &uri, |_, _| true);
    let first_diagnostics = opened.elapsed();
    // Typing while the first pass runs (it ends with a path-missing for `missing`).
    let (during, after_pass) = keystrokes(&mut editor, &mut pump, &uri, &text, 2, EDITS);
    pump.until(&mut editor, &uri, |_, d| has(d, "path-missing"));
    let first_pass = pump.workspace_at.unwrap() - opened;
    let (_, idle) = keystrokes(&mut editor, &mut pump, &uri, &text, 2 + EDITS as i64, EDITS);
    let links = document_links(&mut editor, &uri, &text, 2 + 2 * EDITS as i64);

    // Second pass: the missing file appears; all else is cached.
    std::fs::write(root.join(&missing), content()).unwrap();
    let _ = changed;
    let sent = Instant::now();
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("file://{}", root.join(&missing).display()), "type": 1}]}),
    );
    pump.until(&mut editor, &uri, |_, d| !has(d, "path-missing"));
    let second_pass = sent.elapsed();
    let peak = editor.memory_kb("VmHWM");
    editor.shutdown();

    let stats = |l: &[f64]| {
        if l.is_empty() {
            return "none".to_string();
        }
        let mut l = l.to_vec();
        l.sort_by(|a, b| a.total_cmp(b));
        format!(
            "median={:.1}ms p95={:.1}ms n={}",
            l[l.len() / 2],
            l[(l.len() * 95).div_ceil(100) - 1],
            l.len()
        )
    };
    println!(
        "workspace_scale first_diagnostics={:.0}ms first_pass={:.1}s second_pass={:.2}s peak_rss={:.0}MB",
        first_diagnostics.as_secs_f64() * 1000.0,
        first_pass.as_secs_f64(),
        second_pass.as_secs_f64(),
        peak as f64 / 1024.0
    );
    println!(
        "workspace_scale documentLink: first={:.0}ms again={:.0}ms links={} response={:.1}MB",
        links.first,
        links.again,
        links.count,
        links.bytes as f64 / 1e6
    );
    println!(
        "workspace_scale documentLink sent with a keystroke (the edit analysed first): {}",
        stats(&links.after_edit)
    );
    println!(
        "workspace_scale keystroke sent right behind a documentLink request, to its diagnostics: {}",
        stats(&links.behind)
    );
    println!(
        "workspace_scale definition on an entry's path (its shortlist item and the file): {}",
        stats(&links.definition)
    );
    println!(
        "workspace_scale keystrokes away from the project: {}",
        stats(&baseline)
    );
    println!(
        "workspace_scale keystrokes during the first pass: {}",
        stats(&during)
    );
    println!(
        "workspace_scale keystrokes after it: {}",
        stats(&[after_pass, idle].concat())
    );
}

fn start(binary: &str) -> Editor {
    let editor = Editor::start_with_capabilities(
        binary,
        json!({"general": {"positionEncodings": ["utf-16"]}, "window": {"workDoneProgress": true}}),
        &[],
        // The generated raw_tokens are random: no hint for them here.
        json!({"reportLsp": {"tokenTolerance": 1e9}}),
    );
    // Timed here: no checking thread on the cores (the tests check the messages).
    editor.stop_checking();
    editor
}

fn has(diagnostics: &[Value], code: &str) -> bool {
    diagnostics.iter().any(|d| d["code"] == code)
}

/// Reads the server's messages: answers progress token requests, notes when
/// the workspace result (a path-missing) first shows.
#[derive(Default)]
struct Pump {
    workspace_at: Option<Instant>,
}

impl Pump {
    /// The next publication for `uri` that `done(version, diagnostics)` accepts.
    fn until(
        &mut self,
        editor: &mut Editor,
        uri: &str,
        done: impl Fn(Option<i64>, &[Value]) -> bool,
    ) -> (Option<i64>, Vec<Value>) {
        loop {
            let message = editor.next_message();
            if message["method"] == "window/workDoneProgress/create" {
                editor.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": null}));
                continue;
            }
            if message["method"] != "textDocument/publishDiagnostics"
                || message["params"]["uri"] != uri
            {
                continue;
            }
            let version = message["params"]["version"].as_i64();
            let diagnostics = message["params"]["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if self.workspace_at.is_none() && has(&diagnostics, "path-missing") {
                self.workspace_at = Some(Instant::now());
            }
            if done(version, &diagnostics) {
                return (version, diagnostics);
            }
        }
    }
}

/// `count` one-character edits inside a signals string near the middle,
/// from version `first`: the latencies while no workspace result had come,
/// and those after.
fn keystrokes(
    editor: &mut Editor,
    pump: &mut Pump,
    uri: &str,
    text: &str,
    first: i64,
    count: usize,
) -> (Vec<f64>, Vec<f64>) {
    let lines: Vec<&str> = text.lines().collect();
    let line = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].contains("\"signals\": [\""))
        .unwrap();
    let start_column = lines[line].find("[\"").unwrap() + 2;
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for i in 0..count {
        let version = first + i as i64;
        let at = json!({"line": line, "character": start_column + (version as usize - 2)});
        let pending = pump.workspace_at.is_none();
        let sent = Instant::now();
        editor.change(
            uri,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "x"}]),
        );
        pump.until(editor, uri, |v, _| v == Some(version));
        let ms = sent.elapsed().as_secs_f64() * 1000.0;
        if pending && pump.workspace_at.is_none() {
            before.push(ms);
        } else {
            after.push(ms);
        }
        // A typist's pace, so the pass is still running for most of them.
        std::thread::sleep(Duration::from_millis(20));
    }
    (before, after)
}

struct Links {
    first: f64,
    again: f64,
    count: usize,
    bytes: usize,
    after_edit: Vec<f64>,
    behind: Vec<f64>,
    definition: Vec<f64>,
}

/// `textDocument/documentLink` over the whole report: the first request
/// (every named file looked up), the same again, and each sent right after
/// a keystroke, as VS Code asks after every change (the edit is analysed
/// first). Edits from version `first` on continue those of [`keystrokes`].
fn document_links(editor: &mut Editor, uri: &str, text: &str, first: i64) -> Links {
    let request = |editor: &mut Editor| {
        let sent = Instant::now();
        let answer = editor.request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        );
        let ms = sent.elapsed().as_secs_f64() * 1000.0;
        let links = answer["result"].as_array().map_or(0, Vec::len);
        assert!(links > 0, "no document links: {}", answer.to_string().len());
        (ms, links, answer.to_string().len())
    };
    let (first_ms, count, bytes) = request(editor);
    let (again, _, _) = request(editor);
    let lines: Vec<&str> = text.lines().collect();
    let line = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].contains("\"signals\": [\""))
        .unwrap();
    let start_column = lines[line].find("[\"").unwrap() + 2;
    let mut after_edit = Vec::new();
    for i in 0..10 {
        let version = first + i;
        let at = json!({"line": line, "character": start_column + (version as usize - 2)});
        let sent = Instant::now();
        editor.change(
            uri,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "x"}]),
        );
        let (_, links, _) = request(editor);
        after_edit.push(sent.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(links, count);
        // Its publication, from the backlog.
        editor.next_matching(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        std::thread::sleep(Duration::from_millis(20));
    }
    // A keystroke right behind a links request: its diagnostics wait for
    // what the request does on the document's analysis thread.
    let mut behind = Vec::new();
    for i in 10..20 {
        let version = first + i;
        let at = json!({"line": line, "character": start_column + (version as usize - 2)});
        let id = 900_000 + i;
        editor.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/documentLink",
            "params": {"textDocument": {"uri": uri}}}),
        );
        let sent = Instant::now();
        editor.change(
            uri,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "x"}]),
        );
        editor.next_matching(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        behind.push(sent.elapsed().as_secs_f64() * 1000.0);
        editor.next_matching(|m| m["id"] == id);
        std::thread::sleep(Duration::from_millis(20));
    }
    // Definition on an entry's path: its shortlist item and the file.
    let path_line = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].trim_start().starts_with("\"path\": \""))
        .unwrap();
    let character = lines[path_line].find("\"path\": \"").unwrap() + 11;
    let mut definition = Vec::new();
    for _ in 0..20 {
        let sent = Instant::now();
        let answer = editor.request(
            "textDocument/definition",
            json!({"textDocument": {"uri": uri}, "position": {"line": path_line, "character": character}}),
        );
        definition.push(sent.elapsed().as_secs_f64() * 1000.0);
        let found = answer["result"].as_array().map_or(0, Vec::len);
        assert_eq!(found, 2, "the shortlist item and the file: {answer}");
    }
    Links {
        definition,
        behind,
        first: first_ms,
        again,
        count,
        bytes,
        after_edit,
    }
}

/// Writes a file for every path the report names, commits them, and
/// returns the report (rooted there) with its sha256s and freshness made
/// true, one named file left out (the pass's result shows as its
/// path-missing) and a second path for later.
fn project(root: &Path, entries: usize) -> (String, String, String) {
    let text = generate_report(GenerateOptions {
        entries,
        seed: 1,
        violation_every: 0,
    });
    let content = content();
    let sha = {
        use sha2::Digest;
        sha2::Sha256::digest(content.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let value: Value = serde_json::from_str(&text).unwrap();
    let mut paths: Vec<String> = Vec::new();
    for item in value["shortlist"].as_array().unwrap() {
        paths.extend(
            item.as_str()
                .or_else(|| item["path"].as_str())
                .map(str::to_string),
        );
    }
    paths.push("docs/overview.md".into());
    for path in &paths {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, &content).unwrap();
    }
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .arg("-C")
            .arg(root)
            .args([
                "-c",
                "user.name=b",
                "-c",
                "user.email=b@b",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "tree"]);
    let missing = paths[paths.len() / 2].clone();
    std::fs::remove_file(root.join(&missing)).unwrap();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let key = "\"expected_sha256\": \"";
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = &rest[at + key.len()..];
        let end = rest.find('"').unwrap();
        out.push_str(&sha);
        rest = &rest[end..];
    }
    out.push_str(rest);
    let out = out
        .replace("/home/dev/monorepo", &root.display().to_string())
        .replace("2026-11-29T18:42:07Z", "2099-01-01T00:00:00Z");
    let changed = paths[paths.len() / 3].clone();
    (out, missing, changed)
}

/// git's facts alone, in one run: the in-process reader (issue 24) over the
/// report's lifecycle paths, first and with its history cached, beside what
/// the workspace pass ran before it, the git binary's `ls-files` and
/// `status` of the whole tree and one `log -1` per delete (up to 200).
fn git_facts(root: &Path, text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    let paths: Vec<String> = value["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            matches!(
                e["exact_edit"]["kind"].as_str(),
                Some("delete" | "extract-then-delete")
            )
        })
        .filter_map(|e| e["path"].as_str().map(str::to_string))
        .collect();
    let mut history = report_lsp::project::git::GitCache::default();
    let started = Instant::now();
    let read = report_lsp::project::git::read(root, paths.clone(), &mut history).unwrap();
    let first = started.elapsed();
    let started = Instant::now();
    report_lsp::project::git::read(root, paths.clone(), &mut history).unwrap();
    let again = started.elapsed();
    assert_eq!(read.facts.paths.len(), paths.len());
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "core.fsmonitor=false", "-c", "core.quotepath=off"])
            .args(args)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    let started = Instant::now();
    git(&["ls-files", "-z"]);
    git(&["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
    let tree = started.elapsed();
    let started = Instant::now();
    for path in paths.iter().take(200) {
        git(&["log", "-1", "--format=%h %s (%as)", "--", path]);
    }
    let logs = started.elapsed();
    println!(
        "workspace_scale git facts of {} lifecycle paths: in-process first={:.0}ms again={:.0}ms; the git binary as before: ls-files+status={:.0}ms, then {} log -1={:.0}ms",
        paths.len(),
        first.as_secs_f64() * 1e3,
        again.as_secs_f64() * 1e3,
        tree.as_secs_f64() * 1e3,
        paths.len().min(200),
        logs.as_secs_f64() * 1e3,
    );
}

fn count_files(root: &Path) -> usize {
    fn walk(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| {
                let path = e.path();
                if e.file_name() == ".git" {
                    0
                } else if path.is_dir() {
                    walk(&path)
                } else {
                    1
                }
            })
            .sum()
    }
    walk(root)
}
