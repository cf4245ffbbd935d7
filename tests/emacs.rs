//! The server in Emacs's eglot (Debian's `emacs-nox` and `elpa-eglot`),
//! headless: `editors/emacs/test/eglot-e2e.el` opens the invalid golden
//! report with the setup `editors/README.md` gives, and the diagnostics
//! flymake shows are the core's (lines and codes); the code actions at the
//! wrong safety_tier include its fix, which applies and clears it. Skipped
//! when `emacs` is missing locally; a failure when `CI` is set.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

#[test]
fn eglot_shows_the_diagnostics_and_applies_a_code_action() {
    let found = Command::new("emacs")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !common::editor_found(found, "emacs (Debian's emacs-nox and elpa-eglot)") {
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
    common::wait_bounded(&mut child, Duration::from_secs(90), "emacs");
    let observed = common::observations(&out, "the Emacs test");
    assert_eq!(observed["mode"], "machine-report-mode");

    // Flymake shows what the core finds, on the same lines (1-based).
    let expected: Vec<Value> = common::diagnostic_starts(&original)
        .into_iter()
        .map(|(line, _, code)| json!({"line": line + 1, "code": code}))
        .collect();
    let found = expected.len();
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
    assert_eq!(observed["after"], found - 1);
}
