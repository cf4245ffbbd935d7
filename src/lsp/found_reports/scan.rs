//! The thread that finds reports: it searches the workspace folders, reads
//! and analyses each report that is not open, keeps what the protocol needs
//! of it in the [`Store`], and follows the files' changes. Nothing it
//! reads is run; it writes nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use report_core::cancel::{self, Wanted};
use report_core::diagnostic::{Code, Diagnostic};
use report_core::host::{DocumentHost, HostOptions, analyze_file};
use report_core::text::{LineIndex, TextRange};
use tower_lsp_server::ls_types::Uri;

use super::store::{Found, FoundSymbol, Request, Search, Store};
use crate::lsp::convert::Positions;
use crate::lsp::progress::{Progress, ProgressClient};
use crate::lsp::project_thread::{Read, read_project, watched_paths};
use crate::lsp::session::{Session, WorkspaceSettings, lock};
use crate::project::Cache;
use crate::project::discover::{self, Candidate};

/// Files considered (named as reports, or other JSON) per search at most:
/// a workspace with more is searched that far, and the log says so.
pub const MAX_CANDIDATES: usize = 20_000;

/// VS Code hands no file over 50 MB to an extension, so such a report is
/// never opened as far as the server knows: it is checked from disk, and
/// says so.
pub const UNSYNCED_BYTES: u64 = 50 * 1024 * 1024;

/// The longest the search waits for a large message before it reads a
/// file (a client that stops in the middle of one must not stop it).
const FOREGROUND_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How many times in a row the search gives up a file's analysis for the
/// editor's large messages before it reads it to its end.
const GIVE_UP_AT_MOST: u32 = 3;

/// After reading a file this large, the allocator's free pages go back.
const TRIM_AFTER_BYTES: u64 = 16 << 20;

/// Runs its closure when dropped (the thread's end, by return or panic).
struct Finally<F: FnMut()>(F);

impl<F: FnMut()> Drop for Finally<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// A file's size and modification time: unchanged, it is not read again.
type Stamp = (u64, Option<SystemTime>);

/// What the settings decide here, at large and per folder; a change of it
/// searches again.
#[derive(Clone, Debug, PartialEq)]
struct Decided {
    push: bool,
    folders: Vec<(PathBuf, FolderDecided)>,
}

#[derive(Clone, Debug, PartialEq)]
struct FolderDecided {
    find: bool,
    globs: report_core::selection::ReportGlobs,
    max_diagnostics: usize,
    max_document_bytes: usize,
    /// The workspace checks' settings and trust (`workspaceChecks`,
    /// `restrictedWorkspace`, `allowRootOutsideWorkspace`, the tolerance).
    workspace: WorkspaceSettings,
}

impl Decided {
    fn of(session: &Session, folders: &[PathBuf]) -> Decided {
        let settings = session.settings();
        Decided {
            push: settings.diagnose_unopened_reports && !session.pulls_diagnostics(),
            folders: folders
                .iter()
                .map(|folder| {
                    let settings = session.settings_at(folder);
                    let decided = FolderDecided {
                        // In a restricted (untrusted) workspace nothing is read but what is opened.
                        find: settings.find_reports && !settings.restricted_workspace,
                        globs: settings.globs.clone(),
                        max_diagnostics: settings.max_diagnostics,
                        max_document_bytes: settings.max_document_bytes,
                        workspace: settings.workspace(),
                    };
                    (folder.clone(), decided)
                })
                .collect(),
        }
    }
}

pub(super) struct Searcher {
    session: Arc<Session>,
    store: Arc<Store>,
    progress: Option<ProgressClient>,
    folders: Vec<PathBuf>,
    decided: Option<Decided>,
    /// The stamp each file had when it was last analysed (a report) or
    /// found not to be one.
    stamps: HashMap<PathBuf, Stamp>,
    /// What was pushed for each URI (its result id), with the setting on.
    pushed: HashMap<Uri, String>,
    searches: u64,
    /// The hashes of the files the found reports name, shared by all of
    /// them as `check`'s one cache is.
    cache: Cache,
    /// The files each found report's workspace checks read (see
    /// `project_thread::watched_paths`), by report.
    watched: HashMap<PathBuf, HashSet<PathBuf>>,
    /// During a search, the reports read without their workspace checks,
    /// checked with them once every report is known (see `search`).
    deferred: Option<Deferred>,
    /// How many times in a row the file being read was given up for a
    /// large message (see [`GIVE_UP_AT_MOST`]).
    given_up: u32,
}

/// The reports a search checks against their projects once every report
/// is known: each with its analysis while they fit in
/// [`KEEP_DEFERRED_BYTES`], so that it is not read and analysed twice;
/// read again past that.
#[derive(Default)]
struct Deferred {
    reports: Vec<(Candidate, Option<KeptAnalysis>)>,
    bytes: usize,
}

/// A report's analysis, kept from the search's first pass for its second,
/// and the stamp of the file it was read from.
struct KeptAnalysis {
    stamp: Stamp,
    host: DocumentHost<Arc<String>>,
}

/// The most text a search keeps analysed between its passes (the rest is
/// read again): a workspace of many huge reports keeps none of them.
const KEEP_DEFERRED_BYTES: usize = 64 << 20;

impl Searcher {
    pub(super) fn new(
        session: Arc<Session>,
        store: Arc<Store>,
        progress: Option<ProgressClient>,
    ) -> Searcher {
        Searcher {
            session,
            store,
            progress,
            folders: Vec::new(),
            decided: None,
            stamps: HashMap::new(),
            pushed: HashMap::new(),
            searches: 0,
            cache: Cache::default(),
            watched: HashMap::new(),
            deferred: None,
            given_up: 0,
        }
    }

    pub(super) fn run(mut self, requests: mpsc::Receiver<Request>) {
        let store = self.store.clone();
        // However it ends, no pull waits for a search that will not finish.
        let _done = Finally(move || store.update(|state| state.search = Search::Done));
        while let Ok(first) = requests.recv() {
            let before = self.store.read(|state| state.serial);
            let mut search = None;
            let mut settings = false;
            let mut changed: Vec<PathBuf> = Vec::new();
            for request in
                std::iter::once(first).chain(std::iter::from_fn(|| requests.try_recv().ok()))
            {
                match request {
                    Request::Search(folders) => search = Some(folders),
                    Request::Changed(paths) => changed.extend(paths),
                    Request::Opened(uri) => {
                        // The analysis threads publish for it from now on.
                        self.pushed.remove(&uri);
                    }
                    Request::Closed(uri) => {
                        // Marked closed by the handle already: its file is read
                        // again in case the editor saved what it held.
                        changed.extend(uri.to_file_path().map(|p| p.into_owned()));
                    }
                    Request::Settings => settings = true,
                    Request::ProjectFiles(folders) => {
                        let under: Vec<PathBuf> = self.store.read(|state| {
                            state
                                .reports
                                .values()
                                .filter(|f| {
                                    !f.gone && folders.iter().any(|d| f.path.starts_with(d))
                                })
                                .map(|f| f.path.clone())
                                .collect()
                        });
                        for path in &under {
                            self.stamps.remove(path);
                        }
                        changed.extend(under);
                    }
                }
            }
            let folders = search.clone().unwrap_or_else(|| self.folders.clone());
            let decided = Decided::of(&self.session, &folders);
            if settings && self.decided.is_some() && self.decided.as_ref() != Some(&decided) {
                search.get_or_insert(folders);
                self.stamps.clear();
            }
            if let Some(folders) = search {
                self.decided = Some(decided);
                self.folders = folders;
                self.search();
            } else if self.decided.is_some() && !changed.is_empty() {
                self.changed(changed);
            }
            self.push();
            // The folders' and the changed files' settings may have read a
            // project file no report's did.
            self.session.publish_project_files_read();
            // Clients that pull on a refresh only (not on a timer) ask again.
            if self.store.read(|state| state.serial) != before {
                self.session.refresh_diagnostics();
            }
        }
    }

    /// Searches every folder and reads each report found, with progress
    /// where the client shows it; what is no longer found is gone.
    fn search(&mut self) {
        let started = Instant::now();
        self.store.update(|state| {
            if state.search == Search::NotStarted {
                state.search = Search::Running;
            }
        });
        let decided = self.decided.clone().expect("decided before a search");
        let mut candidates: Vec<Candidate> = Vec::new();
        for (folder, decided) in &decided.folders {
            if decided.find {
                let left = MAX_CANDIDATES.saturating_sub(candidates.len());
                let search = discover::search(folder, &decided.globs, left);
                if search.truncated {
                    tracing::warn!(
                        folder = %folder.display(),
                        "the search for reports stopped at {MAX_CANDIDATES} JSON files"
                    );
                }
                candidates.extend(search.found);
            }
        }
        let session = self.session.clone();
        let mut progress = match &self.progress {
            Some(client) if session.capabilities().work_done_progress && !candidates.is_empty() => {
                self.searches += 1;
                Progress::start(
                    client,
                    &session,
                    format!("report-lsp/found/{}", self.searches),
                    "Finding reports",
                    "files read",
                )
            }
            _ => None,
        };
        let total = candidates.len();
        let mut seen = HashSet::new();
        // Every report's own diagnostics first, so that a document one
        // names, opened meanwhile, knows it at once (its workspace checks
        // take longer: the files read, the tokenizer loaded); then each
        // report with them, before the search is done.
        self.deferred = Some(Deferred::default());
        for (done, candidate) in candidates.into_iter().enumerate() {
            if let Some(progress) = &mut progress {
                progress.report(done, total);
            }
            seen.insert(candidate.path.clone());
            self.examine_guarded(&candidate, None);
        }
        let deferred = self.deferred.take().unwrap_or_default();
        for (candidate, kept) in deferred.reports {
            self.stamps.remove(&candidate.path);
            self.examine_guarded(&candidate, kept);
        }
        if let Some(mut progress) = progress {
            progress.report(total, total);
            progress.end();
        }
        let gone: Vec<PathBuf> = self.store.read(|state| {
            state
                .reports
                .values()
                .filter(|f| !f.gone && !seen.contains(&f.path))
                .map(|f| f.path.clone())
                .collect()
        });
        for path in gone {
            self.forget(&path);
        }
        let reports = self.store.update(|state| {
            state.search = Search::Done;
            state.reports.values().filter(|f| !f.gone).count()
        });
        tracing::debug!(
            files = total,
            reports,
            ms = crate::log::millis(started.elapsed()),
            "reports found"
        );
    }

    /// Files changed on disk: each known one read again (or gone), each new
    /// one that a search would find read.
    fn changed(&mut self, mut paths: Vec<PathBuf>) {
        // The reports whose workspace checks read a changed file: read again.
        let watching: Vec<PathBuf> = (self.watched.iter())
            .filter(|(_, read)| paths.iter().any(|p| read.contains(p)))
            .map(|(report, _)| report.clone())
            .collect();
        for report in watching {
            self.stamps.remove(&report);
            paths.push(report);
        }
        paths.sort();
        paths.dedup();
        for path in paths {
            let settings = self.session.settings_at(&path);
            let find = settings.find_reports && !settings.restricted_workspace;
            let folder = self.folders.iter().find(|f| path.starts_with(f)).cloned();
            // A folder deleted or renamed away: every report under it is gone.
            let under: Vec<PathBuf> = self.store.read(|state| {
                state
                    .reports
                    .values()
                    .filter(|f| !f.gone && f.path.starts_with(&path) && f.path != path)
                    .map(|f| f.path.clone())
                    .collect()
            });
            if !path.exists() || !find {
                for gone in under {
                    self.forget(&gone);
                }
            }
            if path.is_dir() {
                // A folder created or renamed here: searched as the folders are.
                if let (true, Some(_)) = (find, &folder) {
                    let found = discover::search(&path, &settings.globs, MAX_CANDIDATES);
                    for candidate in found.found {
                        self.examine_guarded(&candidate, None);
                    }
                }
                continue;
            }
            let known = self.stamps.contains_key(&path)
                || self
                    .store
                    .read(|state| state.reports.values().any(|f| f.path == path && !f.gone));
            if known && (!find || !path.is_file()) {
                self.forget(&path);
                continue;
            }
            if known {
                let candidate = Candidate {
                    only_if_report: !settings.globs.matches(&slashed(&path)),
                    path,
                };
                self.examine_guarded(&candidate, None);
                continue;
            }
            if !find {
                continue;
            }
            let candidate = folder
                .as_deref()
                .and_then(|folder| discover::would_find(folder, &path, &settings.globs));
            if let Some(candidate) = candidate.filter(|c| c.path.is_file()) {
                self.examine_guarded(&candidate, None);
            }
        }
    }

    /// Whether the file at `path` is open: then the editor's text is the
    /// analysis threads', and the store only marks it open (known, it
    /// stays as it was).
    fn left_to_editor(&self, path: &Path) -> bool {
        let open = is_open(&self.session, path);
        if open {
            self.store.mark_open(path, true);
        }
        open
    }

    /// Waits for the large messages being read or handled (see
    /// `foreground`); then whether the file at `path` is open.
    fn waited_for_editor(&self, path: &Path) -> bool {
        tracing::debug!(path = %path.display(), "the search waits for a large message");
        self.session.foreground.wait(FOREGROUND_WAIT);
        self.left_to_editor(path)
    }

    /// [`Searcher::examine`], a panic caught: that file is skipped (and
    /// logged), the others are read.
    fn examine_guarded(&mut self, candidate: &Candidate, kept: Option<KeptAnalysis>) {
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.examine(candidate, kept)
        }));
        if read.is_err() {
            tracing::error!(path = %candidate.path.display(), "reading a report from disk panicked; it is skipped");
        }
    }

    /// Reads and analyses one file unless it is open or unchanged; `kept`
    /// is its analysis from the search's first pass, taken if the file has
    /// not changed since.
    fn examine(&mut self, candidate: &Candidate, kept: Option<KeptAnalysis>) {
        let path = &candidate.path;
        let Some(uri) = Uri::from_file_path(path) else {
            return;
        };
        let meta = match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => meta,
            _ => return self.forget(path),
        };
        let stamp: Stamp = (meta.len(), meta.modified().ok());
        if self.left_to_editor(path) {
            return;
        }
        if self.stamps.get(path) == Some(&stamp) {
            return;
        }
        // A report the editor is opening is open once its message is
        // handled: waited for, it is not read here too (see `foreground`).
        // Meanwhile no analysis of it is kept: it is read again after.
        let kept = match self.session.foreground.is_busy() {
            true => {
                drop(kept);
                if self.waited_for_editor(path) {
                    return;
                }
                None
            }
            false => kept,
        };
        let started = Instant::now();
        let settings = self.session.settings_at(path);
        // A report found: the project file that governs it may be new.
        self.session.publish_project_files_read();
        let client = self.session.capabilities();
        let name_matches = !candidate.only_if_report;
        let options = HostOptions {
            name_matches,
            max_document_bytes: settings.max_document_bytes,
            max_diagnostics: settings.max_diagnostics,
        };
        let mut root = None;
        let mut targets = report_core::ide::targets::TargetIndex::default();
        let mut from_disk = false;
        let (diagnostics, symbols) = if meta.len() > settings.max_document_bytes as u64 {
            if !name_matches {
                // Too large to be read to learn whether it is a report.
                self.forget(path);
                self.stamps.insert(path.clone(), stamp);
                return;
            }
            let message = report_core::analysis::too_large_message(
                meta.len() as usize,
                settings.max_document_bytes,
            );
            let too_large = Diagnostic::new(Code::DocumentTooLarge, TextRange::empty(0), message);
            let lines = LineIndex::new("");
            let positions = Positions::indexed("", &lines, client.encoding);
            (
                settings
                    .severities
                    .apply(&too_large)
                    .map(|d| positions.diagnostic(&uri, &d, client.related_information))
                    .into_iter()
                    .collect(),
                Vec::new(),
            )
        } else {
            let kept = kept.filter(|k| k.stamp == stamp && k.host.options() == options);
            from_disk = kept.is_none();
            let (host, workspace, defer) = match kept {
                Some(kept) => {
                    let workspace = self.workspace_checks(path, &kept.host, &settings);
                    (kept.host, workspace, false)
                }
                None => {
                    let Ok(bytes) = std::fs::read(path) else {
                        return self.forget(path);
                    };
                    // Bytes, as `check` reads them: a file that is not UTF-8 says so.
                    // Given up as soon as a large message comes (see `foreground`).
                    // A file given up this many times in a row (large messages of
                    // other documents keep coming) is read to its end.
                    let patient = self.given_up >= GIVE_UP_AT_MOST;
                    let foreground = self.session.foreground.clone();
                    let still_wanted = move || !foreground.is_busy();
                    let wanted = (!patient).then_some(Wanted(&still_wanted));
                    let analysed = cancel::catch(|| analyze_file(bytes, options, wanted));
                    let host = analysed
                        .map(|analysis| DocumentHost::from_analysis(analysis, options, Arc::clone));
                    let opening = host.is_err() || (!patient && self.session.foreground.is_busy());
                    let host = match host {
                        Ok(host) if !opening && !self.left_to_editor(path) => host,
                        // Opened, or being opened, while it was analysed: its
                        // checks are the editor's, and its memory is given back
                        // before the editor's analysis needs it.
                        given_up => {
                            drop(given_up);
                            if meta.len() >= TRIM_AFTER_BYTES {
                                crate::lsp::memory::release_memory();
                            }
                            if !opening || self.waited_for_editor(path) {
                                return;
                            }
                            // The large message was another: read again.
                            self.given_up += 1;
                            self.examine(candidate, None);
                            self.given_up -= 1;
                            return;
                        }
                    };
                    // Checked against its project as an open report is, when it is
                    // one (as `check` decides: by its name, else by its content).
                    // Deferred only when the checks will read the project: a report
                    // whose checks are off or that names no root is read once.
                    let named = host.project_root();
                    let reads_project = host.is_report()
                        && settings.workspace().off.is_none()
                        && matches!(
                            crate::project::root::resolve(
                                named.as_deref(),
                                Some(path),
                                None,
                                &self.folders
                            ),
                            crate::project::root::Resolution::Found(_)
                        );
                    match (host.is_report(), &self.deferred) {
                        (false, _) => (host, Vec::new(), false),
                        (true, Some(_)) if reads_project => (host, Vec::new(), true),
                        (true, _) => {
                            let workspace = self.workspace_checks(path, &host, &settings);
                            (host, workspace, false)
                        }
                    }
                }
            };
            if !host.is_report() {
                self.forget(path);
                self.stamps.insert(path.clone(), stamp);
                return;
            }
            let lines = LineIndex::new(host.text());
            let positions = Positions::indexed(host.text(), &lines, client.encoding);
            let o = report_core::publication::Options {
                max: settings.max_diagnostics,
                severities: &settings.severities,
            };
            let own = host.own(&settings.severities);
            let published = report_core::publication::publish(own, &workspace, &o);
            let summary = crate::lsp::analysis::too_many_summary(published.left_out, &settings);
            let note = from_disk_note(meta.len());
            let note = note.iter().filter_map(|d| settings.severities.apply(d));
            let diagnostics: Vec<tower_lsp_server::ls_types::Diagnostic> = note
                .chain(published.diagnostics)
                .chain(summary.map(std::borrow::Cow::Owned))
                .map(|d| positions.diagnostic(&uri, &d, client.related_information))
                .collect();
            let named = host.project_root();
            root = crate::project::root::of_named(named.as_deref(), Some(path), &self.folders);
            // By path only: the spans are read from the file when a document it names opens.
            targets = host.target_index();
            let symbols = host
                .entry_symbols()
                .into_iter()
                .map(|s| FoundSymbol {
                    name: s.name,
                    detail: s.detail,
                    range: positions.lsp_range(s.selection),
                })
                .collect();
            if defer && let Some(deferred) = &mut self.deferred {
                let bytes = host.text().len();
                let fits = deferred.bytes + bytes <= KEEP_DEFERRED_BYTES;
                let kept = fits.then(|| {
                    deferred.bytes += bytes;
                    KeptAnalysis { stamp, host }
                });
                deferred.reports.push((candidate.clone(), kept));
            }
            (diagnostics, symbols)
        };
        self.stamps.insert(path.clone(), stamp);
        let count = diagnostics.len();
        // Looked up before the store's lock is taken: an opening takes the
        // documents' lock, then the store's; never the other way round here.
        let opened_meanwhile = is_open(&self.session, path);
        self.store.update(|state| {
            // Read again with nothing new to say (a setting that changed
            // nothing here, a touched file): the client's copy still holds.
            let same = state
                .reports
                .get(&uri)
                .filter(|f| !f.gone && !f.open && *f.diagnostics == diagnostics);
            let result_id = match same {
                Some(found) => found.result_id.clone(),
                None => state.next_id(),
            };
            state.put(
                uri.clone(),
                Found {
                    path: path.clone(),
                    result_id,
                    diagnostics: Arc::new(diagnostics),
                    symbols: Arc::new(symbols),
                    // Opened while it was read: the editor's now.
                    open: opened_meanwhile,
                    gone: false,
                    root,
                    targets: Arc::new(targets),
                    spans: Arc::default(),
                },
            );
        });
        // Opened or closed between the look and the put: the store follows
        // (whether it is marked open, and in the index by file).
        let open_now = is_open(&self.session, path);
        if open_now != opened_meanwhile {
            self.store.mark_open(path, open_now);
        }
        tracing::debug!(
            uri = uri.as_str(),
            bytes = meta.len(),
            diagnostics = count,
            from_disk,
            ms = crate::log::millis(started.elapsed()),
            "found report published"
        );
        if meta.len() >= TRIM_AFTER_BYTES {
            crate::lsp::memory::release_memory();
        }
    }

    /// The workspace checks of the report at `path` (invariant 13), with
    /// the settings, bounds and trust of an open report's
    /// (`project_thread::read_project`), over the files on disk; the files
    /// it read are watched: a change of one reads the report again.
    fn workspace_checks(
        &mut self,
        path: &Path,
        host: &DocumentHost<Arc<String>>,
        settings: &crate::lsp::session::Settings,
    ) -> Vec<Diagnostic> {
        let read = read_project(
            &host.project_request(None),
            Some(path),
            &self.folders,
            &settings.workspace(),
            &mut self.cache,
            &mut |_, _| {},
        );
        self.watched.remove(path);
        match read {
            Read::Facts { root, facts } => {
                self.watched
                    .insert(path.to_path_buf(), watched_paths(&root, &facts));
                host.workspace_check(&facts, None)
            }
            Read::Outside { said, .. } => vec![said],
            Read::Off(_) | Read::NoRoot => Vec::new(),
        }
    }

    /// The file at `path` is no report (any more): a client that was shown
    /// its diagnostics is told they are gone.
    fn forget(&mut self, path: &Path) {
        // Read again when it comes back (a folder added again, a file restored).
        self.stamps.remove(path);
        self.watched.remove(path);
        let Some(uri) = Uri::from_file_path(path) else {
            return;
        };
        self.store.update(|state| {
            if state.reports.get(&uri).is_none_or(|f| f.gone) {
                return;
            }
            let id = state.next_id();
            state.unname(&uri);
            if let Some(found) = state.reports.get_mut(&uri) {
                found.gone = true;
                found.result_id = id;
                found.diagnostics = Arc::new(Vec::new());
                found.symbols = Arc::new(Vec::new());
                found.targets = Arc::default();
                found.spans = Arc::default();
            }
        });
    }

    /// With `diagnoseUnopenedReports` on and a client that takes pushes:
    /// each unopened report's diagnostics as they changed; otherwise what
    /// was pushed is withdrawn.
    fn push(&mut self) {
        let push = self.decided.as_ref().is_some_and(|d| d.push);
        type Due = (
            Uri,
            Option<(String, Arc<Vec<tower_lsp_server::ls_types::Diagnostic>>)>,
        );
        let due: Vec<Due> = self.store.read(|state| {
            state
                .reports
                .iter()
                .filter(|(_, f)| !f.open)
                .filter_map(|(uri, f)| {
                    let wanted = (push && !f.gone && !f.diagnostics.is_empty())
                        .then(|| (f.result_id.clone(), f.diagnostics.clone()));
                    match (&wanted, self.pushed.get(uri)) {
                        // The client holds these already.
                        (Some((id, _)), Some(pushed)) if id == pushed => None,
                        (None, None) => None,
                        _ => Some((uri.clone(), wanted)),
                    }
                })
                .collect()
        });
        for (uri, wanted) in due {
            // Opened meanwhile: the analysis threads publish for it.
            if uri
                .to_file_path()
                .is_some_and(|p| is_open(&self.session, &p))
            {
                self.pushed.remove(&uri);
                continue;
            }
            let diagnostics = match wanted {
                Some((id, diagnostics)) => {
                    self.pushed.insert(uri.clone(), id);
                    (*diagnostics).clone()
                }
                None => {
                    self.pushed.remove(&uri);
                    Vec::new()
                }
            };
            self.session.publisher.publish(uri, None, diagnostics);
        }
    }
}

/// The note at the top of a report too large for VS Code to hand over.
fn from_disk_note(bytes: u64) -> Option<Diagnostic> {
    (bytes > UNSYNCED_BYTES).then(|| {
        Diagnostic::new(
            Code::CheckedFromDisk,
            TextRange::empty(0),
            format!(
                "checked from the file on disk: it is {} MiB, and editors such as VS Code hand no file over 50 MiB to a language server, so these problems follow the file's saves, not your keystrokes",
                bytes >> 20
            ),
        )
    })
}

/// Whether the file at `path` is open, under whatever URI the client gave it.
pub fn is_open(session: &Session, path: &Path) -> bool {
    lock(&session.documents)
        .keys()
        .any(|uri| uri.to_file_path().is_some_and(|p| p == path))
}

fn slashed(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_report_over_50_mb_says_it_is_checked_from_disk() {
        assert!(from_disk_note(UNSYNCED_BYTES).is_none());
        let note = from_disk_note(UNSYNCED_BYTES + 1).unwrap();
        assert_eq!(note.code, Code::CheckedFromDisk);
        assert_eq!(note.range, TextRange::empty(0));
        assert!(note.message.contains("it is 50 MiB"), "{}", note.message);
    }
}
