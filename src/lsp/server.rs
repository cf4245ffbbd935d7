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
    /// Diagnostics published per document at most; one summary stands for the rest.
    max_diagnostics: usize,
    /// Documents larger than this get one diagnostic instead of an analysis.
    max_document_bytes: usize,
}

/// Well above the largest reports served (50 000 entries are about 42 MB),
/// well below what would exhaust a workstation.
const DEFAULT_MAX_DOCUMENT_BYTES: usize = 128 << 20;

/// Enough to fix a broken report, few enough that a report with thousands of
/// problems stays responsive.
const DEFAULT_MAX_DIAGNOSTICS: usize = 1000;

struct Entry {
    document: Document,
    /// Counts the texts this document has had. Freshness is judged by it, not
    /// by the client's version, which a client may repeat or send backwards.
    generation: u64,
    /// The analysis of some version of the document, the newest one done.
    snapshot: Option<Arc<Snapshot>>,
    /// Whether the diagnostics last published for it were non-empty.
    published: bool,
}

/// A version's analysis (which holds its text): what requests read.
pub struct Snapshot {
    pub generation: u64,
    pub analysis: Analysis,
    /// Whether the document is validated (its name matches, or it looks like a report).
    pub is_report: bool,
}

struct Job {
    uri: Uri,
    generation: u64,
    version: i32,
    text: Arc<String>,
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
                max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
                max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
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

    /// Queues the current text of `uri` for analysis. The previous snapshot
    /// is dropped: requests only read the current version's, and keeping two
    /// trees of a huge report would double the memory.
    fn schedule(&self, uri: &Uri, entry: &mut Entry) {
        // Free the old version's text and tree before copying out the new text.
        entry.snapshot = None;
        let text = entry.document.text();
        self.schedule_text(uri, entry, text);
    }

    /// Like [`Server::schedule`], with the document's current text at hand.
    fn schedule_text(&self, uri: &Uri, entry: &mut Entry, text: String) {
        let name_matches = lock(&self.shared.settings)
            .globs
            .matches(&convert::uri_path(uri));
        entry.snapshot = None;
        entry.generation += 1;
        let _ = self.jobs.send(Job {
            uri: uri.clone(),
            generation: entry.generation,
            version: entry.document.version,
            text: Arc::new(text),
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
                    Some(s) if s.generation == entry.generation => return Ok(Some(s.clone())),
                    _ if entry.document.out_of_sync => return Ok(None),
                    _ => {}
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(None);
            }
        }
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
        let mut documents = lock(&self.shared.documents);
        let entry = documents.entry(doc.uri.clone()).or_insert_with(|| Entry {
            document: Document::new("", doc.version),
            generation: 0,
            snapshot: None,
            published: false,
        });
        entry.document = Document::new(&doc.text, doc.version);
        // The text the editor sent becomes the job's: no second copy of a huge report.
        self.schedule_text(&doc.uri, entry, doc.text);
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
                if !entry.document.out_of_sync {
                    // Analyses still queued are of a text we no longer trust: make them stale.
                    entry.generation += 1;
                    entry.snapshot = None;
                    // The diagnostics on screen point into a text we no longer have: replace them.
                    let _ = self.publish.send(Publication {
                        uri: uri.clone(),
                        version: Some(entry.document.version),
                        diagnostics: vec![out_of_sync_diagnostic(&error)],
                    });
                    entry.published = true;
                }
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
        let removed = documents.remove(&uri);
        if removed.as_ref().is_some_and(|e| e.published) {
            // Queued behind any publication for it, so nothing reappears after the clear.
            let _ = self.publish.send(Publication {
                uri,
                version: None,
                diagnostics: Vec::new(),
            });
        }
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
            Ok(globs) => lock(&self.shared.settings).globs = globs,
            Err(error) => {
                eprintln!("report-lsp: ignoring invalid file globs {patterns:?}: {error}")
            }
        }
        let max = value
            .and_then(|v| v.get("reportLsp").unwrap_or(v).get("maxDiagnostics"))
            .and_then(|m| m.as_u64());
        lock(&self.shared.settings).max_diagnostics =
            max.map_or(DEFAULT_MAX_DIAGNOSTICS, |m| m as usize);
        let max_bytes = value
            .and_then(|v| v.get("reportLsp").unwrap_or(v).get("maxDocumentBytes"))
            .and_then(|m| m.as_u64());
        lock(&self.shared.settings).max_document_bytes =
            max_bytes.map_or(DEFAULT_MAX_DOCUMENT_BYTES, |m| m as usize);
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
            let mut documents = lock(&self.shared.documents);
            for (uri, entry) in documents.iter_mut() {
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
                text: &snapshot.analysis.text,
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
    let text: &str = &snapshot.analysis.text;
    let positions = Positions {
        text,
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
        && let Some(fixed) = fix::fix_all(text)
        && let Some(minimal) = fix::minimal_edit(text, &fixed)
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
            let (encoding, max_diagnostics, max_bytes) = {
                let settings = lock(&shared.settings);
                (
                    settings.encoding,
                    settings.max_diagnostics,
                    settings.max_document_bytes,
                )
            };
            let analyze = || match job.text.len() > max_bytes {
                true => crate::too_large(job.text.clone(), max_bytes),
                false => crate::analyze_shared(job.text.clone()),
            };
            let analysis = match catch_unwind(AssertUnwindSafe(analyze)) {
                Ok(analysis) => analysis,
                Err(_) => {
                    eprintln!("report-lsp: analysis of {} panicked", job.uri.as_str());
                    continue;
                }
            };
            let is_report = job.name_matches || analysis.root().is_some_and(looks_like_report);
            drop(job.text);
            let snapshot = Arc::new(Snapshot {
                generation: job.generation,
                analysis,
                is_report,
            });
            let mut documents = lock(&shared.documents);
            let Some(entry) = documents.get_mut(&job.uri) else {
                continue;
            };
            if entry.generation != job.generation {
                continue;
            }
            entry.snapshot = Some(snapshot.clone());
            let publish_now = is_report || entry.published;
            if publish_now {
                let positions = Positions {
                    text: &snapshot.analysis.text,
                    index: &snapshot.analysis.line_index,
                    encoding,
                };
                let diagnostics = match is_report {
                    true => capped_diagnostics(
                        &positions,
                        &job.uri,
                        &snapshot.analysis,
                        max_diagnostics,
                    ),
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
            if snapshot.analysis.text.len() >= LARGE_TEXT_BYTES {
                release_memory();
            }
        }
    }
}

fn out_of_sync_diagnostic(error: &crate::text::PositionError) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: lsp::Range::default(),
        severity: Some(lsp::DiagnosticSeverity::WARNING),
        code: Some(lsp::NumberOrString::String(
            crate::diagnostic::Code::DocumentOutOfSync.as_str().into(),
        )),
        source: Some("report-lsp".into()),
        message: format!(
            "report-lsp lost track of this document's text (an edit did not fit it: {error}); checking resumes when the editor sends the whole text, for example after reopening the file"
        ),
        ..Default::default()
    }
}

/// At most `max` diagnostics, errors first, and one summary for those left out.
fn capped_diagnostics(
    positions: &Positions<'_>,
    uri: &Uri,
    analysis: &Analysis,
    max: usize,
) -> Vec<lsp::Diagnostic> {
    let all = &analysis.diagnostics;
    if all.len() <= max {
        return all.iter().map(|d| positions.diagnostic(uri, d)).collect();
    }
    // Errors before lesser severities, each group in document order.
    let mut chosen: Vec<&crate::diagnostic::Diagnostic> = all.iter().collect();
    chosen.sort_by_key(|d| d.severity);
    chosen.truncate(max);
    chosen.sort_by_key(|d| (d.range.start, d.range.end));
    let mut published: Vec<lsp::Diagnostic> = chosen
        .iter()
        .map(|d| positions.diagnostic(uri, d))
        .collect();
    let left_out = all.len() - max;
    published.push(lsp::Diagnostic {
        range: positions.lsp_range(crate::text::TextRange::empty(0)),
        severity: Some(lsp::DiagnosticSeverity::WARNING),
        code: Some(lsp::NumberOrString::String(crate::diagnostic::Code::TooManyDiagnostics.as_str().into())),
        source: Some("report-lsp".into()),
        message: format!(
            "{left_out} more problems are not shown ({} in all; the limit is the reportLsp.maxDiagnostics setting, {max}); `report-lsp check` lists them all",
            all.len()
        ),
        ..Default::default()
    });
    published
}

/// Gives freed memory back to the system. glibc keeps the pages of a closed
/// huge report in its heaps otherwise (a closed 50 MB document left 130 MB).
fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Texts from this size on are worth a trim after their analysis replaces the previous one.
const LARGE_TEXT_BYTES: usize = 16 << 20;

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
