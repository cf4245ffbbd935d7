//! Nothing panics on any input: truncated golden reports, random bytes and
//! random mutations all come back as diagnostics with sane ranges.

mod common;

use report_core::text::Encoding;

/// Every diagnostic range lies inside the text, on character boundaries,
/// and converts to positions and back.
fn assert_sane(text: &str) {
    let analysis = report_core::analyze(text);
    for d in &analysis.diagnostics {
        for range in std::iter::once(d.range).chain(d.related.iter().map(|r| r.range)) {
            assert!(
                range.start <= range.end && range.end <= text.len(),
                "{range:?} in {} bytes",
                text.len()
            );
            assert!(
                text.is_char_boundary(range.start) && text.is_char_boundary(range.end),
                "{range:?}"
            );
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let pos = analysis.line_index().line_col(text, range.start, encoding);
                analysis.line_index().offset(text, pos, encoding).unwrap();
            }
        }
    }
}

fn golden_texts() -> Vec<String> {
    let mut texts =
        vec![std::fs::read_to_string(common::golden_dir().join("valid.report.json")).unwrap()];
    for path in common::invalid_examples() {
        texts.push(String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned());
    }
    texts
}

#[test]
fn every_prefix_of_the_valid_report_is_diagnosed_without_panic() {
    let full = &golden_texts()[0];
    let text = full.trim_end();
    for (end, _) in text.char_indices() {
        let prefix = &text[..end];
        assert_sane(prefix);
        if end > 0 {
            assert!(
                !report_core::analyze(prefix).is_valid(),
                "a strict prefix is never a valid report"
            );
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..3000 {
        let len = rng.usize(0..200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        let analysis = report_core::analyze_with(bytes, report_core::AnalysisOptions::default());
        assert_sane(&analysis.text);
    }
}

#[test]
fn random_mutations_of_golden_reports_never_panic() {
    let mut rng = fastrand::Rng::with_seed(11);
    let pieces = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "null", "1e999", "-0", "\"auto\"", "😀", "路",
        "\r\n", "\u{2028}", "\t", "\"path\"",
    ];
    for text in golden_texts() {
        for _ in 0..150 {
            let mut mutated = text.clone();
            for _ in 0..rng.usize(1..4) {
                let mut at = rng.usize(0..=mutated.len());
                while !mutated.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + rng.usize(0..12)).min(mutated.len());
                while !mutated.is_char_boundary(end) {
                    end -= 1;
                }
                mutated.replace_range(at..end.max(at), pieces[rng.usize(0..pieces.len())]);
            }
            assert_sane(&mutated);
        }
    }
}

#[test]
fn deep_nesting_and_huge_lines_are_diagnosed() {
    let deep = "[".repeat(100_000);
    let analysis = report_core::analyze(&deep);
    assert_eq!(analysis.diagnostics[0].code.as_str(), "nesting-too-deep");
    let object_deep = "{\"a\":".repeat(50_000);
    assert_eq!(
        report_core::analyze(&object_deep).diagnostics[0]
            .code
            .as_str(),
        "nesting-too-deep"
    );
    let long_line = format!("{{\"schema_version\": \"{}\"}}", "x".repeat(1 << 20));
    assert_sane(&long_line);
}

/// The deepest nesting the parser accepts fits the stack the core asks for.
#[test]
fn deepest_accepted_nesting_fits_the_documented_stack() {
    let text = format!("{}{}", "[".repeat(512), "]".repeat(512));
    let handle = std::thread::Builder::new()
        .stack_size(report_core::ANALYSIS_STACK_BYTES)
        .spawn(move || report_core::analyze(&text).diagnostics.len())
        .unwrap();
    assert_eq!(handle.join().unwrap(), 1, "root-not-object only");
}
