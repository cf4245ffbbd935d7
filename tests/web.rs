//! The core as WebAssembly (`crates/report-wasm`), built by
//! `editors/web/build.sh` into `editors/web/dist` (or `REPORT_LSP_WEB_DIST`),
//! which `.ci/run` runs first: the module in Node against `check`
//! (`editors/web/test`), and the page in headless Chromium
//! (`editors/web/test-e2e/page.mjs`: opened from file://, the invalid
//! golden example's problems read back and compared with `check --format
//! json`, the trace, the summary and its links, paste and drop, and a
//! 50 000-entry report with 5 000 problems (past the page's cap of 1 000)
//! checked in its worker while the page answers; its screenshots are kept
//! in `target/tmp/web-e2e`). Skipped without the build locally, a failure
//! when `CI` is set.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The built page's folder, when it and what runs it are there.
fn dist() -> Option<PathBuf> {
    let dist = std::env::var_os("REPORT_LSP_WEB_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors/web/dist"));
    let built = ["report_wasm.wasm", "report-wasm.js", "index.html"]
        .iter()
        .all(|f| dist.join(f).is_file());
    let node = Command::new("node").arg("--version").output().is_ok();
    common::present(
        built && node,
        "the WebAssembly build (editors/web/build.sh) and node",
    )
    .then_some(dist)
}

fn run(mut command: Command, what: &str, limit: Duration) {
    let mut child = command.stdin(Stdio::null()).spawn().unwrap();
    let status = common::wait_bounded(&mut child, limit, what);
    assert!(status.success(), "{what} failed: {status}");
}

#[test]
fn the_module_in_node_answers_as_check_does() {
    let Some(dist) = dist() else { return };
    let mut node = Command::new("node");
    node.arg("--test")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors/web/test"))
        .env("REPORT_WASM", dist.join("report_wasm.wasm"))
        .env("REPORT_LSP_BIN", env!("CARGO_BIN_EXE_report-lsp"));
    run(node, "the module's tests in Node", Duration::from_secs(300));
}

#[test]
fn the_page_checks_reports_in_headless_chromium() {
    let Some(dist) = dist() else { return };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let playwright = root.join("editors/vscode/test-e2e/node_modules/playwright-core");
    let chromium = std::path::Path::new("/usr/bin/chromium");
    if !common::present(
        playwright.is_dir() && chromium.is_file(),
        "playwright-core (npm ci in editors/vscode/test-e2e) and Chromium",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let large = dir.path().join("large.report.json");
    let text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 50_000,
        seed: 7,
        violation_every: 10,
    });
    std::fs::write(&large, text).unwrap();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-e2e");
    let _ = std::fs::remove_dir_all(&shots);
    let mut node = Command::new("node");
    node.arg(root.join("editors/web/test-e2e/page.mjs"))
        .env("REPORT_WEB_DIST", &dist)
        .env("REPORT_WEB_LARGE", &large)
        .env("REPORT_WEB_SCREENSHOTS", &shots)
        .env("REPORT_LSP_BIN", env!("CARGO_BIN_EXE_report-lsp"));
    run(
        node,
        "the page's test in Chromium",
        Duration::from_secs(300),
    );
    for shot in [
        "web-page-invalid.png",
        "web-page-summary.png",
        "web-page-large.png",
    ] {
        let path = shots.join(shot);
        assert!(path.is_file(), "no screenshot {}", path.display());
        println!("screenshot: {}", path.display());
    }
}
