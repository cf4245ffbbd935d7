//! Editor features that know the report: navigation and rename, the
//! outline, folding and selection, inlay hints, token roll-ups and
//! completion. Each works in byte offsets over a [`ReportIndex`], the facts
//! the analysis kept (per entry, or of a full analysis), so that it needs no
//! reparse of a large report; only what the facts do not hold (the
//! structure inside an object) is read from a parse of the text around.

pub mod clean;
pub mod completion;
pub mod folding;
pub mod inlay;
pub mod links;
pub mod navigation;
pub mod quick_fixes;
pub mod symbols;
pub mod targets;
pub mod workspace_symbols;

use crate::validate::{Candidate, EntryFacts, Shortlist, TopMember};

/// What the features read of an analysed report.
pub struct ReportIndex<'a> {
    /// In document order.
    pub(crate) entries: Vec<&'a EntryFacts>,
    pub(crate) shortlist: Option<&'a Shortlist>,
    pub(crate) candidates: &'a [Candidate],
    pub(crate) members: &'a [TopMember],
}

impl ReportIndex<'_> {
    /// The entries whose `path` is `path`, in order.
    pub(crate) fn entries_named<'s>(
        &'s self,
        path: &'s str,
    ) -> impl Iterator<Item = &'s EntryFacts> {
        self.entries
            .iter()
            .copied()
            .filter(move |e| e.path.as_ref().is_some_and(|(p, _)| p == path))
    }

    /// The entry object whose range holds `offset`.
    pub(crate) fn entry_at(&self, offset: usize) -> Option<&EntryFacts> {
        let after = self.entries.partition_point(|e| e.range.start <= offset);
        let entry = *self.entries.get(after.checked_sub(1)?)?;
        (offset <= entry.range.end).then_some(entry)
    }

    pub(crate) fn member(&self, key: &str) -> Option<&TopMember> {
        self.members.iter().find(|m| m.key == key)
    }
}

#[cfg(test)]
mod tests;
