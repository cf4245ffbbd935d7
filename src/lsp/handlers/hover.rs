//! Hover: the tier derivation trace and the glossary, from the host.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisThread;
use crate::lsp::session::Session;

pub async fn hover(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::HoverParams,
) -> Result<Option<lsp::Hover>> {
    let at = params.text_document_position_params;
    let encoding = session.negotiated().encoding;
    analysis
        .query(&at.text_document.uri, "hover", move |state| {
            let positions = state.positions(encoding);
            let Some(info) = state.host.hover(positions.offset(at.position)) else {
                return Ok(None);
            };
            Ok(Some(lsp::Hover {
                contents: lsp::HoverContents::Markup(lsp::MarkupContent {
                    kind: lsp::MarkupKind::Markdown,
                    value: info.markdown,
                }),
                range: Some(positions.lsp_range(info.range)),
            }))
        })
        .await
}
