//! report-lsp's core as a WebAssembly module, for a browser page and VS Code
//! for the Web. A document is opened from its bytes and asked questions by
//! name, in JSON: the answers are the core's own (the host the server uses
//! for an unopened report), with positions as the language server sends
//! them (0-based lines, UTF-16 columns, as a browser's strings count). No
//! second implementation of anything lives here: each method translates.
//! It runs nothing and reads no file: a wasm32 module has no processes or
//! file system, and `tests/architecture.rs` checks its sources as the
//! server's for any process started or file written.
//!
//! The binding is a C ABI with JSON across it (`abi`), loaded by a few
//! lines of JavaScript (`editors/web/report-wasm.mjs`); see
//! `crates/report-wasm/README.md` for the methods and BENCHMARKS.md for why
//! not wasm-bindgen.

use std::sync::Arc;

use report_core::host::{
    DEFAULT_MAX_DIAGNOSTICS, DEFAULT_MAX_DOCUMENT_BYTES, DocumentHost, HostOptions,
};
use report_core::ide::completion::CompletionKind;
use report_core::ide::symbols::SymbolKind;
use report_core::project_checks::WorkspaceFacts;
use report_core::publication;
use report_core::summary::SummaryOptions;
use report_core::summary::answer::{FORMAT_NAMES, Format, answer};
use report_core::text::{Encoding, LineCol, LineIndex, TextRange};
use report_core::wire::Positions;
use serde_json::{Value, json};

pub mod abi;

/// One report, analysed once when opened.
pub struct Document {
    /// Its text is the one analysed: a lossy copy when the bytes were not
    /// UTF-8, as `check` reads them.
    host: DocumentHost<Arc<String>>,
    lines: LineIndex,
    /// The name the page shows, and that names the summary.
    name: String,
}

impl Document {
    /// Analyses `bytes` as `check` analyses a file it is given, whatever its
    /// name (the reader chose it), under the editor's limits: a text over
    /// [`DEFAULT_MAX_DOCUMENT_BYTES`] gets one `document-too-large`
    /// diagnostic, at most [`DEFAULT_MAX_DIAGNOSTICS`] are given. `name`
    /// names it in the answers and the summary.
    pub fn open(bytes: Vec<u8>, name: &str) -> Document {
        let options = HostOptions {
            name_matches: true,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
        };
        let analysis = report_core::host::analyze_file(bytes, options, None);
        let host = DocumentHost::from_analysis(analysis, options, Arc::clone);
        Document {
            lines: LineIndex::new(host.text()),
            host,
            name: name.to_string(),
        }
    }

    fn positions(&self) -> Positions<'_> {
        Positions {
            text: self.host.text(),
            index: &self.lines,
        }
    }

    /// The byte offset of a `{"line", "character"}` (UTF-16) position,
    /// clamped into the text as the server clamps a sloppy client's.
    fn offset(&self, position: &Value) -> Result<usize, String> {
        let number = |key: &str| {
            (position.get(key).and_then(Value::as_u64))
                .map(|n| n.min(u32::MAX as u64) as u32)
                .ok_or_else(|| format!("a position needs a whole number `{key}`"))
        };
        let at = LineCol {
            line: number("line")?,
            col: number("character")?,
        };
        Ok(self
            .lines
            .offset_clamped(self.host.text(), at, Encoding::Utf16))
    }

    /// Answers `method` with `params` (see the README for each).
    pub fn call(&self, method: &str, params: &Value) -> Result<Value, String> {
        let at = self.positions();
        let position = || self.offset(params.get("position").unwrap_or(&Value::Null));
        Ok(match method {
            "diagnostics" => self.diagnostics(),
            "hover" => hover(&at, self.host.hover_with(position()?, Some(&not_read()))),
            "trace" => hover(&at, self.host.trace(position()?)),
            "completion" => Value::Array(
                (self.host.completions(position()?).iter())
                    .map(|item| {
                        json!({
                            "label": item.label,
                            "kind": completion_kind(item.kind),
                            "detail": item.detail,
                            "documentation": item.documentation,
                            "edit": at.edit(&item.edit),
                            "snippet": item.snippet,
                            "preselect": item.preselect,
                        })
                    })
                    .collect(),
            ),
            "outline" => Value::Array(
                (self.host.symbols().iter())
                    .map(|s| symbol(&at, s))
                    .collect(),
            ),
            "quickFixes" => {
                let range = params.get("range").unwrap_or(&Value::Null);
                let offset = |key: &str| self.offset(range.get(key).unwrap_or(&Value::Null));
                let start = offset("start")?;
                let range = TextRange::new(start, offset("end")?.max(start));
                Value::Array(
                    (self.host.quick_fixes(range).iter())
                        .map(|quick| at.diagnostic(&quick.diagnostic))
                        .collect(),
                )
            }
            "fixAll" => match self.host.fix_all() {
                Some(edit) => at.edit(&edit),
                None => Value::Null,
            },
            "summary" => self.summary(params.get("format").and_then(Value::as_str))?,
            _ => return Err(format!("no method `{method}`")),
        })
    }

    /// What the editor publishes for the document: at most the cap, then
    /// the `too-many-diagnostics` summary of those left out, as the server
    /// publishes them.
    fn diagnostics(&self) -> Value {
        let at = self.positions();
        let published = self.host.published();
        let mut diagnostics: Vec<Value> = (published.diagnostics.iter())
            .map(|d| at.diagnostic(d))
            .collect();
        let severities = Default::default();
        if let Some(left_out) = published.left_out
            && let Some(d) = publication::summary(
                left_out,
                &DEFAULT_MAX_DIAGNOSTICS.to_string(),
                "",
                &severities,
            )
        {
            diagnostics.push(at.diagnostic(&d));
        }
        json!({
            "name": self.name,
            "report": self.host.is_report(),
            "diagnostics": diagnostics,
            "omitted": published.left_out.map_or(0, |l| l.count),
        })
    }

    /// The reviewer's summary as the server's `report-lsp/summary` gives
    /// it: `{format, content, entries}`, the content in `format` (JSON by
    /// default; Markdown, text, or one HTML page with pictures) and each
    /// entry it names with its range; null when the text is not a report.
    fn summary(&self, format: Option<&str>) -> Result<Value, String> {
        let name = format.unwrap_or("json");
        let format = Format::named(name).ok_or_else(|| {
            format!("the summary's format is one of {FORMAT_NAMES}, not `{name}`")
        })?;
        let Some(summary) = self.host.summary(SummaryOptions::default(), None, None) else {
            return Ok(Value::Null);
        };
        let at = self.positions();
        let range = |range: TextRange| at.range(range);
        let line = |offset: usize| {
            self.lines
                .line_col(self.host.text(), offset, Encoding::Utf16)
                .line
        };
        Ok(answer(&summary, format, &self.name, &range, &line))
    }
}

/// What the workspace checks know in a browser: nothing, and why, which
/// the hover says where the project's facts would show (as the editor's
/// does in a restricted workspace).
fn not_read() -> WorkspaceFacts {
    WorkspaceFacts {
        not_read: Some(WORKSPACE_CHECKS_OFF.to_string()),
        ..WorkspaceFacts::default()
    }
}

/// Why the workspace checks do not run here.
pub const WORKSPACE_CHECKS_OFF: &str =
    "the workspace checks are off in a browser, which has no file system or git to read";

fn hover(at: &Positions<'_>, info: Option<report_core::hover::HoverInfo>) -> Value {
    match info {
        Some(info) => json!({"range": at.range(info.range), "markdown": info.markdown}),
        None => Value::Null,
    }
}

/// A completion's kind, as the README names it.
fn completion_kind(kind: CompletionKind) -> &'static str {
    match kind {
        CompletionKind::EnumMember => "EnumMember",
        CompletionKind::Property => "Property",
        CompletionKind::Path => "Path",
        CompletionKind::Snippet => "Snippet",
    }
}

/// An outline symbol's kind, as the README names it.
fn symbol_kind(kind: SymbolKind) -> &'static str {
    match kind {
        SymbolKind::Field => "Field",
        SymbolKind::Array => "Array",
        SymbolKind::Object => "Object",
        SymbolKind::Group => "Group",
        SymbolKind::Notice => "Notice",
    }
}

fn symbol(at: &Positions<'_>, s: &report_core::ide::symbols::Symbol) -> Value {
    json!({
        "name": s.name,
        "detail": s.detail,
        "kind": symbol_kind(s.kind),
        "range": at.range(s.range),
        "selection": at.range(s.selection),
        "children": s.children.iter().map(|c| symbol(at, c)).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests;
