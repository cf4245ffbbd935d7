//! `report-lsp summary` end to end: the real binary's text, Markdown and
//! JSON snapshotted on the golden report and an earlier generation, a git
//! project whose files are stale, missing, dirty and untracked, `--since
//! HEAD`, its errors, and the server's `report-lsp/summary` giving the
//! CLI's numbers for an open report and an unopened one.

mod common;

use std::path::Path;
use std::process::Output;

use common::editor::Editor;
use common::project::{Project, delete_entry, edit_entry, report, sha256};
use expect_test::expect_file;
use serde_json::{Value, json};

fn golden_text() -> String {
    std::fs::read_to_string(common::golden_dir().join("valid.report.json")).unwrap()
}

/// The golden report's earlier generation: two entries it has now were
/// not there yet, one was that is gone, and a token count was higher.
fn earlier_generation() -> Value {
    let mut report: Value = serde_json::from_str(&golden_text()).unwrap();
    let entries = report["entries"].as_array_mut().unwrap();
    let mut gone = entries[3].clone();
    gone["path"] = json!("docs/retired.md");
    gone["token_estimate"]["raw_tokens"] = json!(700);
    entries.retain(|e| e["path"] != "docs/setup.md" && e["path"] != "tmp/experiments/");
    entries.push(gone);
    entries[0]["token_estimate"]["raw_tokens"] = json!(250);
    report["shortlist"]
        .as_array_mut()
        .unwrap()
        .push(json!("docs/retired.md"));
    report
}

fn summary(args: &[&str], dir: &Path) -> Output {
    common::report_lsp(&[&["summary"], args].concat(), dir)
}

fn stdout(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn golden_with_earlier() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("新-report-😀.json"), golden_text()).unwrap();
    let earlier = serde_json::to_string_pretty(&earlier_generation()).unwrap();
    std::fs::write(dir.path().join("old.json"), earlier).unwrap();
    dir
}

#[test]
fn text_markdown_and_json_of_the_golden_report_since_an_earlier_generation() {
    let dir = golden_with_earlier();
    let args = ["新-report-😀.json", "--since", "old.json", "--format"];
    let text = stdout(&summary(&[&args[..], &["text"]].concat(), dir.path()));
    expect_file!["snapshots/summary/golden.txt"].assert_eq(&text);
    let markdown = stdout(&summary(&[&args[..], &["markdown"]].concat(), dir.path()));
    expect_file!["snapshots/summary/golden.md"].assert_eq(&markdown);
    let json = stdout(&summary(&[&args[..], &["json"]].concat(), dir.path()));
    expect_file!["snapshots/summary/golden.json"].assert_eq(&json);
    // The numbers the snapshots hold, said once more against the files.
    let summary: Value = serde_json::from_str(&json).unwrap();
    let golden: Value = serde_json::from_str(&golden_text()).unwrap();
    let raw = |report: &Value| -> u64 {
        report["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["token_estimate"]["raw_tokens"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(summary["total"]["raw_tokens"], raw(&golden));
    assert_eq!(
        summary["since"]["raw_delta"],
        raw(&golden) as i64 - raw(&earlier_generation()) as i64
    );
    assert_eq!(summary["since"]["added"]["entries"], 2);
    assert_eq!(summary["since"]["gone"]["entries"], 1);
    assert_eq!(summary["since"]["gone"]["raw_tokens"], 700);
}

/// The same report: `check` and `summary` count its problems alike.
#[test]
fn the_problems_are_those_check_counts() {
    let dir = common::golden_dir();
    let check = common::report_lsp(&["check", "invalid.report.json", "--format", "json"], &dir);
    let check: Value = serde_json::from_slice(&check.stdout).unwrap();
    let json = stdout(&summary(&["invalid.report.json", "--format", "json"], &dir));
    let summary: Value = serde_json::from_str(&json).unwrap();
    let counts = &check["summary"];
    assert_eq!(summary["problems"]["errors"], counts["errors"], "{counts}");
    assert_eq!(
        summary["problems"]["warnings"], counts["warnings"],
        "{counts}"
    );
    let codes: u64 = summary["problems"]["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["codes"].as_array().unwrap())
        .map(|c| c["count"].as_u64().unwrap())
        .sum();
    let diagnostics = check["files"][0]["diagnostics"].as_array().unwrap().len();
    assert_eq!(codes, diagnostics as u64);
}

/// A git project: one delete whose evidence holds on a tracked, clean path
/// (auto today), one on a path changed since the commit (dirty), one on a
/// path git does not track, an edit whose file changed since the check
/// (stale, as the dirty delete's is) and one whose file is gone (missing).
fn project_at_hand() -> Project {
    let project = Project::new();
    for name in ["clean", "dirty", "untracked", "stale", "served"] {
        project.write(&format!("docs/{name}.md"), &format!("# {name}\n"));
    }
    let delete = |name: &str, raw: u64| {
        let path = format!("docs/{name}.md");
        let mut entry = delete_entry(&path, "docs/served.md", &sha256(&format!("# {name}\n")));
        entry["token_estimate"]["raw_tokens"] = json!(raw);
        entry
    };
    let edit = |name: &str, raw: u64| {
        let path = format!("docs/{name}.md");
        let mut entry = edit_entry(
            &path,
            json!({"kind": "delete-range", "anchor": {"start_line": 1, "end_line": 1}, "expected_sha256": sha256(&format!("# {name}\n"))}),
        );
        entry["op"] = json!("delete-range");
        entry["is_destructive"] = json!(true);
        entry["is_reversible"] = json!(false);
        entry["safety_tier"] = json!("confirm");
        entry["token_estimate"]["raw_tokens"] = json!(raw);
        entry
    };
    let entries = vec![
        delete("clean", 10),
        delete("dirty", 20),
        delete("untracked", 40),
        edit("stale", 80),
        edit("missing", 160),
    ];
    let shortlist: Vec<Value> = entries.iter().map(|e| e["path"].clone()).collect();
    project.write_report(&report("2026-11-29T18:42:07Z", shortlist, entries, vec![]));
    project.write("docs/missing.md", "# missing\n");
    project.commit_all();
    project.git(&["rm", "-q", "--cached", "docs/untracked.md"]);
    project.git(&["commit", "-q", "-m", "untrack"]);
    project.write("docs/dirty.md", "# dirty, changed\n");
    project.write("docs/stale.md", "# stale, changed\n");
    std::fs::remove_file(project.path().join("docs/missing.md")).unwrap();
    project
}

#[test]
fn the_project_at_hand_says_what_is_stale_missing_dirty_untracked_and_auto_today() {
    let project = project_at_hand();
    let json = stdout(&summary(
        &["hygiene.report.json", "--format", "json"],
        project.path(),
    ));
    let summary: Value = serde_json::from_str(&json).unwrap();
    let live = &summary["live"];
    let group = |name: &str| {
        (
            live[name]["entries"].as_u64().unwrap(),
            live[name]["raw_tokens"].as_u64().unwrap(),
        )
    };
    assert_eq!(group("stale"), (2, 80 + 20), "{live}");
    assert_eq!(group("missing"), (1, 160), "{live}");
    assert_eq!(group("dirty"), (1, 20), "{live}");
    assert_eq!(group("untracked"), (1, 40), "{live}");
    assert_eq!(live["git_read_for"], 3);
    // The clean delete derives auto today; the other two stay confirm
    // though they record auto.
    assert_eq!(summary["queue"]["basis"], "live");
    assert_eq!(
        summary["queue"]["auto"]["raw_tokens"], 10,
        "{}",
        summary["queue"]
    );
    let shifts = live["tier_shifts"].as_array().unwrap();
    assert_eq!(shifts.len(), 1, "{live}");
    assert_eq!(
        (
            &shifts[0]["recorded"],
            &shifts[0]["live"],
            &shifts[0]["entries"]
        ),
        (&json!("auto"), &json!("confirm"), &json!(2))
    );
    // The text says the same in words.
    let text = stdout(&summary_args(&project, &["--format", "text"]));
    assert!(text.contains("untracked by git"), "{text}");
    assert!(text.contains("derives today"), "{text}");
}

fn summary_args(project: &Project, args: &[&str]) -> Output {
    summary(&[&["hygiene.report.json"], args].concat(), project.path())
}

#[test]
fn since_head_compares_with_gits_copy_read_in_process() {
    let project = project_at_hand();
    // Unchanged since HEAD.
    let json = stdout(&summary_args(
        &project,
        &["--since", "HEAD", "--format", "json"],
    ));
    let summary: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(summary["since"]["name"], "HEAD");
    assert_eq!(summary["since"]["unchanged"], true);
    // One entry more.
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(project.report_path()).unwrap()).unwrap();
    let mut added = report["entries"][3].clone();
    added["token_estimate"]["raw_tokens"] = json!(5);
    report["entries"].as_array_mut().unwrap().push(added);
    project.write_report(&report);
    let json = stdout(&summary_args(
        &project,
        &["--since", "HEAD", "--format", "json"],
    ));
    let summary: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        summary["since"]["added"]["entries"], 1,
        "{}",
        summary["since"]
    );
    assert_eq!(summary["since"]["raw_delta"], 5);
}

#[test]
fn what_cannot_be_summed_up_says_why_with_status_2() {
    let dir = golden_with_earlier();
    std::fs::write(dir.path().join("not.json"), "{\"a\": 1}").unwrap();
    let utf8 = common::golden_dir().join("invalid/01-invalid-utf8.report.json");
    std::fs::copy(utf8, dir.path().join("latin1.json")).unwrap();
    let cases: [(&[&str], &str); 7] = [
        (&["latin1.json"], "latin1.json is not UTF-8 (invalid-utf8)"),
        (&["-", "--since", "-"], "only one of REPORT and --since"),
        (&["not.json"], "not.json is not a machine report"),
        (&["absent.json"], "absent.json: cannot read"),
        (
            &["old.json", "--since", "not.json"],
            "not.json is not a machine report",
        ),
        (&["old.json", "--since", "HEAD"], "HEAD's copy"),
        (&["-", "--since", "HEAD"], "standard input"),
    ];
    for (args, said) in cases {
        let output = summary(args, dir.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// The JSON with its places left out: the CLI names lines and columns,
/// the server LSP ranges.
fn without_places(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "line" | "column" | "range"))
                .map(|(k, v)| (k.clone(), without_places(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_places).collect()),
        other => other.clone(),
    }
}

/// The server's answer for an open report and for one that is not open is
/// the CLI's, its entries' ranges in UTF-16 (the golden report's paths hold
/// CJK and an emoji); a text that is no report gets an error reply and the
/// server goes on serving.
#[test]
fn the_server_answers_the_clis_summary_for_open_and_unopened_reports() {
    let dir = golden_with_earlier();
    let path = dir.path().join("新-report-😀.json");
    let uri = common::file_uri(&path);
    let cli: Value = serde_json::from_str(&stdout(&summary(
        &["新-report-😀.json", "--format", "json"],
        dir.path(),
    )))
    .unwrap();
    let mut editor = Editor::start(&["utf-16"]);
    // Not open: read from disk.
    let unopened = editor.request("report-lsp/summary", json!({"uri": uri, "format": "json"}));
    let unopened = &unopened["result"];
    assert_eq!(unopened["fromDisk"], true, "{unopened}");
    assert_eq!(without_places(&unopened["content"]), without_places(&cli));
    let text = golden_text();
    editor.open(&uri, &text, 1);
    editor.diagnostics(&uri);
    let open = editor.request("report-lsp/summary", json!({"uri": uri, "format": "json"}));
    let open = &open["result"];
    assert_eq!(open["fromDisk"], false, "{open}");
    assert_eq!(without_places(&open["content"]), without_places(&cli));
    // Each entry it names, at its `{`, in UTF-16 columns.
    let analysis = report_core::analyze(&text);
    let entries = open["entries"].as_array().unwrap();
    assert!(entries.len() >= 10, "{entries:?}");
    for named in entries {
        let index = named["index"].as_u64().unwrap() as usize;
        let start = analysis.entries[index].range.start;
        assert_eq!(named["range"]["start"], common::lsp_position(&text, start));
    }
    let emoji = text.find("会议记录-😀").unwrap();
    let after_emoji = analysis
        .entries
        .iter()
        .position(|e| e.range.start > emoji)
        .unwrap();
    assert!(entries.iter().any(|e| e["index"] == after_emoji));
    // Markdown by default for a client that reads it; each format asked.
    for (format, has) in [
        ("markdown", "13 185 raw tokens"),
        ("text", "13 185 raw tokens"),
        ("html", "data-value=\"13185\""),
    ] {
        let reply = editor.request("report-lsp/summary", json!({"uri": uri, "format": format}));
        let content = reply["result"]["content"].as_str().unwrap();
        assert!(content.contains(has), "{format}: {content}");
        assert_eq!(reply["result"]["format"], format);
    }
    let reply = editor.request("report-lsp/summary", json!({"uri": uri}));
    assert_eq!(
        reply["result"]["format"], "markdown",
        "the client reads Markdown"
    );
    let command = editor.request(
        "workspace/executeCommand",
        json!({"command": "report-lsp.summary", "arguments": [uri, "markdown"]}),
    );
    assert!(
        command["result"]["content"]
            .as_str()
            .unwrap()
            .starts_with("## Report summary")
    );
    // Not a report, a wrong format, a file that is gone: error replies.
    let other = common::file_uri(&dir.path().join("other.json"));
    editor.open(&other, "{\"a\": [1, 2]}", 1);
    for params in [
        json!({"uri": other}),
        // Not open and no file: nothing is read for it.
        json!({"uri": "untitled:Untitled-1"}),
        json!({"uri": uri, "format": "pdf"}),
        json!({"uri": common::file_uri(&dir.path().join("gone.json"))}),
    ] {
        let reply = editor.request("report-lsp/summary", params.clone());
        assert!(reply.get("error").is_some(), "{params}: {reply}");
    }
    // A wrong format is named, with those there are.
    let pdf = editor.request("report-lsp/summary", json!({"uri": uri, "format": "pdf"}));
    let said = pdf["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("unknown format `pdf`, expected one of markdown, text, html, json"),
        "{pdf}"
    );
    let command = editor.request(
        "workspace/executeCommand",
        json!({"command": "report-lsp.summary", "arguments": [uri, "pdf"]}),
    );
    assert_eq!(
        command["error"]["message"],
        "the format is one of markdown, text, html, json"
    );
    let status = editor.request("report-lsp/status", json!({"uri": uri}));
    assert_eq!(status["result"]["entries"], 12, "{status}");
    editor.shutdown();
}

/// A client that announces no Markdown gets text by default.
#[test]
fn a_bare_client_gets_text() {
    let dir = golden_with_earlier();
    let uri = common::file_uri(&dir.path().join("old.json"));
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        json!({}),
        &[],
        Value::Null,
    );
    let reply = editor.request("report-lsp/summary", json!({"uri": uri}));
    assert_eq!(reply["result"]["format"], "text", "{reply}");
    let content = reply["result"]["content"].as_str().unwrap();
    assert!(content.starts_with("Report summary: "), "{content}");
    editor.shutdown();
}

/// An open report in a git project: the server's summary is the CLI's
/// `--since HEAD`, live facts and all, the comparison the one the
/// since-HEAD lens was made from (no second reading of HEAD's copy).
#[test]
fn the_server_sums_up_an_open_report_with_its_project_and_head_as_the_cli_does() {
    let project = project_at_hand();
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(project.report_path()).unwrap()).unwrap();
    let mut added = report["entries"][3].clone();
    added["token_estimate"]["raw_tokens"] = json!(7);
    report["entries"].as_array_mut().unwrap().push(added);
    let text = project.write_report(&report);
    let cli = stdout(&summary_args(
        &project,
        &["--since", "HEAD", "--format", "json"],
    ));
    let cli: Value = serde_json::from_str(&cli).unwrap();
    assert_eq!(cli["since"]["added"]["entries"], 1, "{}", cli["since"]);
    let capabilities = json!({"workspace": {"codeLens": {"refreshSupport": true}}});
    let mut editor = Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        common::editor::capable_client_with(capabilities),
        &[],
        Value::Null,
    );
    let uri = common::file_uri(&project.report_path());
    editor.open(&uri, &text, 1);
    // The comparison with HEAD has arrived when the lenses are redrawn.
    let refresh = editor.next_matching(|m| m["method"] == "workspace/codeLens/refresh");
    editor.send(json!({"jsonrpc": "2.0", "id": refresh["id"], "result": null}));
    let reply = editor.request("report-lsp/summary", json!({"uri": uri, "format": "json"}));
    let content = &reply["result"]["content"];
    assert_eq!(without_places(content), without_places(&cli), "{reply}");
    // The added entry's link is the entry's place in the open text.
    let index = content["since"]["added"]["first_entry"]["index"]
        .as_u64()
        .unwrap() as usize;
    let start = report_core::analyze(&text).entries[index].range.start;
    assert_eq!(
        content["since"]["added"]["first_entry"]["range"]["start"],
        common::lsp_position(&text, start)
    );
    // Edited, not saved: the comparison is the saved text's, said so, its
    // counts its own, and its link (to a place in that text) left out.
    let last = report_core::analyze(&text).entries.last().unwrap().range;
    let before = text[..last.start].trim_end().trim_end_matches(',').len();
    let change = json!([{
        "range": {"start": common::lsp_position(&text, before), "end": common::lsp_position(&text, last.end)},
        "text": ""
    }]);
    editor.change(&uri, 2, change);
    let reply = editor.request("report-lsp/summary", json!({"uri": uri, "format": "json"}));
    let content = &reply["result"]["content"];
    assert_eq!(content["entries"], 5, "{reply}");
    let since = &content["since"];
    assert_eq!(since["name"], "HEAD (as of the last save)", "{since}");
    assert_eq!(since["new_entries"], 6, "{since}");
    assert_eq!(since["added"]["first_entry"], Value::Null, "{since}");
    editor.shutdown();
}
