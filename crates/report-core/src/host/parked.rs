//! The per-entry analysis kept while an edit within one entry broke it, for
//! the edit that repairs it: a typing pause inside a half-written value
//! should not cost a full analysis of a 50,000-entry report twice.

use crate::incremental::Incremental;
use crate::text::{ByteEdit, SourceText, changed_range};

/// The text before the edit that broke an entry, its per-entry analysis,
/// and one edit that leads from it to the current text when the edits
/// since are known.
pub(super) struct Parked<T> {
    pub text: T,
    pub incremental: Incremental,
    pub since: Option<ByteEdit>,
}

/// What became of a parked analysis at an update.
#[expect(
    clippy::large_enum_variant,
    reason = "returned once an update and taken apart at once"
)]
pub(super) enum Repair<T> {
    /// The text is back within one entry of it: the analysis of the text.
    Repaired(Incremental),
    /// Not yet: parked again, for a later repair.
    StillBroken(Box<Parked<T>>),
    /// It can no longer follow the text.
    Lost,
}

impl<T: SourceText> Parked<T> {
    /// The parked analysis brought to `text`, when `text` is the parked one
    /// or differs from it within one entry (a repair). `edits` lead from the
    /// current text to `text`, when they are known.
    pub fn repair(self, text: &T, edits: Option<&[ByteEdit]>) -> Repair<T> {
        let Parked {
            text: old_text,
            mut incremental,
            since,
        } = self;
        // From the edits since (no need to compare the texts), else by comparing them.
        let edit = match (since, edits) {
            (Some(since), Some(edits)) => {
                let all: Vec<ByteEdit> = std::iter::once(since)
                    .chain(edits.iter().copied())
                    .collect();
                ByteEdit::compose(&all)
            }
            _ => None,
        };
        let edit = edit.or_else(|| changed_range(&old_text, text));
        let tracked = match edit {
            None => true,
            Some(edit) => {
                incremental.accepts(edit.range)
                    && incremental.edit(edit.range, edit.new_len)
                    && incremental.len() == text.len()
                    && incremental.update(|range| text.slice(range))
            }
        };
        if tracked {
            return Repair::Repaired(incremental);
        }
        match incremental.resume() {
            true => Repair::StillBroken(Box::new(Parked {
                text: old_text,
                incremental,
                since: edit,
            })),
            false => Repair::Lost,
        }
    }
}
