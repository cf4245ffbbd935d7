//! The server in Emacs 28 (Debian's `emacs-nox`), headless, in both of
//! its LSP clients, each opening a copy of the invalid golden report in a
//! folder where a second report names a Markdown file:
//!
//! - eglot (`elpa-eglot`): `editors/emacs/test/eglot-e2e.el`, with the
//!   setup `editors/README.md` gives. The diagnostics flymake shows are
//!   the core's (lines and codes); the code actions at the wrong
//!   safety_tier include its fix, which applies and clears it; the
//!   Markdown file joins the server and shows the hint over the span its
//!   clean removes.
//! - lsp-mode (`elpa-lsp-mode`): `editors/emacs/test/lsp-mode-e2e.el`,
//!   loading `editors/emacs/lsp-mode-setup.el` (the setup the README
//!   gives, which the test checks it quotes). Flymake shows the core's
//!   diagnostics (lines and messages; lsp-mode holds their codes); the
//!   hover shows the tier's derivation; completion offers and inserts
//!   `deterministic`; the tier's quick fix applies and clears its
//!   diagnostic; fix-all, resolved, gives the core's fix-all; every lens
//!   lsp-mode shows is clicked, in the report and in the Markdown file,
//!   which joins the server and shows the hint; the workspace shuts down.
//!   lsp-mode's IO log holds no error response, and no message Emacs
//!   showed says that something failed, timed out or erred.
//!
//! In both, `report-lsp-summary` (`editors/emacs/report-lsp-summary.el`)
//! shows the report's summary, line for line what `report-lsp summary
//! --format markdown` gives for the editor's text, in a read-only
//! markdown-mode buffer; in a buffer no server serves it says why there is
//! none, and (eglot) in the Markdown file the server's refusal.
//!
//! Each is skipped when Emacs or its client is missing locally; a failure
//! when `CI` is set.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The folder both tests open: a copy of the invalid golden report, and a
/// second report naming a Markdown file beside it.
struct Folder {
    dir: tempfile::TempDir,
    /// The copy of `invalid.report.json`.
    file: PathBuf,
    /// Its text before the editor changed it.
    original: String,
    /// The Markdown file `targets.report.json` names.
    target: PathBuf,
}

impl Folder {
    fn new() -> Folder {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("invalid.report.json");
        let original =
            std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap();
        std::fs::write(&file, &original).unwrap();
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
        Folder {
            dir,
            file,
            original,
            target,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `emacs --batch -q -l SCRIPT` (a file of `editors/emacs/test`)
    /// in the folder, with Emacs's own files (~/.emacs.d) there too, and
    /// returns what the script wrote to `REPORT_LSP_OUT`.
    fn run(&self, script: &str, env: &[(&str, &OsStr)]) -> Value {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let out = self.path("observed.json");
        let mut command = Command::new("emacs");
        command
            .args(["--batch", "-q", "-l"])
            .arg(root.join("editors/emacs/test").join(script))
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env("REPORT_LSP_FILE", &self.file)
            .env("REPORT_LSP_TARGET", &self.target)
            .env("REPORT_LSP_OUT", &out)
            .envs(env.iter().copied());
        common::run_editor(&mut command, &out, script)
    }

    /// The diagnostics the core finds in the report, each a JSON object of
    /// its 1-based line and `field`: its code, or its message (`text`).
    fn core_diagnostics(&self, field: &str) -> Vec<Value> {
        let analysis = report_core::analyze(&self.original);
        common::diagnostic_starts(&self.original)
            .into_iter()
            .zip(&analysis.diagnostics)
            .map(|((line, _, code), d)| {
                let value = if field == "code" { code } else { &d.message };
                json!({"line": line + 1, field: value})
            })
            .collect()
    }
}

/// Whether Emacs is there and can load `library`: skipped locally when
/// not, a failure when `CI` is set.
fn emacs_with(library: &str, what: &str) -> bool {
    let found = Command::new("emacs")
        .args(["--batch", "-q", "--eval"])
        .arg(format!(
            "(kill-emacs (if (locate-library \"{library}\") 0 1))"
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    common::present(found, what)
}

/// The Markdown file joined the report server, whose hint flymake shows.
fn assert_the_target_shows_its_hint(observed: &Value) {
    assert_eq!(observed["target_mode"], "markdown-mode", "{observed}");
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

/// The tier line (1-based) as the fix left it in the saved report.
fn assert_the_tier_fixed(observed: &Value, file: &Path) -> String {
    assert_eq!(
        observed["applied"],
        "Set safety_tier to \"confirm\" (derived)"
    );
    let tier_line = observed["tier_line"].as_u64().unwrap() as usize;
    let saved = std::fs::read_to_string(file).unwrap();
    assert_eq!(
        saved.lines().nth(tier_line - 1).unwrap().trim(),
        "\"safety_tier\": \"confirm\","
    );
    saved
}

/// What `report-lsp-summary` showed for the report `named`, whose text in
/// the editor is the file `text`: a read-only Markdown buffer holding, line
/// for line, what `report-lsp summary --format markdown` gives for that
/// text, under the heading that names the report by its path (the server
/// names it by its URI's); the open document's, not read from disk.
fn assert_the_summary(summary: &Value, text: &Path, named: &Path) {
    let cli = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["summary", "--format", "markdown"])
        .arg(text)
        .output()
        .unwrap();
    assert!(cli.status.success(), "{cli:?}");
    let markdown = String::from_utf8(cli.stdout).unwrap();
    let heading = format!("## Report summary: `{}`", named.display());
    let mut expected: Vec<&str> = markdown.trim_end().lines().collect();
    expected[0] = &heading;
    // The totals: "N entries, M raw tokens (...)".
    assert!(
        expected[2].contains(" entries, ") && expected[2].contains(" raw tokens"),
        "{markdown}"
    );
    let shown: Vec<&str> = summary["text"]
        .as_str()
        .unwrap()
        .trim_end()
        .lines()
        .collect();
    assert_eq!(shown, expected, "{summary}");
    assert_eq!(
        summary["buffer"],
        format!(
            "*report-lsp summary: {}*",
            named.file_name().unwrap().to_str().unwrap()
        )
    );
    assert_eq!(summary["mode"], "markdown-mode", "{summary}");
    assert_eq!(summary["read_only"], true, "{summary}");
    assert_eq!(summary["from_disk"], false, "{summary}");
    assert!(summary["entries"].as_u64().unwrap() > 0, "{summary}");
}

/// `report-lsp-summary` in a buffer no server serves: a `user-error`
/// saying so.
fn assert_no_summary_without_a_server(observed: &Value) {
    let said = observed["scratch_summary"].as_str().unwrap();
    assert!(
        said.starts_with("report-lsp: no report-lsp server serves this buffer"),
        "{observed}"
    );
}

#[test]
fn eglot_shows_the_diagnostics_and_applies_a_code_action() {
    if !emacs_with(
        "eglot",
        "emacs with eglot (Debian's emacs-nox and elpa-eglot)",
    ) {
        return;
    }
    let folder = Folder::new();
    let observed = folder.run(
        "eglot-e2e.el",
        &[(
            "REPORT_LSP_BIN",
            OsStr::new(env!("CARGO_BIN_EXE_report-lsp")),
        )],
    );
    assert_eq!(observed["mode"], "machine-report-mode");

    // Flymake shows what the core finds, on the same lines (1-based).
    let expected = folder.core_diagnostics("code");
    let found = expected.len();
    assert_eq!(observed["before"], Value::Array(expected));

    let actions = observed["actions"].as_array().unwrap();
    assert!(
        actions.contains(&json!("Set safety_tier to \"confirm\" (derived)")),
        "{actions:?}"
    );
    assert_the_tier_fixed(&observed, &folder.file);
    assert_eq!(observed["after"], found - 1);

    assert_eq!(observed["target_managed"], true, "{observed}");
    assert_the_target_shows_its_hint(&observed);

    // The summary of the report as saved, fixed; the Markdown file is no
    // report: the server's refusal, as a user error.
    assert_the_summary(&observed["summary"], &folder.file, &folder.file);
    let refused = observed["target_summary"]["user_error"].as_str().unwrap();
    assert!(
        refused.starts_with("report-lsp: no summary: ")
            && refused.contains("is not a machine report"),
        "{observed}"
    );
    assert_no_summary_without_a_server(&observed);
}

#[test]
fn lsp_mode_shows_hovers_completes_fixes_runs_lenses_and_shuts_down() {
    if !emacs_with("lsp-mode", "emacs with lsp-mode (Debian's elpa-lsp-mode)") {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The README gives the setup the test loads, word for word.
    let setup = std::fs::read_to_string(root.join("editors/emacs/lsp-mode-setup.el")).unwrap();
    let readme = std::fs::read_to_string(root.join("editors/README.md")).unwrap();
    assert!(
        readme.contains(&format!("```elisp\n{setup}```")),
        "editors/README.md does not quote editors/emacs/lsp-mode-setup.el"
    );

    let folder = Folder::new();
    let fixed = folder.path("fixed.report.json");
    // The setup runs `report-lsp` from PATH, as an installed server is.
    let path = common::path_with_server(folder.dir.path());
    let observed = folder.run(
        "lsp-mode-e2e.el",
        &[("PATH", &path), ("REPORT_LSP_FIXED", fixed.as_os_str())],
    );
    assert_eq!(observed["mode"], "machine-report-mode");
    assert_eq!(observed["servers"], json!(["report-lsp"]));

    // Flymake shows the core's diagnostics (lines, messages); lsp-mode
    // holds their codes.
    let shown = folder.core_diagnostics("text");
    assert_eq!(observed["before"], Value::Array(shown.clone()));
    assert_eq!(
        observed["held"],
        Value::Array(folder.core_diagnostics("code"))
    );

    // The hover on the wrong tier shows its derivation.
    let hover = observed["hover"].as_str().unwrap();
    assert!(hover.contains("derive_safety_tier(op_type="), "{hover}");
    assert!(hover.contains("Derived: confirm"), "{hover}");

    // Completion in `"det"` offered `deterministic` and inserted it.
    assert_eq!(observed["completion_offered"], json!(["deterministic"]));
    assert_eq!(
        observed["completed_line"],
        "\"op_type\": \"deterministic\","
    );

    // The quick fix applied; flymake shows every other diagnostic as before.
    let saved = assert_the_tier_fixed(&observed, &folder.file);
    let tier_line = observed["tier_line"].as_u64().unwrap();
    let others: Vec<Value> = shown
        .into_iter()
        .filter(|d| d["line"] != tier_line)
        .collect();
    assert_eq!(observed["after"], Value::Array(others));

    // Fix-all, its edit resolved on demand, gave the core's fix-all.
    assert_eq!(
        std::fs::read_to_string(&fixed).ok(),
        report_core::fix_all::fix_all(&saved)
    );

    // Each lens lsp-mode showed was clicked: the roll-up on `entries`, and
    // the entry on the Markdown file's span.
    let lenses = observed["lenses"].as_array().unwrap();
    assert_eq!(lenses.len(), 1, "{observed}");
    assert!(
        lenses[0].as_str().unwrap().contains("raw tokens"),
        "{lenses:?}"
    );
    let target_lenses = observed["target_lenses"].as_array().unwrap();
    assert_eq!(target_lenses.len(), 1, "{observed}");
    assert!(
        target_lenses[0]
            .as_str()
            .unwrap()
            .contains("targets.report.json entries[0]"),
        "{target_lenses:?}"
    );

    assert_eq!(observed["target_servers"], json!(["report-lsp"]));
    assert_the_target_shows_its_hint(&observed);
    // The summary of the report's text after fix-all (unsaved).
    assert_the_summary(&observed["summary"], &fixed, &folder.file);
    assert_no_summary_without_a_server(&observed);
    assert_eq!(observed["shut_down"], true);

    // What went over the wire, as lsp-mode's IO log has it.
    let log = observed["log"].as_array().unwrap();
    let sent = |kind: &str, method: &str| {
        log.iter()
            .filter(|m| m["type"] == kind && m["method"] == method)
            .count()
    };
    assert_eq!(sent("outgoing-req", "codeAction/resolve"), 1, "{log:?}");
    assert_eq!(
        sent("outgoing-req", "workspace/executeCommand"),
        lenses.len() + target_lenses.len(),
        "{log:?}"
    );
    assert_eq!(sent("outgoing-req", "shutdown"), 1, "{log:?}");
    assert_eq!(sent("incoming-resp", "shutdown"), 1, "{log:?}");
    assert_eq!(
        log.last().map(|m| (&m["type"], &m["method"])),
        Some((&json!("outgoing-notif"), &json!("exit"))),
        "{log:?}"
    );
    // No error response, but a request lsp-mode cancelled (it no longer
    // knows its method) may be answered RequestCancelled.
    let errors: Vec<&Value> = log
        .iter()
        .filter(|m| !m["error"].is_null())
        .filter(|m| !(m["method"].is_null() && m["error"]["code"] == -32800))
        .collect();
    assert!(errors.is_empty(), "error responses: {errors:?}");

    // Nothing Emacs showed says that something went wrong.
    let messages = observed["messages"].as_array().unwrap();
    let wrong: Vec<&Value> = messages
        .iter()
        .filter(|m| {
            let text = m.as_str().unwrap().to_lowercase();
            ["fail", "timeout", "timed out", "error"]
                .iter()
                .any(|word| text.contains(word))
        })
        .collect();
    assert!(wrong.is_empty(), "messages: {wrong:?}");
}
