//! The outline (document symbols), folding ranges and selection ranges.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use report_core::ide::symbols::{Symbol, SymbolKind};

use crate::lsp::analysis::AnalysisPool;
use crate::lsp::convert::Positions;
use crate::lsp::session::Session;

/// Folding ranges when the client states no limit.
const DEFAULT_FOLDING_LIMIT: usize = 5000;

pub async fn document_symbol(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::DocumentSymbolParams,
) -> Result<Option<lsp::DocumentSymbolResponse>> {
    let client = session.capabilities();
    let uri = params.text_document.uri.clone();
    analysis
        .query(&params.text_document.uri, "documentSymbol", move |state| {
            let positions = state.positions(client.encoding);
            let symbols = state.host.symbols();
            // A client that cannot read a tree gets the list the protocol had first.
            if !client.hierarchical_symbols {
                let mut flat = Vec::new();
                for s in symbols.iter() {
                    flatten(
                        &positions,
                        &uri,
                        client.lists_symbol_kinds,
                        s,
                        None,
                        &mut flat,
                    );
                }
                return Ok(Some(lsp::DocumentSymbolResponse::Flat(flat)));
            }
            let symbols = symbols
                .iter()
                .map(|s| symbol(&positions, client.lists_symbol_kinds, s))
                .collect();
            Ok(Some(lsp::DocumentSymbolResponse::Nested(symbols)))
        })
        .await
}

#[allow(deprecated)] // `deprecated` is a required field of the protocol type
fn symbol(positions: &Positions<'_>, lists_kinds: bool, s: &Symbol) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: s.name.clone(),
        detail: s.detail.clone(),
        kind: kind(s.kind, lists_kinds),
        tags: None,
        deprecated: None,
        range: positions.lsp_range(s.range),
        selection_range: positions.lsp_range(s.selection),
        children: (!s.children.is_empty()).then(|| {
            s.children
                .iter()
                .map(|c| symbol(positions, lists_kinds, c))
                .collect()
        }),
    }
}

/// `s` and its descendants, each named with the symbol it is in.
#[allow(deprecated)] // `deprecated` is a required field of the protocol type
fn flatten(
    positions: &Positions<'_>,
    uri: &lsp::Uri,
    lists_kinds: bool,
    s: &Symbol,
    container: Option<&str>,
    out: &mut Vec<lsp::SymbolInformation>,
) {
    out.push(lsp::SymbolInformation {
        name: s.name.clone(),
        kind: kind(s.kind, lists_kinds),
        tags: None,
        deprecated: None,
        location: lsp::Location::new(uri.clone(), positions.lsp_range(s.range)),
        container_name: container.map(str::to_string),
    });
    for child in &s.children {
        flatten(positions, uri, lists_kinds, child, Some(&s.name), out);
    }
}

/// The protocol's kind of a symbol, among those the client reads: an
/// object is a `Module` and the notice of entries left out a `String` to a
/// client of the first kinds only, as VS Code's JSON server does.
fn kind(kind: SymbolKind, lists_kinds: bool) -> lsp::SymbolKind {
    use lsp::SymbolKind as Kind;
    match kind {
        SymbolKind::Field => Kind::FIELD,
        SymbolKind::Array => Kind::ARRAY,
        SymbolKind::Object if lists_kinds => Kind::OBJECT,
        SymbolKind::Object => Kind::MODULE,
        SymbolKind::Group => Kind::NAMESPACE,
        SymbolKind::Notice if lists_kinds => Kind::NULL,
        SymbolKind::Notice => Kind::STRING,
    }
}

pub async fn folding_range(
    session: &Session,
    analysis: &AnalysisPool,
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
    analysis: &AnalysisPool,
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
