//! Go to definition, find references, rename: paths between the shortlist,
//! the entries and the promotion candidates.

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::links;
use crate::lsp::analysis::AnalysisPool;
use crate::lsp::file_links;
use crate::lsp::session::Session;

pub async fn definition(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::GotoDefinitionParams,
) -> Result<Option<lsp::GotoDefinitionResponse>> {
    let at = params.text_document_position_params;
    let encoding = session.capabilities().encoding;
    let uri = at.text_document.uri.clone();
    let found = analysis
        .query(&at.text_document.uri, "definition", move |state| {
            let positions = state.positions(encoding);
            let offset = positions.offset(at.position);
            let locations: Vec<lsp::Location> = state
                .host
                .definition(offset)
                .into_iter()
                .map(|r| lsp::Location::new(uri.clone(), positions.lsp_range(r)))
                .collect();
            // The file the value names, when the workspace root is known.
            let file = links::root(state).and_then(|root| {
                let named = state.host.file_ref_at(offset)?;
                Some((root, named.path, named.lines))
            });
            Ok(Some((locations, file)))
        })
        .await?;
    let Some((mut locations, file)) = found else {
        return Ok(None);
    };
    if let Some((root, path, lines)) = file
        && let Some(Some(uri)) = links::blocking(move || file_links::file_uri(&root, &path)).await
    {
        locations.push(lsp::Location::new(uri, links::lines_range(lines)));
    }
    Ok((!locations.is_empty()).then_some(lsp::GotoDefinitionResponse::Array(locations)))
}

pub async fn references(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::ReferenceParams,
) -> Result<Option<Vec<lsp::Location>>> {
    let at = params.text_document_position;
    let declaration = params.context.include_declaration;
    let encoding = session.capabilities().encoding;
    let uri = at.text_document.uri.clone();
    analysis
        .query(&at.text_document.uri, "references", move |state| {
            let positions = state.positions(encoding);
            let found = state
                .host
                .references(positions.offset(at.position), declaration);
            Ok(Some(
                found
                    .into_iter()
                    .map(|r| lsp::Location::new(uri.clone(), positions.lsp_range(r)))
                    .collect(),
            ))
        })
        .await
}

pub async fn prepare_rename(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::TextDocumentPositionParams,
) -> Result<Option<lsp::PrepareRenameResponse>> {
    let encoding = session.capabilities().encoding;
    analysis
        .query(&params.text_document.uri, "prepareRename", move |state| {
            let positions = state.positions(encoding);
            let Some((range, path)) = state.host.prepare_rename(positions.offset(params.position))
            else {
                return Ok(None);
            };
            Ok(Some(lsp::PrepareRenameResponse::RangeWithPlaceholder {
                range: positions.lsp_range(range),
                placeholder: path,
            }))
        })
        .await
}

pub async fn rename(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::RenameParams,
) -> Result<Option<lsp::WorkspaceEdit>> {
    let at = params.text_document_position;
    let encoding = session.capabilities().encoding;
    let uri: Uri = at.text_document.uri.clone();
    analysis
        .query(&at.text_document.uri, "rename", move |state| {
            let positions = state.positions(encoding);
            let edits = state
                .host
                .rename(positions.offset(at.position), &params.new_name)
                .map_err(Error::invalid_params)?;
            let edits = edits.iter().map(|e| positions.text_edit(e)).collect();
            Ok(Some(lsp::WorkspaceEdit {
                changes: Some(HashMap::from([(uri, edits)])),
                ..Default::default()
            }))
        })
        .await
}
