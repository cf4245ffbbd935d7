//! `report-lsp check` end to end: the real binary, its output and exit codes.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::golden_dir;

fn check(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .arg("check")
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn valid_report_exits_zero() {
    let output = check(&["valid.report.json"], &golden_dir());
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        "checked 1 file: no problems; 1 valid, 0 invalid\n"
    );
}

#[test]
fn invalid_report_exits_one_with_compiler_style_output() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"{
  "schema_version": "1",
  "tool_version": "t",
  "generated_at": "2026-11-29T18:42:07Z",
  "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0},
  "shortlist": ["a.md"],
  "entries": [],
  "promotion_candidates": [],
  "extra": 1
}
"#
    .replace(
        "\"generated_at\": \"2026-11-29T18:42:07Z\"",
        "\"generated_at\": \"2026-11-29 18:42\"",
    );
    std::fs::write(dir.path().join("x.report.json"), text).unwrap();
    let output = check(&["--color", "never", "x.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    expect_test::expect![[r#"
        error[invalid-generated-at]: `generated_at` is "2026-11-29 18:42": not of the form YYYY-MM-DDTHH:MM:SS; expected ISO-8601 UTC such as "2026-11-29T19:07:42Z"
         --> x.report.json:4:19
          |
        4 |   "generated_at": "2026-11-29 18:42",
          |                   ^^^^^^^^^^^^^^^^^^

        info[unknown-field]: unknown field "extra" in the report; consumers ignore it
         --> x.report.json:9:3
          |
        9 |   "extra": 1
          |   ^^^^^^^

        checked 1 file: 1 error, 1 information; 0 valid, 1 invalid
    "#]]
    .assert_eq(&stdout(&output));
}

#[test]
fn information_alone_keeps_a_report_valid() {
    let dir = tempfile::tempdir().unwrap();
    let valid = std::fs::read_to_string(golden_dir().join("valid.report.json")).unwrap();
    std::fs::write(
        dir.path().join("x.report.json"),
        valid.replacen('{', "{\n  \"note\": \"hi\",", 1),
    )
    .unwrap();
    let output = check(&["--format", "json", "x.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["files"][0]["valid"], true);
    assert_eq!(
        json["files"][0]["diagnostics"][0]["severity"],
        "information"
    );
}

#[test]
fn json_format_is_one_object_with_lsp_positions() {
    let dir = tempfile::tempdir().unwrap();
    // The wrong tier sits after a CJK key and an emoji, so UTF-16 columns differ from bytes and chars.
    let valid = std::fs::read_to_string(golden_dir().join("valid.report.json")).unwrap();
    let broken = valid.replacen(
        "\"safety_tier\": \"confirm\"",
        "\"备注😀\": 1, \"safety_tier\": \"auto\"",
        1,
    );
    std::fs::write(dir.path().join("路径.report.json"), &broken).unwrap();
    let output = check(&["--format", "json", "路径.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 1, "exactly one JSON object: {text}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let file = &json["files"][0];
    assert_eq!(file["path"], "路径.report.json");
    assert_eq!(file["valid"], false);
    let tier = file["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "tier-mismatch")
        .expect("a tier-mismatch");
    assert_eq!(tier["severity"], "error");
    let line_no = broken.lines().position(|l| l.contains("备注😀")).unwrap();
    let line = broken.lines().nth(line_no).unwrap();
    let byte_col = line.find("\"auto\"").unwrap();
    let utf16_col = line[..byte_col].encode_utf16().count();
    assert_ne!(utf16_col, byte_col);
    assert_eq!(
        tier["range"]["start"],
        serde_json::json!({"line": line_no, "character": utf16_col})
    );
    assert_eq!(
        tier["range"]["end"],
        serde_json::json!({"line": line_no, "character": utf16_col + 6})
    );
}

#[test]
fn folders_are_searched_for_reports_by_name_and_content() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/one.report.json"), "{}").unwrap();
    std::fs::write(root.join("a/machine-report-2026.json"), "[]").unwrap();
    std::fs::write(
        root.join("a/sniffed.json"),
        r#"{"schema_version": "1", "entries": []}"#,
    )
    .unwrap();
    std::fs::write(
        root.join("package.json"),
        r#"{"name": "x", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(root.join("broken.json"), "{").unwrap();
    std::fs::write(root.join("notes.txt"), "{}").unwrap();
    let output = check(&["--format", "json", "."], root);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let paths: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "./a/b/one.report.json",
            "./a/machine-report-2026.json",
            "./a/sniffed.json"
        ]
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_file_named_explicitly_is_always_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not json").unwrap();
    let output = check(&["--format", "json", "notes.txt"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["files"][0]["diagnostics"][0]["code"], "syntax-error");
}

#[test]
fn io_and_usage_errors_exit_two() {
    let dir = tempfile::tempdir().unwrap();
    let output = check(&["missing.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.report.json: cannot read"));
    let output = check(&[], dir.path());
    assert_eq!(output.status.code(), Some(2));
    let output = check(&["--format", "xml", "a"], dir.path());
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn golden_folder_has_one_valid_and_many_invalid_reports() {
    let output = check(&["--format", "json", "."], &golden_dir());
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let files = json["files"].as_array().unwrap();
    let valid: Vec<&str> = files
        .iter()
        .filter(|f| f["valid"] == true)
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(valid, ["./valid.report.json"]);
    assert_eq!(files.len(), 2 + common::invalid_examples().len());
}

/// The version, and the commit when built from a git checkout (as this test's build is).
#[test]
fn version_flag_prints_the_version_and_commit() {
    let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let prefix = format!("report-lsp {}", env!("CARGO_PKG_VERSION"));
    let rest = text.strip_prefix(&prefix).expect(&text).trim_end();
    let in_git = Path::new(env!("CARGO_MANIFEST_DIR")).join(".git").exists();
    if in_git {
        let commit = rest
            .strip_prefix(" (")
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or_else(|| panic!("no commit in {text:?}"));
        assert!(
            commit.len() >= 7 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
            "{text}"
        );
    } else {
        assert_eq!(rest, "", "{text}");
    }
}

#[test]
fn many_reports_are_checked_in_parallel_in_a_stable_order() {
    let dir = tempfile::tempdir().unwrap();
    let valid = std::fs::read_to_string(golden_dir().join("valid.report.json")).unwrap();
    let broken = std::fs::read_to_string(golden_dir().join("invalid.report.json")).unwrap();
    for i in 0..40 {
        let text = if i % 3 == 0 { &broken } else { &valid };
        std::fs::write(dir.path().join(format!("r{i:02}.report.json")), text).unwrap();
    }
    let first = check(&["--format", "json", "."], dir.path());
    let second = check(&["--format", "json", "."], dir.path());
    assert_eq!(first.stdout, second.stdout);
    let json: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let files = json["files"].as_array().unwrap();
    let paths: Vec<String> = files
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..40).map(|i| format!("./r{i:02}.report.json")).collect();
    assert_eq!(paths, expected);
    for (i, file) in files.iter().enumerate() {
        assert_eq!(file["valid"], i % 3 != 0, "{}", paths[i]);
    }
}

#[test]
fn explain_prints_the_invariant_behind_a_code() {
    let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["explain", "tier-mismatch"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(
        text.starts_with("tier-mismatch (error) enforces invariant 7 of invariants.md:\n\n## 7. The safety tier is computed, never assigned\n"),
        "{text}"
    );
    assert!(text.contains("derive_safety_tier"), "{text}");
    assert!(!text.contains("## 8."), "{text}");

    let unknown = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["explain", "tier-mismatched"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(unknown.stdout.is_empty());
    let err = String::from_utf8(unknown.stderr).unwrap();
    assert!(
        err.contains("no diagnostic code `tier-mismatched`") && err.contains("tier-mismatch,"),
        "{err}"
    );
}
