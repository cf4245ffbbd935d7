//! `--format json`: one object on one line, positions as the language server
//! sends them (0-based lines, UTF-16 columns), with related places, each
//! fix's edits, failures and a summary with counts. `fixable` means that
//! `check --fix` applies the fix (it is the preferred one); `fix` is any fix.

use std::io::{self, Write};

use serde_json::{Value, json};

use report_core::Analysis;
use report_core::text::{Encoding, TextRange};

use super::Outcome;

pub(super) fn write(out: &mut dyn Write, outcome: &Outcome) -> io::Result<()> {
    let files: Vec<Value> = outcome
        .files
        .iter()
        .map(|file| {
            let analysis = &file.analysis;
            let diagnostics: Vec<Value> = analysis
                .diagnostics
                .iter()
                .map(|d| {
                    let related: Vec<Value> = d
                        .related
                        .iter()
                        .map(|r| json!({"range": range(analysis, r.range), "message": r.message}))
                        .collect();
                    let fix = d.fix.as_ref().map(|fix| {
                        let edits: Vec<Value> = fix
                            .edits
                            .iter()
                            .map(|e| json!({"range": range(analysis, e.range), "new_text": e.new_text}))
                            .collect();
                        json!({"title": fix.title, "preferred": fix.preferred, "edits": edits})
                    });
                    json!({
                        "code": d.code.as_str(),
                        "severity": d.severity.as_str(),
                        "message": d.message,
                        "range": range(analysis, d.range),
                        "related": related,
                        // What `--fix` applies: the preferred fixes only.
                        "fixable": d.fix.as_ref().is_some_and(|f| f.preferred),
                        "fix": fix,
                    })
                })
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

fn range(analysis: &Analysis, range: TextRange) -> Value {
    let position = |offset: usize| {
        let p = analysis
            .line_index()
            .line_col(&analysis.text, offset, Encoding::Utf16);
        json!({"line": p.line, "character": p.col})
    };
    json!({"start": position(range.start), "end": position(range.end)})
}
