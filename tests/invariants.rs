//! `invariants.md` and the source agree: every code is listed exactly once,
//! under the invariant the code says it enforces, and invariant 7 is the tier.

use std::collections::BTreeMap;

use report_core::diagnostic::Code;

fn invariants_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/invariants.md")).unwrap()
}

/// Invariant number -> codes listed on its `**Codes:**` line.
fn listed_codes(text: &str) -> BTreeMap<u32, Vec<String>> {
    let mut listed = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            current = heading
                .split_once(". ")
                .and_then(|(n, _)| n.parse::<u32>().ok());
        } else if let Some(codes) = line.strip_prefix("**Codes:** ") {
            let number = current.expect("a Codes line under a numbered invariant");
            let codes = codes
                .split(", ")
                .map(|c| c.trim_matches('`').to_string())
                .collect();
            assert!(
                listed.insert(number, codes).is_none(),
                "invariant {number} has two Codes lines"
            );
        }
    }
    listed
}

#[test]
fn every_code_is_listed_under_its_invariant() {
    let listed = listed_codes(&invariants_md());
    let mut from_source: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for code in Code::ALL {
        from_source
            .entry(code.invariant())
            .or_default()
            .push(code.as_str().to_string());
    }
    assert_eq!(listed, from_source);
}

#[test]
fn every_code_appears_exactly_once_in_the_file() {
    let text = invariants_md();
    for code in Code::ALL {
        let needle = format!("`{}`", code.as_str());
        assert_eq!(text.matches(&needle).count(), 1, "{needle}");
    }
}

#[test]
fn invariant_7_is_the_safety_tier() {
    let text = invariants_md();
    let heading = text.lines().find(|l| l.starts_with("## 7. ")).unwrap();
    assert!(heading.contains("safety tier"), "{heading}");
}

#[test]
fn invariants_are_numbered_in_order() {
    let numbers: Vec<u32> = listed_codes(&invariants_md()).keys().copied().collect();
    assert_eq!(numbers, (1..=numbers.len() as u32).collect::<Vec<_>>());
}
