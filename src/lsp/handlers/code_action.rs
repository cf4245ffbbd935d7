//! Code actions: the quick fixes of the diagnostics under the cursor, and
//! fix-all as a source action (its edit worked out on `codeAction/resolve`
//! when the client can, since it analyses the whole text).

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::{self as lsp, Uri};

use crate::lsp::analysis::{AnalysisThread, DocState};
use crate::lsp::session::{ResolvedClientCapabilities, Session};

/// The kind of the fix-all source action.
pub const FIX_ALL_KIND: &str = "source.fixAll.report-lsp";

/// What a fix-all action offered without its edit carries, to resolve it.
#[derive(serde::Serialize, serde::Deserialize)]
struct FixAllTarget {
    uri: Uri,
    generation: u64,
}

pub async fn code_action(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::CodeActionParams,
) -> Result<Option<lsp::CodeActionResponse>> {
    let client = session.capabilities();
    let uri = params.text_document.uri.clone();
    analysis
        .query(&uri, "codeAction", move |state| {
            let positions = state.positions(client.encoding);
            let uri = &params.text_document.uri;
            let wants = |kind: &str| {
                params.context.only.as_ref().is_none_or(|only| {
                    only.iter().any(|k| {
                        kind == k.as_str() || kind.starts_with(&format!("{}.", k.as_str()))
                    })
                })
            };
            let mut actions = Vec::new();
            if wants(lsp::CodeActionKind::QUICKFIX.as_str()) {
                for quick in state.host.quick_fixes(positions.range(params.range)) {
                    let fix = quick.fix();
                    let edits = fix.edits.iter().map(|e| positions.text_edit(e));
                    actions.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                        title: fix.title.clone(),
                        kind: Some(lsp::CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![positions.diagnostic(uri, &quick.diagnostic)]),
                        edit: Some(workspace_edit(
                            uri,
                            client.versioned_edits.then_some(state.version),
                            edits.collect(),
                        )),
                        is_preferred: Some(fix.preferred),
                        ..Default::default()
                    }));
                }
            }
            if !wants(FIX_ALL_KIND) || !state.host.can_fix_all() {
                return Ok(Some(actions));
            }
            let mut action = lsp::CodeAction {
                title: "Fix all unambiguous report problems".into(),
                kind: Some(lsp::CodeActionKind::new(FIX_ALL_KIND)),
                ..Default::default()
            };
            if client.resolves_edits {
                let target = FixAllTarget {
                    uri: uri.clone(),
                    generation: state.generation,
                };
                action.data = serde_json::to_value(target).ok();
                actions.push(lsp::CodeActionOrCommand::CodeAction(action));
            } else if let Some(edit) = fix_all_edit(state, client, uri) {
                action.edit = Some(edit);
                actions.push(lsp::CodeActionOrCommand::CodeAction(action));
            }
            Ok(Some(actions))
        })
        .await
}

/// Fills in the edit of a fix-all action offered for a generation that is still current.
pub async fn resolve(
    session: &Session,
    analysis: &AnalysisThread,
    action: lsp::CodeAction,
) -> Result<lsp::CodeAction> {
    let target = action
        .data
        .as_ref()
        .and_then(|data| serde_json::from_value::<FixAllTarget>(data.clone()).ok());
    let Some(target) = target else {
        // Nothing of ours to resolve: the action is complete as it is.
        return Ok(action);
    };
    let client = session.capabilities();
    let uri = target.uri.clone();
    let resolved = analysis
        .query(&uri, "codeActionResolve", move |state| {
            if state.generation != target.generation {
                return Err(content_modified(
                    "the document changed since the action was offered",
                ));
            }
            let edit = fix_all_edit(state, client, &target.uri);
            Ok(Some(lsp::CodeAction { edit, ..action }))
        })
        .await?;
    resolved.ok_or_else(|| content_modified("the document is not in sync with the editor"))
}

fn content_modified(message: &'static str) -> Error {
    Error {
        code: ErrorCode::ContentModified,
        message: message.into(),
        data: None,
    }
}

fn fix_all_edit(
    state: &DocState,
    client: ResolvedClientCapabilities,
    uri: &Uri,
) -> Option<lsp::WorkspaceEdit> {
    let edit = state.host.fix_all()?;
    Some(workspace_edit(
        uri,
        client.versioned_edits.then_some(state.version),
        vec![state.positions(client.encoding).text_edit(&edit)],
    ))
}

/// `edits` to `uri`: tied to `version` (`documentChanges`) when the client
/// takes them, so that a fix offered before a later edit is refused by the
/// client rather than applied to text it no longer fits; plain `changes`
/// otherwise.
fn workspace_edit(
    uri: &Uri,
    version: Option<i32>,
    edits: Vec<lsp::TextEdit>,
) -> lsp::WorkspaceEdit {
    match version {
        Some(version) => lsp::WorkspaceEdit {
            document_changes: Some(lsp::DocumentChanges::Edits(vec![lsp::TextDocumentEdit {
                text_document: lsp::OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version: Some(version),
                },
                edits: edits.into_iter().map(lsp::OneOf::Left).collect(),
            }])),
            ..Default::default()
        },
        None => lsp::WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..Default::default()
        },
    }
}
