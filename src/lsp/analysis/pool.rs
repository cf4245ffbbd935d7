//! The analysis threads as the message loop sees them: the
//! [`AnalysisPool`] handle, and the router that sends each document's
//! messages to the thread that serves it, starting threads as documents
//! open (at most [`MAX_ANALYSIS_THREADS`]) and giving each opening the
//! least loaded. The pool starts the project reader too, wired to it: the
//! reader's deliveries come back through the router, and the pool's
//! threads ask the reader for checks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

use report_core::diagnostic::Diagnostic;
use tokio::sync::oneshot;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::Uri;

use super::job::{Job, JobRope, Message, Query};
use super::state::{DocState, Lookup};
use super::worker;
use crate::lsp::document::ByteEdit;
use crate::lsp::guard::guarded;
use crate::lsp::progress::ProgressClient;
use crate::lsp::project_thread::{Delivery, ProjectThread};
use crate::lsp::session::{OpenDocument, Session, lock};

/// The most analysis threads: documents beyond it share them.
pub const MAX_ANALYSIS_THREADS: usize = 4;

/// The analysis threads, as the message loop sees them.
pub struct AnalysisPool {
    router: Arc<Router>,
}

/// Sends each document's messages to its analysis thread.
struct Router {
    session: Arc<Session>,
    threads: Mutex<Threads>,
    /// Set once the project reader exists (its deliveries are routed too).
    checks: OnceLock<ProjectThread>,
}

#[derive(Default)]
struct Threads {
    senders: Vec<mpsc::Sender<Message>>,
    /// Each thread's changes and requests sent and not yet taken: a
    /// workspace check on that thread gives way to them (`worker.rs`).
    waiting: Vec<Arc<AtomicUsize>>,
    /// How many open documents each thread serves.
    load: Vec<usize>,
    /// Which thread serves each document.
    assigned: HashMap<Uri, usize>,
}

impl Router {
    /// Sends `message` to the thread of `uri`, choosing one for a document
    /// it has not seen; a close ends the document's assignment.
    fn send(&self, uri: &Uri, message: Message) {
        let mut threads = lock(&self.threads);
        let thread = match threads.assigned.get(uri) {
            Some(&thread) => thread,
            None if matches!(message, Message::Analyze(_)) => {
                let thread = self.choose(&mut threads);
                threads.assigned.insert(uri.clone(), thread);
                threads.load[thread] += 1;
                thread
            }
            // A request or a result for a document no thread has: any
            // thread answers it (as not open).
            None => match threads.senders.is_empty() {
                true => self.choose(&mut threads),
                false => 0,
            },
        };
        if matches!(message, Message::Close(_)) && threads.assigned.remove(uri).is_some() {
            threads.load[thread] -= 1;
        }
        if matches!(message, Message::Analyze(_) | Message::Query(_)) {
            threads.waiting[thread].fetch_add(1, Ordering::SeqCst);
        }
        let _ = threads.senders[thread].send(message);
    }

    /// An idle thread, a new one while there are fewer than the most, else the least loaded.
    fn choose(&self, threads: &mut Threads) -> usize {
        if let Some(idle) = threads.load.iter().position(|&n| n == 0) {
            return idle;
        }
        if threads.senders.len() < MAX_ANALYSIS_THREADS
            && let Some(checks) = self.checks.get()
        {
            let (sender, received) = mpsc::channel();
            let (session, checks) = (self.session.clone(), checks.clone());
            let index = threads.senders.len();
            let waiting = Arc::new(AtomicUsize::new(0));
            let counted = waiting.clone();
            let started = std::thread::Builder::new()
                .name(format!("analysis-{index}"))
                .stack_size(report_core::ANALYSIS_STACK_BYTES)
                .spawn(move || worker::run(received, session, checks, counted));
            if started.is_ok() {
                threads.senders.push(sender);
                threads.waiting.push(waiting);
                threads.load.push(0);
                return index;
            }
        }
        let least = threads.load.iter().enumerate().min_by_key(|&(_, n)| *n);
        least.map_or(0, |(i, _)| i)
    }
}

impl AnalysisPool {
    /// The pool and the project reader it starts: the reader's deliveries
    /// are routed to the pool's threads, and the router keeps a clone of
    /// the reader's handle for the threads it starts, which ask it for
    /// checks. The message loop holds the two handles side by side.
    pub fn spawn(
        session: Arc<Session>,
        progress: Option<ProgressClient>,
    ) -> (AnalysisPool, ProjectThread) {
        let router = Arc::new(Router {
            session: session.clone(),
            threads: Mutex::new(Threads::default()),
            checks: OnceLock::new(),
        });
        // Weak: the workspace thread must not keep the analysis threads alive.
        let results = Arc::downgrade(&router);
        let deliver = Box::new(move |delivery: Delivery| {
            if let Some(router) = results.upgrade() {
                let uri = delivery.uri().clone();
                router.send(&uri, Message::Workspace(delivery));
            }
        });
        let projects = ProjectThread::spawn(session, deliver, progress);
        let _ = router.checks.set(projects.clone());
        // The first thread starts now: it answers what comes before any open.
        {
            let mut threads = lock(&router.threads);
            router.choose(&mut threads);
        }
        (AnalysisPool { router }, projects)
    }

    /// Queues the document's current text for analysis: `edits` (in bytes)
    /// lead from the previous generation to it; None asks for a full
    /// analysis. `text` is the whole text when the caller has it (an open),
    /// with its rope, which the caller may still be building.
    pub fn schedule(
        &self,
        session: &Session,
        uri: &Uri,
        open: &mut OpenDocument,
        edits: Option<Vec<ByteEdit>>,
        text: Option<(Arc<String>, JobRope)>,
    ) {
        let (text, rope) = match text {
            Some((text, rope)) => (Some(text), rope),
            None => (None, JobRope::Ready(open.document.rope().clone())),
        };
        open.generation += 1;
        self.router.send(
            uri,
            Message::Analyze(Job {
                uri: uri.clone(),
                base: open.generation - 1,
                generation: open.generation,
                version: open.document.version,
                rope,
                edits,
                text,
                settings: session.settings_for(uri),
            }),
        );
    }

    pub fn close(&self, uri: Uri) {
        self.router.send(&uri.clone(), Message::Close(uri));
    }

    /// Runs `f` on the analysis thread with `uri`'s state, after every change
    /// sent before, and waits for its answer. `name` is the request's, for
    /// fault reports. A document not open is an error; one whose text is not
    /// known answers None.
    pub async fn query<T: Send + 'static>(
        &self,
        uri: &Uri,
        name: &'static str,
        f: impl FnOnce(&mut DocState) -> Result<Option<T>> + Send + 'static,
    ) -> Result<Option<T>> {
        self.ask(uri, name, false, move |state, _| f(state)).await
    }

    /// Like [`Self::query`], but answered for the document's latest text
    /// once it is analysed, with the workspace diagnostics of that text:
    /// what a diagnostics pull needs. A change the client sent after the
    /// request (or new settings) is analysed first instead of making the
    /// answer empty.
    pub async fn query_latest<T: Send + 'static>(
        &self,
        uri: &Uri,
        name: &'static str,
        f: impl FnOnce(&mut DocState, &[Diagnostic]) -> Result<Option<T>> + Send + 'static,
    ) -> Result<Option<T>> {
        self.ask(uri, name, true, f).await
    }

    /// As [`AnalysisPool::query_latest`], for a diagnostics pull: it reads
    /// no text, so an opening's is answered before its rope is made.
    pub async fn query_diagnostics<T: Send + 'static>(
        &self,
        uri: &Uri,
        f: impl FnOnce(&mut DocState, &[Diagnostic]) -> Result<Option<T>> + Send + 'static,
    ) -> Result<Option<T>> {
        self.ask_with(uri, "diagnostic", true, false, f).await
    }

    async fn ask<T: Send + 'static>(
        &self,
        uri: &Uri,
        name: &'static str,
        latest: bool,
        f: impl FnOnce(&mut DocState, &[Diagnostic]) -> Result<Option<T>> + Send + 'static,
    ) -> Result<Option<T>> {
        self.ask_with(uri, name, latest, true, f).await
    }

    async fn ask_with<T: Send + 'static>(
        &self,
        uri: &Uri,
        name: &'static str,
        latest: bool,
        reads_text: bool,
        f: impl FnOnce(&mut DocState, &[Diagnostic]) -> Result<Option<T>> + Send + 'static,
    ) -> Result<Option<T>> {
        let (reply, answer) = oneshot::channel();
        let document = uri.clone();
        let run = move |lookup: Lookup<'_>, workspace: &[Diagnostic]| {
            let result = match lookup {
                Lookup::NotOpen => Err(Error::invalid_params(format!(
                    "document not open: {}",
                    document.as_str()
                ))),
                Lookup::Unknown => Ok(None),
                Lookup::Current(state) => guarded(name, || f(state, workspace)),
            };
            let _ = reply.send(result);
        };
        let query = Query {
            uri: uri.clone(),
            latest,
            reads_text,
            run: Box::new(run),
        };
        self.router.send(uri, Message::Query(query));
        answer
            .await
            .unwrap_or_else(|_| Err(Error::internal_error()))
    }
}
