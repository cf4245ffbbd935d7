//! Reports found, not only opened: the first search of a workspace folder
//! and its answer to `workspace/diagnostic`, driven over stdio as VS Code
//! drives it (the pull sent right after `initialized`, waiting for the
//! search), then a second pull with the result ids of the first (nothing
//! changed: every report `unchanged`), and `workspace/symbol`. Three loads:
//! 200 reports of 250 entries, one report of 50 000 entries, and the 200
//! again with a project file (`report-lsp.toml`, severities) in each
//! report's folder, the most files to look up and lay under. The floor
//! is `report-lsp check DIR` of the same folder in the same run (the same
//! reading and analysis, on every core, plus its printing).
//!
//! `cargo bench --bench found_reports`; `REPORT_LSP_BENCH_BIN=path` drives another build.

#[path = "../tests/common/editor.rs"]
mod editor;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use editor::Editor;
use report_core::generate::{GenerateOptions, generate_report};
use serde_json::{Value, json};

const RUNS: usize = 3;

fn main() {
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    for (reports, entries, project_files) in
        [(200, 250, false), (1, 50_000, false), (200, 250, true)]
    {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = 0;
        for i in 0..reports {
            let text = generate_report(GenerateOptions {
                entries,
                seed: i as u64,
                violation_every: 50,
            });
            bytes += text.len();
            let folder = dir.path().join(format!("project-{i:03}"));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join("hygiene.report.json"), text).unwrap();
            if project_files {
                std::fs::write(
                    folder.join("report-lsp.toml"),
                    "token-tolerance = 0.2\n\n[severity]\ninvariant-13 = \"warning\"\nunknown-field = \"hint\"\n",
                )
                .unwrap();
            }
        }
        println!(
            "found_reports reports={reports} entries={entries} bytes={:.1} MB project_files={}",
            bytes as f64 / 1e6,
            if project_files { reports } else { 0 }
        );
        let mut firsts = Vec::new();
        let mut agains = Vec::new();
        let mut symbols = Vec::new();
        let mut floors = Vec::new();
        for _ in 0..RUNS {
            floors.push(check_dir(&binary, dir.path()));
            let (first, again, symbol) = pulls(&binary, dir.path(), reports);
            firsts.push(first);
            agains.push(again);
            symbols.push(symbol);
        }
        println!(
            "  first workspace/diagnostic (initialize → answer): {}",
            median(&mut firsts)
        );
        println!(
            "  second pull, all unchanged:                      {}",
            median(&mut agains)
        );
        println!(
            "  workspace/symbol \"note-1\":                       {}",
            median(&mut symbols)
        );
        println!(
            "  floor, report-lsp check DIR:                     {}",
            median(&mut floors)
        );
    }
}

fn median(times: &mut [Duration]) -> String {
    times.sort();
    let all: Vec<String> = times
        .iter()
        .map(|t| format!("{:.1}", t.as_secs_f64() * 1e3))
        .collect();
    format!(
        "median {:.1} ms (runs: {} ms)",
        times[times.len() / 2].as_secs_f64() * 1e3,
        all.join(", ")
    )
}

fn check_dir(binary: &str, dir: &Path) -> Duration {
    let started = Instant::now();
    let status = Command::new(binary)
        .args(["check", "--format", "json"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.code().is_some());
    started.elapsed()
}

/// The first pull (from `initialize`), the second, and one symbol query.
fn pulls(binary: &str, dir: &Path, reports: usize) -> (Duration, Duration, Duration) {
    let started = Instant::now();
    let capabilities = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}},
    });
    let mut editor = Editor::start_in_folders_binary(binary, capabilities, &[dir], Value::Null);
    editor.stop_checking();
    let reply = editor.request(
        "workspace/diagnostic",
        json!({"identifier": "report-lsp", "previousResultIds": []}),
    );
    let first = started.elapsed();
    let items = reply["result"]["items"].as_array().unwrap();
    assert_eq!(items.len(), reports);
    let previous: Vec<Value> = items
        .iter()
        .map(|i| json!({"uri": i["uri"], "value": i["resultId"]}))
        .collect();
    let again_started = Instant::now();
    let reply = editor.request(
        "workspace/diagnostic",
        json!({"identifier": "report-lsp", "previousResultIds": previous}),
    );
    let again = again_started.elapsed();
    assert!(
        reply["result"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["kind"] == "unchanged")
    );
    let symbol_started = Instant::now();
    let reply = editor.request("workspace/symbol", json!({"query": "note-1"}));
    let symbol = symbol_started.elapsed();
    assert!(!reply["result"].as_array().unwrap().is_empty());
    editor.shutdown();
    (first, again, symbol)
}
