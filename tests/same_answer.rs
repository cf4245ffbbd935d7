//! Same report, same answer (issue 44): `check --format json`, the open
//! document's publication and `workspace/diagnostic` for the report left
//! unopened agree in codes, ranges, levels, the cap and the count left
//! out, for the same report and project.

mod common;

use std::path::Path;

use common::editor::{Editor, capable_client};
use common::project::{Project, edit_entry, report, sha256};
use common::views::{View, check_view, found_view, open_view, pulling_client, sorted};
use serde_json::{Value, json};

fn uri_of(path: &Path) -> String {
    common::file_uri(path)
}

/// The open document's view of the report at `rel` in `project`.
fn opened(project: &Project, rel: &str, expected: &View) -> (View, Option<Value>) {
    let root = project.path();
    let client = capable_client(&["utf-16"]);
    let mut editor = Editor::start_in_folders_with(client, &[root], json!({}));
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let view = open_view(&mut editor, &uri_of(&path), &text, expected);
    editor.shutdown();
    view
}

/// The unopened report's view of the report at `rel` in `project`.
fn found(project: &Project, rel: &str) -> (View, Option<Value>) {
    let root = project.path();
    let mut editor = Editor::start_in_folders_with(pulling_client(), &[root], json!({}));
    let view = found_view(&mut editor, &uri_of(&root.join(rel)));
    editor.shutdown();
    view
}

/// Asserts that the open document and the unopened report show what
/// `check` does; their summaries of what was left out.
fn the_other_views_are(project: &Project, rel: &str, check: &View) -> [Option<Value>; 2] {
    let (open, open_summary) = opened(project, rel, check);
    assert_eq!(&open, check, "the open document");
    let (unopened, found_summary) = found(project, rel);
    assert_eq!(&unopened, check, "the unopened report");
    [open_summary, found_summary]
}

/// The golden invalid report in a project of its own (its root its own
/// folder, none of the files it names there): its contract problems and its
/// workspace checks' in every view. The unopened report used to get the
/// contract's alone.
#[test]
fn the_golden_invalid_report_in_its_own_project_has_the_same_problems_in_every_view() {
    let project = Project::new();
    let golden = std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap();
    let mut value: Value = serde_json::from_str(&golden).unwrap();
    value["scan"]["project_root"] = json!(".");
    let rel = "hygiene.report.json";
    project.write(rel, &serde_json::to_string_pretty(&value).unwrap());
    let check = sorted(check_view(project.path(), rel));
    let has = |code: &str| check.diagnostics.iter().any(|d| d.0 == code);
    assert!(has("path-missing") && has("tier-mismatch"), "{check:#?}");
    assert_eq!(check.left_out, 0);
    let [open_summary, found_summary] = the_other_views_are(&project, rel, &check);
    assert!(open_summary.is_none() && found_summary.is_none());
}

/// A report large enough that `check` checks its entries in chunks on its
/// pool's threads (4 096 entries and more), while the server checks them on
/// one: the same problems in every view, with the cap cutting through them
/// (a project file's) and without it.
#[test]
fn a_report_checked_in_chunks_has_the_same_problems_in_every_view() {
    let project = Project::new();
    let text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 5_000,
        seed: 12,
        violation_every: 7,
    });
    let rel = "hygiene.report.json";
    project.write(rel, &text);
    let check = sorted(check_view(project.path(), rel));
    assert!(
        check.diagnostics.len() >= 500,
        "{}",
        check.diagnostics.len()
    );
    assert_eq!(check.left_out, 0);
    the_other_views_are(&project, rel, &check);
    project.write("report-lsp.toml", "max-diagnostics = 250\n");
    let capped = sorted(check_view(project.path(), rel));
    assert_eq!(capped.diagnostics.len(), 250);
    assert_eq!(capped.left_out, check.diagnostics.len() - 250);
    the_other_views_are(&project, rel, &capped);
}

/// A project file's cap holds the workspace checks' diagnostics in every
/// view: the same 40 (the first in document order, all warnings), and the
/// same count left out. `check` used to list all 200, the unopened report
/// none of them.
#[test]
fn a_project_files_cap_holds_the_workspace_checks_in_every_view() {
    let project = Project::new();
    let paths: Vec<String> = (0..100).map(|i| format!("docs/gone-{i:03}.md")).collect();
    let empty = json!({"kind": "insert-frontmatter", "key": "k", "value": "v", "expected_sha256": sha256("")});
    let entries = paths.iter().map(|p| edit_entry(p, empty.clone())).collect();
    let shortlist = paths.iter().map(|p| json!(p)).collect();
    project.write_report(&report("2026-11-29T18:42:07Z", shortlist, entries, vec![]));
    project.write("report-lsp.toml", "max-diagnostics = 40\n");
    project.commit_all();
    let rel = "hygiene.report.json";
    let check = sorted(check_view(project.path(), rel));
    // Each path is missing twice: its shortlist item and its entry.
    assert_eq!(check.diagnostics.len(), 40, "{check:#?}");
    assert_eq!(check.left_out, 160);
    assert!(check.diagnostics.iter().all(|d| d.0 == "path-missing"));
    for summary in the_other_views_are(&project, rel, &check) {
        let summary = summary.expect("a summary of those left out");
        let message = summary["message"].as_str().unwrap();
        assert!(
            message.starts_with(
                "160 more problems are not shown (200 in all; the limit is max-diagnostics = 40 in "
            ),
            "{message}"
        );
    }
}

/// A project file's levels, the same in every view: a code raised to error
/// is kept first under the cap, a code turned off takes no place and is
/// not counted, and the summary is at the level the file sets.
#[test]
fn a_project_files_levels_are_the_same_in_every_view() {
    let project = Project::new();
    let paths: Vec<String> = (0..14).map(|i| format!("docs/d-{i:02}.md")).collect();
    let empty = json!({"kind": "insert-frontmatter", "key": "k", "value": "v", "expected_sha256": sha256("")});
    let entries: Vec<Value> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut entry = edit_entry(p, empty.clone());
            // Eight unknown fields (information) before six tier mismatches (errors).
            match i < 8 {
                true => entry["zz"] = json!(1),
                false => entry["safety_tier"] = json!("confirm"),
            }
            entry
        })
        .collect();
    let shortlist = paths.iter().map(|p| json!(p)).collect();
    // A decimal comma in `generated_at` (a hint), turned off.
    let generated_at = "2026-11-29T18:42:07,5Z";
    project.write_report(&report(generated_at, shortlist, entries, vec![]));
    project.write(
        "report-lsp.toml",
        "max-diagnostics = 5\nworkspace-checks = false\n[severity]\nunknown-field = \"error\"\ndecimal-comma = \"off\"\ntoo-many-diagnostics = \"information\"\n",
    );
    let rel = "hygiene.report.json";
    let check = sorted(check_view(project.path(), rel));
    let shown: Vec<(&str, i64)> = (check.diagnostics.iter())
        .map(|d| (d.0.as_str(), d.2))
        .collect();
    assert_eq!(shown, [("unknown-field", 1); 5], "{check:#?}");
    // Three unknown fields and six tier mismatches; not the decimal comma.
    assert_eq!(check.left_out, 9);
    for summary in the_other_views_are(&project, rel, &check) {
        let summary = summary.expect("a summary of those left out");
        assert_eq!(summary["severity"], 3, "{summary}");
        let message = summary["message"].as_str().unwrap();
        assert!(
            message.starts_with("9 more problems are not shown (14 in all;"),
            "{message}"
        );
    }
}

/// A file that is not UTF-8 is `invalid-utf8` at its first bad byte in
/// `check` and in the search for reports alike (which read it lossily and
/// found nothing wrong). An editor cannot send the open view such a text:
/// JSON-RPC carries Unicode, so the byte is gone before the server sees it.
#[test]
fn invalid_utf8_is_found_by_check_and_by_the_search_at_the_same_place() {
    let project = Project::new();
    let name = "01-invalid-utf8.report.json";
    let bytes = std::fs::read(common::golden_dir().join("invalid").join(name)).unwrap();
    std::fs::write(project.path().join(name), bytes).unwrap();
    let check = check_view(project.path(), name);
    let expected = View {
        diagnostics: vec![("invalid-utf8".to_string(), [2, 31, 2, 32], 1)],
        left_out: 0,
    };
    assert_eq!(check, expected);
    let (unopened, summary) = found(&project, name);
    assert_eq!(unopened, expected);
    assert!(summary.is_none());
}
