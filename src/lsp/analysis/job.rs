//! What the message loop sends an analysis thread: a document's new text
//! (a [`Job`]), a request that reads it (a [`Query`]), its close, and the
//! workspace checks' results.

use std::sync::Arc;

use report_core::diagnostic::Diagnostic;
use tower_lsp_server::ls_types::Uri;

use super::state::Lookup;
use crate::lsp::document::{ByteEdit, OpeningRope};
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
    /// The whole text of an opening, or of a reload taken as one
    /// (`Document::replace`): analysed from this string (no copy), the
    /// rope made after; the host is opened, or released and reopened.
    pub text: Option<Arc<String>>,
    /// The settings as they were when the job was queued: its analysis
    /// (and the publication after it) reads no others.
    pub settings: Arc<Settings>,
}

/// A job's text as a rope: at hand, or an opening's, made by the analysis
/// (see `Document::opening`) unless the document made it first.
pub enum JobRope {
    Ready(ropey::Rope),
    Opening(OpeningRope),
}

impl JobRope {
    /// The rope, made now if it is an opening's not made yet.
    pub(super) fn get(self) -> ropey::Rope {
        match self {
            JobRope::Ready(rope) => rope,
            JobRope::Opening(opening) => opening.get(),
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
    /// Whether it reads the document's text: every request but a
    /// diagnostics pull, which reads the analysis and converts positions as
    /// the publication does. An opening's rope is made before it runs.
    pub reads_text: bool,
    pub run: Box<Run>,
}

/// A query's work: the document as found, and its workspace diagnostics.
pub(super) type Run = dyn FnOnce(Lookup<'_>, &[Diagnostic]) + Send;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_openings_rope_is_made_once_by_whichever_needs_it_first_and_lets_the_text_go() {
        use crate::lsp::document::Document;
        // The analysis first: the text is let go as soon as the rope is made
        // (the analysis frees its own copy next), and the document takes it.
        let text = Arc::new("{\"a\": \"日本 😀\"}\r\n".to_string());
        let (mut document, rope) = Document::opening(text.clone(), 1);
        assert!(!document.take_made_rope(), "nothing is made yet");
        assert_eq!(Arc::strong_count(&text), 2, "the opening holds the text");
        let analysed = JobRope::Opening(rope).get();
        assert_eq!(Arc::strong_count(&text), 1, "the opening let the text go");
        assert!(document.take_made_rope());
        assert_eq!(document.rope().to_string(), *text);
        assert_eq!(analysed.to_string(), *text);
        // The document first (a change before the analysis made it): the
        // analysis takes the document's rope.
        let (mut document, rope) = Document::opening(text.clone(), 1);
        assert_eq!(document.rope().to_string(), *text);
        assert_eq!(Arc::strong_count(&text), 1, "the opening let the text go");
        assert_eq!(JobRope::Opening(rope).get().to_string(), *text);
        let ready = JobRope::Ready(ropey::Rope::from_str("ready"));
        assert_eq!(ready.get().to_string(), "ready");
    }
}
