//! Inlay hints (derived tier, token share) and the code lenses: the token
//! roll-up on `entries`, and the comparison with HEAD (`since_head`).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisPool;
use crate::lsp::session::Session;

pub async fn inlay_hint(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::InlayHintParams,
) -> Result<Option<Vec<lsp::InlayHint>>> {
    let encoding = session.capabilities().encoding;
    analysis
        .query(&params.text_document.uri, "inlayHint", move |state| {
            let positions = state.positions(encoding);
            let hints = state
                .host
                .inlay_hints_live(positions.range(params.range), state.workspace.as_deref())
                .into_iter()
                .map(|hint| lsp::InlayHint {
                    position: positions.position(hint.offset),
                    label: lsp::InlayHintLabel::String(hint.label),
                    kind: None,
                    text_edits: None,
                    tooltip: Some(lsp::InlayHintTooltip::String(hint.tooltip)),
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                })
                .collect();
            Ok(Some(hints))
        })
        .await
}

/// The command of a lens shown for its title only (the roll-up; a target
/// document's where the client cannot be asked to show the entry): a
/// client runs it when the lens is clicked, and it answers `null`.
pub const DISPLAY_ONLY: &str = "report-lsp.displayOnly";

pub async fn code_lens(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::CodeLensParams,
) -> Result<Option<Vec<lsp::CodeLens>>> {
    let encoding = session.capabilities().encoding;
    let uri = params.text_document.uri.clone();
    analysis
        .query(&params.text_document.uri, "codeLens", move |state| {
            let positions = state.positions(encoding);
            let since_head = super::since_head::lens(state, &uri);
            let mut lenses: Vec<lsp::CodeLens> = state
                .host
                .code_lenses()
                .into_iter()
                .map(|(range, title)| lsp::CodeLens {
                    range: positions.lsp_range(range),
                    // Shown for its title. Clients run a lens's command when
                    // it is clicked (lsp-mode shows every lens clickable):
                    // one the server lists, which does nothing.
                    command: Some(lsp::Command {
                        title,
                        command: DISPLAY_ONLY.into(),
                        arguments: None,
                    }),
                    data: None,
                })
                .collect();
            lenses.extend(since_head);
            Ok(Some(lenses))
        })
        .await
}
