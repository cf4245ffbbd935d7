//! The server in Emacs's eglot (Debian's `emacs-nox` and `elpa-eglot`),
//! headless: `editors/emacs/test/eglot-e2e.el` opens the invalid golden
//! report with the setup `editors/README.md` gives, and the diagnostics
//! flymake shows are the core's (lines and codes); the code actions at the
//! wrong safety_tier include its fix, which applies and clears it; a
//! Markdown file another report in the folder names joins the server and
//! shows the hint over the span its clean removes. Skipped
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
    if !common::present(found, "emacs (Debian's emacs-nox and elpa-eglot)") {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("invalid.report.json");
    let original =
        std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let out = dir.path().join("observed.json");
    // A second report, found in the folder, naming a Markdown file beside it.
    let target_text = "# API\nkeep\nold 1 — 路\nold 2\nkeep too\n";
    let target = dir.path().join("旧-api.md");
    std::fs::write(&target, target_text).unwrap();
    let mut entry = common::project::edit_entry(
        "旧-api.md",
        json!({"kind": "delete-range", "anchor": {"start_line": 3, "end_line": 4}, "expected_sha256": common::project::sha256(target_text)}),
    );
    entry["is_destructive"] = json!(true);
    entry["is_reversible"] = json!(false);
    entry["safety_tier"] = json!("confirm");
    let targets = common::project::report(
        "2099-01-01T00:00:00Z",
        vec![json!("旧-api.md")],
        vec![entry],
        vec![],
    );
    std::fs::write(
        dir.path().join("targets.report.json"),
        serde_json::to_string_pretty(&targets).unwrap(),
    )
    .unwrap();

    let mut child = Command::new("emacs")
        .args(["--batch", "-q", "-l"])
        .arg(root.join("editors/emacs/test/eglot-e2e.el"))
        .current_dir(dir.path())
        // Emacs's own files (~/.emacs.d) stay in the temporary folder.
        .env("HOME", dir.path())
        .env("REPORT_LSP_BIN", env!("CARGO_BIN_EXE_report-lsp"))
        .env("REPORT_LSP_FILE", &file)
        .env("REPORT_LSP_OUT", &out)
        .env("REPORT_LSP_TARGET", &target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = common::wait_bounded(&mut child, Duration::from_secs(90), "emacs");
    // The script quits with 0 once it wrote what it saw: anything else is
    // the editor failing (a Lisp or Lua error, a crash on the way out).
    assert!(status.success(), "emacs exited with {status}");
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

    // The Markdown file joined the report server, which shows the hint.
    assert_eq!(observed["target_mode"], "markdown-mode", "{observed}");
    assert_eq!(observed["target_managed"], true, "{observed}");
    let hints = observed["target_hints"].as_array().unwrap();
    assert_eq!(hints.len(), 1, "{observed}");
    assert_eq!(hints[0]["line"], 3);
    assert!(
        hints[0]["text"].as_str().unwrap().contains(
            "the clean removes this: delete-range · confirm — targets.report.json entries[0]"
        ),
        "{observed}"
    );
}
