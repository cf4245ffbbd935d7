//! The workspace checks' reading in the server: a thread of its own, so
//! reading files, hashing and git never touch the message loop or the
//! analysis thread's keystroke path. A report's project is read when the
//! report is opened or saved and when a file it names (or git's index or
//! HEAD, or `conventions.json`) changes on disk. The text is the analysis
//! thread's alone: asked ([`Delivery::Ask`]), it says what the checks need
//! of the project (a `ProjectRequest`, read from its document host), this
//! thread reads it, and the analysis thread checks its current text
//! against the facts ([`Delivery::Facts`]) and merges the diagnostics into
//! its publications ([`WorkspaceResults`]). An open target document typed
//! in is no whole read: its text goes to the reports naming it
//! ([`TargetText`]), which check again only the entries reading it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use report_core::diagnostic::Diagnostic;
use report_core::project_checks::{ProjectRequest, WorkspaceFacts};
use report_core::text::{ByteEdit, Shift, TextRange};
use tower_lsp_server::ls_types::Uri;

use super::progress::{Progress, ProgressClient};
use super::session::{OpenDocument, Session, TextAsFile, WorkspaceSettings, lock};
use crate::project::Cache;
use crate::project::files::resolved;
use crate::project::overlay::{EditorText, lay};
use crate::project::root::{self, Resolution};
use crate::project::since_head::{Current, HeadCopy, SinceHead};

/// What a check found for one generation of a report.
pub struct WorkspaceResult {
    pub uri: Uri,
    pub generation: u64,
    pub diagnostics: Vec<Diagnostic>,
    pub facts: Arc<WorkspaceFacts>,
    /// The text compared with HEAD's copy of its file, where there is one,
    /// and the generation of the text compared.
    pub since_head: Option<(u64, Arc<SinceHead>)>,
}

/// The facts of a report's project, read for what its text of
/// `generation` asked ([`ProjectThread::read`]): the analysis thread
/// checks its current text against them.
pub struct FactsRead {
    pub uri: Uri,
    pub generation: u64,
    pub facts: WorkspaceFacts,
    /// HEAD's copy of the report, and the generation of the text compared.
    pub since_head: Option<(u64, HeadCopy)>,
}

/// The editor's text of a target document, for one report naming it: laid
/// over the facts of the report's last check (`project::overlay::lay`), it
/// has only the entries reading that file checked again.
pub struct TargetText {
    pub report: Uri,
    /// The file's path as compared (`paths::path_key`), under the report's root.
    pub key: String,
    pub text: Arc<EditorText>,
}

/// What the workspace thread hands the analysis thread.
pub enum Delivery {
    /// The report's project is to be read: the analysis thread answers with
    /// what its text asks of it ([`ProjectThread::read`]), so that the
    /// text is parsed by nobody else.
    Ask(Uri),
    /// The project's facts, to check the report against.
    Facts(Box<FactsRead>),
    /// The checks' result where nothing was read (off, no root, outside).
    Result(WorkspaceResult),
    Target(TargetText),
}

impl Delivery {
    /// The report it is for.
    pub fn uri(&self) -> &Uri {
        match self {
            Delivery::Ask(uri) => uri,
            Delivery::Facts(read) => &read.uri,
            Delivery::Result(result) => &result.uri,
            Delivery::Target(target) => &target.report,
        }
    }
}

/// Where results go: the analysis thread's queue, as a closure so this
/// module needs nothing of its message type.
pub type Deliver = Box<dyn Fn(Delivery) + Send>;

enum Request {
    Check(Uri),
    /// What the report's text of `generation` asks of its project.
    Read {
        uri: Uri,
        generation: u64,
        request: Arc<ProjectRequest>,
    },
    Changed(Vec<PathBuf>),
    /// The target document's file changed on disk, or it closed.
    TargetChanged(Uri),
    /// An open target document's text changed.
    TargetEdited(Uri),
    Closed(Uri),
}

/// The workspace thread, as the message loop and the analysis thread see it.
#[derive(Clone)]
pub struct ProjectThread {
    requests: mpsc::Sender<Request>,
    /// The folders the client named (`rootUri`, `workspaceFolders`).
    pub folders: Arc<Mutex<Vec<PathBuf>>>,
}

impl ProjectThread {
    pub fn spawn(
        session: Arc<Session>,
        deliver: Deliver,
        progress: Option<ProgressClient>,
    ) -> ProjectThread {
        let (requests, received) = mpsc::channel();
        let folders = Arc::new(Mutex::new(Vec::new()));
        let worker = ProjectReader {
            session,
            deliver,
            folders: folders.clone(),
            cache: Cache::default(),
            watched: HashMap::new(),
            progress,
            passes: 0,
        };
        std::thread::Builder::new()
            .name("workspace".into())
            .spawn(move || worker.run(received))
            .expect("the workspace thread starts");
        ProjectThread { requests, folders }
    }

    /// Checks the report at `uri` against its project (again).
    pub fn check(&self, uri: &Uri) {
        let _ = self.requests.send(Request::Check(uri.clone()));
    }

    /// Reads the project of the report at `uri` for what its text of
    /// `generation` asks (the analysis thread's answer to [`Delivery::Ask`]).
    pub fn read(&self, uri: &Uri, generation: u64, request: Arc<ProjectRequest>) {
        let _ = self.requests.send(Request::Read {
            uri: uri.clone(),
            generation,
            request,
        });
    }

    /// Files changed on disk: recheck every open report that names one.
    pub fn changed(&self, paths: Vec<PathBuf>) {
        let _ = self.requests.send(Request::Changed(paths));
    }

    /// The target document at `uri` changed on disk or closed: the reports
    /// that name its file are checked again whole, against the file.
    pub fn target_changed(&self, uri: &Uri) {
        let _ = self.requests.send(Request::TargetChanged(uri.clone()));
    }

    /// The open target document at `uri` changed in the editor: the
    /// reports naming its file get its text, and check again only the
    /// entries reading it.
    pub fn target_edited(&self, uri: &Uri) {
        let _ = self.requests.send(Request::TargetEdited(uri.clone()));
    }

    pub fn closed(&self, uri: &Uri) {
        let _ = self.requests.send(Request::Closed(uri.clone()));
    }
}

struct ProjectReader {
    session: Arc<Session>,
    deliver: Deliver,
    folders: Arc<Mutex<Vec<PathBuf>>>,
    cache: Cache,
    /// Per report: the root and every path whose change calls for a recheck.
    watched: HashMap<Uri, (PathBuf, HashSet<PathBuf>)>,
    progress: Option<ProgressClient>,
    /// First passes shown with progress so far (each gets its own token).
    passes: u64,
}

impl ProjectReader {
    fn run(mut self, requests: mpsc::Receiver<Request>) {
        while let Ok(first) = requests.recv() {
            // Requests queued together are served once per report.
            let mut due: Vec<Uri> = Vec::new();
            let mut reads: Vec<(Uri, u64, Arc<ProjectRequest>)> = Vec::new();
            let mut edited: Vec<(Uri, PathBuf)> = Vec::new();
            for request in
                std::iter::once(first).chain(std::iter::from_fn(|| requests.try_recv().ok()))
            {
                match request {
                    Request::Check(uri) => due.push(uri),
                    Request::Read {
                        uri,
                        generation,
                        request,
                    } => {
                        reads.retain(|(u, _, _)| *u != uri);
                        reads.push((uri, generation, request));
                    }
                    Request::Changed(paths) => due.extend(self.naming(&paths)),
                    Request::TargetChanged(uri) => {
                        let file = uri.to_file_path().map(|p| resolved(&p));
                        due.extend(self.naming(&Vec::from_iter(file)));
                    }
                    Request::TargetEdited(uri) => {
                        let Some(file) = uri.to_file_path().map(|p| resolved(&p)) else {
                            continue;
                        };
                        if !edited.iter().any(|(u, _)| *u == uri) {
                            edited.push((uri, file));
                        }
                    }
                    Request::Closed(uri) => {
                        self.unwatch(&uri);
                        due.retain(|u| *u != uri);
                        reads.retain(|(u, _, _)| *u != uri);
                    }
                }
            }
            let mut seen = HashSet::new();
            due.retain(|u| seen.insert(u.clone()));
            // A report asked again now reads the targets' texts then.
            for (target, path) in edited {
                self.lay_edited(&target, &path, &due);
            }
            for uri in due {
                let delivery = self.due(&uri);
                // A pass decided here, reading nothing, is one as well.
                if let Some(Delivery::Result(result)) = &delivery {
                    tracing::debug!(
                        uri = uri.as_str(),
                        read = false,
                        diagnostics = result.diagnostics.len(),
                        "workspace pass"
                    );
                }
                if let Some(delivery) = delivery {
                    (self.deliver)(delivery);
                }
            }
            for (uri, generation, request) in reads {
                let started = Instant::now();
                let delivery = self.read(&uri, generation, &request);
                tracing::debug!(
                    uri = uri.as_str(),
                    ms = crate::log::millis(started.elapsed()),
                    read = true,
                    paths = request.paths.len(),
                    "workspace pass"
                );
                if let Some(delivery) = delivery {
                    (self.deliver)(delivery);
                }
            }
        }
    }

    /// Hands the editor's text of the target document at `target` to each
    /// report that names its file and is not checked whole now (`due`):
    /// hashed once, whatever the number of reports.
    fn lay_edited(&self, target: &Uri, path: &Path, due: &[Uri]) {
        let naming: Vec<(Uri, PathBuf)> = self
            .watched
            .iter()
            .filter(|(uri, (_, named))| named.contains(path) && !due.contains(uri))
            .map(|(uri, (root, _))| (uri.clone(), root.clone()))
            .collect();
        if naming.is_empty() {
            return;
        }
        let Some(text) = lock(&self.session.documents)
            .get_mut(target)
            .filter(|o| o.target)
            .and_then(OpenDocument::text_as_file)
        else {
            return;
        };
        let Some(file) = target.to_file_path() else {
            return;
        };
        let text = text.get();
        for (report, root) in naming {
            let Some(key) = crate::project::files::relative_key(&file, &root) else {
                continue;
            };
            (self.deliver)(Delivery::Target(TargetText {
                report,
                key,
                text: text.clone(),
            }));
        }
    }

    /// Keeps the paths the report at `uri` reads under `root`, and tells the
    /// client's watchers their globs.
    fn watch(&mut self, uri: &Uri, root: &Path, facts: &WorkspaceFacts) {
        // Closed while it was read: its globs are not kept.
        if !lock(&self.session.documents).contains_key(uri) {
            return;
        }
        let named = facts.files.keys().map(|key| Path::new(key.as_str()));
        let globs = crate::lsp::watchers::globs_naming(named);
        self.session.watched.open_report(uri, Some(globs));
        self.watched.insert(
            uri.clone(),
            (root.to_path_buf(), watched_paths(root, facts)),
        );
    }

    /// Forgets the paths the report at `uri` reads.
    fn unwatch(&mut self, uri: &Uri) {
        self.session.watched.open_report(uri, None);
        self.watched.remove(uri);
    }

    /// The reports that name one of `paths`, or whose root's git state or
    /// conventions they are.
    fn naming(&self, paths: &[PathBuf]) -> Vec<Uri> {
        self.watched
            .iter()
            .filter(|(_, (_, named))| paths.iter().any(|p| named.contains(p)))
            .map(|(uri, _)| uri.clone())
            .collect()
    }

    /// A check of the report at `uri` is due: what needs none of its text
    /// but its start is decided here (the checks off, a root that is not
    /// here); otherwise the analysis thread is asked what its text asks of
    /// the project.
    fn due(&mut self, uri: &Uri) -> Option<Delivery> {
        let (rope, generation) = {
            let mut documents = lock(&self.session.documents);
            let open = documents.get_mut(uri).filter(|o| !o.document.out_of_sync)?;
            (open.document.rope().clone(), open.generation)
        };
        let settings = self.session.settings_for(uri).workspace();
        // Turned off (a setting, a restricted workspace): nothing under the
        // project is read, not even whether its root is there; what was
        // published is withdrawn by this empty result.
        if let Some(why) = settings.off {
            let_go(rope);
            self.unwatch(uri);
            let result = not_read(uri, generation, Vec::new(), why.to_string());
            return Some(Delivery::Result(result));
        }
        let report = uri.to_file_path().map(|p| p.into_owned());
        // A report that names a root which is not here gets no workspace
        // checks: its envelope, at the start, says so without going through
        // what may be a huge text.
        let folders = lock(&self.folders).clone();
        let no_root = names_a_missing_root(&rope, report.as_deref())
            || !can_have_a_root(&rope, report.as_deref(), &folders);
        let_go(rope);
        match no_root {
            true => Some(Delivery::Result(nothing_read(uri, generation))),
            false => Some(Delivery::Ask(uri.clone())),
        }
    }

    /// Reads the project of the report at `uri` for `request` (what its
    /// text of `generation` asks), as the trust rules allow.
    fn read(&mut self, uri: &Uri, generation: u64, request: &ProjectRequest) -> Option<Delivery> {
        if !request.is_report {
            return None;
        }
        let settings = self.session.settings_for(uri).workspace();
        let report = uri.to_file_path().map(|p| p.into_owned());
        let folders = lock(&self.folders).clone();
        // A report's first pass reads every file it names: shown as progress
        // where the client shows it; later passes mostly hit the cache.
        let mut starts =
            !self.watched.contains_key(uri) && self.session.capabilities().work_done_progress;
        let mut progress = None;
        let read = read_project(
            request,
            report.as_deref(),
            &folders,
            &settings,
            &mut self.cache,
            &mut |done, total| {
                if std::mem::take(&mut starts)
                    && let Some(client) = &self.progress
                {
                    self.passes += 1;
                    progress = Progress::start(
                        client,
                        &self.session,
                        format!("report-lsp/workspace/{}", self.passes),
                        "Checking the report against the project",
                        "files checked",
                    );
                }
                if let Some(progress) = &mut progress {
                    progress.report(done, total);
                }
            },
        );
        if let Some(progress) = progress {
            progress.end();
        }
        let (found, mut facts) = match read {
            Read::Facts { root, facts } => (root, facts),
            // In the editor a root that is not found is said by nothing on
            // screen: the report was opened away from its project.
            Read::NoRoot => {
                return Some(Delivery::Result(nothing_read(uri, generation)));
            }
            // The settings changed since the check was asked.
            Read::Off(why) => {
                self.unwatch(uri);
                let result = not_read(uri, generation, Vec::new(), why.to_string());
                return Some(Delivery::Result(result));
            }
            Read::Outside { said, why } => {
                self.unwatch(uri);
                return Some(Delivery::Result(not_read(uri, generation, vec![said], why)));
            }
        };
        let found = found.as_path();
        lay_open_targets(&self.session, found, &mut facts);
        let since_head = report
            .as_deref()
            .and_then(|file| self.since_head(uri, file));
        self.watch(uri, found, &facts);
        Some(Delivery::Facts(Box::new(FactsRead {
            uri: uri.clone(),
            generation,
            facts,
            since_head,
        })))
    }

    /// The open report's current text compared with HEAD's copy of `file`,
    /// and the generation of that text. Where HEAD's copy is that text, the
    /// editor says so from its own analysis; otherwise both are analysed,
    /// at each check only for a text under [`COMPARE_AT_EACH_CHECK_BYTES`].
    fn since_head(&self, uri: &Uri, file: &Path) -> Option<(u64, HeadCopy)> {
        let (rope, generation) = {
            let mut documents = lock(&self.session.documents);
            let open = documents.get_mut(uri).filter(|o| !o.document.out_of_sync)?;
            (open.document.rope().clone(), open.generation)
        };
        let compare_now = rope.len_bytes() < COMPARE_AT_EACH_CHECK_BYTES;
        let compared = compare_with_head(file, &rope, compare_now);
        let_go(rope);
        Some((generation, compared?))
    }
}

/// A report's text up to which it is compared with HEAD's copy at each
/// check; a larger one differing from HEAD's copy is compared when the
/// lens's command asks. Comparing analyses both texts whole, about five
/// times the text at once: past this, more than the open itself costs.
pub const COMPARE_AT_EACH_CHECK_BYTES: usize = 4 << 20;

/// The report `rope` (the text of `file`) against HEAD's copy of `file`:
/// [`HeadCopy::Unchanged`] where they are the same, and compared now
/// unless they differ and not `compare_now`.
pub fn compare_with_head(file: &Path, rope: &ropey::Rope, compare_now: bool) -> Option<HeadCopy> {
    let current = Current {
        is: |head: &[u8]| same_bytes(rope, head),
        compare_now,
        analyse: || {
            // Only counted: the comparison needs the facts, not the diagnostics.
            let keep = report_core::diagnostic::Keep::at_most(0);
            report_core::analyze_with(
                Arc::new(rope.to_string()),
                report_core::AnalysisOptions::keeping(keep),
            )
        },
    };
    let compared = crate::project::since_head::since_head(file, current);
    // What it analysed of a huge text is freed by now: the pages go back
    // to the system.
    if rope.len_bytes() >= TRIM_AFTER_BYTES {
        super::memory::release_memory();
    }
    compared
}

/// Drops this thread's copy of a document's rope, and gives the pages back
/// when it was a huge one's: the document may have been closed meanwhile,
/// its last copy this one (a closed 50 MB report's memory stayed).
fn let_go(rope: ropey::Rope) {
    let large = rope.len_bytes() >= TRIM_AFTER_BYTES;
    drop(rope);
    if large {
        super::memory::release_memory();
    }
}

/// Whether `bytes` are the rope's text, compared chunk by chunk.
fn same_bytes(rope: &ropey::Rope, bytes: &[u8]) -> bool {
    if rope.len_bytes() != bytes.len() {
        return false;
    }
    let mut at = 0;
    rope.chunks().all(|chunk| {
        let same = bytes[at..at + chunk.len()] == *chunk.as_bytes();
        at += chunk.len();
        same
    })
}

/// The editor's texts of the documents open under `root` that the report
/// names, over their files' facts: an unsaved change that makes an entry
/// stale says so in the report while it is typed, and a saved one that
/// undoes it clears it.
fn lay_open_targets(session: &Session, root: &Path, facts: &mut WorkspaceFacts) {
    // The texts taken under the lock (a rope's clone shares its nodes); the
    // paths and hashes worked out after, so that no request waits on them.
    let texts: Vec<(Uri, TextAsFile)> = lock(&session.documents)
        .iter_mut()
        .filter(|(_, o)| o.target)
        .filter_map(|(uri, o)| Some((uri.clone(), o.text_as_file()?)))
        .collect();
    let open: Vec<(String, TextAsFile)> = texts
        .into_iter()
        .filter_map(|(uri, text)| {
            let key = crate::project::files::relative_key(&uri.to_file_path()?, root)?;
            Some((key, text))
        })
        .collect();
    // Only those the report names are hashed.
    let named = |key: &str| {
        facts
            .files
            .keys()
            .any(|w| report_core::paths::same_path(w, key))
    };
    let open: Vec<(String, TextAsFile)> = open.into_iter().filter(|(k, _)| named(k)).collect();
    for (key, text) in open {
        lay(facts, &key, &text.get());
    }
}

/// What the trust rules let a report's workspace checks read: the same for
/// an open report and for one found unopened.
pub(crate) enum Read {
    /// Turned off (a setting, a restricted workspace): nothing under the
    /// project is read, not even whether its root is there.
    Off(&'static str),
    /// No root holds the report here (it names one that is not here, or
    /// none is found): nothing is read, nothing said.
    NoRoot,
    /// Its root lies outside every workspace folder, which no setting
    /// allows: not read, and `said` says so.
    Outside { said: Diagnostic, why: String },
    /// The project's facts under its root.
    Facts {
        root: PathBuf,
        facts: WorkspaceFacts,
    },
}

/// The project a report describes, read as the trust rules allow: the
/// checks off first, then its root (`root::resolve` with the workspace
/// folders), then the root inside a workspace folder unless
/// `allowRootOutsideWorkspace`, then the facts under it, within the
/// bounds of `project::files` and with git read in-process.
pub(crate) fn read_project(
    request: &ProjectRequest,
    report: Option<&Path>,
    folders: &[PathBuf],
    settings: &WorkspaceSettings,
    cache: &mut Cache,
    progress: &mut dyn FnMut(usize, usize),
) -> Read {
    if let Some(why) = settings.off {
        return Read::Off(why);
    }
    let named = request.named_root.as_deref();
    let Resolution::Found(found) = root::resolve(named, report, None, folders) else {
        return Read::NoRoot;
    };
    // A root outside every workspace folder was not chosen by the user
    // (the report names it): it is not read unless a setting allows it.
    if !settings.allow_root_outside_workspace
        && !root::inside_a_workspace_folder(&found, report, folders)
    {
        let shown = found.display().to_string();
        let said = report_core::project_checks::root_outside_workspace(request.root_range, &shown);
        let why = format!(
            "the project root `{shown}` lies outside every workspace folder (the setting `allowRootOutsideWorkspace` allows it)"
        );
        return Read::Outside { said, why };
    }
    cache.token_tolerance = settings.token_tolerance;
    let facts = crate::project::gather_with_progress(request, Some(&found), cache, progress);
    Read::Facts { root: found, facts }
}

/// A result for a report with no project here: nothing read, nothing said.
fn nothing_read(uri: &Uri, generation: u64) -> WorkspaceResult {
    WorkspaceResult {
        uri: uri.clone(),
        generation,
        diagnostics: Vec::new(),
        facts: Arc::new(WorkspaceFacts::default()),
        since_head: None,
    }
}

/// A result for a report whose project is not read, and why.
fn not_read(
    uri: &Uri,
    generation: u64,
    diagnostics: Vec<Diagnostic>,
    why: String,
) -> WorkspaceResult {
    WorkspaceResult {
        uri: uri.clone(),
        generation,
        diagnostics,
        facts: Arc::new(WorkspaceFacts {
            not_read: Some(why),
            ..WorkspaceFacts::default()
        }),
        since_head: None,
    }
}

/// The files whose change calls for a recheck: those named, git's index
/// and HEAD, and `conventions.json`.
pub(crate) fn watched_paths(root: &Path, facts: &WorkspaceFacts) -> HashSet<PathBuf> {
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut paths: HashSet<PathBuf> = facts
        .files
        .keys()
        .map(|p| canonical.join(p.trim_end_matches('/')))
        .collect();
    for base in [root, canonical.as_path()] {
        for name in [".git/index", ".git/HEAD", "conventions.json"] {
            paths.insert(base.join(name));
        }
        for p in facts.files.keys() {
            paths.insert(base.join(p.trim_end_matches('/')));
        }
    }
    paths
}

/// The analysis thread's copy of the workspace results, kept in step with
/// the text: each job's edits move the current result's offsets; a result
/// that arrives for an older generation is moved through the edits made
/// since, or dropped (and the check asked again) when a whole-text change
/// came between.
#[derive(Default)]
pub struct WorkspaceResults {
    documents: HashMap<Uri, KeptResult>,
}

#[derive(Default)]
struct KeptResult {
    /// The diagnostics and facts, as of `generation`.
    current: Option<(u64, Vec<Diagnostic>, Arc<WorkspaceFacts>)>,
    /// Recent jobs: (base, generation, edits), to move a late result forward.
    log: Vec<(u64, u64, Option<Vec<ByteEdit>>)>,
}

/// Jobs remembered per document for late results.
const LOG_JOBS: usize = 512;

impl WorkspaceResults {
    /// Records a job of the analysis thread: its edits move what is kept.
    pub fn record_job(
        &mut self,
        uri: &Uri,
        base: u64,
        generation: u64,
        edits: Option<&[ByteEdit]>,
    ) {
        let Some(kept) = self.documents.get_mut(uri) else {
            return;
        };
        if let Some((at, diagnostics, _)) = &mut kept.current
            && *at == base
            && let Some(edits) = edits
        {
            shift_all(diagnostics, edits);
            *at = generation;
        }
        kept.log
            .push((base, generation, edits.map(<[ByteEdit]>::to_vec)));
        if kept.log.len() > LOG_JOBS {
            kept.log.drain(..kept.log.len() - LOG_JOBS);
        }
    }

    /// Starts keeping results for `uri` (on open), so its jobs are logged.
    pub fn track(&mut self, uri: &Uri) {
        self.documents.entry(uri.clone()).or_default();
    }

    pub fn forget(&mut self, uri: &Uri) {
        self.documents.remove(uri);
    }

    /// Takes a result in, moved to `generation` (the document's now).
    pub fn accept(&mut self, result: WorkspaceResult, generation: u64) -> Accepted {
        let kept = self.documents.entry(result.uri.clone()).or_default();
        let mut diagnostics = result.diagnostics;
        let mut at = result.generation;
        for (base, next, edits) in &kept.log {
            if *base != at || at == generation {
                continue;
            }
            let Some(edits) = edits else {
                return Accepted::Stale;
            };
            shift_all(&mut diagnostics, edits);
            at = *next;
        }
        if at != generation {
            return Accepted::Stale;
        }
        // What was published with this generation: the kept diagnostics if they were moved to it.
        let published: &[Diagnostic] = match &kept.current {
            Some((was_at, was, _)) if *was_at == at => was,
            _ => &[],
        };
        let changed = published != diagnostics.as_slice();
        kept.log.clear();
        kept.current = Some((at, diagnostics, result.facts));
        match changed {
            true => Accepted::Changed,
            false => Accepted::Same,
        }
    }

    /// The diagnostics and facts kept, when they are of `generation`.
    pub fn current_mut(
        &mut self,
        uri: &Uri,
        generation: u64,
    ) -> Option<(&mut Vec<Diagnostic>, &mut Arc<WorkspaceFacts>)> {
        match self.documents.get_mut(uri)?.current.as_mut()? {
            (at, diagnostics, facts) if *at == generation => Some((diagnostics, facts)),
            _ => None,
        }
    }

    /// The diagnostics to publish with `generation`, when they are of it.
    pub fn diagnostics(&self, uri: &Uri, generation: u64) -> &[Diagnostic] {
        match self.documents.get(uri).and_then(|k| k.current.as_ref()) {
            Some((at, diagnostics, _)) if *at == generation => diagnostics,
            _ => &[],
        }
    }
}

/// What became of a workspace result taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// Kept, with diagnostics other than those published.
    Changed,
    /// Kept, with the diagnostics published already.
    Same,
    /// It could not be moved to the current text: a new check is needed.
    Stale,
}

/// Moves diagnostics through edits; one whose range an edit touched is
/// dropped, since it describes text that is gone (the next check tells).
fn shift_all(diagnostics: &mut Vec<Diagnostic>, edits: &[ByteEdit]) {
    for edit in edits {
        let touched = |r: TextRange| {
            r.start < edit.range.end && edit.range.start < r.end
                || (edit.range.is_empty() && r.start < edit.range.start && edit.range.start < r.end)
        };
        diagnostics.retain(|d| !touched(d.range));
        let shift = Shift {
            from: edit.range.end,
            delta: edit.new_len as isize - edit.range.len() as isize,
        };
        for diagnostic in diagnostics.iter_mut() {
            diagnostic.shift(shift);
        }
    }
}

/// Whether a root can be found for the report at all: it lies in a
/// workspace folder, or its text has a `"project_root"` key somewhere
/// (the only other way to name one). Otherwise a full analysis of what may
/// be a huge text would only find that there is none.
fn can_have_a_root(
    rope: &ropey::Rope,
    report: Option<&std::path::Path>,
    folders: &[PathBuf],
) -> bool {
    root::in_a_workspace_folder(report, folders) || contains(rope, b"\"project_root\"")
}

/// Whether `needle` occurs in the rope's text, across chunk boundaries too.
fn contains(rope: &ropey::Rope, needle: &[u8]) -> bool {
    let finder = memchr::memmem::Finder::new(needle);
    let keep = needle.len().saturating_sub(1);
    // The last `keep` bytes before the current chunk.
    let mut tail: Vec<u8> = Vec::with_capacity(keep * 2);
    for chunk in rope.chunks() {
        let bytes = chunk.as_bytes();
        let mut seam = tail.clone();
        seam.extend_from_slice(&bytes[..bytes.len().min(keep)]);
        if finder.find(&seam).is_some() || finder.find(bytes).is_some() {
            return true;
        }
        tail.extend_from_slice(bytes);
        let excess = tail.len().saturating_sub(keep);
        tail.drain(..excess);
    }
    false
}

/// Texts from this size on are worth a trim after their check.
const TRIM_AFTER_BYTES: usize = 16 << 20;

/// Bytes of a report's start read for its `scan.project_root`.
const ENVELOPE_PREFIX_BYTES: usize = 64 << 10;

/// Whether the report's start names a `scan.project_root` that is no folder
/// here (absolute, or relative to the report's folder). False when the
/// start names none: then only a full analysis can tell.
fn names_a_missing_root(rope: &ropey::Rope, report: Option<&std::path::Path>) -> bool {
    let len = rope.len_bytes().min(ENVELOPE_PREFIX_BYTES);
    let prefix = rope.slice(..rope.byte_to_char(len)).to_string();
    let parse = report_core::syntax::parse(&prefix);
    let Some(named) = parse
        .root()
        .and_then(report_core::project_checks::project_root_of)
        .and_then(|n| n.as_str())
        .filter(|s| !s.is_empty())
        .map(std::path::PathBuf::from)
    else {
        return false;
    };
    let candidate = match (named.is_absolute(), report.and_then(|r| r.parent())) {
        (true, _) => named,
        (false, Some(folder)) => folder.join(named),
        (false, None) => return false,
    };
    !candidate.is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_found_wherever_the_ropes_chunks_cut_it() {
        let needle = "\"project_root\"";
        let filler = "漢字 emoji 😀 and text, ".repeat(4000);
        for at in (0..filler.len())
            .filter(|&i| filler.is_char_boundary(i))
            .step_by(97)
        {
            let text = format!("{}{needle}{}", &filler[..at], &filler[at..]);
            let rope = ropey::Rope::from_str(&text);
            assert!(contains(&rope, needle.as_bytes()), "at {at}");
        }
        let rope = ropey::Rope::from_str(&format!("{filler}\"project_roo\""));
        assert!(!contains(&rope, needle.as_bytes()));
    }

    #[test]
    fn a_report_away_from_every_folder_and_naming_no_root_has_none() {
        let report = Path::new("/tmp/away/r.report.json");
        let text = ropey::Rope::from_str("{\"schema_version\": \"1\", \"entries\": [0, 0]}");
        assert!(!can_have_a_root(&text, Some(report), &[]));
        assert!(can_have_a_root(
            &text,
            Some(report),
            &[PathBuf::from("/tmp")]
        ));
        let named = ropey::Rope::from_str("{\"scan\": {\"project_root\": \".\"}}");
        assert!(can_have_a_root(&named, Some(report), &[]));
    }
}
