//! Arbitrary bytes through parse + validate + every fix + fix-all + hover:
//! nothing panics, every fix applies and leaves no more errors, and fix-all
//! is idempotent and leaves no more errors than its input had. The
//! recovering parser gives a tree whose every node lies inside the text and
//! inside its parent, and a text serde_json accepts parses to the same value
//! with no syntax error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use report_core::Analysis;
use report_core::diagnostic::Severity;
use report_core::syntax::{Node, SyntaxErrorKind, Value};

fuzz_target!(|data: &[u8]| {
    let analysis = report_core::analyze_with(data.to_vec(), report_core::AnalysisOptions::default());
    let text: &str = &analysis.text;
    check_tree(text);
    for diagnostic in &analysis.diagnostics {
        assert!(diagnostic.range.end <= text.len());
        if let Some(fix) = &diagnostic.fix {
            let fixed =
                report_core::fix::apply(text, &fix.edits).expect("a fix applies to its own text");
            // A fix never makes a document worse (fix.rs's insert_member).
            let after = errors(&report_core::analyze(&fixed));
            assert!(
                after <= errors(&analysis),
                "{:?} leaves {after} errors where there were {}",
                fix.title,
                errors(&analysis)
            );
        }
    }
    for offset in [0, text.len() / 2, text.len()] {
        let mut offset = offset;
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let _ = report_core::hover::hover(&analysis, offset);
    }
    if let Some(fixed) = report_core::fix_all::fix_all(text) {
        assert_eq!(
            report_core::fix_all::fix_all(&fixed),
            None,
            "fix-all is idempotent"
        );
        // What `check --fix` promises: the text, not the bytes (a lossy copy is never written).
        let (before, after) = (report_core::analyze(text), report_core::analyze(&fixed));
        assert!(
            errors(&after) <= errors(&before),
            "fix-all leaves {} errors where there were {}",
            errors(&after),
            errors(&before)
        );
    }
});

/// Errors kept and only counted, as `check --fix` counts them.
fn errors(analysis: &Analysis) -> usize {
    let kept = analysis.diagnostics.iter();
    kept.filter(|d| d.severity == Severity::Error).count() + analysis.omitted.count(Severity::Error)
}

fn check_tree(text: &str) {
    let parse = report_core::syntax::parse(text);
    for error in &parse.errors {
        assert!(error.range.start <= error.range.end && error.range.end <= text.len());
    }
    if let Some(root) = parse.root() {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let range = node.range();
            assert!(range.start <= range.end && range.end <= text.len());
            let children: Vec<Node<'_>> = match (node.items(), node.members()) {
                (Some(items), _) => items.collect(),
                (_, Some(members)) => members
                    .map(|m| {
                        assert!(range.start <= m.key_range.start && m.key_range.end <= range.end);
                        assert!(m.key_range.end <= m.value.range().start);
                        m.value
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for child in children {
                assert!(range.start <= child.range().start && child.range().end <= range.end);
                stack.push(child);
            }
        }
    }
    // A valid text parses exactly as a strict parser reads it.
    if let Ok(expected) = serde_json::from_str::<serde_json::Value>(text) {
        let duplicates = parse
            .errors
            .iter()
            .all(|e| matches!(e.kind, SyntaxErrorKind::DuplicateKey { .. }));
        assert!(duplicates, "serde_json accepts it: {:?}", parse.errors);
        let root = parse.root().expect("a valid text has a tree");
        assert!(!root.is_broken());
        if parse.errors.is_empty() {
            assert_eq!(to_serde(root), expected);
        }
    }
}

/// Recursion is bounded: serde_json accepted the text, so it nests 128 levels at most.
fn to_serde(node: Node<'_>) -> serde_json::Value {
    match node.value() {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(b),
        Value::Number(raw) => serde_json::from_str(raw).expect("serde_json read this number"),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::Array => serde_json::Value::Array(node.items().unwrap().map(to_serde).collect()),
        Value::Object => serde_json::Value::Object(
            node.members()
                .unwrap()
                .map(|m| (m.key.to_string(), to_serde(m.value)))
                .collect(),
        ),
        Value::Error => panic!("an error node in a valid text"),
    }
}
