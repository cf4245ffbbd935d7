//! Code actions: the quick fixes of the diagnostics under the cursor, and
//! fix-all as a source action (its edit worked out on `codeAction/resolve`
//! when the client can, since it analyses the whole text). A client that
//! reads no `CodeAction` literals gets each as a `Command` that applies its
//! edit through `workspace/applyEdit`, or, if it applies no edits, nothing.

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::{self as lsp, Uri};

use report_core::project_checks::WorkspaceFacts;

use super::clean_preview::{self, CLEAN_AUTO_KIND, CLEAN_ENTRY_KIND, OpenTexts, Overlay};
use crate::lsp::analysis::{AnalysisPool, DocState};
use crate::lsp::session::{ResolvedClientCapabilities, Session, lock};

/// The kind of the fix-all source action.
pub const FIX_ALL_KIND: &str = "source.fixAll.report-lsp";

/// The title of the whole report's clean.
const CLEAN_AUTO_TITLE: &str = "Clean every entry that derives auto now";

/// The command of a fix offered as a `Command`: its argument is an
/// [`EditOffered`].
pub const APPLY_EDIT_COMMAND: &str = "report-lsp.applyEdit";

/// What a fix offered as a `Command` carries: its edit, and the generation
/// of the text it was made for, since the client applies it later.
#[derive(serde::Serialize, serde::Deserialize)]
struct EditOffered {
    uri: Uri,
    generation: u64,
    edit: lsp::WorkspaceEdit,
}

/// What an action offered without its edit carries, to resolve it: the
/// document and the generation of the text it was offered for.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "resolve", rename_all = "camelCase")]
enum ToResolve {
    FixAll { uri: Uri, generation: u64 },
    CleanAuto { uri: Uri, generation: u64 },
}

/// Whether a request whose `only` is `only` wants actions of `kind`.
fn wanted(only: Option<&Vec<lsp::CodeActionKind>>, kind: &str) -> bool {
    only.is_none_or(|only| {
        only.iter()
            .any(|k| kind == k.as_str() || kind.starts_with(&format!("{}.", k.as_str())))
    })
}

pub async fn code_action(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::CodeActionParams,
) -> Result<Option<lsp::CodeActionResponse>> {
    let client = session.capabilities();
    if !client.code_action_literals && !client.applies_edits {
        return Ok(None);
    }
    let uri = params.text_document.uri.clone();
    let only = params.context.only.as_ref();
    let cleans = wanted(only, CLEAN_ENTRY_KIND) || wanted(only, CLEAN_AUTO_KIND);
    // The target documents' texts, for the clean's edit, taken before the query.
    let open = cleans.then(|| OpenTexts::of(session, &uri));
    analysis
        .query(&uri, "codeAction", move |state| {
            let positions = state.positions(client.encoding);
            let uri = &params.text_document.uri;
            let wants = |kind: &str| wanted(params.context.only.as_ref(), kind);
            // A literal, or the command that applies its edit.
            let offer = |action: lsp::CodeAction| match client.code_action_literals {
                // Only a literal can say why it is disabled.
                _ if action.disabled.is_some() && !client.code_action_literals => None,
                true => Some(lsp::CodeActionOrCommand::CodeAction(action)),
                false => {
                    let offered = EditOffered {
                        uri: uri.clone(),
                        generation: state.generation,
                        edit: action.edit.unwrap_or_default(),
                    };
                    Some(lsp::CodeActionOrCommand::Command(lsp::Command {
                        title: action.title,
                        command: APPLY_EDIT_COMMAND.into(),
                        arguments: serde_json::to_value(offered).ok().map(|a| vec![a]),
                    }))
                }
            };
            let mut actions = Vec::new();
            if wants(lsp::CodeActionKind::QUICKFIX.as_str()) {
                for quick in state.host.quick_fixes(positions.range(params.range)) {
                    let fix = quick.fix();
                    let edits = fix.edits.iter().map(|e| positions.text_edit(e));
                    let diagnostic =
                        positions.diagnostic(uri, &quick.diagnostic, client.related_information);
                    actions.extend(offer(lsp::CodeAction {
                        title: fix.title.clone(),
                        kind: Some(lsp::CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![diagnostic]),
                        edit: Some(workspace_edit(
                            uri,
                            client.versioned_edits.then_some(state.version),
                            edits.collect(),
                        )),
                        is_preferred: client.preferred_actions.then_some(fix.preferred),
                        ..Default::default()
                    }));
                }
            }
            // Only a literal is resolved; a command carries its edit.
            let lazily = client.resolves_edits && client.code_action_literals;
            if wants(FIX_ALL_KIND) && state.host.can_fix_all() {
                let mut action = lsp::CodeAction {
                    title: "Fix all unambiguous report problems".into(),
                    kind: Some(lsp::CodeActionKind::new(FIX_ALL_KIND)),
                    ..Default::default()
                };
                if lazily {
                    let target = ToResolve::FixAll {
                        uri: uri.clone(),
                        generation: state.generation,
                    };
                    action.data = serde_json::to_value(target).ok();
                    actions.extend(offer(action));
                } else if let Some(edit) = fix_all_edit(state, client, uri) {
                    action.edit = Some(edit);
                    actions.extend(offer(action));
                }
            }
            let (Some(open), Some(workspace)) = (&open, &state.workspace) else {
                return Ok(Some(actions));
            };
            let Some(overlay) = Overlay::new(open, workspace) else {
                return Ok(Some(actions));
            };
            if wants(CLEAN_ENTRY_KIND) {
                let offset = positions.offset(params.range.start);
                let clean = state.host.clean_at(offset, overlay.targets(workspace));
                let action = clean.and_then(|clean| {
                    clean_preview::entry_action(&clean, &overlay, workspace, client)
                });
                actions.extend(action.and_then(offer));
            }
            // Offered where some entry may derive auto; worked out when chosen.
            if wants(CLEAN_AUTO_KIND) && state.host.may_clean_auto() {
                // Named by its kind or `source.clean`, not `source` alone.
                let only_this = params.context.only.as_ref().is_some_and(|only| {
                    only.iter().any(|k| {
                        k.as_str() != "source" && wanted(Some(&vec![k.clone()]), CLEAN_AUTO_KIND)
                    })
                });
                if lazily {
                    let mut action = lsp::CodeAction {
                        title: CLEAN_AUTO_TITLE.into(),
                        kind: Some(lsp::CodeActionKind::new(CLEAN_AUTO_KIND)),
                        ..Default::default()
                    };
                    let target = ToResolve::CleanAuto {
                        uri: uri.clone(),
                        generation: state.generation,
                    };
                    action.data = serde_json::to_value(target).ok();
                    actions.extend(offer(action));
                } else if only_this {
                    // Without resolve, the whole report is cleaned only when asked for by kind.
                    let edit = clean_auto_edit(state, &overlay, workspace, client);
                    let action = clean_preview::action(
                        CLEAN_AUTO_TITLE.into(),
                        CLEAN_AUTO_KIND,
                        edit,
                        client,
                    );
                    actions.extend(action.and_then(offer));
                }
            }
            Ok(Some(actions))
        })
        .await
}

/// `workspace/executeCommand` of [`APPLY_EDIT_COMMAND`]: sends the fix's
/// edit to the client to apply, if its text is still the one it was made for.
///
/// A "command" here is a name, never a program: each name is compared as
/// a constant (`server.rs`) and this one's argument is only data, an edit the server made,
/// handed back to the client. Nothing a client, a report, the project or
/// its git config names is started or looked up on `PATH`; the server
/// starts no process at all (`tests/architecture.rs`,
/// `nothing_shipped_starts_a_process`).
pub async fn execute_command(
    session: &Session,
    client: &tower_lsp_server::Client,
    params: lsp::ExecuteCommandParams,
) -> Result<Option<serde_json::Value>> {
    let offered = params
        .arguments
        .first()
        .and_then(|a| serde_json::from_value::<EditOffered>(a.clone()).ok())
        .ok_or_else(|| Error::invalid_params("the command's argument is not a fix offered"))?;
    let current = lock(&session.documents)
        .get(&offered.uri)
        .map(|d| d.generation);
    match current {
        None => return Err(content_modified("the document is not open")),
        Some(generation) if generation != offered.generation => {
            return Err(content_modified(
                "the document changed since the fix was offered",
            ));
        }
        Some(_) => {}
    }
    match client.apply_edit(offered.edit).await {
        Ok(applied) if applied.applied => Ok(None),
        Ok(applied) => {
            Err(failed(applied.failure_reason.unwrap_or_else(|| {
                "the editor did not apply the fix".into()
            })))
        }
        // The client's own error answers the server's request, not the command.
        Err(error) => Err(failed(format!(
            "the editor refused the fix: {}",
            error.message
        ))),
    }
}

/// Fills in the edit of a fix-all action offered for a generation that is still current.
pub async fn resolve(
    session: &Session,
    analysis: &AnalysisPool,
    action: lsp::CodeAction,
) -> Result<lsp::CodeAction> {
    let target = action
        .data
        .as_ref()
        .and_then(|data| serde_json::from_value::<ToResolve>(data.clone()).ok());
    let Some(target) = target else {
        // Nothing of ours to resolve: the action is complete as it is.
        return Ok(action);
    };
    let client = session.capabilities();
    let (uri, generation) = match &target {
        ToResolve::FixAll { uri, generation } | ToResolve::CleanAuto { uri, generation } => {
            (uri.clone(), *generation)
        }
    };
    let open = matches!(target, ToResolve::CleanAuto { .. }).then(|| OpenTexts::of(session, &uri));
    let query_uri = uri.clone();
    let resolved = analysis
        .query(&query_uri, "codeActionResolve", move |state| {
            if state.generation != generation {
                return Err(content_modified(
                    "the document changed since the action was offered",
                ));
            }
            let Some(open) = open else {
                let edit = fix_all_edit(state, client, &uri);
                return Ok(Some(lsp::CodeAction { edit, ..action }));
            };
            let overlay = state
                .workspace
                .as_ref()
                .and_then(|workspace| Some((Overlay::new(&open, workspace)?, workspace)));
            let Some((overlay, workspace)) = overlay else {
                return Err(failed("the project's files are not read yet".into()));
            };
            let edit = clean_auto_edit(state, &overlay, workspace, client).map_err(failed)?;
            Ok(Some(lsp::CodeAction {
                edit: Some(edit),
                ..action
            }))
        })
        .await?;
    resolved.ok_or_else(|| content_modified("the document is not in sync with the editor"))
}

/// RequestFailed (LSP 3.17), which the jsonrpc crate does not name.
fn failed(why: String) -> Error {
    Error {
        code: ErrorCode::from(-32803),
        message: why.into(),
        data: None,
    }
}

/// The edit of the whole report's clean of its `auto` entries, or why
/// there is none.
fn clean_auto_edit(
    state: &DocState,
    overlay: &Overlay<'_>,
    workspace: &WorkspaceFacts,
    client: ResolvedClientCapabilities,
) -> std::result::Result<lsp::WorkspaceEdit, String> {
    let (combined, taken) = state.host.clean_auto(overlay.targets(workspace));
    if taken.is_empty() {
        let mut why =
            "no entry derives auto with the live facts and can be cleaned now".to_string();
        if let Some((index, reason)) = combined.left_out.first() {
            why.push_str(&format!(" (entries[{index}] is left out: {reason})"));
        }
        return Err(why);
    }
    let left_out = combined.left_out.len();
    clean_preview::auto_edit(
        &combined.changes,
        &taken,
        left_out,
        overlay,
        workspace,
        client,
    )
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
