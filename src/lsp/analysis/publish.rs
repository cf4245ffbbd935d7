//! What an analysis thread sends the client: a document's capped
//! diagnostics, with the workspace checks' merged in, converted through the
//! position cache and published in the order of the document's versions.

use std::borrow::Cow;
use std::collections::HashMap;

use report_core::diagnostic::{Code, Diagnostic, rank};
use report_core::host::LeftOut;
use report_core::text::TextRange;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::state::DocState;
use crate::lsp::convert::Positions;
use crate::lsp::session::{OpenDocument, ResolvedClientCapabilities, Session, Settings, lock};

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

/// The host's capped diagnostics (under the cap of the settings its
/// analysis was made with) and the summary of those left out, in protocol
/// form, through the position cache.
pub fn capped(
    state: &mut DocState,
    uri: &Uri,
    client: ResolvedClientCapabilities,
    workspace: &[Diagnostic],
) -> Vec<lsp::Diagnostic> {
    let positions = Positions {
        rope: &state.host.text().0,
        encoding: client.encoding,
        cache: Some(&state.positions),
    };
    let published = state.host.published();
    // At the level the report's project sets for each code.
    let severities = &state.settings.severities;
    let own = published
        .diagnostics
        .iter()
        .filter_map(|d| severities.apply(d));
    let mut chosen: Vec<Cow<'_, Diagnostic>> = own.collect();
    let own_count = chosen.len();
    chosen.extend(workspace.iter().filter_map(|d| severities.apply(d)));
    let from_workspace = chosen.len() - own_count;
    let mut left_out = published.left_out;
    // The workspace checks' are under the same cap as the report's own: a
    // report naming 50 000 missing files shows the cap's worth and says
    // how many more there are, as the host chose among its own.
    let max = state.settings.max_diagnostics;
    if chosen.len() > max {
        chosen.select_nth_unstable_by(max, |a, b| rank(a, b));
        let dropped = chosen.len() - max;
        chosen.truncate(max);
        chosen.sort_by(|a, b| Diagnostic::order(a, b));
        let LeftOut { count, total } = left_out.unwrap_or(LeftOut {
            count: 0,
            total: own_count,
        });
        left_out = Some(LeftOut {
            count: count + dropped,
            total: total + from_workspace,
        });
    }
    let summary = left_out.map(|left_out| too_many_summary(left_out, &state.settings));
    let summary = summary.iter().filter_map(|d| severities.apply(d));
    let diagnostics = chosen
        .into_iter()
        .chain(summary)
        .map(|d| positions.diagnostic(uri, &d, client.related_information))
        .collect();
    state.positions.keep_used();
    diagnostics
}

/// The `too-many-diagnostics` summary at the document's start: worded here,
/// since it names the server's setting (the CLI words its own).
pub fn too_many_summary(left_out: LeftOut, settings: &Settings) -> Diagnostic {
    let LeftOut { count, total } = left_out;
    let max = settings.max_diagnostics;
    let limit = match &settings.max_diagnostics_from {
        Some(file) => format!("max-diagnostics = {max} in {}", file.display()),
        None => format!("the reportLsp.maxDiagnostics setting, {max}"),
    };
    Diagnostic::new(
        Code::TooManyDiagnostics,
        TextRange::empty(0),
        format!(
            "{count} more problems are not shown ({total} in all; the limit is {limit}); `report-lsp check` lists them, up to its --max-diagnostics"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_the_setting_and_counts_what_was_left_out() {
        let mut settings = Settings::default();
        settings.max_diagnostics = 3;
        let summary = too_many_summary(
            LeftOut {
                count: 57,
                total: 60,
            },
            &settings,
        );
        assert_eq!(summary.code, Code::TooManyDiagnostics);
        assert_eq!(summary.range, TextRange::empty(0));
        assert_eq!(
            summary.message,
            "57 more problems are not shown (60 in all; the limit is the reportLsp.maxDiagnostics setting, 3); `report-lsp check` lists them, up to its --max-diagnostics"
        );
    }
}
