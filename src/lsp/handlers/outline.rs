//! The outline (document symbols), folding ranges and selection ranges.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use report_core::ide::symbols::{Symbol, SymbolKind};

use crate::lsp::analysis::AnalysisThread;
use crate::lsp::convert::Positions;
use crate::lsp::session::Session;

/// Folding ranges when the client states no limit.
const DEFAULT_FOLDING_LIMIT: usize = 5000;

pub async fn document_symbol(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::DocumentSymbolParams,
) -> Result<Option<lsp::DocumentSymbolResponse>> {
    let encoding = session.capabilities().encoding;
    analysis
        .query(&params.text_document.uri, "documentSymbol", move |state| {
            let positions = state.positions(encoding);
            let symbols = state
                .host
                .symbols()
                .iter()
                .map(|s| symbol(&positions, s))
                .collect();
            Ok(Some(lsp::DocumentSymbolResponse::Nested(symbols)))
        })
        .await
}

#[allow(deprecated)] // `deprecated` is a required field of the protocol type
fn symbol(positions: &Positions<'_>, s: &Symbol) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: s.name.clone(),
        detail: s.detail.clone(),
        kind: match s.kind {
            SymbolKind::Field => lsp::SymbolKind::FIELD,
            SymbolKind::Array => lsp::SymbolKind::ARRAY,
            SymbolKind::Object => lsp::SymbolKind::OBJECT,
            SymbolKind::Group => lsp::SymbolKind::NAMESPACE,
            SymbolKind::Notice => lsp::SymbolKind::NULL,
        },
        tags: None,
        deprecated: None,
        range: positions.lsp_range(s.range),
        selection_range: positions.lsp_range(s.selection),
        children: (!s.children.is_empty())
            .then(|| s.children.iter().map(|c| symbol(positions, c)).collect()),
    }
}

pub async fn folding_range(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::FoldingRangeParams,
) -> Result<Option<Vec<lsp::FoldingRange>>> {
    let client = session.capabilities();
    let limit = client.folding_limit.unwrap_or(DEFAULT_FOLDING_LIMIT);
    analysis
        .query(&params.text_document.uri, "foldingRange", move |state| {
            let positions = state.positions(client.encoding);
            let ranges = state
                .host
                .folding_ranges(limit)
                .into_iter()
                .map(|r| {
                    let range = positions.lsp_range(r);
                    lsp::FoldingRange {
                        start_line: range.start.line,
                        end_line: range.end.line,
                        ..Default::default()
                    }
                })
                .collect();
            Ok(Some(ranges))
        })
        .await
}

pub async fn selection_range(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::SelectionRangeParams,
) -> Result<Option<Vec<lsp::SelectionRange>>> {
    let encoding = session.capabilities().encoding;
    analysis
        .query(&params.text_document.uri, "selectionRange", move |state| {
            let positions = state.positions(encoding);
            let offsets: Vec<usize> = params
                .positions
                .iter()
                .map(|p| positions.offset(*p))
                .collect();
            let chains = state.host.selection_ranges(&offsets);
            let ranges = chains
                .into_iter()
                .zip(&params.positions)
                .map(|(chain, position)| {
                    // Outermost first, each the parent of the next.
                    let mut selection: Option<lsp::SelectionRange> = None;
                    for range in chain.into_iter().rev() {
                        selection = Some(lsp::SelectionRange {
                            range: positions.lsp_range(range),
                            parent: selection.map(Box::new),
                        });
                    }
                    selection.unwrap_or(lsp::SelectionRange {
                        range: lsp::Range::new(*position, *position),
                        parent: None,
                    })
                })
                .collect();
            Ok(Some(ranges))
        })
        .await
}
