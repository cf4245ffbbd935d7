//! `workspace/symbol`: the entries of every report the server knows, open
//! (from the editor's text) or found on disk, picked by path, class,
//! subtype, op or tier (`report_core::ide::workspace_symbols`), best first.

use report_core::ide::workspace_symbols::symbol_match;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::found_reports::FoundSymbol;
use crate::lsp::services::Services;
use crate::lsp::session::{Session, lock};

/// Symbols answered at most: a query narrows the rest (rust-analyzer's
/// default is 128; entries are many, and their paths alike).
pub const MAX_WORKSPACE_SYMBOLS: usize = 500;

/// A symbol that matched, with its score (lower is better).
struct Picked {
    score: u64,
    name: String,
    detail: String,
    location: lsp::Location,
}

/// The best [`MAX_WORKSPACE_SYMBOLS`], best first (then by file and line).
fn keep_best(picked: &mut Vec<Picked>) {
    picked.sort_by(|a, b| {
        (
            a.score,
            a.location.uri.as_str(),
            a.location.range.start.line,
        )
            .cmp(&(
                b.score,
                b.location.uri.as_str(),
                b.location.range.start.line,
            ))
    });
    picked.truncate(MAX_WORKSPACE_SYMBOLS);
}

pub async fn symbol(
    session: &Session,
    services: &Services,
    params: lsp::WorkspaceSymbolParams,
) -> Result<Option<lsp::WorkspaceSymbolResponse>> {
    let client = session.capabilities();
    let query = params.query;
    let open: Vec<lsp::Uri> = lock(&session.documents).keys().cloned().collect();
    let asked = open.iter().map(|uri| {
        let (uri, query) = (uri.clone(), query.clone());
        let key = uri.clone();
        async move {
            let picked = services
                .analysis
                .query(&key, "workspace/symbol", move |state| {
                    if !state.host.is_report() {
                        return Ok(None);
                    }
                    let positions = state.positions(client.encoding);
                    let picked: Vec<Picked> = state
                        .host
                        .entry_symbols()
                        .into_iter()
                        .filter_map(|s| {
                            let score = symbol_match(&query, &s.name, &s.detail)?;
                            Some(Picked {
                                score,
                                location: lsp::Location::new(
                                    uri.clone(),
                                    positions.lsp_range(s.selection),
                                ),
                                name: s.name,
                                detail: s.detail,
                            })
                        })
                        .collect();
                    Ok(Some(picked))
                })
                .await;
            // Closed meanwhile: the store below has it.
            picked.ok().flatten().unwrap_or_default()
        }
    });
    let mut picked: Vec<Picked> = futures::future::join_all(asked)
        .await
        .into_iter()
        .flatten()
        .collect();
    let open_paths: Vec<std::path::PathBuf> = open
        .iter()
        .filter_map(|uri| uri.to_file_path().map(|p| p.into_owned()))
        .collect();
    // The store's symbols taken under its lock (a clone of an `Arc` a
    // report), matched on a blocking thread: never on the message loop.
    let reports: Vec<(lsp::Uri, std::sync::Arc<Vec<FoundSymbol>>)> =
        services.search.store.read(|state| {
            state
                .reports
                .iter()
                // By path: the client may spell the open one's URI differently.
                .filter(|(_, f)| !f.open && !f.gone && !open_paths.contains(&f.path))
                .map(|(uri, f)| (uri.clone(), f.symbols.clone()))
                .collect()
        });
    let from_disk = tokio::task::spawn_blocking(move || {
        let mut picked = Vec::new();
        for (uri, symbols) in reports {
            picked.extend(symbols.iter().filter_map(|s| {
                Some(Picked {
                    score: symbol_match(&query, &s.name, &s.detail)?,
                    name: s.name.clone(),
                    detail: s.detail.clone(),
                    location: lsp::Location::new(uri.clone(), s.range),
                })
            }));
            // Only the best are answered: the rest need not be kept.
            if picked.len() > 4 * MAX_WORKSPACE_SYMBOLS {
                keep_best(&mut picked);
            }
        }
        picked
    })
    .await
    .unwrap_or_default();
    picked.extend(from_disk);
    keep_best(&mut picked);
    let kind = match client.lists_workspace_symbol_kinds {
        true => lsp::SymbolKind::OBJECT,
        false => lsp::SymbolKind::MODULE,
    };
    #[allow(deprecated)] // `deprecated` is a field of the protocol type
    let symbols = picked
        .into_iter()
        .map(|p| {
            let file = p
                .location
                .uri
                .to_file_path()
                .and_then(|path| path.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            lsp::SymbolInformation {
                name: p.name,
                kind,
                tags: None,
                deprecated: None,
                location: p.location,
                container_name: Some(format!("{file} {}", p.detail)),
            }
        })
        .collect();
    Ok(Some(lsp::WorkspaceSymbolResponse::Flat(symbols)))
}
