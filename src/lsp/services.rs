//! The server's three services, each with one owner and its own handle,
//! held side by side by the message loop: the analysis pool (the threads
//! that own the open documents' hosts), the project reader (the thread that
//! reads the projects' facts for the workspace checks) and the search (the
//! reports found in the workspace folders, open or not). A handler takes the
//! handle it uses, or [`Services`] when it uses several.

use std::sync::Arc;

use super::analysis::AnalysisPool;
use super::found_reports::FoundReports;
use super::progress::ProgressClient;
use super::project_thread::ProjectThread;
use super::session::Session;

/// The handles of the server's services.
pub struct Services {
    /// The analysis threads: `schedule`, `close`, `query`, `query_latest`.
    pub analysis: AnalysisPool,
    /// The project reader, whose facts the pool's threads check against;
    /// its deliveries come back through the pool's router.
    pub projects: ProjectThread,
    /// The reports found in the workspace folders, open or not.
    pub search: FoundReports,
}

impl Services {
    /// Starts the search, then the analysis pool with the project reader
    /// wired to it.
    pub fn spawn(session: Arc<Session>, progress: Option<ProgressClient>) -> Services {
        let search = FoundReports::spawn(session.clone(), progress.clone());
        let (analysis, projects) = AnalysisPool::spawn(session, progress);
        Services {
            analysis,
            projects,
            search,
        }
    }
}
