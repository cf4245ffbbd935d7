//! What the server needs to know of the client's capabilities, resolved
//! once at `initialize` (as ruff_server's `ResolvedClientCapabilities`):
//! handlers read these fields, and only this file reads the protocol's
//! `ClientCapabilities`.

use report_core::text::Encoding;
use tower_lsp_server::ls_types as lsp;

/// The client's capabilities the server acts on. Before `initialize`, a
/// client that can do none of these things.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedClientCapabilities {
    /// The position encoding: UTF-8 when the client offers it (fewer
    /// conversions), UTF-16 otherwise.
    pub encoding: Encoding,
    /// Whether the client fills in a code action's edit with `codeAction/resolve`.
    pub resolves_edits: bool,
    /// Whether completion items may be snippets.
    pub snippets: bool,
    /// Folding ranges the client takes at most.
    pub folding_limit: Option<usize>,
    /// Whether the client can pull diagnostics (`textDocument.diagnostic`).
    pub pull_diagnostics: bool,
    /// Whether the client can be told to pull diagnostics again
    /// (`workspace.diagnostics.refreshSupport`).
    pub refresh_diagnostics: bool,
    /// Whether the client can be told to ask for inlay hints again.
    pub refresh_inlay_hints: bool,
    /// Whether the client answers `workspace/configuration`: then the server
    /// asks for its settings itself, as some clients (Neovim 0.7) never send them.
    pub pulls_configuration: bool,
    /// Whether the client takes `documentChanges`: edits tied to a document
    /// version, which it refuses to apply to a later text.
    pub versioned_edits: bool,
    /// Whether the client shows server-initiated progress (`window.workDoneProgress`).
    pub work_done_progress: bool,
    /// Whether file watchers may be registered dynamically
    /// (`workspace.didChangeWatchedFiles.dynamicRegistration`).
    pub watches_files: bool,
}

impl Default for ResolvedClientCapabilities {
    fn default() -> ResolvedClientCapabilities {
        ResolvedClientCapabilities {
            encoding: Encoding::Utf16,
            resolves_edits: false,
            snippets: false,
            folding_limit: None,
            pull_diagnostics: false,
            refresh_diagnostics: false,
            refresh_inlay_hints: false,
            pulls_configuration: false,
            versioned_edits: false,
            work_done_progress: false,
            watches_files: false,
        }
    }
}

impl ResolvedClientCapabilities {
    pub fn new(capabilities: &lsp::ClientCapabilities) -> ResolvedClientCapabilities {
        let general = capabilities.general.as_ref();
        let text_document = capabilities.text_document.as_ref();
        let workspace = capabilities.workspace.as_ref();
        let offered = general.and_then(|g| g.position_encodings.as_ref());
        ResolvedClientCapabilities {
            encoding: match offered {
                Some(kinds) if kinds.contains(&lsp::PositionEncodingKind::UTF8) => Encoding::Utf8,
                _ => Encoding::Utf16,
            },
            resolves_edits: text_document
                .and_then(|t| t.code_action.as_ref())
                .and_then(|c| c.resolve_support.as_ref())
                .is_some_and(|r| r.properties.iter().any(|p| p == "edit")),
            snippets: text_document
                .and_then(|t| t.completion.as_ref())
                .and_then(|c| c.completion_item.as_ref())
                .and_then(|i| i.snippet_support)
                .unwrap_or(false),
            folding_limit: text_document
                .and_then(|t| t.folding_range.as_ref())
                .and_then(|f| f.range_limit)
                .map(|n| n as usize),
            pull_diagnostics: text_document.is_some_and(|t| t.diagnostic.is_some()),
            refresh_diagnostics: workspace
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false),
            refresh_inlay_hints: workspace
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|i| i.refresh_support)
                .unwrap_or(false),
            pulls_configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            versioned_edits: workspace
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
            work_done_progress: capabilities
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            watches_files: workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
        }
    }

    /// Whether diagnostics are pulled rather than pushed, given the setting
    /// `pullDiagnostics` (None when not given). By default they are pulled
    /// when the client pulls and can be told to pull again: the workspace
    /// checks' results come later than the analysis a pull answers with
    /// (Neovim 0.11 advertises pulls without refreshSupport: pushed to).
    /// The setting decides instead when given: false pushes; true pulls
    /// from any client that pulls (what a workspace check finds later then
    /// shows at its next pull).
    pub fn pulls_diagnostics(&self, setting: Option<bool>) -> bool {
        self.pull_diagnostics && setting.unwrap_or(self.refresh_diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(capabilities: serde_json::Value) -> ResolvedClientCapabilities {
        ResolvedClientCapabilities::new(&serde_json::from_value(capabilities).unwrap())
    }

    #[test]
    fn a_client_without_capabilities_can_do_nothing_and_takes_utf16() {
        assert_eq!(
            resolved(serde_json::json!({})),
            ResolvedClientCapabilities::default()
        );
    }

    #[test]
    fn pulls_need_refresh_support_unless_the_setting_says() {
        let pulls = serde_json::json!({"textDocument": {"diagnostic": {}}});
        let refreshes = serde_json::json!({
            "textDocument": {"diagnostic": {}},
            "workspace": {"diagnostics": {"refreshSupport": true}},
            "general": {"positionEncodings": ["utf-16", "utf-8"]},
        });
        let (pulls, refreshes) = (resolved(pulls), resolved(refreshes));
        assert_eq!(refreshes.encoding, Encoding::Utf8);
        assert!(!pulls.pulls_diagnostics(None));
        assert!(pulls.pulls_diagnostics(Some(true)));
        assert!(refreshes.pulls_diagnostics(None));
        assert!(!refreshes.pulls_diagnostics(Some(false)));
        let pushes = ResolvedClientCapabilities::default();
        assert!(!pushes.pulls_diagnostics(Some(true)));
    }
}
