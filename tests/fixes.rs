//! Every quick fix the core offers, on every invalid example: applying it
//! removes its diagnostic and adds none, and fix-all converges.

mod common;

use report_core::diagnostic::Diagnostic;
use report_core::fix::apply;
use report_core::fix_all::fix_all;

/// A diagnostic's identity across an edit: positions move, code and message do not.
fn key(d: &Diagnostic) -> (String, String) {
    (d.code.to_string(), d.message.clone())
}

fn texts() -> Vec<(String, String)> {
    let mut texts = vec![(
        "invalid.report.json".to_string(),
        std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap(),
    )];
    for path in common::invalid_examples() {
        let bytes = std::fs::read(&path).unwrap();
        if let Ok(text) = String::from_utf8(bytes) {
            texts.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                text,
            ));
        }
    }
    texts
}

fn count_items(text: &str, pointer: &str) -> usize {
    let analysis = report_core::analyze(text);
    analysis
        .root()
        .and_then(|r| r.lookup(pointer))
        .and_then(|n| n.items())
        .map_or(0, |items| items.count())
}

#[test]
fn each_fix_removes_its_diagnostic_and_adds_none() {
    let mut fixes_tried = 0;
    for (name, text) in texts() {
        let before = report_core::analyze(&text);
        for diagnostic in before.diagnostics.iter().filter(|d| d.fix.is_some()) {
            let fix = diagnostic.fix.as_ref().unwrap();
            let fixed = apply(&text, &fix.edits)
                .unwrap_or_else(|e| panic!("{name}: {} does not apply: {e:?}", fix.title));
            let after = report_core::analyze(&fixed);
            let after_keys: Vec<_> = after.diagnostics.iter().map(key).collect();
            assert!(
                !after_keys.contains(&key(diagnostic)),
                "{name}: `{}` left {:?}",
                fix.title,
                key(diagnostic)
            );
            // No new diagnostic: per code, no more than before less the one fixed.
            // (Messages may change wording, e.g. a "did you mean" that no longer applies.)
            for code in after.diagnostics.iter().map(|d| d.code) {
                let count = |ds: &[Diagnostic]| ds.iter().filter(|d| d.code == code).count();
                let allowed = count(&before.diagnostics) - usize::from(diagnostic.code == code);
                assert!(
                    count(&after.diagnostics) <= allowed,
                    "{name}: `{}` introduced a {code}",
                    fix.title
                );
            }
            fixes_tried += 1;
        }
    }
    assert!(fixes_tried >= 12, "only {fixes_tried} fixes exercised");
}

#[test]
fn fix_all_converges_without_losing_entries_and_is_idempotent() {
    for (name, text) in texts() {
        let Some(fixed) = fix_all(&text) else {
            continue;
        };
        let before = report_core::analyze(&text);
        let after = report_core::analyze(&fixed);
        assert!(after.diagnostics.len() < before.diagnostics.len(), "{name}");
        assert!(
            !after
                .diagnostics
                .iter()
                .any(|d| d.fix.as_ref().is_some_and(|f| f.preferred)),
            "{name}: a preferred fix is left"
        );
        for pointer in ["/entries", "/shortlist"] {
            assert_eq!(
                count_items(&fixed, pointer),
                count_items(&text, pointer),
                "{name} {pointer}"
            );
        }
        assert_eq!(
            fix_all(&fixed),
            None,
            "{name}: fix-all twice differs from once"
        );
    }
}

#[test]
fn fix_all_repairs_the_realistic_invalid_report_in_place() {
    let text = std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap();
    let fixed = fix_all(&text).unwrap();
    let codes: Vec<String> = report_core::analyze(&fixed)
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    // What is left needs a human choice: which of op_type or exact_edit is wrong, which path is right.
    assert_eq!(
        codes,
        ["exact-edit-forbidden", "entry-path-not-in-shortlist"]
    );
    assert!(
        fixed.ends_with("  ],\n  \"promotion_candidates\": []\n}\n"),
        "{}",
        &fixed[fixed.len() - 60..]
    );
    // Everything outside the edits is byte-for-byte the same.
    let edit = report_core::fix::minimal_edit(&text, &fixed).unwrap();
    assert_eq!(apply(&text, &[edit]).unwrap(), fixed);
}

/// Fix safety on generated broken reports: any offered fix or fix-all yields
/// text that parses, has no more diagnostics, keeps every entry and shortlist
/// item, and fix-all is idempotent.
#[test]
fn fixes_are_safe_on_generated_broken_reports() {
    use report_core::generate::{GenerateOptions, generate_report};
    for seed in 0..6 {
        for violation_every in [1, 2, 3, 7] {
            let text = generate_report(GenerateOptions {
                entries: 40,
                seed,
                violation_every,
            });
            let before = report_core::analyze(&text);
            let check = |fixed: &str, what: &str| {
                let after = report_core::analyze(fixed);
                assert!(
                    after.parse.errors.is_empty(),
                    "{what} broke the JSON (seed {seed})"
                );
                assert!(
                    after.diagnostics.len() <= before.diagnostics.len(),
                    "{what} added diagnostics (seed {seed})"
                );
                for pointer in ["/entries", "/shortlist"] {
                    assert_eq!(
                        count_items(fixed, pointer),
                        count_items(&text, pointer),
                        "{what} lost items of {pointer}"
                    );
                }
            };
            for diagnostic in before.diagnostics.iter().filter(|d| d.fix.is_some()) {
                let fix = diagnostic.fix.as_ref().unwrap();
                check(&apply(&text, &fix.edits).unwrap(), &fix.title);
            }
            if let Some(fixed) = fix_all(&text) {
                check(&fixed, "fix-all");
                assert_eq!(
                    fix_all(&fixed),
                    None,
                    "fix-all twice differs from once (seed {seed})"
                );
            }
        }
    }
}

/// The line breaks of a text: how many of each kind.
fn line_breaks(text: &str) -> (usize, usize, usize) {
    let crlf = text.matches("\r\n").count();
    let cr = text.matches('\r').count() - crlf;
    let lf = text.matches('\n').count() - crlf;
    (crlf, cr, lf)
}

#[test]
fn fixes_write_the_line_ending_of_a_crlf_or_cr_document() {
    let mut inserting = 0;
    for (name, text) in texts() {
        for ending in ["\r\n", "\r"] {
            let converted = text.replace('\n', ending);
            let before = report_core::analyze(&converted);
            for fix in before.diagnostics.iter().filter_map(|d| d.fix.as_ref()) {
                let fixed = apply(&converted, &fix.edits).unwrap();
                let (crlf, cr, lf) = line_breaks(&fixed);
                let mixed = match ending {
                    "\r\n" => cr + lf,
                    _ => crlf + lf,
                };
                assert_eq!(
                    mixed, 0,
                    "{name} ({ending:?}): `{}` mixed line endings",
                    fix.title
                );
                inserting += usize::from(
                    fixed.len() > converted.len()
                        && fixed.lines().count() > converted.lines().count(),
                );
            }
        }
    }
    // Adding promotion_candidates and shortlist paths insert lines.
    assert!(inserting >= 2, "only {inserting} fixes inserted a line");
}
