//! `report-lsp/status`: how a document is being analysed, for users
//! wondering about speed and for tests checking which path was taken.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisThread;

pub async fn status(
    analysis: &AnalysisThread,
    params: lsp::TextDocumentIdentifier,
) -> Result<serde_json::Value> {
    let status = analysis
        .query(&params.uri, "status", |state| {
            let status = state.host.status();
            Ok(Some(serde_json::json!({
                "bytes": status.bytes,
                "isReport": status.is_report,
                "entries": status.entries,
                "incremental": status.entries.is_some(),
                "incrementalUpdates": status.incremental_updates,
                "fullAnalyses": status.full_analyses,
            })))
        })
        .await?;
    Ok(status.unwrap_or(serde_json::Value::Null))
}
