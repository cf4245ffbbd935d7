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
    /// Whether the client fills in a code action's edit with
    /// `codeAction/resolve`, keeping the action's `data` for it.
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
    /// Whether the client can be told to ask for code lenses again.
    pub refresh_code_lenses: bool,
    /// Whether the client answers `workspace/configuration`: then the server
    /// asks for its settings itself, as some clients (Neovim 0.7) never send them.
    pub pulls_configuration: bool,
    /// Whether the client takes `documentChanges`: edits tied to a document
    /// version, which it refuses to apply to a later text.
    pub versioned_edits: bool,
    /// Whether an edit may create files and delete files or folders
    /// (`workspaceEdit.resourceOperations`), with `documentChanges`.
    pub creates_files: bool,
    pub deletes_files: bool,
    /// Whether an edit's changes may carry annotations, which the client
    /// shows (and asks to confirm, when they say so) before applying.
    pub change_annotations: bool,
    /// Whether a code action may be offered disabled, with the reason.
    pub disabled_actions: bool,
    /// Whether the client opens a document the server asks it to
    /// (`window/showDocument`): a target document's lens leads to its entry.
    pub shows_documents: bool,
    /// Whether the client reads the diagnostic tag `Unnecessary`
    /// (`publishDiagnostics.tagSupport`), which fades a span.
    pub unnecessary_tags: bool,
    /// Whether the client shows server-initiated progress (`window.workDoneProgress`).
    pub work_done_progress: bool,
    /// Whether file watchers may be registered dynamically
    /// (`workspace.didChangeWatchedFiles.dynamicRegistration`).
    pub watches_files: bool,
    /// Whether code actions may be `CodeAction` literals
    /// (`codeActionLiteralSupport`); without it only `Command`s.
    pub code_action_literals: bool,
    /// Whether a code action may say it is the preferred one.
    pub preferred_actions: bool,
    /// Whether the client applies an edit the server sends
    /// (`workspace/applyEdit`): what a fix offered as a `Command` runs.
    pub applies_edits: bool,
    /// Whether the client lists the completion item kinds it reads
    /// (`completionItemKind.valueSet`): it then takes any kind, falling back
    /// on its own; without, only those of the first protocol (1 to 18).
    pub lists_completion_kinds: bool,
    /// Whether completion documentation may be Markdown.
    pub completion_markdown: bool,
    /// Whether a completion item may be preselected.
    pub preselect: bool,
    /// Whether the client lists the symbol kinds it reads
    /// (`symbolKind.valueSet`), as for completion kinds.
    pub lists_symbol_kinds: bool,
    /// Whether `workspace/symbol` may answer `Object` (19): the client lists
    /// it in `workspace.symbol.symbolKind.valueSet`.
    pub lists_workspace_symbol_kinds: bool,
    /// Whether the outline may be a tree (`DocumentSymbol[]`); without it a
    /// flat `SymbolInformation[]`.
    pub hierarchical_symbols: bool,
    /// Whether a hover may be Markdown.
    pub hover_markdown: bool,
    /// Whether a diagnostic may carry `relatedInformation`; without it the
    /// related places are told in its message.
    pub related_information: bool,
    /// Whether a document link may carry a tooltip.
    pub link_tooltips: bool,
    /// Whether the client asks `textDocument/prepareRename` first: only
    /// then may the server say it answers it (`RenameOptions`).
    pub prepare_rename: bool,
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
            refresh_code_lenses: false,
            pulls_configuration: false,
            versioned_edits: false,
            creates_files: false,
            deletes_files: false,
            change_annotations: false,
            disabled_actions: false,
            shows_documents: false,
            unnecessary_tags: false,
            work_done_progress: false,
            watches_files: false,
            code_action_literals: false,
            preferred_actions: false,
            applies_edits: false,
            lists_completion_kinds: false,
            completion_markdown: false,
            preselect: false,
            lists_symbol_kinds: false,
            lists_workspace_symbol_kinds: false,
            hierarchical_symbols: false,
            hover_markdown: false,
            related_information: false,
            link_tooltips: false,
            prepare_rename: false,
        }
    }
}

impl ResolvedClientCapabilities {
    pub fn new(capabilities: &lsp::ClientCapabilities) -> ResolvedClientCapabilities {
        let general = capabilities.general.as_ref();
        let text_document = capabilities.text_document.as_ref();
        let workspace = capabilities.workspace.as_ref();
        let offered = general.and_then(|g| g.position_encodings.as_ref());
        let code_action = text_document.and_then(|t| t.code_action.as_ref());
        let completion = text_document.and_then(|t| t.completion.as_ref());
        let completion_item = completion.and_then(|c| c.completion_item.as_ref());
        let symbols = text_document.and_then(|t| t.document_symbol.as_ref());
        let workspace_edit = workspace.and_then(|w| w.workspace_edit.as_ref());
        // Resource operations go in `documentChanges`: without it, none.
        let resource_operation = |kind: lsp::ResourceOperationKind| {
            workspace_edit.is_some_and(|e| {
                e.document_changes == Some(true)
                    && e.resource_operations
                        .as_ref()
                        .is_some_and(|k| k.contains(&kind))
            })
        };
        let markdown = |formats: Option<&Vec<lsp::MarkupKind>>| {
            formats.is_some_and(|f| f.contains(&lsp::MarkupKind::Markdown))
        };
        ResolvedClientCapabilities {
            encoding: match offered {
                Some(kinds) if kinds.contains(&lsp::PositionEncodingKind::UTF8) => Encoding::Utf8,
                _ => Encoding::Utf16,
            },
            // The action's `data` says what to resolve: the client must keep it.
            resolves_edits: code_action.is_some_and(|c| {
                c.data_support == Some(true)
                    && c.resolve_support
                        .as_ref()
                        .is_some_and(|r| r.properties.iter().any(|p| p == "edit"))
            }),
            snippets: completion_item
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
            refresh_code_lenses: workspace
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
            pulls_configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            versioned_edits: workspace
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
            creates_files: resource_operation(lsp::ResourceOperationKind::Create),
            deletes_files: resource_operation(lsp::ResourceOperationKind::Delete),
            change_annotations: workspace_edit
                .and_then(|e| e.document_changes)
                .unwrap_or(false)
                && workspace_edit.is_some_and(|e| e.change_annotation_support.is_some()),
            disabled_actions: code_action
                .and_then(|c| c.disabled_support)
                .unwrap_or(false),
            shows_documents: capabilities
                .window
                .as_ref()
                .and_then(|w| w.show_document.as_ref())
                .is_some_and(|d| d.support),
            unnecessary_tags: text_document
                .and_then(|t| t.publish_diagnostics.as_ref())
                .and_then(|p| p.tag_support.as_ref())
                .is_some_and(|t| t.value_set.contains(&lsp::DiagnosticTag::UNNECESSARY)),
            work_done_progress: capabilities
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            watches_files: workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            code_action_literals: code_action
                .is_some_and(|c| c.code_action_literal_support.is_some()),
            preferred_actions: code_action
                .and_then(|c| c.is_preferred_support)
                .unwrap_or(false),
            applies_edits: workspace.and_then(|w| w.apply_edit).unwrap_or(false),
            lists_completion_kinds: completion
                .and_then(|c| c.completion_item_kind.as_ref())
                .is_some_and(|k| k.value_set.is_some()),
            completion_markdown: markdown(
                completion_item.and_then(|i| i.documentation_format.as_ref()),
            ),
            preselect: completion_item
                .and_then(|i| i.preselect_support)
                .unwrap_or(false),
            lists_symbol_kinds: symbols
                .and_then(|s| s.symbol_kind.as_ref())
                .is_some_and(|k| k.value_set.is_some()),
            lists_workspace_symbol_kinds: capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.symbol.as_ref())
                .and_then(|s| s.symbol_kind.as_ref())
                .and_then(|k| k.value_set.as_ref())
                .is_some_and(|kinds| kinds.contains(&lsp::SymbolKind::OBJECT)),
            hierarchical_symbols: symbols
                .and_then(|s| s.hierarchical_document_symbol_support)
                .unwrap_or(false),
            hover_markdown: markdown(
                text_document
                    .and_then(|t| t.hover.as_ref())
                    .and_then(|h| h.content_format.as_ref()),
            ),
            // Pushed diagnostics say so under publishDiagnostics; pulled
            // ones (3.18) under diagnostic. A 3.17 client that pulls can
            // only say it under publishDiagnostics, as VS Code does.
            related_information: text_document.is_some_and(|t| {
                let pushed = t.publish_diagnostics.as_ref();
                let pulled = t.diagnostic.as_ref();
                pushed.and_then(|p| p.related_information).unwrap_or(false)
                    || pulled.and_then(|d| d.related_information).unwrap_or(false)
            }),
            link_tooltips: text_document
                .and_then(|t| t.document_link.as_ref())
                .and_then(|l| l.tooltip_support)
                .unwrap_or(false),
            prepare_rename: text_document
                .and_then(|t| t.rename.as_ref())
                .and_then(|r| r.prepare_support)
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
    fn kinds_past_the_first_eighteen_only_to_a_client_that_lists_its_kinds() {
        let first = resolved(serde_json::json!({}));
        assert!(!first.lists_completion_kinds && !first.lists_symbol_kinds);
        let listing = resolved(serde_json::json!({"textDocument": {
            "completion": {"completionItemKind": {"valueSet": [1, 12]}},
            "documentSymbol": {"symbolKind": {"valueSet": [1, 2]}},
        }}));
        assert!(listing.lists_completion_kinds && listing.lists_symbol_kinds);
        assert!(!listing.lists_workspace_symbol_kinds);
        let workspace = resolved(serde_json::json!({"workspace": {
            "symbol": {"symbolKind": {"valueSet": [1, 19]}},
        }}));
        assert!(workspace.lists_workspace_symbol_kinds && !workspace.lists_symbol_kinds);
    }

    #[test]
    fn related_information_from_either_diagnostics_capability() {
        let pushed = serde_json::json!({"textDocument": {"publishDiagnostics": {"relatedInformation": true}}});
        let pulled = serde_json::json!({"textDocument": {"diagnostic": {"relatedInformation": true}, "publishDiagnostics": {"relatedInformation": false}}});
        assert!(resolved(pushed).related_information);
        assert!(resolved(pulled).related_information);
        assert!(!resolved(serde_json::json!({})).related_information);
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
