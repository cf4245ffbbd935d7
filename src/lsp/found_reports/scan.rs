//! The thread that finds reports: it searches the workspace folders, reads
//! and analyses each report that is not open, keeps what the protocol needs
//! of it in the [`Store`], and follows the files' changes. Nothing it
//! reads is run; it writes nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use report_core::diagnostic::{Code, Diagnostic};
use report_core::host::{DocumentHost, HostOptions};
use report_core::text::TextRange;
use ropey::Rope;
use tower_lsp_server::ls_types::Uri;

use super::{Found, FoundSymbol, Request, Search, Store};
use crate::lsp::convert::Positions;
use crate::lsp::progress::{Progress, ProgressClient};
use crate::lsp::session::{Session, Settings, lock};
use crate::project::discover::{self, Candidate};

/// Files considered (named as reports, or other JSON) per search at most:
/// a workspace with more is searched that far, and the log says so.
pub const MAX_CANDIDATES: usize = 20_000;

/// VS Code hands no file over 50 MB to an extension, so such a report is
/// never opened as far as the server knows: it is checked from disk, and
/// says so.
pub const UNSYNCED_BYTES: u64 = 50 * 1024 * 1024;

/// After reading a file this large, the allocator's free pages go back.
const TRIM_AFTER_BYTES: u64 = 16 << 20;

/// A file's size and modification time: unchanged, it is not read again.
type Stamp = (u64, Option<SystemTime>);

/// What the settings decide here; a change of it searches again.
#[derive(Clone, Debug, PartialEq)]
struct Decided {
    find: bool,
    push: bool,
    globs: report_core::selection::ReportGlobs,
    max_diagnostics: usize,
    max_document_bytes: usize,
}

impl Decided {
    fn of(settings: &Settings, pulls: bool) -> Decided {
        Decided {
            find: settings.find_reports,
            push: settings.diagnose_unopened_reports && !pulls,
            globs: settings.globs.clone(),
            max_diagnostics: settings.max_diagnostics,
            max_document_bytes: settings.max_document_bytes,
        }
    }
}

pub(super) struct Worker {
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
}

impl Worker {
    pub(super) fn new(
        session: Arc<Session>,
        store: Arc<Store>,
        progress: Option<ProgressClient>,
    ) -> Worker {
        Worker {
            session,
            store,
            progress,
            folders: Vec::new(),
            decided: None,
            stamps: HashMap::new(),
            pushed: HashMap::new(),
            searches: 0,
        }
    }

    pub(super) fn run(mut self, requests: mpsc::Receiver<Request>) {
        while let Ok(first) = requests.recv() {
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
                        // Its file's diagnostics are the client's again, by a new id.
                        if let Some(path) = uri.to_file_path() {
                            self.store.mark_open(&path, false);
                            changed.push(path.into_owned());
                        }
                    }
                    Request::Settings => settings = true,
                }
            }
            let decided = Decided::of(&self.session.settings(), self.session.pulls_diagnostics());
            if settings && self.decided.is_some() && self.decided.as_ref() != Some(&decided) {
                search.get_or_insert_with(|| self.folders.clone());
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
        if decided.find {
            for folder in &self.folders {
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
        for (done, candidate) in candidates.into_iter().enumerate() {
            if let Some(progress) = &mut progress {
                progress.report(done, total);
            }
            seen.insert(candidate.path.clone());
            self.examine(&candidate);
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
        paths.sort();
        paths.dedup();
        let globs = self
            .decided
            .as_ref()
            .map(|d| d.globs.clone())
            .unwrap_or_default();
        let find = self.decided.as_ref().is_some_and(|d| d.find);
        for path in paths {
            let known = self.stamps.contains_key(&path)
                || self
                    .store
                    .read(|state| state.reports.values().any(|f| f.path == path));
            if known {
                match path.is_file() {
                    true => self.examine(&Candidate {
                        only_if_report: !globs.matches(&slashed(&path)),
                        path,
                    }),
                    false => self.forget(&path),
                }
                continue;
            }
            if !find {
                continue;
            }
            let candidate = self
                .folders
                .iter()
                .find(|folder| path.starts_with(folder))
                .and_then(|folder| discover::would_find(folder, &path, &globs));
            if let Some(candidate) = candidate.filter(|c| c.path.is_file()) {
                self.examine(&candidate);
            }
        }
    }

    /// Reads and analyses one file unless it is open or unchanged.
    fn examine(&mut self, candidate: &Candidate) {
        let path = &candidate.path;
        let Some(uri) = Uri::from_file_path(path) else {
            return;
        };
        let meta = match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => meta,
            _ => return self.forget(path),
        };
        let stamp: Stamp = (meta.len(), meta.modified().ok());
        if is_open(&self.session, path) {
            // The editor's text is the analysis threads'; known, it stays as it was.
            self.store.mark_open(path, true);
            return;
        }
        if self.stamps.get(path) == Some(&stamp) {
            return;
        }
        let started = Instant::now();
        let settings = self.session.settings();
        let client = self.session.capabilities();
        let name_matches = !candidate.only_if_report;
        let options = HostOptions {
            name_matches,
            max_document_bytes: settings.max_document_bytes,
            max_diagnostics: settings.max_diagnostics,
        };
        let (diagnostics, symbols) = if meta.len() > settings.max_document_bytes as u64 {
            if !name_matches {
                // Too large to be read to learn whether it is a report.
                self.stamps.insert(path.clone(), stamp);
                return self.forget(path);
            }
            let message = report_core::analysis::too_large_message(
                meta.len() as usize,
                settings.max_document_bytes,
            );
            let too_large = Diagnostic::new(Code::DocumentTooLarge, TextRange::empty(0), message);
            let rope = Rope::new();
            let positions = Positions::new(&rope, client.encoding);
            (
                vec![positions.diagnostic(&uri, &too_large, client.related_information)],
                Vec::new(),
            )
        } else {
            let Ok(bytes) = std::fs::read(path) else {
                return self.forget(path);
            };
            let text = match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
            };
            let host = DocumentHost::new(text, None, options);
            if !host.is_report() {
                self.stamps.insert(path.clone(), stamp);
                return self.forget(path);
            }
            let rope = Rope::from_str(host.text());
            let positions = Positions::new(&rope, client.encoding);
            let published = host.published();
            let summary = published.left_out.map(|left_out| {
                crate::lsp::analysis::too_many_summary(left_out, settings.max_diagnostics)
            });
            let note = from_disk_note(meta.len());
            let diagnostics = note
                .iter()
                .chain(published.diagnostics.iter().map(|d| &**d))
                .chain(&summary)
                .map(|d| positions.diagnostic(&uri, d, client.related_information))
                .collect();
            let symbols = host
                .entry_symbols()
                .into_iter()
                .map(|s| FoundSymbol {
                    name: s.name,
                    detail: s.detail,
                    range: positions.lsp_range(s.selection),
                })
                .collect();
            (diagnostics, symbols)
        };
        self.stamps.insert(path.clone(), stamp);
        let count = diagnostics.len();
        self.store.update(|state| {
            let result_id = state.next_id();
            state.reports.insert(
                uri.clone(),
                Found {
                    path: path.clone(),
                    result_id,
                    diagnostics: Arc::new(diagnostics),
                    symbols: Arc::new(symbols),
                    open: false,
                    gone: false,
                },
            );
        });
        tracing::debug!(
            uri = uri.as_str(),
            bytes = meta.len(),
            diagnostics = count,
            ms = crate::log::millis(started.elapsed()),
            "report read from disk"
        );
        if meta.len() >= TRIM_AFTER_BYTES {
            crate::lsp::release_memory();
        }
    }

    /// The file at `path` is no report (any more): a client that was shown
    /// its diagnostics is told they are gone.
    fn forget(&mut self, path: &Path) {
        if !path.exists() {
            self.stamps.remove(path);
        }
        let Some(uri) = Uri::from_file_path(path) else {
            return;
        };
        self.store.update(|state| {
            let id = state.next_id();
            if let Some(found) = state.reports.get_mut(&uri)
                && !found.gone
            {
                found.gone = true;
                found.result_id = id;
                found.diagnostics = Arc::new(Vec::new());
                found.symbols = Arc::new(Vec::new());
            }
        });
    }

    /// With `diagnoseUnopenedReports` on and a client that takes pushes:
    /// each unopened report's diagnostics as they changed; otherwise what
    /// was pushed is withdrawn.
    fn push(&mut self) {
        let push = self.decided.as_ref().is_some_and(|d| d.push);
        let due: Vec<(
            Uri,
            String,
            Arc<Vec<tower_lsp_server::ls_types::Diagnostic>>,
        )> = self.store.read(|state| {
            state
                .reports
                .iter()
                .filter(|(_, f)| !f.open)
                .filter(|(uri, f)| push || self.pushed.contains_key(*uri) && !f.gone)
                .filter(|(uri, f)| self.pushed.get(*uri) != Some(&f.result_id))
                .map(|(uri, f)| {
                    let shown = match push {
                        true => f.diagnostics.clone(),
                        false => Arc::new(Vec::new()),
                    };
                    (uri.clone(), f.result_id.clone(), shown)
                })
                .collect()
        });
        for (uri, id, diagnostics) in due {
            // Opened meanwhile: the analysis threads publish for it.
            if uri
                .to_file_path()
                .is_some_and(|p| is_open(&self.session, &p))
            {
                continue;
            }
            if !push && !self.pushed.contains_key(&uri) {
                continue;
            }
            // Nothing was pushed and there is nothing to push.
            if diagnostics.is_empty() && !self.pushed.contains_key(&uri) {
                continue;
            }
            match push && !diagnostics.is_empty() {
                true => self.pushed.insert(uri.clone(), id),
                false => self.pushed.remove(&uri),
            };
            self.session
                .publisher
                .publish(uri, None, (*diagnostics).clone());
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
                "checked from the file on disk: it is {} MB, and VS Code hands no file over 50 MB to a language server, so these problems follow the file's saves, not your keystrokes",
                bytes / 1_000_000
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
        assert!(note.message.contains("52 MB"), "{}", note.message);
    }
}
