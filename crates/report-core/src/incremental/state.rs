//! What the per-entry analysis holds: [`Incremental`]'s fields, what the
//! edits since the last update wait for ([`Mode`], and the entries and
//! shortlist items it waits to parse), and the slots' [`Lag`]. The slots
//! (`slots.rs`) and the index of entries by path (`path_index.rs`) are
//! below it; `Incremental`'s methods are in the files above, one feature
//! each, and `mod.rs`. Here are only those every feature reads or moves
//! alike: the count of diagnostics, the arrays' ranges, what lies outside
//! the entries.

use foldhash::HashSet;

use crate::diagnostic::{Diagnostic, OmittedCount};
use crate::text::{Shift, TextRange};
use crate::validate::{Candidate, Shortlist, TopMember};

use super::path_index::PathIndex;
use super::slots::{Slot, Totals, Undo};

/// The analysis of a report kept per entry, updated edit by edit.
#[derive(Clone, Debug)]
pub struct Incremental {
    /// The length of the text it describes.
    pub(super) len: usize,
    pub(super) slots: Vec<Slot>,
    /// What the slots hold in all, kept as they change.
    pub(super) totals: Totals,
    /// Diagnostics outside every entry (the envelope, the shortlist, the
    /// fields of promotion candidates), sorted.
    pub(super) outside: Vec<Diagnostic>,
    /// What promotion candidates' paths name, judged again when an entry's
    /// path or lifecycle evidence changes; sorted.
    pub(super) judged: Vec<Diagnostic>,
    pub(super) shortlist: Option<Shortlist>,
    pub(super) candidates: Vec<Candidate>,
    /// The report's own members (item counts as of the last full analysis).
    pub(super) members: Vec<TopMember>,
    /// The entries by path (see [`PathIndex`]).
    pub(super) by_path: PathIndex,
    /// The paths of entries that are not in the shortlist: those entries
    /// have a membership diagnostic, whose message and fix name the shortlist.
    pub(super) missing: HashSet<String>,
    /// What the edits since the last update wait for.
    pub(super) mode: Mode,
    /// The slots whose offsets lag behind the text's (see `lag.rs`).
    pub(super) lag: Option<Lag>,
    /// How many shortlist edits were taken item by item.
    pub(super) shortlist_splices: usize,
    /// Whether the envelope looks like a report's: a broken text that does
    /// not is checked for its syntax alone, which only a full analysis does.
    pub(super) looks_like_report: bool,
    /// How many diagnostics the full analysis kept at most, and how many it
    /// left out (all in entries; see [`Incremental::omitted`]).
    pub(super) keep: usize,
    pub(super) omitted: OmittedCount,
}

/// What the edits since the last [`Incremental::update`] wait for. One
/// mode, not one field each: an edit is taken within entries while only
/// such edits wait (they add up), and any other kind only when nothing
/// waits, so at most one kind waits at a time. It changes only in
/// [`Incremental::edit`], [`Incremental::update`], [`Incremental::refuse`]
/// and [`Incremental::resume`].
#[derive(Clone, Debug)]
pub(super) enum Mode {
    /// Nothing edited since the last update.
    Clean,
    /// Edits within entry objects: the entries edited, ascending, are
    /// checked again at the update. After one edit alone, `undo` puts the
    /// state back as it was before it, should the update refuse it.
    Entries {
        dirty: Vec<usize>,
        undo: Option<Box<Undo>>,
    },
    /// Entries removed and text put in their place, parsed at the update
    /// (see `entries.rs`).
    Spliced(Pending),
    /// An edit in the envelope, outside the `entries` array, checked again
    /// at the update: with the shortlist's items as they are when the edit
    /// left them alone (see `envelope.rs`).
    Envelope { keeps_shortlist: bool },
    /// Shortlist items removed and text put in their place, parsed at the
    /// update (see `shortlist.rs`).
    Shortlist(ShortlistPending),
    /// An edit or an update was refused: nothing more is tracked. The state
    /// is `resumable` when it is as it was before the edits since the last
    /// update, left so or put back (see [`Incremental::resume`]).
    Refused { resumable: bool },
}

/// Entries replaced by new text: `removed` slots at `at` gave way to
/// `window`, which is to hold whole entry objects and their commas.
#[derive(Clone, Debug)]
pub(super) struct Pending {
    pub(super) at: usize,
    pub(super) removed: usize,
    /// The paths of the entries removed.
    pub(super) removed_paths: Vec<String>,
    pub(super) window: TextRange,
}

/// Shortlist items replaced by new text: `removed` items at `at` gave way
/// to `window`, which is to hold whole items and their commas. The
/// shortlist itself is moved by `shift` only when it takes them.
#[derive(Clone, Debug)]
pub(super) struct ShortlistPending {
    pub(super) at: usize,
    pub(super) removed: usize,
    pub(super) window: TextRange,
    pub(super) shift: Shift,
}

/// The slots from `from` on hold offsets `delta` bytes short of the
/// text's, the sum of `shifts`, the edits since they were moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Lag {
    pub(super) from: usize,
    pub(super) delta: isize,
    pub(super) shifts: Vec<Shift>,
}

impl Lag {
    /// Moves a lagging slot to the text's offsets.
    pub(super) fn settle(&self, slot: &mut Slot) {
        slot.move_by(self.delta, &self.shifts);
    }
}

impl Incremental {
    /// How many diagnostics there are.
    pub fn count(&self) -> usize {
        self.outside.len() + self.judged.len() + self.totals.diagnostics
    }

    /// Moves what lies outside the entries (the shortlist too, when
    /// `shortlist`), and the length.
    pub(super) fn shift_outside(&mut self, shift: Shift, shortlist: bool) {
        for diagnostic in self.outside.iter_mut().chain(&mut self.judged) {
            diagnostic.shift(shift);
        }
        if shortlist && let Some(shortlist) = &mut self.shortlist {
            shortlist.shift(shift);
        }
        for candidate in &mut self.candidates {
            candidate.shift(shift);
        }
        for member in &mut self.members {
            member.shift(shift);
        }
        self.len = shift.offset(self.len);
    }

    /// The range of the `entries` array's value.
    pub(super) fn entries_array(&self) -> Option<TextRange> {
        self.array("entries")
    }

    /// The range of the report's member `key`, when it is an array.
    pub(super) fn array(&self, key: &str) -> Option<TextRange> {
        TopMember::array(&self.members, key).map(|m| m.value_range)
    }
}
