//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

pub mod editor;
pub mod project;

use std::path::PathBuf;

use report_core::Analysis;
use report_core::text::{Encoding, TextRange};

pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/golden")
}

/// The invalid examples, in name order.
pub fn invalid_examples() -> Vec<PathBuf> {
    examples_in("invalid")
}

/// The small valid examples of readings, in name order (besides `valid.report.json`).
pub fn valid_examples() -> Vec<PathBuf> {
    examples_in("valid")
}

fn examples_in(folder: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(golden_dir().join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
}

/// Diagnostics as snapshot lines: `LINE:COL-LINE:COL severity[code] message`,
/// 1-based lines and UTF-16 columns, with related places indented below.
pub fn render_diagnostics(text: &str, analysis: &Analysis) -> String {
    let at = |range: TextRange| {
        let start = analysis
            .line_index()
            .line_col(text, range.start, Encoding::Utf16);
        let end = analysis
            .line_index()
            .line_col(text, range.end, Encoding::Utf16);
        format!(
            "{}:{}-{}:{}",
            start.line + 1,
            start.col + 1,
            end.line + 1,
            end.col + 1
        )
    };
    let mut out = String::new();
    for d in &analysis.diagnostics {
        out.push_str(&format!(
            "{} {}[{}] {}\n",
            at(d.range),
            d.severity.as_str(),
            d.code,
            d.message
        ));
        for related in &d.related {
            out.push_str(&format!(
                "    related {}: {}\n",
                at(related.range),
                related.message
            ));
        }
        if let Some(fix) = &d.fix {
            out.push_str(&format!("    fix: {}\n", fix.title));
        }
    }
    out
}
