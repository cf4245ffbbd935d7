//! What the message loop and the analysis threads share: the open
//! documents, the user's settings (`settings`), what the client can do
//! (`capabilities`, resolved at `initialize`), and the one ordered queue
//! diagnostics are published through.

mod capabilities;
mod settings;
mod watched;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::document::Document;
use crate::project::overlay::EditorText;
use crate::project_file::{ProjectFile, ProjectFiles};

pub use capabilities::ResolvedClientCapabilities;
pub use settings::{Settings, WorkspaceSettings};
pub use watched::Watched;

pub struct Session {
    pub documents: Mutex<HashMap<Uri, OpenDocument>>,
    /// Replaced whole by each change, so that a job keeps the settings as
    /// they were when it was queued (see [`Session::settings`]).
    settings: Mutex<Arc<Settings>>,
    /// Each workspace folder's settings (the client's answer for that
    /// folder, `scopeUri`, merged over the settings above), when the client
    /// answers `workspace/configuration`; a document takes its innermost
    /// folder's ([`Session::settings_for`]).
    folder_settings: Mutex<Vec<(PathBuf, Arc<Settings>)>>,
    negotiated: Mutex<Negotiated>,
    /// The project files found (`report-lsp.toml`, `[tool.report-lsp]`),
    /// whose values lie under the editor's settings.
    pub project_files: ProjectFiles,
    /// Settings laid over a project file, kept while neither changes:
    /// (the editor's settings, the file, the two together).
    layered: Mutex<Vec<Layered>>,
    pub publisher: Publisher,
    /// Asks the client to pull again (diagnostics, inlay hints).
    pub refresher: Option<Refresher>,
    /// The large messages being read and handled, which the search waits for.
    pub foreground: Arc<crate::lsp::foreground::Foreground>,
    /// The globs of what the open reports name, for the client's watchers.
    pub watched: Watched,
}

/// What was settled at `initialize`: what the client can do, and how it
/// gets diagnostics.
#[derive(Clone, Copy, Debug, Default)]
struct Negotiated {
    capabilities: ResolvedClientCapabilities,
    pull_diagnostics: bool,
}

impl Session {
    pub fn new(
        publisher: Publisher,
        refresher: Option<Refresher>,
        foreground: Arc<crate::lsp::foreground::Foreground>,
    ) -> Session {
        Session {
            documents: Mutex::new(HashMap::new()),
            settings: Mutex::new(Arc::new(Settings::default())),
            folder_settings: Mutex::new(Vec::new()),
            negotiated: Mutex::new(Negotiated::default()),
            project_files: ProjectFiles::default(),
            layered: Mutex::new(Vec::new()),
            publisher,
            refresher,
            foreground,
            watched: Default::default(),
        }
    }

    /// The settings now: a snapshot, which later changes leave as it is.
    pub fn settings(&self) -> Arc<Settings> {
        lock(&self.settings).clone()
    }

    /// The settings of the document at `uri`: its innermost workspace
    /// folder's, else the settings at large.
    pub fn settings_for(&self, uri: &Uri) -> Arc<Settings> {
        match uri.to_file_path() {
            Some(path) => self.settings_at(&path),
            None => self.settings(),
        }
    }

    /// The settings of the file (or folder) at `path`: its folder's (see
    /// [`Session::settings_for`]) over the project file that governs it. A
    /// project file not seen before is read (and kept); its problems wait
    /// for [`Session::publish_project_files_read`], at the events that can
    /// meet a new one, not at every keystroke.
    pub fn settings_at(&self, path: &Path) -> Arc<Settings> {
        let editor = self.editor_settings_at(path);
        let Some(file) = self.project_files.governing(path) else {
            return editor;
        };
        let mut layered = lock(&self.layered);
        let known = layered
            .iter()
            .find(|l| Arc::ptr_eq(&l.editor, &editor) && Arc::ptr_eq(&l.file, &file));
        if let Some(known) = known {
            return known.settings.clone();
        }
        let settings = Arc::new(editor.under_project(&file.values, &file.path));
        layered.push(Layered {
            editor,
            file,
            settings: settings.clone(),
        });
        settings
    }

    /// The editor's settings for `path`: its innermost folder's, else those at large.
    fn editor_settings_at(&self, path: &Path) -> Arc<Settings> {
        let folders = lock(&self.folder_settings);
        folders
            .iter()
            .filter(|(folder, _)| path.starts_with(folder))
            .max_by_key(|(folder, _)| folder.components().count())
            .map(|(_, settings)| settings.clone())
            .unwrap_or_else(|| self.settings())
    }

    /// Project files changed on disk (`paths`, each a `report-lsp.toml` or
    /// `pyproject.toml`): each folder's file read again, its problems
    /// published anew. Returns whether any was, or is now, a project file
    /// (then every report's settings may have changed).
    pub fn project_files_changed(&self, paths: &[PathBuf]) -> bool {
        let mut changed = false;
        for path in paths {
            let Some(folder) = path.parent() else {
                continue;
            };
            if let Some(old) = self.project_files.forget(folder) {
                changed = true;
                self.publish_project_file(&old.path, Vec::new());
            }
            if self
                .project_files
                .governing(folder)
                .is_some_and(|f| f.path.parent() == Some(folder))
            {
                changed = true;
            }
        }
        if changed {
            lock(&self.layered).clear();
            self.watched.changed();
        }
        self.publish_project_files_read();
        changed
    }

    /// The report globs of the settings, each folder's, and the project
    /// files' (anchored at their folders): what the client watches for reports.
    pub fn report_globs(&self) -> Vec<String> {
        let mut globs = self.settings().globs.patterns().to_vec();
        for (_, settings) in lock(&self.folder_settings).iter() {
            globs.extend(settings.globs.patterns().iter().cloned());
        }
        globs.extend(self.project_files.report_globs());
        globs
    }

    /// Publishes the problems of the project files read since last time
    /// (an empty list too: it withdraws what an earlier read published).
    /// Called where a project file may be met for the first time: a
    /// document opened, the search reading reports, new settings (and
    /// [`Session::project_files_changed`], a watched change).
    pub fn publish_project_files_read(&self) {
        let read = self.project_files.take_read();
        if !read.is_empty() {
            // Their report globs are watched too.
            self.watched.changed();
        }
        for file in read {
            let encoding = self.capabilities().encoding;
            let index = report_core::text::LineIndex::new(&file.text);
            let position = |offset: usize| {
                let at = index.line_col(&file.text, offset.min(file.text.len()), encoding);
                lsp::Position::new(at.line, at.col)
            };
            let diagnostics = file
                .problems
                .iter()
                .map(|problem| lsp::Diagnostic {
                    range: lsp::Range::new(
                        position(problem.range.start),
                        position(problem.range.end),
                    ),
                    severity: Some(lsp::DiagnosticSeverity::ERROR),
                    code: Some(lsp::NumberOrString::String(PROJECT_FILE_CODE.into())),
                    source: Some("report-lsp".into()),
                    message: problem.message.clone(),
                    ..Default::default()
                })
                .collect();
            self.publish_project_file(&file.path, diagnostics);
        }
    }

    fn publish_project_file(&self, path: &Path, diagnostics: Vec<lsp::Diagnostic>) {
        if let Some(uri) = Uri::from_file_path(path) {
            self.publisher.publish(uri, None, diagnostics);
        }
    }

    /// Replaces every folder's settings: each value merged over the
    /// settings at large (a null value: those alone). Returns what was refused.
    pub fn apply_folder_settings(
        &self,
        values: Vec<(PathBuf, Option<serde_json::Value>)>,
    ) -> Vec<String> {
        let global = self.settings();
        let mut refused = Vec::new();
        let folders = values
            .into_iter()
            .map(|(folder, value)| {
                let mut settings = (*global).clone();
                refused.extend(settings.apply(value.as_ref()));
                (folder, Arc::new(settings))
            })
            .collect();
        *lock(&self.folder_settings) = folders;
        lock(&self.layered).clear();
        self.watched.changed();
        refused
    }

    /// Merges `value` into the settings (see [`Settings::apply`]); returns
    /// the messages saying what was refused. Snapshots taken before keep
    /// the settings they had.
    pub fn apply_settings(&self, value: Option<&serde_json::Value>) -> Vec<String> {
        let mut settings = lock(&self.settings);
        let refused = Arc::make_mut(&mut settings).apply(value);
        super::trace::set_level(settings.log_level);
        lock(&self.layered).clear();
        drop(settings);
        self.watched.changed();
        refused
    }

    /// Tells a client that pulls diagnostics that they changed without an
    /// edit of its own (a workspace check, new settings): it pulls again.
    pub fn refresh_diagnostics(&self) {
        let negotiated = *lock(&self.negotiated);
        if negotiated.pull_diagnostics
            && negotiated.capabilities.refresh_diagnostics
            && let Some(refresher) = &self.refresher
        {
            refresher.send(Refresh::Diagnostics);
        }
    }

    /// Tells a client that can be told (`workspace.inlayHint.refreshSupport`)
    /// that inlay hints changed without an edit (the live tier).
    pub fn refresh_inlay_hints(&self) {
        if self.capabilities().refresh_inlay_hints
            && let Some(refresher) = &self.refresher
        {
            refresher.send(Refresh::InlayHints);
        }
    }

    /// Tells a client that can be told (`workspace.codeLens.refreshSupport`)
    /// that code lenses changed without an edit (the comparison with HEAD).
    pub fn refresh_code_lenses(&self) {
        if self.capabilities().refresh_code_lenses
            && let Some(refresher) = &self.refresher
        {
            refresher.send(Refresh::CodeLenses);
        }
    }

    /// What the client can do, as resolved at `initialize`.
    pub fn capabilities(&self) -> ResolvedClientCapabilities {
        lock(&self.negotiated).capabilities
    }

    /// Whether the client pulls diagnostics (`textDocument/diagnostic`)
    /// instead of being sent them, as decided at `initialize`
    /// ([`ResolvedClientCapabilities::pulls_diagnostics`]).
    pub fn pulls_diagnostics(&self) -> bool {
        lock(&self.negotiated).pull_diagnostics
    }

    /// Records what `initialize` settled.
    pub fn negotiate(&self, capabilities: ResolvedClientCapabilities, pull_diagnostics: bool) {
        *lock(&self.negotiated) = Negotiated {
            capabilities,
            pull_diagnostics,
        };
    }
}

/// The code of a project file's problems: a value refused, or its syntax.
pub const PROJECT_FILE_CODE: &str = "project-file";

/// The editor's settings laid over a project file.
struct Layered {
    editor: Arc<Settings>,
    file: Arc<ProjectFile>,
    settings: Arc<Settings>,
}

/// An open document as the message loop knows it.
pub struct OpenDocument {
    pub document: Document,
    /// Counts the texts this document has had. Freshness is judged by it, not
    /// by the client's version, which a client may repeat or send backwards.
    pub generation: u64,
    /// Whether the diagnostics last published for it were non-empty.
    pub published: bool,
    /// A document a report may name (Markdown, text), not a report: it is
    /// never analysed; the features of a target document serve it.
    pub target: bool,
    /// Its text as its file's facts would say it, kept for the generation
    /// it was made from: hashed once per change, not once per request (a
    /// clean's preview, the reports naming it, its lenses), and gone with
    /// the document.
    pub as_file: AsFile,
}

impl OpenDocument {
    /// What it takes to have its text as a file ([`TextAsFile::get`]) off
    /// the documents' lock; None when the editor's text is not known (out
    /// of sync).
    pub fn text_as_file(&mut self) -> Option<TextAsFile> {
        (!self.document.out_of_sync).then(|| TextAsFile {
            generation: self.generation,
            rope: self.document.rope().clone(),
            kept: self.as_file.clone(),
        })
    }
}

/// An open document's text as a file ([`EditorText`]), for the generation
/// it was made from.
#[derive(Clone, Default)]
pub struct AsFile(Arc<Mutex<Option<KeptText>>>);

struct KeptText {
    generation: u64,
    text: Arc<EditorText>,
}

/// One generation of an open document's text, taken under the documents'
/// lock (a rope's clone shares its nodes), to be made a file's facts after.
pub struct TextAsFile {
    generation: u64,
    rope: ropey::Rope,
    kept: AsFile,
}

impl TextAsFile {
    /// The text as a file: kept for its generation, else made (and kept).
    pub fn get(&self) -> Arc<EditorText> {
        let mut kept = lock(&self.kept.0);
        if let Some(known) = &*kept
            && known.generation == self.generation
        {
            return known.text.clone();
        }
        let text = Arc::new(EditorText::new(self.rope.to_string()));
        // A later text's, kept meanwhile, stays.
        if kept.as_ref().is_none_or(|k| k.generation < self.generation) {
            *kept = Some(KeptText {
                generation: self.generation,
                text: text.clone(),
            });
        }
        text
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
    CodeLenses,
}

/// Sends `workspace/diagnostic/refresh`, `workspace/inlayHint/refresh` and `workspace/codeLens/refresh`
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
                            Refresh::CodeLenses => client.code_lens_refresh().await,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An open document's text is made a file's facts once a generation,
    /// whoever asks; a text asked for late does not replace a newer one,
    /// and out of sync there is none.
    #[test]
    fn a_text_is_made_a_file_once_a_generation() {
        let mut open = OpenDocument {
            document: Document::new("a 漢字\n", 1),
            generation: 1,
            published: false,
            target: true,
            as_file: AsFile::default(),
        };
        let first = open.text_as_file().unwrap().get();
        assert_eq!(&*first.text, "a 漢字\n");
        assert!(Arc::ptr_eq(&first, &open.text_as_file().unwrap().get()));
        let late = open.text_as_file().unwrap();
        open.document = Document::new("b\n", 2);
        open.generation = 2;
        let second = open.text_as_file().unwrap().get();
        assert_eq!(&*second.text, "b\n");
        assert_eq!(&*late.get().text, "a 漢字\n");
        assert!(Arc::ptr_eq(&second, &open.text_as_file().unwrap().get()));
        open.document.out_of_sync = true;
        assert!(open.text_as_file().is_none());
    }

    /// The settings getter reads a project file it has not seen, and
    /// publishes nothing (it runs at every keystroke); its problems are
    /// published when asked, once.
    #[test]
    fn the_settings_getter_only_gets() {
        let folder = tempfile::tempdir().unwrap();
        let toml = "workspace-checks = \"maybe\"\n";
        std::fs::write(folder.path().join("report-lsp.toml"), toml).unwrap();
        let (sender, mut published) = futures::channel::mpsc::unbounded();
        let foreground = Arc::new(crate::lsp::foreground::Foreground::default());
        let session = Session::new(Publisher(sender), None, foreground);
        let report = folder.path().join("a.report.json");
        session.settings_at(&report);
        session.settings_at(&report);
        assert!(published.try_recv().is_err(), "the getter published");
        session.publish_project_files_read();
        let body = published.try_recv().unwrap();
        let body = String::from_utf8(body).unwrap();
        assert!(body.contains(PROJECT_FILE_CODE), "{body}");
        assert!(body.contains("report-lsp.toml"), "{body}");
        session.settings_at(&report);
        session.publish_project_files_read();
        assert!(published.try_recv().is_err(), "published twice");
    }
}
