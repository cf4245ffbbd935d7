//! What the message loop and the analysis thread share: the open documents,
//! the user's settings, what was negotiated with the client, and the one
//! ordered queue diagnostics are published through.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use report_core::selection::{DEFAULT_REPORT_GLOBS, ReportGlobs};
use report_core::text::Encoding;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::document::Document;

pub struct Session {
    pub documents: Mutex<HashMap<Uri, OpenDocument>>,
    pub settings: Mutex<Settings>,
    negotiated: Mutex<Negotiated>,
    pub publisher: Publisher,
}

impl Session {
    pub fn new(publisher: Publisher) -> Session {
        Session {
            documents: Mutex::new(HashMap::new()),
            settings: Mutex::new(Settings::default()),
            negotiated: Mutex::new(Negotiated::default()),
            publisher,
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
    /// Whether the client takes `documentChanges`: edits tied to a document
    /// version, which it refuses to apply to a later text.
    pub versioned_edits: bool,
}

impl Default for Negotiated {
    fn default() -> Negotiated {
        Negotiated {
            encoding: Encoding::Utf16,
            resolves_edits: false,
            versioned_edits: false,
        }
    }
}

/// The user's settings (`initializationOptions`, `didChangeConfiguration`).
pub struct Settings {
    pub globs: ReportGlobs,
    /// Diagnostics published per document at most; one summary stands for the rest.
    pub max_diagnostics: usize,
    /// Documents larger than this get one diagnostic instead of an analysis.
    pub max_document_bytes: usize,
}

/// Well above the largest reports served (50 000 entries are about 42 MB),
/// well below what would exhaust a workstation.
const DEFAULT_MAX_DOCUMENT_BYTES: usize = 128 << 20;

/// Enough to fix a broken report, few enough that a report with thousands of
/// problems stays responsive.
const DEFAULT_MAX_DIAGNOSTICS: usize = 1000;

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            globs: ReportGlobs::default(),
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
        }
    }
}

impl Settings {
    /// Reads settings from `value` (under `reportLsp` or at the top level);
    /// a setting it lacks takes its default.
    pub fn apply(&mut self, value: Option<&serde_json::Value>) {
        let setting = |name: &str| value.and_then(|v| v.get("reportLsp").unwrap_or(v).get(name));
        let files = setting("files").and_then(|f| f.as_array()).map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        });
        let patterns =
            files.unwrap_or_else(|| DEFAULT_REPORT_GLOBS.iter().map(|s| s.to_string()).collect());
        match ReportGlobs::new(&patterns) {
            Ok(globs) => self.globs = globs,
            Err(error) => {
                eprintln!("report-lsp: ignoring invalid file globs {patterns:?}: {error}")
            }
        }
        let max = setting("maxDiagnostics").and_then(|m| m.as_u64());
        self.max_diagnostics = max.map_or(DEFAULT_MAX_DIAGNOSTICS, |m| m as usize);
        let max_bytes = setting("maxDocumentBytes").and_then(|m| m.as_u64());
        self.max_document_bytes = max_bytes.map_or(DEFAULT_MAX_DOCUMENT_BYTES, |m| m as usize);
    }
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
}
