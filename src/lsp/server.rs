//! The language server's handlers: they translate. Changes are applied to
//! the document store under a plain mutex before any `.await`, then handed
//! to the analysis thread ([`super::worker`]), which publishes diagnostics in
//! version order and answers the requests that read an analysis.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::{self as lsp, Uri};
use tower_lsp_server::{Client, LanguageServer};

use super::convert::{self, Positions};
use super::document::Document;
use super::worker::{self, DocState, Job, Lookup, Message, Publisher, Query};
use report_core::fix;
use report_core::selection::{DEFAULT_REPORT_GLOBS, ReportGlobs};
use report_core::text::Encoding;

/// The kind of the fix-all source action.
pub const FIX_ALL_KIND: &str = "source.fixAll.report-lsp";

pub struct Server {
    client: Client,
    documents: Arc<Mutex<HashMap<Uri, Entry>>>,
    settings: Arc<Mutex<Settings>>,
    messages: mpsc::Sender<Message>,
    /// The same ordered queue the analysis thread publishes through.
    publish: Publisher,
}

pub struct Settings {
    pub encoding: Encoding,
    globs: ReportGlobs,
    /// Diagnostics published per document at most; one summary stands for the rest.
    pub max_diagnostics: usize,
    /// Documents larger than this get one diagnostic instead of an analysis.
    pub max_document_bytes: usize,
    /// Whether the client resolves a code action's edit lazily (`codeAction/resolve`).
    resolves_edits: bool,
}

/// Well above the largest reports served (50 000 entries are about 42 MB),
/// well below what would exhaust a workstation.
const DEFAULT_MAX_DOCUMENT_BYTES: usize = 128 << 20;

/// Enough to fix a broken report, few enough that a report with thousands of
/// problems stays responsive.
const DEFAULT_MAX_DIAGNOSTICS: usize = 1000;

pub struct Entry {
    pub document: Document,
    /// Counts the texts this document has had. Freshness is judged by it, not
    /// by the client's version, which a client may repeat or send backwards.
    pub generation: u64,
    /// Whether the diagnostics last published for it were non-empty.
    pub published: bool,
}

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock is caught and reported; the data stays usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `f`, turning a panic into an internal-error reply and a log line.
fn guarded<T>(name: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let f = || {
        inject_fault(name);
        f()
    };
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            eprintln!("report-lsp: {name} panicked: {message}");
            Err(Error {
                code: tower_lsp_server::jsonrpc::ErrorCode::InternalError,
                message: format!("report-lsp: {name} failed: {message}").into(),
                data: None,
            })
        }
    }
}

/// Debug builds panic in the handler named by `REPORT_LSP_PANIC_IN`, so tests
/// can prove a panic is contained. Release builds never do.
fn inject_fault(name: &str) {
    if cfg!(debug_assertions) && std::env::var("REPORT_LSP_PANIC_IN").is_ok_and(|v| v == name) {
        panic!("injected fault in {name}");
    }
}

impl Server {
    pub fn new(
        client: Client,
        notifications: futures::channel::mpsc::UnboundedSender<Vec<u8>>,
    ) -> Server {
        let documents = Arc::new(Mutex::new(HashMap::new()));
        let settings = Arc::new(Mutex::new(Settings {
            encoding: Encoding::Utf16,
            globs: ReportGlobs::default(),
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            resolves_edits: false,
        }));
        let (messages, message_rx) = mpsc::channel();
        let publish = Publisher(notifications);
        let (worker_documents, worker_settings, worker_publish) =
            (documents.clone(), settings.clone(), publish.clone());
        std::thread::Builder::new()
            .name("analysis".into())
            .stack_size(report_core::ANALYSIS_STACK_BYTES)
            .spawn(move || {
                worker::run(
                    message_rx,
                    worker_documents,
                    worker_settings,
                    worker_publish,
                )
            })
            .expect("the analysis thread starts");
        Server {
            client,
            documents,
            settings,
            messages,
            publish,
        }
    }

    fn encoding(&self) -> Encoding {
        lock(&self.settings).encoding
    }

    /// Queues the document's current text for analysis: `edits` (in bytes)
    /// lead from the previous generation to it; None asks for a full analysis.
    fn schedule(
        &self,
        uri: &Uri,
        entry: &mut Entry,
        edits: Option<Vec<super::document::ByteEdit>>,
        text: Option<String>,
    ) {
        let name_matches = lock(&self.settings).globs.matches(&convert::uri_path(uri));
        entry.generation += 1;
        let _ = self.messages.send(Message::Analyze(Job {
            uri: uri.clone(),
            base: entry.generation - 1,
            generation: entry.generation,
            version: entry.document.version,
            rope: entry.document.rope.clone(),
            edits,
            text,
            name_matches,
        }));
    }

    /// Runs `f` on the analysis thread with `uri`'s state, after every change
    /// sent before, and waits for its answer. `name` is the request's, for
    /// fault reports.
    async fn query<T: Send + 'static>(
        &self,
        uri: &Uri,
        name: &'static str,
        f: impl FnOnce(&mut DocState) -> Result<Option<T>> + Send + 'static,
    ) -> Result<Option<T>> {
        let (reply, answer) = oneshot::channel();
        let document = uri.clone();
        let run = move |lookup: Lookup<'_>| {
            let result = match lookup {
                Lookup::NotOpen => Err(Error::invalid_params(format!(
                    "document not open: {}",
                    document.as_str()
                ))),
                Lookup::Unknown => Ok(None),
                Lookup::Current(state) => guarded(name, || f(state)),
            };
            let _ = reply.send(result);
        };
        let query = Query {
            uri: uri.clone(),
            run: Box::new(run),
        };
        if self.messages.send(Message::Query(query)).is_err() {
            return Err(Error::internal_error());
        }
        answer
            .await
            .unwrap_or_else(|_| Err(Error::internal_error()))
    }

    /// `report-lsp/status`: how a document is being analysed, for users
    /// wondering about speed and for tests checking which path was taken.
    pub async fn status(&self, params: lsp::TextDocumentIdentifier) -> Result<serde_json::Value> {
        let status = self
            .query(&params.uri, "status", |state| {
                Ok(Some(serde_json::json!({
                    "bytes": state.rope.len_bytes(),
                    "isReport": state.is_report,
                    "entries": state.incremental.as_ref().map(|i| i.entries().len()),
                    "incremental": state.incremental.is_some(),
                    "incrementalUpdates": state.incremental_updates,
                    "fullAnalyses": state.full_analyses,
                })))
            })
            .await?;
        Ok(status.unwrap_or(serde_json::Value::Null))
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
            code: tower_lsp_server::jsonrpc::ErrorCode::from(code),
            message: message.to_string().into(),
            data: None,
        })
    }

    fn open_document(&self, params: lsp::DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let mut documents = lock(&self.documents);
        let entry = documents.entry(doc.uri.clone()).or_insert_with(|| Entry {
            document: Document::new("", doc.version),
            generation: 0,
            published: false,
        });
        entry.document = Document::new(&doc.text, doc.version);
        // The text the editor sent becomes the job's: no second copy of a huge report.
        self.schedule(&doc.uri, entry, None, Some(doc.text));
    }

    /// Applies the changes in order, under the lock and before any `.await`
    /// of the handler, so that later changes cannot overtake them. Returns
    /// what to log when something was rejected.
    fn change_document(&self, params: lsp::DidChangeTextDocumentParams) -> Option<String> {
        let encoding = self.encoding();
        let uri = params.text_document.uri;
        let mut documents = lock(&self.documents);
        let Some(entry) = documents.get_mut(&uri) else {
            return Some(format!(
                "didChange for a document that is not open: {}",
                uri.as_str()
            ));
        };
        entry.document.version = params.text_document.version;
        let mut failure = None;
        // The byte edits, while every change so far was one.
        let mut edits = Some(Vec::new());
        for change in params.content_changes {
            if entry.document.out_of_sync && change.range.is_some() {
                continue;
            }
            let range = change
                .range
                .map(|r| (convert::line_col(r.start), convert::line_col(r.end)));
            match entry.document.apply_change(range, &change.text, encoding) {
                Ok(Some(edit)) => edits.iter_mut().for_each(|e| e.push(edit)),
                Ok(None) => edits = None,
                Err(error) => {
                    edits = None;
                    if !entry.document.out_of_sync {
                        // Analyses still queued are of a text we no longer trust: make them stale.
                        entry.generation += 1;
                        // The diagnostics on screen point into a text we no longer have: replace them.
                        self.publish.publish(
                            uri.clone(),
                            Some(entry.document.version),
                            vec![out_of_sync_diagnostic(&error)],
                        );
                        entry.published = true;
                    }
                    entry.document.out_of_sync = true;
                    failure = Some(format!(
                        "rejected a change to {}: {error}; the document is out of sync until the editor sends its full text (reopen it)",
                        uri.as_str()
                    ));
                }
            }
        }
        if !entry.document.out_of_sync {
            self.schedule(&uri, entry, edits, None);
        }
        failure
    }

    fn close_document(&self, uri: Uri) {
        let mut documents = lock(&self.documents);
        let removed = documents.remove(&uri);
        if removed.as_ref().is_some_and(|e| e.published) {
            // Queued behind any publication for it, so nothing reappears after the clear.
            self.publish.publish(uri.clone(), None, Vec::new());
        }
        let _ = self.messages.send(Message::Close(uri));
        drop(documents);
        drop(removed);
        release_memory();
    }

    async fn log_problem(&self, problem: Result<Option<String>>) {
        let message = match problem {
            Ok(None) => return,
            Ok(Some(message)) => message,
            Err(error) => error.message.to_string(),
        };
        self.client
            .log_message(lsp::MessageType::ERROR, message)
            .await;
    }

    fn apply_settings(&self, value: Option<&serde_json::Value>) {
        let files = value
            .and_then(|v| v.get("reportLsp").unwrap_or(v).get("files"))
            .and_then(|f| f.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|p| p.as_str().map(str::to_string))
                    .collect::<Vec<_>>()
            });
        let patterns =
            files.unwrap_or_else(|| DEFAULT_REPORT_GLOBS.iter().map(|s| s.to_string()).collect());
        match ReportGlobs::new(&patterns) {
            Ok(globs) => lock(&self.settings).globs = globs,
            Err(error) => {
                eprintln!("report-lsp: ignoring invalid file globs {patterns:?}: {error}")
            }
        }
        let max = value
            .and_then(|v| v.get("reportLsp").unwrap_or(v).get("maxDiagnostics"))
            .and_then(|m| m.as_u64());
        lock(&self.settings).max_diagnostics = max.map_or(DEFAULT_MAX_DIAGNOSTICS, |m| m as usize);
        let max_bytes = value
            .and_then(|v| v.get("reportLsp").unwrap_or(v).get("maxDocumentBytes"))
            .and_then(|m| m.as_u64());
        lock(&self.settings).max_document_bytes =
            max_bytes.map_or(DEFAULT_MAX_DOCUMENT_BYTES, |m| m as usize);
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: lsp::InitializeParams) -> Result<lsp::InitializeResult> {
        let encoding = convert::negotiate_encoding(&params.capabilities);
        lock(&self.settings).encoding = encoding;
        lock(&self.settings).resolves_edits = convert::resolves_edits(&params.capabilities);
        self.apply_settings(params.initialization_options.as_ref());
        Ok(lsp::InitializeResult {
            capabilities: lsp::ServerCapabilities {
                position_encoding: Some(convert::encoding_kind(encoding)),
                text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(
                    lsp::TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
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
        })
    }

    async fn initialized(&self, _: lsp::InitializedParams) {
        let message = format!(
            "report-lsp {} ready ({:?} positions)",
            env!("CARGO_PKG_VERSION"),
            self.encoding()
        );
        self.client
            .log_message(lsp::MessageType::INFO, message)
            .await;
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: lsp::DidOpenTextDocumentParams) {
        let problem = guarded("didOpen", || {
            self.open_document(params);
            Ok(None)
        });
        self.log_problem(problem).await;
    }

    async fn did_change(&self, params: lsp::DidChangeTextDocumentParams) {
        let problem = guarded("didChange", || Ok(self.change_document(params)));
        self.log_problem(problem).await;
    }

    async fn did_close(&self, params: lsp::DidCloseTextDocumentParams) {
        let problem = guarded("didClose", || {
            self.close_document(params.text_document.uri);
            Ok(None)
        });
        self.log_problem(problem).await;
    }

    async fn did_change_configuration(&self, params: lsp::DidChangeConfigurationParams) {
        let problem = guarded("didChangeConfiguration", || {
            self.apply_settings(Some(&params.settings));
            let mut documents = lock(&self.documents);
            for (uri, entry) in documents.iter_mut() {
                self.schedule(uri, entry, None, None);
            }
            Ok(None)
        });
        self.log_problem(problem).await;
    }

    async fn hover(&self, params: lsp::HoverParams) -> Result<Option<lsp::Hover>> {
        let position = params.text_document_position_params;
        let encoding = self.encoding();
        self.query(&position.text_document.uri, "hover", move |state| {
            if !state.is_report {
                return Ok(None);
            }
            let offset = Positions::new(&state.rope, encoding).offset(position.position);
            let Some(info) = state.hover(offset) else {
                return Ok(None);
            };
            let range = Positions::new(&state.rope, encoding).lsp_range(info.range);
            Ok(Some(lsp::Hover {
                contents: lsp::HoverContents::Markup(lsp::MarkupContent {
                    kind: lsp::MarkupKind::Markdown,
                    value: info.markdown,
                }),
                range: Some(range),
            }))
        })
        .await
    }

    async fn code_action(
        &self,
        params: lsp::CodeActionParams,
    ) -> Result<Option<lsp::CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        let (encoding, resolves_edits) = {
            let settings = lock(&self.settings);
            (settings.encoding, settings.resolves_edits)
        };
        self.query(&uri, "codeAction", move |state| {
            Ok(Some(code_actions(state, encoding, resolves_edits, &params)))
        })
        .await
    }

    async fn code_action_resolve(&self, action: lsp::CodeAction) -> Result<lsp::CodeAction> {
        let target = action
            .data
            .as_ref()
            .and_then(|data| serde_json::from_value::<FixAllTarget>(data.clone()).ok());
        let Some(target) = target else {
            // Nothing of ours to resolve: the action is complete as it is.
            return Ok(action);
        };
        let encoding = self.encoding();
        let uri = target.uri.clone();
        let resolved = self
            .query(&uri, "codeActionResolve", move |state| {
                if state.generation != target.generation {
                    return Err(Error {
                        code: ErrorCode::ContentModified,
                        message: "the document changed since the action was offered".into(),
                        data: None,
                    });
                }
                let edit = fix_all_edit(state, encoding, &target.uri);
                Ok(Some(lsp::CodeAction { edit, ..action }))
            })
            .await?;
        resolved.ok_or_else(|| Error {
            code: ErrorCode::ContentModified,
            message: "the document is not in sync with the editor".into(),
            data: None,
        })
    }
}

/// What a fix-all action offered without its edit carries, to resolve it.
#[derive(serde::Serialize, serde::Deserialize)]
struct FixAllTarget {
    uri: Uri,
    generation: u64,
}

fn code_actions(
    state: &mut DocState,
    encoding: Encoding,
    resolves_edits: bool,
    params: &lsp::CodeActionParams,
) -> lsp::CodeActionResponse {
    if !state.is_report {
        return Vec::new();
    }
    let uri = &params.text_document.uri;
    let context = &params.context;
    let wants = |kind: &str| {
        context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|k| kind == k.as_str() || kind.starts_with(&format!("{}.", k.as_str())))
        })
    };
    let positions = Positions::new(&state.rope, encoding);
    let requested = positions.range(params.range);
    let mut actions = Vec::new();
    let diagnostics = state.diagnostics();
    if wants(lsp::CodeActionKind::QUICKFIX.as_str()) {
        for diagnostic in &diagnostics {
            let Some(fix) = &diagnostic.fix else {
                continue;
            };
            let touches =
                diagnostic.range.start <= requested.end && requested.start <= diagnostic.range.end;
            if !touches {
                continue;
            }
            actions.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: fix.title.clone(),
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![positions.diagnostic(uri, diagnostic)]),
                edit: Some(workspace_edit(
                    uri,
                    fix.edits.iter().map(|e| positions.text_edit(e)).collect(),
                )),
                is_preferred: Some(fix.preferred),
                ..Default::default()
            }));
        }
    }
    let has_preferred = diagnostics
        .iter()
        .any(|d| d.fix.as_ref().is_some_and(|f| f.preferred));
    drop(diagnostics);
    if wants(FIX_ALL_KIND) && has_preferred {
        let mut action = lsp::CodeAction {
            title: "Fix all unambiguous report problems".into(),
            kind: Some(lsp::CodeActionKind::new(FIX_ALL_KIND)),
            ..Default::default()
        };
        // Working the edit out analyses the whole text, perhaps several
        // times: left to `codeAction/resolve` when the client can.
        if resolves_edits {
            let target = FixAllTarget {
                uri: uri.clone(),
                generation: state.generation,
            };
            action.data = serde_json::to_value(target).ok();
            actions.push(lsp::CodeActionOrCommand::CodeAction(action));
        } else if let Some(edit) = fix_all_edit(state, encoding, uri) {
            action.edit = Some(edit);
            actions.push(lsp::CodeActionOrCommand::CodeAction(action));
        }
    }
    actions
}

/// The edit that applies every preferred fix, as one minimal text edit.
fn fix_all_edit(state: &DocState, encoding: Encoding, uri: &Uri) -> Option<lsp::WorkspaceEdit> {
    let text = state.rope.to_string();
    let fixed = fix::fix_all(&text)?;
    let minimal = fix::minimal_edit(&text, &fixed)?;
    let positions = Positions::new(&state.rope, encoding);
    Some(workspace_edit(uri, vec![positions.text_edit(&minimal)]))
}

fn workspace_edit(uri: &Uri, edits: Vec<lsp::TextEdit>) -> lsp::WorkspaceEdit {
    lsp::WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    }
}

fn out_of_sync_diagnostic(error: &report_core::text::PositionError) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: lsp::Range::default(),
        severity: Some(lsp::DiagnosticSeverity::WARNING),
        code: Some(lsp::NumberOrString::String(
            report_core::diagnostic::Code::DocumentOutOfSync
                .as_str()
                .into(),
        )),
        source: Some("report-lsp".into()),
        message: format!(
            "report-lsp lost track of this document's text (an edit did not fit it: {error}); checking resumes when the editor sends the whole text, for example after reopening the file"
        ),
        ..Default::default()
    }
}

/// Gives freed memory back to the system. glibc keeps the pages of a closed
/// huge report in its heaps otherwise (a closed 50 MB document left 130 MB).
pub fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}
