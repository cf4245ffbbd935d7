//! An analysis thread's loop: changes queued together are analysed once,
//! a request first brings its document up to date, and a workspace check's
//! result is moved through the changes before it and published.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use report_core::cancel::{self, Cancelled, Wanted};
use report_core::host::{DocumentHost, HostOptions, UpdateKind};
use report_core::text::{changed_range, spans_most_of};
use tower_lsp_server::ls_types::Uri;

use super::job::{Job, JobRope, Message, Query};
use super::publish::Target;
use super::state::{DocState, Lookup, Unmade};
use crate::lsp::convert::{self, PositionCache};
use crate::lsp::document::{ByteEdit, RopeText};
use crate::lsp::memory::release_memory;
use crate::lsp::project_thread::{
    Accepted, Delivery, FactsRead, ProjectThread, TargetText, WorkspaceResult, WorkspaceResults,
};
use crate::lsp::session::{Session, Settings, lock};
use crate::project::since_head::{self, HeadCopy};
use crate::threads::{OnPool, opening_pool};

/// How long a document's analysis thread waits for work before it frees
/// what a repair retired: less than the pause between a person's keystrokes,
/// so the freeing (up to 30 ms at 50,000 entries) falls in it.
const FREE_WHEN_IDLE_FOR: Duration = Duration::from_millis(50);

/// Texts from this size on are worth a trim after their analysis replaces the previous one.
const LARGE_TEXT_BYTES: usize = 16 << 20;

/// Runs the analysis thread until the message loop drops its handle.
pub(super) fn run(
    messages: mpsc::Receiver<Message>,
    session: Arc<Session>,
    checks: ProjectThread,
    waiting: Arc<AtomicUsize>,
) {
    let mut worker = Analyser {
        states: HashMap::new(),
        session,
        checks,
        workspace: WorkspaceResults::default(),
        waiting,
        postponed: HashMap::new(),
        gave_way_since: HashMap::new(),
        received: HashMap::new(),
        batch: 0,
    };
    // Queries for the latest text of a document whose change is queued
    // behind them: answered once that change is analysed, which may be a
    // batch later (a change sent while the batch was analysed).
    let mut deferred: Vec<Query> = Vec::new();
    loop {
        // A repair's retired full analysis is freed once nothing has come
        // for a while: freeing it takes longer than the keystrokes after it.
        let first = if !deferred.is_empty() {
            // The change they wait for was sent to this thread before their
            // document's generation moved on: it is in the channel. Should it
            // not be, they are answered with what there is rather than never.
            match messages.try_recv() {
                Ok(first) => first,
                Err(mpsc::TryRecvError::Empty) => {
                    for query in deferred.drain(..) {
                        let found = worker.find(&query.uri);
                        worker.answer(query, found);
                    }
                    continue;
                }
                Err(mpsc::TryRecvError::Disconnected) => break,
            }
        } else if !worker.postponed.is_empty() {
            // The checks that gave way run once nothing else is queued.
            match messages.try_recv() {
                Ok(first) => first,
                Err(mpsc::TryRecvError::Empty) => {
                    worker.run_postponed();
                    continue;
                }
                Err(mpsc::TryRecvError::Disconnected) => break,
            }
        } else if worker.states.values().any(|s| s.host.holds_retired()) {
            match messages.recv_timeout(FREE_WHEN_IDLE_FOR) {
                Ok(first) => first,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    worker
                        .states
                        .values_mut()
                        .for_each(|s| s.host.drop_retired());
                    release_memory();
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
        worker.batch += 1;
        // Changes queued together are analysed once; a request first brings
        // its document up to date.
        let mut pending: Vec<Job> = Vec::new();
        // The workspace checks' steps delivered meanwhile, in order.
        let mut steps: Vec<(Uri, Step)> = Vec::new();
        for message in std::iter::once(first).chain(std::iter::from_fn(|| messages.try_recv().ok()))
        {
            if matches!(message, Message::Analyze(_) | Message::Query(_)) {
                worker.waiting.fetch_sub(1, Ordering::SeqCst);
            }
            match message {
                Message::Analyze(job) => {
                    worker.received.insert(job.uri.clone(), job.generation);
                    match pending.iter_mut().find(|p| p.uri == job.uri) {
                        Some(earlier) => earlier.absorb(job),
                        None => pending.push(job),
                    }
                }
                Message::Query(query) => {
                    if let Some(i) = pending.iter().position(|p| p.uri == query.uri) {
                        worker.analyze(pending.remove(i));
                    }
                    deferred.extend(worker.answer_or_wait(query));
                }
                Message::Workspace(delivery) => {
                    // Changes queued before it are applied first, so it is moved through them.
                    if let Some(i) = pending.iter().position(|p| p.uri == *delivery.uri()) {
                        worker.analyze(pending.remove(i));
                    }
                    match delivery {
                        // Run after the batch's changes and requests: they do not wait.
                        Delivery::Ask(uri) => steps.push((uri, Step::Ask)),
                        Delivery::Facts(read) => steps.push((read.uri.clone(), Step::Check(read))),
                        Delivery::Result(result) => {
                            // A pass decided without reading supersedes a step that gave way.
                            steps.retain(|(uri, _)| *uri != result.uri);
                            worker.forget_steps(&result.uri);
                            worker.workspace_result(result);
                        }
                        Delivery::Target(target) => worker.target_text(target),
                    }
                }
                Message::Close(uri) => {
                    steps.retain(|(u, _)| *u != uri);
                    worker.forget_steps(&uri);
                    worker.workspace.forget(&uri);
                    worker.checks.closed(&uri);
                    worker.received.remove(&uri);
                    pending.retain(|p| p.uri != uri);
                    if worker.states.remove(&uri).is_some() {
                        release_memory();
                    }
                }
            }
        }
        for job in pending {
            worker.analyze(job);
        }
        // A change sent while this batch was analysed is the next batch's.
        for query in std::mem::take(&mut deferred) {
            deferred.extend(worker.answer_or_wait(query));
        }
        for (uri, step) in steps {
            worker.step(uri, step);
        }
        // An opening's rope is made once nothing waits, or after one more
        // batch: a diagnostics pull sent while it was analysed is answered
        // first, and a busy thread does not keep the text and the
        // project's check waiting.
        let idle = worker.waiting.load(Ordering::SeqCst) == 0;
        worker.make_ropes(idle);
    }
}

/// One analysis thread's documents, and what it shares.
struct Analyser {
    states: HashMap<Uri, DocState>,
    session: Arc<Session>,
    checks: ProjectThread,
    workspace: WorkspaceResults,
    /// This thread's changes and requests sent and not yet taken (counted
    /// by the router): a workspace check gives way to them.
    waiting: Arc<AtomicUsize>,
    /// What of each report's workspace checks gave way, run again when
    /// nothing waits, and since when its checks have been giving way.
    postponed: HashMap<Uri, Postponed>,
    gave_way_since: HashMap<Uri, Instant>,
    /// The generation of each document's latest change taken from the channel.
    received: HashMap<Uri, u64>,
    /// The number of the batch being run (see `Unmade::batch`).
    batch: u64,
}

/// What of a report's workspace checks gave way to the user's changes or
/// requests: a check against facts read (the latest), and an ask (of what
/// its text asks of its project) that came after them; run in that order.
#[derive(Default)]
struct Postponed {
    check: Option<Box<FactsRead>>,
    ask: bool,
}

/// The workspace checks' steps on the analysis thread, each reading every
/// entry of the report: what it asks of its project (the workspace thread
/// asked for it), and the check against the facts read.
enum Step {
    Ask,
    Check(Box<FactsRead>),
}

/// How long a report's workspace checks keep giving way to a user who
/// types on: their diagnostics are due too. At 50 000 entries a check
/// takes about 350 ms, which a keystroke waits for once in this time at
/// the most; any pause of the typing that long lets it run.
const GIVE_WAY_FOR: Duration = Duration::from_secs(10);

/// What a thread holds of a document's latest text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Found {
    NotOpen,
    /// Its analysis is of the latest text.
    Current,
    /// The change that made the latest text was sent to this thread and is
    /// still in its channel.
    Coming,
    /// Out of sync, its analysis failed, or it is not this thread's (a
    /// target document, never analysed).
    Unknown,
}

impl Found {
    /// From the document's latest generation (None if not open, Some(None)
    /// if out of sync), that of this thread's analysis of it, and that of
    /// the last change of it this thread has taken from its channel.
    fn of(latest: Option<Option<u64>>, state: Option<u64>, received: Option<u64>) -> Found {
        match latest {
            None => Found::NotOpen,
            Some(Some(latest)) if state == Some(latest) => Found::Current,
            // A document's first change reaches its thread before any request about it.
            Some(Some(latest)) if received.is_some_and(|r| r < latest) => Found::Coming,
            Some(_) => Found::Unknown,
        }
    }
}

impl Analyser {
    /// What this thread holds of `uri`'s latest text, read at once: the
    /// document's generation under the lock a change is queued under.
    fn find(&self, uri: &Uri) -> Found {
        let latest = lock(&self.session.documents).get(uri).map(|open| {
            let out_of_sync = open.document.out_of_sync;
            (!out_of_sync).then_some(open.generation)
        });
        let state = self.states.get(uri).map(|s| s.generation);
        Found::of(latest, state, self.received.get(uri).copied())
    }

    /// Answers `query`, or hands it back when it is for the latest text and
    /// the change that made that text is still in this thread's channel
    /// (queued behind it, or sent while the thread analysed): it is
    /// answered once that change is analysed, rather than with nothing.
    /// While a change comes during every analysis it waits for a pause; a
    /// client that pulls again meanwhile cancels it.
    fn answer_or_wait(&mut self, query: Query) -> Option<Query> {
        match self.find(&query.uri) {
            Found::Coming if query.latest => Some(query),
            found => {
                self.answer(query, found);
                None
            }
        }
    }

    fn answer(&mut self, query: Query, found: Found) {
        if query.reads_text {
            self.make_rope(&query.uri);
        }
        let lookup = match (found, self.states.get_mut(&query.uri)) {
            (Found::NotOpen, _) => Lookup::NotOpen,
            (Found::Current, Some(state)) => {
                // The entries a keystroke left lagging are moved before a
                // feature reads them (the publication read through the lag).
                state.host.settle();
                Lookup::Current(state)
            }
            _ => Lookup::Unknown,
        };
        let workspace = self.workspace.diagnostics(&query.uri, lookup.generation());
        // A panic is caught by the query's own guard; this one keeps the thread alive regardless.
        if catch_unwind(AssertUnwindSafe(|| (query.run)(lookup, workspace))).is_err() {
            eprintln!("report-lsp: a request on {} panicked", query.uri.as_str());
            tracing::error!("a request on {} panicked", query.uri.as_str());
        }
    }

    fn analyze(&mut self, job: Job) {
        match (job.text.is_some(), self.states.get_mut(&job.uri)) {
            // A whole new text: an earlier opening's rope not made yet, and
            // the check it was to ask, are not needed (and the document's
            // rope is the new text's by now).
            (true, Some(state)) => state.unmade = None,
            // The job's edits apply to the text the document had.
            _ => self.make_rope(&job.uri),
        }
        let options = host_options(&job.settings, &job.uri);
        let uri = job.uri.clone();
        let (generation, version) = (job.generation, job.version);
        let previous = self.states.remove(&uri);
        let mut job = job;
        if let Some(previous) = &previous {
            narrow(previous, &mut job, options);
        }
        self.workspace
            .record_job(&uri, job.base, job.generation, job.edits.as_deref());
        // A new document, or a text unrelated to the last: its project is
        // checked (again) once it is analysed, published and, when opening
        // (always a text unrelated to the last), its rope made (see
        // `Unmade::rope`).
        let check_project = previous.is_none() || job.edits.is_none();
        if check_project {
            self.workspace.track(&uri);
        }
        let started = std::time::Instant::now();
        let updated = catch_unwind(AssertUnwindSafe(|| update(previous, job, options)));
        let analysed = started.elapsed();
        let (state, freed, unmade) = match updated {
            Ok(updated) => updated,
            Err(_) => {
                if check_project {
                    self.checks.check(&uri);
                }
                eprintln!("report-lsp: analysis of {} panicked", uri.as_str());
                tracing::error!("analysis of {} panicked", uri.as_str());
                return;
            }
        };
        let state = self
            .states
            .entry(uri.clone())
            .insert_entry(state)
            .into_mut();
        // An opening's rope is made once its diagnostics are out, and a pull
        // that came meanwhile is answered (see `make_rope`).
        let rope_to_make = unmade.is_some();
        state.unmade = unmade.map(|unmade| Unmade {
            batch: self.batch,
            ..unmade
        });
        let target = Target {
            session: &self.session,
            uri: uri.clone(),
            generation,
            version,
        };
        target.publish(state, self.workspace.diagnostics(&uri, generation));
        let len = match &state.unmade {
            Some(unmade) => unmade.whole.len(),
            None => state.host.text().0.len_bytes(),
        };
        let trim = freed && len >= LARGE_TEXT_BYTES;
        tracing::debug!(
            uri = uri.as_str(),
            generation,
            analysis_ms = crate::log::millis(analysed),
            publication_ms = crate::log::millis(started.elapsed() - analysed),
            "analysed and published"
        );
        // An opened shortlist, or one an edit replaced, gets its near-miss
        // index once the publication is out and nothing waits, rather than
        // before the first diagnostics or in the first edit that needs it.
        if self.waiting.load(Ordering::SeqCst) == 0 {
            state.host.index_near_misses();
        }
        if trim {
            release_memory();
        }
        if check_project && !rope_to_make {
            self.checks.check(&uri);
        }
    }

    /// Makes the rope of `uri`'s opening unless it is made: before anything
    /// but the publication or a diagnostics pull reads the text, and at the
    /// end of a batch after which nothing waits. The document takes the
    /// rope (its text is then freed), and the project is checked.
    fn make_rope(&mut self, uri: &Uri) {
        let Some(Unmade { whole, rope, .. }) =
            self.states.get_mut(uri).and_then(|s| s.unmade.take())
        else {
            return;
        };
        drop(whole);
        let rope = rope();
        if let Some(state) = self.states.get_mut(uri) {
            state.host.made_text(RopeText(rope));
        }
        if let Some(open) = lock(&self.session.documents).get_mut(uri) {
            open.document.take_made_rope();
        }
        self.checks.check(uri);
    }

    /// Makes the openings' ropes not made yet (see [`Analyser::make_rope`]):
    /// all of them, or those left unmade by an earlier batch.
    fn make_ropes(&mut self, all: bool) {
        let batch = self.batch;
        let unmade: Vec<Uri> = (self.states.iter())
            .filter(|(_, state)| {
                (state.unmade.as_ref()).is_some_and(|unmade| all || unmade.batch < batch)
            })
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in unmade {
            self.make_rope(&uri);
        }
    }

    /// A step delivered by the workspace thread, joined to what of the
    /// report's checks gave way (a check of newer facts takes the place of
    /// one of older facts; an ask stays), then run.
    fn step(&mut self, uri: Uri, step: Step) {
        let mut due = self.postponed.remove(&uri).unwrap_or_default();
        match step {
            Step::Ask => due.ask = true,
            Step::Check(read) => due.check = Some(read),
        }
        self.run_due(uri, due);
    }

    /// The report's due steps, the check first, then the ask. Each gives way
    /// to the changes and requests queued meanwhile (see
    /// `report_core::cancel`) and is run again once none waits, unless the
    /// report's checks have given way for [`GIVE_WAY_FOR`].
    fn run_due(&mut self, uri: Uri, mut due: Postponed) {
        self.make_rope(&uri);
        let started = Instant::now();
        let waiting = self.waiting.clone();
        let still_wanted = move || waiting.load(Ordering::SeqCst) == 0;
        let since = self.gave_way_since.get(&uri);
        let gives_way = since.is_none_or(|since| since.elapsed() < GIVE_WAY_FOR);
        let wanted = gives_way.then_some(Wanted(&still_wanted));
        if let Some(read) = due.check.take() {
            if let Err(read) = self.workspace_facts(read, wanted) {
                due.check = Some(read);
                return self.give_way(uri, due, started);
            }
            if !due.ask {
                // Checked to the end: the clock stops.
                self.gave_way_since.remove(&uri);
            }
        }
        // The clock goes on to the check of what the ask reads.
        if due.ask && self.project_request(&uri, wanted).is_err() {
            self.give_way(uri, due, started);
        }
    }

    fn give_way(&mut self, uri: Uri, due: Postponed, started: Instant) {
        tracing::debug!(
            uri = uri.as_str(),
            ms = crate::log::millis(started.elapsed()),
            "workspace checks gave way to a change or request"
        );
        self.gave_way_since.entry(uri.clone()).or_insert(started);
        self.postponed.insert(uri, due);
    }

    /// What gave way of the report's checks, dropped: a pass decided
    /// without reading took their place, or the report closed.
    fn forget_steps(&mut self, uri: &Uri) {
        self.postponed.remove(uri);
        self.gave_way_since.remove(uri);
    }

    /// The postponed steps, run again (they may give way again).
    fn run_postponed(&mut self) {
        let postponed: Vec<(Uri, Postponed)> = self.postponed.drain().collect();
        for (uri, due) in postponed {
            self.run_due(uri, due);
        }
    }

    /// What the report's text asks of its project, to the workspace thread
    /// that reads it; `Err` when it gave way to `wanted`.
    fn project_request(&mut self, uri: &Uri, wanted: Option<Wanted<'_>>) -> Result<(), Cancelled> {
        let Some(state) = self.states.get_mut(uri) else {
            return Ok(());
        };
        state.host.settle();
        let request = cancel::catch(|| state.host.project_request(wanted))?;
        self.checks.read(uri, state.generation, request);
        Ok(())
    }

    /// Checks the report's current text against its project's facts (read
    /// for an earlier text, maybe: a path named since has no facts, and no
    /// diagnostic, until the next read) and publishes the result; gives
    /// the facts back when it gave way to `wanted`.
    fn workspace_facts(
        &mut self,
        read: Box<FactsRead>,
        wanted: Option<Wanted<'_>>,
    ) -> Result<(), Box<FactsRead>> {
        let Some(state) = self.states.get_mut(&read.uri) else {
            return Ok(());
        };
        state.host.settle();
        let started = Instant::now();
        let checked = cancel::catch(|| state.host.workspace_check(&read.facts, wanted));
        let Ok(diagnostics) = checked else {
            return Err(read);
        };
        tracing::debug!(
            uri = read.uri.as_str(),
            requested = read.generation,
            generation = state.generation,
            ms = crate::log::millis(started.elapsed()),
            "workspace checks"
        );
        let read = *read;
        let since_head = read.since_head.and_then(|(generation, copy)| {
            let said = match copy {
                HeadCopy::Compared(said) => said,
                HeadCopy::Differs => since_head::differs(),
                HeadCopy::Unchanged { head_name, name } => {
                    // Said from this analysis only if it is of the text compared.
                    let host = (generation == state.generation).then_some(&state.host);
                    let analysed =
                        host.is_some_and(|h| h.status().bytes <= h.options().max_document_bytes);
                    let side = host.and_then(|h| h.diff_side());
                    since_head::unchanged(&head_name, &name, side, analysed)?
                }
            };
            Some((generation, Arc::new(said)))
        });
        let result = WorkspaceResult {
            uri: read.uri,
            generation: state.generation,
            diagnostics,
            facts: Arc::new(read.facts),
            since_head,
        };
        self.workspace_result(result);
        Ok(())
    }

    /// Merges a workspace check's result and publishes it with the
    /// document's current diagnostics; asks for a new check when the result
    /// cannot be moved to the current text.
    fn workspace_result(&mut self, result: WorkspaceResult) {
        let uri = result.uri.clone();
        self.make_rope(&uri);
        let Some(state) = self.states.get_mut(&uri) else {
            return;
        };
        let facts = result.facts.clone();
        let since_head = result.since_head.clone();
        let accepted = self.workspace.accept(result, state.generation);
        if accepted == Accepted::Stale {
            self.checks.check(&uri);
            return;
        }
        // A new comparison (or the first) redraws the lens, which the
        // client asked for before the check ended.
        let lens_changed = state.since_head != since_head;
        state.since_head = since_head;
        if lens_changed {
            self.session.refresh_code_lenses();
        }
        // New facts may change the live tier in the inlay hints; without git
        // facts, before or now, there is no live tier, and nothing to redraw.
        let had_git = state.workspace.as_ref().is_some_and(|w| w.git.is_some());
        if (had_git || facts.git.is_some()) && state.workspace.as_deref() != Some(&*facts) {
            self.session.refresh_inlay_hints();
        }
        state.workspace = Some(facts);
        // Publishing the same diagnostics again would only make the editor redraw.
        if accepted == Accepted::Same {
            return;
        }
        self.publish_workspace(&uri);
    }

    /// A target document's text, laid over the facts of the report's last
    /// check: the entries reading its file are checked again, the others'
    /// diagnostics kept. Nothing happens while the report's check is of an
    /// older text (the check to come reads the target's text then).
    fn target_text(&mut self, target: TargetText) {
        let uri = target.report.clone();
        self.make_rope(&uri);
        // A check that gave way reads the text too when it runs again.
        if let Some(read) = self.postponed.get_mut(&uri).and_then(|p| p.check.as_mut()) {
            crate::project::overlay::lay(&mut read.facts, &target.key, &target.text);
        }
        let Some(state) = self.states.get_mut(&uri) else {
            return;
        };
        let Some((diagnostics, facts)) = self.workspace.current_mut(&uri, state.generation) else {
            return;
        };
        // The state's copy let go first, so that the facts change in place.
        state.workspace = None;
        let laid = Arc::make_mut(facts);
        let changed = crate::project::overlay::lay(laid, &target.key, &target.text);
        let differs = !changed.is_empty() && {
            state.host.settle();
            state.host.recheck_workspace(diagnostics, laid, &changed)
        };
        // The text laid changes no file's kind or place: the links' URIs stand.
        lock(&state.links).carry_to(facts);
        state.workspace = Some(facts.clone());
        if differs {
            self.publish_workspace(&uri);
        }
    }

    /// Publishes the document's diagnostics with its new workspace ones.
    fn publish_workspace(&mut self, uri: &Uri) {
        // A client that pulls is told to pull again.
        self.session.refresh_diagnostics();
        let Some(state) = self.states.get_mut(uri) else {
            return;
        };
        let Some(version) = lock(&self.session.documents)
            .get(uri)
            .map(|o| o.document.version)
        else {
            return;
        };
        let target = Target {
            session: &self.session,
            uri: uri.clone(),
            generation: state.generation,
            version,
        };
        let workspace = self.workspace.diagnostics(uri, state.generation);
        target.publish(state, workspace);
    }
}

/// What the host is told besides the text, from the job's settings.
fn host_options(settings: &Settings, uri: &Uri) -> HostOptions {
    HostOptions {
        name_matches: settings.globs.matches(&convert::uri_path(uri)),
        max_document_bytes: settings.max_document_bytes,
        max_diagnostics: settings.max_diagnostics,
    }
}

/// A change over most of the text (a select-all and paste sends its range)
/// becomes the edit it really made, found by comparing the texts: the
/// workspace diagnostics and the position cache then move through that
/// edit, not through one that touched them all. New settings that leave
/// the text and the host's options as they were make no edit: the
/// analysis and the workspace diagnostics stand (a change of the
/// workspace's settings asks for its checks itself).
fn narrow(previous: &DocState, job: &mut Job, options: HostOptions) {
    let JobRope::Ready(rope) = &job.rope else {
        return;
    };
    let old = previous.host.text();
    if job.edits.is_none()
        && previous.generation == job.base
        && previous.host.options() == options
        && old.0 == *rope
    {
        job.edits = Some(Vec::new());
        return;
    }
    if let Some(edits) = &mut job.edits
        && previous.generation == job.base
        && spans_most_of(edits, old.0.len_bytes())
    {
        *edits = changed_range(old, &RopeText(rope.clone()))
            .into_iter()
            .collect();
    }
}

/// Brings a document's state to the job's text: through its host's update
/// when the job's edits continue the state's text, anew otherwise. Says
/// whether a full analysis was made or dropped (worth a trim when large),
/// and gives an opening's text back with its rope, not made yet.
fn update(
    previous: Option<DocState>,
    job: Job,
    options: HostOptions,
) -> (DocState, bool, Option<Unmade>) {
    if let Some(whole) = job.text {
        // An opening's text, or a whole new one taken as one (see
        // `Document::replace`): parsed in pieces on the opening pool, its
        // entries checked here (see `Threads::ParseOnly` for why). The host
        // holds an empty stand-in for its rope: the diagnostics go out
        // first, converted through the text, and the rope (40 ms for 40 MB)
        // is made after them (see `Analyser::make_rope`), while the client
        // reads them.
        let unmade = Unmade {
            whole: whole.clone(),
            rope: Box::new(move || job.rope.get()),
            batch: 0,
        };
        let runner = OnPool(opening_pool());
        let threads = runner.parse_only();
        // A large text's freed tree gives its pages back before the rope is
        // made: glibc keeps them otherwise, and the rope takes new ones
        // (lsp_latency's reloads of a 50 000-entry report peaked at 137
        // MiB, not 131).
        let stand_in = move |whole: &Arc<String>| {
            if whole.len() >= LARGE_TEXT_BYTES {
                release_memory();
            }
            RopeText::default()
        };
        let Some(mut state) = previous else {
            let host = DocumentHost::open(whole, options, threads, stand_in);
            return (
                DocState::new(job.generation, job.version, host, job.settings),
                true,
                Some(unmade),
            );
        };
        // The old text and analysis, given back before the new are made:
        // their pages, scattered in the heap, would not hold the new tree.
        state.host.release();
        release_memory();
        state.host.reopen(whole, options, threads, stand_in);
        state.positions.clear();
        state.generation = job.generation;
        state.version = job.version;
        state.settings = job.settings;
        return (state, true, Some(unmade));
    }
    let Some(mut state) = previous else {
        let host = DocumentHost::new(RopeText(job.rope.get()), None, options);
        return (
            DocState::new(job.generation, job.version, host, job.settings),
            true,
            None,
        );
    };
    let text = RopeText(job.rope.get());
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
        // No edit (the same text, or a change narrowed to nothing): every
        // position known still holds.
        (UpdateKind::Incremental, None) if edits.as_deref().is_some_and(<[ByteEdit]>::is_empty) => {
        }
        _ => state.positions.clear(),
    }
    state.generation = job.generation;
    state.version = job.version;
    state.settings = job.settings;
    (state, had_full || kind == UpdateKind::Full, None)
}

#[cfg(test)]
mod tests {
    use super::Found;

    #[test]
    fn a_query_waits_only_for_a_change_sent_to_its_thread() {
        // Analysed up to the latest text.
        assert_eq!(Found::of(Some(Some(3)), Some(3), Some(3)), Found::Current);
        // The latest change sent while the one before it was analysed.
        assert_eq!(Found::of(Some(Some(3)), Some(2), Some(2)), Found::Coming);
        assert_eq!(Found::of(Some(Some(3)), Some(1), Some(2)), Found::Coming);
        // The latest change taken and its analysis failed: nothing is coming.
        assert_eq!(Found::of(Some(Some(3)), None, Some(3)), Found::Unknown);
        assert_eq!(Found::of(Some(Some(3)), Some(2), Some(3)), Found::Unknown);
        // A document this thread never had a change of (a target document,
        // or one reopened on another thread).
        assert_eq!(Found::of(Some(Some(2)), None, None), Found::Unknown);
        // Out of sync, or not open.
        assert_eq!(Found::of(Some(None), Some(2), Some(2)), Found::Unknown);
        assert_eq!(Found::of(None, Some(2), Some(3)), Found::NotOpen);
    }
}
