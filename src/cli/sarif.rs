//! `--format sarif`: one SARIF 2.1.0 log with one run, for code-scanning
//! services. Regions are 1-based, columns in UTF-16 code units (the run's
//! `columnKind`); rules carry the invariant behind each code used.

use std::collections::BTreeSet;
use std::io::{self, Write};

use serde_json::{Value, json};

use report_core::Analysis;
use report_core::diagnostic::{Code, Severity};
use report_core::docs;
use report_core::text::TextRange;

use super::{Outcome, all_diagnostics, one_based_range};

const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub(super) fn write(out: &mut dyn Write, outcome: &Outcome) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &log(outcome))?;
    writeln!(out)
}

/// The whole log, as a value.
pub(super) fn log(outcome: &Outcome) -> Value {
    // Only the codes found, in code order, so the log stays small; results point at them by index.
    let used: BTreeSet<Code> = all_diagnostics(outcome).map(|(_, d)| d.code).collect();
    let rules: Vec<Code> = used.into_iter().collect();
    let results: Vec<Value> = all_diagnostics(outcome)
        .map(|(file, d)| {
            let uri = artifact_uri(&file.path);
            let related: Vec<Value> = d
                .related
                .iter()
                .enumerate()
                .map(|(id, r)| {
                    let mut location = location(&uri, &file.analysis, r.range);
                    location["id"] = json!(id);
                    location["message"] = json!({"text": r.message});
                    location
                })
                .collect();
            let mut result = json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": rules.iter().position(|c| *c == d.code),
                "level": level(d.severity),
                "message": {"text": d.message},
                "locations": [location(&uri, &file.analysis, d.range)],
            });
            if !related.is_empty() {
                result["relatedLocations"] = Value::Array(related);
            }
            if let Some(fix) = &d.fix {
                let replacements: Vec<Value> = fix
                    .edits
                    .iter()
                    .map(|e| {
                        json!({
                            "deletedRegion": region(&file.analysis, e.range),
                            "insertedContent": {"text": e.new_text},
                        })
                    })
                    .collect();
                result["fixes"] = json!([{
                    "description": {"text": fix.title},
                    "artifactChanges": [{
                        "artifactLocation": {"uri": uri},
                        "replacements": replacements,
                    }],
                }]);
            }
            result
        })
        .collect();
    let mut notifications: Vec<Value> = outcome
        .failures
        .iter()
        .map(|failure| {
            let mut notification = json!({"level": "error", "message": {"text": failure.message}});
            if let Some(path) = &failure.path {
                notification["locations"] = json!([{
                    "physicalLocation": {"artifactLocation": {"uri": artifact_uri(path)}},
                }]);
            }
            notification
        })
        .collect();
    // Results past --max-diagnostics: counted, not listed.
    for file in outcome
        .files
        .iter()
        .filter(|f| !f.analysis.omitted.is_empty())
    {
        notifications.push(json!({
            "level": "warning",
            "message": {"text": format!(
                "{} more results are not listed (past --max-diagnostics)",
                file.analysis.omitted.len()
            )},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": artifact_uri(&file.path)}},
            }],
            "properties": {"omitted": file.analysis.omitted.len()},
        }));
    }
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "report-lsp",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|&code| rule(code)).collect::<Vec<_>>(),
            }},
            "columnKind": "utf16CodeUnits",
            "invocations": [{
                "executionSuccessful": outcome.failures.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    })
}

fn rule(code: Code) -> Value {
    let number = code.invariant();
    let heading = docs::invariant_heading(number).unwrap_or(code.as_str());
    let explanation = docs::explain(code);
    json!({
        "id": code.as_str(),
        "shortDescription": {"text": heading},
        "fullDescription": {"text": docs::invariant_body(number).unwrap_or(heading)},
        "help": {"text": explanation, "markdown": explanation},
        "defaultConfiguration": {"level": level(code.severity())},
        "properties": {"invariant": number},
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

fn location(uri: &str, analysis: &Analysis, range: TextRange) -> Value {
    json!({"physicalLocation": {
        "artifactLocation": {"uri": uri},
        "region": region(analysis, range),
    }})
}

fn region(analysis: &Analysis, range: TextRange) -> Value {
    let (start, end) = one_based_range(analysis, range);
    json!({
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": end.column,
    })
}

/// A path as a URI reference: forward slashes, no leading `./`, and every
/// byte outside the unreserved set and `/` percent-encoded. An absolute path
/// becomes a `file://` URI.
pub(super) fn artifact_uri(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let relative = slashed.trim_start_matches("./");
    let mut uri = String::with_capacity(relative.len());
    if relative.starts_with('/') {
        uri.push_str("file://");
    }
    for byte in relative.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(artifact_uri("./a/b c.report.json"), "a/b%20c.report.json");
        assert_eq!(artifact_uri("路.json"), "%E8%B7%AF.json");
        assert_eq!(artifact_uri("/tmp/x.json"), "file:///tmp/x.json");
        assert_eq!(artifact_uri("a\\b.json"), "a/b.json");
    }
}
