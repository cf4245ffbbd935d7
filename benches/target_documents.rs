//! The documents a report names, at scale: a generated report of N entries
//! (50 000 by default) open in the server, and the Markdown file one entry
//! names. Timed over stdio as an editor drives it: the target's first code
//! lenses (the open through the answer, which builds the report's index),
//! the lenses asked again, a keystroke in the target to its hints, a
//! document no entry names, and the report's recheck a target keystroke
//! starts (with the editor's text). Each after the report's first
//! workspace pass. The floor, in the same run and server: a keystroke in
//! the report to its publication.
//!
//! `cargo bench --bench target_documents [ENTRIES...]`;
//! `REPORT_LSP_BENCH_BIN=path` drives another build (one without target
//! documents shows no lenses: its line says so).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::editor::{Editor, capable_client_with};
use common::file_uri;
use common::project::sha256;
use report_core::generate::{GenerateOptions, generate_report};
use serde_json::{Value, json};

const REPS: usize = 10;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![50_000]
    } else {
        sizes
    };
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    for entries in sizes {
        run(&binary, entries);
    }
}

fn run(binary: &str, entries: usize) {
    let text = generate_report(GenerateOptions {
        entries,
        seed: 1,
        violation_every: 0,
    })
    .replace(
        "\"project_root\": \"/home/dev/monorepo\"",
        "\"project_root\": \".\"",
    );
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("hygiene.report.json");
    // The file an entry near the middle names (one with an exact edit,
    // made for the text written here), and one no entry names.
    let body: String = (1..=200)
        .map(|i| format!("line {i} of the note\n"))
        .collect();
    let (named, text) = name_a_target(&text, entries / 2, &sha256(&body));
    std::fs::write(&report_path, &text).unwrap();
    let target_path = dir.path().join(&named);
    std::fs::create_dir_all(target_path.parent().unwrap()).unwrap();
    std::fs::write(&target_path, &body).unwrap();
    let unnamed_path = dir.path().join("docs/unnamed.md");
    std::fs::write(&unnamed_path, &body).unwrap();
    let (report, target, unnamed) = (
        file_uri(&report_path),
        file_uri(&target_path),
        file_uri(&unnamed_path),
    );

    let capabilities = capable_client_with(json!({
        "window": {"showDocument": {"support": true}},
        "textDocument": {"publishDiagnostics": {"tagSupport": {"valueSet": [1, 2]}}},
    }));
    let mut editor =
        Editor::start_in_folders_binary(binary, capabilities, &[dir.path()], Value::Null);
    editor.open(&report, &text, 1);
    // Timed after the report's first workspace pass, which reads the
    // project (every other file it names is missing here).
    let first_pass = Instant::now();
    while !editor
        .diagnostics(&report)
        .1
        .iter()
        .any(|d| d["code"] == "path-missing")
    {
        assert!(
            first_pass.elapsed() < Duration::from_secs(300),
            "no workspace pass"
        );
    }

    // The floor: a keystroke in a signals string of the report, to its publication.
    let lines: Vec<&str> = text.lines().collect();
    let line = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].contains("\"signals\": [\""))
        .unwrap();
    let column = lines[line].find("[\"").unwrap() + 2;
    let mut version = 1;
    let mut floor = Vec::new();
    for i in 0..REPS {
        version += 1;
        let at = json!({"line": line, "character": column + i});
        let sent = Instant::now();
        editor.change(
            &report,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "x"}]),
        );
        while editor.diagnostics(&report).0 != Some(version) {}
        floor.push(ms(sent));
    }

    // The target opened: its lenses, the first answer building the index.
    let sent = Instant::now();
    editor.open_as(&target, "markdown", &body, 1);
    let mut first_lens = None;
    while sent.elapsed() < Duration::from_secs(10) {
        if !lenses(&mut editor, &target).is_empty() {
            first_lens = Some(ms(sent));
            break;
        }
    }
    let Some(first_lens) = first_lens else {
        println!(
            "target_documents entries={entries} lenses=none (this build shows no target documents) report_keystroke_median={:.2}ms",
            median(floor)
        );
        editor.shutdown();
        return;
    };
    let again: Vec<f64> = (0..REPS)
        .map(|_| {
            let sent = Instant::now();
            assert!(!lenses(&mut editor, &target).is_empty());
            ms(sent)
        })
        .collect();

    // A keystroke in the target, to its hints; the report's recheck after
    // it: typed and deleted in turn, so that the entry goes stale and back
    // and each recheck publishes.
    let mut target_version = 1;
    let mut hints = Vec::new();
    let mut rechecks = Vec::new();
    for i in 0..REPS {
        target_version += 1;
        let (start, end) = (
            json!({"line": 0, "character": 0}),
            json!({"line": 0, "character": i % 2}),
        );
        let typed = if i % 2 == 0 { "y" } else { "" };
        let sent = Instant::now();
        editor.change(
            &target,
            target_version,
            json!([{"range": {"start": start, "end": end}, "text": typed}]),
        );
        while editor.diagnostics(&target).0 != Some(target_version) {}
        hints.push(ms(sent));
        // The workspace pass the keystroke started ends in a publication of the report.
        let _ = editor.diagnostics(&report);
        rechecks.push(ms(sent));
    }

    // A document no entry names: asked, it answers nothing.
    editor.open_as(&unnamed, "markdown", &body, 1);
    let nothing: Vec<f64> = (0..REPS)
        .map(|_| {
            let sent = Instant::now();
            assert!(lenses(&mut editor, &unnamed).is_empty());
            ms(sent)
        })
        .collect();
    editor.shutdown();
    println!(
        "target_documents entries={entries} size={:.1}MB first_lenses={first_lens:.1}ms lenses_again_median={:.2}ms target_keystroke_to_hints_median={:.2}ms target_keystroke_to_report_recheck_median={:.1}ms unnamed_lenses_median={:.2}ms report_keystroke_median={:.2}ms (floor)",
        text.len() as f64 / 1e6,
        median(again),
        median(hints),
        median(rechecks),
        median(nothing),
        median(floor),
    );
}

/// The path of the first entry from `from` on with an `expected_sha256`,
/// and the text with that entry's sha256 set to `sha`.
fn name_a_target(text: &str, from: usize, sha: &str) -> (String, String) {
    let starts: Vec<usize> = text
        .match_indices("\"path\": \"docs/area-")
        .map(|(at, _)| at)
        .collect();
    for (i, &at) in starts.iter().enumerate().skip(from) {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let entry = &text[at..end];
        let Some(key) = entry.find("\"expected_sha256\": \"") else {
            continue;
        };
        let path = &entry[9..];
        let path = path[..path.find('"').unwrap()].to_string();
        let value = at + key + "\"expected_sha256\": \"".len();
        let mut text = text.to_string();
        text.replace_range(value..value + 64, sha);
        return (path, text);
    }
    panic!("no entry with an exact edit after entries[{from}]");
}

fn lenses(editor: &mut Editor, uri: &str) -> Vec<Value> {
    let reply = editor.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    reply["result"].as_array().cloned().unwrap_or_default()
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}
