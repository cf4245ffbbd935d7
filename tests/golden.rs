//! The golden examples: the valid reports pass, every invalid example fails
//! with its expected diagnostics (snapshots next to it; `UPDATE_EXPECT=1`
//! refreshes them), and every diagnostic code is exercised by some example.

mod common;

use std::collections::BTreeSet;

use common::{golden_dir, invalid_examples, render_diagnostics, valid_examples};
use report_core::diagnostic::Code;

#[test]
fn valid_report_has_no_diagnostics_at_all() {
    let text = std::fs::read_to_string(golden_dir().join("valid.report.json")).unwrap();
    let analysis = report_core::analyze(&text);
    assert_eq!(render_diagnostics(&text, &analysis), "");
    assert!(analysis.is_valid());
}

/// Each reading of invariants.md that accepts something has a small valid
/// example; hints may remain (they never make a report invalid).
#[test]
fn every_valid_example_passes_as_snapshotted() {
    let examples = valid_examples();
    assert!(examples.len() >= 4, "{examples:?}");
    for path in examples {
        let text = std::fs::read_to_string(&path).unwrap();
        let analysis = report_core::analyze(&text);
        assert!(analysis.is_valid(), "{} is rejected", path.display());
        expect_test::expect_file![path.with_extension("expected")]
            .assert_eq(&render_diagnostics(&text, &analysis));
    }
}

/// The spec's "Validator accepts a well-formed report and rejects a malformed one".
#[test]
fn realistic_invalid_report_is_rejected_as_snapshotted() {
    let path = golden_dir().join("invalid.report.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let analysis = report_core::analyze(&text);
    assert!(!analysis.is_valid());
    expect_test::expect_file![path.with_extension("expected")]
        .assert_eq(&render_diagnostics(&text, &analysis));
}

#[test]
fn every_invalid_example_fails_as_snapshotted() {
    let examples = invalid_examples();
    assert!(
        examples.len() >= 11,
        "one invalid example per invariant at least"
    );
    for path in examples {
        let bytes = std::fs::read(&path).unwrap();
        let analysis = report_core::analyze_with(bytes, report_core::AnalysisOptions::default());
        let text = analysis.text.clone();
        assert!(!analysis.is_valid(), "{} is accepted", path.display());
        expect_test::expect_file![path.with_extension("expected")]
            .assert_eq(&render_diagnostics(&text, &analysis));
    }
}

#[test]
fn every_code_is_exercised_by_an_example() {
    let mut seen = BTreeSet::new();
    // A hint alone leaves a report valid, so the valid examples count too.
    for path in invalid_examples().into_iter().chain(valid_examples()) {
        let bytes = std::fs::read(&path).unwrap();
        seen.extend(
            report_core::analyze_with(bytes, report_core::AnalysisOptions::default())
                .diagnostics
                .iter()
                .map(|d| d.code),
        );
    }
    // The server's limits (invariant 12) are not properties of a file, and
    // the workspace checks (invariant 13) judge the project: their examples
    // are the end-to-end tests that make the binary produce them, each
    // naming the code it expects (`tests/workspace.rs`, `tests/lsp.rs`, …).
    let named = end_to_end_tests_naming_codes();
    seen.extend(
        Code::ALL
            .iter()
            .filter(|c| c.invariant() >= 12 && named.contains(c.as_str())),
    );
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !seen.contains(c))
        .map(|c| c.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "no invalid example produces {missing:?}, and no end-to-end test expects it"
    );
}

/// The diagnostic codes that the end-to-end tests (every file of `tests/`
/// but this one) name as a string: what they expect the binary to say.
fn end_to_end_tests_naming_codes() -> BTreeSet<&'static str> {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut named = BTreeSet::new();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("golden.rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for code in Code::ALL {
            if source.contains(&format!("\"{}\"", code.as_str())) {
                named.insert(code.as_str());
            }
        }
    }
    named
}

/// Each invalid example is named `NN-...` after the invariant it breaks, and
/// produces at least one code of that invariant.
#[test]
fn invalid_examples_break_the_invariant_they_are_named_after() {
    let mut invariants = BTreeSet::new();
    for path in invalid_examples() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let number: u32 = name[..2]
            .parse()
            .unwrap_or_else(|_| panic!("{name} does not start with an invariant number"));
        let bytes = std::fs::read(&path).unwrap();
        let analysis = report_core::analyze_with(bytes, report_core::AnalysisOptions::default());
        assert!(
            analysis
                .diagnostics
                .iter()
                .any(|d| d.code.invariant() == number),
            "{name} produces no code of invariant {number}"
        );
        invariants.insert(number);
    }
    // Invariant 12 is the server's limits, not a property of a file.
    let all: BTreeSet<u32> = Code::ALL
        .iter()
        .map(|c| c.invariant())
        .filter(|&n| n != 12 && n != 13)
        .collect();
    assert_eq!(invariants, all, "every invariant has an invalid example");
}

#[test]
fn golden_reports_have_non_ascii_paths_that_round_trip() {
    let text = std::fs::read_to_string(golden_dir().join("valid.report.json")).unwrap();
    let analysis = report_core::analyze(&text);
    let entry = analysis
        .entries
        .iter()
        .find(|e| e.path.as_ref().is_some_and(|(p, _)| p.contains('😀')))
        .expect("an entry with an emoji path");
    let (path, range) = entry.path.as_ref().unwrap();
    assert_eq!(&text[range.as_range()], format!("\"{path}\""));
}
