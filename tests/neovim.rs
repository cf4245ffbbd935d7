//! The Neovim plugin in real headless Neovims against the real server:
//! Debian's 0.7 (`nvim` on `PATH`, the plugin's `start_client` path) and 0.11
//! (the binary named by `REPORT_LSP_NVIM_0_11`, which `.ci/run` installs; the
//! `vim.lsp.config`/`vim.lsp.enable` path, and the shipped
//! `lsp/report_lsp.lua`). Each sees the diagnostics at their exact
//! positions, hovers the trace, applies the tier fix, saves, and runs
//! fix-all from the menu; settings reach the server; a missing server gives
//! one message and a usable buffer; `:ReportLspSummary` opens the report's
//! summary in a Markdown scratch buffer, whose `gd` leads to an entry. A
//! Neovim that is missing skips its tests locally and fails them when `CI`
//! is set.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// Debian's Neovim, on `PATH`.
fn debian_neovim() -> Option<PathBuf> {
    let found = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    common::present(found, "nvim (Debian's neovim)").then(|| PathBuf::from("nvim"))
}

/// Neovim 0.11, from the wheel `.ci/run` installs into a venv.
fn neovim_0_11() -> Option<PathBuf> {
    let found = std::env::var_os("REPORT_LSP_NVIM_0_11")
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    common::present(found.is_some(), "REPORT_LSP_NVIM_0_11 (Neovim 0.11's nvim)")
        .then(|| found.unwrap())
}

/// A copy of the invalid golden report in a temporary folder, under a name
/// that is not ASCII (URIs and positions must survive it).
struct Workspace {
    dir: tempfile::TempDir,
    original: String,
}

impl Workspace {
    fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let original =
            std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap();
        std::fs::write(dir.path().join("机器-invalid.report.json"), &original).unwrap();
        Workspace { dir, original }
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("机器-invalid.report.json")
    }

    fn fixed(&self) -> PathBuf {
        self.dir.path().join("机器-fixed.report.json")
    }
}

/// Runs `test/e2e.lua` in `nvim` in `mode` and returns what it observed.
fn run(nvim: &Path, workspace: &Workspace, mode: &str, env: &[(&str, &str)]) -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = workspace.dir.path().join("observed.json");
    let _ = std::fs::remove_file(&out);
    // --clean, not -u NONE: filetype detection stays on, as a user has it
    // (0.11's vim.lsp.enable attaches on FileType); -i NONE: no shada file.
    let mut command = Command::new(nvim);
    command
        .args(["--headless", "--clean", "-i", "NONE", "--cmd"])
        .arg(format!(
            "set rtp+={}",
            root.join("editors/neovim").display()
        ))
        .arg("-c")
        .arg(format!(
            "luafile {}",
            root.join("editors/neovim/test/e2e.lua").display()
        ))
        .current_dir(workspace.dir.path())
        // Neovim's own state (logs, swap files) stays in the temporary folder.
        .env("XDG_STATE_HOME", workspace.dir.path().join("state"))
        .env("XDG_DATA_HOME", workspace.dir.path().join("data"))
        .env("REPORT_LSP_BIN", env!("CARGO_BIN_EXE_report-lsp"))
        .env("REPORT_LSP_FILE", workspace.file())
        .env("REPORT_LSP_OUT", &out)
        .env("REPORT_LSP_FIXED", workspace.fixed())
        .env("REPORT_LSP_MODE", mode)
        .envs(env.iter().copied());
    common::run_editor(&mut command, &out, "nvim")
}

/// The plugin path a Neovim version takes: `vim.lsp.config` exists from 0.11.
fn expected_path(observed: &Value) -> &'static str {
    let version = observed["version"].as_str().unwrap();
    let minor: u32 = version.strip_prefix("0.").unwrap().parse().unwrap();
    if minor >= 11 {
        "vim.lsp.config"
    } else {
        "start_client"
    }
}

/// Diagnostics, hover, the tier fix and fix-all, as `e2e.lua` saw them.
fn check_the_whole_scenario(observed: &Value, workspace: &Workspace) {
    let original = &workspace.original;
    assert_eq!(observed["filetype"], "json");
    assert_eq!(observed["client"], "report_lsp");

    // What Neovim shows is what the core finds: same lines, columns and codes.
    let expected: Vec<Value> = common::diagnostic_starts(original)
        .into_iter()
        .map(|(line, col, code)| serde_json::json!({"line": line, "col": col, "code": code}))
        .collect();
    assert_eq!(observed["before"], Value::Array(expected));
    let found = observed["before"].as_array().unwrap().len();

    assert_eq!(
        observed["applied"],
        "Set safety_tier to \"confirm\" (derived)"
    );
    let tier_line = observed["tier_line"].as_u64().unwrap() as usize;
    let saved = std::fs::read_to_string(workspace.file()).unwrap();
    assert_eq!(
        saved.lines().nth(tier_line).unwrap().trim(),
        "\"safety_tier\": \"confirm\","
    );
    assert_eq!(saved.lines().count(), original.lines().count());
    let after = observed["after"].as_array().unwrap();
    assert_eq!(after.len(), found - 1);
    assert!(
        !after
            .iter()
            .any(|d| d["line"] == tier_line as u64 && d["code"] == "tier-mismatch")
    );

    let hover = observed["hover"].as_str().unwrap();
    assert!(hover.contains("derive_safety_tier(op_type="), "{hover}");
    // Completion in the wrong tier offers the derived one only; definition
    // leads from an entry's path up to the shortlist.
    assert_eq!(
        observed["completion"],
        serde_json::json!(["confirm"]),
        "{observed}"
    );
    let (path_line, definition_line) = (&observed["path_line"], &observed["definition_line"]);
    assert!(
        definition_line.as_u64().unwrap() < path_line.as_u64().unwrap(),
        "{observed}"
    );

    // Fix-all, picked from the menu and resolved by Neovim on demand, gave
    // what the core's fix-all gives.
    assert_eq!(observed["fixed_all"], true);
    let fixed_all = std::fs::read_to_string(workspace.fixed()).unwrap();
    assert_eq!(Some(fixed_all), report_core::fix_all::fix_all(&saved));
}

fn whole_scenario(nvim: &Path, mode: &str) -> Value {
    let workspace = Workspace::new();
    // The server on PATH, as an installed one is (the lspconfig mode names no command).
    let path = common::path_with_server(workspace.dir.path());
    let observed = run(nvim, &workspace, mode, &[("PATH", path.to_str().unwrap())]);
    check_the_whole_scenario(&observed, &workspace);
    observed
}

#[test]
fn debian_neovim_plugin_shows_diagnostics_hovers_and_applies_fixes() {
    let Some(nvim) = debian_neovim() else { return };
    let observed = whole_scenario(&nvim, "plugin");
    assert_eq!(observed["path"], expected_path(&observed));
}

#[test]
fn neovim_0_11_plugin_shows_diagnostics_hovers_and_applies_fixes() {
    let Some(nvim) = neovim_0_11() else { return };
    let observed = whole_scenario(&nvim, "plugin");
    assert_eq!(observed["version"], "0.11");
    assert_eq!(observed["path"], "vim.lsp.config");
}

/// `vim.lsp.enable("report_lsp")` alone, the server on PATH: the shipped
/// `lsp/report_lsp.lua` is all the configuration there is.
#[test]
fn neovim_0_11_shipped_lsp_config_shows_diagnostics_hovers_and_applies_fixes() {
    let Some(nvim) = neovim_0_11() else { return };
    whole_scenario(&nvim, "lspconfig");
}

/// `maxDiagnostics = 3` shows three diagnostics and the summary.
fn settings_reach_the_server(nvim: &Path) {
    limited_to(nvim, r#"{"maxDiagnostics": 3}"#, None, 3);
}

/// Runs the plugin with `settings` (and `project_file` beside the report),
/// and sees `shown` diagnostics and the summary of the others.
fn limited_to(nvim: &Path, settings: &str, project_file: Option<&str>, shown: usize) {
    let workspace = Workspace::new();
    if let Some(text) = project_file {
        std::fs::write(workspace.dir.path().join("report-lsp.toml"), text).unwrap();
    }
    let observed = run(
        nvim,
        &workspace,
        "settings",
        &[("REPORT_LSP_SETTINGS", settings)],
    );
    let seen = observed["before"].as_array().unwrap();
    assert_eq!(seen.len(), shown + 1, "{seen:?}");
    assert!(seen.iter().any(|d| d["code"] == "too-many-diagnostics"));
}

#[test]
fn debian_neovim_settings_reach_the_server() {
    let Some(nvim) = debian_neovim() else { return };
    settings_reach_the_server(&nvim);
}

#[test]
fn neovim_0_11_settings_reach_the_server() {
    let Some(nvim) = neovim_0_11() else { return };
    settings_reach_the_server(&nvim);
}

/// A `report-lsp.toml` beside the report, and no settings in the editor:
/// the plugin sends none of its defaults, so the file's limit holds.
fn the_project_file_governs(nvim: &Path) {
    limited_to(nvim, "{}", Some("max-diagnostics = 2\n"), 2);
}

#[test]
fn debian_neovim_reads_the_project_file() {
    let Some(nvim) = debian_neovim() else { return };
    the_project_file_governs(&nvim);
}

#[test]
fn neovim_0_11_reads_the_project_file() {
    let Some(nvim) = neovim_0_11() else { return };
    the_project_file_governs(&nvim);
}

/// With `pullDiagnostics` set, Neovim 0.11 (which advertises pulls but no
/// refreshSupport, so is pushed to by default) pulls them, and its first
/// pulls, raced by the settings it sends after `initialized`, show the
/// diagnostics of the report (they used to be answered with none).
#[test]
fn neovim_0_11_pulls_diagnostics_when_asked() {
    let Some(nvim) = neovim_0_11() else { return };
    for _ in 0..3 {
        let workspace = Workspace::new();
        let settings = [("REPORT_LSP_SETTINGS", r#"{"pullDiagnostics": true}"#)];
        let observed = run(&nvim, &workspace, "settings", &settings);
        let expected: Vec<Value> = common::diagnostic_starts(&workspace.original)
            .into_iter()
            .map(|(line, col, code)| serde_json::json!({"line": line, "col": col, "code": code}))
            .collect();
        assert_eq!(observed["before"], Value::Array(expected), "{observed}");
    }
}

/// `vim.lsp.buf.workspace_symbol`: entries of the open report and of one
/// the server found on disk, in the quickfix list, at their path values
/// (byte columns, CJK and emoji in the path).
fn workspace_symbols_fill_the_quickfix_list(nvim: &Path) {
    let workspace = Workspace::new();
    let valid = std::fs::read_to_string(common::golden_dir().join("valid.report.json")).unwrap();
    std::fs::write(workspace.dir.path().join("其他.report.json"), &valid).unwrap();
    let needle = "\"path\": \"handoff/会议记录-😀.md\"";
    // Where each file's entries name that path: the value's line and byte column.
    let places = |text: &str, file: &str| -> Vec<Value> {
        let entries = text
            .lines()
            .position(|l| l.contains("\"entries\""))
            .unwrap();
        let candidates = text
            .lines()
            .position(|l| l.contains("\"promotion_candidates\""))
            .unwrap_or(usize::MAX);
        text.lines()
            .enumerate()
            .take(candidates)
            .skip(entries)
            .filter_map(|(i, l)| {
                let at = l.find(needle)?;
                let col = at + "\"path\": ".len();
                Some(serde_json::json!({"file": file, "line": i, "col": col}))
            })
            .collect()
    };
    let mut expected = places(&valid, "其他.report.json");
    expected.extend(places(&workspace.original, "机器-invalid.report.json"));
    let count = expected.len().to_string();
    let observed = run(
        nvim,
        &workspace,
        "symbols",
        &[
            ("REPORT_LSP_QUERY", "会议记录"),
            ("REPORT_LSP_SYMBOLS", &count),
        ],
    );
    assert!(observed["error"].is_null(), "{observed}");
    let mut shown: Vec<Value> = observed["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert!(
                s["text"]
                    .as_str()
                    .unwrap()
                    .contains("handoff/会议记录-😀.md"),
                "{s}"
            );
            serde_json::json!({"file": s["file"], "line": s["line"], "col": s["col"]})
        })
        .collect();
    // Neovim 0.11 works out a symbol's column from the current buffer's
    // line, whichever file the symbol is in: only the open file's is checked.
    for place in shown.iter_mut().chain(expected.iter_mut()) {
        if place["file"] != "机器-invalid.report.json" {
            place["col"] = Value::Null;
        }
    }
    let key = |v: &Value| (v["file"].to_string(), v["line"].as_u64());
    shown.sort_by_key(key);
    expected.sort_by_key(key);
    assert_eq!(shown, expected, "{observed}");
    assert_eq!(observed["quickfix_open"], true);
}

#[test]
fn neovim_0_11_lists_workspace_symbols_of_open_and_unopened_reports() {
    let Some(nvim) = neovim_0_11() else { return };
    workspace_symbols_fill_the_quickfix_list(&nvim);
}

/// No server: one message naming it, no client, and a buffer that still has
/// its filetype and takes edits.
fn a_missing_server_gives_one_message(nvim: &Path) {
    let workspace = Workspace::new();
    let missing = workspace.dir.path().join("no-such-report-lsp");
    let missing = missing.to_str().unwrap();
    let observed = run(nvim, &workspace, "missing", &[("REPORT_LSP_BIN", missing)]);
    let messages = observed["messages"].as_str().unwrap();
    let lines: Vec<&str> = messages.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{messages}");
    assert!(lines[0].contains("report-lsp: the server"), "{messages}");
    assert!(lines[0].contains(missing), "{messages}");
    assert_eq!(observed["filetype"], "json");
    assert_eq!(observed["clients"], 0);
    assert_eq!(observed["first_line"], "typed");
}

#[test]
fn debian_neovim_missing_server_gives_one_message_and_a_usable_buffer() {
    let Some(nvim) = debian_neovim() else { return };
    a_missing_server_gives_one_message(&nvim);
}

#[test]
fn neovim_0_11_missing_server_gives_one_message_and_a_usable_buffer() {
    let Some(nvim) = neovim_0_11() else { return };
    a_missing_server_gives_one_message(&nvim);
}

/// A report and the Markdown file it names: Neovim attaches the file to the
/// report's server, shows the entry's lens and the faded span's hint, and
/// running the lens leads to the entry in the report.
fn a_target_document_shows_its_entry_and_leads_to_it(nvim: &Path) {
    use common::project::{edit_entry, report, sha256};
    use serde_json::json;

    let workspace = Workspace::new();
    let text = "# API\nkeep\nold 1 — 路\nold 2\nkeep too\n";
    let target = workspace.dir.path().join("docs/旧-api 😀.md");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, text).unwrap();
    let mut entry = edit_entry(
        "docs/旧-api 😀.md",
        json!({"kind": "delete-range", "anchor": {"start_line": 3, "end_line": 4}, "expected_sha256": sha256(text)}),
    );
    entry["is_destructive"] = json!(true);
    entry["is_reversible"] = json!(false);
    entry["safety_tier"] = json!("confirm");
    let report_text = serde_json::to_string_pretty(&report(
        "2099-01-01T00:00:00Z",
        vec![json!("docs/旧-api 😀.md")],
        vec![entry],
        vec![],
    ))
    .unwrap();
    std::fs::write(workspace.file(), &report_text).unwrap();
    let target_env = target.to_str().unwrap().to_string();
    let observed = run(
        nvim,
        &workspace,
        "target",
        &[("REPORT_LSP_TARGET", &target_env)],
    );
    assert!(observed["error"].is_null(), "{observed}");
    assert_eq!(
        observed["lenses"],
        json!([{"line": 2, "title": "delete-range · confirm · 1 tok — 机器-invalid.report.json entries[0]"}]),
        "{observed}"
    );
    assert_eq!(
        observed["hints"],
        json!([{"line": 2, "end_line": 4, "severity": 4, "message": "the clean removes this: delete-range · confirm — 机器-invalid.report.json entries[0]"}]),
        "{observed}"
    );
    let path_line = report_text
        .lines()
        .skip_while(|l| !l.contains("\"entries\""))
        .position(|l| l.contains("\"path\": \"docs/旧-api 😀.md\""))
        .unwrap()
        + report_text
            .lines()
            .position(|l| l.contains("\"entries\""))
            .unwrap();
    // 0.11 shows a document the server asks it to: the lens runs
    // `report-lsp.showEntry`; 0.7 does not, and gets a title (definition
    // leads there) whose command does nothing.
    let command = match expected_path(&observed) {
        "vim.lsp.config" => "report-lsp.showEntry",
        _ => "report-lsp.displayOnly",
    };
    assert_eq!(observed["lens_command"], command, "{observed}");
    assert_eq!(observed["jumped_to"], "机器-invalid.report.json");
    assert_eq!(observed["cursor_line"], path_line, "{observed}");
    assert!(
        observed["cursor_text"]
            .as_str()
            .unwrap()
            .contains("docs/旧-api 😀.md"),
        "{observed}"
    );
}

#[test]
fn debian_neovim_shows_a_target_documents_lens_and_runs_it_to_the_entry() {
    let Some(nvim) = debian_neovim() else { return };
    a_target_document_shows_its_entry_and_leads_to_it(&nvim);
}

#[test]
fn neovim_0_11_shows_a_target_documents_lens_and_runs_it_to_the_entry() {
    let Some(nvim) = neovim_0_11() else { return };
    a_target_document_shows_its_entry_and_leads_to_it(&nvim);
}

/// `:ReportLspSummary` on a copy of the valid golden report: a scratch
/// buffer in a split holding, line for line, the Markdown
/// `report-lsp summary --format markdown` gives for the same file (the
/// server names the report by its path, as the command line given that
/// path does); `gd` on its first `entries[N]` line leads to that entry in
/// the report; run again, the same buffer; in a buffer no server serves
/// and in a Markdown file that is no report, a message and no Lua error.
fn the_summary_opens_in_a_scratch_buffer(nvim: &Path) {
    let workspace = Workspace::new();
    let report = workspace.dir.path().join("机器-valid.report.json");
    let valid = std::fs::read_to_string(common::golden_dir().join("valid.report.json")).unwrap();
    std::fs::write(&report, &valid).unwrap();
    let notes = workspace.dir.path().join("notes.md");
    std::fs::write(&notes, "# Notes\n\nNo report here.\n").unwrap();
    let observed = run(
        nvim,
        &workspace,
        "summary",
        &[
            ("REPORT_LSP_FILE", report.to_str().unwrap()),
            ("REPORT_LSP_TARGET", notes.to_str().unwrap()),
        ],
    );
    assert!(observed["error"].is_null(), "{observed}");
    assert_eq!(observed["command_exists"], true, "{observed}");

    // The Markdown, as the command line gives it for the same path.
    let cli = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["summary", "--format", "markdown"])
        .arg(&report)
        .output()
        .unwrap();
    assert!(cli.status.success(), "{cli:?}");
    let markdown = String::from_utf8(cli.stdout).unwrap();
    let expected: Vec<&str> = markdown.trim_end().lines().collect();
    assert_eq!(
        expected[0],
        format!("## Report summary: `{}`", report.display())
    );
    assert_eq!(
        expected[2],
        "12 entries, 13 185 raw tokens (840 weighted, 4 entries weighted)"
    );
    let summary = &observed["summary"];
    let lines: Vec<&str> = summary["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let shown: Vec<&str> = {
        let end = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        lines[..end].to_vec()
    };
    assert_eq!(shown, expected, "{observed}");

    // A scratch buffer of its own, in a split beside the report.
    assert_eq!(
        summary["name"], "report-summary://机器-valid.report.json",
        "{observed}"
    );
    assert_eq!(summary["filetype"], "markdown");
    assert_eq!(summary["buftype"], "nofile");
    assert_eq!(summary["bufhidden"], "wipe");
    assert_eq!(summary["swapfile"], false);
    assert_eq!(summary["modifiable"], false);
    assert_eq!(summary["windows"], 2);
    assert_eq!(summary["report_shown"], true);

    // gd on the first line naming an entry: the entry's opening brace in
    // the report (its line is the one the summary names, too).
    let from = observed["jump_from"].as_str().unwrap();
    let (_, rest) = from.split_once("entries[").unwrap();
    let (index, rest) = rest.split_once(']').unwrap();
    let index: usize = index.parse().unwrap();
    let named_line: usize = rest
        .split_once("(line ")
        .and_then(|(_, r)| r.split_once(')'))
        .map(|(n, _)| n.parse().unwrap())
        .unwrap();
    let entries = valid
        .lines()
        .position(|l| l.contains("\"entries\""))
        .unwrap();
    let entry_line = valid
        .lines()
        .enumerate()
        .skip(entries)
        .filter(|(_, l)| *l == "    {")
        .nth(index)
        .map(|(i, _)| i)
        .unwrap();
    assert_eq!(observed["jumped_to_report"], true, "{observed}");
    assert_eq!(observed["jumped_to"], "机器-valid.report.json");
    assert_eq!(observed["cursor_line"], entry_line, "{observed}");
    assert_eq!(observed["cursor_col"], 4, "{observed}");
    assert_eq!(named_line, entry_line + 1);
    assert_eq!(observed["summary_still_open"], true, "{observed}");

    // Asked again: the same buffer, shown in its window, no third one.
    assert_eq!(observed["again_same_buffer"], true, "{observed}");
    assert_eq!(observed["again_windows"], 2, "{observed}");

    // No server: a message (a warning), no Lua error.
    let messages = observed["messages"].as_str().unwrap();
    assert!(
        messages.contains("report-lsp: no report-lsp server is attached to this buffer"),
        "{messages}"
    );
    assert!(!messages.contains("E5108"), "{messages}");
    // A Markdown file the server serves, which is no report: its refusal.
    let refused = observed["target_messages"].as_str().unwrap();
    assert!(
        refused.contains("report-lsp: no summary:") && refused.contains("is not a machine report"),
        "{refused}"
    );
    assert!(!refused.contains("E5108"), "{refused}");
    assert_eq!(observed["target_windows"], 3, "{observed}");
}

#[test]
fn debian_neovim_opens_the_summary_in_a_scratch_buffer() {
    let Some(nvim) = debian_neovim() else { return };
    the_summary_opens_in_a_scratch_buffer(&nvim);
}

#[test]
fn neovim_0_11_opens_the_summary_in_a_scratch_buffer() {
    let Some(nvim) = neovim_0_11() else { return };
    the_summary_opens_in_a_scratch_buffer(&nvim);
}
