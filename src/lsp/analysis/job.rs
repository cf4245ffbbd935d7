//! What the message loop sends an analysis thread: a document's new text
//! (a [`Job`]), a request that reads it (a [`Query`]), its close, and the
//! workspace checks' results.

use std::sync::Arc;
use std::sync::mpsc;

use report_core::diagnostic::Diagnostic;
use tower_lsp_server::ls_types::Uri;

use super::state::Lookup;
use crate::lsp::document::ByteEdit;
use crate::lsp::project_thread::Delivery;
use crate::lsp::session::Settings;

pub(super) enum Message {
    /// A document's text (or a setting) changed: bring it up to date.
    Analyze(Job),
    /// A request reading a document's analysis.
    Query(Query),
    /// The document was closed: forget it.
    Close(Uri),
    /// A workspace check finished, or a target document's text came.
    Workspace(Delivery),
}

pub(super) struct Job {
    pub uri: Uri,
    /// The generation `edits` start from, and the one they lead to.
    pub base: u64,
    pub generation: u64,
    pub version: i32,
    pub rope: JobRope,
    /// The changes since `base`, in order; None when the whole text must be
    /// analysed (an open, a whole-text change, new settings).
    pub edits: Option<Vec<ByteEdit>>,
    /// The whole text, when the handler had it at hand (an open): saves a copy.
    pub text: Option<Arc<String>>,
    /// The settings as they were when the job was queued: its analysis
    /// (and the publication after it) reads no others.
    pub settings: Arc<Settings>,
}

/// A job's text as a rope: at hand, or still being built by the handler
/// that sent the job (an opening's, while its text is analysed).
pub enum JobRope {
    Ready(ropey::Rope),
    Coming(mpsc::Receiver<ropey::Rope>),
}

impl JobRope {
    /// The rope, waiting for it if it is coming; made from `text` if the
    /// handler never sent it.
    pub(super) fn get(self, text: Option<&str>) -> ropey::Rope {
        match self {
            JobRope::Ready(rope) => rope,
            JobRope::Coming(coming) => coming
                .recv()
                .unwrap_or_else(|_| ropey::Rope::from_str(text.unwrap_or_default())),
        }
    }
}

impl Job {
    /// Folds a later job for the same document into this one.
    pub(super) fn absorb(&mut self, later: Job) {
        self.edits = match (self.edits.take(), later.edits) {
            (Some(mut edits), Some(more)) if later.base == self.generation => {
                edits.extend(more);
                Some(edits)
            }
            _ => None,
        };
        self.generation = later.generation;
        self.version = later.version;
        self.rope = later.rope;
        self.text = later.text;
        self.settings = later.settings;
    }
}

/// A request: run with the document's state (and the workspace
/// diagnostics of its generation) on the analysis thread.
pub(super) struct Query {
    pub uri: Uri,
    /// Whether it answers for the document's latest text, even one changed
    /// after it was asked (pulled diagnostics), rather than for the text it
    /// was asked about (positions).
    pub latest: bool,
    pub run: Box<Run>,
}

/// A query's work: the document as found, and its workspace diagnostics.
pub(super) type Run = dyn FnOnce(Lookup<'_>, &[Diagnostic]) + Send;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rope_still_coming_is_waited_for_and_made_from_the_text_if_it_never_comes() {
        let (send, coming) = mpsc::sync_channel(1);
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            send.send(ropey::Rope::from_str("sent 日本")).unwrap();
        });
        assert_eq!(
            JobRope::Coming(coming).get(Some("text")).to_string(),
            "sent 日本"
        );
        sender.join().unwrap();
        let (send, coming) = mpsc::sync_channel::<ropey::Rope>(1);
        drop(send);
        let rope = JobRope::Coming(coming).get(Some("the text 😀"));
        assert_eq!(rope.to_string(), "the text 😀");
        let ready = JobRope::Ready(ropey::Rope::from_str("ready"));
        assert_eq!(ready.get(None).to_string(), "ready");
    }
}
