//! The language server: handlers that translate, a document store changed
//! under a plain mutex before any `.await`, and one analysis thread that
//! publishes diagnostics in version order.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, mpsc as async_mpsc};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{self as lsp, Uri};
use tower_lsp_server::{Client, LanguageServer};

use super::convert::{self, Positions};
use super::document::Document;
use crate::selection::{DEFAULT_REPORT_GLOBS, ReportGlobs, looks_like_report};
use crate::text::Encoding;
use crate::{Analysis, fix, hover};

/// The kind of the fix-all source action.
pub const FIX_ALL_KIND: &str = "source.fixAll.report-lsp";

pub struct Server {
    client: Client,
    shared: Arc<Shared>,
    jobs: mpsc::Sender<Job>,
    /// The same ordered queue the analysis thread publishes through.
    publish: async_mpsc::UnboundedSender<Publication>,
}

/// State shared by the handlers and the analysis thread.
struct Shared {
    documents: Mutex<HashMap<Uri, Entry>>,
    settings: Mutex<Settings>,
    /// Signalled whenever an analysis is stored, for requests waiting on the current version.
    analyzed: Notify,
}

struct Settings {
    encoding: Encoding,
    globs: ReportGlobs,
}

struct Entry {
    document: Document,
    /// The analysis of some version of the document, the newest one done.
    snapshot: Option<Arc<Snapshot>>,
    /// Whether the diagnostics last published for it were non-empty.
    published: bool,
}

/// A version's text with its analysis: what requests read.
pub struct Snapshot {
    pub version: i32,
    pub text: String,
    pub analysis: Analysis,
    /// Whether the document is validated (its name matches, or it looks like a report).
    pub is_report: bool,
}

struct Job {
    uri: Uri,
    version: i32,
    text: String,
    name_matches: bool,
}

/// What the analysis thread sends to be published, in order.
struct Publication {
    uri: Uri,
    version: Option<i32>,
    diagnostics: Vec<lsp::Diagnostic>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
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
    pub fn new(client: Client) -> Server {
        let shared = Arc::new(Shared {
            documents: Mutex::new(HashMap::new()),
            settings: Mutex::new(Settings {
                encoding: Encoding::Utf16,
                globs: ReportGlobs::default(),
            }),
            analyzed: Notify::new(),
        });
        let (jobs, job_rx) = mpsc::channel();
        let (publish_tx, publish_rx) = async_mpsc::unbounded_channel();
        let worker_shared = shared.clone();
        let worker_publish = publish_tx.clone();
        std::thread::Builder::new()
            .name("analysis".into())
            .stack_size(crate::ANALYSIS_STACK_BYTES)
            .spawn(move || analysis_loop(job_rx, worker_shared, worker_publish))
            .expect("the analysis thread starts");
        tokio::spawn(publish_loop(client.clone(), publish_rx));
        Server {
            client,
            shared,
            jobs,
            publish: publish_tx,
        }
    }

    fn encoding(&self) -> Encoding {
        lock(&self.shared.settings).encoding
    }

    /// Queues the current text of `uri` for analysis.
    fn schedule(&self, uri: &Uri, entry: &Entry) {
        let name_matches = lock(&self.shared.settings)
            .globs
            .matches(&convert::uri_path(uri));
        let _ = self.jobs.send(Job {
            uri: uri.clone(),
            version: entry.document.version,
            text: entry.document.text(),
            name_matches,
        });
    }

    /// The snapshot of `uri`'s current version, waiting (bounded) for its analysis.
    async fn current_snapshot(&self, uri: &Uri) -> Result<Option<Arc<Snapshot>>> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            let notified = self.shared.analyzed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let documents = lock(&self.shared.documents);
                let Some(entry) = documents.get(uri) else {
                    return Err(Error::invalid_params(format!(
                        "document not open: {}",
                        uri.as_str()
                    )));
                };
                match &entry.snapshot {
                    Some(s) if s.version == entry.document.version => return Ok(Some(s.clone())),
                    _ if entry.document.out_of_sync => return Ok(None),
                    _ => {}
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(None);
            }
        }
    }

    fn open_document(&self, params: lsp::DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let mut documents = lock(&self.shared.documents);
        let entry = documents.entry(doc.uri.clone()).or_insert_with(|| Entry {
            document: Document::new("", doc.version),
            snapshot: None,
            published: false,
        });
        entry.document = Document::new(&doc.text, doc.version);
        self.schedule(&doc.uri, entry);
    }

    /// Applies the changes in order, under the lock and before any `.await`
    /// of the handler, so that later changes cannot overtake them. Returns
    /// what to log when something was rejected.
    fn change_document(&self, params: lsp::DidChangeTextDocumentParams) -> Option<String> {
        let encoding = self.encoding();
        let uri = params.text_document.uri;
        let mut documents = lock(&self.shared.documents);
        let Some(entry) = documents.get_mut(&uri) else {
            return Some(format!(
                "didChange for a document that is not open: {}",
                uri.as_str()
            ));
        };
        entry.document.version = params.text_document.version;
        let mut failure = None;
        for change in params.content_changes {
            if entry.document.out_of_sync && change.range.is_some() {
                continue;
            }
            let range = change
                .range
                .map(|r| (convert::line_col(r.start), convert::line_col(r.end)));
            if let Err(error) = entry.document.apply_change(range, &change.text, encoding) {
                entry.document.out_of_sync = true;
                failure = Some(format!(
                    "rejected a change to {}: {error}; the document is out of sync until the editor sends its full text (reopen it)",
                    uri.as_str()
                ));
            }
        }
        if !entry.document.out_of_sync {
            self.schedule(&uri, entry);
        }
        failure
    }

    fn close_document(&self, uri: Uri) {
        let mut documents = lock(&self.shared.documents);
        if documents.remove(&uri).is_some_and(|e| e.published) {
            // Queued behind any publication for it, so nothing reappears after the clear.
            let _ = self.publish.send(Publication {
                uri,
                version: None,
                diagnostics: Vec::new(),
            });
        }
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
            Ok(globs) => lock(&self.shared.settings).globs = globs,
            Err(error) => {
                eprintln!("report-lsp: ignoring invalid file globs {patterns:?}: {error}")
            }
        }
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: lsp::InitializeParams) -> Result<lsp::InitializeResult> {
        let encoding = convert::negotiate_encoding(&params.capabilities);
        lock(&self.shared.settings).encoding = encoding;
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
            let documents = lock(&self.shared.documents);
            for (uri, entry) in documents.iter() {
                self.schedule(uri, entry);
            }
            Ok(None)
        });
        self.log_problem(problem).await;
    }

    async fn hover(&self, params: lsp::HoverParams) -> Result<Option<lsp::Hover>> {
        let position = params.text_document_position_params;
        let Some(snapshot) = self.current_snapshot(&position.text_document.uri).await? else {
            return Ok(None);
        };
        let encoding = self.encoding();
        guarded("hover", || {
            if !snapshot.is_report {
                return Ok(None);
            }
            let positions = Positions {
                text: &snapshot.text,
                index: &snapshot.analysis.line_index,
                encoding,
            };
            let offset = positions.offset(position.position);
            Ok(
                hover::hover(&snapshot.analysis, offset).map(|info| lsp::Hover {
                    contents: lsp::HoverContents::Markup(lsp::MarkupContent {
                        kind: lsp::MarkupKind::Markdown,
                        value: info.markdown,
                    }),
                    range: Some(positions.lsp_range(info.range)),
                }),
            )
        })
    }

    async fn code_action(
        &self,
        params: lsp::CodeActionParams,
    ) -> Result<Option<lsp::CodeActionResponse>> {
        let uri = params.text_document.uri;
        let Some(snapshot) = self.current_snapshot(&uri).await? else {
            return Ok(None);
        };
        let encoding = self.encoding();
        guarded("codeAction", || {
            Ok(Some(code_actions(
                &uri,
                &snapshot,
                encoding,
                &params.range,
                &params.context,
            )))
        })
    }
}

fn code_actions(
    uri: &Uri,
    snapshot: &Snapshot,
    encoding: Encoding,
    range: &lsp::Range,
    context: &lsp::CodeActionContext,
) -> lsp::CodeActionResponse {
    if !snapshot.is_report {
        return Vec::new();
    }
    let positions = Positions {
        text: &snapshot.text,
        index: &snapshot.analysis.line_index,
        encoding,
    };
    let wants = |kind: &str| {
        context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|k| kind == k.as_str() || kind.starts_with(&format!("{}.", k.as_str())))
        })
    };
    let requested = positions.range(*range);
    let edit = |edits: Vec<lsp::TextEdit>| lsp::WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    };
    let mut actions = Vec::new();
    if wants(lsp::CodeActionKind::QUICKFIX.as_str()) {
        for diagnostic in &snapshot.analysis.diagnostics {
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
                edit: Some(edit(
                    fix.edits.iter().map(|e| positions.text_edit(e)).collect(),
                )),
                is_preferred: Some(fix.preferred),
                ..Default::default()
            }));
        }
    }
    let has_preferred = snapshot
        .analysis
        .diagnostics
        .iter()
        .any(|d| d.fix.as_ref().is_some_and(|f| f.preferred));
    if wants(FIX_ALL_KIND)
        && has_preferred
        && let Some(fixed) = fix::fix_all(&snapshot.text)
        && let Some(minimal) = fix::minimal_edit(&snapshot.text, &fixed)
    {
        actions.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
            title: "Fix all unambiguous report problems".into(),
            kind: Some(lsp::CodeActionKind::new(FIX_ALL_KIND)),
            edit: Some(edit(vec![positions.text_edit(&minimal)])),
            ..Default::default()
        }));
    }
    actions
}

/// Analyses queued texts, newest version first per document, on a thread
/// with a large stack; stores each result and queues its diagnostics.
fn analysis_loop(
    jobs: mpsc::Receiver<Job>,
    shared: Arc<Shared>,
    publish: async_mpsc::UnboundedSender<Publication>,
) {
    while let Ok(first) = jobs.recv() {
        // Later jobs for the same document supersede earlier ones.
        let mut pending: Vec<Job> = vec![first];
        while let Ok(job) = jobs.try_recv() {
            pending.retain(|p| p.uri != job.uri);
            pending.push(job);
        }
        for job in pending {
            let analysis = match catch_unwind(AssertUnwindSafe(|| crate::analyze(&job.text))) {
                Ok(analysis) => analysis,
                Err(_) => {
                    eprintln!("report-lsp: analysis of {} panicked", job.uri.as_str());
                    continue;
                }
            };
            let is_report = job.name_matches || analysis.root().is_some_and(looks_like_report);
            let encoding = lock(&shared.settings).encoding;
            let snapshot = Arc::new(Snapshot {
                version: job.version,
                text: job.text,
                analysis,
                is_report,
            });
            let mut documents = lock(&shared.documents);
            let Some(entry) = documents.get_mut(&job.uri) else {
                continue;
            };
            if entry.document.version != job.version {
                continue;
            }
            entry.snapshot = Some(snapshot.clone());
            let publish_now = is_report || entry.published;
            if publish_now {
                let positions = Positions {
                    text: &snapshot.text,
                    index: &snapshot.analysis.line_index,
                    encoding,
                };
                let diagnostics: Vec<lsp::Diagnostic> = match is_report {
                    true => snapshot
                        .analysis
                        .diagnostics
                        .iter()
                        .map(|d| positions.diagnostic(&job.uri, d))
                        .collect(),
                    false => Vec::new(),
                };
                entry.published = !diagnostics.is_empty();
                // Sent under the lock, so publications keep the order of versions.
                let _ = publish.send(Publication {
                    uri: job.uri.clone(),
                    version: Some(job.version),
                    diagnostics,
                });
            }
            drop(documents);
            shared.analyzed.notify_waiters();
        }
    }
}

async fn publish_loop(
    client: Client,
    mut publications: async_mpsc::UnboundedReceiver<Publication>,
) {
    while let Some(p) = publications.recv().await {
        client
            .publish_diagnostics(p.uri, p.diagnostics, p.version)
            .await;
    }
}
