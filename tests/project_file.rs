//! The project file (`report-lsp.toml`, `[tool.report-lsp]` in a
//! `pyproject.toml`) end to end: `check` finds the nearest, `--config`
//! names one, `--isolated` reads none, flags beat it; the server lays the
//! editor's settings over it, publishes its wrong values as diagnostics in
//! the file, and rechecks when it changes on disk.

mod common;

use std::path::Path;
use std::process::Output;

use common::editor::Editor;
use common::file_uri;
use common::project::Project;
use common::views::{diagnostics_until, severities};
use serde_json::{Value, json};

/// A valid report with three problems: `extra` and `more` (unknown-field,
/// information) and a shortlisted file that does not exist (path-missing,
/// warning).
const REPORT: &str = r#"{
  "schema_version": "1",
  "tool_version": "t",
  "generated_at": "2026-11-29T18:42:07Z",
  "scan": {"project_root": "..", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0},
  "shortlist": ["gone.md"],
  "entries": [],
  "promotion_candidates": [],
  "extra": 1,
  "more": 2
}
"#;

/// A project `项目 🚀/` with the report at `reports/a.report.json`.
fn project() -> Project {
    let project = Project::new();
    project.write("项目 🚀/reports/a.report.json", REPORT);
    project
}

fn check(args: &[&str], dir: &Path) -> Output {
    common::report_lsp(&[&["check"], args].concat(), dir)
}

/// Each diagnostic of a `--format json` run: (code, severity).
fn codes(output: &Output) -> Vec<(String, String)> {
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON output");
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap().clone())
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn check_reads_the_nearest_project_file_and_isolated_reads_none() {
    let project = project();
    let top = project.path().join("项目 🚀");
    project.write(
        "项目 🚀/report-lsp.toml",
        "[severity]\nunknown-field = \"error\"\npath-missing = \"off\"\n",
    );
    let output = check(&["--format", "json", "reports"], &top);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        codes(&output),
        pairs(&[("unknown-field", "error"), ("unknown-field", "error")])
    );

    // From inside the folder below, the file above still governs.
    let output = check(&["--format", "json", "a.report.json"], &top.join("reports"));
    assert_eq!(
        codes(&output),
        pairs(&[("unknown-field", "error"), ("unknown-field", "error")])
    );

    let output = check(&["--isolated", "--format", "json", "reports"], &top);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        codes(&output),
        pairs(&[
            ("path-missing", "warning"),
            ("unknown-field", "information"),
            ("unknown-field", "information")
        ])
    );
}

#[test]
fn a_pyproject_table_is_read_and_a_report_lsp_toml_beside_it_wins() {
    let project = project();
    let top = project.path().join("项目 🚀");
    project.write(
        "项目 🚀/pyproject.toml",
        "[project]\nname = \"docs\"\n\n[tool.report-lsp]\nworkspace-checks = false\n",
    );
    let output = check(&["--format", "json", "reports"], &top);
    assert_eq!(
        codes(&output),
        pairs(&[
            ("unknown-field", "information"),
            ("unknown-field", "information")
        ])
    );
    project.write(
        "项目 🚀/report-lsp.toml",
        "[severity]\nunknown-field = \"off\"\n",
    );
    let output = check(&["--format", "json", "reports"], &top);
    assert_eq!(codes(&output), pairs(&[("path-missing", "warning")]));
}

#[test]
fn a_wrong_value_fails_the_check_at_its_place_and_the_others_hold() {
    let project = project();
    let top = project.path().join("项目 🚀");
    project.write(
        "项目 🚀/report-lsp.toml",
        "# 报告 🚀\nworkspace-checks = false\nmax-diagnostics = \"ten\"\n[severity]\ntier-mismatch = \"hint\"\n",
    );
    let output = check(&["--format", "json", "reports"], &top);
    assert_eq!(output.status.code(), Some(2));
    // The values it takes still hold: no workspace checks.
    assert_eq!(
        codes(&output),
        pairs(&[
            ("unknown-field", "information"),
            ("unknown-field", "information")
        ])
    );
    let human = check(&["--color", "never", "reports"], &top);
    let errors = stderr(&human);
    assert!(
        errors.contains(
            "error: report-lsp.toml:3:19: `max-diagnostics` refused: expected a whole number of at least 1, found a string; the default is used"
        ),
        "{errors}"
    );
    assert!(
        errors.contains("error: report-lsp.toml:5:17: `tier-mismatch` enforces invariant 7"),
        "{errors}"
    );
    assert_eq!(errors.matches("report-lsp.toml:").count(), 2, "{errors}");
}

#[test]
fn flags_beat_the_file_and_config_names_another() {
    let project = project();
    let top = project.path().join("项目 🚀");
    project.write("项目 🚀/report-lsp.toml", "max-diagnostics = 1\n");
    let output = check(&["--color", "never", "reports"], &top);
    let shown = String::from_utf8(output.stdout).unwrap();
    // The workspace check's `path-missing` (a warning) is under the cap too,
    // and shown before the two unknown fields (information).
    assert!(
        shown.contains("2 more problems are not shown (0 errors among them; the limit is max-diagnostics = 1 in report-lsp.toml, errors first)"),
        "{shown}"
    );
    let output = check(
        &["--max-diagnostics", "5", "--format", "json", "reports"],
        &top,
    );
    assert_eq!(codes(&output).len(), 3);

    project.write("other.toml", "[severity]\npath-missing = \"error\"\n");
    let other = project.path().join("other.toml");
    let output = check(
        &[
            "--config",
            other.to_str().unwrap(),
            "--format",
            "json",
            "reports",
        ],
        &top,
    );
    assert_eq!(
        codes(&output),
        pairs(&[
            ("path-missing", "error"),
            ("unknown-field", "information"),
            ("unknown-field", "information")
        ])
    );
    let output = check(&["--config", "missing.toml", "reports"], &top);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("missing.toml: cannot read the project file (--config)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_files_globs_choose_what_a_folder_search_checks() {
    let project = project();
    let top = project.path().join("项目 🚀");
    // Not JSON, so no sniffing finds it: only a glob makes it a report.
    project.write("项目 🚀/out/nightly.json", "{ not json");
    let output = check(&["--format", "json", "."], &top);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["files"], 1, "{report}");
    project.write("项目 🚀/report-lsp.toml", "files = [\"out/*.json\"]\n");
    let output = check(&["--format", "json", "."], &top);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let paths: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"./out/nightly.json"), "{paths:?}");
    assert_eq!(output.status.code(), Some(1));
}

// The server.

fn start(folder: &Path, options: Value) -> Editor {
    Editor::start_in_folders_with(
        common::editor::capable_client(&["utf-16"]),
        &[folder],
        options,
    )
}

#[test]
fn the_server_reports_at_the_files_levels_and_rechecks_when_it_changes() {
    let project = project();
    let top = project.path().join("项目 🚀");
    project.write(
        "项目 🚀/report-lsp.toml",
        "[severity]\nunknown-field = \"error\"\n",
    );
    let mut editor = start(project.path(), json!({"findReports": false}));
    let uri = file_uri(&top.join("reports/a.report.json"));
    editor.open(&uri, REPORT, 1);
    let found = diagnostics_until(&mut editor, &uri, |d| d.len() == 3);
    assert_eq!(
        severities(&found),
        [
            ("path-missing".to_string(), 2),
            ("unknown-field".to_string(), 1),
            ("unknown-field".to_string(), 1)
        ]
    );

    // Changed on disk: the watcher's notification rechecks the report.
    project.write(
        "项目 🚀/report-lsp.toml",
        "[severity]\nunknown-field = \"off\"\npath-missing = \"hint\"\n",
    );
    let toml_uri = file_uri(&top.join("report-lsp.toml"));
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": toml_uri, "type": 2}]}),
    );
    let found = diagnostics_until(&mut editor, &uri, |d| d.len() == 1);
    assert_eq!(severities(&found), [("path-missing".to_string(), 4)]);

    // Deleted: the defaults again.
    std::fs::remove_file(top.join("report-lsp.toml")).unwrap();
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": toml_uri, "type": 3}]}),
    );
    let found = diagnostics_until(&mut editor, &uri, |d| d.len() == 3);
    assert_eq!(
        severities(&found),
        [
            ("path-missing".to_string(), 2),
            ("unknown-field".to_string(), 3),
            ("unknown-field".to_string(), 3)
        ]
    );
    editor.shutdown();
}

#[test]
fn editor_settings_beat_the_file_and_a_wrong_value_is_a_diagnostic_in_it() {
    let project = project();
    let top = project.path().join("项目 🚀");
    let text = "# 报告 🚀\nmax-diagnostics = 1\nworkspace-checks = \"maybe\"\n";
    project.write("项目 🚀/report-lsp.toml", text);
    let toml_uri = file_uri(&top.join("report-lsp.toml"));
    let uri = file_uri(&top.join("reports/a.report.json"));

    // The file's limit holds where the editor sets none.
    let mut editor = start(project.path(), json!({"findReports": false}));
    editor.open(&uri, REPORT, 1);
    let problems = diagnostics_until(&mut editor, &toml_uri, |d| !d.is_empty());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["code"], "project-file");
    assert_eq!(problems[0]["severity"], 1);
    // UTF-16 columns, on the third line.
    assert_eq!(
        problems[0]["range"],
        json!({"start": {"line": 2, "character": 19}, "end": {"line": 2, "character": 26}})
    );
    assert!(
        problems[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("`workspace-checks` refused"),
        "{problems:?}"
    );
    let found = diagnostics_until(&mut editor, &uri, |d| {
        // The workspace checks' come after the report's own.
        d.len() == 2
            && d.iter().any(|d| {
                d["code"] == "too-many-diagnostics"
                    && d["message"].as_str().unwrap().contains("(3 in all")
            })
    });
    let summary = found
        .iter()
        .find(|d| d["code"] == "too-many-diagnostics")
        .unwrap();
    assert!(
        summary["message"]
            .as_str()
            .unwrap()
            .contains("the limit is max-diagnostics = 1 in /"),
        "{summary}"
    );
    // One diagnostic kept, of the two unknown fields and the workspace
    // check's (under the same cap), and the summary counting all three.
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        summary["message"]
            .as_str()
            .unwrap()
            .contains("2 more problems are not shown (3 in all"),
        "{summary}"
    );

    // Fixed on disk: its diagnostics are withdrawn.
    project.write("项目 🚀/report-lsp.toml", "max-diagnostics = 1\n");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": toml_uri, "type": 2}]}),
    );
    diagnostics_until(&mut editor, &toml_uri, |d| d.is_empty());
    editor.shutdown();

    // The editor's own setting beats the file's.
    let mut editor = start(
        project.path(),
        json!({"findReports": false, "maxDiagnostics": 10}),
    );
    editor.open(&uri, REPORT, 1);
    let found = diagnostics_until(&mut editor, &uri, |d| d.len() == 3);
    assert!(
        found.iter().all(|d| d["code"] != "too-many-diagnostics"),
        "{found:?}"
    );
    editor.shutdown();
}

#[test]
fn an_unopened_report_follows_the_project_file_of_its_own_folder() {
    let project = project();
    let top = project.path().join("项目 🚀");
    // Below the workspace folder's root: only the report's folder has one.
    project.write(
        "项目 🚀/reports/report-lsp.toml",
        "[severity]\nunknown-field = \"warning\"\n",
    );
    let mut editor = start(project.path(), json!({"diagnoseUnopenedReports": true}));
    let uri = file_uri(&top.join("reports/a.report.json"));
    // Its workspace check too (`gone.md` is missing), as when it is open.
    let found = diagnostics_until(&mut editor, &uri, |d| d.len() == 3);
    assert_eq!(
        severities(&found),
        [
            ("path-missing".to_string(), 2),
            ("unknown-field".to_string(), 2),
            ("unknown-field".to_string(), 2)
        ]
    );

    // The report itself unchanged on disk, its project file changed: read again.
    project.write(
        "项目 🚀/reports/report-lsp.toml",
        "[severity]\nunknown-field = \"hint\"\n",
    );
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&top.join("reports/report-lsp.toml")), "type": 2}]}),
    );
    let found = diagnostics_until(&mut editor, &uri, |d| {
        let mut unknown = d.iter().filter(|d| d["code"] == "unknown-field");
        d.len() == 3 && unknown.clone().count() == 2 && unknown.all(|d| d["severity"] == 4)
    });
    assert_eq!(found.len(), 3);
    editor.shutdown();
}
