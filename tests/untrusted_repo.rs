//! Issue 24: nothing the repository controls runs. Each test builds a
//! throw-away git repository holding a consistent report (every hash,
//! anchor, token count and git state true), plants programs the repository's
//! git configuration, attributes or layout name (each only creates a marker
//! file outside the repository, and a filter passes its input through), and
//! checks the report with `check --root` and in the server (open, a hover on
//! every exact edit, saves, watched-file changes). The markers must never
//! appear, and the checks must still finish with their verdicts.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use common::editor::{Editor, capable_client};
use common::project::{Project, delete_entry, edit_entry, report, sha256, tokens, with_raw_tokens};
use serde_json::{Value, json};

const FUTURE: &str = "2099-01-01T00:00:00Z";
const PLAN: &str = "# plan\n\nServed once docs/done.md exists.\n";
const SETUP: &str = "one\nmake install\nthree\n";
const NOTES: &str = "# notes\nkeep\ndrop this\nand this\nlast\n";
const DONE: &str = "done\n";
/// The files the report names, with their committed texts.
const NAMED: [(&str, &str); 4] = [
    ("plans/plan.md", PLAN),
    ("docs/setup.md", SETUP),
    ("docs/notes.md", NOTES),
    ("docs/done.md", DONE),
];

/// What a planted program does once it has created its marker.
#[derive(Clone, Copy)]
enum Then {
    /// Exits 0.
    Exit,
    /// Passes its standard input through unchanged (a filter or textconv).
    Cat,
    /// Reads its standard input to the end, then exits 0 (a signature
    /// verifier: git writes the signed payload to it, and dies of SIGPIPE
    /// if nobody reads).
    Drain,
}

/// A repository with a consistent report, and the programs planted in it.
struct Planted {
    project: Project,
    /// Outside the repository: the planted scripts, their markers, a git
    /// directory moved away, fake `git` binaries.
    outside: tempfile::TempDir,
    /// The report's text.
    text: String,
    /// Every marker a planted program creates.
    markers: Vec<PathBuf>,
    /// Environment for both the CLI and the server (PATH, in two tests).
    env: Vec<(String, String)>,
}

/// How sure the verdict of the clean, tracked, served `delete` is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    /// Nothing transforms the named files' content: the live derivation is
    /// `auto`, and the CLI reports no workspace diagnostic at all.
    Auto,
    /// An attribute names a filter for the named files: cleanliness is
    /// *unknown* (never clean), so the live derivation is `confirm` and the
    /// hover names the attribute; an unknown fact is no warning, so the
    /// CLI still reports no diagnostic at all.
    Filtered,
}

/// A consistent repository: four committed files, and a report with a
/// `delete` recorded `auto` on a satisfied `served_when_path`, a
/// `replace-text` and a `delete-range`, each with its true sha256 and
/// token count. Nothing is planted yet.
fn consistent() -> Planted {
    let project = Project::new();
    for (path, text) in NAMED {
        project.write(path, text);
    }
    project.commit_all();
    let lifecycle = json!({"rule_ref": "rules/plans", "lifetime": "delete-once-served", "served_when_path": "docs/done.md"});
    // A delete-range is destructive and irreversible.
    let mut delete_range = with_raw_tokens(
        edit_entry(
            "docs/notes.md",
            json!({"kind": "delete-range", "anchor": {"start_line": 3, "end_line": 4}, "expected_sha256": sha256(NOTES)}),
        ),
        tokens("drop this\nand this"),
    );
    delete_range["is_destructive"] = json!(true);
    delete_range["is_reversible"] = json!(false);
    delete_range["safety_tier"] = json!("confirm");
    let text = project.write_report(&report(
        FUTURE,
        vec![
            json!({"path": "plans/plan.md", "lifecycle": lifecycle}),
            json!("docs/setup.md"),
            json!("docs/notes.md"),
        ],
        vec![
            with_raw_tokens(
                delete_entry("plans/plan.md", "docs/done.md", &sha256(PLAN)),
                tokens(PLAN),
            ),
            with_raw_tokens(
                edit_entry("docs/setup.md", json!({"kind": "replace-text", "anchor": {"start_line": 2, "end_line": 2}, "match": "make install", "replacement": "cargo install", "expected_sha256": sha256(SETUP)})),
                tokens("make install"),
            ),
            delete_range,
        ],
        vec![],
    ));
    Planted {
        project,
        outside: tempfile::tempdir().unwrap(),
        text,
        markers: Vec::new(),
        env: Vec::new(),
    }
}

impl Planted {
    fn root(&self) -> &Path {
        self.project.path()
    }

    fn git_dir(&self) -> PathBuf {
        self.root().join(".git")
    }

    /// A shell script outside the repository that creates its marker and
    /// then exits or passes its input through; its absolute path.
    fn script(&mut self, name: &str, then: Then) -> String {
        let dir = self.outside.path().join("bin");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        let marker = self.outside.path().join(format!("{name}.ran"));
        write_script(&path, &marker, then);
        self.markers.push(marker);
        path.display().to_string()
    }

    /// Appends config text to the file at `path` (no git run: a git command
    /// in the planted repository might run what is planted).
    fn append(&self, path: &Path, text: &str) {
        use std::io::Write;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        file.write_all(text.as_bytes()).unwrap();
    }

    fn config(&self, text: &str) {
        self.append(&self.git_dir().join("config"), text);
    }

    fn attributes(&self, text: &str) {
        self.append(&self.git_dir().join("info/attributes"), text);
    }

    /// Rewrites every named file with the same bytes and an mtime an hour
    /// ahead: the index's stat data no longer match, so `git status`
    /// re-reads the content (through any filter the attributes name).
    fn make_stat_stale(&self) {
        let later = SystemTime::now() + Duration::from_secs(3600);
        for (path, text) in NAMED {
            let path = self.root().join(path);
            std::fs::write(&path, text).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(later).unwrap();
        }
    }

    /// The markers that exist now (the programs that ran).
    fn ran(&self) -> Vec<String> {
        self.markers
            .iter()
            .filter(|m| m.exists())
            .map(|m| m.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    fn forget_runs(&self) {
        for marker in &self.markers {
            let _ = std::fs::remove_file(marker);
        }
    }
}

fn write_script(path: &Path, marker: &Path, then: Then) {
    let tail = match then {
        Then::Exit => "exit 0",
        Then::Cat => "exec cat",
        Then::Drain => "cat > /dev/null\nexit 0",
    };
    // `: >` is the shell's own: the marker is made with no PATH at all.
    std::fs::write(
        path,
        format!("#!/bin/sh\n: > '{}'\n{tail}\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs git in `dir` (setup only, before anything is planted); its stdout.
fn git_out(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "git {args:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// Replaces HEAD (the only commit, the last to touch every named file) by
/// the same commit carrying a `gpgsig` header with a fake armored
/// signature of this kind (`PGP SIGNATURE`, `SSH SIGNATURE`, `SIGNED MESSAGE`).
fn sign_head(root: &Path, armor: &str) {
    let commit = git_out(root, &["cat-file", "commit", "HEAD"], None);
    let (headers, message) = commit.split_once("\n\n").unwrap();
    let signed = format!(
        "{headers}\ngpgsig -----BEGIN {armor}-----\n \n iQEzBAABCAAdFiEEZmFrZWZha2VmYWtlZmFrZQ==\n =ZmFr\n -----END {armor}-----\n\n{message}"
    );
    let id = git_out(
        root,
        &["hash-object", "-t", "commit", "-w", "--stdin"],
        Some(signed.as_bytes()),
    );
    git_out(root, &["update-ref", "refs/heads/main", id.trim()], None);
    assert!(git_out(root, &["cat-file", "commit", "HEAD"], None).contains("gpgsig -----BEGIN"));
}

/// What `check --format json --root` said of the report.
struct Checked {
    status: i32,
    /// Every diagnostic, as `(code, message)`.
    all: Vec<(String, String)>,
    /// The workspace checks' (invariant 13) only.
    workspace: Vec<(String, String)>,
}

/// `check --format json --root` on the report, in the planted environment.
fn check_cli(planted: &Planted) -> Checked {
    let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(["check", "--format", "json"])
        .arg(planted.project.report_path())
        .arg("--root")
        .arg(planted.root())
        .envs(planted.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "check printed no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let diagnostics = json["files"][0]["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no diagnostics in {json}"));
    let pair = |d: &Value| {
        (
            d["code"].as_str().unwrap().to_string(),
            d["message"].as_str().unwrap().to_string(),
        )
    };
    let workspace = diagnostics
        .iter()
        .filter(|d| {
            report_core::diagnostic::Code::parse(d["code"].as_str().unwrap())
                .unwrap()
                .invariant()
                == 13
        })
        .map(pair)
        .collect();
    Checked {
        status: output.status.code().expect("check exited"),
        all: diagnostics.iter().map(pair).collect(),
        workspace,
    }
}

fn assert_cli_verdict(planted: &Planted, verdict: Verdict) {
    let checked = check_cli(planted);
    match verdict {
        Verdict::Auto => {
            assert_eq!(checked.all, vec![], "a consistent report");
            assert_eq!(checked.status, 0);
        }
        Verdict::Filtered => {
            assert_eq!(checked.all, vec![], "unknown facts warn of nothing");
            assert_eq!(checked.status, 0);
        }
    }
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn has(diagnostics: &[Value], code: &str) -> bool {
    diagnostics.iter().any(|d| d["code"] == code)
}

/// The 0-based line and column of byte `offset` in an ASCII `text`.
fn position_at(text: &str, offset: usize) -> Value {
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |n| n + 1);
    json!({"line": line, "character": column})
}

/// A server over stdio, started with the planted environment.
fn start_server(planted: &Planted) -> Editor {
    let env: Vec<(&str, &str)> = planted
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    Editor::start_with_capabilities(
        env!("CARGO_BIN_EXE_report-lsp"),
        capable_client(&["utf-16"]),
        &env,
        Value::Null,
    )
}

/// Waits until every workspace pass asked for so far has run: the
/// workspace thread serves its requests in order, and a save or a watched
/// change asks it directly, so a probe report opened now (a fresh file
/// each time, naming a missing path) is checked after them; its
/// `path-missing` arrives once they are done, and their results are queued
/// to the report's analysis thread before any hover sent after it.
fn settle(editor: &mut Editor, planted: &Planted, n: usize) {
    let probe = planted.root().join(format!("probe-{n}.report.json"));
    let text = serde_json::to_string_pretty(&report(
        FUTURE,
        vec![json!(format!("absent-{n}.md"))],
        vec![],
        vec![],
    ))
    .unwrap();
    std::fs::write(&probe, &text).unwrap();
    let uri = uri_of(&probe);
    editor.open(&uri, &text, 1);
    for _ in 0..10 {
        let (_, diagnostics) = editor.diagnostics(&uri);
        if has(&diagnostics, "path-missing") {
            editor.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri}}),
            );
            return;
        }
    }
    panic!("the probe's workspace pass never came");
}

/// Waits for the report's first workspace pass: its facts reach the hover.
/// (A probe cannot tell here: the two documents' analyses, which ask for
/// their checks, may run on different threads in either order.)
fn first_pass(editor: &mut Editor, planted: &Planted) {
    let uri = uri_of(&planted.project.report_path());
    let delete_at = planted.text.find("\"exact_edit\"").unwrap();
    for _ in 0..400 {
        let hover = editor.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position_at(&planted.text, delete_at + 1)}),
        );
        if hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|m| m.contains("**Live derivation**"))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the report's first workspace pass never came");
}

/// Hovers on every `exact_edit` of the report; the delete's live
/// derivation must be there (with `verdict`).
fn hover_every_edit(editor: &mut Editor, planted: &Planted, verdict: Verdict) {
    let uri = uri_of(&planted.project.report_path());
    let text = &planted.text;
    let mut kinds = Vec::new();
    for (at, _) in text.match_indices("\"exact_edit\"") {
        let hover = editor.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position_at(text, at + 1)}),
        );
        let markdown = hover["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_else(|| panic!("no hover: {hover}"))
            .to_string();
        assert!(markdown.contains("**Edit preview**: `"), "{markdown}");
        let kind = markdown
            .split("**Edit preview**: `")
            .nth(1)
            .and_then(|s| s.split('`').next())
            .unwrap()
            .to_string();
        match kind.as_str() {
            "delete" => {
                assert!(
                    markdown.contains(&format!("Deletes `plans/plan.md`: {} bytes.", PLAN.len())),
                    "{markdown}"
                );
                assert!(
                    markdown.contains("**Live derivation** (from the tree now): `"),
                    "{markdown}"
                );
                assert!(
                    markdown.contains("- served: yes, `docs/done.md` exists"),
                    "{markdown}"
                );
                assert!(markdown.contains("- clean: "), "{markdown}");
                match verdict {
                    Verdict::Auto => {
                        assert!(
                            markdown.contains("**Live derivation** (from the tree now): `auto`"),
                            "{markdown}"
                        );
                        assert!(markdown.contains("- tracked: yes, "), "{markdown}");
                        assert!(markdown.contains("- clean: yes, "), "{markdown}");
                        assert!(markdown.contains("Last commit: "), "{markdown}");
                    }
                    Verdict::Filtered => {
                        // Unknown cleanliness is said, with why.
                        assert!(
                            markdown.contains("**Live derivation** (from the tree now): `confirm`"),
                            "{markdown}"
                        );
                        assert!(markdown.contains("- tracked: yes, "), "{markdown}");
                        assert!(
                            markdown.contains("- clean: unknown, the `filter="),
                            "{markdown}"
                        );
                    }
                }
            }
            "replace-text" => {
                assert!(
                    markdown.contains("-make install\n+cargo install"),
                    "{markdown}"
                )
            }
            "delete-range" => {
                assert!(markdown.contains("-drop this\n-and this"), "{markdown}")
            }
            other => panic!("unexpected edit {other}: {markdown}"),
        }
        kinds.push(kind);
    }
    assert_eq!(kinds, ["delete", "replace-text", "delete-range"]);
}

/// The server's side: open, a hover on every exact edit, the report and a
/// named file saved, a named file and git's index changed on disk, and the
/// hovers again, each after the workspace passes they cause have run.
fn exercise_server(planted: &Planted, verdict: Verdict) {
    let uri = uri_of(&planted.project.report_path());
    let mut editor = start_server(planted);
    editor.open(&uri, &planted.text, 1);
    first_pass(&mut editor, planted);
    settle(&mut editor, planted, 1);
    hover_every_edit(&mut editor, planted, verdict);

    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    settle(&mut editor, planted, 2);
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri_of(&planted.root().join("docs/setup.md"))}}),
    );
    settle(&mut editor, planted, 3);

    planted.make_stat_stale();
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&planted.root().join("plans/plan.md")), "type": 2}]}),
    );
    settle(&mut editor, planted, 4);
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&planted.root().join(".git/index")), "type": 2}]}),
    );
    settle(&mut editor, planted, 5);
    hover_every_edit(&mut editor, planted, verdict);
    editor.shutdown();
}

/// The whole proof for one planted repository: `check --root`, then the
/// server; no planted program may have run in either, and both finished
/// with `verdict`.
fn assert_inert(planted: &Planted, verdict: Verdict) {
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
    assert!(
        planted.ran().is_empty(),
        "a marker exists before the checks: {:?}",
        planted.ran()
    );
    // The markers are said first; a verdict that failed too, after them.
    let cli = catch_unwind(AssertUnwindSafe(|| assert_cli_verdict(planted, verdict)));
    let by_cli = planted.ran();
    planted.forget_runs();
    let server = catch_unwind(AssertUnwindSafe(|| exercise_server(planted, verdict)));
    let by_server = planted.ran();
    assert!(
        by_cli.is_empty() && by_server.is_empty(),
        "repository-chosen programs ran: by `check --root` {by_cli:?}, by the server {by_server:?}"
    );
    for outcome in [cli, server] {
        if let Err(panic) = outcome {
            resume_unwind(panic);
        }
    }
}

/// After the checks: what was planted is live, a plain git command run as
/// a user would (no safety flags) runs at least one of the programs. So the
/// tests above cannot pass because a plant was inert.
fn assert_reachable(planted: &Planted, args: &[&str]) {
    planted.forget_runs();
    let _ = Command::new("git")
        .arg("-C")
        .arg(planted.root())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(
        !planted.ran().is_empty(),
        "`git {args:?}` ran none of the planted programs: the plant is inert"
    );
}

/// The filter script in config text: `[filter "NAME"]` with `clean` (a
/// pass-through) or `process`.
fn filter_section(planted: &mut Planted, name: &str, key: &str) -> String {
    let then = if key == "process" {
        Then::Exit
    } else {
        Then::Cat
    };
    let script = planted.script(&format!("filter-{name}-{key}"), then);
    format!("[filter \"{name}\"]\n\t{key} = {script}\n")
}

// Row 1 of the table.
#[test]
fn a_clean_filter_on_stale_stat_data_is_never_run() {
    let mut planted = consistent();
    let section = filter_section(&mut planted, "x", "clean");
    planted.config(&section);
    planted.attributes("* filter=x\n");
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Filtered);
    assert_reachable(&planted, &["status"]);
}

// Row 2.
#[test]
fn a_long_running_filter_process_is_never_started() {
    let mut planted = consistent();
    let section = filter_section(&mut planted, "x", "process");
    planted.config(&section);
    planted.attributes("* filter=x\n");
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Filtered);
    assert_reachable(&planted, &["status"]);
}

// Row 3.
#[test]
fn an_included_config_inside_the_tree_defining_a_filter_is_never_run() {
    let mut planted = consistent();
    let mut included = filter_section(&mut planted, "x", "clean");
    included.push_str(&filter_section(&mut planted, "y", "process"));
    planted.project.write("tools/git.inc", &included);
    // Relative to the including file, `.git/config`: inside the tree.
    planted.config("[include]\n\tpath = ../tools/git.inc\n");
    planted.attributes("plans/* filter=x\ndocs/* filter=y\n");
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Filtered);
    assert_reachable(&planted, &["status"]);
}

// Row 4.
#[test]
fn a_dot_git_file_pointing_elsewhere_whose_config_defines_a_filter_is_never_run() {
    let mut planted = consistent();
    let elsewhere = planted.outside.path().join("elsewhere.git");
    std::fs::rename(planted.git_dir(), &elsewhere).unwrap();
    std::fs::write(
        planted.git_dir(),
        format!("gitdir: {}\n", elsewhere.display()),
    )
    .unwrap();
    let section = filter_section(&mut planted, "x", "clean");
    planted.append(&elsewhere.join("config"), &section);
    planted.append(&elsewhere.join("info/attributes"), "* filter=x\n");
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Filtered);
    assert_reachable(&planted, &["status"]);
}

/// Row 5 in each signature format: `log.showSignature` and the format's
/// verifier, the last commit touching the deleted file signed.
fn a_signed_last_commit(armor: &str, verifier: &str) {
    let mut planted = consistent();
    sign_head(planted.root(), armor);
    let script = planted.script(
        &format!("verify-{}", verifier.replace('.', "-")),
        Then::Drain,
    );
    planted.config(&format!(
        "[log]\n\tshowSignature = true\n[gpg \"ssh\"]\n\tallowedSignersFile = {}\n",
        planted.root().join("docs/done.md").display()
    ));
    let (section, key) = verifier.rsplit_once('.').unwrap();
    let section = match section.split_once('.') {
        Some((outer, inner)) => format!("[{outer} \"{inner}\"]"),
        None => format!("[{section}]"),
    };
    planted.config(&format!("{section}\n\t{key} = {script}\n"));
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Auto);
    assert_reachable(&planted, &["log", "-1", "--", "plans/plan.md"]);
}

// Row 5.
#[test]
fn a_signature_verifier_is_never_run_for_the_last_commit() {
    a_signed_last_commit("PGP SIGNATURE", "gpg.program");
}

#[test]
fn an_ssh_signature_verifier_is_never_run_for_the_last_commit() {
    a_signed_last_commit("SSH SIGNATURE", "gpg.ssh.program");
}

#[test]
fn an_x509_signature_verifier_is_never_run_for_the_last_commit() {
    a_signed_last_commit("SIGNED MESSAGE", "gpg.x509.program");
}

// Row 6.
#[test]
fn an_fsmonitor_hook_is_never_run() {
    let mut planted = consistent();
    let script = planted.script("fsmonitor", Then::Exit);
    planted.config(&format!(
        "[core]\n\tfsmonitor = {script}\n\tfsmonitorHookVersion = 2\n"
    ));
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Auto);
    assert_reachable(&planted, &["status"]);
}

// Row 7.
#[test]
fn textconv_and_external_diff_are_never_run() {
    let mut planted = consistent();
    let textconv = planted.script("textconv", Then::Cat);
    let command = planted.script("diff-command", Then::Exit);
    let external = planted.script("diff-external", Then::Exit);
    planted.config(&format!(
        "[diff \"x\"]\n\ttextconv = {textconv}\n\tcommand = {command}\n[diff]\n\texternal = {external}\n"
    ));
    planted.attributes("* diff=x\n");
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Auto);
    assert_reachable(&planted, &["show", "HEAD"]);
}

/// Every hook githooks(5) names.
const HOOKS: [&str; 28] = [
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// A folder outside the repository with every hook in it.
fn hooks_dir(planted: &mut Planted) -> PathBuf {
    let dir = planted.outside.path().join("hooks");
    std::fs::create_dir_all(&dir).unwrap();
    for hook in HOOKS {
        let marker = planted.outside.path().join(format!("hook-{hook}.ran"));
        write_script(&dir.join(hook), &marker, Then::Exit);
        planted.markers.push(marker);
    }
    dir
}

// Row 8.
#[test]
fn index_and_reference_hooks_are_never_run() {
    let mut planted = consistent();
    let dir = hooks_dir(&mut planted);
    planted.config(&format!("[core]\n\thooksPath = {}\n", dir.display()));
    // The default hooks folder too.
    for hook in HOOKS {
        let marker = planted
            .outside
            .path()
            .join(format!("default-hook-{hook}.ran"));
        write_script(
            &planted.git_dir().join("hooks").join(hook),
            &marker,
            Then::Exit,
        );
        planted.markers.push(marker);
    }
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Auto);
    assert_reachable(&planted, &["status"]);
}

// `includeIf`, under every condition git knows, each including a file in
// the tree that defines a filter the attributes name.
#[test]
fn conditionally_included_configs_defining_filters_are_never_run() {
    let mut planted = consistent();
    let gitdir = filter_section(&mut planted, "g", "clean");
    let branch = filter_section(&mut planted, "b", "clean");
    let remote = filter_section(&mut planted, "h", "process");
    planted.project.write("tools/gitdir.inc", &gitdir);
    planted.project.write("tools/onbranch.inc", &branch);
    planted.project.write("tools/hasconfig.inc", &remote);
    let root = planted.root().display().to_string();
    planted.config(&format!(
        "[remote \"origin\"]\n\turl = https://example.invalid/r.git\n\
         [includeIf \"gitdir:{root}/\"]\n\tpath = {root}/tools/gitdir.inc\n\
         [includeIf \"gitdir/i:**/\"]\n\tpath = {root}/tools/gitdir.inc\n\
         [includeIf \"onbranch:main\"]\n\tpath = {root}/tools/onbranch.inc\n\
         [includeIf \"hasconfig:remote.*.url:https://example.invalid/**\"]\n\tpath = {root}/tools/hasconfig.inc\n"
    ));
    planted.attributes("plans/* filter=g\ndocs/setup.md filter=b\ndocs/notes.md filter=h\n");
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Filtered);
    assert_reachable(&planted, &["status"]);
}

/// Every other setting of `git help config` (git 2.47) whose value is a
/// program or shell command, planted at once, and those of `[include]`d
/// and `includeIf`-included files: none may run. No attribute names a
/// filter for the named files, so the verdict is sure.
#[test]
fn every_other_command_setting_of_git_config_is_never_run() {
    let mut planted = consistent();
    let mut config = String::new();
    for (section, key) in [
        ("core", "pager"),
        ("core", "editor"),
        ("core", "askPass"),
        ("core", "sshCommand"),
        ("core", "gitProxy"),
        ("core", "alternateRefsCommand"),
        ("sequence", "editor"),
        ("credential", "helper"),
        ("credential \"https://example.invalid\"", "helper"),
        ("gpg", "program"),
        ("gpg \"openpgp\"", "program"),
        ("gpg \"ssh\"", "program"),
        ("gpg \"ssh\"", "defaultKeyCommand"),
        ("gpg \"x509\"", "program"),
        ("merge \"x\"", "driver"),
        ("merge", "tool"),
        ("mergetool \"x\"", "cmd"),
        ("mergetool \"x\"", "path"),
        ("diff", "tool"),
        ("diff", "guitool"),
        ("difftool \"x\"", "cmd"),
        ("difftool \"x\"", "path"),
        ("diff \"y\"", "command"),
        ("diff \"y\"", "textconv"),
        ("filter \"y\"", "smudge"),
        ("uploadpack", "packObjectsHook"),
        ("receive", "procReceiveRefs"),
        ("remote \"origin\"", "uploadpack"),
        ("remote \"origin\"", "receivepack"),
        ("remote \"origin\"", "proxy"),
        ("browser \"x\"", "cmd"),
        ("browser \"x\"", "path"),
        ("web", "browser"),
        ("help", "browser"),
        ("instaweb", "browser"),
        ("instaweb", "httpd"),
        ("man \"x\"", "cmd"),
        ("man \"x\"", "path"),
        ("guitool \"x\"", "cmd"),
        ("imap", "tunnel"),
        ("interactive", "diffFilter"),
        ("sendemail", "smtpServer"),
        ("sendemail", "sendmailCmd"),
        ("sendemail", "toCmd"),
        ("sendemail", "ccCmd"),
        ("sendemail", "headerCmd"),
        ("pager", "status"),
        ("pager", "log"),
        ("pager", "ls-files"),
        ("pager", "rev-parse"),
        ("pager", "diff"),
    ] {
        set(&mut planted, &mut config, section, key);
    }
    // A remote whose URL is a command (the `ext::` transport), allowed.
    let ext = planted.script("remote-ext-url", Then::Exit);
    config.push_str(&format!(
        "[remote \"origin\"]\n\turl = ext::{ext}\n\tvcs = x\n[protocol \"ext\"]\n\tallow = always\n[protocol]\n\tallow = always\n"
    ));
    // Aliases named like the commands a workspace check might run.
    for alias in [
        "status",
        "log",
        "ls-files",
        "rev-parse",
        "hash-object",
        "cat-file",
    ] {
        let script = planted.script(&format!("alias-{alias}"), Then::Exit);
        config.push_str(&format!("[alias]\n\t{alias} = !{script}\n"));
    }
    // Signatures are shown by log, ssh signing would ask for a key, the
    // log's format and decorations come from config.
    config.push_str(
        "[log]\n\tshowSignature = true\n\tdecorate = full\n[commit]\n\tgpgSign = true\n[tag]\n\tgpgSign = true\n[format]\n\tpretty = fuller\n[color]\n\tui = always\n\tpager = true\n[maintenance]\n\tauto = true\n[gc]\n\tauto = 1\n[status]\n\tsubmoduleSummary = true\n[diff]\n\tautoRefreshIndex = true\n",
    );
    // The same settings again from an included and a conditionally
    // included file inside the tree (the second half there only).
    let included = planted.root().join("tools/included.inc");
    let mut inc = String::new();
    set(&mut planted, &mut inc, "core", "pager");
    set(&mut planted, &mut inc, "credential", "helper");
    planted.project.write("tools/included.inc", &inc);
    let conditional = planted.root().join("tools/conditional.inc");
    let mut cond = String::new();
    set(&mut planted, &mut cond, "core", "editor");
    set(&mut planted, &mut cond, "diff \"y\"", "textconv");
    planted.project.write("tools/conditional.inc", &cond);
    config.push_str(&format!(
        "[include]\n\tpath = {}\n[includeIf \"gitdir:{}/\"]\n\tpath = {}\n",
        included.display(),
        planted.root().display(),
        conditional.display()
    ));
    // The attributes name the drivers, for files the report does not name
    // and for those it does (diff and merge drivers transform no content).
    planted.project.write("assets/blob.bin", "blob\n");
    planted.attributes("*.bin filter=y\n* diff=y merge=x\n");
    planted.config(&config);
    let hooks = hooks_dir(&mut planted);
    let fsmonitor = planted.script("fsmonitor", Then::Exit);
    planted.config(&format!(
        "[core]\n\thooksPath = {}\n\tfsmonitor = {fsmonitor}\n",
        hooks.display()
    ));
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Auto);
    assert_reachable(&planted, &["status"]);
}

/// Plants `[section] key = <a script>` in `config`.
fn set(planted: &mut Planted, config: &mut String, section: &str, key: &str) {
    let name = format!(
        "{}-{key}",
        section.replace([' ', '"', '.', '*', ':', '/'], "-")
    );
    let script = planted.script(&name, Then::Cat);
    config.push_str(&format!("[{section}]\n\t{key} = {script}\n"));
}

/// The path of the real `git`, found on PATH.
fn real_git() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("git"))
        .find(|p| p.is_file())
}

/// A `git` first on PATH that records that it ran and then does the real
/// git's work: no git binary may be run at all, whatever its arguments.
#[test]
fn no_git_binary_is_run_at_all() {
    let mut planted = consistent();
    let real = real_git().expect("git is installed for the setup");
    let fake = planted.outside.path().join("fake-bin");
    std::fs::create_dir_all(&fake).unwrap();
    let marker = planted.outside.path().join("git.ran");
    std::fs::write(
        fake.join("git"),
        format!(
            "#!/bin/sh\n: > '{}'\nexec '{}' \"$@\"\n",
            marker.display(),
            real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(fake.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    planted.markers.push(marker);
    let path = std::env::var_os("PATH").unwrap();
    let mut dirs = vec![fake];
    dirs.extend(std::env::split_paths(&path));
    planted.env.push((
        "PATH".into(),
        std::env::join_paths(dirs).unwrap().into_string().unwrap(),
    ));
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Auto);
}

/// Without git on PATH at all the facts are still read: the delete still
/// derives `auto` from the index (tracked, clean), with its last commit,
/// and a dirty file is still seen as dirty.
#[test]
fn without_git_on_path_the_verdicts_are_still_computed() {
    let mut planted = consistent();
    let empty = planted.outside.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    planted
        .env
        .push(("PATH".into(), empty.display().to_string()));
    planted.make_stat_stale();
    assert_inert(&planted, Verdict::Auto);

    // Dirty: the edit is stale and the recorded auto no longer derives.
    std::fs::write(planted.root().join("plans/plan.md"), "# plan, edited\n").unwrap();
    let found = check_cli(&planted).workspace;
    let codes: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
    assert!(codes.contains(&"stale-exact-edit"), "{found:?}");
    assert!(
        codes.contains(&"live-tier-confirm"),
        "without git the dirty file must still be known dirty: {found:?}"
    );
}
