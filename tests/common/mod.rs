//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

pub mod editor;
pub mod project;
pub mod reports;
pub mod tree;
pub mod views;

use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use report_core::Analysis;
use report_core::text::{Encoding, TextRange};

/// A file URI as RFC 3986 wants it: every byte but unreserved ones and `/` percent-encoded.
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_str().unwrap().bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

/// The binary with `args` in `dir`, with no colour forced either way by the environment.
pub fn report_lsp(args: &[&str], dir: &Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap()
}

pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/golden")
}

/// Whether what a test needs (a real editor, a terminal, installed data)
/// is there. Missing, it skips the test locally and fails it when `CI` is
/// set (`.ci/run` sets it): a green CI run must mean every test really ran.
/// Every early return of a test for want of something goes through here.
pub fn present(found: bool, what: &str) -> bool {
    if !found {
        if std::env::var_os("CI").is_some() {
            panic!("{what} is required in CI (.ci/run installs it)");
        }
        eprintln!("skipping: {what} is not there");
    }
    found
}

/// `PATH` with a folder under `dir` first that holds the server as
/// `report-lsp`, as an installed one is found by an editor whose setup
/// names no path.
pub fn path_with_server(dir: &Path) -> std::ffi::OsString {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_report-lsp"), bin.join("report-lsp")).unwrap();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap()
}

/// Waits for an editor a test started, killing it after `limit`.
pub fn wait_bounded(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{what} did not finish within {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs an editor's test script (`command`, every output of it dropped),
/// at most 90 s, and returns what it wrote to `out`. The script quits with
/// 0 once it wrote what it saw: anything else is the editor failing (a
/// Lisp or Lua error, a crash on the way out).
pub fn run_editor(
    command: &mut std::process::Command,
    out: &Path,
    what: &str,
) -> serde_json::Value {
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(90), what);
    assert!(status.success(), "{what} exited with {status}");
    observations(out, what)
}

/// What an editor's test script wrote to `path` (a JSON object), once it
/// is known to hold no `error`.
pub fn observations(path: &Path, what: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{what} wrote no observations to {}: {e}", path.display()));
    let observed: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        observed.get("error").is_none(),
        "{what} failed: {}",
        observed["error"]
    );
    observed
}

/// Where each diagnostic the core finds in `text` starts, as an editor shows
/// it: 0-based line, UTF-16 column, code; in order.
pub fn diagnostic_starts(text: &str) -> Vec<(u32, u32, &'static str)> {
    let analysis = report_core::analyze(text);
    analysis
        .diagnostics
        .iter()
        .map(|d| {
            let p = analysis
                .line_index()
                .line_col(text, d.range.start, Encoding::Utf16);
            (p.line, p.col, d.code.as_str())
        })
        .collect()
}

/// The invalid examples, in name order.
pub fn invalid_examples() -> Vec<PathBuf> {
    examples_in("invalid")
}

/// The small valid examples of readings, in name order (besides `valid.report.json`).
pub fn valid_examples() -> Vec<PathBuf> {
    examples_in("valid")
}

fn examples_in(folder: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(golden_dir().join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
}

/// Diagnostics as snapshot lines: `LINE:COL-LINE:COL severity[code] message`,
/// 1-based lines and UTF-16 columns, with related places indented below.
pub fn render_diagnostics(text: &str, analysis: &Analysis) -> String {
    let at = |range: TextRange| {
        let start = analysis
            .line_index()
            .line_col(text, range.start, Encoding::Utf16);
        let end = analysis
            .line_index()
            .line_col(text, range.end, Encoding::Utf16);
        format!(
            "{}:{}-{}:{}",
            start.line + 1,
            start.col + 1,
            end.line + 1,
            end.col + 1
        )
    };
    let mut out = String::new();
    for d in &analysis.diagnostics {
        out.push_str(&format!(
            "{} {}[{}] {}\n",
            at(d.range),
            d.severity.as_str(),
            d.code,
            d.message
        ));
        for related in &d.related {
            out.push_str(&format!(
                "    related {}: {}\n",
                at(related.range),
                related.message
            ));
        }
        if let Some(fix) = &d.fix {
            out.push_str(&format!("    fix: {}\n", fix.title));
        }
    }
    out
}

/// Applies LSP edits (UTF-16 positions) to `text`, last first.
pub fn apply_lsp_edits(text: &str, edits: &[serde_json::Value]) -> String {
    let offset = |p: &serde_json::Value| {
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

/// The LSP position (UTF-16 columns) of byte `offset` in `text`.
pub fn lsp_position(text: &str, offset: usize) -> serde_json::Value {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..line_start].matches('\n').count();
    let character: usize = text[line_start..offset].chars().map(char::len_utf16).sum();
    serde_json::json!({"line": line, "character": character})
}
