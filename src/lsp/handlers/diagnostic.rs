//! Pull diagnostics (`textDocument/diagnostic`, LSP 3.17) for clients that
//! ask for them: the same capped list a push would carry, marked with the
//! document's generation so that an unchanged document costs nothing.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::{AnalysisThread, capped};
use crate::lsp::session::{Session, lock};

pub async fn diagnostic(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::DocumentDiagnosticParams,
) -> Result<lsp::DocumentDiagnosticReportResult> {
    let encoding = session.negotiated().encoding;
    let max = lock(&session.settings).max_diagnostics;
    let uri = params.text_document.uri.clone();
    let previous = params.previous_result_id;
    let report = analysis
        .query(&params.text_document.uri, "diagnostic", move |state| {
            let result_id = state.generation.to_string();
            if previous.as_deref() == Some(result_id.as_str()) {
                return Ok(Some(lsp::DocumentDiagnosticReport::Unchanged(
                    lsp::RelatedUnchangedDocumentDiagnosticReport {
                        related_documents: None,
                        unchanged_document_diagnostic_report:
                            lsp::UnchangedDocumentDiagnosticReport { result_id },
                    },
                )));
            }
            // The report's own diagnostics: the workspace checks are pushed only.
            let items = capped(state, &uri, encoding, max, &[]);
            Ok(Some(full(Some(result_id), items)))
        })
        .await?;
    // A document whose text is not known (out of sync) has nothing to show.
    Ok(lsp::DocumentDiagnosticReportResult::Report(
        report.unwrap_or_else(|| full(None, Vec::new())),
    ))
}

fn full(result_id: Option<String>, items: Vec<lsp::Diagnostic>) -> lsp::DocumentDiagnosticReport {
    lsp::DocumentDiagnosticReport::Full(lsp::RelatedFullDocumentDiagnosticReport {
        related_documents: None,
        full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport { result_id, items },
    })
}
