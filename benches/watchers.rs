//! What the server's file watchers cost a client (issue 45): each server
//! under test is started in a workspace folder holding a report that
//! names 200 Markdown files, the report is opened, and the watchers it
//! registers (`workspace/didChangeWatchedFiles`, answered as a client
//! does, through every registration and unregistration for 3 s) are held
//! against what a build does to a tree of 10 000 folders: an object file
//! written in each folder, 5 000 files under `target/`, 100 of the named
//! Markdown files saved, the report saved and git's index written. The
//! figure is how many of those 15 102 changes a client that matches the
//! registered globs sends the server. (A client that watches by folder,
//! as Neovim and lsp-mode do, watches every folder under the workspace
//! whatever the globs: a report may appear in any.)
//!
//!     cargo bench --bench watchers -- [--bin NAME=PATH]...
//!
//! Each `--bin` is another build, measured in the same run; this build's
//! server is always one. The only programs it starts are those servers.
//! Globs are matched with the core's `ReportGlobs` (globset), as the
//! server matches report names.

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::editor::{Editor, capable_client_with};
use report_core::selection::ReportGlobs;
use serde_json::{Value, json};

const FOLDERS: usize = 10_000;
const NAMED: usize = 200;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut binaries = vec![(
        "this build".to_string(),
        env!("CARGO_BIN_EXE_report-lsp").to_string(),
    )];
    while let Some(arg) = args.next() {
        if arg == "--bin" {
            let named = args.next().expect("--bin NAME=PATH");
            let (name, path) = named.split_once('=').expect("--bin NAME=PATH");
            binaries.push((name.to_string(), path.to_string()));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let named: Vec<String> = (0..NAMED)
        .map(|i| format!("docs/area-{i}/note-{i}.md"))
        .collect();
    let entries: Vec<Value> = named
        .iter()
        .map(|path| {
            common::project::edit_entry(
                path,
                json!({"kind": "delete-range", "anchor": {"start_line": 1, "end_line": 1}, "expected_sha256": "0".repeat(64)}),
            )
        })
        .collect();
    let report = common::project::report("2099-01-01T00:00:00Z", Vec::new(), entries, Vec::new());
    let text = serde_json::to_string_pretty(&report).unwrap();
    let report_path = dir.path().join("hygiene.report.json");
    std::fs::write(&report_path, &text).unwrap();
    let uri = common::file_uri(&report_path);
    let root = dir.path().display().to_string();
    let burst: Vec<String> = (0..FOLDERS)
        .map(|i| format!("src/m{}/d{}/obj-{i}.o", i / 100, i % 100))
        .chain((0..5_000).map(|i| format!("target/debug/deps/lib{i}.rlib")))
        .chain(named.iter().take(100).cloned())
        .chain(["hygiene.report.json".into(), ".git/index".into()])
        .map(|path| format!("{root}/{path}"))
        .collect();
    println!(
        "watchers: a report naming {NAMED} Markdown files; a burst of {} changes in a tree of {FOLDERS} folders",
        burst.len()
    );
    for (name, binary) in &binaries {
        let globs = registered(binary, dir.path(), &uri, &text);
        let matcher = ReportGlobs::new(&globs).expect("the server's globs are globs");
        let sent = burst.iter().filter(|path| matcher.matches(path)).count();
        println!(
            "watchers binary=\"{name}\" globs={} sent={sent} of {}: {globs:?}",
            globs.len(),
            burst.len()
        );
    }
}

/// The globs `binary` has registered 3 s after the report's open.
fn registered(binary: &str, folder: &std::path::Path, uri: &str, text: &str) -> Vec<String> {
    let capabilities =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut editor = Editor::start_in_folders_binary(
        binary,
        capable_client_with(capabilities),
        &[folder],
        Value::Null,
    );
    editor.open(uri, text, 1);
    let mut live: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let until = Instant::now() + Duration::from_secs(3);
    while let Some(message) =
        editor.next_matching_within(until.saturating_duration_since(Instant::now()), |m| {
            m["method"] == "client/registerCapability"
                || m["method"] == "client/unregisterCapability"
        })
    {
        editor.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": null}));
        if message["method"] == "client/unregisterCapability" {
            for gone in message["params"]["unregisterations"].as_array().unwrap() {
                live.remove(gone["id"].as_str().unwrap());
            }
            continue;
        }
        for registration in message["params"]["registrations"].as_array().unwrap() {
            let globs = registration["registerOptions"]["watchers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|w| w["globPattern"].as_str().map(String::from))
                .collect();
            live.insert(registration["id"].as_str().unwrap().to_string(), globs);
        }
    }
    editor.shutdown();
    let mut globs: Vec<String> = live.into_values().flatten().collect();
    globs.sort();
    globs.dedup();
    globs
}
