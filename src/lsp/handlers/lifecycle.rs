//! `initialize` and `initialized`: what is negotiated, and what the server offers.

use tower_lsp_server::ls_types as lsp;

use super::code_action::FIX_ALL_KIND;
use crate::lsp::convert;
use crate::lsp::session::{Negotiated, Session, lock};

/// The answer to `initialize`, and the settings refused from its
/// `initializationOptions` (lines to log).
pub fn initialize(
    session: &Session,
    params: lsp::InitializeParams,
) -> (lsp::InitializeResult, Vec<String>) {
    let text_document = params.capabilities.text_document.as_ref();
    let workspace = params.capabilities.workspace.as_ref();
    let refreshes_diagnostics = workspace
        .and_then(|w| w.diagnostics.as_ref())
        .and_then(|d| d.refresh_support)
        .unwrap_or(false);
    let negotiated = Negotiated {
        encoding: convert::negotiate_encoding(&params.capabilities),
        resolves_edits: convert::resolves_edits(&params.capabilities),
        pulls_configuration: params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.configuration)
            .unwrap_or(false),
        snippets: text_document
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false),
        folding_limit: text_document
            .and_then(|t| t.folding_range.as_ref())
            .and_then(|f| f.range_limit)
            .map(|n| n as usize),
        // Pulled when the client can be told to pull again: the workspace
        // checks' results come later than the analysis a pull answers with.
        // Neovim 0.11 advertises pulls without refreshSupport: pushed to.
        // The setting `pullDiagnostics` decides instead when given: false
        // pushes; true pulls from any client that pulls (what a workspace
        // check finds later then shows at its next pull).
        pull_diagnostics: text_document.is_some_and(|t| t.diagnostic.is_some())
            && params
                .initialization_options
                .as_ref()
                .and_then(|o| o.get("reportLsp").unwrap_or(o).get("pullDiagnostics"))
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(refreshes_diagnostics),
        refresh_diagnostics: refreshes_diagnostics,
        refresh_inlay_hints: workspace
            .and_then(|w| w.inlay_hint.as_ref())
            .and_then(|i| i.refresh_support)
            .unwrap_or(false),
        versioned_edits: convert::takes_document_changes(&params.capabilities),
        work_done_progress: params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
    };
    session.negotiate(negotiated);
    let refused = lock(&session.settings).apply(params.initialization_options.as_ref());
    let result = lsp::InitializeResult {
        capabilities: lsp::ServerCapabilities {
            position_encoding: Some(convert::encoding_kind(negotiated.encoding)),
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
            rename_provider: Some(lsp::OneOf::Right(lsp::RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: Default::default(),
            })),
            document_symbol_provider: Some(lsp::OneOf::Left(true)),
            folding_range_provider: Some(lsp::FoldingRangeProviderCapability::Simple(true)),
            selection_range_provider: Some(lsp::SelectionRangeProviderCapability::Simple(true)),
            inlay_hint_provider: Some(lsp::OneOf::Left(true)),
            diagnostic_provider: negotiated.pull_diagnostics.then(|| {
                lsp::DiagnosticServerCapabilities::Options(lsp::DiagnosticOptions {
                    identifier: Some("report-lsp".into()),
                    inter_file_dependencies: false,
                    workspace_diagnostics: false,
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
            code_action_provider: Some(lsp::CodeActionProviderCapability::Options(
                lsp::CodeActionOptions {
                    code_action_kinds: Some(vec![
                        lsp::CodeActionKind::QUICKFIX,
                        lsp::CodeActionKind::new(FIX_ALL_KIND),
                    ]),
                    resolve_provider: Some(true),
                    ..Default::default()
                },
            )),
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
        session.negotiated().encoding
    )
}
