//! Pull diagnostics (`textDocument/diagnostic`, LSP 3.17) for clients that
//! pull and can be told to pull again: the same capped list a push would
//! carry (the workspace checks' included), for the document's latest text,
//! marked with what it is of so that an unchanged document costs nothing.
//! `workspace/diagnostic` answers for the reports found on disk that are
//! not open, with partial results while the first search runs.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use report_core::diagnostic::Diagnostic;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::capped;
use crate::lsp::found_reports::{Found, FoundReports, Search};
use crate::lsp::services::Services;
use crate::lsp::session::Session;

pub async fn diagnostic(
    session: &Session,
    services: &Services,
    params: lsp::DocumentDiagnosticParams,
) -> Result<lsp::DocumentDiagnosticReportResult> {
    let client = session.capabilities();
    let uri = params.text_document.uri.clone();
    let (uri_asked, previous_asked) = (uri.clone(), params.previous_result_id.clone());
    let previous = params.previous_result_id;
    // For the latest text, after its analysis: a change queued behind the
    // pull is analysed first rather than answered with nothing.
    let report = services
        .analysis
        .query_diagnostics(&params.text_document.uri, move |state, workspace| {
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
        })
        .await;
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            return from_disk(&services.search, &uri_asked, previous_asked.as_deref())
                .map(lsp::DocumentDiagnosticReportResult::Report)
                .ok_or(error);
        }
    };
    // A document whose text is not known (out of sync) has nothing to show.
    Ok(lsp::DocumentDiagnosticReportResult::Report(
        report.unwrap_or_else(|| full(None, Vec::new())),
    ))
}

/// A pull for a document that is not open (VS Code pulls once more right
/// after a close): a report found on disk answers with what its file holds.
fn from_disk(
    search: &FoundReports,
    uri: &lsp::Uri,
    previous: Option<&str>,
) -> Option<lsp::DocumentDiagnosticReport> {
    search.store.read(|state| {
        let path = uri.to_file_path()?;
        let found = state.reports.values().find(|f| f.path == path && !f.open)?;
        Some(match previous == Some(found.result_id.as_str()) {
            true => lsp::DocumentDiagnosticReport::Unchanged(
                lsp::RelatedUnchangedDocumentDiagnosticReport {
                    related_documents: None,
                    unchanged_document_diagnostic_report: lsp::UnchangedDocumentDiagnosticReport {
                        result_id: found.result_id.clone(),
                    },
                },
            ),
            false => full(Some(found.result_id.clone()), (*found.diagnostics).clone()),
        })
    })
}

/// `workspace/diagnostic`: every report found in the folders that is not
/// open (an open one is the document pull's), unchanged where the client
/// holds its result id. During the first search, a client that gave a
/// partial result token is sent each report as it is read; otherwise the
/// answer waits for the search.
pub async fn workspace_diagnostic(
    session: &Session,
    search: &FoundReports,
    params: lsp::WorkspaceDiagnosticParams,
) -> Result<lsp::WorkspaceDiagnosticReportResult> {
    // By path: the client may spell a URI otherwise than the server did
    // (which bytes are percent-encoded, a drive letter's case).
    let previous: HashMap<PathBuf, String> = params
        .previous_result_ids
        .into_iter()
        .filter_map(|p| Some((p.uri.to_file_path()?.into_owned(), p.value)))
        .collect();
    let token = params.partial_result_params.partial_result_token;
    let store = &search.store;
    let mut changes = store.subscribe();
    let mut sent: HashSet<lsp::Uri> = HashSet::new();
    let mut partials = 0;
    let items = loop {
        changes.borrow_and_update();
        let (items, searching) = store.read(|state| {
            let searching = state.search != Search::Done;
            let mut items = Vec::new();
            let mut reports: Vec<_> = state
                .reports
                .iter()
                .filter(|(uri, found)| !found.open && !sent.contains(*uri))
                .collect();
            reports.sort_by(|a, b| a.1.path.cmp(&b.1.path));
            for (uri, found) in reports {
                // Gone before the client saw it: nothing to tell.
                if found.gone && !previous.contains_key(&found.path) {
                    continue;
                }
                items.push(workspace_item(uri, found, previous.get(&found.path)));
            }
            (items, searching)
        });
        // After partial results the answer itself is empty (LSP 3.17): the
        // rest goes as one more partial result.
        if !searching && (partials == 0 || items.is_empty()) {
            break items;
        }
        if let Some(token) = &token
            && !items.is_empty()
        {
            sent.extend(items.iter().map(item_uri).cloned());
            partials += 1;
            session.publisher.notify(
                "$/progress",
                serde_json::json!({"token": token, "value": {"items": items}}),
            );
        }
        if !searching {
            continue;
        }
        if changes.changed().await.is_err() {
            break Vec::new();
        }
    };
    if partials > 0 {
        // The partial results go out before the answer: they share the
        // writer, which takes what is ready in turn.
        tokio::task::yield_now().await;
        tokio::task::yield_now().await;
    }
    Ok(lsp::WorkspaceDiagnosticReportResult::Report(
        lsp::WorkspaceDiagnosticReport { items },
    ))
}

fn workspace_item(
    uri: &lsp::Uri,
    found: &Found,
    previous: Option<&String>,
) -> lsp::WorkspaceDocumentDiagnosticReport {
    if previous == Some(&found.result_id) {
        return lsp::WorkspaceDocumentDiagnosticReport::Unchanged(
            lsp::WorkspaceUnchangedDocumentDiagnosticReport {
                uri: uri.clone(),
                version: None,
                unchanged_document_diagnostic_report: lsp::UnchangedDocumentDiagnosticReport {
                    result_id: found.result_id.clone(),
                },
            },
        );
    }
    lsp::WorkspaceDocumentDiagnosticReport::Full(lsp::WorkspaceFullDocumentDiagnosticReport {
        uri: uri.clone(),
        version: None,
        full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport {
            result_id: Some(found.result_id.clone()),
            items: (*found.diagnostics).clone(),
        },
    })
}

fn item_uri(item: &lsp::WorkspaceDocumentDiagnosticReport) -> &lsp::Uri {
    match item {
        lsp::WorkspaceDocumentDiagnosticReport::Full(full) => &full.uri,
        lsp::WorkspaceDocumentDiagnosticReport::Unchanged(unchanged) => &unchanged.uri,
    }
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
