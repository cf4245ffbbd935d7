//! The HTML page: self-contained (no script, nothing fetched), everything
//! the report wrote escaped, every entry a link with its index, the numbers
//! readable back from the cells, deterministic, and small at 50 000 entries.

use std::sync::Arc;

use super::{escape, html};
use crate::generate::{GenerateOptions, generate_report};
use crate::host::{DocumentHost, HostOptions};
use crate::summary::{Summary, SummaryOptions};
use crate::text::TextRange;

fn summary_of(text: &str, since: Option<&str>) -> Summary {
    let analysis = crate::analyze(text);
    let old = since.map(crate::analyze);
    let diff = old
        .as_ref()
        .map(|old| crate::report_diff::diff(old, &analysis).expect("both are reports"));
    let options = HostOptions {
        name_matches: true,
        max_document_bytes: usize::MAX,
        max_diagnostics: 1000,
    };
    let host = DocumentHost::from_analysis(analysis, options, Arc::clone);
    host.summary(
        SummaryOptions::default(),
        None,
        diff.as_ref().map(|d| ("old.report.json", d)),
    )
    .expect("a report")
}

fn generated(entries: usize, seed: u64) -> String {
    generate_report(GenerateOptions {
        entries,
        seed,
        violation_every: 0,
    })
}

fn place(range: TextRange) -> String {
    format!("line {}", range.start + 1)
}

/// What a page must not hold to be self-contained.
fn outside_references(page: &str) -> Vec<String> {
    let lower = page.to_lowercase();
    let mut found = Vec::new();
    for needle in [
        "<script",
        "@import",
        "url(",
        "<link",
        "<iframe",
        "<img",
        "<object",
        "<embed",
        "src=",
        "@font-face",
        "srcset",
    ] {
        if lower.contains(needle) {
            found.push(needle.to_string());
        }
    }
    for scheme in ["http://", "https://", "//cdn", "ftp://"] {
        let mut rest = lower.as_str();
        while let Some(at) = rest.find(scheme) {
            let tail = &rest[at..];
            if !tail.starts_with("http://www.w3.org/2000/svg\"") {
                found.push(tail.chars().take(60).collect());
            }
            rest = &rest[at + scheme.len()..];
        }
    }
    found
}

#[test]
fn escape_covers_markup_and_quotes_and_keeps_other_text() {
    assert_eq!(
        escape(r#"<a href="x">&'路径😀"#),
        "&lt;a href=&quot;x&quot;&gt;&amp;&#39;路径😀"
    );
}

#[test]
fn the_page_is_self_contained_and_has_every_section() {
    let old = generated(300, 2);
    let new = generated(400, 3);
    let page = html(&summary_of(&new, Some(&old)), "new.report.json", &place);
    assert_eq!(outside_references(&page), Vec::<String>::new());
    assert!(page.starts_with("<!doctype html>"));
    assert!(page.contains("prefers-color-scheme:dark"));
    for id in [
        "totals",
        "queue",
        "reasons",
        "by-class",
        "by-op-type",
        "by-kind",
        "by-lifetime",
        "tiers",
        "largest",
        "by-folder",
        "by-file",
        "problems",
        "since",
    ] {
        assert!(page.contains(&format!("<section id=\"{id}\"")), "{id}");
    }
    // Every chart is an image labelled by its caption, its numbers in a table beside it.
    let charts = page.matches("<svg ").count();
    assert!(charts >= 5, "{charts}");
    assert_eq!(page.matches("role=\"img\"").count(), charts);
    assert_eq!(page.matches("<figcaption id=").count(), charts);
    for id in ["queue", "reasons", "by-class", "by-folder", "since"] {
        assert!(
            page.contains(&format!("aria-labelledby=\"{id}-cap\"")),
            "{id}"
        );
        assert!(
            page.contains(&format!("<table data-table=\"{id}\"")),
            "{id}"
        );
    }
    // Without a live project, no live section.
    assert!(!page.contains("id=\"live\""));
}

#[test]
fn the_numbers_are_in_the_cells_as_text_and_as_values() {
    let text = generated(500, 7);
    let summary = summary_of(&text, None);
    let page = html(&summary, "r.json", &place);
    let cell = |table: &str, key: &str, column: &str| -> i128 {
        let start = page
            .find(&format!("<table data-table=\"{table}\""))
            .unwrap_or_else(|| panic!("no table {table}"));
        let rows = &page[start..start + page[start..].find("</table>").unwrap()];
        let row_at = rows
            .find(&format!("<tr data-key=\"{key}\""))
            .unwrap_or_else(|| panic!("no row {key} in {table}"));
        let row = &rows[row_at..row_at + rows[row_at..].find("</tr>").unwrap()];
        let at = row
            .find(&format!("data-col=\"{column}\" data-value=\""))
            .unwrap_or_else(|| panic!("no {column} in {table}/{key}"));
        let rest = &row[at..];
        let value_at = rest.find("data-value=\"").unwrap() + "data-value=\"".len();
        let value: i128 = rest[value_at..value_at + rest[value_at..].find('"').unwrap()]
            .parse()
            .unwrap();
        // The text says the same, grouped by spaces.
        let text_at = rest.find('>').unwrap() + 1;
        let shown = &rest[text_at..text_at + rest[text_at..].find('<').unwrap()];
        let digits: String = shown
            .chars()
            .filter(|c| c.is_ascii_digit() || *c == '−')
            .map(|c| if c == '−' { '-' } else { c })
            .collect();
        assert_eq!(digits.parse::<i128>().unwrap(), value, "{shown}");
        value
    };
    let q = &summary.queue;
    assert_eq!(cell("queue", "auto", "entries"), q.auto.entries as i128);
    assert_eq!(
        cell("queue", "confirm", "raw_tokens"),
        q.confirm.raw_tokens as i128
    );
    for class in summary.by_class.iter().filter(|c| c.entries > 0) {
        assert_eq!(
            cell("by-class", &class.key, "raw_tokens"),
            class.raw_tokens as i128
        );
        for part in class.parts.iter().filter(|p| p.entries > 0) {
            let key = format!("{}/{}", class.key, part.key);
            assert_eq!(cell("by-class", &key, "entries"), part.entries as i128);
        }
    }
    for folder in &summary.by_folder.shown {
        assert_eq!(
            cell("by-folder", &escape(&folder.key), "raw_tokens"),
            folder.raw_tokens as i128
        );
    }
    assert!(page.contains(&format!(
        "id=\"total-raw-tokens\" class=\"\" data-value=\"{}\"",
        summary.total.raw_tokens
    )));
}

#[test]
fn what_the_report_wrote_is_escaped_and_entries_are_links() {
    let hostile = "<b>&\"'路径😀";
    // As JSON writes it: the quote escaped.
    let written = hostile.replace('"', "\\\"");
    let text = generated(40, 1).replace("docs/area-", &format!("{written}/area-"));
    let summary = summary_of(&text, None);
    assert!(
        summary
            .by_folder
            .shown
            .iter()
            .any(|g| g.key.contains(hostile)),
        "{:?}",
        summary.by_folder.shown
    );
    let page = html(&summary, "<name>&.json", &place);
    assert!(!page.contains("<b>"));
    assert!(!page.contains(hostile));
    assert!(page.contains(&escape(hostile)));
    assert!(page.contains("&lt;name&gt;&amp;.json"));
    assert_eq!(outside_references(&page), Vec::<String>::new());
    // Each entry named is a link carrying its index, its place beside it.
    let first = summary.largest.first().expect("a largest saving");
    let link = format!(
        "<a href=\"#\" class=\"entry\" data-entry=\"{i}\">entries[{i}]</a><span class=\"at\">line {}</span>",
        first.entry.range.start + 1,
        i = first.entry.index
    );
    assert!(page.contains(&link), "{link}");
    assert!(page.matches("data-entry=\"").count() >= summary.largest.len());
}

#[test]
fn a_report_with_no_entries_still_makes_a_page() {
    let text = generated(0, 1);
    let summary = summary_of(&text, Some(&text));
    let page = html(&summary, "empty.json", &place);
    assert!(page.contains("No entries."));
    assert!(page.contains("No changes."));
    assert!(!page.contains("NaN") && !page.contains("inf"));
    assert_eq!(outside_references(&page), Vec::<String>::new());
}

#[test]
fn the_page_is_deterministic_and_small_at_50_000_entries() {
    let old = generated(48_000, 1);
    let new = generated(50_000, 2);
    let summary = summary_of(&new, Some(&old));
    assert_eq!(summary.entries, 50_000);
    let page = html(&summary, "50k.report.json", &place);
    assert!(
        page.len() < 200 * 1024,
        "{} bytes: far over what a top-N page needs",
        page.len()
    );
    assert!(page.len() < 1024 * 1024);
    assert_eq!(page, html(&summary, "50k.report.json", &place));
    assert!(!page.contains("NaN"));
    assert_eq!(outside_references(&page), Vec::<String>::new());
}
