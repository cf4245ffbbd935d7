//! The workspace checks' editor side: the folders the client names, the
//! changed files the client's watchers report (`lsp/watchers.rs` registers
//! them) and saves, each handed to the workspace thread.

use std::path::PathBuf;

use tower_lsp_server::ls_types as lsp;

use crate::lsp::project_thread::ProjectThread;
use crate::lsp::services::Services;
use crate::lsp::session::{Session, lock};

/// `initialize`: the workspace folders (else `rootUri`).
#[allow(deprecated)] // root_uri: older clients send only that.
pub fn initialize(projects: &ProjectThread, params: &lsp::InitializeParams) {
    let mut folders: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
        .collect();
    if folders.is_empty() {
        folders.extend(
            params
                .root_uri
                .as_ref()
                .and_then(|u| u.to_file_path().map(|p| p.into_owned())),
        );
    }
    *lock(&projects.folders) = folders;
}

/// `workspace/didChangeWatchedFiles`: rechecks the reports naming a
/// changed file, and every report when a project file changed.
pub fn changed(
    session: &Session,
    services: &Services,
    params: lsp::DidChangeWatchedFilesParams,
) -> Option<String> {
    let paths: Vec<PathBuf> = params
        .changes
        .iter()
        .filter_map(|c| c.uri.to_file_path().map(|p| p.into_owned()))
        .collect();
    let project_files: Vec<PathBuf> = paths
        .iter()
        .filter(|p| crate::project_file::Kind::of(p).is_some())
        .cloned()
        .collect();
    services.search.changed(paths.clone());
    services.projects.changed(paths);
    if !project_files.is_empty() && session.project_files_changed(&project_files) {
        let folders = project_files
            .iter()
            .filter_map(|p| p.parent().map(PathBuf::from))
            .collect();
        services.search.project_files_changed(folders);
        super::configuration::recheck(session, services, &|_| true);
    }
    None
}

/// `workspace/didChangeWorkspaceFolders`: the folders now, searched again
/// (a report under a removed folder is gone; those under an added one are
/// read), and every open report checked again, since whether its project
/// root lies inside a folder may have changed.
pub fn folders_changed(
    session: &Session,
    services: &Services,
    params: lsp::DidChangeWorkspaceFoldersParams,
) -> Option<String> {
    let path = |f: &lsp::WorkspaceFolder| f.uri.to_file_path().map(|p| p.into_owned());
    let removed: Vec<PathBuf> = params.event.removed.iter().filter_map(path).collect();
    let added: Vec<PathBuf> = params.event.added.iter().filter_map(path).collect();
    {
        let mut folders = lock(&services.projects.folders);
        folders.retain(|f| !removed.contains(f));
        for folder in added {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
    }
    search(services);
    for (uri, _) in lock(&session.documents).iter().filter(|(_, o)| !o.target) {
        services.projects.check(uri);
    }
    None
}

/// After `initialized`: the folders searched for reports that are not open.
pub fn search(services: &Services) {
    let folders = lock(&services.projects.folders).clone();
    services.search.search(folders);
}

/// `textDocument/didSave`: the report (or a file it names) was saved.
pub fn saved(
    session: &Session,
    services: &Services,
    params: lsp::DidSaveTextDocumentParams,
) -> Option<String> {
    let uri = params.text_document.uri;
    // A document a report names is no report: only the reports naming it are checked again.
    if super::target_documents::is_target(session, &uri) {
        super::target_documents::changed(&services.projects, &uri);
        return None;
    }
    services.projects.check(&uri);
    if let Some(path) = uri.to_file_path() {
        services.search.changed(vec![path.to_path_buf()]);
        services.projects.changed(vec![path.into_owned()]);
    }
    None
}
