//! Settings after `initialize`: `workspace/didChangeConfiguration`, and the
//! `workspace/configuration` pull (section `reportLsp`, at large and per
//! workspace folder with `scopeUri`) sent after `initialized`, on every
//! change and when folders change, when the client answers pulls. Some
//! clients never send settings by themselves (Neovim 0.7), others send an
//! empty change and expect to be asked (VS Code), so asking covers both. New
//! settings mean every open document is checked again.

use std::collections::{HashMap, HashSet};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::guard::guarded;
use crate::lsp::project_thread::ProjectThread;
use crate::lsp::services::Services;
use crate::lsp::session::{Session, WorkspaceSettings, lock};

/// How long the client may take to answer `workspace/configuration`.
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// The settings section asked for, as the VS Code extension names it.
pub const SECTION: &str = "reportLsp";

/// A change: the notification's settings, then (when the client answers
/// pulls) the client's current ones. Returns the lines to log: the settings
/// refused.
pub async fn changed(
    client: &Client,
    session: &Session,
    services: &Services,
    params: lsp::DidChangeConfigurationParams,
) -> Vec<String> {
    let mut before = open_reports_workspace(session);
    let mut lines = guard(|| session.apply_settings(Some(&params.settings)));
    if session.capabilities().pulls_configuration {
        lines.extend(pulled(client, session, &services.projects, &mut before).await);
    }
    // Both carry the same values when a client sends and answers alike: say it once.
    lines.sort();
    lines.dedup();
    let changed = changed_since(session, &before);
    lines.extend(guard(|| {
        recheck(session, services, &|uri| changed.contains(uri))
    }));
    lines
}

/// After `initialized`: the settings the client holds, when it answers pulls.
pub async fn initialized(client: &Client, session: &Session, services: &Services) -> Vec<String> {
    pull_and_recheck(client, session, services, false).await
}

/// `workspace/didChangeWorkspaceFolders`: the new folders' settings asked
/// for, when the client answers pulls, and every document checked again,
/// against its project too (whether its root lies inside a folder may
/// have changed).
pub async fn folders_changed(
    client: &Client,
    session: &Session,
    services: &Services,
) -> Vec<String> {
    pull_and_recheck(client, session, services, true).await
}

/// The client's settings pulled, when it answers pulls, and every document
/// checked again; against its project when the workspace settings changed
/// or `workspace` says so.
async fn pull_and_recheck(
    client: &Client,
    session: &Session,
    services: &Services,
    workspace: bool,
) -> Vec<String> {
    if !session.capabilities().pulls_configuration {
        return Vec::new();
    }
    let mut before = open_reports_workspace(session);
    let mut lines = pulled(client, session, &services.projects, &mut before).await;
    lines.sort();
    lines.dedup();
    let changed = changed_since(session, &before);
    lines.extend(guard(|| {
        recheck(session, services, &|uri| workspace || changed.contains(uri))
    }));
    lines
}

/// The workspace settings each open report's checks read (its folder's,
/// over its project file), by report.
fn open_reports_workspace(session: &Session) -> HashMap<lsp::Uri, WorkspaceSettings> {
    let open: Vec<lsp::Uri> = (lock(&session.documents).iter())
        .filter(|(_, open)| !open.target)
        .map(|(uri, _)| uri.clone())
        .collect();
    open.into_iter()
        .map(|uri| {
            let workspace = session.settings_for(&uri).workspace();
            (uri, workspace)
        })
        .collect()
}

/// The open reports whose workspace settings are not those of `before`.
/// Compared per report, not as lists: a folder's first answer adds an
/// entry that may change nothing a report reads.
fn changed_since(
    session: &Session,
    before: &HashMap<lsp::Uri, WorkspaceSettings>,
) -> HashSet<lsp::Uri> {
    open_reports_workspace(session)
        .into_iter()
        .filter(|(uri, now)| before.get(uri) != Some(now))
        .map(|(uri, _)| uri)
        .collect()
}

/// The client's answer (at large, then each folder's) merged. A report
/// opened while the client answered was opened with the settings before
/// the answer: it joins `before` with them, or it would seem changed.
fn apply_answer(
    session: &Session,
    folders: impl Iterator<Item = std::path::PathBuf>,
    values: &[serde_json::Value],
    before: &mut HashMap<lsp::Uri, WorkspaceSettings>,
) -> Vec<String> {
    opened_meanwhile(session, before);
    let mut lines = session.apply_settings(values.first());
    let per_folder = folders
        .enumerate()
        .map(|(i, folder)| (folder, values.get(i + 1).cloned()))
        .collect();
    lines.extend(session.apply_folder_settings(per_folder));
    lines
}

/// The reports opened while the client answered join `before` with the
/// settings they were opened with (those still in force).
fn opened_meanwhile(session: &Session, before: &mut HashMap<lsp::Uri, WorkspaceSettings>) {
    for (uri, then) in open_reports_workspace(session) {
        before.entry(uri).or_insert(then);
    }
}

/// Asks the client for the `reportLsp` section, at large and for each
/// workspace folder (`scopeUri`), and merges its answers (see [`apply_answer`]).
async fn pulled(
    client: &Client,
    session: &Session,
    projects: &ProjectThread,
    before: &mut HashMap<lsp::Uri, WorkspaceSettings>,
) -> Vec<String> {
    let folders: Vec<(std::path::PathBuf, lsp::Uri)> = lock(&projects.folders)
        .iter()
        .filter_map(|f| Some((f.clone(), lsp::Uri::from_file_path(f)?)))
        .collect();
    let items = std::iter::once(None)
        .chain(folders.iter().map(|(_, uri)| Some(uri.clone())))
        .map(|scope_uri| lsp::ConfigurationItem {
            scope_uri,
            section: Some(SECTION.into()),
        })
        .collect();
    // Bounded: a client that never answers must not hold up the search
    // for reports (which waits for the settings) for good.
    let answer = tokio::time::timeout(ANSWER_WITHIN, client.configuration(items)).await;
    if !matches!(answer, Ok(Ok(_))) {
        // No answer: nothing changes for the reports opened meanwhile either.
        opened_meanwhile(session, before);
    }
    let Ok(answer) = answer else {
        return vec![format!(
            "report-lsp: the client did not answer workspace/configuration within {} s; the settings so far are kept",
            ANSWER_WITHIN.as_secs()
        )];
    };
    match answer {
        // A client without these settings answers null: nothing changes.
        Ok(values) => guard(|| {
            let folders = folders.into_iter().map(|(folder, _)| folder);
            apply_answer(session, folders, &values, before)
        }),
        Err(error) => vec![format!(
            "report-lsp: the client did not answer workspace/configuration: {}",
            error.message
        )],
    }
}

/// Checks every open document again; those `workspace` names against their
/// project too (a workspace setting of theirs changed: the tolerance, the
/// checks turned off, which withdraws their diagnostics, or on again, a
/// root outside the folders allowed or not).
pub(crate) fn recheck(
    session: &Session,
    services: &Services,
    workspace: &dyn Fn(&lsp::Uri) -> bool,
) -> Vec<String> {
    let mut documents = lock(&session.documents);
    for (uri, open) in documents.iter_mut().filter(|(_, open)| !open.target) {
        services.analysis.schedule(session, uri, open, None, None);
        if workspace(uri) {
            services.projects.check(uri);
        }
    }
    drop(documents);
    // A folder's settings, asked for the first time, may have read its project file.
    session.publish_project_files_read();
    services.search.settings_changed();
    // A client that pulls asks again, after the analyses just queued.
    session.refresh_diagnostics();
    Vec::new()
}

/// Runs a step under the panic guard, as every notification's handler runs:
/// a panic becomes one more line to log, and the server keeps serving.
fn guard(step: impl FnOnce() -> Vec<String>) -> Vec<String> {
    guarded("didChangeConfiguration", || Ok(step()))
        .unwrap_or_else(|error| vec![error.message.to_string()])
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::lsp::document::Document;
    use crate::lsp::foreground::Foreground;
    use crate::lsp::session::{OpenDocument, Publisher};

    /// A folder's first answer adds an entry to the folders' settings; when
    /// it changes nothing a report's checks read, no report is checked
    /// against its project again (a second pass of 50 000 entries' files,
    /// right after the open's). A change of what they read checks it.
    #[test]
    fn only_reports_whose_workspace_settings_changed_are_checked_again() {
        let folder = tempfile::tempdir().unwrap();
        let (sender, _published) = futures::channel::mpsc::unbounded();
        let session = Session::new(Publisher(sender), None, Arc::new(Foreground::default()));
        let path = folder.path().join("a.report.json");
        let uri = lsp::Uri::from_file_path(&path).unwrap();
        let open = OpenDocument {
            document: Document::new("{}", 1),
            generation: 1,
            published: false,
            target: false,
            as_file: Default::default(),
        };
        lock(&session.documents).insert(uri.clone(), open);
        let before = open_reports_workspace(&session);
        assert_eq!(before.len(), 1);
        let answer = json!({"logLevel": "debug"});
        session.apply_folder_settings(vec![(folder.path().to_path_buf(), Some(answer))]);
        assert!(changed_since(&session, &before).is_empty());
        let off = json!({"workspaceChecks": "off"});
        session.apply_folder_settings(vec![(folder.path().to_path_buf(), Some(off))]);
        assert_eq!(changed_since(&session, &before), HashSet::from([uri]));
    }

    /// A report opened while the client answered the pull (the didOpen
    /// right after `initialized`) is not checked again for an answer that
    /// changes nothing it reads: at 50 000 entries, a second whole pass.
    #[test]
    fn a_report_opened_during_the_pull_is_checked_again_only_if_its_settings_changed() {
        let folder = tempfile::tempdir().unwrap();
        let (sender, _published) = futures::channel::mpsc::unbounded();
        let session = Session::new(Publisher(sender), None, Arc::new(Foreground::default()));
        let uri = lsp::Uri::from_file_path(folder.path().join("a.report.json")).unwrap();
        let open = || OpenDocument {
            document: Document::new("{}", 1),
            generation: 1,
            published: false,
            target: false,
            as_file: Default::default(),
        };
        let folders = || std::iter::once(folder.path().to_path_buf());
        // Asked before the report was open; it opens while the client answers.
        let mut before = open_reports_workspace(&session);
        lock(&session.documents).insert(uri.clone(), open());
        let same = [serde_json::Value::Null, json!({"logLevel": "debug"})];
        apply_answer(&session, folders(), &same, &mut before);
        assert!(changed_since(&session, &before).is_empty());
        // The same race with an answer that turns its checks off.
        lock(&session.documents).clear();
        let mut before = open_reports_workspace(&session);
        lock(&session.documents).insert(uri.clone(), open());
        let off = [serde_json::Value::Null, json!({"workspaceChecks": "off"})];
        apply_answer(&session, folders(), &off, &mut before);
        assert_eq!(changed_since(&session, &before), HashSet::from([uri]));
    }
}
