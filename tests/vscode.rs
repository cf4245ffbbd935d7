//! The packaged VS Code extension in a real VS Code (code-server, driven
//! through headless Chromium by `editors/vscode/test-e2e/e2e.js`): the
//! Problems panel lists what the core finds, at the same lines, and nothing
//! from VS Code's JSON server; the hover shows the tier trace; the quick fix
//! from Ctrl+. applies and its problem goes away; the diagnostics came
//! through pulls (the server's status: pull mode, pulls counted, no push;
//! VS Code's message trace: its `textDocument/diagnostic` requests, answers
//! carrying the problems, no `publishDiagnostics`); a missing server (from the
//! start, or set while it runs) gives one message naming `reportLsp.path`,
//! and the JSON server then lists the problems of the contributed schema.
//! "Report summary" shows the numbers of `report-lsp summary` in a webview
//! (from the Explorer, for a report read from disk), its entry link moves
//! the cursor to the entry, and an edit shows in it.
//! Needs `REPORT_LSP_CODE_SERVER` (the code-server binary) and the packaged
//! `editors/vscode/report-lsp-linux-x64.vsix` (or `REPORT_LSP_VSIX`), which `.ci/run`
//! provides; skipped without them locally, a failure when `CI` is set. The
//! universal package (`report-lsp-universal.vsix`, or
//! `REPORT_LSP_UNIVERSAL_VSIX`: no server inside) runs `report-lsp` from
//! PATH, and says how to install one when there is none. Its browser entry
//! (VS Code for the Web) runs in code-server's browser extension host with
//! the core as WebAssembly (`web.js`), and its server in a web worker of
//! headless Chromium (`web-worker.js`).

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// One code-server at a time: two beside a build on two cores made both slow.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The code-server binary, when it and everything else a code-server test
/// needs (the package `vsix`, playwright-core, Chromium) are there.
fn code_server_with(vsix: &std::path::Path) -> Option<PathBuf> {
    let vscode = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    let code_server = std::env::var_os("REPORT_LSP_CODE_SERVER").map(PathBuf::from);
    let playwright = vscode.join("test-e2e/node_modules/playwright-core");
    let missing: Vec<String> = [
        (
            code_server.as_ref().is_some_and(|p| p.is_file()),
            "REPORT_LSP_CODE_SERVER",
        ),
        (vsix.is_file(), "the packaged .vsix (npm run package)"),
        (
            playwright.is_dir(),
            "playwright-core (npm ci in editors/vscode/test-e2e)",
        ),
        (
            PathBuf::from("/usr/bin/chromium").is_file(),
            "Debian's chromium",
        ),
    ]
    .iter()
    .filter(|(found, _)| !found)
    .map(|(_, what)| what.to_string())
    .collect();
    common::present(missing.is_empty(), &missing.join(", ")).then(|| code_server.unwrap())
}

/// What Problems must list for `text`: the core's diagnostics, 1-based lines, in order.
fn problems_of(text: &str) -> Vec<serde_json::Value> {
    common::diagnostic_starts(text)
        .into_iter()
        .map(|(line, _, code)| serde_json::json!({"line": line + 1, "code": code}))
        .collect()
}

/// Runs `editors/vscode/test-e2e/SCRIPT` with `envs` (and its screenshots
/// folder, `target/tmp/SHOTS`, kept as evidence), and asserts it passed and
/// took each of `screenshots`.
fn run_e2e(script: &str, shots: &str, envs: &[(&str, std::ffi::OsString)], screenshots: &[&str]) {
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(shots);
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).unwrap();
    let mut child = Command::new("node")
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("editors/vscode/test-e2e")
                .join(script),
        )
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .env("REPORT_LSP_SCREENSHOTS", &shots)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // The script ends its own code-server; this only bounds a hang.
    let status = common::wait_bounded(&mut child, Duration::from_secs(300), "the VS Code test");
    assert!(
        status.success(),
        "the VS Code test {script} failed: {status}"
    );
    for shot in screenshots {
        let path = shots.join(shot);
        assert!(path.is_file(), "no screenshot {}", path.display());
        println!("screenshot: {}", path.display());
    }
}

/// `report-lsp summary --format json` of `text` (written in `dir`).
fn summary_json(text: &str, dir: &std::path::Path, name: &str) -> serde_json::Value {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["summary", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "report-lsp summary: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What the e2e's "Report summary" checks, for the unopened report's
/// `text`: its entries and raw tokens (from `report-lsp summary`), the
/// largest saving's entry and its 1-based place, and a place where typing
/// "1" before the first `raw_tokens` value makes the total
/// `editedRawTokens`.
fn summary_expected(text: &str, dir: &std::path::Path) -> serde_json::Value {
    let summary = summary_json(text, dir, "summary-before.json");
    let entry = &summary["largest"][0]["entry"];
    let key = "\"raw_tokens\": ";
    let at = text.find(key).expect("a raw_tokens value") + key.len();
    let line = text[..at].matches('\n').count() + 1;
    let col = text[..at]
        .rsplit('\n')
        .next()
        .unwrap()
        .encode_utf16()
        .count()
        + 1;
    let edited_text = format!("{}1{}", &text[..at], &text[at..]);
    let edited = summary_json(&edited_text, dir, "summary-after.json");
    assert_ne!(
        edited["total"]["raw_tokens"], summary["total"]["raw_tokens"],
        "the edit changes the total"
    );
    serde_json::json!({
        "entries": summary["entries"],
        "rawTokens": summary["total"]["raw_tokens"],
        "entry": {"index": entry["index"], "line": entry["line"], "col": entry["column"]},
        "edit": {"line": line, "col": col},
        "editedRawTokens": edited["total"]["raw_tokens"],
    })
}

/// `value` as an environment variable's value.
fn os(value: impl AsRef<std::ffi::OsStr>) -> std::ffi::OsString {
    value.as_ref().to_os_string()
}

#[test]
fn packaged_extension_in_code_server_lists_problems_fixes_and_hovers() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let vscode = root.join("editors/vscode");
    let vsix = std::env::var_os("REPORT_LSP_VSIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| vscode.join("report-lsp-linux-x64.vsix"));
    let Some(code_server) = code_server_with(&vsix) else {
        return;
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());

    // What Problems must list: the core's diagnostics, 1-based lines, in order.
    let report = common::golden_dir().join("invalid.report.json");
    let expected = problems_of(&std::fs::read_to_string(&report).unwrap());

    // A report the test never opens, with one problem: Problems lists it
    // through workspace diagnostics.
    let unopened_text = std::fs::read_to_string(common::golden_dir().join("valid.report.json"))
        .unwrap()
        .replacen(
            "\"tool_version\": \"doc-hygiene 0.4.2\"",
            "\"tool_version\": 4",
            1,
        );
    let unopened_expected = problems_of(&unopened_text);
    assert_eq!(unopened_expected.len(), 1, "{unopened_expected:?}");
    let unopened_dir = tempfile::tempdir().unwrap();
    let unopened = unopened_dir.path().join("unopened.report.json");
    std::fs::write(&unopened, &unopened_text).unwrap();

    // A report whose project is the workspace, naming a Markdown file:
    // a confirm delete-range of its lines 3-4.
    let target_text = "# API\nkeep\nold 1 — 路\nold 2\nkeep too\n";
    let mut entry = common::project::edit_entry(
        "docs/旧-api 😀.md",
        serde_json::json!({"kind": "delete-range", "anchor": {"start_line": 3, "end_line": 4}, "expected_sha256": common::project::sha256(target_text)}),
    );
    entry["is_destructive"] = serde_json::json!(true);
    entry["is_reversible"] = serde_json::json!(false);
    entry["safety_tier"] = serde_json::json!("confirm");
    let target_report = unopened_dir.path().join("targets.report.json");
    let target_report_text = serde_json::to_string_pretty(&common::project::report(
        "2099-01-01T00:00:00Z",
        vec![serde_json::json!("docs/旧-api 😀.md")],
        vec![entry],
        vec![],
    ))
    .unwrap();
    std::fs::write(&target_report, target_report_text).unwrap();
    let target_file = unopened_dir.path().join("target.md");
    std::fs::write(&target_file, target_text).unwrap();

    let summary = summary_expected(&unopened_text, unopened_dir.path());

    let expected = serde_json::to_string(&expected).unwrap();
    let unopened_expected = serde_json::to_string(&unopened_expected).unwrap();
    run_e2e(
        "e2e.js",
        "vscode-e2e",
        &[
            ("REPORT_LSP_CODE_SERVER", os(code_server)),
            ("REPORT_LSP_VSIX", os(&vsix)),
            ("REPORT_LSP_REPORT", os(&report)),
            ("REPORT_LSP_EXPECTED", os(expected)),
            ("REPORT_LSP_UNOPENED", os(&unopened)),
            ("REPORT_LSP_TARGET_REPORT", os(&target_report)),
            ("REPORT_LSP_TARGET_FILE", os(&target_file)),
            ("REPORT_LSP_UNOPENED_EXPECTED", os(unopened_expected)),
            ("REPORT_LSP_SUMMARY", os(summary.to_string())),
        ],
        &[
            "vscode-missing-server.png",
            "vscode-hover-and-problems.png",
            "vscode-after-quick-fix.png",
            "vscode-target-document.png",
            "vscode-clean-preview.png",
            "vscode-summary.png",
            "vscode-summary-after-edit.png",
            "vscode-server-gone.png",
        ],
    );
}

/// The universal package (`REPORT_LSP_UNIVERSAL_VSIX`, else the one `npm
/// run package -- universal` writes) and the code-server to install it in,
/// when both are there.
fn universal_package() -> Option<(PathBuf, PathBuf)> {
    let vscode = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    let vsix = std::env::var_os("REPORT_LSP_UNIVERSAL_VSIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| vscode.join("report-lsp-universal.vsix"));
    code_server_with(&vsix).map(|code_server| (vsix, code_server))
}

/// The invalid golden example, and what Problems must list for it.
fn invalid_report() -> (PathBuf, Vec<serde_json::Value>) {
    let report = common::golden_dir().join("invalid.report.json");
    let expected = problems_of(&std::fs::read_to_string(&report).unwrap());
    (report, expected)
}

/// The universal package (no server inside) in code-server: with no
/// report-lsp on PATH, one message says how to install it; with one on
/// PATH, the extension runs it and Problems lists what the core finds.
#[test]
fn universal_extension_runs_report_lsp_from_path_or_says_how_to_install_it() {
    let Some((vsix, code_server)) = universal_package() else {
        return;
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (report, expected) = invalid_report();
    run_e2e(
        "universal.js",
        "vscode-universal-e2e",
        &[
            ("REPORT_LSP_CODE_SERVER", os(code_server)),
            ("REPORT_LSP_UNIVERSAL_VSIX", os(&vsix)),
            ("REPORT_LSP_SERVER", os(env!("CARGO_BIN_EXE_report-lsp"))),
            ("REPORT_LSP_REPORT", os(&report)),
            (
                "REPORT_LSP_EXPECTED",
                os(serde_json::to_string(&expected).unwrap()),
            ),
        ],
        &[
            "vscode-universal-no-server.png",
            "vscode-universal-from-path.png",
        ],
    );
}

/// The universal package's browser entry (VS Code for the Web) in
/// code-server's browser extension host, with no report-lsp anywhere: the
/// core as WebAssembly lists what the core finds, the hovers show the
/// trace and why the workspace checks are off, and "Report summary" shows
/// the report's numbers with entry links that move the cursor (`web.js`).
#[test]
fn web_extension_checks_reports_with_the_core_as_webassembly() {
    let Some((vsix, code_server)) = universal_package() else {
        return;
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (report, expected) = invalid_report();
    run_e2e(
        "web.js",
        "vscode-web-e2e",
        &[
            ("REPORT_LSP_CODE_SERVER", os(code_server)),
            ("REPORT_LSP_UNIVERSAL_VSIX", os(&vsix)),
            ("REPORT_LSP_REPORT", os(&report)),
            (
                "REPORT_LSP_EXPECTED",
                os(serde_json::to_string(&expected).unwrap()),
            ),
        ],
        &[
            "vscode-web-problems.png",
            "vscode-web-hover-trace.png",
            "vscode-web-hover-off.png",
            "vscode-web-summary.png",
        ],
    );
}

/// The web extension's server in a web worker of its own, as vscode.dev
/// runs it (code-server refuses it that worker): spoken to in the protocol
/// in headless Chromium, it answers as `check` does (`web-worker.js`).
#[test]
fn web_extension_server_in_its_own_worker_answers_as_check_does() {
    let vscode = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    let built = vscode.join("dist/web/worker.js").is_file()
        && vscode.join("dist/web/report_wasm.wasm").is_file();
    let playwright = vscode
        .join("test-e2e/node_modules/playwright-core")
        .is_dir();
    if !common::present(
        built && playwright && std::path::Path::new("/usr/bin/chromium").is_file(),
        "the web extension's build (npm run build in editors/vscode), playwright-core and Chromium",
    ) {
        return;
    }
    run_e2e(
        "web-worker.js",
        "vscode-web-worker-e2e",
        &[("REPORT_LSP_BIN", os(env!("CARGO_BIN_EXE_report-lsp")))],
        &[],
    );
}
