//! End-to-end latency of the real server, driven over stdio as an editor
//! does: time to the first diagnostics after didOpen, then one-character
//! incremental edits in the middle of the report, each timed from didChange
//! to the publishDiagnostics of its version; and the server's peak memory.
//!
//! `cargo bench --bench lsp_latency -- [ENTRIES...]` (default 10000).

#[path = "../tests/common/editor.rs"]
mod editor;

use std::time::Instant;

use editor::Editor;
use report_lsp::generate::{GenerateOptions, generate_report};
use serde_json::{Value, json};

const EDITS: usize = 50;
const URI: &str = "file:///bench/huge.report.json";

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000]
    } else {
        sizes
    };
    for entries in sizes {
        run(entries);
    }
}

fn run(entries: usize) {
    let text = generate_report(GenerateOptions {
        entries,
        seed: 1,
        violation_every: 0,
    });
    let mut editor = Editor::start_with(
        env!("CARGO_BIN_EXE_report-lsp"),
        &["utf-16"],
        &[],
        Value::Null,
    );
    let started = Instant::now();
    editor.open(URI, &text, 1);
    let (_, diagnostics) = editor.diagnostics(URI);
    let first = started.elapsed();
    let peak_after_open_kb = peak_memory_kb(editor.pid());
    assert!(diagnostics.is_empty(), "the generated report is valid");

    // A signals string near the middle: typing inside it keeps the report valid.
    let lines: Vec<&str> = text.lines().collect();
    let line = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].contains("\"signals\": [\""))
        .unwrap();
    let start_column = lines[line].find("[\"").unwrap() + 2;
    let mut latencies = Vec::with_capacity(EDITS);
    for i in 0..EDITS {
        let version = 2 + i as i64;
        let column = start_column + i;
        let at = json!({"line": line, "character": column});
        let sent = Instant::now();
        editor.change(
            URI,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "x"}]),
        );
        loop {
            let (v, diagnostics) = editor.diagnostics(URI);
            if v == Some(version) {
                assert!(diagnostics.is_empty());
                break;
            }
        }
        latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    let peak_kb = peak_memory_kb(editor.pid());
    editor.shutdown();

    latencies.sort_by(|a, b| a.total_cmp(b));
    let median = latencies[latencies.len() / 2];
    let p95 = latencies[(latencies.len() * 95).div_ceil(100) - 1];
    println!(
        "lsp_latency entries={entries} size={:.1}MB first_diagnostics={:.1}ms keystroke_median={median:.1}ms keystroke_p95={p95:.1}ms peak_rss_after_open={:.0}MB peak_rss={:.0}MB",
        text.len() as f64 / 1e6,
        first.as_secs_f64() * 1000.0,
        peak_after_open_kb as f64 / 1024.0,
        peak_kb as f64 / 1024.0
    );
}

/// `VmHWM` of a process: its peak resident memory, in KiB (0 where /proc has none).
fn peak_memory_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
