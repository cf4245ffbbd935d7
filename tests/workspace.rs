//! The workspace checks (invariant 13) on the real binary: throw-away git
//! repositories in temp folders, checked with `check --root` (and with the
//! root found from `scan.project_root`), each diagnostic and its message.

mod common;

use std::path::Path;
use std::process::Command;

use common::project::{Project, delete_entry, edit_entry, report, sha256, tokens, with_raw_tokens};
use serde_json::{Value, json};

const FUTURE: &str = "2099-01-01T00:00:00Z";
const PAST: &str = "2001-01-01T00:00:00Z";

/// `check --format json` on the project's report; its workspace diagnostics
/// as `(code, message)`, in order. The fixtures' `raw_tokens` are
/// placeholders, so check 8 is left out here (see [`check_with`]).
fn check(project: &Project, root: Option<&Path>) -> Vec<(String, String)> {
    let mut found = check_with(project, root, &[]);
    found.retain(|(code, _)| code != "token-count-mismatch");
    found
}

/// [`check`] with every workspace diagnostic, and these extra arguments.
fn check_with(project: &Project, root: Option<&Path>, args: &[&str]) -> Vec<(String, String)> {
    check_in(
        project,
        root,
        args,
        Command::new(env!("CARGO_BIN_EXE_report-lsp")),
    )
}

/// [`check_with`] through `command` (a user's environment set on it).
fn check_in(
    project: &Project,
    root: Option<&Path>,
    args: &[&str],
    mut command: Command,
) -> Vec<(String, String)> {
    command
        .args(["check", "--format", "json"])
        .arg(project.report_path())
        .args(args);
    if let Some(root) = root {
        command.arg("--root").arg(root);
    }
    let output = command.output().unwrap();
    let json: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    json["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            report_core::diagnostic::Code::parse(d["code"].as_str().unwrap())
                .unwrap()
                .invariant()
                == 13
        })
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn codes(found: &[(String, String)]) -> Vec<&str> {
    found.iter().map(|(c, _)| c.as_str()).collect()
}

const PLAN: &str = "# plan\n";

/// A git project with a committed plan, its served path, and a report whose
/// delete entry is `auto`.
fn lifecycle_project(served_exists: bool) -> Project {
    let project = Project::new();
    project.write("plans/plan.md", PLAN);
    if served_exists {
        project.write("docs/done.md", "done\n");
    }
    project.commit_all();
    project.write_report(&report(
        FUTURE,
        vec![json!({"path": "plans/plan.md", "lifecycle": {"rule_ref": "rules/plans", "lifetime": "delete-once-served", "served_when_path": "docs/done.md"}})],
        vec![delete_entry("plans/plan.md", "docs/done.md", &sha256(PLAN))],
        vec![],
    ));
    project
}

#[test]
fn tracked_clean_served_delete_is_silent() {
    let project = lifecycle_project(true);
    assert_eq!(check(&project, Some(project.path())), vec![]);
    // The root found from scan.project_root (".", the report's folder) is the same.
    assert_eq!(check(&project, None), vec![]);
}

#[test]
fn a_dirty_file_makes_the_live_tier_confirm_and_the_edit_stale() {
    let project = lifecycle_project(true);
    project.write("plans/plan.md", "# plan, edited\n");
    let found = check(&project, None);
    assert_eq!(
        codes(&found),
        ["stale-exact-edit", "live-tier-confirm"],
        "{found:?}"
    );
    assert!(
        found[0]
            .1
            .contains("the cleaner would refuse this cached edit"),
        "{found:?}"
    );
    assert!(found[1].1.contains("modified in the worktree"), "{found:?}");
}

/// A filter named by the user's own attributes, as git finds them (the
/// XDG file, or `core.attributesFile` in `~/.gitconfig`, `~` expanded),
/// makes the file's content unknown (never clean, so never `auto`): the
/// preview refuses the clean and says why.
#[test]
fn a_filter_in_the_users_attributes_makes_the_content_unknown() {
    let project = lifecycle_project(true);
    // Stat data that no longer matches the index: the content must be
    // compared, and the attributes say whether it can be.
    let earlier = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(project.path().join("plans/plan.md"))
        .and_then(|f| f.set_modified(earlier))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let filtered = || {
        let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
            .args(["check", "--preview"])
            .arg(project.report_path())
            .env("HOME", home.path())
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&output.stdout).into_owned();
        (shown.contains("the `filter=x` attribute applies"), shown)
    };
    let (said, shown) = filtered();
    assert!(!said, "{shown}");
    let write = |path: &str, text: &str| {
        let at = home.path().join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    };
    write(".config/git/attributes", "plans/* filter=x\n");
    let (said, shown) = filtered();
    assert!(said, "{shown}");
    // core.attributesFile takes the XDG file's place.
    write(".gitconfig", "[core]\n\tattributesFile = ~/my attributes\n");
    let (said, shown) = filtered();
    assert!(!said, "{shown}");
    write("my attributes", "plans/* filter=x\n");
    let (said, shown) = filtered();
    assert!(said, "{shown}");
}

#[test]
fn an_untracked_file_makes_the_live_tier_confirm() {
    let project = Project::new();
    project.write("docs/done.md", "done\n");
    project.commit_all();
    project.write("plans/plan.md", PLAN);
    project.write_report(&report(
        FUTURE,
        vec![json!("plans/plan.md")],
        vec![delete_entry("plans/plan.md", "docs/done.md", &sha256(PLAN))],
        vec![],
    ));
    let found = check(&project, None);
    assert_eq!(codes(&found), ["live-tier-confirm"], "{found:?}");
    assert!(
        found[0]
            .1
            .contains("git tracks the path for `plans/plan.md` is no (not in the git index)"),
        "{found:?}"
    );
}

#[test]
fn a_served_path_gone_makes_the_live_tier_confirm() {
    let project = lifecycle_project(false);
    let found = check(&project, None);
    assert_eq!(codes(&found), ["live-tier-confirm"], "{found:?}");
    assert!(
        found[0].1.contains("`docs/done.md` does not exist"),
        "{found:?}"
    );
}

#[test]
fn without_git_the_facts_are_unknown_and_nothing_is_claimed() {
    let project = Project::new();
    project.write("plans/plan.md", PLAN);
    project.write("docs/done.md", "done\n");
    project.write_report(&report(
        FUTURE,
        vec![json!("plans/plan.md")],
        vec![delete_entry("plans/plan.md", "docs/done.md", &sha256(PLAN))],
        vec![],
    ));
    // Unknown facts never yield auto, but they are no change in the tree either: the hover shows them.
    assert_eq!(check(&project, None), vec![]);
}

#[test]
fn missing_changed_and_misanchored_files_are_reported() {
    let project = Project::new();
    let setup = "one\ntwo\nthree\n";
    project.write("docs/setup.md", setup);
    project.write("docs/short.md", "only line\n");
    project.write("docs/overview.md", "a\nb\nc\n");
    project.write("docs/arch.md", "x\nb\nc\ny\n");
    project.write("docs/moved.md", "kept\nsame\nsame too\n");
    project.commit_all();
    project.write_report(&report(
        PAST,
        vec![json!("docs/setup.md"), json!("docs/gone.md"), json!("docs/short.md"), json!("docs/arch.md"), json!("docs/moved.md")],
        vec![
            edit_entry("docs/setup.md", json!({"kind": "replace-text", "anchor": {"start_line": 2, "end_line": 2}, "match": "make install", "replacement": "cargo install", "expected_sha256": "0".repeat(64)})),
            edit_entry("docs/short.md", json!({"kind": "move-to-archive", "anchor": {"start_line": 3, "end_line": 9}, "dest_path": "docs/archive.md", "expected_sha256": sha256("only line\n")})),
            edit_entry("docs/arch.md", json!({"kind": "dedupe", "anchor": {"start_line": 1, "end_line": 3}, "canonical_ref": "docs/overview.md#L1-L3", "expected_sha256": sha256("x\nb\nc\ny\n")})),
            edit_entry("docs/moved.md", json!({"kind": "move-to-archive", "anchor": {"start_line": 1, "end_line": 2}, "dest_path": "docs/archive.md", "expected_sha256": sha256("kept\nsame\nsame too\n")})),
            edit_entry("docs/moved.md", json!({"kind": "move-to-archive", "anchor": {"start_line": 2, "end_line": 3}, "dest_path": "docs/archive.md", "expected_sha256": sha256("kept\nsame\nsame too\n")})),
        ],
        vec![],
    ));
    let found = check(&project, Some(project.path()));
    let mut got: Vec<&str> = codes(&found);
    got.sort();
    assert_eq!(
        got,
        [
            "anchor-past-end",
            "dedupe-diverged",
            "modified-after-check",
            "modified-after-check",
            "modified-after-check",
            "modified-after-check",
            "modified-after-check",
            "overlapping-edits",
            "path-missing",
            "replace-match-missing",
            "stale-exact-edit",
        ],
        "{found:?}"
    );
    let message = |code: &str| &found.iter().find(|(c, _)| c == code).unwrap().1;
    assert!(message("path-missing").contains("`docs/gone.md` no longer exists"));
    assert!(message("anchor-past-end").contains("which has 1 lines now"));
    assert!(
        message("dedupe-diverged").contains("differ from the span removed from `docs/arch.md`")
    );
    assert!(
        message("overlapping-edits").contains("lines 2-3 of `docs/moved.md` overlap lines 1-2")
    );
}

#[test]
fn paths_leaving_the_root_are_refused_and_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "secret\n").unwrap();
    let project = Project::new();
    project.write("docs/a.md", "a\n");
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        project.path().join("docs/link.md"),
    )
    .unwrap();
    project.write_report(&report(
        FUTURE,
        vec![json!("docs/link.md"), json!("../secret.md"), json!("docs/a.md")],
        vec![edit_entry("docs/link.md", json!({"kind": "dedupe", "anchor": {"start_line": 1, "end_line": 1}, "canonical_ref": "docs/a.md#L1-L1", "expected_sha256": "0".repeat(64)}))],
        vec![],
    ));
    let found = check(&project, None);
    assert_eq!(
        codes(&found),
        [
            "path-outside-root",
            "path-outside-root",
            "path-outside-root"
        ],
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(_, m)| m.contains("a symlink resolving outside the project root")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(_, m)| m.contains("a `..` segment leaves the project root")),
        "{found:?}"
    );
}

#[test]
fn a_fifo_is_never_opened() {
    let project = Project::new();
    let fifo = project.path().join("docs/pipe.md");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    project.write_report(&report(
        FUTURE,
        vec![json!("docs/pipe.md")],
        vec![edit_entry("docs/pipe.md", json!({"kind": "replace-text", "anchor": {"start_line": 1, "end_line": 1}, "match": "a", "replacement": "b", "expected_sha256": "0".repeat(64)}))],
        vec![],
    ));
    let found = check(&project, None);
    assert_eq!(
        codes(&found),
        ["path-unreadable", "path-unreadable"],
        "{found:?}"
    );
    assert!(
        found[0].1.contains("not a regular file (a FIFO)"),
        "{found:?}"
    );
}

#[test]
fn no_root_is_said_once_when_one_was_asked_for() {
    let project = lifecycle_project(true);
    let found = check(&project, Some(&project.path().join("no-such-folder")));
    assert_eq!(codes(&found), ["workspace-root-unknown"], "{found:?}");
}

#[test]
fn promotion_candidates_are_checked_against_conventions_json() {
    let project = Project::new();
    project.write("handoff/notes.md", "notes\n");
    project.write(
        "conventions.json",
        r#"{"conventions": [
            {"name": "decision-log", "pitch": "Record decisions in one log.", "rule_refs": ["rules/handoff"]},
            {"name": "adr", "pitch": "One file per decision.", "rule_refs": ["rules/handoff"]}
        ]}"#,
    );
    project.commit_all();
    let lifecycle = json!({"rule_ref": "rules/handoff", "lifetime": "delete-once-served", "served_when": "the decisions are recorded"});
    let mut entry = delete_entry("handoff/notes.md", "x", &sha256("notes\n"));
    entry["lifecycle"] = lifecycle.clone();
    entry["exact_edit"]["lifecycle"] = lifecycle;
    entry["safety_tier"] = json!("confirm");
    project.write_report(&report(
        FUTURE,
        vec![json!("handoff/notes.md")],
        vec![entry],
        vec![
            json!({"path": "handoff/notes.md", "name": "decision-log", "pitch": "Keep a log."}),
            json!({"path": "handoff/notes.md", "name": "wiki", "pitch": "Use the wiki."}),
        ],
    ));
    let found = check(&project, None);
    assert_eq!(
        codes(&found),
        [
            "promotion-candidate-missing",
            "convention-pitch-mismatch",
            "convention-unknown"
        ],
        "{found:?}"
    );
    assert!(found[0].1.contains("\"name\": \"adr\""), "{found:?}");
}

#[test]
fn workspace_diagnostics_appear_in_every_format() {
    let project = lifecycle_project(false);
    for format in ["human", "json", "sarif", "github"] {
        let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
            .args(["check", "--format", format])
            .arg(project.report_path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("live-tier-confirm"), "{format}: {text}");
        // A warning does not fail the check.
        assert_eq!(output.status.code(), Some(0), "{format}: {text}");
    }
}

const NOTES: &str = "# 会议记录\n\nRun `make install` 😀 then\nread the 漢字 guide.\nlast line\n";

/// A project whose report has a `delete-range` over lines 3-4 of NOTES, a
/// `delete` of the whole plan and a generative entry, with these raw_tokens.
fn token_project(range_raw: u64, delete_raw: u64) -> Project {
    let project = Project::new();
    project.write("docs/notes.md", NOTES);
    project.write("plans/plan.md", PLAN);
    project.write("docs/done.md", "done\n");
    project.write("docs/long.md", "x\n");
    project.commit_all();
    let mut generative = with_raw_tokens(
        edit_entry("docs/long.md", json!({"kind": "delete-range"})),
        999,
    );
    generative.as_object_mut().unwrap().remove("exact_edit");
    generative["op_type"] = json!("generative");
    generative["op"] = json!("condense");
    project.write_report(&report(
        FUTURE,
        vec![json!("docs/notes.md"), json!("plans/plan.md"), json!("docs/long.md")],
        vec![
            with_raw_tokens(edit_entry("docs/notes.md", json!({"kind": "delete-range", "anchor": {"start_line": 3, "end_line": 4}, "expected_sha256": sha256(NOTES)})), range_raw),
            with_raw_tokens(delete_entry("plans/plan.md", "docs/done.md", &sha256(PLAN)), delete_raw),
            generative,
        ],
        vec![],
    ));
    project
}

#[test]
fn raw_tokens_are_recounted_over_the_anchored_lines_and_the_deleted_file() {
    let span = "Run `make install` 😀 then\nread the 漢字 guide.";
    let (range, whole) = (tokens(span), tokens(PLAN));
    assert!(range > 5 && whole > 1);
    // The recorded counts agree: nothing is said, the generative entry is not recounted.
    let project = token_project(range, whole);
    assert_eq!(check_with(&project, None, &[]), vec![]);

    // Off by more than 10%: a hint on each, naming both counts and the span.
    let project = token_project(range * 2, whole + 10);
    let found = check_with(&project, None, &[]);
    assert_eq!(
        codes(&found),
        ["token-count-mismatch", "token-count-mismatch"],
        "{found:?}"
    );
    assert_eq!(
        found[0].1,
        format!(
            "`raw_tokens` is {}, but o200k_base counts {range} tokens in lines 3-4 of `docs/notes.md` now (more than 10% apart)",
            range * 2
        )
    );
    assert!(
        found[1].1.contains(&format!(
            "counts {whole} tokens in the whole file of `plans/plan.md`"
        )),
        "{found:?}"
    );

    // A wider tolerance accepts the first; the second is still further off.
    let found = check_with(&project, None, &["--token-tolerance", "1.5"]);
    assert_eq!(codes(&found), ["token-count-mismatch"], "{found:?}");
    assert!(
        found[0].1.contains("`plans/plan.md`") && found[0].1.contains("150%"),
        "{found:?}"
    );
}

#[test]
fn a_bad_token_tolerance_is_a_usage_error() {
    let project = token_project(1, 1);
    for bad in ["-0.1", "ten", "NaN"] {
        let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
            .arg("check")
            .arg(format!("--token-tolerance={bad}"))
            .arg(project.report_path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("fraction"),
            "{bad}"
        );
    }
}

#[test]
fn a_huge_line_without_spaces_does_not_stall_the_recount() {
    let project = Project::new();
    // 6 MiB in one run: the tokenizer's merge is quadratic in a run's length.
    let blob = format!("{}\n", "Zm9v".repeat(6 << 18));
    project.write("docs/blob.md", &blob);
    project.commit_all();
    project.write_report(&report(
        FUTURE,
        vec![json!("docs/blob.md")],
        vec![with_raw_tokens(edit_entry("docs/blob.md", json!({"kind": "delete-range", "anchor": {"start_line": 1, "end_line": 1}, "expected_sha256": sha256(&blob)})), 1)],
        vec![],
    ));
    // A bound is the point here, so it is generous: a quadratic merge over
    // 6 MiB takes hours, the bounded recount 8 s (the whole `check`, debug
    // build, 2 cores); 120 s leaves room for a loaded machine.
    let started = std::time::Instant::now();
    let found = check_with(&project, None, &[]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(codes(&found), ["token-count-mismatch"], "{found:?}");
}
