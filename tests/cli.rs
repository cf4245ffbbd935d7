//! `report-lsp check` end to end: the real binary, its output and exit codes.

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::golden_dir;

fn check(args: &[&str], dir: &Path) -> Output {
    run(&[&["check"], args].concat(), dir)
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

/// A folder with `x.report.json`: the valid golden report plus an unknown
/// field, so its one diagnostic is information.
fn valid_report_with_an_unknown_field() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let valid = std::fs::read_to_string(golden_dir().join("valid.report.json")).unwrap();
    std::fs::write(
        dir.path().join("x.report.json"),
        valid.replacen('{', "{\n  \"note\": \"hi\",", 1),
    )
    .unwrap();
    dir
}

#[test]
fn information_alone_keeps_a_report_valid() {
    let dir = valid_report_with_an_unknown_field();
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
    let paths = checked_paths(&json);
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
fn golden_folder_has_valid_and_invalid_reports() {
    let output = check(&["--format", "json", "."], &golden_dir());
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let files = json["files"].as_array().unwrap();
    let valid: Vec<&str> = files
        .iter()
        .filter(|f| f["valid"] == true)
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let mut expected: Vec<String> = common::valid_examples()
        .iter()
        .map(|p| format!("./valid/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    expected.push("./valid.report.json".into());
    assert_eq!(valid, expected);
    assert_eq!(
        files.len(),
        2 + common::invalid_examples().len() + common::valid_examples().len()
    );
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

/// A small report with an error that has related places and a fix
/// (an entry outside the shortlist), a wrong tier (a fix) and an unknown field.
const SMALL_REPORT: &str = r#"{
  "schema_version": "1",
  "tool_version": "t",
  "generated_at": "2026-11-29T18:42:07Z",
  "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 1},
  "shortlist": ["a.md"],
  "entries": [
    {
      "path": "b.md",
      "category": {"class": "bloat", "subtype": "distill"},
      "signals": [],
      "op": "distill",
      "op_type": "generative",
      "is_destructive": false,
      "is_reversible": true,
      "safety_tier": "auto",
      "token_estimate": {"raw_tokens": 3}
    }
  ],
  "promotion_candidates": [],
  "notes": "😀"
}
"#;

fn run(args: &[&str], dir: &Path) -> Output {
    common::report_lsp(args, dir)
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn small_report_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.report.json"), SMALL_REPORT).unwrap();
    dir
}

#[test]
fn sarif_output_is_one_run_with_rules_regions_and_fixes() {
    let dir = small_report_dir();
    let output = check(&["--format", "sarif", "small.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let sarif: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    assert_eq!(sarif["runs"].as_array().unwrap().len(), 1);
    assert_eq!(run["columnKind"], "utf16CodeUnits");
    assert_eq!(run["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(run["tool"]["driver"].get("informationUri").is_none());
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let region = &result["locations"][0]["physicalLocation"]["region"];
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[key].as_u64().unwrap() >= 1, "{key} is 1-based");
        }
    }
    // Rules quote invariants.md, which has its own tests: checked here, then
    // left out of the snapshot with the version and paths, as ruff redacts.
    let mut redacted = sarif.clone();
    for rule in redacted["runs"][0]["tool"]["driver"]["rules"]
        .as_array_mut()
        .unwrap()
    {
        let code = report_core::diagnostic::Code::parse(rule["id"].as_str().unwrap()).unwrap();
        let explanation = report_core::docs::explain(code);
        assert_eq!(rule["help"]["text"], explanation.as_str());
        assert_eq!(rule["help"]["markdown"], explanation.as_str());
        let body = report_core::docs::invariant_body(code.invariant()).unwrap();
        assert_eq!(rule["fullDescription"]["text"], body);
        rule["help"] = serde_json::json!("[explain CODE]");
        rule["fullDescription"] = serde_json::json!("[the invariant's words]");
    }
    redacted["runs"][0]["tool"]["driver"]["version"] = serde_json::json!("[VERSION]");
    let redacted = serde_json::to_string_pretty(&redacted)
        .unwrap()
        .replace(&*dir.path().to_string_lossy(), "[TMP]");
    expect_test::expect_file!["snapshots/small.sarif"].assert_eq(&redacted);
}

#[test]
fn github_format_prints_workflow_commands() {
    let dir = small_report_dir();
    std::fs::write(dir.path().join("50%,x.report.json"), "{").unwrap();
    let output = check(
        &[
            "--format",
            "github",
            "small.report.json",
            "50%,x.report.json",
            "missing.json",
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    expect_test::expect![[r#"
        ::error file=missing.json,title=report-lsp::cannot read: No such file or directory (os error 2)
        ::error file=small.report.json,line=9,col=15,endLine=9,endColumn=21,title=entry-path-not-in-shortlist::`entries[0].path` "b.md" is not in the shortlist; every entry's path must be a shortlist member%0Asmall.report.json:6:16: the shortlist the scanner produced%0Afix: Add "b.md" to shortlist
        ::error file=small.report.json,line=16,col=22,endLine=16,endColumn=28,title=tier-mismatch::`entries[0].safety_tier` is "auto" but derive_safety_tier gives "confirm" because op_type is "generative"; the tier is derived, never assigned%0Afix: Set safety_tier to "confirm" (derived)
        ::notice file=small.report.json,line=21,col=3,endLine=21,endColumn=10,title=unknown-field::unknown field "notes" in the report; consumers ignore it
        ::error file=50%25%2Cx.report.json,line=1,col=1,endLine=1,endColumn=2,title=syntax-error::invalid JSON: unterminated object: the text ends before it is closed
    "#]]
    .assert_eq(&stdout(&output));
}

#[test]
fn json_format_has_related_places_fixes_failures_and_a_summary() {
    let dir = small_report_dir();
    let output = check(
        &["--format", "json", "small.report.json", "missing.json"],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let diagnostics = json["files"][0]["diagnostics"].as_array().unwrap();
    let outside = &diagnostics[0];
    assert_eq!(outside["code"], "entry-path-not-in-shortlist");
    assert_eq!(
        outside["related"][0]["message"],
        "the shortlist the scanner produced"
    );
    assert_eq!(outside["related"][0]["range"]["start"]["line"], 5);
    // A fix, but not one `--fix` applies on its own: the path may be the typo.
    assert_eq!(outside["fixable"], false);
    assert_eq!(outside["fix"]["preferred"], false);
    assert_eq!(outside["fix"]["title"], "Add \"b.md\" to shortlist");
    let tier = diagnostics
        .iter()
        .find(|d| d["code"] == "tier-mismatch")
        .unwrap();
    assert_eq!(tier["fixable"], true);
    assert_eq!(outside["fix"]["edits"][0]["new_text"], ", \"b.md\"");
    let unknown = diagnostics
        .iter()
        .find(|d| d["code"] == "unknown-field")
        .unwrap();
    assert_eq!(unknown["fixable"], false);
    assert_eq!(unknown["fix"], serde_json::Value::Null);
    assert_eq!(json["failures"][0]["path"], "missing.json");
    assert_eq!(
        json["summary"],
        serde_json::json!({
            "files": 1, "valid": 0, "invalid": 1, "errors": 2, "warnings": 0,
            "information": 1, "hints": 0, "fixable": 1, "fixed": 0, "failures": 1, "omitted": 0
        })
    );
}

#[test]
fn a_missing_path_shows_in_every_format_and_exits_two() {
    let dir = small_report_dir();
    for format in ["human", "json", "sarif", "github"] {
        let output = check(
            &["--format", format, "small.report.json", "gone.report.json"],
            dir.path(),
        );
        assert_eq!(output.status.code(), Some(2), "{format}");
        assert!(
            stderr(&output).contains("gone.report.json: cannot read"),
            "{format}"
        );
        let shown = stdout(&output);
        match format {
            "human" => assert!(shown.ends_with("; 1 failure (see above)\n"), "{shown}"),
            _ => assert!(shown.contains("gone.report.json"), "{format}: {shown}"),
        }
    }
    let sarif: serde_json::Value = serde_json::from_slice(
        &check(&["--format", "sarif", "gone.report.json"], dir.path()).stdout,
    )
    .unwrap();
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
            ["uri"],
        "gone.report.json"
    );
}

#[test]
fn a_folder_without_reports_fails_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("empty/package.json"), "{\"name\": \"x\"}").unwrap();
    let output = check(&["empty"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no report found"),
        "{}",
        stderr(&output)
    );
    let output = check(&["--format", "json", "empty"], dir.path());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        json["failures"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no report found")
    );
    let output = check(&["--allow-empty", "empty"], dir.path());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "checked 0 files: no problems; 0 valid, 0 invalid\n"
    );
}

#[test]
fn a_dash_reads_standard_input_under_the_name_given() {
    let dir = small_report_dir();
    for (args, shown) in [
        (vec!["check", "--format", "json", "-"], "<stdin>"),
        (
            vec![
                "check",
                "--format",
                "json",
                "--stdin-filename",
                "in.report.json",
                "-",
            ],
            "in.report.json",
        ),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
            .args(&args)
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(SMALL_REPORT.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["files"][0]["path"], shown);
        assert_eq!(json["summary"]["errors"], 2);
    }
}

/// Waits for `child` at most ten seconds, so a hang fails the test instead of stalling it.
fn wait_bounded(child: std::process::Child) -> Output {
    wait_within(child, 10)
}

/// Waits for `child` at most `seconds`, then kills it and fails.
fn wait_within(mut child: std::process::Child, seconds: u64) -> Output {
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(seconds) {
            let _ = child.kill();
            panic!("the check hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn fifos_and_devices_are_refused_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.report.json");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        let child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
            .args(["check", path])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = wait_bounded(child);
        assert_eq!(output.status.code(), Some(2), "{path}");
        assert!(
            stderr(&output).contains("not a regular file"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn quiet_prints_only_problems() {
    let dir = small_report_dir();
    let output = check(
        &["--quiet", "--color", "never", "small.report.json"],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.starts_with("error[entry-path-not-in-shortlist]"),
        "{text}"
    );
    assert!(!text.contains("checked 1 file"), "{text}");
    let output = check(
        &["-q"],
        &golden_dir()
            .join("valid.report.json")
            .parent()
            .unwrap()
            .join("."),
    );
    assert_eq!(output.status.code(), Some(2));
    let output = check(&["-q", "valid.report.json"], &golden_dir());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "");
}

#[test]
fn deny_makes_less_severe_diagnostics_fail() {
    let dir = valid_report_with_an_unknown_field();
    for (deny, code) in [
        (None, 0),
        (Some("warnings"), 0),
        (Some("information"), 1),
        (Some("hints"), 1),
    ] {
        let mut args = vec!["x.report.json"];
        if let Some(deny) = deny {
            args.extend(["--deny", deny]);
        }
        assert_eq!(
            check(&args, dir.path()).status.code(),
            Some(code),
            "{deny:?}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_check_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let broken = std::fs::read_to_string(golden_dir().join("invalid.report.json")).unwrap();
    for i in 0..30 {
        std::fs::write(dir.path().join(format!("r{i:02}.report.json")), &broken).unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["check", "."])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Like `| head -1`: read a little, then close the pipe.
    let mut first = [0u8; 16];
    let _ = child.stdout.as_mut().unwrap().read(&mut first);
    drop(child.stdout.take());
    let output = wait_bounded(child);
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn force_color_colours_a_pipe_and_no_color_wins() {
    let dir = small_report_dir();
    let coloured = |vars: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_report-lsp"));
        command
            .args(["check", "small.report.json"])
            .current_dir(dir.path())
            .env_remove("NO_COLOR")
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE");
        for (name, value) in vars {
            command.env(name, value);
        }
        stdout(&command.output().unwrap()).contains('\u{1b}')
    };
    assert!(!coloured(&[]));
    assert!(coloured(&[("FORCE_COLOR", "1")]));
    assert!(coloured(&[("CLICOLOR_FORCE", "1")]));
    assert!(!coloured(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]));
}

#[test]
fn fix_writes_the_fixes_atomically_and_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = small_report_dir();
    let path = dir.path().join("small.report.json");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let output = check(
        &["--fix", "--color", "never", "small.report.json"],
        dir.path(),
    );
    // The entry outside the shortlist has no preferred fix, so it is left, and reported.
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(
        stdout(&output).lines().last().unwrap(),
        "checked 1 file: 1 error, 1 information; 0 valid, 1 invalid; fixed 1 problem"
    );
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        fixed,
        SMALL_REPORT.replace("\"safety_tier\": \"auto\"", "\"safety_tier\": \"confirm\"")
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["small.report.json"], "no temporary file is left");
    // Nothing left to fix: the file is not written again.
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    assert_eq!(
        check(&["--fix", "small.report.json"], dir.path())
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn diff_prints_the_fixes_and_writes_nothing() {
    let dir = small_report_dir();
    let output = check(&["--diff", "small.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    expect_test::expect![[r#"
        --- a/small.report.json
        +++ b/small.report.json
        @@ -13,7 +13,7 @@
               "op_type": "generative",
               "is_destructive": false,
               "is_reversible": true,
        -      "safety_tier": "auto",
        +      "safety_tier": "confirm",
               "token_estimate": {"raw_tokens": 3}
             }
           ],
    "#]]
    .assert_eq(&stdout(&output));
    let text = std::fs::read_to_string(dir.path().join("small.report.json")).unwrap();
    assert_eq!(text, SMALL_REPORT);
    let clean = check(&["--diff", "valid.report.json"], &golden_dir());
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(stdout(&clean), "");
}

#[test]
fn fix_refuses_standard_input() {
    let dir = small_report_dir();
    let output = check(&["--fix", "-"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--fix cannot write standard input"));
}

fn error_count(text: &[u8]) -> usize {
    report_core::analyze_with(text.to_vec(), report_core::AnalysisOptions::default())
        .diagnostics
        .iter()
        .filter(|d| d.severity == report_core::diagnostic::Severity::Error)
        .count()
}

/// `check --fix` over every golden invalid report: no preferred (fix-all)
/// fix is left, the error count never grows, and a file with nothing to fix
/// is left byte for byte.
#[test]
fn fix_of_every_golden_invalid_report_leaves_no_fixable_error_and_never_more_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut examples = common::invalid_examples();
    examples.push(golden_dir().join("invalid.report.json"));
    for example in examples {
        let name = example.file_name().unwrap().to_string_lossy().into_owned();
        let before = std::fs::read(&example).unwrap();
        let copy = dir.path().join(&name);
        std::fs::write(&copy, &before).unwrap();
        let output = check(&["--fix", "--format", "json", &name], dir.path());
        assert_ne!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        let after = std::fs::read(&copy).unwrap();
        assert!(error_count(&after) <= error_count(&before), "{name}");
        let analysis =
            report_core::analyze_with(after.clone(), report_core::AnalysisOptions::default());
        let left: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.fix.as_ref().is_some_and(|f| f.preferred))
            .map(|d| d.code)
            .collect();
        assert!(
            left.is_empty(),
            "{name}: fixable diagnostics left: {left:?}"
        );
        if report_core::fix_all::fix_all(&String::from_utf8_lossy(&before)).is_none()
            || before.len() != String::from_utf8_lossy(&before).len()
        {
            assert_eq!(after, before, "{name} had nothing to fix but was written");
        }
        // What the check reports is the fixed file.
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            json["summary"]["errors"].as_u64().unwrap() as usize,
            error_count(&after),
            "{name}"
        );
    }
}

#[test]
fn completions_and_the_man_page_come_from_the_argument_definitions() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let output = run(&["completions", shell], dir.path());
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = stdout(&output);
        assert!(script.contains("stdin-filename"), "{shell}: {script}");
        assert!(script.contains("allow-empty"), "{shell}");
    }
    let output = run(&["man"], dir.path());
    assert_eq!(output.status.code(), Some(0));
    let page = stdout(&output);
    assert!(page.contains(".TH report-lsp"), "{page}");
    assert!(page.contains("check"), "{page}");
    // Hidden: they are for packagers, not in the help.
    let help = stdout(&run(&["--help"], dir.path()));
    assert!(
        !help.contains("completions") && help.contains("schema"),
        "{help}"
    );
}

#[test]
fn explain_shows_a_failing_and_a_passing_example_for_every_file_code() {
    let dir = tempfile::tempdir().unwrap();
    for code in report_core::diagnostic::Code::ALL {
        let output = run(&["explain", code.as_str()], dir.path());
        assert_eq!(output.status.code(), Some(0), "{code}");
        let text = stdout(&output);
        // The server's limits and the workspace checks are not properties of a file alone.
        if matches!(code.invariant(), 12 | 13) {
            assert!(text.contains("No example"), "{text}");
            continue;
        }
        let failing = text
            .find("\nFailing example (examples/golden/")
            .unwrap_or_else(|| panic!("{text}"));
        let passing = text
            .find("\nPassing example (")
            .unwrap_or_else(|| panic!("{text}"));
        assert!(failing < passing, "{text}");
        assert!(
            text[failing..passing].contains(&format!("[{code}]: ")),
            "{text}"
        );
    }
    let text = stdout(&run(&["explain", "tier-mismatch"], dir.path()));
    assert!(
        text.contains("\"safety_tier\": \"auto\",")
            && text.contains("after the fix: Set safety_tier"),
        "{text}"
    );
}

#[test]
fn the_pre_commit_hook_runs_check_on_report_names() {
    let hooks = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    assert!(hooks.contains("entry: report-lsp check"), "{hooks}");
    assert!(
        hooks.contains(r"files: '\.report\.json$|machine-report.*\.json$'"),
        "{hooks}"
    );
}

/// Bare `report-lsp` typed at a terminal says what it is, on one line of
/// stderr, and then serves as always.
#[test]
fn the_bare_command_on_a_terminal_says_it_speaks_lsp() {
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut controller, mut terminal) = (-1, -1);
    // SAFETY: openpty writes two new descriptors into the two ints; no other pointers are read.
    let opened = unsafe {
        libc::openpty(
            &mut controller,
            &mut terminal,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    // A container without /dev/ptmx has no terminal to test with.
    let why = std::io::Error::last_os_error();
    if !common::present(opened == 0, &format!("a terminal (openpty failed: {why})")) {
        return;
    }
    // SAFETY: both descriptors were just opened and are owned by nothing else.
    let (controller, terminal) = unsafe {
        (
            OwnedFd::from_raw_fd(controller),
            OwnedFd::from_raw_fd(terminal),
        )
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .stdin(Stdio::from(terminal))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr_pipe = child.stderr.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while stderr_pipe.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        let _ = sender.send(String::from_utf8_lossy(&line).into_owned());
    });
    let line = receiver.recv_timeout(std::time::Duration::from_secs(10));
    // Still serving: it did not exit after the hint.
    let still_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    drop(controller);
    let line = line.expect("one line on stderr");
    assert!(line.contains("Language Server Protocol"), "{line}");
    assert!(line.contains("report-lsp check PATH"), "{line}");
    assert!(still_running);
}

/// An editor never attaches a terminal: then nothing extra is printed.
#[test]
fn the_bare_command_without_a_terminal_prints_no_hint() {
    let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_bounded(output);
    assert!(
        !stderr(&output).contains("Language Server Protocol"),
        "{}",
        stderr(&output)
    );
}

/// A comma deleted in one entry: the CLI reports the syntax error and every
/// violation outside that entry, as the server does.
#[test]
fn a_syntax_error_costs_only_the_entry_it_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(golden_dir().join("invalid.report.json")).unwrap();
    let intact = report_core::analyze(&text);
    let at = text.find("\"op\": ").unwrap();
    let comma = at + text[at..].find(',').unwrap();
    let mut broken = text.clone();
    broken.remove(comma);
    std::fs::write(dir.path().join("broken.report.json"), &broken).unwrap();
    let output = check(&["--format", "json", "broken.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let shown: Vec<String> = json["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        shown.iter().filter(|c| *c == "syntax-error").count(),
        1,
        "{shown:?}"
    );
    let entry = intact
        .entries
        .iter()
        .find(|e| e.range.start < at && at < e.range.end)
        .unwrap();
    let outside = intact
        .diagnostics
        .iter()
        .filter(|d| d.range.end <= entry.range.start || d.range.start >= entry.range.end)
        .count();
    assert!(outside >= 4, "{outside}");
    assert_eq!(shown.len(), outside + 1, "{shown:?}");
}

#[test]
fn a_long_line_is_shown_as_a_window_with_its_true_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("min.report.json"),
        common::reports::many_errors_report(50, true),
    )
    .unwrap();
    let output = check(&["--color", "never", "min.report.json"], dir.path());
    let text = stdout(&output);
    let source = common::reports::many_errors_report(50, true);
    let last = source.rfind("\"category\": 5").unwrap() + "\"category\": ".len();
    let column = source[..last].chars().count() + 1;
    assert!(
        text.contains(&format!("--> min.report.json:1:{column}")),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.trim() == ":::"), "{text}");
    assert!(text.lines().all(|l| l.len() < 400), "{text}");
}

#[test]
fn links_in_a_folder_are_followed_inside_it_and_the_skipped_ones_said() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("real")).unwrap();
    let report = std::fs::read(golden_dir().join("invalid/03-schema-version.report.json")).unwrap();
    std::fs::write(tree.join("real/a.report.json"), &report).unwrap();
    std::fs::write(outside.path().join("o.report.json"), &report).unwrap();
    symlink(
        tree.join("real/a.report.json"),
        tree.join("linked.report.json"),
    )
    .unwrap();
    symlink(
        tree.join("nowhere.report.json"),
        tree.join("dangling.report.json"),
    )
    .unwrap();
    symlink(
        outside.path().join("o.report.json"),
        tree.join("out.report.json"),
    )
    .unwrap();
    symlink(&tree, tree.join("real/loop")).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .current_dir(dir.path())
        .args(["check", "--format", "json", "tree"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_bounded(child);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let paths = checked_paths(&json);
    assert_eq!(
        paths,
        ["tree/linked.report.json", "tree/real/a.report.json"]
    );
    let err = stderr(&output);
    assert!(
        err.contains("tree/dangling.report.json: skipped: a dangling link"),
        "{err}"
    );
    assert!(
        err.contains("tree/out.report.json: skipped: a link to a file outside"),
        "{err}"
    );
    assert!(
        err.contains("tree/real/loop: skipped: a link to a folder"),
        "{err}"
    );
    assert_eq!(output.status.code(), Some(1), "{err}");
}

#[test]
fn a_name_that_is_not_utf8_is_shown_with_its_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let report = std::fs::read(golden_dir().join("invalid/03-schema-version.report.json")).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9-\xff.report.json");
    std::fs::write(dir.path().join(name), &report).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .current_dir(dir.path())
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["files"][0]["path"], "./caf\\xE9-\\xFF.report.json",
        "{json}"
    );
}

#[test]
fn a_file_growing_while_read_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.report.json");
    std::fs::write(&path, b"{\"schema_version\": \"1\", \"entries\": [").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (path, stop) = (path.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
            let start = file.metadata().unwrap().len();
            let chunk = "0,".repeat(1 << 10);
            // Grows to 1 MB in small steps, is cut back and grows again, for
            // as long as the checks run: a check that starts late on a loaded
            // machine still finds it changing, and the disk is spared.
            let mut written = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if written >= 1 << 20 {
                    file.set_len(start).unwrap();
                    written = 0;
                }
                file.write_all(chunk.as_bytes()).unwrap();
                written += chunk.len();
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        })
    };
    let mut changed = 0;
    for _ in 0..20 {
        if changed > 0 {
            break;
        }
        let output = check(&["--format", "json", "growing.report.json"], dir.path());
        let code = output.status.code();
        assert!(
            matches!(code, Some(1) | Some(2)),
            "{code:?} {}",
            stderr(&output)
        );
        if code == Some(2) {
            assert!(
                stderr(&output).contains("changed while being read"),
                "{}",
                stderr(&output)
            );
            changed += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    assert!(
        changed > 0,
        "a file appended to all along was never seen changing"
    );
}

/// The paths of the checked files in `--format json` output, in order.
fn checked_paths(json: &serde_json::Value) -> Vec<&str> {
    json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect()
}

#[test]
fn max_diagnostics_lists_errors_first_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    // 300 scalar entries (errors) after an unknown field at the start (a warning).
    let zeros = vec!["0"; 300].join(",");
    let text = format!("{{\"schema_version\":\"1\",\"zzz\":1,\"entries\":[{zeros}]}}");
    std::fs::write(dir.path().join("a.report.json"), &text).unwrap();
    let all = report_core::analyze(&text).problems();
    let output = check(
        &[
            "--format",
            "json",
            "--max-diagnostics",
            "5",
            "a.report.json",
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let file = &json["files"][0];
    let listed = file["diagnostics"].as_array().unwrap();
    assert_eq!(listed.len(), 5);
    assert!(
        listed.iter().all(|d| d["severity"] == "error"),
        "{listed:?}"
    );
    assert_eq!(file["omitted"], all - 5);
    assert_eq!(json["summary"]["omitted"], all - 5);
    let summary = &json["summary"];
    let counted: u64 = ["errors", "warnings", "information", "hints"]
        .iter()
        .map(|k| summary[k].as_u64().unwrap())
        .sum();
    assert_eq!(counted as usize, all);
    // Human output: the five, then a note with the count.
    let output = check(&["--max-diagnostics", "5", "a.report.json"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let human = stdout(&output);
    assert_eq!(human.matches("error[").count(), 5, "{human}");
    assert!(
        human.contains(&format!(
            "note: a.report.json: {} more problems are not shown",
            all - 5
        )),
        "{human}"
    );
}

#[test]
fn two_million_errors_are_checked_under_an_address_space_limit() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let zeros = vec!["0"; 2_000_000].join(",");
    let text = format!("{{\"schema_version\":\"1\",\"entries\":[{zeros}]}}");
    std::fs::write(dir.path().join("a.report.json"), &text).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_report-lsp"));
    command
        .args(["check", "--format", "json", "a.report.json"])
        .current_dir(dir.path());
    // 13 GB before, all two million kept; now a little under 1 GB.
    let limit = libc::rlimit {
        rlim_cur: 3 << 30,
        rlim_max: 3 << 30,
    };
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(move || match libc::setrlimit(libc::RLIMIT_AS, &limit) {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        });
    }
    let output = command.output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["files"][0]["diagnostics"].as_array().unwrap().len(),
        100_000
    );
    assert!(json["summary"]["errors"].as_u64().unwrap() > 2_000_000);
    assert_eq!(
        json["summary"]["omitted"].as_u64().unwrap() + 100_000,
        json["summary"]["errors"].as_u64().unwrap()
    );
}

/// A single large file is parsed in pieces, has its entries checked in
/// runs and its line index built in parts on the pool's threads; among
/// others, on one. Both give the same diagnostics and positions, under the
/// cap and past it.
#[test]
fn a_large_file_alone_and_among_others_gets_the_same_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let large = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 6_000,
        seed: 11,
        violation_every: 4,
    });
    std::fs::write(dir.path().join("large.report.json"), &large).unwrap();
    std::fs::copy(
        golden_dir().join("valid.report.json"),
        dir.path().join("small.report.json"),
    )
    .unwrap();
    for cap in ["100000", "40"] {
        let files = |args: &[&str]| {
            let output = check(
                &[&["--format", "json", "--max-diagnostics", cap], args].concat(),
                dir.path(),
            );
            let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            json["files"].as_array().unwrap().clone()
        };
        let alone = files(&["large.report.json"]);
        let among = files(&["large.report.json", "small.report.json"]);
        assert_eq!(among.len(), 2);
        let diagnostics = alone[0]["diagnostics"].as_array().unwrap();
        assert!(
            diagnostics.len() >= 40,
            "{cap}: {} diagnostics",
            diagnostics.len()
        );
        assert_eq!(alone[0], among[0], "cap {cap}");
    }
}

#[test]
fn report_lsp_log_times_each_analysis_on_standard_error() {
    let dir = small_report_dir();
    let logged = |level: &str| {
        Command::new(env!("CARGO_BIN_EXE_report-lsp"))
            .args(["check", "small.report.json"])
            .current_dir(dir.path())
            .env("REPORT_LSP_LOG", level)
            .output()
            .unwrap()
    };
    let debug = logged("debug");
    let text = stderr(&debug);
    let analysed = text
        .lines()
        .find(|l| l.contains("DEBUG report_lsp::cli::check: analysed"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        analysed.contains("path=small.report.json") && analysed.contains(" ms="),
        "{analysed}"
    );
    // The log goes to standard error only: the report is what it was.
    assert_eq!(
        debug.stdout,
        check(&["small.report.json"], dir.path()).stdout
    );
    assert_eq!(stderr(&logged("warn")), "");
    assert_eq!(
        stderr(&logged("loud")),
        "report-lsp: REPORT_LSP_LOG=\"loud\" is not a level (off, error, warn, info, debug, trace); nothing is logged\n"
    );
}
