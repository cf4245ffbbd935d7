//! Reports found, not only opened: the reports in the workspace folders,
//! searched for as `check DIR` searches (`project::discover`), read and
//! analysed from disk on a thread of their own, and kept as what the
//! protocol needs of them: their diagnostics (for `workspace/diagnostic`,
//! and pushed when the setting `diagnoseUnopenedReports` asks) and their
//! entries as workspace symbols. An open report is the editor's: its text
//! is the analysis threads', and this store only marks it open; closing it
//! reads the file again.

mod scan;
mod store;
mod summary;
mod targets;

use std::path::PathBuf;
use std::sync::{Arc, mpsc};

use tower_lsp_server::ls_types::Uri;

use super::progress::ProgressClient;
use super::session::Session;
use store::Request;
pub use store::{Found, FoundSymbol, Search, Store};
pub use summary::summary_from_disk;

/// What the message loop holds: a queue to the thread, and the store it fills.
#[derive(Clone)]
pub struct FoundReports {
    requests: mpsc::Sender<Request>,
    pub store: Arc<Store>,
}

impl FoundReports {
    pub fn spawn(session: Arc<Session>, progress: Option<ProgressClient>) -> FoundReports {
        let (requests, received) = mpsc::channel();
        let store = Arc::new(Store::default());
        let worker = scan::Searcher::new(session, store.clone(), progress);
        std::thread::Builder::new()
            .name("found-reports".into())
            .stack_size(report_core::ANALYSIS_STACK_BYTES)
            .spawn(move || worker.run(received))
            .expect("the found-reports thread starts");
        FoundReports { requests, store }
    }

    /// Searches the workspace folders: after `initialized`, once the settings are known.
    pub fn search(&self, folders: Vec<PathBuf>) {
        let _ = self.requests.send(Request::Search(folders));
    }

    pub fn changed(&self, paths: Vec<PathBuf>) {
        let _ = self.requests.send(Request::Changed(paths));
    }

    pub fn opened(&self, uri: &Uri) {
        // Marked at once: a workspace pull right after the open leaves it out.
        if let Some(path) = uri.to_file_path() {
            self.store.mark_open(&path, true);
        }
        let _ = self.requests.send(Request::Opened(uri.clone()));
    }

    pub fn closed(&self, uri: &Uri) {
        // Marked at once: a pull right after the close gets the file's.
        if let Some(path) = uri.to_file_path() {
            self.store.mark_open(&path, false);
        }
        let _ = self.requests.send(Request::Closed(uri.clone()));
    }

    pub fn settings_changed(&self) {
        let _ = self.requests.send(Request::Settings);
    }

    pub fn project_files_changed(&self, folders: Vec<PathBuf>) {
        let _ = self.requests.send(Request::ProjectFiles(folders));
    }
}
