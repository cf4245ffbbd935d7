//! The server's limits on a document's size, end to end (issue 50): a
//! found report over 50 MiB, which VS Code would never hand over, is
//! checked from disk and says so; `maxDocumentBytes` refuses an open report
//! and a found one larger than it with the one `document-too-large`
//! diagnostic, and checks a smaller one, as set, as typed and as changed;
//! a found report over the limit is refused without being read.

mod common;

use std::path::Path;

use common::editor::Editor;
use common::file_uri;
use common::project::Project;
use report_core::diagnostic::Code;
use serde_json::{Value, json};

/// The size over which a found report is said to be checked from disk
/// (`UNSYNCED_BYTES` in src/lsp/found_reports/scan.rs).
const UNSYNCED_BYTES: usize = 50 * 1024 * 1024;

/// A report with problems of many kinds.
fn invalid_report() -> String {
    std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap()
}

/// `text` with spaces after it up to `bytes`: the same report, as large as wanted.
fn padded(text: &str, bytes: usize) -> String {
    let mut padded = String::with_capacity(bytes);
    padded.push_str(text);
    padded.extend(std::iter::repeat_n(' ', bytes - text.len()));
    padded
}

/// A diagnostic as `(line, character, code)` at its start.
fn start(d: &Value) -> (u64, u64, String) {
    (
        d["range"]["start"]["line"].as_u64().unwrap(),
        d["range"]["start"]["character"].as_u64().unwrap(),
        d["code"].as_str().unwrap().to_string(),
    )
}

/// The report's own diagnostics, without the workspace checks' (invariant
/// 13), which depend on the project and arrive later; in position order
/// (the server sends errors first).
fn own(diagnostics: &[Value]) -> Vec<(u64, u64, String)> {
    let mut own: Vec<_> = diagnostics
        .iter()
        .filter(|d| {
            Code::parse(d["code"].as_str().unwrap()).is_some_and(|code| code.invariant() != 13)
        })
        .map(start)
        .collect();
    own.sort();
    own
}

/// What the core finds in `text`, as [`own`] gives it.
fn expected(text: &str) -> Vec<(u64, u64, String)> {
    let mut expected: Vec<_> = common::diagnostic_starts(text)
        .into_iter()
        .map(|(line, col, code)| (line.into(), col.into(), code.to_string()))
        .collect();
    expected.sort();
    assert!(expected.len() > 5, "a report with problems: {expected:?}");
    expected
}

/// The first diagnostics published for `uri` at `version`: an open
/// document's, not what was pushed for it as a found report (no version).
fn published(editor: &mut Editor, uri: &str, version: i64) -> Vec<Value> {
    for _ in 0..20 {
        let (at, diagnostics) = editor.diagnostics(uri);
        if at == Some(version) {
            return diagnostics;
        }
    }
    panic!("nothing published for {uri} at version {version}");
}

/// `workspace/diagnostic` with no previous results: each found report's
/// diagnostics by URI. The first one waits for the first search.
fn found(editor: &mut Editor) -> std::collections::BTreeMap<String, Vec<Value>> {
    let reply = editor.request(
        "workspace/diagnostic",
        json!({"identifier": "report-lsp", "previousResultIds": []}),
    );
    assert!(reply.get("error").is_none(), "{reply}");
    reply["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["uri"].as_str().unwrap().to_string(),
                item["items"].as_array().unwrap().clone(),
            )
        })
        .collect()
}

fn uri(project: &Project, relative: &str) -> String {
    file_uri(&project.path().join(relative))
}

fn write_at(project: &Project, relative: &str, text: &str) {
    let path = project.path().join(relative);
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_found_report_over_50_mib_is_checked_from_disk_and_says_so() {
    let text = invalid_report();
    let project = Project::new();
    let big = padded(&text, UNSYNCED_BYTES + 1);
    write_at(&project, "big.report.json", &big);
    write_at(&project, "small.report.json", &text);
    drop(big);

    let mut editor = Editor::start_in_folders(
        env!("CARGO_BIN_EXE_report-lsp"),
        &[project.path()],
        Value::Null,
    );
    let found = found(&mut editor);
    let big = &found[&uri(&project, "big.report.json")];
    let small = &found[&uri(&project, "small.report.json")];

    // The note first, at the top, and the same problems as the small copy's.
    assert_eq!(big[0]["code"], "checked-from-disk", "{:#}", big[0]);
    assert_eq!(big[0]["severity"], 3, "information");
    assert_eq!(
        big[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
    );
    let message = big[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("checked from the file on disk: it is 50 MiB"),
        "{message}"
    );
    assert_eq!(own(&big[1..]), expected(&text));
    assert_eq!(own(small), expected(&text));
    assert!(!small.iter().any(|d| d["code"] == "checked-from-disk"));
    editor.shutdown();
}

/// `maxDocumentBytes`' limit for these tests: the report fits under it,
/// and with `EXTRA` spaces after it does not.
fn limit(text: &str) -> usize {
    text.len() + 100
}
const EXTRA: usize = 200;

/// The one diagnostic of a report of `bytes` over `limit`.
fn assert_too_large(diagnostics: &[Value], bytes: usize, limit: usize) {
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], "document-too-large");
    assert_eq!(d["severity"], 1, "an error");
    assert_eq!(
        d["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
    );
    let message = d["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "the document is {bytes} bytes, over the limit of {limit} bytes"
        )),
        "{message}"
    );
}

#[test]
fn max_document_bytes_refuses_larger_open_and_found_reports_and_checks_smaller_ones() {
    let text = invalid_report();
    let limit = limit(&text);
    let big = padded(&text, text.len() + EXTRA);
    let project = Project::new();
    for folder in ["open", "found"] {
        write_at(&project, &format!("{folder}/big.report.json"), &big);
        write_at(&project, &format!("{folder}/small.report.json"), &text);
    }
    // Found reports are pushed too, so that a change of the setting is
    // seen as it arrives.
    let mut editor = Editor::start_in_folders(
        env!("CARGO_BIN_EXE_report-lsp"),
        &[project.path()],
        json!({"maxDocumentBytes": limit, "diagnoseUnopenedReports": true}),
    );

    // Found, not opened: the larger one refused, the smaller one checked.
    let found = found(&mut editor);
    assert_too_large(
        &found[&uri(&project, "found/big.report.json")],
        big.len(),
        limit,
    );
    assert_eq!(
        own(&found[&uri(&project, "found/small.report.json")]),
        expected(&text)
    );

    // Opened: the same.
    let (open_big, open_small) = (
        uri(&project, "open/big.report.json"),
        uri(&project, "open/small.report.json"),
    );
    editor.open(&open_big, &big, 1);
    editor.open(&open_small, &text, 1);
    assert_too_large(&published(&mut editor, &open_big, 1), big.len(), limit);
    assert_eq!(
        own(&published(&mut editor, &open_small, 1)),
        expected(&text)
    );

    // Typed past the limit, and back under it.
    let end = common::lsp_position(&text, text.len());
    let at_end = json!({"start": end, "end": end});
    let spaces = " ".repeat(EXTRA);
    editor.change(&open_small, 2, json!([{"range": at_end, "text": spaces}]));
    let grown = published(&mut editor, &open_small, 2);
    assert_too_large(&grown, big.len(), limit);
    let typed = json!({"start": end, "end": common::lsp_position(&big, big.len())});
    editor.change(&open_small, 3, json!([{"range": typed, "text": ""}]));
    assert_eq!(
        own(&published(&mut editor, &open_small, 3)),
        expected(&text)
    );

    // The limit raised: both larger reports are checked, open and found.
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": {"maxDocumentBytes": big.len()}}}),
    );
    let open = editor.diagnostics_until(&open_big, |d| {
        !d.iter().any(|d| d["code"] == "document-too-large")
    });
    assert_eq!(own(&open), expected(&text));
    let found_big = uri(&project, "found/big.report.json");
    let pushed = editor.diagnostics_until(&found_big, |d| {
        !d.iter().any(|d| d["code"] == "document-too-large")
    });
    assert_eq!(own(&pushed), expected(&text));
    editor.shutdown();
}

/// A found report over the limit is refused from its size alone, unread:
/// an 8 GiB file (sparse, so it costs no disk) under a 3 GiB address
/// space, with the default limit. Read, it could not be held, and it
/// would be dropped as unreadable instead of refused.
#[test]
fn a_found_report_over_the_limit_is_refused_unread() {
    let project = Project::new();
    let huge = project.path().join("huge.report.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let text = invalid_report();
    write_at(&project, "small.report.json", &text);
    let mut editor = Editor::start_limited(3 << 30, json!({"diagnoseUnopenedReports": true}));
    editor.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [{"uri": file_uri(project.path()), "name": "f"}], "removed": []}}),
    );
    // One search reads both and then pushes for both: once the small one's
    // diagnostics arrive, the store holds what was made of the huge one.
    let small = editor.diagnostics(&uri(&project, "small.report.json")).1;
    assert_eq!(own(&small), expected(&text));
    let found = found(&mut editor);
    let refused = found
        .get(&uri(&project, "huge.report.json"))
        .unwrap_or_else(|| panic!("the huge report was not refused: {found:#?}"));
    // The default limit: 128 MiB.
    assert_too_large(refused, 8 << 30, 128 << 20);
    editor.shutdown();
}
