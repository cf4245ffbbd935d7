//! What an analysis thread sends the client: a document's diagnostics and
//! the workspace checks' as every view publishes them (the core's
//! `publication`), converted through the position cache and published in
//! the order of the document's versions.

use std::collections::HashMap;
use std::sync::OnceLock;

use report_core::diagnostic::Diagnostic;
use report_core::publication::{self, LeftOut};
use report_core::text::LineIndex;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::state::DocState;
use crate::lsp::convert::{Lines, Positions};
use crate::lsp::session::{OpenDocument, ResolvedClientCapabilities, Session, Settings, lock};
use crate::threads::{OnPool, opening_pool};

/// Where an analysis of one generation of a document is published.
pub(super) struct Target<'a> {
    pub session: &'a Session,
    pub uri: Uri,
    pub generation: u64,
    pub version: i32,
}

impl Target<'_> {
    /// Publishes the state's diagnostics, unless a newer generation exists
    /// (its own publication follows) or there is nothing to say.
    pub(super) fn publish(self, state: &mut DocState, workspace: &[Diagnostic]) {
        let is_current = |documents: &HashMap<Uri, OpenDocument>| {
            documents
                .get(&self.uri)
                .filter(|e| e.generation == self.generation)
                .map(|e| e.published)
        };
        let Some(was_published) = is_current(&lock(&self.session.documents)) else {
            return;
        };
        if !state.host.is_report() && !was_published {
            return;
        }
        // A client that pulls diagnostics asks for them itself.
        if self.session.pulls_diagnostics() {
            return;
        }
        // Converted outside the lock: handlers applying changes do not wait for it.
        let client = self.session.capabilities();
        let diagnostics = capped(state, &self.uri, client, workspace);
        let mut documents = lock(&self.session.documents);
        if is_current(&documents).is_none() {
            return;
        }
        if let Some(open) = documents.get_mut(&self.uri) {
            open.published = !diagnostics.is_empty();
        }
        state.pushes += 1;
        // Sent under the lock, so publications keep the order of versions.
        self.session
            .publisher
            .publish(self.uri, Some(self.version), diagnostics);
    }
}

/// The host's diagnostics and the workspace checks' as every view
/// publishes them (`report_core::publication`, under the cap of the settings
/// its analysis was made with), then the summary of those left out, in
/// protocol form, through the position cache. An opening whose rope is not
/// made yet is converted through its text, indexed only when there is a
/// diagnostic to place.
pub fn capped(
    state: &mut DocState,
    uri: &Uri,
    client: ResolvedClientCapabilities,
    workspace: &[Diagnostic],
) -> Vec<lsp::Diagnostic> {
    let Some(whole) = state.unmade.as_ref().map(|unmade| unmade.whole.clone()) else {
        let rope = state.host.text().0.clone();
        return converted(state, uri, client, workspace, || Lines::Rope(&rope));
    };
    let index = OnceLock::new();
    converted(state, uri, client, workspace, || {
        // A large text's on the opening pool, idle once the text is parsed
        // (but for another large opening); a small one's here.
        let pool = opening_pool();
        let build = || LineIndex::new_on(&whole, &OnPool(pool), pool.current_num_threads());
        Lines::Indexed(&whole, index.get_or_init(build))
    })
}

/// The publication of [`capped`], its positions found in `lines`.
fn converted<'l>(
    state: &mut DocState,
    uri: &Uri,
    client: ResolvedClientCapabilities,
    workspace: &[Diagnostic],
    lines: impl FnOnce() -> Lines<'l>,
) -> Vec<lsp::Diagnostic> {
    let settings = &state.settings;
    let o = publication::Options {
        max: settings.max_diagnostics,
        severities: &settings.severities,
    };
    let own = state.host.own(&settings.severities);
    let published = publication::publish(own, workspace, &o);
    let summary = too_many_summary(published.left_out, settings);
    let mut all = (published.diagnostics.iter().map(|d| &**d))
        .chain(&summary)
        .peekable();
    if all.peek().is_none() {
        return Vec::new();
    }
    let positions = Positions {
        lines: lines(),
        encoding: client.encoding,
        cache: Some(&state.positions),
    };
    let diagnostics = all
        .map(|d| positions.diagnostic(uri, d, client.related_information))
        .collect();
    state.positions.keep_used();
    diagnostics
}

/// The `too-many-diagnostics` summary of what a publication left out, at
/// its level, naming the server's setting of the cap (or the project
/// file's) and where to see the rest.
pub fn too_many_summary(left_out: Option<LeftOut>, settings: &Settings) -> Option<Diagnostic> {
    let max = settings.max_diagnostics;
    let limit = match &settings.max_diagnostics_from {
        Some(file) => format!("max-diagnostics = {max} in {}", file.display()),
        None => format!("the reportLsp.maxDiagnostics setting, {max}"),
    };
    let after = "; `report-lsp check` lists them, up to its --max-diagnostics";
    publication::summary(left_out?, &limit, after, &settings.severities)
}
