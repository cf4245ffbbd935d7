//! Hover: the tier derivation trace and the glossary, from the host.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisPool;
use crate::lsp::convert;
use crate::lsp::session::Session;

pub async fn hover(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::HoverParams,
) -> Result<Option<lsp::Hover>> {
    let at = params.text_document_position_params;
    let client = session.capabilities();
    analysis
        .query(&at.text_document.uri, "hover", move |state| {
            let positions = state.positions(client.encoding);
            let offset = positions.offset(at.position);
            // The edit preview and live derivation join the tier trace or glossary line.
            let Some(info) = state.host.hover_with(offset, state.workspace.as_deref()) else {
                return Ok(None);
            };
            Ok(Some(lsp::Hover {
                contents: convert::hover_contents(info.markdown, client.hover_markdown),
                range: Some(positions.lsp_range(info.range)),
            }))
        })
        .await
}
