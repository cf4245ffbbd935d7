//! The entries after a keystroke, moved when they are read rather than at
//! once. An edit within one entry moves every later entry by the same
//! number of bytes; moving them all (several cache lines each) made a
//! keystroke's cost grow with the report, 0.2 ms of its 0.36 at 50,000
//! entries. Instead [`Lag`] records that the slots from one on hold offsets
//! `delta` short of the text's: a keystroke in the same entry adds to
//! `delta`, one elsewhere moves only the slots between the two, and
//! [`Incremental::settle`] moves the rest once, before anything but the
//! publication reads them (the readers that hand out `&EntryFacts` expect
//! the text's offsets).
//!
//! An entry's own offsets all lie after the edits, and move by `delta`.
//! Its diagnostics may point elsewhere (a related shortlist, another
//! entry), before or between the edits: they move by the edits themselves,
//! kept in order (at most [`MAX_SHIFTS`], then everything is settled).
//!
//! Which readers see through the lag: the edits within entries
//! ([`Incremental::edit`], [`Incremental::accepts`]), the check of the
//! edited entries at the update, and the diagnostics
//! ([`Incremental::diagnostics_where`], [`Incremental::count`],
//! [`Incremental::any`]). Every other edit and update settles first, and
//! so do the readers of facts (checked in debug builds).

use std::borrow::Cow;

use crate::diagnostic::Diagnostic;
use crate::text::{Shift, TextRange};

use super::state::{Incremental, Lag};

/// How many edits a lag keeps before the slots are settled.
pub(super) const MAX_SHIFTS: usize = 64;

impl Incremental {
    /// Moves every lagging slot to the text's offsets: before anything
    /// reads the facts of the entries.
    pub fn settle(&mut self) {
        if let Some(lag) = self.lag.take() {
            for slot in &mut self.slots[lag.from..] {
                lag.settle(slot);
            }
        }
    }

    /// Whether no slot lags (see [`Incremental::settle`]).
    pub fn is_settled(&self) -> bool {
        self.lag.is_none()
    }

    /// The lag slot `i` is under, if it lags.
    fn lag_at(&self, i: usize) -> Option<&Lag> {
        self.lag.as_ref().filter(|lag| i >= lag.from)
    }

    /// Whether slot `i` lags.
    pub(super) fn lag_of_slot(&self, i: usize) -> bool {
        self.lag_at(i).is_some()
    }

    /// How many bytes slot `i`'s own offsets lag behind the text's.
    pub(super) fn lag_of(&self, i: usize) -> isize {
        self.lag_at(i).map_or(0, |lag| lag.delta)
    }

    /// Slot `i`'s entry range, in the text's offsets.
    pub(super) fn range_of(&self, i: usize) -> TextRange {
        let delta = self.lag_of(i);
        Shift { from: 0, delta }.range(self.slots[i].facts.range)
    }

    /// Where an unclosed slot `i`'s text ends (see `Slot::unclosed`), in the text's offsets.
    pub(super) fn unclosed_of(&self, i: usize) -> Option<usize> {
        let end = self.slots[i].unclosed?;
        Some(end.saturating_add_signed(self.lag_of(i)))
    }

    /// The text of slot `i` (see `slots::extent`), in the text's offsets.
    pub(super) fn extent_of(&self, i: usize) -> TextRange {
        match self.unclosed_of(i) {
            Some(end) => TextRange::new(self.range_of(i).start, end),
            None => self.range_of(i),
        }
    }

    /// The slot whose text holds `offset` (see `slots::slot_at`), through the lag.
    pub(super) fn slot_holding_offset(&self, offset: usize) -> Option<usize> {
        let from = self.lag.as_ref().map_or(self.slots.len(), |lag| lag.from);
        let (exact, lagging) = self.slots.split_at(from);
        let mut after = exact.partition_point(|s| s.facts.range.start <= offset);
        if after == from {
            let delta = self.lag_of(from);
            after += lagging
                .partition_point(|s| s.facts.range.start.saturating_add_signed(delta) <= offset);
        }
        let i = after.checked_sub(1)?;
        (offset < self.extent_of(i).end).then_some(i)
    }

    /// Moves the lagging slots up to `i`, so that slot `i` holds the text's offsets.
    pub(super) fn settle_through(&mut self, i: usize) {
        let Some(mut lag) = self.lag.take() else {
            return;
        };
        if lag.from <= i {
            for slot in &mut self.slots[lag.from..=i] {
                lag.settle(slot);
            }
            lag.from = i + 1;
        }
        self.lag = (lag.from < self.slots.len()).then_some(lag);
    }

    /// Moves the slots after slot `i` (which holds the text's offsets) by
    /// `shift`, an edit inside it: those before the lag now, and the
    /// lagging ones (all of them, when none lagged) by the lag.
    pub(super) fn shift_after(&mut self, i: usize, shift: Shift) {
        if self
            .lag
            .as_ref()
            .is_some_and(|lag| lag.shifts.len() >= MAX_SHIFTS)
        {
            self.settle();
        }
        let mut lag = match self.lag.take() {
            None => Lag {
                from: i + 1,
                delta: 0,
                shifts: Vec::new(),
            },
            Some(lag) => {
                for slot in &mut self.slots[i + 1..lag.from] {
                    slot.shift(shift);
                }
                lag
            }
        };
        if shift.delta != 0 {
            lag.delta += shift.delta;
            lag.shifts.push(shift);
        }
        self.lag = (lag.from < self.slots.len() && !lag.shifts.is_empty()).then_some(lag);
    }

    /// `diagnostics` of slot `i`, in its offsets, in the text's.
    pub(super) fn moved_all(&self, i: usize, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        let owned = diagnostics.into_iter().map(Cow::Owned);
        self.moved_diagnostics(i, owned)
            .map(Cow::into_owned)
            .collect()
    }

    /// Slot `i`'s diagnostics in the text's offsets.
    pub(super) fn moved_diagnostics<'d>(
        &self,
        i: usize,
        diagnostics: impl Iterator<Item = Cow<'d, Diagnostic>>,
    ) -> impl Iterator<Item = Cow<'d, Diagnostic>> {
        let shifts = self.lag_at(i).map_or(&[][..], |lag| &lag.shifts[..]);
        diagnostics.map(move |diagnostic| match shifts {
            [] => diagnostic,
            shifts => {
                let mut moved = diagnostic.into_owned();
                for &shift in shifts {
                    moved.shift(shift);
                }
                Cow::Owned(moved)
            }
        })
    }
}
