//! `initialize` and `initialized`: what is negotiated, and what the server offers.

use tower_lsp_server::ls_types as lsp;

use super::code_action::FIX_ALL_KIND;
use crate::lsp::convert;
use crate::lsp::session::{Negotiated, Session, lock};

pub fn initialize(session: &Session, params: lsp::InitializeParams) -> lsp::InitializeResult {
    let negotiated = Negotiated {
        encoding: convert::negotiate_encoding(&params.capabilities),
        resolves_edits: convert::resolves_edits(&params.capabilities),
    };
    session.negotiate(negotiated);
    lock(&session.settings).apply(params.initialization_options.as_ref());
    lsp::InitializeResult {
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
    }
}

/// The line logged once the client is ready.
pub fn ready_message(session: &Session) -> String {
    format!(
        "report-lsp {} ready ({:?} positions)",
        env!("CARGO_PKG_VERSION"),
        session.negotiated().encoding
    )
}
