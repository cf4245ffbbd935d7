//! What the message loop and the analysis thread share: the open documents,
//! the user's settings, what was negotiated with the client, and the one
//! ordered queue diagnostics are published through.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use report_core::selection::ReportGlobs;
use report_core::text::Encoding;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::document::Document;

pub struct Session {
    pub documents: Mutex<HashMap<Uri, OpenDocument>>,
    pub settings: Mutex<Settings>,
    negotiated: Mutex<Negotiated>,
    pub publisher: Publisher,
    /// Asks the client to pull again (diagnostics, inlay hints).
    pub refresher: Option<Refresher>,
}

impl Session {
    pub fn new(publisher: Publisher, refresher: Option<Refresher>) -> Session {
        Session {
            documents: Mutex::new(HashMap::new()),
            settings: Mutex::new(Settings::default()),
            negotiated: Mutex::new(Negotiated::default()),
            publisher,
            refresher,
        }
    }

    /// Tells a client that pulls diagnostics that they changed without an
    /// edit of its own (a workspace check, new settings): it pulls again.
    pub fn refresh_diagnostics(&self) {
        let negotiated = self.negotiated();
        if negotiated.pull_diagnostics
            && negotiated.refresh_diagnostics
            && let Some(refresher) = &self.refresher
        {
            refresher.send(Refresh::Diagnostics);
        }
    }

    /// Tells a client that can be told (`workspace.inlayHint.refreshSupport`)
    /// that inlay hints changed without an edit (the live tier).
    pub fn refresh_inlay_hints(&self) {
        if self.negotiated().refresh_inlay_hints
            && let Some(refresher) = &self.refresher
        {
            refresher.send(Refresh::InlayHints);
        }
    }

    pub fn negotiated(&self) -> Negotiated {
        *lock(&self.negotiated)
    }

    pub fn negotiate(&self, negotiated: Negotiated) {
        *lock(&self.negotiated) = negotiated;
    }
}

/// An open document as the message loop knows it.
pub struct OpenDocument {
    pub document: Document,
    /// Counts the texts this document has had. Freshness is judged by it, not
    /// by the client's version, which a client may repeat or send backwards.
    pub generation: u64,
    /// Whether the diagnostics last published for it were non-empty.
    pub published: bool,
}

/// What the client and the server agreed on at `initialize`.
#[derive(Clone, Copy, Debug)]
pub struct Negotiated {
    pub encoding: Encoding,
    /// Whether the client fills in a code action's edit with `codeAction/resolve`.
    pub resolves_edits: bool,
    /// Whether completion items may be snippets.
    pub snippets: bool,
    /// Folding ranges the client takes at most.
    pub folding_limit: Option<usize>,
    /// Whether the client pulls diagnostics (`textDocument/diagnostic`)
    /// instead of being sent them: it advertises pulls and can be told to
    /// pull again (`workspace.diagnostics.refreshSupport`), which the
    /// workspace checks' later results need.
    pub pull_diagnostics: bool,
    /// Whether the client can be told to pull diagnostics again.
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
}

impl Default for Negotiated {
    fn default() -> Negotiated {
        Negotiated {
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
        }
    }
}

/// The user's settings (`initializationOptions`, `didChangeConfiguration`,
/// and the answers to `workspace/configuration`).
pub struct Settings {
    pub globs: ReportGlobs,
    /// Diagnostics published per document at most; one summary stands for the rest.
    pub max_diagnostics: usize,
    /// Documents larger than this get one diagnostic instead of an analysis.
    pub max_document_bytes: usize,
    /// How far `raw_tokens` may be from the workspace check's recount, as a
    /// fraction of the recount (`tokenTolerance`).
    pub token_tolerance: f64,
    /// Document links per report at most (`maxDocumentLinks`); go to
    /// definition opens any named file.
    pub max_document_links: usize,
    /// Whether the workspace checks run at all (`workspaceChecks`: `"on"`,
    /// `"off"`): off, nothing under a project is read.
    pub workspace_checks: bool,
    /// Set by the VS Code extension in a restricted (untrusted) workspace
    /// (`restrictedWorkspace`): the workspace checks are off, whatever
    /// `workspaceChecks` says, and the hover says the workspace is restricted.
    pub restricted_workspace: bool,
    /// Whether a project root outside every workspace folder is read
    /// (`allowRootOutsideWorkspace`).
    pub allow_root_outside_workspace: bool,
}

/// What the workspace checks take of the settings: a change of it checks
/// every open report against its project again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkspaceSettings {
    pub token_tolerance: f64,
    /// Why the checks are off, for the hover; None when they run.
    pub off: Option<&'static str>,
    pub allow_root_outside_workspace: bool,
}

/// Well above the largest reports served (50 000 entries are about 42 MB),
/// well below what would exhaust a workstation.
const DEFAULT_MAX_DOCUMENT_BYTES: usize = 128 << 20;

/// Enough to fix a broken report, few enough that a report with thousands of
/// problems stays responsive.
const DEFAULT_MAX_DIAGNOSTICS: usize = 1000;

/// VS Code's JSON server computes at most 5,000 symbols and colours
/// (`json.maxItemsComputed`); links are as costly to send after each change.
const DEFAULT_MAX_DOCUMENT_LINKS: usize = 5000;

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            globs: ReportGlobs::default(),
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            token_tolerance: crate::workspace::tokens::DEFAULT_TOLERANCE,
            max_document_links: DEFAULT_MAX_DOCUMENT_LINKS,
            workspace_checks: true,
            restricted_workspace: false,
            allow_root_outside_workspace: false,
        }
    }
}

impl Settings {
    /// Merges the settings in `value` (under `reportLsp` or at the top level)
    /// into these. A setting `value` lacks (or sets to null) keeps its current
    /// value: clients send partial changes, and a change of one setting must
    /// not undo another. A value of the wrong type is refused, the current one
    /// kept; the returned messages say what was refused, for the client's log.
    pub fn apply(&mut self, value: Option<&serde_json::Value>) -> Vec<String> {
        let mut refused = Vec::new();
        let Some(value) = value else {
            return refused;
        };
        let section = value.get("reportLsp").unwrap_or(value);
        let setting = |name: &str| section.get(name).filter(|v| !v.is_null());
        if let Some(files) = setting("files") {
            match glob_list(files)
                .and_then(|patterns| ReportGlobs::new(&patterns).map_err(|error| error.to_string()))
            {
                Ok(globs) => self.globs = globs,
                Err(why) => refused.push(refusal("files", files, &why)),
            }
        }
        if let Some(max) = setting("maxDiagnostics") {
            match positive(max) {
                Some(max) => self.max_diagnostics = max,
                None => refused.push(refusal("maxDiagnostics", max, POSITIVE)),
            }
        }
        if let Some(max) = setting("maxDocumentBytes") {
            match positive(max) {
                Some(max) => self.max_document_bytes = max,
                None => refused.push(refusal("maxDocumentBytes", max, POSITIVE)),
            }
        }
        if let Some(max) = setting("maxDocumentLinks") {
            match positive(max) {
                Some(max) => self.max_document_links = max,
                None => refused.push(refusal("maxDocumentLinks", max, POSITIVE)),
            }
        }
        if let Some(tolerance) = setting("tokenTolerance") {
            match tolerance.as_f64().filter(|t| t.is_finite() && *t >= 0.0) {
                Some(t) => self.token_tolerance = t,
                None => refused.push(refusal("tokenTolerance", tolerance, FRACTION)),
            }
        }
        if let Some(checks) = setting("workspaceChecks") {
            match checks.as_str() {
                Some("on") => self.workspace_checks = true,
                Some("off") => self.workspace_checks = false,
                _ => refused.push(refusal("workspaceChecks", checks, ON_OFF)),
            }
        }
        for (name, field) in [
            ("restrictedWorkspace", &mut self.restricted_workspace),
            (
                "allowRootOutsideWorkspace",
                &mut self.allow_root_outside_workspace,
            ),
        ] {
            if let Some(value) = setting(name) {
                match value.as_bool() {
                    Some(yes) => *field = yes,
                    None => refused.push(refusal(name, value, BOOLEAN)),
                }
            }
        }
        refused
    }

    pub fn workspace(&self) -> WorkspaceSettings {
        let off = if self.restricted_workspace {
            Some(
                "the workspace checks are off because the editor's workspace is restricted (not trusted); they run once you trust it",
            )
        } else if !self.workspace_checks {
            Some("the workspace checks are off (the setting `workspaceChecks` is `\"off\"`)")
        } else {
            None
        };
        WorkspaceSettings {
            token_tolerance: self.token_tolerance,
            off,
            allow_root_outside_workspace: self.allow_root_outside_workspace,
        }
    }
}

const ON_OFF: &str = "expected \"on\" or \"off\"";

const BOOLEAN: &str = "expected true or false";

const FRACTION: &str = "expected a fraction of at least 0, such as 0.1 for 10%";

const POSITIVE: &str = "expected a whole number of at least 1";

/// A whole number of at least 1: `"10"`, `10.5`, `-1` and `0` are not.
fn positive(value: &serde_json::Value) -> Option<usize> {
    value
        .as_u64()
        .filter(|&n| n >= 1)
        .and_then(|n| usize::try_from(n).ok())
}

fn glob_list(value: &serde_json::Value) -> Result<Vec<String>, String> {
    let not_list = || "expected a list of glob strings".to_string();
    value
        .as_array()
        .ok_or_else(not_list)?
        .iter()
        .map(|p| p.as_str().map(str::to_string).ok_or_else(not_list))
        .collect()
}

fn refusal(name: &str, value: &serde_json::Value, why: &str) -> String {
    format!(
        "report-lsp: setting reportLsp.{name} = {value} refused ({why}); the previous value is kept"
    )
}

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock is caught and reported; the data stays usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sends `publishDiagnostics` notifications, serialized here and framed by
/// the transport: going through the client handle would first build a
/// `serde_json::Value` of every diagnostic, which costs more than
/// everything else a keystroke does when a thousand are published.
#[derive(Clone)]
pub struct Publisher(pub futures::channel::mpsc::UnboundedSender<Vec<u8>>);

impl Publisher {
    pub fn publish(&self, uri: Uri, version: Option<i32>, diagnostics: Vec<lsp::Diagnostic>) {
        #[derive(serde::Serialize)]
        struct Notification {
            jsonrpc: &'static str,
            method: &'static str,
            params: lsp::PublishDiagnosticsParams,
        }
        let notification = Notification {
            jsonrpc: "2.0",
            method: "textDocument/publishDiagnostics",
            params: lsp::PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            },
        };
        if let Ok(body) = serde_json::to_vec(&notification) {
            let _ = self.0.unbounded_send(body);
        }
    }

    /// Sends any other notification, in order with the publications.
    pub fn notify<P: serde::Serialize>(&self, method: &str, params: P) {
        let notification =
            serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        if let Ok(body) = serde_json::to_vec(&notification) {
            let _ = self.0.unbounded_send(body);
        }
    }
}

/// What the client is asked to pull again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refresh {
    Diagnostics,
    InlayHints,
}

/// Sends `workspace/diagnostic/refresh` and `workspace/inlayHint/refresh`
/// from any thread: a task on the server's runtime sends them, and a burst
/// of asks becomes one request of each kind.
#[derive(Clone)]
pub struct Refresher(tokio::sync::mpsc::UnboundedSender<Refresh>);

impl Refresher {
    /// Starts the task on the current runtime.
    pub fn spawn(client: tower_lsp_server::Client) -> Refresher {
        let (asks, mut asked) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(first) = asked.recv().await {
                let mut due = vec![first];
                while let Ok(more) = asked.try_recv() {
                    if !due.contains(&more) {
                        due.push(more);
                    }
                }
                for refresh in due {
                    // Each on its own: a client slow to answer one holds up no other.
                    let client = client.clone();
                    tokio::spawn(async move {
                        // A client that refuses is not asked differently: nothing to do.
                        let _ = match refresh {
                            Refresh::Diagnostics => client.workspace_diagnostic_refresh().await,
                            Refresh::InlayHints => client.inlay_hint_refresh().await,
                        };
                    });
                }
            }
        });
        Refresher(asks)
    }

    fn send(&self, refresh: Refresh) {
        let _ = self.0.send(refresh);
    }
}
