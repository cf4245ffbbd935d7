//! `report-lsp summary --format html` end to end (issue 46): the real
//! binary writes the page and the JSON of a generated report, with
//! `--since` an earlier generation; headless Chromium (Debian's, driven by
//! `tests/summary_html/read_page.js` through playwright-core from
//! `editors/vscode/test-e2e`) opens the page from its file with every other
//! request refused, takes a full-page screenshot in the light and the dark
//! scheme (kept in `target/tmp/summary-html/`), and reads the numbers back
//! from the page's text; they must be the JSON's. Skipped without Node,
//! playwright-core or Chromium locally, a failure when `CI` is set.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use report_core::generate::{GenerateOptions, generate_report};
use serde_json::Value;

/// Folders the generated paths are spread over (by their area's number),
/// one of them with markup, quotes, CJK and an emoji in its name.
const FOLDERS: &[&str] = &[
    "docs",
    "guides",
    "notes <old> & \\\"drafts\\\"",
    "文档",
    "📦 archive",
    "adr",
    "specs",
];

/// A generated report with its paths spread over `FOLDERS`; the areas in
/// `retired` moved to a folder of their own (so an earlier generation that
/// retires some has entries the later one has not).
fn report(entries: usize, seed: u64, retired: &[usize]) -> String {
    let mut text = generate_report(GenerateOptions {
        entries,
        seed,
        violation_every: 0,
    });
    // Highest area first, so `area-1/` never rewrites `area-12/`'s prefix.
    for area in (0..97).rev() {
        let folder = match retired.contains(&area) {
            true => "retired",
            false => FOLDERS[(area * 5 + area / 7) % FOLDERS.len()],
        };
        text = text.replace(
            &format!("\"docs/area-{area}/"),
            &format!("\"{folder}/area-{area}/"),
        );
    }
    text
}

fn needs() -> bool {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let missing: Vec<&str> = [
        (node, "node"),
        (
            root.join("editors/vscode/test-e2e/node_modules/playwright-core")
                .is_dir(),
            "playwright-core (npm ci in editors/vscode/test-e2e)",
        ),
        (
            Path::new("/usr/bin/chromium").is_file(),
            "Debian's chromium",
        ),
    ]
    .iter()
    .filter(|(found, _)| !found)
    .map(|(_, what)| *what)
    .collect();
    common::present(missing.is_empty(), &missing.join(", "))
}

fn summary(dir: &Path, format: &str) -> String {
    let output = common::report_lsp(
        &[
            "summary",
            "new.report.json",
            "--since",
            "old.report.json",
            "--format",
            format,
        ],
        dir,
    );
    assert!(
        output.status.success(),
        "summary --format {format}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A number the page shows in a table cell, read from its text (and its
/// `data-value`, which must say the same).
fn cell(page: &Value, table: &str, key: &str, column: &str) -> i64 {
    let cell = &page["tables"][table][key]["cells"][column];
    let number = cell["number"]
        .as_i64()
        .unwrap_or_else(|| panic!("{table}/{key}/{column}: no number in {cell}"));
    assert_eq!(
        cell["value"].as_i64(),
        Some(number),
        "{table}/{key}/{column}: the text says otherwise than data-value: {cell}"
    );
    number
}

fn int(value: &Value) -> i64 {
    value
        .as_i64()
        .unwrap_or_else(|| panic!("not an integer: {value}"))
}

#[test]
fn the_summary_page_opens_in_chromium_and_shows_the_json_numbers() {
    if !needs() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Areas 5 and 6 are retired later: the earlier generation has entries that are gone.
    std::fs::write(
        dir.path().join("old.report.json"),
        report(2_600, 11, &[5, 6]),
    )
    .unwrap();
    std::fs::write(dir.path().join("new.report.json"), report(3_000, 12, &[])).unwrap();
    let html = summary(dir.path(), "html");
    let json: Value = serde_json::from_str(&summary(dir.path(), "json")).unwrap();

    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("summary-html");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).unwrap();
    // Kept beside the screenshots, as a CI artifact would be.
    let page_path = shots.join("summary.html");
    std::fs::write(&page_path, &html).unwrap();
    assert!(html.len() < 1024 * 1024, "{} bytes", html.len());

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/summary_html/read_page.js");
    let mut child = Command::new("node")
        .arg(&script)
        .arg(&page_path)
        .arg(&shots)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
        text
    });
    let status = common::wait_bounded(
        &mut child,
        std::time::Duration::from_secs(120),
        "Chromium reading the summary page",
    );
    let out = reader.join().unwrap();
    assert!(status.success(), "read_page.js failed: {status}");
    let read: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));

    // Nothing but the file itself was asked for.
    assert_eq!(
        read["refused"],
        serde_json::json!([]),
        "{}",
        read["refused"]
    );
    for request in read["requests"].as_array().unwrap() {
        assert_eq!(request, &read["url"], "a request besides the page");
    }

    for scheme in ["light", "dark"] {
        let shot = PathBuf::from(read["schemes"][scheme]["screenshot"].as_str().unwrap());
        assert!(
            std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000),
            "no screenshot {}",
            shot.display()
        );
        println!("screenshot ({scheme}): {}", shot.display());
        let page = &read["schemes"][scheme]["page"];
        assert_eq!(page["scripts"], 0);
        // Every chart is drawn (has marks and a size) and labelled by its caption.
        let charts = page["charts"].as_array().unwrap();
        let ids: Vec<&str> = charts.iter().map(|c| c["id"].as_str().unwrap()).collect();
        for id in [
            "queue-chart",
            "reasons-chart",
            "by-class-chart",
            "by-folder-chart",
            "since-chart",
        ] {
            assert!(ids.contains(&id), "{id} not in {ids:?}");
        }
        for chart in charts {
            assert_eq!(chart["role"], "img", "{chart}");
            assert!(
                chart["label"].as_str().is_some_and(|l| !l.is_empty()),
                "{chart}"
            );
            assert!(chart["width"].as_f64().unwrap() > 200.0, "{chart}");
            assert!(chart["height"].as_f64().unwrap() > 20.0, "{chart}");
            assert!(chart["marks"].as_u64().unwrap() >= 2, "{chart}");
        }
        // The colours keep their meaning: auto and confirm apart, and apart from the page.
        let colours = &page["colours"];
        for (a, b) in [
            ("auto", "confirm"),
            ("added", "gone"),
            ("background", "text"),
            ("auto", "background"),
        ] {
            assert_ne!(colours[a], colours[b], "{scheme}: {a} and {b}: {colours}");
        }
    }
    let light = &read["schemes"]["light"]["page"];
    let dark = &read["schemes"]["dark"]["page"];
    assert_ne!(
        light["colours"]["background"], dark["colours"]["background"],
        "the dark scheme changes nothing"
    );
    assert_eq!(light["tables"], dark["tables"], "the schemes say otherwise");

    // The numbers read back from the page are the JSON's.
    let page = light;
    let totals = &page["totals"];
    for (id, expected) in [
        ("total-entries", &json["entries"]),
        ("total-raw-tokens", &json["total"]["raw_tokens"]),
        ("total-auto-tokens", &json["queue"]["auto"]["raw_tokens"]),
        (
            "total-confirm-tokens",
            &json["queue"]["confirm"]["raw_tokens"],
        ),
        ("total-errors", &json["problems"]["errors"]),
        ("problems-warnings", &json["problems"]["warnings"]),
    ] {
        assert_eq!(totals[id]["number"].as_i64(), Some(int(expected)), "{id}");
        assert_eq!(totals[id]["value"].as_i64(), Some(int(expected)), "{id}");
    }
    assert_eq!(int(&json["entries"]), 3_000);
    for tier in ["auto", "confirm"] {
        for (column, field) in [("entries", "entries"), ("raw_tokens", "raw_tokens")] {
            assert_eq!(
                cell(page, "queue", tier, column),
                int(&json["queue"][tier][field]),
                "queue {tier} {column}"
            );
        }
    }
    for reason in json["queue"]["reasons"].as_array().unwrap() {
        let key = reason["key"].as_str().unwrap();
        assert_eq!(
            cell(page, "reasons", key, "entries"),
            int(&reason["entries"])
        );
    }
    let mut classes = 0;
    for class in json["by_class"].as_array().unwrap() {
        if int(&class["entries"]) == 0 {
            continue;
        }
        classes += 1;
        let key = class["key"].as_str().unwrap();
        assert_eq!(
            cell(page, "by-class", key, "raw_tokens"),
            int(&class["raw_tokens"]),
            "class {key}"
        );
        assert_eq!(
            cell(page, "by-class", key, "entries"),
            int(&class["entries"])
        );
        for part in class["parts"].as_array().unwrap() {
            if int(&part["entries"]) == 0 {
                continue;
            }
            let key = format!("{key}/{}", part["key"].as_str().unwrap());
            assert_eq!(
                cell(page, "by-class", &key, "raw_tokens"),
                int(&part["raw_tokens"]),
                "subtype {key}"
            );
        }
    }
    assert!(classes >= 2, "{}", json["by_class"]);
    let folders = json["by_folder"]["shown"].as_array().unwrap();
    assert!(folders.len() >= 5, "{folders:?}");
    for folder in folders {
        let key = folder["key"].as_str().unwrap();
        let row = &page["tables"]["by-folder"][key];
        // The folder's name, markup and all, is shown as text.
        assert_eq!(row["label"].as_str(), Some(key), "{row}");
        assert_eq!(
            cell(page, "by-folder", key, "raw_tokens"),
            int(&folder["raw_tokens"]),
            "folder {key}"
        );
        assert_eq!(
            cell(page, "by-folder", key, "entries"),
            int(&folder["entries"])
        );
    }
    assert!(
        folders
            .iter()
            .any(|f| f["key"] == "notes <old> & \"drafts\"/"),
        "{folders:?}"
    );
    for file in json["by_file"]["shown"].as_array().unwrap() {
        let key = file["key"].as_str().unwrap();
        assert_eq!(
            cell(page, "by-file", key, "raw_tokens"),
            int(&file["raw_tokens"])
        );
    }
    let rest = &json["by_file"]["rest"];
    assert_eq!(
        cell(page, "by-file", "rest", "raw_tokens"),
        int(&rest["raw_tokens"])
    );
    // Since the earlier generation: added, gone, changed, the net change.
    let since = &json["since"];
    assert!(int(&since["gone"]["entries"]) > 0, "{since}");
    assert!(int(&since["added"]["entries"]) > 0, "{since}");
    assert_eq!(
        cell(page, "since", "added", "entries"),
        int(&since["added"]["entries"])
    );
    assert_eq!(
        cell(page, "since", "added", "raw_tokens"),
        int(&since["added"]["raw_tokens"])
    );
    assert_eq!(
        cell(page, "since", "gone", "entries"),
        int(&since["gone"]["entries"])
    );
    assert_eq!(
        cell(page, "since", "gone", "raw_tokens"),
        -int(&since["gone"]["raw_tokens"])
    );
    assert_eq!(
        cell(page, "since", "changed", "entries"),
        int(&since["changed"])
    );
    assert_eq!(
        cell(page, "since", "net", "raw_tokens"),
        int(&since["raw_delta"])
    );
    assert_eq!(
        cell(page, "since", "before", "raw_tokens"),
        int(&since["old_raw_tokens"])
    );
    assert_eq!(
        cell(page, "since", "now", "raw_tokens"),
        int(&since["new_raw_tokens"])
    );
    assert_eq!(
        cell(page, "since", "net", "entries"),
        int(&json["entries"]) - int(&since["old_entries"])
    );
    // Each largest saving is a link to its entry.
    let links: Vec<i64> = page["entryLinks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| int(&l["index"]))
        .collect();
    for saving in json["largest"].as_array().unwrap() {
        let index = int(&saving["entry"]["index"]);
        assert!(links.contains(&index), "entries[{index}] not linked");
        assert_eq!(
            cell(page, "largest", &index.to_string(), "raw_tokens"),
            int(&saving["raw_tokens"])
        );
    }
}
