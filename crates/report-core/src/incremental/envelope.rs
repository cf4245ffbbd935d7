//! Edits in the envelope, outside the `entries` array.
//!
//! An edit in the envelope (outside the `entries` array) checks the text
//! without the entries again (see [`super::Incremental::check_envelope`]); a new
//! shortlist rechecks the entries whose membership it may change.

use foldhash::HashSet;

use crate::diagnostic::{Code, Diagnostic, Keep};
use crate::selection::looks_like_report;
use crate::syntax;
use crate::text::{Shift, TextRange};
use crate::validate::{self, Shortlist};

use super::membership::{is_judgement, missing_paths};
use super::state::{Incremental, Mode};

impl Incremental {
    /// An edit in the envelope, before or after the `entries` array, its
    /// brackets left alone. The envelope is checked again at the update, the
    /// entries not (see [`Incremental::check_envelope`]).
    pub(super) fn envelope_edit(&mut self, range: TextRange, shift: Shift) -> Option<Mode> {
        if self.totals.broken > 0 {
            return None;
        }
        let entries = self.entries_array()?;
        // Not right after an array's `]`: moving the offsets from there on
        // would move the array's end with them.
        let before = range.end <= entries.start;
        if !before && range.start <= entries.end {
            return None;
        }
        let keeps_shortlist = self.shortlist.is_some()
            && self
                .array("shortlist")
                .is_some_and(|s| range.end <= s.start || s.end < range.start);
        if before {
            for slot in &mut self.slots {
                slot.shift(shift);
            }
        }
        self.shift_outside(shift, true);
        Some(Mode::Envelope { keeps_shortlist })
    }

    /// Checks the envelope again after an edit in it: the text without the
    /// inside of the `entries` array (and of the shortlist, when the edit
    /// left it alone) is parsed and checked; it must parse without syntax
    /// errors, with those arrays where they were. The whole text parses as
    /// that with the arrays' items in place, so its checks of the envelope
    /// are those, with the entries' and (when kept) the shortlist items'
    /// diagnostics as before. A new shortlist rechecks the membership of the
    /// entries whose path it gained or lost, and of those with a membership
    /// diagnostic (its message and fix name the shortlist); new candidates
    /// are judged again.
    pub(super) fn check_envelope(
        &mut self,
        keeps_shortlist: bool,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<()> {
        let entries = self.entries_array()?;
        let mut cuts = vec![TextRange::new(entries.start + 1, entries.end - 1)];
        let shortlist = self.array("shortlist");
        if keeps_shortlist {
            let shortlist = shortlist?;
            cuts.push(TextRange::new(shortlist.start + 1, shortlist.end - 1));
        }
        cuts.sort_by_key(|c| c.start);
        let mut text = String::new();
        let mut from = 0;
        // Back from the cut text to the whole: the later cut first.
        let mut back = Vec::new();
        for cut in &cuts {
            if cut.start < from {
                return None;
            }
            text.push_str(&read(TextRange::new(from, cut.start)));
            back.push(Shift {
                from: text.len(),
                delta: cut.len() as isize,
            });
            from = cut.end;
        }
        text.push_str(&read(TextRange::new(from, self.len)));
        back.reverse();
        if text.len() + cuts.iter().map(|c| c.len()).sum::<usize>() != self.len {
            return None;
        }
        let map = |range: TextRange| back.iter().fold(range, |r, s| s.range(r));
        let parse = syntax::parse(&text);
        let root = parse.root()?;
        if !parse.errors.is_empty() || root.is_incomplete() {
            return None;
        }
        let at = |key: &str| {
            root.get(key)
                .filter(|n| n.items().is_some())
                .map(|n| map(n.range()))
        };
        if at("entries") != Some(entries) || (keeps_shortlist && at("shortlist") != shortlist) {
            return None;
        }
        // Per entry, nothing outside the entries is left out: past the
        // default cap the whole text is analysed (and capped) instead.
        let validation = validate::validate(&text, root, Keep::DEFAULT);
        if !validation.omitted.is_empty() {
            return None;
        }
        let cross = validation.cross?;
        let looks = looks_like_report(root);
        drop(parse);
        let mut outside: Vec<Diagnostic> = validation
            .diagnostics
            .into_iter()
            .filter(|d| !is_judgement(d.code))
            .map(|mut d| {
                for shift in &back {
                    d.shift(*shift);
                }
                d
            })
            .collect();
        if keeps_shortlist && let Some(kept) = shortlist {
            let inside = |d: &&Diagnostic| kept.start < d.range.start && d.range.end < kept.end;
            outside.extend(self.outside.iter().filter(inside).cloned());
        }
        outside.sort_by(Diagnostic::order);
        let mut members = cross.members;
        for member in &mut members {
            for shift in &back {
                member.shift(*shift);
            }
            let old = self.members.iter().find(|m| m.key == member.key);
            match member.key.as_str() {
                "entries" => member.items = Some(self.slots.len()),
                "shortlist" if keeps_shortlist => member.items = old?.items,
                _ => {}
            }
        }
        let mut candidates = cross.candidates;
        for candidate in &mut candidates {
            for shift in &back {
                candidate.shift(*shift);
            }
        }
        self.outside = outside;
        self.members = members;
        self.looks_like_report = looks;
        if !keeps_shortlist {
            let mut new = cross.shortlist;
            if let Some(new) = &mut new {
                for shift in &back {
                    new.shift(*shift);
                }
            }
            self.replace_shortlist(new, read)?;
            self.missing = missing_paths(&self.slots, self.shortlist.as_ref());
        }
        if candidates != self.candidates {
            self.candidates = candidates;
            if !self.rejudge() {
                return None;
            }
        }
        Some(())
    }

    /// Takes a new shortlist, and checks again the entries whose membership
    /// it may change.
    pub(super) fn replace_shortlist(
        &mut self,
        new: Option<Shortlist>,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<()> {
        let old = std::mem::replace(&mut self.shortlist, new);
        let changed: HashSet<&str> = match (&old, &self.shortlist) {
            (Some(old), Some(new)) => old.changed_paths(new).into_iter().collect(),
            // No shortlist before or after: every entry's membership is new.
            _ => {
                let all: Vec<usize> = (0..self.slots.len()).collect();
                return self.recheck(&all, read);
            }
        };
        let affected: Vec<usize> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.diagnostics
                    .iter()
                    .any(|d| d.code == Code::EntryPathNotInShortlist)
                    || s.facts
                        .path
                        .as_ref()
                        .is_some_and(|(p, _)| changed.contains(p.as_str()))
            })
            .map(|(i, _)| i)
            .collect();
        drop(changed);
        drop(old);
        self.recheck(&affected, read)
    }
}
