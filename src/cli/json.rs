//! `--format json`: one object on one line, each file's diagnostics as
//! `report_core::wire` writes them (positions as the language server sends
//! them, related places, each fix's edits), failures and a summary with
//! counts.

use std::io::{self, Write};

use serde_json::{Value, json};

use report_core::wire::Positions;

use super::Outcome;

pub(super) fn write(out: &mut dyn Write, outcome: &Outcome) -> io::Result<()> {
    let files: Vec<Value> = outcome
        .files
        .iter()
        .map(|file| {
            let analysis = &file.analysis;
            let at = Positions {
                text: &analysis.text,
                index: analysis.line_index(),
            };
            let diagnostics: Vec<Value> = (analysis.diagnostics.iter())
                .map(|d| at.diagnostic(d))
                .collect();
            json!({
                "path": file.path,
                "valid": file.valid(),
                "fixed": file.fixed,
                "diagnostics": diagnostics,
                // Found but not listed: past --max-diagnostics.
                "omitted": analysis.omitted.len(),
            })
        })
        .collect();
    let failures: Vec<Value> = outcome
        .failures
        .iter()
        .map(|f| json!({"path": f.path, "message": f.message}))
        .collect();
    let s = outcome.summary();
    let summary = json!({
        "files": s.files,
        "valid": s.valid,
        "invalid": s.files - s.valid,
        "errors": s.errors,
        "warnings": s.warnings,
        "information": s.information,
        "hints": s.hints,
        "fixable": s.fixable,
        "fixed": s.fixed,
        "failures": s.failures,
        "omitted": s.omitted,
    });
    serde_json::to_writer(
        &mut *out,
        &json!({"files": files, "failures": failures, "summary": summary}),
    )?;
    writeln!(out)
}
