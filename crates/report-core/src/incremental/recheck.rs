//! Entries checked again from their text: an entry's slot made again
//! (`check_slot`, one whose `}` is missing too), the undo of an edit
//! within one entry put back, the entries whose membership may change
//! (`recheck`), what is left out past the cap, a slot replaced with the
//! totals kept, and a slot's diagnostics rendered for a new index (from
//! its `messages::Template`).

use crate::diagnostic::{Diagnostic, OmittedCount, rank};
use crate::entry_text::EntryText;
use crate::text::{Shift, TextRange};

use super::messages::{PROBES, Template};
use super::slots::{Slot, Undo, check_alone, slot_of, worst_of};
use super::split::split_entries;
use super::state::Incremental;

impl Incremental {
    /// Checks entry `i` again from its text (see [`check_alone`]): a whole
    /// object, or one whose `}` is missing before the next entry (unless
    /// that one was edited too, `next_edited`, and is not checked yet).
    pub(super) fn check_slot(
        &self,
        i: usize,
        next_edited: bool,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<Slot> {
        let slot = &self.slots[i];
        let shortlist = self.shortlist.as_ref();
        if slot.unclosed.is_none() {
            let range = slot.facts.range;
            if let Some(fresh) = check_alone(read(range), range, i, shortlist) {
                return Some(fresh);
            }
        }
        let next = self.slots.get(i + 1);
        let end = match next {
            Some(n) if next_edited || !n.object || n.broken || n.syntax_errors > 0 => return None,
            Some(_) => self.range_of(i + 1).start,
            None => self.entries_array()?.end.checked_sub(1)?,
        };
        let region = TextRange::new(slot.facts.range.start, end);
        let text = read(region);
        if text.len() != region.len() {
            return None;
        }
        // Closed again: one whole object (and the comma before the next).
        if let Some(items) = split_entries(&text, false, next.is_some()) {
            let [item] = &items[..] else { return None };
            let range = TextRange::new(region.start + item.start, region.start + item.end);
            return check_alone(text[item.clone()].to_string(), range, i, shortlist);
        }
        let entry = self.parse_unclosed(&text, i, read)?;
        let mut fresh = slot_of(&entry, region.start, i, shortlist)?;
        fresh.unclosed = Some(region.end);
        Some(fresh)
    }

    /// Parses `region`, the text of entry `i` up to the next entry's start
    /// or the `]` of the array, as an entry whose `}` is missing there.
    pub(super) fn parse_unclosed(
        &self,
        region: &str,
        i: usize,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<EntryText> {
        if i + 1 < self.slots.len() {
            return EntryText::parse_unclosed(region, &read(self.range_of(i + 1)));
        }
        // What follows the `]` on its line, up to 256 bytes.
        let bracket = self.slots[i].facts.range.start + region.len();
        let read_to = (bracket + 257).min(self.len);
        let text = read(TextRange::new(bracket, read_to));
        let after = text.strip_prefix(']')?;
        let whole_line = after.contains(['\n', '\r']) || read_to == self.len;
        whole_line.then(|| EntryText::parse_unclosed_last(region, after))?
    }

    /// After an edit within one entry whose text no longer parses alone:
    /// the state as it was before the edit, for the text before it (the
    /// entries after it, and what lies outside the entries, moved back; the
    /// entry as it was).
    pub(super) fn put_back(&mut self, undo: Undo) {
        let Undo {
            slot,
            shift,
            old,
            len,
        } = undo;
        let inverse = Shift {
            from: shift.offset(shift.from),
            delta: -shift.delta,
        };
        self.settle();
        for s in &mut self.slots[slot + 1..] {
            s.shift(inverse);
        }
        self.shift_outside(inverse, true);
        self.replace_slot(slot, old);
        self.len = len;
    }

    /// Checks the entries at `indices` again, from their text.
    pub(super) fn recheck(
        &mut self,
        indices: &[usize],
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<()> {
        for &i in indices {
            if !self.slots[i].object {
                return None;
            }
            let mut fresh = self.check_slot(i, false, read)?;
            fresh.diagnostics.sort_by(Diagnostic::order);
            self.replace_slot(i, fresh);
        }
        Some(())
    }

    /// Keeps the invariant of a capped analysis after the entries `fresh`
    /// were checked again (or added) while others' diagnostics are left
    /// out: their diagnostics that rank past every kept one of the others
    /// are left out too. False when too few are kept to publish from (a
    /// full analysis then fills them in again) or too many (one to cap
    /// them again).
    pub(super) fn leave_out_past_the_kept(&mut self, fresh: std::ops::Range<usize>) -> bool {
        let others = (self.slots.iter().enumerate())
            .filter(|(j, _)| !fresh.contains(j))
            .flat_map(|(_, s)| &s.diagnostics)
            .chain(&self.outside)
            .chain(&self.judged);
        let (count, worst) = worst_of(others);
        let Some(worst) = worst.filter(|_| self.publishable(count)).cloned() else {
            return false;
        };
        for slot in &mut self.slots[fresh] {
            let before = slot.diagnostics.len();
            let mut left_out = OmittedCount::default();
            slot.diagnostics.retain(|d| {
                let keep = rank(d, &worst).is_lt();
                if !keep {
                    left_out.add(OmittedCount::one(d));
                }
                keep
            });
            slot.omitted.add(left_out);
            self.totals.diagnostics -= before - slot.diagnostics.len();
            self.omitted.add(left_out);
        }
        true
    }

    /// Whether `kept` diagnostics, beside some left out, are neither too
    /// few to publish from nor too many.
    pub(super) fn publishable(&self, kept: usize) -> bool {
        self.keep / 2 <= kept && kept <= self.keep.saturating_mul(2)
    }

    /// Puts `slot` in place of slot `i`, keeping the totals; the slot it replaced.
    pub(super) fn replace_slot(&mut self, i: usize, slot: Slot) -> Slot {
        self.totals.add(&slot);
        let old = std::mem::replace(&mut self.slots[i], slot);
        self.totals.remove(&old);
        old
    }
}

impl Incremental {
    /// Slot `i`'s diagnostics written for its current index, sorted, in
    /// the text's offsets; None when those it holds are (its index did not
    /// move).
    pub(super) fn render(
        &self,
        i: usize,
        read: &dyn Fn(TextRange) -> String,
    ) -> Option<Vec<Diagnostic>> {
        let slot = &self.slots[i];
        let index = slot.facts.index;
        if index == slot.rendered {
            return None;
        }
        let shortlist = self.shortlist.as_ref();
        // Checked again for the index, in the text's offsets.
        let fresh = || {
            let range = self.range_of(i);
            match check_alone(read(range), range, index, shortlist) {
                Some(fresh) => fresh.diagnostics,
                None => self.moved_all(i, slot.diagnostics.clone()),
            }
        };
        let lags = self.lag_of_slot(i);
        let mut diagnostics = match slot.template.get() {
            // Made while the slot lags, a template would mix its offsets
            // and the shortlist's: it waits until the slot is settled.
            None if lags => fresh(),
            _ => {
                let range = slot.facts.range;
                let template = slot.template.get_or_init(|| {
                    let text = read(range);
                    let probe = |index| {
                        check_alone(text.clone(), range, index, shortlist).map(|s| s.diagnostics)
                    };
                    Template::new(probe(PROBES[0])?, probe(PROBES[1])?).map(Box::new)
                });
                match template {
                    Some(template) => self.moved_all(i, template.render(index)),
                    // Not found where the index is written: checked again for it.
                    None => fresh(),
                }
            }
        };
        diagnostics.sort_by(Diagnostic::order);
        Some(diagnostics)
    }
}
