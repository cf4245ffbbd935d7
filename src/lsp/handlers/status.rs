//! `report-lsp/status`: how a document is being analysed, for users
//! wondering about speed and for tests checking which path was taken.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisPool;
use crate::lsp::session::Session;

pub async fn status(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::TextDocumentIdentifier,
) -> Result<serde_json::Value> {
    let pulled = session.pulls_diagnostics();
    let status = analysis
        .query(&params.uri, "status", move |state| {
            let status = state.host.status();
            Ok(Some(serde_json::json!({
                "bytes": status.bytes,
                "isReport": status.is_report,
                "entries": status.entries,
                "incremental": status.entries.is_some(),
                "incrementalUpdates": status.incremental_updates,
                "fullAnalyses": status.full_analyses,
                // The analysis thread that serves it: documents on different
                // threads never wait for each other's analyses.
                "analysisThread": std::thread::current().name(),
                // How the client gets diagnostics, and how often it got them
                // since the document was opened.
                "diagnostics": if pulled { "pull" } else { "push" },
                "pulls": state.pulls,
                "pushes": state.pushes,
            })))
        })
        .await?;
    Ok(status.unwrap_or(serde_json::Value::Null))
}
