//! Settings after `initialize`: `workspace/didChangeConfiguration`, and the
//! `workspace/configuration` pull (section `reportLsp`, at large and per
//! workspace folder with `scopeUri`) sent after `initialized`, on every
//! change and when folders change, when the client answers pulls. Some
//! clients never send settings by themselves (Neovim 0.7), others send an
//! empty change and expect to be asked (VS Code), so asking covers both. New
//! settings mean every open document is checked again.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisThread;
use crate::lsp::guard::guarded;
use crate::lsp::session::{Session, lock};

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
    analysis: &AnalysisThread,
    params: lsp::DidChangeConfigurationParams,
) -> Vec<String> {
    let before = session.workspace_settings();
    let mut lines = guard(|| session.apply_settings(Some(&params.settings)));
    if session.capabilities().pulls_configuration {
        lines.extend(pulled(client, session, analysis).await);
    }
    // Both carry the same values when a client sends and answers alike: say it once.
    lines.sort();
    lines.dedup();
    let workspace_changed = session.workspace_settings() != before;
    lines.extend(guard(|| recheck(session, analysis, workspace_changed)));
    lines
}

/// After `initialized`: the settings the client holds, when it answers pulls.
pub async fn initialized(
    client: &Client,
    session: &Session,
    analysis: &AnalysisThread,
) -> Vec<String> {
    pull_and_recheck(client, session, analysis, false).await
}

/// `workspace/didChangeWorkspaceFolders`: the new folders' settings asked
/// for, when the client answers pulls, and every document checked again,
/// against its project too (whether its root lies inside a folder may
/// have changed).
pub async fn folders_changed(
    client: &Client,
    session: &Session,
    analysis: &AnalysisThread,
) -> Vec<String> {
    pull_and_recheck(client, session, analysis, true).await
}

/// The client's settings pulled, when it answers pulls, and every document
/// checked again; against its project when the workspace settings changed
/// or `workspace` says so.
async fn pull_and_recheck(
    client: &Client,
    session: &Session,
    analysis: &AnalysisThread,
    workspace: bool,
) -> Vec<String> {
    if !session.capabilities().pulls_configuration {
        return Vec::new();
    }
    let before = session.workspace_settings();
    let mut lines = pulled(client, session, analysis).await;
    lines.sort();
    lines.dedup();
    let workspace_changed = workspace || session.workspace_settings() != before;
    lines.extend(guard(|| recheck(session, analysis, workspace_changed)));
    lines
}

/// Asks the client for the `reportLsp` section, at large and for each
/// workspace folder (`scopeUri`), and merges its answers.
async fn pulled(client: &Client, session: &Session, analysis: &AnalysisThread) -> Vec<String> {
    let folders: Vec<(std::path::PathBuf, lsp::Uri)> = lock(&analysis.workspace.folders)
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
    let Ok(answer) = answer else {
        return vec![format!(
            "report-lsp: the client did not answer workspace/configuration within {} s; the settings so far are kept",
            ANSWER_WITHIN.as_secs()
        )];
    };
    match answer {
        // A client without these settings answers null: nothing changes.
        Ok(values) => guard(|| {
            let mut lines = session.apply_settings(values.first());
            let per_folder = folders
                .iter()
                .enumerate()
                .map(|(i, (folder, _))| (folder.clone(), values.get(i + 1).cloned()))
                .collect();
            lines.extend(session.apply_folder_settings(per_folder));
            lines
        }),
        Err(error) => vec![format!(
            "report-lsp: the client did not answer workspace/configuration: {}",
            error.message
        )],
    }
}

/// Checks every open document again; with `workspace`, against its project
/// too (a workspace setting changed: the tolerance, the checks turned off,
/// which withdraws their diagnostics, or on again, a root outside the
/// folders allowed or not).
pub(crate) fn recheck(
    session: &Session,
    analysis: &AnalysisThread,
    workspace: bool,
) -> Vec<String> {
    let mut documents = lock(&session.documents);
    for (uri, open) in documents.iter_mut().filter(|(_, open)| !open.target) {
        analysis.schedule(session, uri, open, None, None);
        if workspace {
            analysis.workspace.check(uri);
        }
    }
    drop(documents);
    analysis.found.settings_changed();
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
