//! The editor's text beats the disk's: a file open in the editor is, for
//! a target document's lenses, what the editor holds (its size, sha256 and
//! text) until it is saved ([`EditorText`]); they compare it with the
//! disk's ([`TargetTexts`]). The caller hands in the editor's text; what
//! is read here is the disk.

use std::path::Path;
use std::sync::Arc;

use report_core::ide::targets::{TargetSpan, stale_detail};

use super::files::sha256_of;

/// A file's text as the editor holds it, as a file's facts say it.
#[derive(Debug)]
pub struct EditorText {
    pub size: u64,
    pub sha256: String,
    pub text: Arc<str>,
}

impl EditorText {
    /// `text`, hashed.
    pub fn new(text: String) -> EditorText {
        EditorText {
            size: text.len() as u64,
            sha256: sha256_of([text.as_bytes()]),
            text: text.into(),
        }
    }
}

/// Files larger than this are not read to say what changed in them.
const MAX_DISK_READ: u64 = 16 << 20;

/// A target document's texts, to tell whether an entry is stale and how:
/// the editor's, and the file on disk (the text an entry's edit was made
/// for, while its sha256 is the expected one), read when asked.
pub struct TargetTexts {
    editor: Arc<EditorText>,
    disk: Option<(String, String)>,
}

impl TargetTexts {
    /// The editor's text of a target document, and the text of its file at
    /// `disk` when given (read, if a regular file of at most 16 MiB, to say
    /// what changed).
    pub fn read(editor: Arc<EditorText>, disk: Option<&Path>) -> TargetTexts {
        let disk = disk
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() <= MAX_DISK_READ))
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|text| {
                let sha = sha256_of([text.as_bytes()]);
                (text, sha)
            });
        TargetTexts { editor, disk }
    }

    /// Whether the editor's text is not the one `span`'s entry expects.
    pub fn stale_for(&self, span: &TargetSpan) -> bool {
        span.stale_for(&self.editor.sha256)
    }

    /// Why the editor's text is stale for `span`, or None when it is not.
    pub fn stale(&self, span: &TargetSpan) -> Option<String> {
        if !self.stale_for(span) {
            return None;
        }
        Some(match &self.disk {
            Some((text, sha)) if !span.stale_for(sha) => {
                stale_detail(span, text, &self.editor.text)
            }
            _ => "the text changed since the report".into(),
        })
    }
}
