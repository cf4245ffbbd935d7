//! The analysis threads. Each open document belongs to one of a few
//! analysis threads ([`MAX_ANALYSIS_THREADS`], started as documents open,
//! each taking the least loaded), which owns its [`DocumentHost`], brings
//! it up to date with each change, publishes the diagnostics, and runs the
//! requests that read it. A thread handles its messages in arrival order,
//! so a request sees every change sent before it; a document's analysis
//! never waits behind another's unless more documents are open than there
//! are threads. The message loop talks to them through an
//! [`AnalysisThread`] handle only.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::{Mutex, mpsc};

use report_core::diagnostic::Diagnostic;
use report_core::host::{DocumentHost, HostOptions, UpdateKind};
use tokio::sync::oneshot;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::convert::{self, PositionCache, Positions};
use super::document::{ByteEdit, RopeText};
use super::guard::guarded;
use super::session::{OpenDocument, Session, lock};
use super::workspace::{WorkspaceResult, WorkspaceResults, WorkspaceThread};

/// The most analysis threads: documents beyond it share them.
pub const MAX_ANALYSIS_THREADS: usize = 4;

/// The analysis threads, as the message loop sees them.
pub struct AnalysisThread {
    router: Arc<Router>,
    /// The workspace checks' thread, whose results come back through the router.
    pub workspace: WorkspaceThread,
}

/// Sends each document's messages to its analysis thread.
struct Router {
    session: Arc<Session>,
    threads: Mutex<Threads>,
    /// Set once the workspace thread exists (its results are routed too).
    checks: std::sync::OnceLock<WorkspaceThread>,
}

#[derive(Default)]
struct Threads {
    senders: Vec<mpsc::Sender<Message>>,
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
            let started = std::thread::Builder::new()
                .name(format!("analysis-{index}"))
                .stack_size(report_core::ANALYSIS_STACK_BYTES)
                .spawn(move || run(received, session, checks));
            if started.is_ok() {
                threads.senders.push(sender);
                threads.load.push(0);
                return index;
            }
        }
        let least = threads.load.iter().enumerate().min_by_key(|&(_, n)| *n);
        least.map_or(0, |(i, _)| i)
    }
}

/// One document as the analysis thread knows it.
pub struct DocState {
    /// The generation of the document its host describes.
    pub generation: u64,
    /// The client's version of that text, for edits tied to it.
    pub version: i32,
    pub host: DocumentHost<RopeText>,
    /// Positions of the last publication, for the next one.
    positions: PositionCache,
    /// The facts of the last workspace check, for the hover.
    pub workspace: Option<Arc<report_core::workspace::WorkspaceFacts>>,
    /// Tells this opening of the document from earlier ones (whose
    /// generations counted from 1 too), for pulled diagnostics' result ids.
    pub opened: u64,
    /// The named files' URIs for its document links, kept per workspace check.
    pub links: Arc<Mutex<crate::lsp::handlers::links::UriCache>>,
    /// Diagnostics pulls answered and publications sent for this opening,
    /// for the status request (which says how the client gets them).
    pub pulls: u64,
    pub pushes: u64,
    /// Whether the log has said that this opening's links were capped.
    pub links_capped_said: bool,
}

/// Counts the documents' openings, for [`DocState::opened`].
static OPENINGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl DocState {
    pub fn positions(&self, encoding: report_core::text::Encoding) -> Positions<'_> {
        Positions::new(&self.host.text().0, encoding)
    }
}

enum Message {
    /// A document's text (or a setting) changed: bring it up to date.
    Analyze(Job),
    /// A request reading a document's analysis.
    Query(Query),
    /// The document was closed: forget it.
    Close(Uri),
    /// A workspace check finished.
    Workspace(WorkspaceResult),
}

struct Job {
    uri: Uri,
    /// The generation `edits` start from, and the one they lead to.
    base: u64,
    generation: u64,
    version: i32,
    rope: JobRope,
    /// The changes since `base`, in order; None when the whole text must be
    /// analysed (an open, a whole-text change, new settings).
    edits: Option<Vec<ByteEdit>>,
    /// The whole text, when the handler had it at hand (an open): saves a copy.
    text: Option<Arc<String>>,
    name_matches: bool,
}

/// A job's text as a rope: at hand, or still being built by the handler
/// that sent the job (an opening's, while its text is analysed).
pub enum JobRope {
    Ready(ropey::Rope),
    Coming(std::sync::mpsc::Receiver<ropey::Rope>),
}

impl JobRope {
    /// The rope, waiting for it if it is coming; made from `text` if the
    /// handler never sent it.
    fn get(self, text: Option<&str>) -> ropey::Rope {
        match self {
            JobRope::Ready(rope) => rope,
            JobRope::Coming(coming) => coming
                .recv()
                .unwrap_or_else(|_| ropey::Rope::from_str(text.unwrap_or_default())),
        }
    }
}

impl Job {
    /// Folds a later job for the same document into this one.
    fn absorb(&mut self, later: Job) {
        self.edits = match (self.edits.take(), later.edits) {
            (Some(mut edits), Some(more)) if later.base == self.generation => {
                edits.extend(more);
                Some(edits)
            }
            _ => None,
        };
        self.generation = later.generation;
        self.version = later.version;
        self.rope = later.rope;
        self.text = later.text;
        self.name_matches = later.name_matches;
    }
}

/// A request: run with the document's state (and the workspace
/// diagnostics of its generation) on the analysis thread.
struct Query {
    uri: Uri,
    /// Whether it answers for the document's latest text, even one changed
    /// after it was asked (pulled diagnostics), rather than for the text it
    /// was asked about (positions).
    latest: bool,
    run: Box<Run>,
}

/// A query's work: the document as found, and its workspace diagnostics.
type Run = dyn FnOnce(Lookup<'_>, &[Diagnostic]) + Send;

/// What a query finds of its document.
enum Lookup<'a> {
    NotOpen,
    /// Open, but its text is not known (out of sync, or its analysis failed).
    Unknown,
    Current(&'a mut DocState),
}

impl AnalysisThread {
    pub fn spawn(
        session: Arc<Session>,
        progress: Option<super::workspace::ProgressClient>,
    ) -> AnalysisThread {
        let router = Arc::new(Router {
            session: session.clone(),
            threads: Mutex::new(Threads::default()),
            checks: std::sync::OnceLock::new(),
        });
        // Weak: the workspace thread must not keep the analysis threads alive.
        let results = Arc::downgrade(&router);
        let deliver = Box::new(move |result: WorkspaceResult| {
            if let Some(router) = results.upgrade() {
                let uri = result.uri.clone();
                router.send(&uri, Message::Workspace(result));
            }
        });
        let workspace = WorkspaceThread::spawn(session, deliver, progress);
        let _ = router.checks.set(workspace.clone());
        // The first thread starts now: it answers what comes before any open.
        {
            let mut threads = lock(&router.threads);
            router.choose(&mut threads);
        }
        AnalysisThread { router, workspace }
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
        let name_matches = lock(&session.settings)
            .globs
            .matches(&convert::uri_path(uri));
        let (text, rope) = match text {
            Some((text, rope)) => (Some(text), rope),
            None => (None, JobRope::Ready(open.document.rope.clone())),
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
                name_matches,
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

    async fn ask<T: Send + 'static>(
        &self,
        uri: &Uri,
        name: &'static str,
        latest: bool,
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
            run: Box::new(run),
        };
        self.router.send(uri, Message::Query(query));
        answer
            .await
            .unwrap_or_else(|_| Err(Error::internal_error()))
    }
}

/// How long a document's analysis thread waits for work before it frees
/// what a repair retired: less than the pause between a person's keystrokes,
/// so the freeing (up to 30 ms at 50,000 entries) falls in it.
const FREE_WHEN_IDLE_FOR: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs the analysis thread until the message loop drops its handle.
fn run(messages: mpsc::Receiver<Message>, session: Arc<Session>, checks: WorkspaceThread) {
    let mut worker = Worker {
        states: HashMap::new(),
        session,
        checks,
        workspace: WorkspaceResults::default(),
    };
    loop {
        // A repair's retired full analysis is freed once nothing has come
        // for a while: freeing it takes longer than the keystrokes after it.
        let first = if worker.states.values().any(|s| s.host.holds_retired()) {
            match messages.recv_timeout(FREE_WHEN_IDLE_FOR) {
                Ok(first) => first,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    worker
                        .states
                        .values_mut()
                        .for_each(|s| s.host.drop_retired());
                    super::release_memory();
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match messages.recv() {
                Ok(first) => first,
                Err(_) => break,
            }
        };
        // Changes queued together are analysed once; a request first brings
        // its document up to date.
        let mut pending: Vec<Job> = Vec::new();
        // Queries for the latest text of a document whose change is queued
        // behind them: answered once this batch is analysed.
        let mut deferred: Vec<Query> = Vec::new();
        for message in std::iter::once(first).chain(std::iter::from_fn(|| messages.try_recv().ok()))
        {
            match message {
                Message::Analyze(job) => match pending.iter_mut().find(|p| p.uri == job.uri) {
                    Some(earlier) => earlier.absorb(job),
                    None => pending.push(job),
                },
                Message::Query(query) => {
                    if let Some(i) = pending.iter().position(|p| p.uri == query.uri) {
                        worker.analyze(pending.remove(i));
                    }
                    if query.latest && worker.is_behind(&query.uri) {
                        deferred.push(query);
                    } else {
                        worker.answer(query);
                    }
                }
                Message::Workspace(result) => {
                    // Changes queued before it are applied first, so it is moved through them.
                    if let Some(i) = pending.iter().position(|p| p.uri == result.uri) {
                        worker.analyze(pending.remove(i));
                    }
                    worker.workspace_result(result);
                }
                Message::Close(uri) => {
                    worker.workspace.forget(&uri);
                    worker.checks.closed(&uri);
                    pending.retain(|p| p.uri != uri);
                    if worker.states.remove(&uri).is_some() {
                        super::release_memory();
                    }
                }
            }
        }
        for job in pending {
            worker.analyze(job);
        }
        for query in deferred {
            worker.answer(query);
        }
    }
}

struct Worker {
    states: HashMap<Uri, DocState>,
    session: Arc<Session>,
    checks: WorkspaceThread,
    workspace: WorkspaceResults,
}

fn generation_of(lookup: &Lookup<'_>) -> u64 {
    match lookup {
        Lookup::Current(state) => state.generation,
        _ => 0,
    }
}

/// Texts from this size on are worth a trim after their analysis replaces the previous one.
const LARGE_TEXT_BYTES: usize = 16 << 20;

impl Worker {
    /// Whether the document's state is of an older text than the session's,
    /// whose job is then queued already (generations are counted and queued
    /// under the documents' lock).
    fn is_behind(&self, uri: &Uri) -> bool {
        let latest = lock(&self.session.documents)
            .get(uri)
            .filter(|o| !o.document.out_of_sync)
            .map(|o| o.generation);
        match (latest, self.states.get(uri)) {
            (Some(latest), Some(state)) => state.generation < latest,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    fn answer(&mut self, query: Query) {
        let lookup = {
            let documents = lock(&self.session.documents);
            match documents.get(&query.uri) {
                None => None,
                Some(open) if open.document.out_of_sync => Some(None),
                Some(open) => Some(Some(open.generation)),
            }
        };
        let state = self.states.get_mut(&query.uri);
        let lookup = match (lookup, state) {
            (None, _) => Lookup::NotOpen,
            (Some(Some(generation)), Some(state)) if state.generation == generation => {
                Lookup::Current(state)
            }
            _ => Lookup::Unknown,
        };
        let workspace = self
            .workspace
            .diagnostics(&query.uri, generation_of(&lookup));
        // A panic is caught by the query's own guard; this one keeps the thread alive regardless.
        if catch_unwind(AssertUnwindSafe(|| (query.run)(lookup, workspace))).is_err() {
            eprintln!("report-lsp: a request on {} panicked", query.uri.as_str());
        }
    }

    fn analyze(&mut self, job: Job) {
        let (max_diagnostics, max_document_bytes) = {
            let settings = lock(&self.session.settings);
            (settings.max_diagnostics, settings.max_document_bytes)
        };
        let options = HostOptions {
            name_matches: job.name_matches,
            max_document_bytes,
            max_diagnostics,
        };
        let uri = job.uri.clone();
        let (generation, version) = (job.generation, job.version);
        let previous = self.states.remove(&uri);
        self.workspace
            .record_job(&uri, job.base, job.generation, job.edits.as_deref());
        // A new document, or a text unrelated to the last: its project is checked (again).
        if previous.is_none() || job.edits.is_none() {
            self.workspace.track(&uri);
            self.checks.check(&uri);
        }
        let updated = catch_unwind(AssertUnwindSafe(|| update(previous, job, options)));
        let (state, freed) = match updated {
            Ok(updated) => updated,
            Err(_) => {
                eprintln!("report-lsp: analysis of {} panicked", uri.as_str());
                return;
            }
        };
        let state = self
            .states
            .entry(uri.clone())
            .insert_entry(state)
            .into_mut();
        let trim = freed && state.host.text().0.len_bytes() >= LARGE_TEXT_BYTES;
        let target = Target {
            session: &self.session,
            uri: uri.clone(),
            generation,
            version,
        };
        target.publish(
            state,
            max_diagnostics,
            self.workspace.diagnostics(&uri, generation),
        );
        if trim {
            super::release_memory();
        }
    }
}

impl Worker {
    /// Merges a workspace check's result and publishes it with the
    /// document's current diagnostics; asks for a new check when the result
    /// cannot be moved to the current text.
    fn workspace_result(&mut self, result: WorkspaceResult) {
        let uri = result.uri.clone();
        let Some(state) = self.states.get_mut(&uri) else {
            return;
        };
        let facts = result.facts.clone();
        let Some(changed) = self.workspace.accept(result, state.generation) else {
            self.checks.check(&uri);
            return;
        };
        // New facts may change the live tier in the inlay hints.
        if state.workspace.as_deref() != Some(&*facts) {
            self.session.refresh_inlay_hints();
        }
        state.workspace = Some(facts);
        // Publishing the same diagnostics again would only make the editor redraw.
        if !changed {
            return;
        }
        // A client that pulls is told to pull again.
        self.session.refresh_diagnostics();
        let Some(version) = lock(&self.session.documents)
            .get(&uri)
            .map(|o| o.document.version)
        else {
            return;
        };
        let max_diagnostics = lock(&self.session.settings).max_diagnostics;
        let target = Target {
            session: &self.session,
            uri: uri.clone(),
            generation: state.generation,
            version,
        };
        target.publish(
            state,
            max_diagnostics,
            self.workspace.diagnostics(&uri, state.generation),
        );
    }
}

/// Brings a document's state to the job's text: through its host's update
/// when the job's edits continue the state's text, anew otherwise. Says
/// whether a full analysis was made or dropped (worth a trim when large).
fn update(previous: Option<DocState>, job: Job, options: HostOptions) -> (DocState, bool) {
    let Some(mut state) = previous else {
        // The text is analysed while the handler builds its rope.
        let host = match job.text {
            Some(whole) => {
                let rope = job.rope;
                let fallback = whole.clone();
                DocumentHost::open(whole, options, move || RopeText(rope.get(Some(&fallback))))
            }
            None => DocumentHost::new(RopeText(job.rope.get(None)), None, options),
        };
        let state = DocState {
            generation: job.generation,
            version: job.version,
            host,
            positions: PositionCache::default(),
            workspace: None,
            opened: OPENINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            links: Default::default(),
            links_capped_said: false,
            pulls: 0,
            pushes: 0,
        };
        return (state, true);
    };
    let text = RopeText(job.rope.get(job.text.as_deref().map(String::as_str)));
    let edits = job.edits.filter(|_| state.generation == job.base);
    let had_full = state.host.holds_full_analysis();
    // What the position cache needs of the text before the edits, as one.
    let single = edits
        .as_deref()
        .and_then(ByteEdit::compose)
        .map(|edit| (edit, PositionCache::old_lines(&state.host.text().0, edit)));
    let kind = state.host.update(text, edits.as_deref(), options);
    match (kind, single) {
        (UpdateKind::Incremental, Some((edit, old))) => {
            state
                .positions
                .shift_lines(&state.host.text().0, edit.range, edit.new_len, old)
        }
        _ => state.positions.clear(),
    }
    state.generation = job.generation;
    state.version = job.version;
    (state, had_full || kind == UpdateKind::Full)
}

/// Where an analysis of one generation of a document is published.
struct Target<'a> {
    session: &'a Session,
    uri: Uri,
    generation: u64,
    version: i32,
}

impl Target<'_> {
    /// Publishes the state's diagnostics, unless a newer generation exists
    /// (its own publication follows) or there is nothing to say.
    fn publish(self, state: &mut DocState, max_diagnostics: usize, workspace: &[Diagnostic]) {
        let is_current = |documents: &HashMap<Uri, OpenDocument>| {
            documents
                .get(&self.uri)
                .filter(|e| e.generation == self.generation)
                .map(|e| e.published)
        };
        let Some(was_published) = is_current(&lock(&self.session.documents)) else {
            return;
        };
        if !state.host.is_report() && !was_published {
            return;
        }
        // A client that pulls diagnostics asks for them itself.
        if self.session.negotiated().pull_diagnostics {
            return;
        }
        // Converted outside the lock: handlers applying changes do not wait for it.
        let encoding = self.session.negotiated().encoding;
        let diagnostics = capped(state, &self.uri, encoding, max_diagnostics, workspace);
        let mut documents = lock(&self.session.documents);
        if is_current(&documents).is_none() {
            return;
        }
        if let Some(open) = documents.get_mut(&self.uri) {
            open.published = !diagnostics.is_empty();
        }
        state.pushes += 1;
        // Sent under the lock, so publications keep the order of versions.
        self.session
            .publisher
            .publish(self.uri, Some(self.version), diagnostics);
    }
}

/// The host's capped diagnostics in protocol form, through the position cache.
pub(crate) fn capped(
    state: &mut DocState,
    uri: &Uri,
    encoding: report_core::text::Encoding,
    max: usize,
    workspace: &[Diagnostic],
) -> Vec<lsp::Diagnostic> {
    let positions = Positions {
        rope: &state.host.text().0,
        encoding,
        cache: Some(&state.positions),
    };
    let published = state.host.published(max);
    let diagnostics = published
        .diagnostics
        .iter()
        .map(|d| &**d)
        .chain(&published.summary)
        .chain(workspace)
        .map(|d| positions.diagnostic(uri, d))
        .collect();
    state.positions.keep_used();
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rope_still_coming_is_waited_for_and_made_from_the_text_if_it_never_comes() {
        let (send, coming) = mpsc::sync_channel(1);
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            send.send(ropey::Rope::from_str("sent 日本")).unwrap();
        });
        assert_eq!(
            JobRope::Coming(coming).get(Some("text")).to_string(),
            "sent 日本"
        );
        sender.join().unwrap();
        let (send, coming) = mpsc::sync_channel::<ropey::Rope>(1);
        drop(send);
        let rope = JobRope::Coming(coming).get(Some("the text 😀"));
        assert_eq!(rope.to_string(), "the text 😀");
        let ready = JobRope::Ready(ropey::Rope::from_str("ready"));
        assert_eq!(ready.get(None).to_string(), "ready");
    }
}
