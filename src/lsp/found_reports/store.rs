//! What the search finds, shared by its thread and the handlers: the
//! [`Store`] of the reports found, and the requests the thread takes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tower_lsp_server::ls_types::{self as lsp, Uri};

use crate::lsp::session::lock;

/// What the search's thread is asked to do.
pub(super) enum Request {
    /// Search these folders (again), from scratch.
    Search(Vec<PathBuf>),
    /// Files changed on disk (watched, or saved).
    Changed(Vec<PathBuf>),
    Opened(Uri),
    Closed(Uri),
    /// The settings changed: what they decide is worked out again.
    Settings,
    /// A project file in each of these folders changed: the reports under
    /// them are read again, whatever their stamps say (their severities and
    /// tolerance are the file's).
    ProjectFiles(Vec<PathBuf>),
}

/// The reports found, shared by the thread that finds them and the handlers.
pub struct Store {
    state: Mutex<State>,
    /// Counts the store's changes, for the requests waiting on them
    /// (a workspace pull during the first search).
    changes: tokio::sync::watch::Sender<u64>,
}

impl Default for Store {
    fn default() -> Store {
        Store {
            state: Mutex::new(State::default()),
            changes: tokio::sync::watch::channel(0).0,
        }
    }
}

#[derive(Default)]
pub struct State {
    pub reports: HashMap<Uri, Found>,
    /// The reports naming each file, by its path (the root as found and as
    /// resolved, joined to the key): a document looks itself up once,
    /// whatever the number of reports. Kept by [`State::put`],
    /// [`State::name`] and [`State::unname`]; an open report is not in it.
    naming: HashMap<PathBuf, HashSet<Uri>>,
    pub search: Search,
    /// Makes each result id unique within this process; counts the changes.
    pub(super) serial: u64,
}

/// Where the first search of the folders stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Search {
    /// Not started: `initialized` has not come yet.
    #[default]
    NotStarted,
    Running,
    /// Finished (later searches do not hold up a pull: the reports they
    /// find are added as they come).
    Done,
}

/// One report found on disk.
pub struct Found {
    pub path: PathBuf,
    /// Names these diagnostics (`workspace/diagnostic`'s `resultId`).
    pub result_id: String,
    pub diagnostics: Arc<Vec<lsp::Diagnostic>>,
    pub symbols: Arc<Vec<FoundSymbol>>,
    /// Open in the editor (by path: see [`Store::mark_open`]): the analysis threads serve it.
    pub open: bool,
    /// The file is no longer there (or no longer a report): its diagnostics
    /// are empty, kept so that a client that showed them is told.
    pub gone: bool,
    /// The project it describes, when it is here.
    pub root: Option<PathBuf>,
    /// Which files its entries name (`paths::path_key`).
    pub targets: Arc<report_core::ide::targets::TargetIndex>,
    /// Its entries' spans by the file they name, each with the range of its
    /// `path` value in the report: read from the file the first time a
    /// document it names asks (not while the workspace is searched).
    pub spans: Arc<std::sync::OnceLock<FoundTargets>>,
}

/// The paths of the files `found` names: its root as found and as resolved,
/// each joined to every key its index holds.
fn named_files(found: &Found) -> Vec<PathBuf> {
    let Some(root) = &found.root else {
        return Vec::new();
    };
    let plain: PathBuf = root.components().collect();
    let resolved = root.canonicalize().ok().filter(|r| *r != plain);
    let roots: Vec<&PathBuf> = std::iter::once(&plain).chain(&resolved).collect();
    let keys = found.targets.keys();
    keys.flat_map(|key| roots.iter().map(move |r| r.join(key.trim_end_matches('/'))))
        .collect()
}

/// A found report's entries by the file they name.
pub type FoundTargets = HashMap<String, Vec<(report_core::ide::targets::TargetSpan, lsp::Range)>>;

/// An entry of a report found on disk, as a workspace symbol.
#[derive(Clone, Debug)]
pub struct FoundSymbol {
    pub name: String,
    pub detail: String,
    pub range: lsp::Range,
}

impl Store {
    /// Reads the store.
    pub fn read<T>(&self, f: impl FnOnce(&State) -> T) -> T {
        f(&lock(&self.state))
    }

    /// Waits on the store's changes.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    pub(super) fn update<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let result = f(&mut lock(&self.state));
        self.changes.send_modify(|n| *n += 1);
        result
    }

    /// Marks the report at `path` open or closed. By path, not by URI: two
    /// clients (or a client and `Uri::from_file_path`) may spell one
    /// file's URI differently (which bytes they percent-encode).
    pub(super) fn mark_open(&self, path: &Path, open: bool) {
        self.update(|state| {
            let Some(key) = state.key_of(path) else {
                return;
            };
            let id = state.next_id();
            // Open, its entries are the editor's: the index by file, which
            // holds every file a big report names, is not kept for it.
            match open {
                true => state.unname(&key),
                false => state.name(&key),
            }
            if let Some(found) = state.reports.get_mut(&key) {
                found.open = open;
                // A client that pulls gets it again once it is closed.
                found.result_id = id;
            }
        });
    }
}

impl State {
    /// The key of the report at `path`, however its URI was spelled.
    pub(super) fn key_of(&self, path: &Path) -> Option<Uri> {
        self.reports
            .iter()
            .find(|(_, f)| f.path == path)
            .map(|(uri, _)| uri.clone())
    }

    /// The files the reports found and not open name (the index by file's
    /// paths: each under its root as found and as resolved).
    pub fn named_files(&self) -> impl Iterator<Item = &Path> {
        self.naming.keys().map(PathBuf::as_path)
    }

    /// Keeps `found` for `uri`, and the files it names in the index by file.
    pub(super) fn put(&mut self, uri: Uri, found: Found) {
        self.unname(&uri);
        let open = found.open;
        self.reports.insert(uri.clone(), found);
        if !open {
            self.name(&uri);
        }
    }

    /// Puts the files the report at `uri` names in the index by file (found,
    /// or closed again: an open report is left out, see [`Store::mark_open`]).
    fn name(&mut self, uri: &Uri) {
        let Some(found) = self.reports.get(uri) else {
            return;
        };
        for file in named_files(found) {
            self.naming.entry(file).or_default().insert(uri.clone());
        }
    }

    /// Takes the files the report at `uri` named out of the index by file
    /// (all of them: its root may resolve otherwise by now).
    pub(super) fn unname(&mut self, uri: &Uri) {
        if !self.reports.contains_key(uri) {
            return;
        }
        self.naming.retain(|_, reports| {
            reports.remove(uri);
            !reports.is_empty()
        });
    }

    /// The reports that name the file at `path` (as the editor has it, and
    /// resolved through symlinks).
    pub fn naming(&self, path: &Path) -> HashSet<&Uri> {
        let plain: PathBuf = path.components().collect();
        let resolved = path.canonicalize().ok();
        [Some(plain), resolved]
            .iter()
            .flatten()
            .filter_map(|p| self.naming.get(p))
            .flatten()
            .collect()
    }

    pub(super) fn next_id(&mut self) -> String {
        self.serial += 1;
        format!("disk.{}", self.serial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report found under `root` whose entries name `paths`.
    fn found(root: &Path, paths: &[&str]) -> Found {
        let entries: Vec<String> = paths
            .iter()
            .map(|p| format!(r#"{{"path": "{p}"}}"#))
            .collect();
        let text = format!(
            r#"{{"schema_version": "1", "entries": [{}]}}"#,
            entries.join(", ")
        );
        let options = report_core::host::HostOptions {
            name_matches: true,
            max_document_bytes: 1 << 20,
            max_diagnostics: 0,
        };
        let host = report_core::host::DocumentHost::new(text, None, options);
        Found {
            path: root.join("r.report.json"),
            result_id: String::new(),
            diagnostics: Arc::default(),
            symbols: Arc::default(),
            open: false,
            gone: false,
            root: Some(root.to_path_buf()),
            targets: Arc::new(host.target_index()),
            spans: Arc::default(),
        }
    }

    #[test]
    fn the_reports_naming_a_file_are_found_by_its_path_and_follow_each_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (a, b) = (
            Uri::from_file_path(root.join("a.report.json")).unwrap(),
            Uri::from_file_path(root.join("b.report.json")).unwrap(),
        );
        let mut state = State::default();
        state.put(a.clone(), found(root, &["./docs/漢字 😀.md", "x.md"]));
        state.put(b.clone(), found(root, &["docs/漢字 😀.md"]));
        let target = root.join("docs/漢字 😀.md");
        let naming = |state: &State, path: &Path| -> Vec<String> {
            let mut names: Vec<String> = state
                .naming(path)
                .iter()
                .map(|u| u.as_str().to_string())
                .collect();
            names.sort();
            names
        };
        assert_eq!(naming(&state, &target), [a.as_str(), b.as_str()]);
        assert_eq!(naming(&state, &root.join("x.md")), [a.as_str()]);
        assert!(naming(&state, &root.join("y.md")).is_empty());
        // Read again naming another file: the old one no longer leads to it.
        state.put(a.clone(), found(root, &["y.md"]));
        assert_eq!(naming(&state, &target), [b.as_str()]);
        assert!(naming(&state, &root.join("x.md")).is_empty());
        assert_eq!(naming(&state, &root.join("y.md")), [a.as_str()]);
        state.unname(&b);
        assert!(naming(&state, &target).is_empty());
        assert!(state.naming.values().all(|reports| !reports.is_empty()));
    }

    #[test]
    fn an_open_report_leaves_the_index_by_file_and_comes_back_when_closed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let store = Store::default();
        let report = found(root, &["docs/漢字 😀.md"]);
        let path = report.path.clone();
        let uri = Uri::from_file_path(&path).unwrap();
        let target = root.join("docs/漢字 😀.md");
        let named = |store: &Store| store.read(|state| state.naming(&target).len());
        store.update(|state| state.put(uri.clone(), report));
        assert_eq!(named(&store), 1);
        store.mark_open(&path, true);
        assert_eq!(named(&store), 0);
        assert!(store.read(|state| state.naming.is_empty()));
        // Read while open (the search's pass): still left out.
        store.update(|state| {
            let mut again = found(root, &["docs/漢字 😀.md"]);
            again.open = true;
            state.put(uri.clone(), again)
        });
        assert_eq!(named(&store), 0);
        store.mark_open(&path, false);
        assert_eq!(named(&store), 1);
        assert!(store.read(|state| !state.reports[&uri].open));
    }
}
