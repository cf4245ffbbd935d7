//! The message loop's face: the `LanguageServer` implementation, one line
//! per message, each handing its parameters to the handler of its feature
//! (`handlers/`), with what it needs: the shared [`Session`] and the
//! handle of each service it uses ([`Services`]: the analysis pool, the
//! project reader, the search). Notifications run under a panic guard and log what
//! they reject.

use std::sync::Arc;

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types as lsp;
use tower_lsp_server::{Client, LanguageServer};

use super::guard::guarded;
use super::handlers;
use super::handlers::target_documents;
use super::services::Services;
use super::session::{Publisher, Refresher, Session};

pub struct Server {
    client: Client,
    session: Arc<Session>,
    services: Services,
}

impl Server {
    pub fn new(
        client: Client,
        notifications: futures::channel::mpsc::UnboundedSender<Vec<u8>>,
        foreground: Arc<super::foreground::Foreground>,
    ) -> Server {
        let refresher = tokio::runtime::Handle::try_current()
            .is_ok()
            .then(|| Refresher::spawn(client.clone()));
        let session = Arc::new(Session::new(
            Publisher(notifications),
            refresher,
            foreground,
        ));
        let progress = tokio::runtime::Handle::try_current().ok().map(|runtime| {
            super::progress::ProgressClient {
                client: client.clone(),
                runtime,
            }
        });
        let services = Services::spawn(session.clone(), progress);
        Server {
            client,
            session,
            services,
        }
    }

    /// `report-lsp/status`.
    pub async fn status(&self, params: lsp::TextDocumentIdentifier) -> Result<serde_json::Value> {
        handlers::status::status(&self.session, &self.services.analysis, params).await
    }

    /// `report-lsp/summary`: the reviewer's view of a whole report.
    pub async fn summary(
        &self,
        params: handlers::summary::SummaryParams,
    ) -> Result<serde_json::Value> {
        let folders = super::session::lock(&self.services.projects.folders).clone();
        handlers::summary::summary(&self.session, &self.services.analysis, folders, params).await
    }

    /// `$/setTrace`: whether the server's log goes to the client as `$/logTrace`.
    pub async fn set_trace(&self, params: lsp::SetTraceParams) {
        super::trace::set_trace(params.value);
    }

    /// Answers a message the transport guard found broken with its error.
    pub async fn invalid_message(&self, params: serde_json::Value) -> Result<()> {
        let code = params
            .get("code")
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(-32700);
        let message = params
            .get("message")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("invalid message");
        Err(Error {
            code: ErrorCode::from(code),
            message: message.to_string().into(),
            data: None,
        })
    }

    /// Logs each refused setting as a warning, where the user looks for it.
    async fn warn(&self, lines: Vec<String>) {
        for line in lines {
            self.client
                .log_message(lsp::MessageType::WARNING, line)
                .await;
        }
    }

    /// Runs a notification's handler under the panic guard and logs what it reports.
    async fn notification(&self, name: &str, handler: impl FnOnce() -> Option<String>) {
        let message = match guarded(name, || Ok(handler())) {
            Ok(None) => return,
            Ok(Some(message)) => message,
            Err(error) => error.message.to_string(),
        };
        self.client
            .log_message(lsp::MessageType::ERROR, message)
            .await;
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: lsp::InitializeParams) -> Result<lsp::InitializeResult> {
        if let Some(trace) = params.trace {
            super::trace::set_trace(trace);
        }
        handlers::watched_files::initialize(&self.services.projects, &params);
        let (result, refused) = handlers::lifecycle::initialize(&self.session, params);
        self.warn(refused).await;
        Ok(result)
    }

    async fn initialized(&self, _: lsp::InitializedParams) {
        let message = handlers::lifecycle::ready_message(&self.session);
        self.client
            .log_message(lsp::MessageType::INFO, message)
            .await;
        let store = self.services.search.store.clone();
        let found_changes = store.subscribe();
        let folders = self.services.projects.folders.clone();
        // The store holds every report under the folders, open ones too.
        let found = move || {
            let folders = super::session::lock(&folders).clone();
            store.read(|state| {
                let reports = state.reports.values().filter(|f| !f.gone);
                let paths = reports.map(|f| f.path.as_path());
                let mut globs = super::watchers::folders_holding(paths, &folders);
                globs.extend(super::watchers::globs_naming(state.named_files()));
                globs
            })
        };
        super::watchers::start(&self.client, &self.session, found, found_changes);
        let refused =
            handlers::configuration::initialized(&self.client, &self.session, &self.services).await;
        self.warn(refused).await;
        // Once the settings are known: they say whether and what to search.
        handlers::watched_files::search(&self.services);
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: lsp::DidOpenTextDocumentParams) {
        let uri = params.text_document.uri.clone();
        self.notification("didOpen", || {
            handlers::text_sync::open(&self.session, &self.services, params)
        })
        .await;
        if target_documents::is_target(&self.session, &uri) {
            // The hints first: the reports' recheck may take a while.
            target_documents::publish_hints(&self.session, &self.services, &uri).await;
            target_documents::edited(&self.services.projects, &uri);
        }
    }

    async fn did_change(&self, params: lsp::DidChangeTextDocumentParams) {
        let uri = params.text_document.uri.clone();
        self.notification("didChange", || {
            handlers::text_sync::change(&self.session, &self.services.analysis, params)
        })
        .await;
        if target_documents::is_target(&self.session, &uri) {
            // The hints first: the reports' recheck may take a while.
            target_documents::publish_hints(&self.session, &self.services, &uri).await;
            target_documents::edited(&self.services.projects, &uri);
        }
    }

    async fn did_close(&self, params: lsp::DidCloseTextDocumentParams) {
        self.notification("didClose", || {
            handlers::text_sync::close(&self.session, &self.services, params)
        })
        .await
    }

    async fn did_save(&self, params: lsp::DidSaveTextDocumentParams) {
        self.notification("didSave", || {
            handlers::watched_files::saved(&self.session, &self.services, params)
        })
        .await
    }

    async fn did_change_watched_files(&self, params: lsp::DidChangeWatchedFilesParams) {
        self.notification("didChangeWatchedFiles", || {
            handlers::watched_files::changed(&self.session, &self.services, params)
        })
        .await
    }

    async fn did_change_workspace_folders(&self, params: lsp::DidChangeWorkspaceFoldersParams) {
        self.notification("didChangeWorkspaceFolders", || {
            handlers::watched_files::folders_changed(&self.session, &self.services, params)
        })
        .await;
        let refused =
            handlers::configuration::folders_changed(&self.client, &self.session, &self.services)
                .await;
        self.warn(refused).await;
    }

    async fn did_change_configuration(&self, params: lsp::DidChangeConfigurationParams) {
        let refused =
            handlers::configuration::changed(&self.client, &self.session, &self.services, params)
                .await;
        self.warn(refused).await;
    }

    async fn hover(&self, params: lsp::HoverParams) -> Result<Option<lsp::Hover>> {
        let at = &params.text_document_position_params;
        if target_documents::is_target(&self.session, &at.text_document.uri) {
            let (uri, position) = (&at.text_document.uri, at.position);
            return target_documents::hover(&self.session, &self.services, uri, position).await;
        }
        handlers::hover::hover(&self.session, &self.services.analysis, params).await
    }

    async fn code_action(
        &self,
        params: lsp::CodeActionParams,
    ) -> Result<Option<lsp::CodeActionResponse>> {
        handlers::code_action::code_action(&self.session, &self.services.analysis, params).await
    }

    async fn code_action_resolve(&self, action: lsp::CodeAction) -> Result<lsp::CodeAction> {
        handlers::code_action::resolve(&self.session, &self.services.analysis, action).await
    }

    async fn execute_command(
        &self,
        params: lsp::ExecuteCommandParams,
    ) -> Result<Option<lsp::LSPAny>> {
        match params.command.as_str() {
            handlers::since_head::SHOW_DIFF_SINCE_HEAD => {
                handlers::since_head::show(&self.services.analysis, params).await
            }
            target_documents::SHOW_ENTRY => {
                target_documents::show_entry(&self.client, params).await
            }
            handlers::inlay::DISPLAY_ONLY => Ok(None),
            handlers::summary::SUMMARY_COMMAND => {
                let folders = super::session::lock(&self.services.projects.folders).clone();
                handlers::summary::command(&self.session, &self.services.analysis, folders, params)
                    .await
            }
            handlers::code_action::APPLY_EDIT_COMMAND => {
                handlers::code_action::execute_command(&self.session, &self.client, params).await
            }
            // Not one the server lists: nothing runs, and the client's user
            // gets no error for a click (the log says why nothing happened).
            other => {
                tracing::warn!(
                    command = other,
                    "the server has no such command: nothing was run"
                );
                Ok(None)
            }
        }
    }

    async fn completion(
        &self,
        params: lsp::CompletionParams,
    ) -> Result<Option<lsp::CompletionResponse>> {
        handlers::completion::completion(&self.session, &self.services.analysis, params).await
    }

    async fn goto_definition(
        &self,
        params: lsp::GotoDefinitionParams,
    ) -> Result<Option<lsp::GotoDefinitionResponse>> {
        let at = &params.text_document_position_params;
        if target_documents::is_target(&self.session, &at.text_document.uri) {
            let (uri, position) = (&at.text_document.uri, at.position);
            return target_documents::definition(&self.session, &self.services, uri, position)
                .await;
        }
        handlers::navigation::definition(&self.session, &self.services.analysis, params).await
    }

    async fn references(&self, params: lsp::ReferenceParams) -> Result<Option<Vec<lsp::Location>>> {
        handlers::navigation::references(&self.session, &self.services.analysis, params).await
    }

    async fn prepare_rename(
        &self,
        params: lsp::TextDocumentPositionParams,
    ) -> Result<Option<lsp::PrepareRenameResponse>> {
        handlers::navigation::prepare_rename(&self.session, &self.services.analysis, params).await
    }

    async fn rename(&self, params: lsp::RenameParams) -> Result<Option<lsp::WorkspaceEdit>> {
        handlers::navigation::rename(&self.session, &self.services.analysis, params).await
    }

    async fn document_symbol(
        &self,
        params: lsp::DocumentSymbolParams,
    ) -> Result<Option<lsp::DocumentSymbolResponse>> {
        handlers::outline::document_symbol(&self.session, &self.services.analysis, params).await
    }

    async fn folding_range(
        &self,
        params: lsp::FoldingRangeParams,
    ) -> Result<Option<Vec<lsp::FoldingRange>>> {
        handlers::outline::folding_range(&self.session, &self.services.analysis, params).await
    }

    async fn selection_range(
        &self,
        params: lsp::SelectionRangeParams,
    ) -> Result<Option<Vec<lsp::SelectionRange>>> {
        handlers::outline::selection_range(&self.session, &self.services.analysis, params).await
    }

    async fn inlay_hint(
        &self,
        params: lsp::InlayHintParams,
    ) -> Result<Option<Vec<lsp::InlayHint>>> {
        handlers::inlay::inlay_hint(&self.session, &self.services.analysis, params).await
    }

    async fn diagnostic(
        &self,
        params: lsp::DocumentDiagnosticParams,
    ) -> Result<lsp::DocumentDiagnosticReportResult> {
        let uri = &params.text_document.uri;
        if target_documents::is_target(&self.session, uri) {
            return target_documents::pulled_hints(&self.session, &self.services, uri).await;
        }
        handlers::diagnostic::diagnostic(&self.session, &self.services, params).await
    }

    async fn workspace_diagnostic(
        &self,
        params: lsp::WorkspaceDiagnosticParams,
    ) -> Result<lsp::WorkspaceDiagnosticReportResult> {
        handlers::diagnostic::workspace_diagnostic(&self.session, &self.services.search, params)
            .await
    }

    async fn symbol(
        &self,
        params: lsp::WorkspaceSymbolParams,
    ) -> Result<Option<lsp::WorkspaceSymbolResponse>> {
        handlers::workspace_symbol::symbol(&self.session, &self.services, params).await
    }

    async fn document_link(
        &self,
        params: lsp::DocumentLinkParams,
    ) -> Result<Option<Vec<lsp::DocumentLink>>> {
        handlers::links::document_link(&self.session, &self.services.analysis, params).await
    }

    async fn code_lens(&self, params: lsp::CodeLensParams) -> Result<Option<Vec<lsp::CodeLens>>> {
        let uri = &params.text_document.uri;
        if target_documents::is_target(&self.session, uri) {
            return target_documents::code_lens(&self.session, &self.services, uri).await;
        }
        handlers::inlay::code_lens(&self.session, &self.services.analysis, params).await
    }
}
