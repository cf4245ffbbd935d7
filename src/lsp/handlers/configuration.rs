//! Settings after `initialize`: `workspace/didChangeConfiguration`, and the
//! `workspace/configuration` pull (section `reportLsp`) sent after
//! `initialized` and on every change when the client answers pulls. Some
//! clients never send settings by themselves (Neovim 0.7), others send an
//! empty change and expect to be asked (VS Code), so asking covers both. New
//! settings mean every open document is checked again.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisThread;
use crate::lsp::guard::guarded;
use crate::lsp::session::{Session, lock};

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
    let before = session.settings().workspace();
    let mut lines = guard(|| session.apply_settings(Some(&params.settings)));
    if session.capabilities().pulls_configuration {
        lines.extend(pulled(client, session).await);
    }
    // Both carry the same values when a client sends and answers alike: say it once.
    lines.dedup();
    let workspace_changed = session.settings().workspace() != before;
    lines.extend(guard(|| recheck(session, analysis, workspace_changed)));
    lines
}

/// After `initialized`: the settings the client holds, when it answers pulls.
pub async fn initialized(
    client: &Client,
    session: &Session,
    analysis: &AnalysisThread,
) -> Vec<String> {
    if !session.capabilities().pulls_configuration {
        return Vec::new();
    }
    let before = session.settings().workspace();
    let mut lines = pulled(client, session).await;
    let workspace_changed = session.settings().workspace() != before;
    lines.extend(guard(|| recheck(session, analysis, workspace_changed)));
    lines
}

/// Asks the client for the `reportLsp` section and merges its answer.
async fn pulled(client: &Client, session: &Session) -> Vec<String> {
    let item = lsp::ConfigurationItem {
        scope_uri: None,
        section: Some(SECTION.into()),
    };
    match client.configuration(vec![item]).await {
        // A client without these settings answers null: nothing changes.
        Ok(values) => guard(|| session.apply_settings(values.first())),
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
fn recheck(session: &Session, analysis: &AnalysisThread, workspace: bool) -> Vec<String> {
    let mut documents = lock(&session.documents);
    for (uri, open) in documents.iter_mut() {
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
