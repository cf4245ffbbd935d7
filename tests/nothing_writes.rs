//! Only `check --fix` writes (issue 50). A project that is a real git
//! repository, whose reports' exact edits point at real files (so the
//! workspace checks, the preview and the stale checks all run), is checked
//! by every command of the CLI but `--fix`, and by a server session over
//! stdio; afterwards every file and folder of the project and of its
//! `.git` is as it was: the same paths, bytes, inodes, modes and times.
//! `tests/architecture.rs` scans the sources for the same rule.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::editor::{Editor, editing_client};
use common::file_uri;
use common::project::{Project, SETUP, cleanable_entries, edit_entry, report, sha256};
use common::tree::Tree;
use serde_json::{Value, json};

const FUTURE: &str = "2099-01-01T00:00:00Z";
const STALE: &str = "then\n";
/// How many probe reports a session may open to wait for workspace passes.
const PROBES: usize = 3;

/// The project: a replace-text and a move-to-archive that derive auto, a
/// delete-range that needs confirmation, a lifecycle delete git proves
/// auto, an extract-then-delete, and an entry whose file changed since
/// the commit (stale and dirty); one entry's path is missing from the
/// shortlist, a problem `--fix` would fix. Beside it an earlier
/// generation for `diff`, a project file, and reports that name missing
/// files, for a session to wait on. Everything is committed but the
/// stale file's change.
fn project() -> (Project, String) {
    let project = Project::new();
    project.write("handoff/会议.md", "decided: X\n");
    project.write("docs/stale.md", STALE);
    project.write("report-lsp.toml", "max-diagnostics = 500\n");
    let anchor = |start: u64, end: u64| json!({"start_line": start, "end_line": end});
    let lifecycle = json!({"rule_ref": "rules/plans", "lifetime": "delete-once-served", "served_when_path": "plans/done.md"});
    let mut entries = cleanable_entries(&project);
    entries.extend([
        edit_entry(
            "handoff/会议.md",
            json!({"kind": "extract-then-delete", "anchor": anchor(1, 1), "lifecycle": lifecycle, "extraction_target": "repo-durable", "target_doc": "docs/decisions.md", "expected_sha256": sha256("decided: X\n")}),
        ),
        edit_entry(
            "docs/stale.md",
            json!({"kind": "delete-range", "anchor": anchor(1, 1), "expected_sha256": sha256(STALE)}),
        ),
    ]);
    // The last entry's path is left out of the shortlist.
    let shortlist: Vec<Value> = entries[..entries.len() - 1]
        .iter()
        .map(|e| e["path"].clone())
        .collect();
    let old = report(
        "2098-01-01T00:00:00Z",
        shortlist[..2].to_vec(),
        entries[..2].to_vec(),
        vec![],
    );
    project.write(
        "old.report.json",
        &serde_json::to_string_pretty(&old).unwrap(),
    );
    for n in 0..PROBES {
        let probe = report(
            FUTURE,
            vec![json!(format!("absent-{n}.md"))],
            vec![],
            vec![],
        );
        project.write(
            &format!("probes/{n}.report.json"),
            &serde_json::to_string_pretty(&probe).unwrap(),
        );
    }
    let text = project.write_report(&report(FUTURE, shortlist, entries, vec![]));
    project.commit_all();
    project.write("docs/stale.md", "now different\n");
    (project, text)
}

/// The tree under `dir`, after checking that it holds a git repository's
/// data, so that a comparison covers `.git` too.
fn tree_with_git(dir: &Path) -> Tree {
    let tree = Tree::of(dir);
    let paths: Vec<_> = tree.entries.keys().collect();
    assert!(tree.files_under(".git/objects") > 10, "{paths:?}");
    assert!(tree.entries.contains_key(Path::new(".git/index")));
    tree
}

fn assert_unchanged(before: &Tree, dir: &Path, what: &str) {
    let changes = before.changes(&Tree::of(dir));
    assert!(
        changes.is_empty(),
        "{what} wrote to {}:\n{}",
        dir.display(),
        changes.join("\n")
    );
}

/// The binary with `args` in the project, with a home, configuration,
/// cache and temporary folder of its own (`elsewhere`), and `stdin`.
fn run(project: &Project, elsewhere: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .args(args)
        .current_dir(project.path())
        .env("HOME", elsewhere)
        .env("XDG_CONFIG_HOME", elsewhere.join(".config"))
        .env("XDG_CACHE_HOME", elsewhere.join(".cache"))
        .env("TMPDIR", elsewhere.join("tmp"))
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn no_command_but_check_fix_writes() {
    let (project, text) = project();
    let elsewhere = tempfile::tempdir().unwrap();
    for folder in [".config", ".cache", "tmp"] {
        std::fs::create_dir(elsewhere.path().join(folder)).unwrap();
    }
    let before = tree_with_git(project.path());
    let before_elsewhere = Tree::of(elsewhere.path());

    // Each command, its exit status, and a piece of what it printed that
    // shows it did its work.
    let runs: &[(&[&str], &str, i32, &str)] = &[
        (&["check", "."], "", 1, "stale"),
        (
            &["check", "--format", "json", "."],
            "",
            1,
            "stale-exact-edit",
        ),
        (
            &["check", "--format", "sarif", "."],
            "",
            1,
            "stale-exact-edit",
        ),
        (&["check", "--format", "github", "."], "", 1, "::error"),
        (
            &["check", "-", "--stdin-filename", "hygiene.report.json"],
            &text,
            1,
            "stale",
        ),
        (
            &["check", "--preview", "hygiene.report.json"],
            "",
            // The report's problems still decide the status.
            1,
            "+++ b/archive/roadmap.md",
        ),
        (
            &["check", "--diff", "."],
            "",
            1,
            "+++ b/./hygiene.report.json",
        ),
        (
            &["diff", "old.report.json", "hygiene.report.json"],
            "",
            0,
            "docs/stale.md",
        ),
        (
            &[
                "diff",
                "--format",
                "json",
                "old.report.json",
                "hygiene.report.json",
            ],
            "",
            0,
            "docs/stale.md",
        ),
        (
            &[
                "diff",
                "--format",
                "github",
                "--exit-code",
                "old.report.json",
                "hygiene.report.json",
            ],
            "",
            1,
            "::",
        ),
        (&["explain", "stale-exact-edit"], "", 0, "expected_sha256"),
        (&["schema"], "", 0, "2020-12"),
        (&["completions", "bash"], "", 0, "report-lsp"),
        (&["man"], "", 0, ".TH"),
    ];
    for (args, stdin, status, shows) in runs {
        let output = run(&project, elsewhere.path(), args, stdin);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(*status),
            "{args:?}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            stdout.contains(shows),
            "{args:?} printed no {shows:?}: {stdout}"
        );
        assert_unchanged(&before, project.path(), &format!("{args:?}"));
    }
    assert_unchanged(&before_elsewhere, elsewhere.path(), "the CLI");

    // The comparison sees a write: `--fix` replaces the report (a new
    // inode, renamed in from a temporary file beside it, which moves the
    // folder's times).
    let output = run(&project, elsewhere.path(), &["check", "--fix", "."], "");
    assert_eq!(output.status.code(), Some(1), "the stale entry is left");
    let changes = before.changes(&Tree::of(project.path()));
    assert_eq!(
        changes,
        [
            "changed (mtime, ctime): .",
            "changed (content, inode, mtime, ctime): hygiene.report.json"
        ],
        "--fix writes the report and nothing else"
    );
}

fn has(diagnostics: &[Value], code: &str) -> bool {
    diagnostics.iter().any(|d| d["code"] == code)
}

/// A request's result, once it is known not to be an error.
fn ask(editor: &mut Editor, method: &str, params: Value) -> Value {
    let reply = editor.request(method, params);
    assert!(reply.get("error").is_none(), "{method}: {reply}");
    reply["result"].clone()
}

/// Waits until every workspace pass asked for so far has run: the
/// workspace thread serves its requests in order, so probe `n`, opened
/// now, is checked after them, and its `path-missing` arrives once they
/// are done.
fn settle(editor: &mut Editor, project: &Project, n: usize) {
    let path = project.path().join(format!("probes/{n}.report.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = file_uri(&path);
    editor.open(&uri, &text, 1);
    editor.diagnostics_until(&uri, |d| has(d, "path-missing"));
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
}

/// The `workspace/diagnostic` items: URI → codes.
fn found_reports(editor: &mut Editor) -> Vec<(String, Vec<String>)> {
    let result = ask(
        editor,
        "workspace/diagnostic",
        json!({"identifier": "report-lsp", "previousResultIds": []}),
    );
    let mut items: Vec<(String, Vec<String>)> = result["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let codes = item["items"].as_array().unwrap();
            let codes = codes.iter().map(|d| d["code"].to_string()).collect();
            (item["uri"].as_str().unwrap().to_string(), codes)
        })
        .collect();
    items.sort();
    items
}

#[test]
fn a_server_session_writes_nothing() {
    let (project, text) = project();
    let before = tree_with_git(project.path());
    let uri = file_uri(&project.report_path());
    let doc = |path: &str| file_uri(&project.path().join(path));
    let at = |offset: usize| common::lsp_position(&text, offset);
    let entry_at = |path: &str| at(text.find(&format!("\"path\": \"{path}\"")).unwrap() + 1);
    let mut editor = editing_client(project.path());

    // The workspace pass over unopened reports: found and read from disk.
    let found = found_reports(&mut editor);
    let uris: Vec<&str> = found.iter().map(|(uri, _)| uri.as_str()).collect();
    assert!(uris.contains(&uri.as_str()), "{found:?}");
    assert!(uris.contains(&doc("old.report.json").as_str()), "{found:?}");

    // Opened: the workspace checks read the project and git, and find the
    // changed file stale.
    editor.open(&uri, &text, 1);
    editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));

    // Hovers on every exact edit: the edit previews and live derivations.
    for (offset, _) in text.match_indices("\"exact_edit\"") {
        let hover = ask(
            &mut editor,
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": at(offset + 1)}),
        );
        let markdown = hover["contents"]["value"].as_str().unwrap();
        assert!(markdown.contains("**Edit preview**"), "{markdown}");
    }

    // Each entry's clean, offered and never applied; the whole report's,
    // resolved; the quick fix and fix-all for the shortlist.
    let action_at = |editor: &mut Editor, position: Value, only: &str| {
        let actions = ask(
            editor,
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": {"start": position, "end": position},
                "context": {"diagnostics": [], "only": [only]},
            }),
        );
        actions.as_array().cloned().unwrap_or_default()
    };
    for path in [
        "docs/setup.md",
        "docs/旧-api.md",
        "docs/roadmap 🚀.md",
        "notes/scratch.md",
        "handoff/会议.md",
        "docs/stale.md",
    ] {
        let actions = action_at(&mut editor, entry_at(path), "refactor.clean");
        assert_eq!(actions.len(), 1, "{path}: {actions:#?}");
        assert_eq!(actions[0]["kind"], "refactor.clean.report-lsp");
        assert!(
            actions[0]["edit"].is_object() || actions[0]["disabled"]["reason"].is_string(),
            "{path}: {actions:#?}"
        );
    }
    let whole = action_at(&mut editor, at(0), "source.clean");
    assert_eq!(whole.len(), 1, "{whole:#?}");
    let resolved = ask(&mut editor, "codeAction/resolve", whole[0].clone());
    assert!(resolved["edit"]["documentChanges"].is_array(), "{resolved}");
    let fixes = ask(
        &mut editor,
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": at(0), "end": at(text.len())},
            "context": {"diagnostics": [], "only": ["quickfix"]},
        }),
    );
    assert!(
        fixes.as_array().is_some_and(|f| !f.is_empty()),
        "the shortlist's fix: {fixes}"
    );
    let fix_all = action_at(&mut editor, at(0), "source.fixAll");
    assert_eq!(fix_all.len(), 1, "{fix_all:#?}");
    ask(&mut editor, "codeAction/resolve", fix_all[0].clone());

    // Keystrokes: a replacement changed, then changed back.
    let replacement = text.find("\"cargo install\"").unwrap() + 1;
    let word = json!({"start": at(replacement), "end": at(replacement + 5)});
    editor.change(&uri, 2, json!([{"range": word, "text": "build"}]));
    editor.diagnostics_until(&uri, |_| true);
    let typed = json!({"start": at(replacement), "end": at(replacement + 5)});
    editor.change(&uri, 3, json!([{"range": typed, "text": "cargo"}]));
    editor.diagnostics_until(&uri, |d| has(d, "stale-exact-edit"));

    // A target document typed into and never saved, then closed.
    let setup = doc("docs/setup.md");
    editor.open_as(&setup, "markdown", SETUP, 1);
    editor.change(&setup, 2, json!([{"text": "edited in the editor\n"}]));
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": setup}}),
    );

    // The rest of what an editor asks of a report.
    let position = |offset: usize| json!({"textDocument": {"uri": uri}, "position": at(offset)});
    let on_path = text.find("docs/setup.md").unwrap() + 1;
    let document = json!({"textDocument": {"uri": uri}});
    let everything = json!({"start": at(0), "end": at(text.len())});
    for (method, params) in [
        ("textDocument/documentLink", document.clone()),
        ("textDocument/codeLens", document.clone()),
        ("textDocument/documentSymbol", document.clone()),
        ("textDocument/foldingRange", document.clone()),
        (
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": everything}),
        ),
        (
            "textDocument/selectionRange",
            json!({"textDocument": {"uri": uri}, "positions": [at(on_path)]}),
        ),
        ("textDocument/definition", position(on_path)),
        ("textDocument/references", {
            let mut params = position(on_path);
            params["context"] = json!({"includeDeclaration": true});
            params
        }),
        ("textDocument/prepareRename", position(on_path)),
        ("textDocument/rename", {
            let mut params = position(on_path);
            params["newName"] = json!("docs/install.md");
            params
        }),
        ("textDocument/completion", position(on_path)),
        ("workspace/symbol", json!({"query": "setup"})),
        (
            "workspace/executeCommand",
            json!({"command": "report-lsp.showDiffSinceHead", "arguments": [uri]}),
        ),
    ] {
        ask(&mut editor, method, params);
    }

    // Saves and changes on disk announced: the passes they cause run.
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": setup}}),
    );
    settle(&mut editor, &project, 0);
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [
            {"uri": doc("docs/stale.md"), "type": 2},
            {"uri": doc(".git/index"), "type": 2},
            {"uri": doc("old.report.json"), "type": 2},
        ]}),
    );
    settle(&mut editor, &project, 1);

    // Closed: the report is read from disk again, as a found one.
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    settle(&mut editor, &project, 2);
    let found = found_reports(&mut editor);
    assert!(found.iter().any(|(u, _)| *u == uri), "{found:?}");
    editor.shutdown();

    assert_unchanged(&before, project.path(), "the server");
}
