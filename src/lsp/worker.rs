//! The analysis thread. It owns what is known of each open document's text
//! (a rope, the per-entry [`Incremental`] analysis, a full [`Analysis`] when
//! one is needed), brings it up to date with each change, publishes the
//! diagnostics, and answers the requests that read it. Messages are handled
//! in arrival order, so a request sees every change sent before it.
//!
//! An edit inside one entry is checked incrementally (that entry only); any
//! other change, or a text with syntax errors, gets a full analysis.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use ropey::Rope;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::convert::{PositionCache, Positions};
use super::document::ByteEdit;
use super::server::{Entry, Settings, lock};
use report_core::diagnostic::{Code, Diagnostic};
use report_core::incremental::Incremental;
use report_core::selection::looks_like_report;
use report_core::text::{Encoding, TextRange};
use report_core::{Analysis, hover};

pub enum Message {
    /// A document's text (or a setting) changed: bring it up to date.
    Analyze(Job),
    /// A request reading a document's analysis.
    Query(Query),
    /// The document was closed: forget it.
    Close(Uri),
}

pub struct Job {
    pub uri: Uri,
    /// The generation `edits` start from, and the one they lead to.
    pub base: u64,
    pub generation: u64,
    pub version: i32,
    pub rope: Rope,
    /// The changes since `base`, in order; None when the whole text must be
    /// analysed (an open, a whole-text change, new settings).
    pub edits: Option<Vec<ByteEdit>>,
    /// The whole text, when the handler had it at hand (an open): saves a copy.
    pub text: Option<String>,
    pub name_matches: bool,
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

/// A request: run with the document's state on the analysis thread.
pub struct Query {
    pub uri: Uri,
    pub run: Box<dyn FnOnce(Lookup<'_>) + Send>,
}

/// What a query finds of its document.
pub enum Lookup<'a> {
    NotOpen,
    /// Open, but its text is not known (out of sync, or its analysis failed).
    Unknown,
    Current(&'a mut DocState),
}

/// Sends `publishDiagnostics` notifications, serialized here and framed by
/// the transport: going through the client handle would first build a
/// `serde_json::Value` of every diagnostic, which costs more than
/// everything else a keystroke does when a thousand are published.
#[derive(Clone)]
pub struct Publisher(pub futures::channel::mpsc::UnboundedSender<Vec<u8>>);

impl Publisher {
    pub fn publish(&self, uri: Uri, version: Option<i32>, diagnostics: Vec<lsp::Diagnostic>) {
        #[derive(serde::Serialize)]
        struct Notification {
            jsonrpc: &'static str,
            method: &'static str,
            params: lsp::PublishDiagnosticsParams,
        }
        let notification = Notification {
            jsonrpc: "2.0",
            method: "textDocument/publishDiagnostics",
            params: lsp::PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            },
        };
        if let Ok(body) = serde_json::to_vec(&notification) {
            let _ = self.0.unbounded_send(body);
        }
    }
}

/// One document as the analysis thread knows it.
pub struct DocState {
    pub generation: u64,
    pub rope: Rope,
    /// Whether it is validated (its name matches, or it looks like a report).
    pub is_report: bool,
    /// The per-entry analysis, when the text has no syntax errors.
    pub incremental: Option<Incremental>,
    /// A full analysis of the current text: kept when there is no
    /// incremental one, made on demand otherwise (see [`DocState::full`]).
    full: Option<Analysis>,
    max_bytes: usize,
    /// Positions of the last publication, for the next one.
    positions: PositionCache,
    /// How its changes were analysed: per entry, or in full.
    pub incremental_updates: u64,
    pub full_analyses: u64,
}

impl DocState {
    /// All diagnostics, in order.
    pub fn diagnostics(&self) -> Vec<&Diagnostic> {
        match (&self.incremental, &self.full) {
            (Some(incremental), _) => incremental.diagnostics(),
            (None, Some(full)) => full.diagnostics.iter().collect(),
            (None, None) => Vec::new(),
        }
    }

    /// A full analysis of the current text, made now if there is none.
    pub fn full(&mut self) -> &Analysis {
        let (rope, max_bytes) = (&self.rope, self.max_bytes);
        self.full
            .get_or_insert_with(|| analyze_text(Arc::new(rope.to_string()), max_bytes))
    }

    /// The hover at `offset`: from the entry's text alone when it is in an
    /// entry; outside the entries, from a parse of the whole text (no checks
    /// needed, nothing kept); from the full analysis when there is one.
    pub fn hover(&mut self, offset: usize) -> Option<hover::HoverInfo> {
        let Some(incremental) = &self.incremental else {
            return hover::hover(self.full(), offset);
        };
        if let Some(info) = incremental.hover(offset, |range| slice(&self.rope, range)) {
            return info;
        }
        // Outside every entry object, so no entry's facts are needed.
        let parse = report_core::syntax::parse_shared(Arc::new(self.rope.to_string()));
        hover::hover_in_tree(parse.root()?, offset, |_| None)
    }
}

/// The text of `range` of a rope.
fn slice(rope: &Rope, range: TextRange) -> String {
    rope.byte_slice(range.as_range()).to_string()
}

fn analyze_text(text: Arc<String>, max_bytes: usize) -> Analysis {
    match text.len() > max_bytes {
        true => report_core::too_large(text, max_bytes),
        false => report_core::analyze_shared(text),
    }
}

/// Runs the analysis thread until the server drops its sender.
pub fn run(
    messages: mpsc::Receiver<Message>,
    documents: Arc<Mutex<HashMap<Uri, Entry>>>,
    settings: Arc<Mutex<Settings>>,
    publish: Publisher,
) {
    let mut worker = Worker {
        states: HashMap::new(),
        documents,
        settings,
        publish,
    };
    while let Ok(first) = messages.recv() {
        // Changes queued together are analysed once; a request first brings
        // its document up to date.
        let mut pending: Vec<Job> = Vec::new();
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
                    worker.answer(query);
                }
                Message::Close(uri) => {
                    pending.retain(|p| p.uri != uri);
                    if worker.states.remove(&uri).is_some() {
                        super::server::release_memory();
                    }
                }
            }
        }
        for job in pending {
            worker.analyze(job);
        }
    }
}

struct Worker {
    states: HashMap<Uri, DocState>,
    documents: Arc<Mutex<HashMap<Uri, Entry>>>,
    settings: Arc<Mutex<Settings>>,
    publish: Publisher,
}

/// Texts from this size on are worth a trim after their analysis replaces the previous one.
const LARGE_TEXT_BYTES: usize = 16 << 20;

impl Worker {
    fn answer(&mut self, query: Query) {
        let lookup = {
            let documents = lock(&self.documents);
            match documents.get(&query.uri) {
                None => None,
                Some(entry) if entry.document.out_of_sync => Some(None),
                Some(entry) => Some(Some(entry.generation)),
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
        // A panic is caught by the query's own guard; this one keeps the thread alive regardless.
        if catch_unwind(AssertUnwindSafe(|| (query.run)(lookup))).is_err() {
            eprintln!("report-lsp: a request on {} panicked", query.uri.as_str());
        }
    }

    fn analyze(&mut self, job: Job) {
        let (encoding, max_diagnostics, max_bytes) = {
            let settings = lock(&self.settings);
            (
                settings.encoding,
                settings.max_diagnostics,
                settings.max_document_bytes,
            )
        };
        let uri = job.uri.clone();
        let (generation, version) = (job.generation, job.version);
        // (whether it held a full analysis, how many it made), to tell whether one was freed.
        let before = self
            .states
            .get(&uri)
            .map_or((false, 0), |s| (s.full.is_some(), s.full_analyses));
        let updated = catch_unwind(AssertUnwindSafe(|| {
            update(self.states.remove(&job.uri), job, max_bytes)
        }));
        let state = match updated {
            Ok(state) => self
                .states
                .entry(uri.clone())
                .insert_entry(state)
                .into_mut(),
            Err(_) => {
                eprintln!("report-lsp: analysis of {} panicked", uri.as_str());
                return;
            }
        };
        // A full analysis was dropped, or made (its tree is freed once taken apart).
        let freed = before.0 || state.full_analyses != before.1;
        let trim = freed && state.rope.len_bytes() >= LARGE_TEXT_BYTES;
        let target = Target {
            documents: &self.documents,
            publish: &self.publish,
            uri,
            generation,
            version,
        };
        target.publish(state, encoding, max_diagnostics);
        if trim {
            super::server::release_memory();
        }
    }
}

/// Where an analysis of one generation of a document is published.
struct Target<'a> {
    documents: &'a Mutex<HashMap<Uri, Entry>>,
    publish: &'a Publisher,
    uri: Uri,
    generation: u64,
    version: i32,
}

impl Target<'_> {
    /// Publishes the state's diagnostics, unless a newer generation exists
    /// (its own publication follows) or there is nothing to say.
    fn publish(self, state: &mut DocState, encoding: Encoding, max_diagnostics: usize) {
        let is_current = |documents: &HashMap<Uri, Entry>| {
            documents
                .get(&self.uri)
                .filter(|e| e.generation == self.generation)
                .map(|e| e.published)
        };
        let Some(was_published) = is_current(&lock(self.documents)) else {
            return;
        };
        if !state.is_report && !was_published {
            return;
        }
        // Converted outside the lock: handlers applying changes do not wait for it.
        let diagnostics = match state.is_report {
            true => capped(state, &self.uri, encoding, max_diagnostics),
            false => Vec::new(),
        };
        let mut documents = lock(self.documents);
        if is_current(&documents).is_none() {
            return;
        }
        if let Some(entry) = documents.get_mut(&self.uri) {
            entry.published = !diagnostics.is_empty();
        }
        // Sent under the lock, so publications keep the order of versions.
        self.publish
            .publish(self.uri, Some(self.version), diagnostics);
    }
}

/// Brings a document's state to the job's text: incrementally when the job's
/// edits continue the state's text and fall inside entries, in full otherwise.
fn update(mut previous: Option<DocState>, job: Job, max_bytes: usize) -> DocState {
    let counts = previous
        .as_ref()
        .map_or((0, 0), |s| (s.incremental_updates, s.full_analyses));
    if previous
        .as_ref()
        .is_some_and(|s| job.edits.is_none() || s.generation != job.base)
    {
        // Dropped before the full analysis, which needs the memory.
        previous = None;
    }
    // What is left of `previous` continues the job's edits.
    if let Some(mut state) = previous
        && let Some(edits) = &job.edits
        && job.rope.len_bytes() <= max_bytes
        && let Some(mut incremental) = state.incremental.take()
    {
        let tracked = edits.iter().all(|e| incremental.edit(e.range, e.new_len))
            && incremental.len() == job.rope.len_bytes()
            && incremental.update(|range| slice(&job.rope, range));
        if tracked {
            match edits[..] {
                [edit] => state
                    .positions
                    .shift(&state.rope, &job.rope, edit.range, edit.new_len),
                _ => state.positions.clear(),
            }
            state.incremental = Some(incremental);
            state.full = None;
            state.rope = job.rope;
            state.generation = job.generation;
            state.max_bytes = max_bytes;
            state.incremental_updates += 1;
            return state;
        }
        // Dropped before the full analysis, which needs the memory.
        drop(state);
    }
    let text = job.text.unwrap_or_else(|| job.rope.to_string());
    let analysis = analyze_text(Arc::new(text), max_bytes);
    let is_report = job.name_matches || analysis.root().is_some_and(looks_like_report);
    // With an incremental analysis the full one is only made again on demand.
    let (incremental, full) = match is_report {
        true => match Incremental::from_analysis(analysis) {
            Ok(incremental) => (Some(incremental), None),
            Err(analysis) => (None, Some(*analysis)),
        },
        false => (None, Some(analysis)),
    };
    DocState {
        generation: job.generation,
        rope: job.rope,
        is_report,
        incremental,
        full,
        max_bytes,
        positions: PositionCache::default(),
        incremental_updates: counts.0,
        full_analyses: counts.1 + 1,
    }
}

/// At most `max` diagnostics, errors first, and one summary for those left out.
fn capped(state: &mut DocState, uri: &Uri, encoding: Encoding, max: usize) -> Vec<lsp::Diagnostic> {
    let published = capped_with(state, uri, encoding, max);
    state.positions.keep_used();
    published
}

fn capped_with(
    state: &DocState,
    uri: &Uri,
    encoding: Encoding,
    max: usize,
) -> Vec<lsp::Diagnostic> {
    let positions = Positions {
        rope: &state.rope,
        encoding,
        cache: Some(&state.positions),
    };
    let all = state.diagnostics();
    if all.len() <= max {
        return all.iter().map(|d| positions.diagnostic(uri, d)).collect();
    }
    // Errors before lesser severities, each group in document order.
    let mut chosen = all.clone();
    chosen.sort_by_key(|d| d.severity);
    chosen.truncate(max);
    chosen.sort_by(|a, b| Diagnostic::order(a, b));
    let mut published: Vec<lsp::Diagnostic> = chosen
        .iter()
        .map(|d| positions.diagnostic(uri, d))
        .collect();
    let left_out = all.len() - max;
    published.push(lsp::Diagnostic {
        range: positions.lsp_range(TextRange::empty(0)),
        severity: Some(lsp::DiagnosticSeverity::WARNING),
        code: Some(lsp::NumberOrString::String(Code::TooManyDiagnostics.as_str().into())),
        source: Some("report-lsp".into()),
        message: format!(
            "{left_out} more problems are not shown ({} in all; the limit is the reportLsp.maxDiagnostics setting, {max}); `report-lsp check` lists them all",
            all.len()
        ),
        ..Default::default()
    });
    published
}
