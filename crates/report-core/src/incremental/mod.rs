//! Per-entry incremental analysis. A report is an object with a few large
//! arrays; an edit within one object of `entries` (its braces included: a
//! whole entry pasted over another is one) changes that entry only, plus the
//! facts that cross entries (shortlist membership and promotion
//! candidates). [`Incremental`] keeps each entry's facts and diagnostics,
//! moves the offsets of everything after an edit (the later entries'
//! lazily: `lag.rs`), and parses and checks again only the edited entries.
//!
//! The state waits for one thing at a time (`Mode`): edits within entries
//! add up until the next [`Incremental::update`], an edit of any other
//! kind is taken alone, and what cannot be taken is refused; a refused
//! edit within one entry is undone, so that the caller may
//! [`Incremental::resume`]. Its changes are made in this file alone (it is
//! declared in `state.rs`, with the fields it is one of).
//!
//! Why the result equals a full analysis of the new text: every syntax
//! error of the text lies inside an entry object, and the edited entry's new
//! text (from its old start to its old end moved by the edit) parses in
//! place ([`EntryText`]) as exactly one complete object with its own braces,
//! its syntax errors inside it. The text around it is unchanged and is
//! lexed the same way from a `{` in value position whatever precedes it, so
//! the whole text parses as before with that object in place of the old
//! one, and the checks of every other entry see the same nodes. A broken
//! entry (one a syntax error broke) has its syntax errors and no checks, no
//! membership, and makes the candidates naming its path unknowable, as in a
//! full analysis. An entry whose `}` is missing before the next entry (the
//! break a person makes most) is one too: the parser closes it where its
//! last value ends and takes the next entry's `{` as the array's next item,
//! standing there as after any entry and its comma, so the entry is parsed
//! in place from its text up to the next entry's ([`EntryText::parse_unclosed`]);
//! that next entry must then stay whole, and is not edited alone until the
//! brace is back. The last entry's `}` missing is closed the same way by the
//! array's `]` ([`EntryText::parse_unclosed_last`]).
//!
//! Edits beside the entries are taken by the files of this module: entries
//! added, deleted or pasted (`entries`), shortlist items (`shortlist`), the
//! envelope (`envelope`); each says why its result equals a full analysis.
//! Anything else (an entry that no longer parses in place, syntax errors outside
//! entries, an item that is no object; entries added or deleted and
//! envelope edits while an entry is broken) is refused, and the caller
//! analyses the whole text. A refused edit within one entry (one that
//! leaves it no object that parses alone) puts the state back as it was
//! before the edit ([`Incremental::resume`]): the caller may keep it with
//! that text, for the repair.
//! `tests/incremental.rs` compares both after random edits.
//!
//! The files use each other in one direction, each only those before it:
//! `split` and `messages`; `slots`; `path_index`; `state` (the fields);
//! `lag`; `recheck`; `membership`; `entries`, `shortlist` and `envelope`;
//! and this file, which uses them all. A method of [`Incremental`] calls
//! only methods of its own file or of those before it.

mod entries;
mod envelope;
mod lag;
mod membership;
mod messages;
mod path_index;
mod recheck;
mod shortlist;
mod slots;
mod split;
mod state;

pub use state::Incremental;

use std::borrow::Cow;
use std::sync::Arc;

use crate::Analysis;
use crate::diagnostic::{Diagnostic, OmittedCount};
use crate::entry_text::{self, EntryText};
use crate::selection::looks_like_report;
use crate::syntax;
use crate::text::{Shift, TextRange};
use crate::validate::{Candidate, EntryFacts, Shortlist, TopMember};

use membership::{is_judgement, missing_paths};
use path_index::PathIndex;
use shortlist::NotSpliced;
use slots::{
    Item, Slot, Totals, Undo, into_slots, is_syntax, item_of, judged_again, slot_at, slot_range_at,
};
use state::Mode;

/// What a refusal leaves of the state: the state before the edits since
/// the last update, or an unusable one.
enum Back {
    /// Nothing changed since the last update.
    Unchanged,
    /// The one edit since the last update, within one entry, is undone.
    Undo(Box<Undo>),
    /// Changed past putting back.
    Lost,
}

impl Back {
    /// What an update's refusal of edits within entries leaves.
    fn undo(undo: Option<Box<Undo>>) -> Back {
        undo.map_or(Back::Lost, Back::Undo)
    }
}

impl Incremental {
    /// The per-entry form of a full analysis, or None when the text has
    /// syntax errors outside entry objects or its entries were not checked.
    pub fn new(analysis: &Analysis) -> Option<Incremental> {
        Incremental::from_analysis(analysis.clone()).ok()
    }

    /// Like [`Incremental::new`], taking the analysis apart instead of
    /// copying it (the tree and text are freed first); gives it back when it
    /// has no per-entry form.
    pub fn from_analysis(analysis: Analysis) -> Result<Incremental, Box<Analysis>> {
        Incremental::from_analysis_then(analysis, |_| {})
    }

    /// Like [`Incremental::from_analysis`], handing `tree_freed` the text
    /// once the tree is freed and before the slots are made: where a caller
    /// that keeps the text in a form of its own (the server's rope) makes
    /// it with the least memory (the tree is the largest part of an
    /// analysis). Not called when the analysis is given back.
    pub fn from_analysis_then(
        analysis: Analysis,
        tree_freed: impl FnOnce(&Arc<String>),
    ) -> Result<Incremental, Box<Analysis>> {
        let looks_like_report = analysis.root().is_some_and(looks_like_report);
        let entries = analysis
            .cross
            .as_ref()
            .filter(|_| analysis.parse.errors.len() < syntax::MAX_SYNTAX_ERRORS)
            .and_then(|_| analysis.root()?.get("entries"));
        let items: Option<Vec<Item>> = entries.and_then(|entries| {
            let nodes: Vec<syntax::Node<'_>> = entries.items()?.collect();
            let text = analysis.text.as_str();
            let bracket = entries.range().end - 1;
            let items = (0..nodes.len())
                .map(|i| item_of(text, nodes[i], nodes.get(i + 1).copied(), bracket));
            Some(items.collect())
        });
        let items = match items {
            Some(items) if items.len() == analysis.entries.len() => items,
            _ => return Err(Box::new(analysis)),
        };
        // Syntax errors are tracked inside entry objects only, and only in
        // an entry whose own text parses alone the way the whole text does.
        let errors_inside = analysis.parse.errors.iter().all(|error| {
            let after = items.partition_point(|item| item.extent.start <= error.range.start);
            after.checked_sub(1).is_some_and(|i| {
                let item = items[i];
                let range = analysis.entries[i].range;
                match item.unclosed {
                    // The missing brace is reported where the entry ends
                    // (to the `]` that closes the last one).
                    true => {
                        range.start < error.range.start && error.range.end <= item.extent.end + 1
                    }
                    false => item.object && entry_text::holds(range, error.range),
                }
            })
        });
        if !errors_inside || analysis.root().is_some_and(|root| root.is_incomplete()) {
            return Err(Box::new(analysis));
        }
        // What the analysis left out is kept track of per entry: elsewhere
        // nothing could tell when it comes back.
        let omitted_inside = analysis
            .omitted
            .iter()
            .all(|o| slot_range_at(&items, o.start as usize).is_some());
        if !omitted_inside {
            return Err(Box::new(analysis));
        }
        let keep = analysis.diagnostics.len();
        let Analysis {
            text,
            parse,
            diagnostics,
            omitted: left_out,
            mut entries,
            cross,
            ..
        } = analysis;
        let len = text.len();
        drop(parse);
        tree_freed(&text);
        drop(text);
        let cross = cross.expect("checked above");
        let mut slots = into_slots(&mut entries, items);
        drop(entries);
        // Room for entries added later: growing the vector copies every slot.
        slots.reserve_exact(slots.len() / 8 + 16);
        let mut omitted = OmittedCount::default();
        for o in left_out.iter() {
            let i = slot_at(&slots, o.start as usize).expect("checked above");
            let one = OmittedCount::of(o.severity, o.fixable);
            slots[i].omitted.add(one);
            omitted.add(one);
        }
        let mut outside = Vec::new();
        let mut judged = Vec::new();
        for diagnostic in diagnostics {
            if is_judgement(diagnostic.code) {
                judged.push(diagnostic);
            } else if let Some(i) = slot_at(&slots, diagnostic.range.start) {
                slots[i].syntax_errors += u32::from(is_syntax(diagnostic.code));
                slots[i].diagnostics.push(diagnostic);
            } else {
                outside.push(diagnostic);
            }
        }
        let by_path = PathIndex::new(&slots);
        let missing = missing_paths(&slots, cross.shortlist.as_ref());
        let totals = Totals::of(&slots);
        Ok(Incremental {
            len,
            slots,
            totals,
            outside,
            judged,
            shortlist: cross.shortlist,
            candidates: cross.candidates,
            members: cross.members,
            by_path,
            missing,
            mode: Mode::Clean,
            lag: None,
            shortlist_splices: 0,
            looks_like_report,
            keep,
            omitted,
        })
    }

    /// How many diagnostics are left out of [`Incremental::diagnostics`]
    /// (each ranks after every one in it), and how many of them have a fix.
    pub fn omitted(&self) -> OmittedCount {
        self.omitted
    }

    /// Every diagnostic of the entry object at `offset` (none left out),
    /// checked again from its text: what a quick fix there needs when some
    /// of them were left out.
    pub fn entry_diagnostics(
        &self,
        offset: usize,
        mut read: impl FnMut(TextRange) -> String,
    ) -> Option<Vec<Diagnostic>> {
        debug_assert!(self.is_settled(), "settled before the facts are read");
        let i = slot_at(&self.slots, offset).filter(|&i| self.slots[i].object)?;
        // A broken entry has no fixes: it keeps its syntax errors only.
        if self.slots[i].unclosed.is_some() {
            return Some(self.slots[i].diagnostics.clone());
        }
        let mut slot = self.check_slot(i, false, &mut read)?;
        slot.diagnostics.sort_by(Diagnostic::order);
        Some(slot.diagnostics)
    }

    /// The text of the entry `facts` describes parsed in place (see
    /// [`EntryText`]), read with `read`.
    pub fn entry_text(
        &self,
        facts: &EntryFacts,
        read: impl Fn(TextRange) -> String,
    ) -> Option<EntryText> {
        debug_assert!(self.is_settled(), "settled before the facts are read");
        let i = slot_at(&self.slots, facts.range.start)?;
        let region = self.extent_of(i);
        match self.slots[i].unclosed {
            Some(_) => self.parse_unclosed(&read(region), i, &mut |r| read(r)),
            None => EntryText::parse(&read(region)),
        }
    }

    /// Each entry's facts and its text parsed in place, in order: what
    /// [`Incremental::entry_text`] gives, without looking each one up.
    pub(crate) fn entry_texts<'a>(
        &'a self,
        read: impl Fn(TextRange) -> String + 'a,
    ) -> impl Iterator<Item = (&'a EntryFacts, Option<EntryText>)> + 'a {
        debug_assert!(self.is_settled(), "settled before the facts are read");
        (0..self.slots.len()).map(move |i| {
            let region = self.extent_of(i);
            let text = match self.slots[i].unclosed {
                Some(_) => self.parse_unclosed(&read(region), i, &mut |r| read(r)),
                None => EntryText::parse(&read(region)),
            };
            (&self.slots[i].facts, text)
        })
    }

    /// The length of the text it describes, after the edits recorded so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records that `range` of the text (as it is after the previous edits)
    /// was replaced by `new_len` bytes. Tracked: an edit within one entry
    /// object (braces included), and one inside the `entries` array that
    /// replaces whole entries and the separators between them (entries
    /// added, deleted, pasted), alone before an update. False otherwise: the
    /// state is then unusable, and the whole text must be analysed.
    pub fn edit(&mut self, range: TextRange, new_len: usize) -> bool {
        let shift = Shift {
            from: range.end,
            delta: new_len as isize - range.len() as isize,
        };
        let held = match self.mode {
            Mode::Clean | Mode::Entries { .. } => self.slot_holding(range),
            _ => None,
        };
        // Nothing tracked since the last update.
        let untouched = matches!(self.mode, Mode::Clean);
        let Some(i) = held else {
            let taken = match untouched && range.end <= self.len {
                true => {
                    // Only edits within entries see through the lag.
                    self.settle();
                    self.edit_beside_entries(range, shift)
                }
                false => None,
            };
            return match taken {
                Some(mode) => {
                    self.mode = mode;
                    true
                }
                None if untouched => self.refuse(Back::Unchanged),
                None => self.refuse(Back::Lost),
            };
        };
        self.settle_through(i);
        // After the entry's opening brace: everything outside it that the
        // edit moves lies past it, and moves back exactly.
        let undo = (untouched && range.start > self.slots[i].facts.range.start).then(|| {
            Box::new(Undo {
                slot: i,
                shift,
                old: self.slots[i].clone(),
                len: self.len,
            })
        });
        // The entries after it lag (see `lag.rs`): a keystroke costs the
        // same at any size.
        self.slots[i].shift(shift);
        self.shift_after(i, shift);
        self.shift_outside(shift, true);
        self.mode = match std::mem::replace(&mut self.mode, Mode::Clean) {
            // A second edit: the first can no longer be undone alone.
            Mode::Entries { mut dirty, .. } => {
                if let Err(at) = dirty.binary_search(&i) {
                    dirty.insert(at, i);
                }
                Mode::Entries { dirty, undo: None }
            }
            _ => Mode::Entries {
                dirty: vec![i],
                undo,
            },
        };
        true
    }

    /// An edit beside the entries, taken alone (nothing waits for an
    /// update): entries spliced, shortlist items, or the envelope. What it
    /// then waits for, or None, nothing changed.
    fn edit_beside_entries(&mut self, range: TextRange, shift: Shift) -> Option<Mode> {
        if let Some(pending) = self.splice(range, shift) {
            return Some(Mode::Spliced(pending));
        }
        if let Some(pending) = self.shortlist_edit(range, shift) {
            return Some(Mode::Shortlist(pending));
        }
        self.envelope_edit(range, shift)
    }

    /// Refuses the edits since the last update, leaving the state as `back`
    /// says: nothing more is tracked until [`Incremental::resume`]. False,
    /// for the caller to return.
    fn refuse(&mut self, back: Back) -> bool {
        let resumable = match back {
            Back::Unchanged => true,
            Back::Undo(undo) => {
                self.put_back(*undo);
                true
            }
            Back::Lost => false,
        };
        self.mode = Mode::Refused { resumable };
        false
    }

    fn is_refused(&self) -> bool {
        matches!(self.mode, Mode::Refused { .. })
    }

    /// After [`Incremental::edit`] or [`Incremental::update`] returned
    /// false: whether the state is as it was before the edits since the
    /// last update, and so describes the text before them (it is then
    /// usable again, for that text: a caller may keep it until the text
    /// comes back, a broken entry repaired, say).
    pub fn resume(&mut self) -> bool {
        if !matches!(self.mode, Mode::Refused { resumable: true }) {
            return false;
        }
        self.mode = Mode::Clean;
        debug_assert_eq!(self.totals, Totals::of(&self.slots), "totals kept");
        true
    }

    /// Whether an edit of `range` would be tracked: it lies within one entry
    /// object, braces included, or inside the shortlist's brackets (where it
    /// is tracked when it leaves whole items, see [`Incremental::shortlist_edit`]).
    pub fn accepts(&self, range: TextRange) -> bool {
        self.slot_holding(range).is_some()
            || (!self.is_refused()
                && self.shortlist.is_some()
                && self
                    .array("shortlist")
                    .is_some_and(|s| s.start < range.start && range.end < s.end))
    }

    fn slot_holding(&self, range: TextRange) -> Option<usize> {
        if self.is_refused() || range.end > self.len {
            return None;
        }
        let held = self.slot_holding_offset(range.start).filter(|&i| {
            let entry = self.extent_of(i);
            // An insertion right before the `{` lands between two entries.
            let before = range.is_empty() && range.start == entry.start;
            self.slots[i].object && range.end <= entry.end && !before
        });
        match held {
            // The entry after an unclosed one stays as it is (see `Slot::unclosed`).
            Some(i) if i > 0 && self.slots[i - 1].unclosed.is_some() => None,
            // An unclosed entry's text runs up to the next one's `{`.
            None if range.is_empty() => {
                let i = self.slot_holding_offset(range.start.checked_sub(1)?)?;
                (self.unclosed_of(i) == Some(range.start)).then_some(i)
            }
            held => held,
        }
    }

    /// Parses and checks again the entries edited since the last update,
    /// reading each one's current text with `read`. False when an edited
    /// entry is no longer one object that parses on its own without errors:
    /// the state is then unusable, and the whole text must be analysed.
    pub fn update(&mut self, mut read: impl FnMut(TextRange) -> String) -> bool {
        let rejudge = match std::mem::replace(&mut self.mode, Mode::Clean) {
            Mode::Refused { resumable } => {
                self.mode = Mode::Refused { resumable };
                return false;
            }
            Mode::Clean => false,
            Mode::Entries { dirty, undo } => {
                // An entry edited before a later edit started the lag lags
                // too: the edited entries are read in the text's offsets.
                if let Some(&last) = dirty.last() {
                    self.settle_through(last);
                }
                match self.check_edited(&dirty, undo, &mut read) {
                    Ok(rejudge) => rejudge,
                    Err(back) => return self.refuse(back),
                }
            }
            Mode::Spliced(pending) => {
                if !self.insert(pending, &mut read) {
                    return self.refuse(Back::Lost);
                }
                !self.candidates.is_empty()
            }
            Mode::Envelope { keeps_shortlist } => {
                if self.check_envelope(keeps_shortlist, &mut read).is_none() {
                    return self.refuse(Back::Lost);
                }
                false
            }
            Mode::Shortlist(pending) => {
                let taken = match self.splice_shortlist(pending, &mut read) {
                    Ok(()) => true,
                    // Not whole items checked alone: the envelope is checked again.
                    Err(NotSpliced::NotItems) => self.check_envelope(false, &mut read).is_some(),
                    Err(NotSpliced::EntryUnchecked) => false,
                };
                if !taken {
                    return self.refuse(Back::Lost);
                }
                false
            }
        };
        debug_assert_eq!(self.totals, Totals::of(&self.slots), "totals kept");
        // The whole text's parse stops counting syntax errors at a cap.
        let (syntax_errors, broken) = (self.totals.syntax_errors, self.totals.broken > 0);
        if syntax_errors >= syntax::MAX_SYNTAX_ERRORS || (broken && !self.looks_like_report) {
            return self.refuse(Back::Lost);
        }
        // Judged again past the cap, a candidate's diagnostic may rank past
        // some left out: only a full analysis can leave it out.
        if rejudge {
            self.settle();
            if !self.rejudge() {
                return self.refuse(Back::Lost);
            }
        }
        true
    }

    /// Checks again the entries edited since the last update (`dirty`,
    /// ascending; `undo` puts back the one edit when it was alone): whether
    /// the candidates are to be judged again, or what refusing leaves.
    fn check_edited(
        &mut self,
        dirty: &[usize],
        undo: Option<Box<Undo>>,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Result<bool, Back> {
        // Past the cap, the diagnostics of all entries are ranked together.
        if self.omitted.count > 0 {
            self.settle();
        }
        let mut rejudge = false;
        for (k, &i) in dirty.iter().enumerate() {
            let next_edited = dirty.get(k + 1) == Some(&(i + 1));
            let Some(mut slot) = self.check_slot(i, next_edited, read) else {
                return Err(Back::undo(undo));
            };
            slot.diagnostics.sort_by(Diagnostic::order);
            // What refuses the edit below, found before anything changes:
            // the state before the one edit can then be put back.
            if undo.is_some() && self.refuses(&self.slots[i], &slot) {
                return Err(Back::undo(undo));
            }
            let old = self.replace_slot(i, slot);
            self.omitted.remove(old.omitted);
            if self.omitted.count > 0 && !self.leave_out_past_the_kept(i..i + 1) {
                return Err(Back::Lost);
            }
            let new = &self.slots[i];
            let path_changed =
                old.facts.path.as_ref().map(|p| &p.0) != new.facts.path.as_ref().map(|p| &p.0);
            rejudge |= judged_again(&old, new);
            if path_changed {
                let new_path = new.facts.path.as_ref().map(|(p, _)| p.clone());
                // The other entries of both paths are read and changed.
                self.settle();
                let old_path = old.facts.path.map(|(p, _)| p);
                self.move_path(i, old_path.clone(), new_path.clone());
                for path in old_path.iter().chain(&new_path) {
                    self.note_membership(path);
                }
            }
        }
        Ok(rejudge)
    }

    /// Whether the update refuses entry `old` checked again as `new`, the
    /// only entry edited: the candidates judged again while diagnostics are
    /// left out, syntax errors up to the parser's cap, or a broken entry in
    /// a text that does not look like a report.
    fn refuses(&self, old: &Slot, new: &Slot) -> bool {
        let others_left_out = self.omitted.count > old.omitted.count;
        let syntax_errors =
            self.totals.syntax_errors - old.syntax_errors as usize + new.syntax_errors as usize;
        (others_left_out && judged_again(old, new))
            || syntax_errors >= syntax::MAX_SYNTAX_ERRORS
            || (new.broken && !self.looks_like_report)
    }

    /// Whether some diagnostic satisfies `test`, which must look only at
    /// what renumbering leaves alone (code, severity, ranges, fixes' edits).
    pub fn any(&self, test: impl Fn(&Diagnostic) -> bool) -> bool {
        let moved = |(i, slot): (usize, &'_ Slot)| {
            let diagnostics = slot.diagnostics.iter().map(Cow::Borrowed);
            self.moved_diagnostics(i, diagnostics).any(|d| test(&d))
        };
        self.outside.iter().chain(&self.judged).any(&test)
            || (self.totals.diagnostics > 0 && self.slots.iter().enumerate().any(moved))
    }

    /// How many diagnostics satisfy `test`, which must look only at what
    /// moving entries leaves alone (code, severity): no entry is rendered.
    pub fn count_where(&self, test: impl Fn(&Diagnostic) -> bool) -> usize {
        let others = self.outside.iter().chain(&self.judged).filter(|d| test(d));
        let in_slots = |slot: &Slot| slot.diagnostics.iter().filter(|d| test(d)).count();
        let in_slots = match self.totals.diagnostics {
            0 => 0,
            _ => self.slots.iter().map(in_slots).sum(),
        };
        others.count() + in_slots
    }

    /// All diagnostics, in the order of a full analysis. `read` gives the
    /// current text of a range: entries whose index moved are rendered again.
    pub fn diagnostics(&self, read: &dyn Fn(TextRange) -> String) -> Vec<Cow<'_, Diagnostic>> {
        self.diagnostics_where(read, &|_| true, usize::MAX)
    }

    /// The first `limit` diagnostics, in the order of a full analysis, of
    /// those that satisfy `want`, which must look only at what renumbering
    /// leaves alone (code, severity, ranges). Only the entries with such a
    /// diagnostic before the limit are rendered.
    pub fn diagnostics_where(
        &self,
        read: &dyn Fn(TextRange) -> String,
        want: &dyn Fn(&Diagnostic) -> bool,
        limit: usize,
    ) -> Vec<Cow<'_, Diagnostic>> {
        let mut others: Vec<&Diagnostic> = self
            .outside
            .iter()
            .chain(&self.judged)
            .filter(|d| want(d))
            .collect();
        others.sort_by(|a, b| Diagnostic::order(a, b));
        let mut others = others.into_iter().peekable();
        let mut all: Vec<Cow<'_, Diagnostic>> = Vec::new();
        // Past the last slot holding diagnostics, none is left to find.
        let mut unread = self.totals.diagnostics;
        for (i, slot) in self.slots.iter().enumerate() {
            if all.len() >= limit || unread == 0 {
                break;
            }
            unread = unread.saturating_sub(slot.diagnostics.len());
            if !slot.diagnostics.iter().any(want) {
                continue;
            }
            let rendered: Vec<Cow<'_, Diagnostic>> = match self.render(i, read) {
                None => {
                    let held = slot.diagnostics.iter().map(Cow::Borrowed);
                    self.moved_diagnostics(i, held).collect()
                }
                Some(owned) => owned.into_iter().map(Cow::Owned).collect(),
            };
            for diagnostic in rendered.into_iter().filter(|d| want(d)) {
                while let Some(other) =
                    others.next_if(|o| Diagnostic::order(o, &diagnostic).is_lt())
                {
                    all.push(Cow::Borrowed(other));
                }
                all.push(diagnostic);
            }
        }
        all.extend(others.map(Cow::Borrowed));
        all.truncate(limit);
        all
    }

    /// The facts of each entry, in order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &EntryFacts> {
        debug_assert!(self.is_settled(), "settled before the facts are read");
        self.slots.iter().map(|s| &s.facts)
    }

    /// Where each entry whose `path` is `key` as compared starts, in
    /// order: a look-up in the index by path, whatever the entries' number.
    pub fn entries_naming(&self, key: &str) -> Vec<usize> {
        debug_assert!(self.is_settled(), "settled before the facts are read");
        let found = self.by_path.find_key(key, &self.slots);
        found
            .into_iter()
            .map(|i| self.slots[i].facts.range.start)
            .collect()
    }

    /// How many entries there are.
    pub fn entry_count(&self) -> usize {
        self.slots.len()
    }

    /// From the start of the first entry to the end of the last, if any.
    pub fn entries_span(&self) -> Option<TextRange> {
        let last = self.slots.len().checked_sub(1)?;
        let (first, last) = (self.range_of(0), self.range_of(last));
        Some(TextRange::new(first.start, last.end))
    }

    /// The shortlist it keeps, written out (see `Shortlist::canonical`):
    /// for tests, which compare it with that of a full analysis.
    #[doc(hidden)]
    pub fn shortlist_state(&self) -> Option<String> {
        self.shortlist.as_ref().map(Shortlist::canonical)
    }

    /// How many shortlist edits were taken item by item.
    pub fn shortlist_splices(&self) -> usize {
        self.shortlist_splices
    }

    pub(crate) fn shortlist(&self) -> Option<&Shortlist> {
        self.shortlist.as_ref()
    }

    pub(crate) fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    pub(crate) fn members(&self) -> &[TopMember] {
        &self.members
    }

    /// The entry object whose range holds `offset`, its braces and the
    /// offset just past its closing brace included (where a hover still
    /// belongs to it).
    pub fn entry_around(&self, offset: usize) -> Option<&EntryFacts> {
        debug_assert!(self.is_settled(), "settled before the facts are read");
        let after = self
            .slots
            .partition_point(|s| s.facts.range.start <= offset);
        let slot = &self.slots[after.checked_sub(1)?];
        (slot.object && offset <= slot.facts.range.end).then_some(&slot.facts)
    }
}
