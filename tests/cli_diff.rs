//! `report-lsp diff` end to end: the real binary on two generations of the
//! golden valid report, each format snapshotted, and its exit codes.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use expect_test::expect;
use serde_json::{Value, json};

const NEW_NAME: &str = "新-report-😀.json";

fn golden() -> Value {
    let text = std::fs::read_to_string(common::golden_dir().join("valid.report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The golden report regenerated: entries reordered, one gone, one added,
/// one made destructive (its tier follows), a hash and a lifecycle changed,
/// a shortlist path added, `generated_at` moved.
fn next_generation() -> Value {
    let mut report = golden();
    let entries = report["entries"].as_array_mut().unwrap();
    entries.reverse();
    entries.retain(|e| e["path"] != "docs/contributing.md");
    for entry in entries.iter_mut() {
        match entry["path"].as_str().unwrap() {
            "docs/setup.md" => {
                entry["exact_edit"]["kind"] = json!("delete-range");
                entry["op"] = json!("delete-range");
                entry["is_destructive"] = json!(true);
                entry["is_reversible"] = json!(false);
                entry["safety_tier"] = json!("confirm");
                let edit = entry["exact_edit"].as_object_mut().unwrap();
                edit.remove("match");
                edit.remove("replacement");
            }
            "docs/architecture.md" => {
                entry["exact_edit"]["expected_sha256"] = json!("0".repeat(64));
            }
            "plans/migration-plan.md" => {
                entry["exact_edit"]["lifecycle"]["served_when_path"] = json!("docs/m.md");
                entry["lifecycle"]["served_when_path"] = json!("docs/m.md");
            }
            _ => {}
        }
    }
    let mut added = golden()["entries"][3].clone();
    added["path"] = json!("docs/fresh.md");
    added["token_estimate"]["raw_tokens"] = json!(1200);
    entries.push(added);
    let shortlist = report["shortlist"].as_array_mut().unwrap();
    shortlist.push(json!("docs/fresh.md"));
    for item in shortlist {
        if item["path"] == "plans/migration-plan.md" {
            item["lifecycle"]["served_when_path"] = json!("docs/m.md");
        }
    }
    report["generated_at"] = json!("2026-12-01T09:00:00Z");
    report
}

fn two_generations() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, report: &Value| {
        let text = serde_json::to_string_pretty(report).unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
    };
    write("old.json", &golden());
    write(NEW_NAME, &next_generation());
    dir
}

fn diff(args: &[&str], dir: &Path) -> Output {
    common::report_lsp(&[&["diff"], args].concat(), dir)
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn human_output_tells_what_changed_by_meaning() {
    let dir = two_generations();
    let output = diff(&["old.json", NEW_NAME], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    expect![[r#"
        old.json → 新-report-😀.json: +1 / −1 entries, 3 changed, 1 tier change, +1 k tokens
          raw tokens 13 185 → 14 225 (+1 k): stale +1 k, bloat ±0

          ~ generated_at  "2026-11-29T18:42:07Z" → "2026-12-01T09:00:00Z"

        entries +1 −1 ~3 10 moved
          + docs/fresh.md  move-to-archive  auto  1 200 tok  新-report-😀.json:328 [11]
          − docs/contributing.md  generative  confirm  160 tok  old.json:164 [6]
          ~ plans/migration-plan.md  delete  old.json:236 [9] → 新-report-😀.json:78 [2]
              exact_edit/lifecycle/served_when_path  "docs/migrations/2026-q3.md" → "docs/m.md"
              lifecycle/served_when_path  "docs/migrations/2026-q3.md" → "docs/m.md"
          ~ docs/architecture.md  dedupe  old.json:34 [1] → 新-report-😀.json:270 [9]
              exact_edit/expected_sha256  "4ca303a3bf7ddf7be8652031ff027f351973a205cddafbffa580750f61bc93ce" → "0000000000000000000000000000000000000000000000000000000000000000"
          ~ docs/setup.md  delete-range  old.json:3 [0] → 新-report-😀.json:299 [10]
              tier  auto → confirm  (recorded auto → confirm)
                old  derive_safety_tier(op_type="deterministic", is_destructive=false, is_reversible=true, lifecycle=None) → auto: the op is deterministic, non-destructive and reversible
                new  derive_safety_tier(op_type="deterministic", is_destructive=true, is_reversible=false, lifecycle=None) → confirm: is_destructive is true
              exact_edit/kind  "replace-text" → "delete-range"
              exact_edit/match  "make install" → (absent)
              exact_edit/replacement  "cargo install --path ." → (absent)
              is_destructive  false → true
              is_reversible  true → false
              op  "replace-text" → "delete-range"

        shortlist +1 −0 ~1
          + docs/fresh.md  新-report-😀.json:418 [13]
          ~ plans/migration-plan.md  old.json:387 [10] → 新-report-😀.json:395 [10]
              lifecycle/served_when_path  "docs/migrations/2026-q3.md" → "docs/m.md"
    "#]]
    .assert_eq(&stdout(&output));
}

#[test]
fn github_output_annotates_the_new_file_and_warns_of_a_new_auto() {
    let dir = two_generations();
    // The other way round: docs/setup.md goes from confirm to auto.
    let output = diff(&[NEW_NAME, "old.json", "--format", "github"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let warnings: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("::warning"))
        .collect();
    assert_eq!(warnings.len(), 1, "{text}");
    assert!(warnings[0].contains("docs/setup.md  replace-text%0Atier  confirm → auto"));
    expect![[r#"
        ::notice file=old.json,line=1,endLine=1,title=report diff::since 新-report-😀.json: +1 / −1 entries, 3 changed, 1 tier change, −1 k tokens%0Araw tokens 14 225 → 13 185 (−1 k): stale −1 k, bloat ±0
        ::notice file=old.json,line=164,endLine=181,title=entries%3A added::docs/contributing.md  generative  confirm  160 tok
        ::notice file=old.json,line=2,endLine=2,title=entries%3A gone::docs/fresh.md  move-to-archive  auto  1 200 tok (was 新-report-😀.json:328 [11])
        ::warning file=old.json,line=3,endLine=33,title=entries%3A changed::docs/setup.md  replace-text%0Atier  confirm → auto  (recorded confirm → auto)%0Aold  derive_safety_tier(op_type="deterministic", is_destructive=true, is_reversible=false, lifecycle=None) → confirm: is_destructive is true%0Anew  derive_safety_tier(op_type="deterministic", is_destructive=false, is_reversible=true, lifecycle=None) → auto: the op is deterministic, non-destructive and reversible%0Aexact_edit/kind  "delete-range" → "replace-text"%0Aexact_edit/match  (absent) → "make install"%0Aexact_edit/replacement  (absent) → "cargo install --path ."%0Ais_destructive  true → false%0Ais_reversible  false → true%0Aop  "delete-range" → "replace-text"
        ::notice file=old.json,line=34,endLine=62,title=entries%3A changed::docs/architecture.md  dedupe%0Aexact_edit/expected_sha256  "0000000000000000000000000000000000000000000000000000000000000000" → "4ca303a3bf7ddf7be8652031ff027f351973a205cddafbffa580750f61bc93ce"
        ::notice file=old.json,line=236,endLine=272,title=entries%3A changed::plans/migration-plan.md  delete%0Aexact_edit/lifecycle/served_when_path  "docs/m.md" → "docs/migrations/2026-q3.md"%0Alifecycle/served_when_path  "docs/m.md" → "docs/migrations/2026-q3.md"
        ::notice file=old.json,line=370,endLine=370,title=shortlist%3A gone::docs/fresh.md (was 新-report-😀.json:418 [13])
        ::notice file=old.json,line=387,endLine=394,title=shortlist%3A changed::plans/migration-plan.md%0Alifecycle/served_when_path  "docs/m.md" → "docs/migrations/2026-q3.md"
        ::notice file=old.json,line=1,endLine=1,title=report diff%3A envelope::generated_at  "2026-12-01T09:00:00Z" → "2026-11-29T18:42:07Z"
    "#]].assert_eq(&text);
}

#[test]
fn json_output_gives_values_as_json_and_both_derivations() {
    let dir = two_generations();
    let output = diff(&["old.json", NEW_NAME, "--format", "json"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["changed"], json!(true));
    assert_eq!(document["tokens"]["delta"], json!(1040));
    assert_eq!(document["new"]["path"], json!(NEW_NAME));
    let entries = &document["entries"];
    assert_eq!(entries["added"][0]["path"], json!("docs/fresh.md"));
    assert_eq!(entries["gone"][0]["line"], json!(164));
    let setup = entries["changed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["new"]["path"] == "docs/setup.md")
        .unwrap();
    expect![[r#"
        {
          "new": "confirm",
          "new_derivation": {
            "call": "derive_safety_tier(op_type=\"deterministic\", is_destructive=true, is_reversible=false, lifecycle=None)",
            "reason": "is_destructive is true",
            "steps": [
              {
                "answer": "no",
                "outcome": "passed",
                "rule": "op_type is generative"
              },
              {
                "answer": "yes",
                "outcome": "failed",
                "rule": "the op is destructive"
              }
            ],
            "tier": "confirm"
          },
          "new_recorded": "confirm",
          "old": "auto",
          "old_derivation": {
            "call": "derive_safety_tier(op_type=\"deterministic\", is_destructive=false, is_reversible=true, lifecycle=None)",
            "reason": "the op is deterministic, non-destructive and reversible",
            "steps": [
              {
                "answer": "no",
                "outcome": "passed",
                "rule": "op_type is generative"
              },
              {
                "answer": "no",
                "outcome": "passed",
                "rule": "the op is destructive"
              },
              {
                "answer": "no",
                "outcome": "passed",
                "rule": "the op is irreversible"
              }
            ],
            "tier": "auto"
          },
          "old_recorded": "auto"
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&setup["tier"]).unwrap());
    let field = setup["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "is_destructive")
        .unwrap();
    assert_eq!(
        (
            &field["field"],
            &field["aspect"],
            &field["old"],
            &field["new"]
        ),
        (
            &json!("is_destructive"),
            &json!("classification"),
            &json!(false),
            &json!(true)
        )
    );
}

#[test]
fn the_same_report_reordered_is_no_change_and_exit_code_says_when_they_differ() {
    let dir = two_generations();
    let mut reordered = golden();
    reordered["entries"].as_array_mut().unwrap().reverse();
    std::fs::write(
        dir.path().join("reordered.json"),
        serde_json::to_string(&reordered).unwrap(),
    )
    .unwrap();
    let same = diff(&["old.json", "reordered.json", "--exit-code"], dir.path());
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    assert_eq!(
        stdout(&same),
        "old.json → reordered.json: no changes\n  raw tokens 13 185 → 13 185 (±0): stale ±0, bloat ±0\n"
    );
    let differ = diff(&["old.json", NEW_NAME, "--exit-code"], dir.path());
    assert_eq!(differ.status.code(), Some(1));
}

#[test]
fn standard_input_stands_for_one_generation() {
    let dir = two_generations();
    let mut child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["diff", "-", NEW_NAME, "--format", "json"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let old = std::fs::read(dir.path().join("old.json")).unwrap();
    child.stdin.take().unwrap().write_all(&old).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["old"]["path"], json!("<stdin>"));
    assert_eq!(document["tokens"]["delta"], json!(1040));
}

#[test]
fn unreadable_files_and_what_is_not_a_report_exit_two() {
    let dir = two_generations();
    std::fs::write(dir.path().join("array.json"), "[1, 2]").unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["old.json", "missing.json"],
            "report-lsp: missing.json: cannot read: ",
        ),
        (
            &["array.json", "old.json"],
            "report-lsp: array.json is not a machine report",
        ),
        (
            &["-", "-"],
            "report-lsp: only one of OLD and NEW can be standard input (-)",
        ),
    ];
    for (args, message) in cases {
        let output = diff(args, dir.path());
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).starts_with(message), "{}", stderr(&output));
        assert!(output.stdout.is_empty());
    }
}
