//! End-to-end latency of the real server, driven over stdio as an editor
//! does: time to the first diagnostics after didOpen, then one-character
//! incremental edits in the middle of the report, each timed from didChange
//! to the publishDiagnostics of its version; and the server's peak memory.
//!
//! `cargo bench --bench lsp_latency -- [ENTRIES...] [--violation-every N]`
//! (default 10000 entries, a valid report; with `--violation-every 5`, one
//! entry in five has a violation, 10 000 of them at 50 000 entries).
//! `REPORT_LSP_BENCH_BIN=path` drives that binary instead of this build's.

#[path = "../tests/common/editor.rs"]
mod editor;

use std::time::Instant;

use editor::Editor;
use report_core::generate::{GenerateOptions, generate_report};
use serde_json::{Value, json};

const EDITS: usize = 50;
const URI: &str = "file:///bench/huge.report.json";

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut sizes, mut violation_every) = (Vec::new(), 0);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--violation-every" => {
                violation_every = args.next().and_then(|n| n.parse().ok()).unwrap_or(0)
            }
            // cargo bench passes `--bench`; other flags are not ours.
            _ => sizes.extend(arg.parse::<usize>().ok()),
        }
    }
    let sizes = if sizes.is_empty() {
        vec![10_000]
    } else {
        sizes
    };
    for entries in sizes {
        run(entries, violation_every);
    }
}

fn run(entries: usize, violation_every: usize) {
    let text = generate_report(GenerateOptions {
        entries,
        seed: 1,
        violation_every,
    });
    // REPORT_LSP_BENCH_BIN times another build (a previous commit's) side by side.
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    let mut editor = Editor::start_with(&binary, &["utf-16"], &[], Value::Null);
    let started = Instant::now();
    editor.open(URI, &text, 1);
    let (_, diagnostics) = editor.diagnostics(URI);
    let first = started.elapsed();
    let peak_after_open_kb = peak_memory_kb(editor.pid());
    let published = diagnostics.len();
    assert_eq!(
        published == 0,
        violation_every == 0,
        "{published} diagnostics"
    );

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
                assert_eq!(diagnostics.len(), published);
                break;
            }
        }
        latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    // A burst: 20 keystrokes sent without waiting, timed from the last to
    // the publication of its version.
    let burst_start = start_column + EDITS;
    let mut version = 2 + EDITS as i64;
    let mut sent = Instant::now();
    for i in 0..20 {
        version += 1;
        let at = json!({"line": line, "character": burst_start + i});
        sent = Instant::now();
        editor.change(
            URI,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "y"}]),
        );
    }
    loop {
        let (v, _) = editor.diagnostics(URI);
        if v == Some(version) {
            break;
        }
    }
    let burst = sent.elapsed().as_secs_f64() * 1000.0;
    let peak_kb = peak_memory_kb(editor.pid());
    editor.shutdown();

    latencies.sort_by(|a, b| a.total_cmp(b));
    let median = latencies[latencies.len() / 2];
    let p95 = latencies[(latencies.len() * 95).div_ceil(100) - 1];
    println!(
        "lsp_latency entries={entries} size={:.1}MB published={published} first_diagnostics={:.1}ms keystroke_median={median:.1}ms keystroke_p95={p95:.1}ms burst_last_to_final={burst:.1}ms peak_rss_after_open={:.0}MB peak_rss={:.0}MB",
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
