//! What an analysis thread keeps of each open document ([`DocState`]), and
//! what a request finds of its document ([`Lookup`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use report_core::host::DocumentHost;
use report_core::ide::targets::TargetSpan;

use crate::lsp::convert::{PositionCache, Positions};
use crate::lsp::document::RopeText;
use crate::lsp::file_links::UriCache;
use crate::lsp::session::Settings;

/// An opening's text, and its rope not made yet (see [`DocState::unmade`]).
pub(super) struct Unmade {
    pub whole: Arc<String>,
    /// Makes the rope (the job's, shared with the document). An opening's
    /// project is checked once it is made: the workspace thread reads the
    /// document's rope under the documents' lock, and would make it there.
    pub rope: Box<dyn FnOnce() -> ropey::Rope + Send>,
    /// The batch of the thread's messages that analysed it: the rope is
    /// made by the end of the next one at the latest.
    pub batch: u64,
}

/// One document as the analysis thread knows it.
pub struct DocState {
    /// The generation of the document its host describes.
    pub generation: u64,
    /// The client's version of that text, for edits tied to it.
    pub version: i32,
    pub host: DocumentHost<RopeText>,
    /// The settings its host's analysis was made with (its job's).
    pub settings: Arc<Settings>,
    /// Positions of the last publication, for the next one.
    pub(super) positions: PositionCache,
    /// The facts of the last workspace check, for the hover.
    pub workspace: Option<Arc<report_core::project_checks::WorkspaceFacts>>,
    /// The last workspace check's comparison with HEAD, and the generation
    /// of the text it compared, for the code lens.
    pub since_head: Option<(u64, Arc<crate::project::since_head::SinceHead>)>,
    /// Tells this opening of the document from earlier ones (whose
    /// generations counted from 1 too), for pulled diagnostics' result ids.
    pub opened: u64,
    /// The named files' URIs for its document links, kept per workspace check.
    pub links: Arc<Mutex<UriCache>>,
    /// Diagnostics pulls answered and publications sent for this opening,
    /// for the status request (which says how the client gets them).
    pub pulls: u64,
    pub pushes: u64,
    /// An opening's text and its rope, not made yet: the host holds an
    /// empty stand-in meanwhile. The publication and a diagnostics pull
    /// convert through the text; whatever else reads it has the rope made
    /// first (`Analyser::make_rope`), as the thread does once idle.
    pub(super) unmade: Option<Unmade>,
    /// Whether the log has said that this opening's links were capped.
    pub links_capped_said: bool,
}

/// Counts the documents' openings, for [`DocState::opened`].
static OPENINGS: AtomicU64 = AtomicU64::new(0);

impl DocState {
    /// A document just opened, described by `host`.
    pub(super) fn new(
        generation: u64,
        version: i32,
        host: DocumentHost<RopeText>,
        settings: Arc<Settings>,
    ) -> DocState {
        DocState {
            generation,
            version,
            host,
            settings,
            positions: PositionCache::default(),
            workspace: None,
            since_head: None,
            opened: OPENINGS.fetch_add(1, Ordering::Relaxed),
            links: Default::default(),
            links_capped_said: false,
            pulls: 0,
            pushes: 0,
            unmade: None,
        }
    }

    pub fn positions(&self, encoding: report_core::text::Encoding) -> Positions<'_> {
        Positions::new(&self.host.text().0, encoding)
    }

    /// The spans of the entries naming the file at `file`, found through
    /// the index by path the analysis keeps: its path is taken under the
    /// root of the last workspace check, else under the root that check
    /// will find (from the report's file at `report` and the workspace
    /// `folders`). None name a file outside that root.
    pub fn spans_naming(
        &self,
        file: &Path,
        report: Option<&Path>,
        folders: &[PathBuf],
    ) -> Vec<TargetSpan> {
        let workspace = self.workspace.as_deref();
        let root = match workspace.and_then(|w| w.root.as_deref()) {
            Some(root) => Some(PathBuf::from(root)),
            None => {
                let named = self.host.project_root();
                crate::project::root::of_named(named.as_deref(), report, folders)
            }
        };
        let file: PathBuf = file.components().collect();
        match root.and_then(|root| crate::project::files::relative_key(&file, &root)) {
            Some(key) => self.host.spans_naming(&key, workspace),
            None => Vec::new(),
        }
    }
}

/// What a query finds of its document.
pub(super) enum Lookup<'a> {
    NotOpen,
    /// Open, but its text is not known (out of sync, or its analysis failed).
    Unknown,
    Current(&'a mut DocState),
}

impl Lookup<'_> {
    /// The generation of the state found, 0 when there is none.
    pub(super) fn generation(&self) -> u64 {
        match self {
            Lookup::Current(state) => state.generation,
            _ => 0,
        }
    }
}
