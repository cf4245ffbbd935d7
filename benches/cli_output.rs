//! How long `report-lsp check` takes to print thousands of problems, by
//! format, on a pretty-printed report, the same report on one line, and ten
//! thousand duplicate keys on one line of 240 KB: one-line reports must not
//! cost more than pretty ones (a long line's window, its column found once).
//!
//! `cargo bench --bench cli_output` (`REPORT_LSP_BENCH_BIN=path` times
//! another build). Prints the median of 5 runs of each.

#[path = "../tests/common/reports.rs"]
mod reports;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("pretty", reports::many_errors_report(3_000, false)),
        ("one_line", reports::many_errors_report(3_000, true)),
        ("duplicate_keys", reports::duplicate_keys_report(10_000)),
    ];
    for (name, text) in &files {
        std::fs::write(dir.path().join(format!("{name}.report.json")), text).unwrap();
    }
    for (name, _) in &files {
        let [human, json] =
            ["human", "json"].map(|format| median(&binary, dir.path(), name, format));
        println!(
            "cli_output report={name} human={human:.1}ms json={json:.1}ms human_over_json={:.2}",
            human / json
        );
    }
}

/// The median milliseconds of 5 checks of `name` in `format`, written to a file.
fn median(binary: &str, dir: &Path, name: &str, format: &str) -> f64 {
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let out = std::fs::File::create(dir.join("out.txt")).unwrap();
            let started = Instant::now();
            let status = Command::new(binary)
                .current_dir(dir)
                .args(["check", "--color", "never", "--format", format])
                .arg(format!("{name}.report.json"))
                .stdout(out)
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert_eq!(status.code(), Some(1), "{name} is invalid");
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}
