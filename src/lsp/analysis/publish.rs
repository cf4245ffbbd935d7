//! What an analysis thread sends the client: a document's capped
//! diagnostics, with the workspace checks' merged in, converted through the
//! position cache and published in the order of the document's versions.

use std::collections::HashMap;

use report_core::diagnostic::Diagnostic;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::state::DocState;
use crate::lsp::convert::Positions;
use crate::lsp::session::{OpenDocument, Session, lock};

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
        let encoding = self.session.capabilities().encoding;
        let diagnostics = capped(state, &self.uri, encoding, workspace);
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

/// The host's capped diagnostics (under the cap of the settings its
/// analysis was made with) in protocol form, through the position cache.
pub fn capped(
    state: &mut DocState,
    uri: &Uri,
    encoding: report_core::text::Encoding,
    workspace: &[Diagnostic],
) -> Vec<lsp::Diagnostic> {
    let positions = Positions {
        rope: &state.host.text().0,
        encoding,
        cache: Some(&state.positions),
    };
    let published = state.host.published(state.settings.max_diagnostics);
    let diagnostics = published
        .diagnostics
        .iter()
        .map(|d| &**d)
        .chain(&published.summary)
        .chain(workspace)
        .map(|d| positions.diagnostic(uri, d))
        .collect();
    state.positions.keep_used();
    diagnostics
}
