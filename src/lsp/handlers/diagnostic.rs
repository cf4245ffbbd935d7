//! Pull diagnostics (`textDocument/diagnostic`, LSP 3.17) for clients that
//! pull and can be told to pull again: the same capped list a push would
//! carry (the workspace checks' included), for the document's latest text,
//! marked with what it is of so that an unchanged document costs nothing.

use std::hash::{Hash, Hasher};

use report_core::diagnostic::Diagnostic;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::{AnalysisThread, capped};
use crate::lsp::session::Session;

pub async fn diagnostic(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::DocumentDiagnosticParams,
) -> Result<lsp::DocumentDiagnosticReportResult> {
    let client = session.capabilities();
    let uri = params.text_document.uri.clone();
    let previous = params.previous_result_id;
    // For the latest text, after its analysis: a change queued behind the
    // pull is analysed first rather than answered with nothing.
    let report = analysis
        .query_latest(
            &params.text_document.uri,
            "diagnostic",
            move |state, workspace| {
                state.pulls += 1;
                let result_id = result_id(state.opened, state.generation, workspace);
                if previous.as_deref() == Some(result_id.as_str()) {
                    return Ok(Some(lsp::DocumentDiagnosticReport::Unchanged(
                        lsp::RelatedUnchangedDocumentDiagnosticReport {
                            related_documents: None,
                            unchanged_document_diagnostic_report:
                                lsp::UnchangedDocumentDiagnosticReport { result_id },
                        },
                    )));
                }
                // The report's own diagnostics and the workspace checks' of
                // this text; later checks ask the client to pull again.
                let items = capped(state, &uri, client, workspace);
                Ok(Some(full(Some(result_id), items)))
            },
        )
        .await?;
    // A document whose text is not known (out of sync) has nothing to show.
    Ok(lsp::DocumentDiagnosticReportResult::Report(
        report.unwrap_or_else(|| full(None, Vec::new())),
    ))
}

/// Names what a pull answered: this opening of the document, its text,
/// and the workspace diagnostics merged into it.
fn result_id(opened: u64, generation: u64, workspace: &[Diagnostic]) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for d in workspace {
        (d.code.as_str(), d.range.start, d.range.end, &d.message).hash(&mut hasher);
    }
    format!("{opened}.{generation}.{:x}", hasher.finish())
}

fn full(result_id: Option<String>, items: Vec<lsp::Diagnostic>) -> lsp::DocumentDiagnosticReport {
    lsp::DocumentDiagnosticReport::Full(lsp::RelatedFullDocumentDiagnosticReport {
        related_documents: None,
        full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport { result_id, items },
    })
}
