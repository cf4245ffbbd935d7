//! The server in Emacs's eglot (Debian's `emacs-nox` and `elpa-eglot`),
//! headless: `editors/emacs/test/eglot-e2e.el` opens the invalid golden
//! report with the setup `editors/README.md` gives, and the diagnostics
//! flymake shows are the core's (lines and codes); the code actions at the
//! wrong safety_tier include its fix, which applies and clears it. Skipped
//! when `emacs` is missing locally; a failure when `CI` is set.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[test]
fn eglot_shows_the_diagnostics_and_applies_a_code_action() {
    let found = Command::new("emacs")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        if std::env::var_os("CI").is_some() {
            panic!("emacs is required in CI (.ci/run installs emacs-nox and elpa-eglot)");
        }
        eprintln!("skipping: emacs is not installed");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("invalid.report.json");
    let original =
        std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let out = dir.path().join("observed.json");

    let mut child = Command::new("emacs")
        .args(["--batch", "-q", "-l"])
        .arg(root.join("editors/emacs/test/eglot-e2e.el"))
        .current_dir(dir.path())
        // Emacs's own files (~/.emacs.d) stay in the temporary folder.
        .env("HOME", dir.path())
        .env("REPORT_LSP_BIN", env!("CARGO_BIN_EXE_report-lsp"))
        .env("REPORT_LSP_FILE", &file)
        .env("REPORT_LSP_OUT", &out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("emacs did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let observed: Value = serde_json::from_str(
        &std::fs::read_to_string(&out).expect("the Emacs test wrote its observations"),
    )
    .unwrap();
    assert!(
        observed.get("error").is_none(),
        "the Emacs test failed: {}",
        observed["error"]
    );
    assert_eq!(observed["mode"], "machine-report-mode");

    // Flymake shows what the core finds, on the same lines (1-based).
    let analysis = report_core::analyze(&original);
    let expected: Vec<Value> = analysis
        .diagnostics
        .iter()
        .map(|d| {
            let line = analysis.line_index().line_col(
                &original,
                d.range.start,
                report_core::text::Encoding::Utf16,
            );
            json!({"line": line.line + 1, "code": d.code.as_str()})
        })
        .collect();
    assert_eq!(observed["before"], Value::Array(expected));

    let actions = observed["actions"].as_array().unwrap();
    assert!(
        actions.contains(&json!("Set safety_tier to \"confirm\" (derived)")),
        "{actions:?}"
    );
    assert_eq!(
        observed["applied"],
        "Set safety_tier to \"confirm\" (derived)"
    );
    let tier_line = observed["tier_line"].as_u64().unwrap() as usize;
    let saved = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        saved.lines().nth(tier_line - 1).unwrap().trim(),
        "\"safety_tier\": \"confirm\","
    );
    assert_eq!(observed["after"], analysis.diagnostics.len() - 1);
}
