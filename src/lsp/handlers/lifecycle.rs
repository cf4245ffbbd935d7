//! `initialize` and `initialized`: what is negotiated, and what the server offers.

use tower_lsp_server::ls_types as lsp;

use super::clean_preview::{CLEAN_AUTO_KIND, CLEAN_ENTRY_KIND};
use super::code_action::{APPLY_EDIT_COMMAND, FIX_ALL_KIND};
use super::inlay::DISPLAY_ONLY;
use super::since_head::SHOW_DIFF_SINCE_HEAD;
use super::summary::SUMMARY_COMMAND;
use super::target_documents::SHOW_ENTRY;
use crate::lsp::convert;
use crate::lsp::session::{ResolvedClientCapabilities, Session};

/// The answer to `initialize`, and the settings refused from its
/// `initializationOptions` (lines to log).
pub fn initialize(
    session: &Session,
    params: lsp::InitializeParams,
) -> (lsp::InitializeResult, Vec<String>) {
    let refused = session.apply_settings(params.initialization_options.as_ref());
    let capabilities = ResolvedClientCapabilities::new(&params.capabilities);
    // Read here only: whether the server answers pulls is said once, below.
    let pull_diagnostics = capabilities.pulls_diagnostics(session.settings().pull_diagnostics);
    session.negotiate(capabilities, pull_diagnostics);
    let result = lsp::InitializeResult {
        capabilities: lsp::ServerCapabilities {
            position_encoding: Some(convert::encoding_kind(capabilities.encoding)),
            // The requests of our own, for a client to find: the summary
            // (Markdown by default where the client reads Markdown).
            experimental: Some(serde_json::json!({
                "reportLsp": {
                    "summary": {
                        "method": super::summary::SUMMARY_METHOD,
                        "formats": ["markdown", "text", "html", "json"],
                    },
                },
            })),
            text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(
                lsp::TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
                    // A save rechecks the report against its project.
                    save: Some(lsp::TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                },
            )),
            hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
            completion_provider: Some(lsp::CompletionOptions {
                trigger_characters: Some(vec!["\"".into(), ":".into()]),
                ..Default::default()
            }),
            definition_provider: Some(lsp::OneOf::Left(true)),
            references_provider: Some(lsp::OneOf::Left(true)),
            // RenameOptions only to a client that asks prepareRename first.
            rename_provider: Some(match capabilities.prepare_rename {
                true => lsp::OneOf::Right(lsp::RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: Default::default(),
                }),
                false => lsp::OneOf::Left(true),
            }),
            document_symbol_provider: Some(lsp::OneOf::Left(true)),
            workspace_symbol_provider: Some(lsp::OneOf::Left(true)),
            folding_range_provider: Some(lsp::FoldingRangeProviderCapability::Simple(true)),
            selection_range_provider: Some(lsp::SelectionRangeProviderCapability::Simple(true)),
            inlay_hint_provider: Some(lsp::OneOf::Left(true)),
            diagnostic_provider: pull_diagnostics.then(|| {
                lsp::DiagnosticServerCapabilities::Options(lsp::DiagnosticOptions {
                    identifier: Some("report-lsp".into()),
                    inter_file_dependencies: false,
                    // The reports found in the folders, open or not.
                    workspace_diagnostics: true,
                    work_done_progress_options: Default::default(),
                })
            }),
            document_link_provider: Some(lsp::DocumentLinkOptions {
                resolve_provider: Some(false),
                work_done_progress_options: Default::default(),
            }),
            code_lens_provider: Some(lsp::CodeLensOptions {
                resolve_provider: Some(false),
            }),
            // CodeActionOptions only to a client that reads literals; fixes
            // as commands to one that applies edits; else none.
            code_action_provider: match (
                capabilities.code_action_literals,
                capabilities.applies_edits,
            ) {
                (true, _) => Some(lsp::CodeActionProviderCapability::Options(
                    lsp::CodeActionOptions {
                        code_action_kinds: Some(vec![
                            lsp::CodeActionKind::QUICKFIX,
                            lsp::CodeActionKind::new(FIX_ALL_KIND),
                            lsp::CodeActionKind::new(CLEAN_ENTRY_KIND),
                            lsp::CodeActionKind::new(CLEAN_AUTO_KIND),
                        ]),
                        resolve_provider: Some(capabilities.resolves_edits),
                        ..Default::default()
                    },
                )),
                (false, true) => Some(lsp::CodeActionProviderCapability::Simple(true)),
                (false, false) => None,
            },
            // The comparison with HEAD, the roll-up lens's and the summary always; fixes
            // as commands where code actions are.
            execute_command_provider: Some(lsp::ExecuteCommandOptions {
                commands: [SHOW_DIFF_SINCE_HEAD, DISPLAY_ONLY, SUMMARY_COMMAND]
                    .into_iter()
                    .chain(
                        (!capabilities.code_action_literals && capabilities.applies_edits)
                            .then_some(APPLY_EDIT_COMMAND),
                    )
                    .chain(capabilities.shows_documents.then_some(SHOW_ENTRY))
                    .map(String::from)
                    .collect(),
                work_done_progress_options: Default::default(),
            }),
            // Folders added and removed while the editor runs.
            workspace: Some(lsp::WorkspaceServerCapabilities {
                workspace_folders: Some(lsp::WorkspaceFoldersServerCapabilities {
                    supported: Some(true),
                    change_notifications: Some(lsp::OneOf::Left(true)),
                }),
                file_operations: None,
            }),
            ..Default::default()
        },
        server_info: Some(lsp::ServerInfo {
            name: "report-lsp".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    };
    (result, refused)
}

/// The line logged once the client is ready.
pub fn ready_message(session: &Session) -> String {
    format!(
        "report-lsp {} ready ({:?} positions)",
        env!("CARGO_PKG_VERSION"),
        session.capabilities().encoding
    )
}
