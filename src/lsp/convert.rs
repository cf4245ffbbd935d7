//! The only place that knows both the core's byte ranges and the protocol's
//! positions: conversions between them, and core results to LSP types.

use tower_lsp_server::ls_types as lsp;

use crate::diagnostic::{Diagnostic, Severity};
use crate::text::{Encoding, LineCol, LineIndex, TextRange};

/// A text with its line index and the negotiated encoding.
pub struct Positions<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
    pub encoding: Encoding,
}

impl Positions<'_> {
    pub fn position(&self, offset: usize) -> lsp::Position {
        let p = self.index.line_col(self.text, offset, self.encoding);
        lsp::Position::new(p.line, p.col)
    }

    pub fn lsp_range(&self, range: TextRange) -> lsp::Range {
        lsp::Range::new(self.position(range.start), self.position(range.end))
    }

    /// The offset of a position in a request, clamped into the text as LSP asks.
    pub fn offset(&self, position: lsp::Position) -> usize {
        self.index
            .offset_clamped(self.text, line_col(position), self.encoding)
    }

    pub fn range(&self, range: lsp::Range) -> TextRange {
        let (start, end) = (self.offset(range.start), self.offset(range.end));
        TextRange::new(start.min(end), start.max(end))
    }

    pub fn diagnostic(&self, uri: &lsp::Uri, d: &Diagnostic) -> lsp::Diagnostic {
        let related = d
            .related
            .iter()
            .map(|r| lsp::DiagnosticRelatedInformation {
                location: lsp::Location::new(uri.clone(), self.lsp_range(r.range)),
                message: r.message.clone(),
            })
            .collect::<Vec<_>>();
        lsp::Diagnostic {
            range: self.lsp_range(d.range),
            severity: Some(severity(d.severity)),
            code: Some(lsp::NumberOrString::String(d.code.as_str().to_string())),
            code_description: code_description(d.code),
            source: Some("report-lsp".to_string()),
            message: d.message.clone(),
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data: None,
        }
    }

    pub fn text_edit(&self, edit: &crate::fix::TextEdit) -> lsp::TextEdit {
        lsp::TextEdit::new(self.lsp_range(edit.range), edit.new_text.clone())
    }
}

pub fn line_col(position: lsp::Position) -> LineCol {
    LineCol {
        line: position.line,
        col: position.character,
    }
}

fn severity(severity: Severity) -> lsp::DiagnosticSeverity {
    match severity {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    }
}

/// Where a code is explained: the heading of its invariant in the
/// `invariants.md` of the checkout the server was built from.
fn code_description(code: crate::diagnostic::Code) -> Option<lsp::CodeDescription> {
    let file = lsp::Uri::from_file_path(concat!(env!("CARGO_MANIFEST_DIR"), "/invariants.md"))?;
    let anchor = crate::hover::invariant_anchor(code.invariant())?;
    let href = format!("{}#{anchor}", file.as_str()).parse().ok()?;
    Some(lsp::CodeDescription { href })
}

pub fn encoding_kind(encoding: Encoding) -> lsp::PositionEncodingKind {
    match encoding {
        Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
        Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
    }
}

/// UTF-8 when the client offers it (fewer conversions), UTF-16 otherwise.
pub fn negotiate_encoding(capabilities: &lsp::ClientCapabilities) -> Encoding {
    let offered = capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(kinds) if kinds.contains(&lsp::PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

/// A filesystem-like path for glob matching: the file path of a `file:` URI, else the URI's path.
pub fn uri_path(uri: &lsp::Uri) -> String {
    match uri.to_file_path() {
        Some(path) => path.to_string_lossy().replace('\\', "/"),
        None => uri.path().as_str().to_string(),
    }
}
