//! Entries added, deleted or pasted: an edit inside the `entries` array
//! that is not within one entry, taken at the update as whole entry objects.
//!
//! An edit inside the `entries` array that is not within one entry (entries
//! added, deleted, pasted, spaces between them) removes the entries it
//! touches; the text from the entry before them to the entry after (or the
//! bracket) must then be whitespace, whole objects that parse in place
//! without syntax errors, and exactly the commas a JSON array needs, so the
//! whole text parses as before with those objects in their place. The
//! entries after move, and their `index` is set again; their diagnostics'
//! messages, which name `entries[i]`, are rendered for the new index only
//! when they are asked for (a publication renders at most its cap), from a
//! template that records where the index is written (found by checking the
//! entry with two probe indices of the same width).
//!

use crate::diagnostic::Diagnostic;
use crate::text::{Shift, TextRange};
use crate::validate::TopMember;

use super::slots::check_alone;
use super::split::split_entries;
use super::state::{Incremental, Pending};

impl Incremental {
    /// An edit inside the `entries` array, not within one entry object: the
    /// entries it touches are removed, and the text from the end of the
    /// entry before them to the start of the one after (or the brackets) is
    /// parsed at the update as entries and commas. The entries after it move
    /// and are numbered again; their messages are rendered again only when
    /// asked for (see [`Slot::rendered`]).
    pub(super) fn splice(&mut self, range: TextRange, shift: Shift) -> Option<Pending> {
        // An item that is no object is checked only in a whole text's parse:
        // its messages cannot be rendered again for a new index. A broken
        // entry makes judgements unknowable in ways only a full analysis
        // follows (found by fuzzing).
        if self.totals.scalars > 0 || self.totals.broken > 0 {
            return None;
        }
        let array = self.entries_array()?;
        if !(array.start < range.start && range.end < array.end) {
            return None;
        }
        let at = self
            .slots
            .partition_point(|s| s.facts.range.end <= range.start);
        let next = self
            .slots
            .partition_point(|s| s.facts.range.start < range.end);
        let start = match at {
            0 => array.start + 1,
            _ => self.slots[at - 1].facts.range.end,
        };
        let end = match self.slots.get(next) {
            Some(slot) => slot.facts.range.start,
            None => array.end - 1,
        };
        let (totals, omitted) = (&mut self.totals, &mut self.omitted);
        let removed_paths = self
            .slots
            .drain(at..next)
            .filter_map(|s| {
                totals.remove(&s);
                // What was left out of them goes with them.
                omitted.remove(s.omitted);
                s.facts.path.map(|(p, _)| p)
            })
            .collect();
        for slot in &mut self.slots[at..] {
            slot.shift(shift);
        }
        self.shift_outside(shift, true);
        Some(Pending {
            at,
            removed: next - at,
            removed_paths,
            window: TextRange::new(start, shift.offset(end)),
        })
    }

    /// Parses the text that took the place of removed entries as whole
    /// entry objects and the commas between them (and around them, as the
    /// entries kept before and after need), checks each new entry, and
    /// numbers the entries after them again. False unless the text is that,
    /// each entry without syntax errors, and some entry is left.
    pub(super) fn insert(
        &mut self,
        pending: Pending,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> bool {
        let Pending {
            at,
            removed,
            removed_paths,
            window,
        } = pending;
        let text = read(window);
        if text.len() != window.len() {
            return false;
        }
        let Some(items) = split_entries(&text, at > 0, at < self.slots.len()) else {
            return false;
        };
        let mut fresh = Vec::with_capacity(items.len());
        for (j, item) in items.into_iter().enumerate() {
            let range = TextRange::new(window.start + item.start, window.start + item.end);
            let slot = check_alone(
                text[item].to_string(),
                range,
                at + j,
                self.shortlist.as_ref(),
            );
            let Some(mut slot) = slot.filter(|s| s.syntax_errors == 0 && !s.broken) else {
                return false;
            };
            slot.diagnostics.sort_by(Diagnostic::order);
            fresh.push(slot);
        }
        let added = fresh.len();
        if self.slots.len() + added == 0 {
            return false;
        }
        for slot in &fresh {
            self.totals.add(slot);
        }
        self.slots.splice(at..at, fresh);
        // Past the cap, what ranks past every kept diagnostic is left out of
        // the new entries too, as a full analysis would.
        if self.omitted.count > 0 && !self.leave_out_past_the_kept(at..at + added) {
            return false;
        }
        if added != removed {
            for (index, slot) in self.slots.iter_mut().enumerate().skip(at + added) {
                slot.facts.index = index;
            }
        }
        let count = self.slots.len();
        if let Some(member) = TopMember::array_mut(&mut self.members, "entries") {
            member.items = Some(count);
        }
        // The entries by path: those removed go, those after move, the new come.
        self.by_path
            .splice(at, removed, &self.slots[at..at + added]);
        let mut touched = removed_paths;
        touched.extend(
            self.slots[at..at + added]
                .iter()
                .filter_map(|s| s.facts.path.as_ref().map(|(p, _)| p.clone())),
        );
        for path in &touched {
            self.note_membership(path);
        }
        true
    }
}
