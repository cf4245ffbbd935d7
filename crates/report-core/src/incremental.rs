//! Per-entry incremental analysis. A report is an object with a few large
//! arrays; an edit within one object of `entries` (its braces included: a
//! whole entry pasted over another is one) changes that entry only, plus the
//! facts that cross entries (shortlist membership and promotion
//! candidates). [`Incremental`] keeps each entry's facts and diagnostics,
//! moves the offsets of everything after an edit, and parses and checks
//! again only the edited entries.
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
//! An edit inside the shortlist array that replaces whole items and their
//! commas (items added, deleted, pasted, changed) is taken the same way
//! (see [`Incremental::splice_shortlist`]): the text between the kept items
//! must be whitespace, whole strings or `{…}` objects that parse alone
//! without syntax errors, and exactly the commas the array needs. The new
//! items are checked alone; the items after them that have diagnostics
//! (whose messages name `shortlist[i]`) are checked again for their new
//! index; the [`Shortlist`]'s first occurrences, repeats and near-miss map
//! follow; and the entries checked again are found through `by_path`, an
//! index of every entry by its path's hash: those whose path became or stopped being
//! a member, and those outside the shortlist (`missing`), whose membership
//! diagnostic names the shortlist's range and appends at its end. No other
//! check reads the shortlist as a whole (its item count is kept in
//! `members`). Any other edit in the shortlist is an envelope edit.
//!
//! An edit in the envelope (outside the `entries` array) checks the text
//! without the entries again (see [`Incremental::check_envelope`]); a new
//! shortlist rechecks the entries whose membership it may change. Anything
//! else (an entry that no longer parses in place, syntax errors outside
//! entries, an item that is no object; entries added or deleted and
//! envelope edits while an entry is broken) is refused, and the caller
//! analyses the whole text. A refused edit within one entry (one that
//! leaves it no object that parses alone) puts the state back as it was
//! before the edit ([`Incremental::resume`]): the caller may keep it with
//! that text, for the repair.
//! `tests/incremental.rs` compares both after random edits.

use foldhash::{HashSet, HashSetExt};
use std::borrow::Cow;
use std::sync::OnceLock;

use crate::Analysis;
use crate::analysis::syntax_diagnostic;
use crate::diagnostic::{Code, Diagnostic, Keep, rank};
use crate::entry_text::{self, EntryText};
use crate::fix::separator_after_bracket;
use crate::selection::looks_like_report;
use crate::syntax::{self, Value};
use crate::text::{Shift, TextRange};
use crate::validate::{
    self, Candidate, EntryFacts, Shortlist, ShortlistItem, TopMember, check_item_alone,
    check_membership, classifier_judged, judge,
};

/// The analysis of a report kept per entry, updated edit by edit.
#[derive(Clone, Debug)]
pub struct Incremental {
    /// The length of the text it describes.
    len: usize,
    slots: Vec<Slot>,
    /// Diagnostics outside every entry (the envelope, the shortlist, the
    /// fields of promotion candidates), sorted.
    outside: Vec<Diagnostic>,
    /// What promotion candidates' paths name, judged again when an entry's
    /// path or lifecycle evidence changes; sorted.
    judged: Vec<Diagnostic>,
    shortlist: Option<Shortlist>,
    candidates: Vec<Candidate>,
    /// The report's own members (item counts as of the last full analysis).
    members: Vec<TopMember>,
    /// The entries by path (see [`PathIndex`]).
    by_path: PathIndex,
    /// The paths of entries that are not in the shortlist: those entries
    /// have a membership diagnostic, whose message and fix name the shortlist.
    missing: HashSet<String>,
    /// Entries edited since the last [`Incremental::update`], ascending.
    dirty: Vec<usize>,
    /// Entries removed and text put in their place (see [`Incremental::edit`]),
    /// parsed at the next update.
    pending: Option<Pending>,
    /// Set by an edit in the envelope (outside the `entries` array): whether
    /// it left the shortlist alone. The envelope is checked again at the update.
    envelope: Option<bool>,
    /// Shortlist items removed and text put in their place (see
    /// [`Incremental::shortlist_edit`]), parsed at the next update.
    shortlist_pending: Option<ShortlistPending>,
    /// Set when an edit was refused: nothing more can be tracked.
    refused: bool,
    /// How many shortlist edits were taken item by item.
    shortlist_splices: usize,
    /// What puts the state back as it was before the one edit since the
    /// last update, an edit within one entry (see [`Incremental::resume`]).
    undo: Option<Box<Undo>>,
    /// Set when a refused edit or update left or put the state as it was
    /// before the edits since the last update.
    back: bool,
    /// Whether the envelope looks like a report's: a broken text that does
    /// not is checked for its syntax alone, which only a full analysis does.
    looks_like_report: bool,
    /// How many diagnostics the full analysis kept at most, and how many it
    /// left out (all in entries; see [`Incremental::omitted`]).
    keep: usize,
    omitted: Omitted,
}

/// How many diagnostics left out, and how many of them had a fix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Omitted {
    pub count: u32,
    pub fixable: u32,
}

impl Omitted {
    fn add(&mut self, other: Omitted) {
        self.count += other.count;
        self.fixable += other.fixable;
    }

    fn remove(&mut self, other: Omitted) {
        self.count -= other.count;
        self.fixable -= other.fixable;
    }

    fn one(diagnostic: &Diagnostic) -> Omitted {
        Omitted {
            count: 1,
            fixable: u32::from(diagnostic.fix.is_some()),
        }
    }
}

/// Entries replaced by new text: `removed` slots at `at` gave way to
/// `window`, which is to hold whole entry objects and their commas.
#[derive(Clone, Debug)]
struct Pending {
    at: usize,
    removed: usize,
    /// The paths of the entries removed.
    removed_paths: Vec<String>,
    window: TextRange,
}

/// Shortlist items replaced by new text: `removed` items at `at` gave way
/// to `window`, which is to hold whole items and their commas. The
/// shortlist itself is moved by `shift` only when it takes them.
#[derive(Clone, Debug)]
struct ShortlistPending {
    at: usize,
    removed: usize,
    window: TextRange,
    shift: Shift,
}

/// The one edit since the last update, within entry `slot`: moved by
/// `shift`, the entry was `old`, the text `len` long.
#[derive(Clone, Debug)]
struct Undo {
    slot: usize,
    shift: Shift,
    old: Slot,
    len: usize,
}

#[derive(Clone, Debug)]
struct Slot {
    facts: EntryFacts,
    /// Its syntax errors, its own checks' diagnostics and its membership
    /// one, sorted, with messages that name the entry as `entries[rendered]`.
    /// When entries are added or removed before it, `facts.index` moves and
    /// these are rendered again on demand, from the template.
    diagnostics: Vec<Diagnostic>,
    /// The index its diagnostics' texts were written with.
    rendered: usize,
    /// Its diagnostics with the places where their texts write the entry's
    /// index, made from the entry's text the first time they are rendered
    /// for another index.
    template: OnceLock<Option<Template>>,
    /// Whether the entry is an object: only edits inside objects are tracked.
    object: bool,
    /// Whether a syntax error broke it: it then has no checks, no
    /// membership, and makes the candidates naming its path unknowable.
    broken: bool,
    /// When its `}` is missing before the next entry or the array's `]`,
    /// which close it where its last value ends (see
    /// [`EntryText::parse_unclosed`]): where its text then ends, the next
    /// entry's start (that entry must stay whole, and is not edited while it
    /// is so) or the `]`.
    unclosed: Option<usize>,
    /// How many syntax errors it holds.
    syntax_errors: u32,
    /// Its diagnostics the analysis left out, each ranking after every kept one.
    omitted: Omitted,
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
        drop(text);
        let cross = cross.expect("checked above");
        let mut slots = into_slots(&mut entries, items);
        drop(entries);
        // Room for entries added later: growing the vector copies every slot.
        slots.reserve(slots.len() / 8 + 16);
        let mut omitted = Omitted::default();
        for o in left_out.iter() {
            let i = slot_at(&slots, o.start as usize).expect("checked above");
            let one = Omitted {
                count: 1,
                fixable: u32::from(o.fixable),
            };
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
        Ok(Incremental {
            len,
            slots,
            outside,
            judged,
            shortlist: cross.shortlist,
            candidates: cross.candidates,
            members: cross.members,
            by_path,
            missing,
            dirty: Vec::new(),
            pending: None,
            envelope: None,
            shortlist_pending: None,
            refused: false,
            shortlist_splices: 0,
            undo: None,
            back: false,
            looks_like_report,
            keep,
            omitted,
        })
    }

    /// How many diagnostics are left out of [`Incremental::diagnostics`]
    /// (each ranks after every one in it), and how many of them have a fix.
    pub fn omitted(&self) -> Omitted {
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
        let i = slot_at(&self.slots, offset).filter(|&i| self.slots[i].object)?;
        // A broken entry has no fixes: it keeps its syntax errors only.
        if self.slots[i].unclosed.is_some() {
            return Some(self.slots[i].diagnostics.clone());
        }
        let mut slot = self.check_slot(i, false, &mut read)?;
        slot.diagnostics.sort_by(Diagnostic::order);
        Some(slot.diagnostics)
    }

    /// Checks entry `i` again from its text (see [`check_alone`]): a whole
    /// object, or one whose `}` is missing before the next entry (unless
    /// that one was edited too, `next_edited`, and is not checked yet).
    fn check_slot(
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
            Some(n) => n.facts.range.start,
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
    fn parse_unclosed(
        &self,
        region: &str,
        i: usize,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<EntryText> {
        if let Some(next) = self.slots.get(i + 1) {
            return EntryText::parse_unclosed(region, &read(next.facts.range));
        }
        // What follows the `]` on its line, up to 256 bytes.
        let bracket = self.slots[i].facts.range.start + region.len();
        let read_to = (bracket + 257).min(self.len);
        let text = read(TextRange::new(bracket, read_to));
        let after = text.strip_prefix(']')?;
        let whole_line = after.contains(['\n', '\r']) || read_to == self.len;
        whole_line.then(|| EntryText::parse_unclosed_last(region, after))?
    }

    /// The text of the entry `facts` describes parsed in place (see
    /// [`EntryText`]), read with `read`.
    pub fn entry_text(
        &self,
        facts: &EntryFacts,
        read: impl Fn(TextRange) -> String,
    ) -> Option<EntryText> {
        let i = slot_at(&self.slots, facts.range.start)?;
        let region = extent(&self.slots, i);
        match self.slots[i].unclosed {
            Some(_) => self.parse_unclosed(&read(region), i, &mut |r| read(r)),
            None => EntryText::parse(&read(region)),
        }
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
        let held = match (&self.pending, self.envelope, &self.shortlist_pending) {
            (None, None, None) => self.slot_holding(range),
            _ => None,
        };
        // Nothing tracked since the last update.
        let untouched = !self.refused
            && self.dirty.is_empty()
            && self.pending.is_none()
            && self.envelope.is_none()
            && self.shortlist_pending.is_none();
        self.undo = None;
        let Some(i) = held else {
            if self.splice(range, shift)
                || self.shortlist_edit(range, shift)
                || self.envelope_edit(range, shift)
            {
                return true;
            }
            self.refused = true;
            self.back = untouched;
            return false;
        };
        // After the entry's opening brace: everything outside it that the
        // edit moves lies past it, and moves back exactly.
        if untouched && range.start > self.slots[i].facts.range.start {
            self.undo = Some(Box::new(Undo {
                slot: i,
                shift,
                old: self.slots[i].clone(),
                len: self.len,
            }));
        }
        for slot in &mut self.slots[i..] {
            slot.shift(shift);
        }
        self.shift_outside(shift, true);
        if let Err(at) = self.dirty.binary_search(&i) {
            self.dirty.insert(at, i);
        }
        true
    }

    /// Moves what lies outside the entries (the shortlist too, when
    /// `shortlist`), and the length.
    fn shift_outside(&mut self, shift: Shift, shortlist: bool) {
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

    /// Whether an edit between entries or in the envelope can be tracked:
    /// nothing refused or waiting for an update, and `range` in the text.
    fn may_take_an_edit_beside_entries(&self, range: TextRange) -> bool {
        !self.refused
            && self.pending.is_none()
            && self.envelope.is_none()
            && self.shortlist_pending.is_none()
            && self.dirty.is_empty()
            && range.end <= self.len
    }

    /// An edit inside the `entries` array, not within one entry object: the
    /// entries it touches are removed, and the text from the end of the
    /// entry before them to the start of the one after (or the brackets) is
    /// parsed at the update as entries and commas. The entries after it move
    /// and are numbered again; their messages are rendered again only when
    /// asked for (see [`Slot::rendered`]).
    fn splice(&mut self, range: TextRange, shift: Shift) -> bool {
        if !self.may_take_an_edit_beside_entries(range) {
            return false;
        }
        // An item that is no object is checked only in a whole text's parse:
        // its messages cannot be rendered again for a new index. A broken
        // entry makes judgements unknowable in ways only a full analysis
        // follows (found by fuzzing).
        if self.slots.iter().any(|s| !s.object || s.broken) {
            return false;
        }
        let Some(array) = self.entries_array() else {
            return false;
        };
        if !(array.start < range.start && range.end < array.end) {
            return false;
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
        let removed_paths = self
            .slots
            .drain(at..next)
            .filter_map(|s| s.facts.path.map(|(p, _)| p))
            .collect();
        for slot in &mut self.slots[at..] {
            slot.shift(shift);
        }
        self.shift_outside(shift, true);
        self.pending = Some(Pending {
            at,
            removed: next - at,
            removed_paths,
            window: TextRange::new(start, shift.offset(end)),
        });
        true
    }

    /// The range of the `entries` array's value.
    fn entries_array(&self) -> Option<TextRange> {
        self.array("entries")
    }

    /// The range of the report's member `key`, when it is an array.
    fn array(&self, key: &str) -> Option<TextRange> {
        self.members
            .iter()
            .find(|m| m.key == key && m.items.is_some())
            .map(|m| m.value_range)
    }

    /// An edit in the envelope: before or after the `entries` array, its
    /// brackets left alone. The envelope is checked again at the update, the
    /// entries not (see [`Incremental::check_envelope`]).
    fn envelope_edit(&mut self, range: TextRange, shift: Shift) -> bool {
        if !self.may_take_an_edit_beside_entries(range) {
            return false;
        }
        if self.slots.iter().any(|s| s.broken) {
            return false;
        }
        let Some(entries) = self.entries_array() else {
            return false;
        };
        // Not right after an array's `]`: moving the offsets from there on
        // would move the array's end with them.
        let before = range.end <= entries.start;
        if !before && range.start <= entries.end {
            return false;
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
        self.envelope = Some(keeps_shortlist);
        true
    }

    /// An edit inside the shortlist array that replaces whole items and the
    /// separators between them (items added, deleted, pasted, changed): the
    /// items it touches are to be replaced, at the update, by the text from
    /// the end of the item before them to the start of the one after (or
    /// the brackets), parsed as items and commas (see
    /// [`Incremental::splice_shortlist`]). Everything after that text moves
    /// now; the shortlist itself at the update.
    fn shortlist_edit(&mut self, range: TextRange, shift: Shift) -> bool {
        if !self.may_take_an_edit_beside_entries(range) || self.omitted.count > 0 {
            return false;
        }
        if self.slots.iter().any(|s| s.broken) {
            return false;
        }
        let (Some(shortlist), Some(array), Some(entries)) = (
            &self.shortlist,
            self.array("shortlist"),
            self.entries_array(),
        ) else {
            return false;
        };
        if !(array.start < range.start && range.end < array.end) || shortlist.range() != array {
            return false;
        }
        let spans = shortlist.spans();
        let at = spans.partition_point(|s| s.end <= range.start);
        let next = spans.partition_point(|s| s.start < range.end);
        let start = match at {
            0 => array.start + 1,
            _ => spans[at - 1].end,
        };
        let end = spans.get(next).map_or(array.end - 1, |s| s.start);
        // What lies from the window's end on moves; the kept items before it not.
        let shift = Shift {
            from: end,
            delta: shift.delta,
        };
        // The removed items' diagnostics go now, while their ranges are as they were.
        let removed = &spans[at..next];
        self.outside.retain(|d| {
            let k = removed.partition_point(|s| s.start <= d.range.start);
            k == 0 || d.range.end > removed[k - 1].end
        });
        if entries.start >= end {
            for slot in &mut self.slots {
                slot.shift(shift);
            }
        }
        self.shift_outside(shift, false);
        self.shortlist_pending = Some(ShortlistPending {
            at,
            removed: next - at,
            window: TextRange::new(start, shift.offset(end)),
            shift,
        });
        true
    }

    /// Takes the shortlist items that replaced removed ones (see
    /// [`Incremental::shortlist_edit`]): the window must hold whole string
    /// or object items, each parsing alone without syntax errors, and
    /// exactly the commas the kept items around them need; the whole text
    /// then parses as before with those items in place. Their diagnostics
    /// are theirs checked alone; the items after them that have diagnostics
    /// are checked again for their new index (their messages name
    /// `shortlist[i]`); the shortlist's paths are updated, and the entries
    /// are checked again whose path became or stopped being a member, and
    /// those with a membership diagnostic (its message and fix name the
    /// shortlist). Err(true) when the window is not that, before anything
    /// changed; Err(false) when an entry could not be checked again.
    fn splice_shortlist(
        &mut self,
        pending: ShortlistPending,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Result<(), bool> {
        let ShortlistPending {
            at,
            removed,
            window,
            shift,
        } = pending;
        let shortlist = self.shortlist.as_ref().ok_or(true)?;
        let text = read(window);
        if text.len() != window.len() {
            return Err(true);
        }
        let count = shortlist.spans().len();
        let ranges = split_items(&text, at > 0, at + removed < count).ok_or(true)?;
        let mut added = Vec::with_capacity(ranges.len());
        let mut fresh = Vec::new();
        for (j, range) in ranges.iter().enumerate() {
            let (item, diagnostics) =
                check_item_alone(&text[range.clone()], window.start + range.start, at + j)
                    .ok_or(true)?;
            added.push(item);
            fresh.extend(diagnostics);
        }
        // The items after that have diagnostics, checked for their new index.
        let kept = &shortlist.spans()[at + removed..];
        let mut again: Vec<TextRange> = Vec::new();
        if ranges.len() != removed {
            for d in &self.outside {
                if d.range.start < window.end {
                    continue;
                }
                let k = kept.partition_point(|s| shift.offset(s.start) <= d.range.start);
                let Some(span) = k.checked_sub(1).map(|k| shift.range(kept[k])) else {
                    continue;
                };
                if d.range.end <= span.end && again.last() != Some(&span) {
                    again.push(span);
                }
            }
        }
        again.dedup();
        let mut renumbered = Vec::new();
        for span in &again {
            let k = kept.partition_point(|s| shift.offset(s.start) < span.start);
            let index = at + ranges.len() + k;
            let (_, diagnostics) = check_item_alone(&read(*span), span.start, index).ok_or(true)?;
            renumbered.extend(diagnostics);
        }
        // Past the cap a full analysis leaves some out: it is one.
        let fresh_count = fresh.len() + renumbered.len();
        if fresh_count > 0 && self.count() + fresh_count > Keep::DEFAULT.max {
            return Err(true);
        }
        let separator = match (at, ranges.first()) {
            (0, Some(first)) => Some(separator_after_bracket(&text, first.start)),
            (0, None) if removed < count => Some(separator_after_bracket(&text, text.len())),
            _ => None,
        };
        // From here on the shortlist changes.
        self.outside.retain(|d| {
            !again
                .iter()
                .any(|s| s.start <= d.range.start && d.range.end <= s.end)
        });
        self.outside.extend(fresh);
        self.outside.extend(renumbered);
        self.outside.sort_by(Diagnostic::order);
        let items: Vec<ShortlistItem> = added;
        let shortlist = self.shortlist.as_mut().expect("checked above");
        let changed = shortlist.splice(at, removed, items, shift, separator);
        let total = shortlist.spans().len();
        if let Some(member) = self
            .members
            .iter_mut()
            .find(|m| m.key == "shortlist" && m.items.is_some())
        {
            member.items = Some(total);
        }
        for path in &changed {
            self.note_membership(path);
        }
        let mut indices: Vec<usize> = changed
            .iter()
            .map(|p| &**p)
            .chain(self.missing.iter().map(String::as_str))
            .flat_map(|p| self.by_path.find(p, &self.slots))
            .collect();
        indices.sort_unstable();
        indices.dedup();
        self.shortlist_splices += 1;
        for i in indices {
            self.recheck_membership(i, read).ok_or(false)?;
        }
        Ok(())
    }

    /// Checks the membership of entry `i` again: its membership diagnostic
    /// is the only one that reads the shortlist, so it alone is made again
    /// when the slot's diagnostics are written for its index (otherwise the
    /// entry is checked again from its text).
    fn recheck_membership(
        &mut self,
        i: usize,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<()> {
        let slot = &self.slots[i];
        if !slot.object || slot.broken || slot.rendered != slot.facts.index {
            return self.recheck(&[i], read);
        }
        let shortlist = self.shortlist.as_ref()?;
        let membership = check_membership(shortlist, &slot.facts);
        let slot = &mut self.slots[i];
        slot.diagnostics
            .retain(|d| d.code != Code::EntryPathNotInShortlist);
        slot.diagnostics.extend(membership);
        slot.diagnostics.sort_by(Diagnostic::order);
        // Its template, if made, holds the old one.
        slot.template = OnceLock::new();
        Some(())
    }

    /// After an edit within one entry whose text no longer parses alone:
    /// the state as it was before the edit, for the text before it (the
    /// entries after it, and what lies outside the entries, moved back; the
    /// entry as it was).
    fn put_back(&mut self) {
        let Some(undo) = self.undo.take() else {
            return;
        };
        let Undo {
            slot,
            shift,
            old,
            len,
        } = *undo;
        let inverse = Shift {
            from: shift.offset(shift.from),
            delta: -shift.delta,
        };
        for s in &mut self.slots[slot + 1..] {
            s.shift(inverse);
        }
        self.shift_outside(inverse, true);
        self.slots[slot] = old;
        self.len = len;
        self.back = true;
    }

    /// After [`Incremental::edit`] or [`Incremental::update`] returned
    /// false: whether the state is as it was before the edits since the
    /// last update, and so describes the text before them (it is then
    /// usable again, for that text: a caller may keep it until the text
    /// comes back, a broken entry repaired, say).
    pub fn resume(&mut self) -> bool {
        if !(self.refused && self.back) {
            return false;
        }
        self.refused = false;
        self.back = false;
        self.dirty.clear();
        true
    }

    /// Records whether entries with `path` are outside the shortlist.
    fn note_membership(&mut self, path: &str) {
        let outside = self.shortlist.as_ref().is_some_and(|s| !s.contains(path))
            && !self.by_path.find(path, &self.slots).is_empty();
        if outside {
            if !self.missing.contains(path) {
                self.missing.insert(path.to_string());
            }
        } else {
            self.missing.remove(path);
        }
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
    fn check_envelope(
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
            self.rejudge();
        }
        Some(())
    }

    /// Takes a new shortlist, and checks again the entries whose membership
    /// it may change.
    fn replace_shortlist(
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

    /// Checks the entries at `indices` again, from their text.
    fn recheck(
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
            self.slots[i] = fresh;
        }
        Some(())
    }

    /// Whether an edit of `range` would be tracked: it lies within one entry
    /// object, braces included, or inside the shortlist's brackets (where it
    /// is tracked when it leaves whole items, see [`Incremental::shortlist_edit`]).
    pub fn accepts(&self, range: TextRange) -> bool {
        self.slot_holding(range).is_some()
            || (!self.refused
                && self.shortlist.is_some()
                && self
                    .array("shortlist")
                    .is_some_and(|s| s.start < range.start && range.end < s.end))
    }

    fn slot_holding(&self, range: TextRange) -> Option<usize> {
        if self.refused || range.end > self.len {
            return None;
        }
        let held = slot_at(&self.slots, range.start).filter(|&i| {
            let entry = extent(&self.slots, i);
            // An insertion right before the `{` lands between two entries.
            let before = range.is_empty() && range.start == entry.start;
            self.slots[i].object && range.end <= entry.end && !before
        });
        match held {
            // The entry after an unclosed one stays as it is (see `Slot::unclosed`).
            Some(i) if i > 0 && self.slots[i - 1].unclosed.is_some() => None,
            // An unclosed entry's text runs up to the next one's `{`.
            None if range.is_empty() => {
                let i = slot_at(&self.slots, range.start.checked_sub(1)?)?;
                (self.slots[i].unclosed == Some(range.start)).then_some(i)
            }
            held => held,
        }
    }

    /// Parses and checks again the entries edited since the last update,
    /// reading each one's current text with `read`. False when an edited
    /// entry is no longer one object that parses on its own without errors:
    /// the state is then unusable, and the whole text must be analysed.
    pub fn update(&mut self, mut read: impl FnMut(TextRange) -> String) -> bool {
        if self.refused {
            return false;
        }
        let mut rejudge = false;
        if let Some(keeps_shortlist) = self.envelope.take()
            && self.check_envelope(keeps_shortlist, &mut read).is_none()
        {
            self.refused = true;
            return false;
        }
        // Items that are not whole items checked alone: the envelope is checked again.
        if let Some(pending) = self.shortlist_pending.take() {
            let taken = match self.splice_shortlist(pending, &mut read) {
                Ok(()) => true,
                Err(true) => self.check_envelope(false, &mut read).is_some(),
                Err(false) => false,
            };
            if !taken {
                self.refused = true;
                return false;
            }
        }
        if let Some(pending) = self.pending.take() {
            if !self.insert(pending, &mut read) {
                self.refused = true;
                return false;
            }
            rejudge = !self.candidates.is_empty();
        }
        let dirty = std::mem::take(&mut self.dirty);
        for (k, &i) in dirty.iter().enumerate() {
            let next_edited = dirty.get(k + 1) == Some(&(i + 1));
            let Some(mut slot) = self.check_slot(i, next_edited, &mut read) else {
                self.refused = true;
                self.put_back();
                return false;
            };
            slot.diagnostics.sort_by(Diagnostic::order);
            // What refuses the edit below, found before anything changes:
            // the state before the one edit can then be put back.
            if self.undo.is_some() && self.refuses(&self.slots[i], &slot) {
                self.refused = true;
                self.put_back();
                return false;
            }
            let old = std::mem::replace(&mut self.slots[i], slot);
            self.omitted.remove(old.omitted);
            if self.omitted.count > 0 && !self.leave_out_past_the_kept(i) {
                self.refused = true;
                return false;
            }
            let new = &self.slots[i];
            let path_changed =
                old.facts.path.as_ref().map(|p| &p.0) != new.facts.path.as_ref().map(|p| &p.0);
            rejudge |= judged_again(&old, new);
            if path_changed {
                let new_path = new.facts.path.as_ref().map(|(p, _)| p.clone());
                let old_path = old.facts.path.map(|(p, _)| p);
                self.move_path(i, old_path.clone(), new_path.clone());
                for path in old_path.iter().chain(&new_path) {
                    self.note_membership(path);
                }
            }
        }
        // Judged again, the candidates' diagnostics might rank past some left out.
        if rejudge && self.omitted.count > 0 {
            self.refused = true;
            return false;
        }
        // The whole text's parse stops counting syntax errors at a cap.
        let syntax_errors: usize = self.slots.iter().map(|s| s.syntax_errors as usize).sum();
        let broken = self.slots.iter().any(|s| s.broken);
        if syntax_errors >= syntax::MAX_SYNTAX_ERRORS || (broken && !self.looks_like_report) {
            self.refused = true;
            return false;
        }
        if rejudge {
            self.rejudge();
        }
        self.undo = None;
        true
    }

    /// Whether the update refuses entry `old` checked again as `new`, the
    /// only entry edited: the candidates judged again while diagnostics are
    /// left out, syntax errors up to the parser's cap, or a broken entry in
    /// a text that does not look like a report.
    fn refuses(&self, old: &Slot, new: &Slot) -> bool {
        let others_left_out = self.omitted.count > old.omitted.count;
        let syntax_errors: usize = self.slots.iter().map(|s| s.syntax_errors as usize).sum();
        let syntax_errors = syntax_errors - old.syntax_errors as usize + new.syntax_errors as usize;
        (others_left_out && judged_again(old, new))
            || syntax_errors >= syntax::MAX_SYNTAX_ERRORS
            || (new.broken && !self.looks_like_report)
    }

    /// Parses the text that took the place of removed entries as whole
    /// entry objects and the commas between them (and around them, as the
    /// entries kept before and after need), checks each new entry, and
    /// numbers the entries after them again. False unless the text is that,
    /// each entry without syntax errors, and some entry is left.
    fn insert(&mut self, pending: Pending, read: &mut impl FnMut(TextRange) -> String) -> bool {
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
        self.slots.splice(at..at, fresh);
        if added != removed {
            for (index, slot) in self.slots.iter_mut().enumerate().skip(at + added) {
                slot.facts.index = index;
            }
        }
        let count = self.slots.len();
        if let Some(member) = self
            .members
            .iter_mut()
            .find(|m| m.key == "entries" && m.items.is_some())
        {
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

    /// How many diagnostics there are.
    pub fn count(&self) -> usize {
        self.outside.len()
            + self.judged.len()
            + self
                .slots
                .iter()
                .map(|s| s.diagnostics.len())
                .sum::<usize>()
    }

    /// Whether some diagnostic satisfies `test`, which must look only at
    /// what renumbering leaves alone (code, severity, ranges, fixes' edits).
    pub fn any(&self, test: impl Fn(&Diagnostic) -> bool) -> bool {
        self.outside.iter().chain(&self.judged).any(&test)
            || self.slots.iter().flat_map(|s| &s.diagnostics).any(&test)
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
        for slot in &self.slots {
            if all.len() >= limit {
                break;
            }
            if !slot.diagnostics.iter().any(want) {
                continue;
            }
            let rendered: Vec<Cow<'_, Diagnostic>> = match self.render(slot, read) {
                None => slot.diagnostics.iter().map(Cow::Borrowed).collect(),
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

    /// Keeps the invariant of a capped analysis after entry `i` was checked
    /// again while others' diagnostics are left out: its diagnostics that
    /// rank past every kept one of the others are left out too. False when
    /// too few are kept to publish from (a full analysis then fills them
    /// in again) or too many (one to cap them again).
    fn leave_out_past_the_kept(&mut self, i: usize) -> bool {
        let others = self
            .slots
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .flat_map(|(_, s)| &s.diagnostics)
            .chain(&self.outside)
            .chain(&self.judged);
        let (mut kept, mut worst) = (0, None::<&Diagnostic>);
        for diagnostic in others {
            kept += 1;
            if worst.is_none_or(|w| rank(diagnostic, w).is_gt()) {
                worst = Some(diagnostic);
            }
        }
        if kept < self.keep / 2 || kept > self.keep.saturating_mul(2) {
            return false;
        }
        let Some(worst) = worst.cloned() else {
            return false;
        };
        let slot = &mut self.slots[i];
        let mut left_out = Omitted::default();
        slot.diagnostics.retain(|d| {
            let keep = rank(d, &worst).is_lt();
            if !keep {
                left_out.add(Omitted::one(d));
            }
            keep
        });
        slot.omitted = left_out;
        self.omitted.add(left_out);
        true
    }

    /// A slot's diagnostics written for its current index, sorted; None
    /// when those it holds are (its index did not move).
    fn render(&self, slot: &Slot, read: &dyn Fn(TextRange) -> String) -> Option<Vec<Diagnostic>> {
        let index = slot.facts.index;
        if index == slot.rendered {
            return None;
        }
        let range = slot.facts.range;
        let template = slot.template.get_or_init(|| {
            let text = read(range);
            let probe = |index| {
                check_alone(text.clone(), range, index, self.shortlist.as_ref())
                    .map(|s| s.diagnostics)
            };
            Template::new(probe(PROBES[0])?, probe(PROBES[1])?)
        });
        let mut diagnostics = match template {
            Some(template) => template.render(index),
            // Not found where the index is written: checked again for it.
            None => check_alone(read(range), range, index, self.shortlist.as_ref())
                .map_or_else(|| slot.diagnostics.clone(), |s| s.diagnostics),
        };
        diagnostics.sort_by(Diagnostic::order);
        Some(diagnostics)
    }

    /// The facts of each entry, in order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &EntryFacts> {
        self.slots.iter().map(|s| &s.facts)
    }

    /// From the start of the first entry to the end of the last, if any.
    pub fn entries_span(&self) -> Option<TextRange> {
        let first = self.slots.first()?.facts.range;
        let last = self.slots.last()?.facts.range;
        Some(TextRange::new(first.start, last.end))
    }

    /// The entry object whose range holds `offset`, if any.
    pub fn entry_at(&self, offset: usize) -> Option<&EntryFacts> {
        let i = slot_at(&self.slots, offset)?;
        self.slots[i].object.then(|| &self.slots[i].facts)
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
        let after = self
            .slots
            .partition_point(|s| s.facts.range.start <= offset);
        let slot = &self.slots[after.checked_sub(1)?];
        (slot.object && offset <= slot.facts.range.end).then_some(&slot.facts)
    }

    fn move_path(&mut self, index: usize, old: Option<String>, new: Option<String>) {
        if let Some(old) = old {
            self.by_path.remove(&old, index);
        }
        if let Some(new) = new {
            self.by_path.insert(&new, index);
        }
    }

    /// Judges the promotion candidates against the intact entries, and
    /// drops what a broken entry makes unknowable, as a full analysis does.
    fn rejudge(&mut self) {
        let (slots, by_path) = (&self.slots, &self.by_path);
        let named = |path: &str| {
            let indices = by_path.find(path, slots);
            let mut intact = indices.iter().filter(|&&j| !slots[j].broken);
            let first = *intact.clone().next()?;
            let judged = intact.any(|&j| classifier_judged(&slots[j].facts));
            Some((judged, &slots[first].facts))
        };
        let mut judged = Vec::new();
        judge(&self.candidates, named, &mut judged);
        let broken_paths: Option<Vec<&str>> = slots
            .iter()
            .filter(|s| s.broken)
            .map(|s| s.facts.path.as_ref().map(|(p, _)| p.as_str()))
            .collect();
        match broken_paths {
            // A broken entry whose path is unreadable may be named by any candidate.
            None => judged.clear(),
            Some(paths) if !paths.is_empty() => {
                let uncertain: Vec<TextRange> = self
                    .candidates
                    .iter()
                    .filter(|c| paths.contains(&c.path()))
                    .map(|c| c.range())
                    .collect();
                judged.retain(|d| !uncertain.contains(&d.range));
            }
            Some(_) => {}
        }
        judged.sort_by(Diagnostic::order);
        self.judged = judged;
    }
}

/// Whether the candidates are judged again after entry `old` became `new`.
fn judged_again(old: &Slot, new: &Slot) -> bool {
    fn path(slot: &Slot) -> Option<&str> {
        slot.facts.path.as_ref().map(|(p, _)| p.as_str())
    }
    // A judgement names the lifecycle the evidence came from.
    path(old) != path(new)
        || old.broken != new.broken
        || old.facts.evidence != new.facts.evidence
        || classifier_judged(&old.facts) != classifier_judged(&new.facts)
}

/// Parses and checks an entry's text on its own, in offsets of the whole
/// text, with its membership when it is intact and there is a shortlist;
/// unsorted. None unless it parses in place as one complete object (see
/// [`EntryText`]): the whole text then parses with that object there,
/// syntax errors and all, and the rest of the text as before.
fn check_alone(
    text: String,
    range: TextRange,
    index: usize,
    shortlist: Option<&Shortlist>,
) -> Option<Slot> {
    if text.len() != range.len() {
        return None;
    }
    let entry = EntryText::parse(&text)?;
    slot_of(&entry, range.start, index, shortlist)
}

/// The slot of an entry parsed in place, its text starting at `start` in
/// the whole text.
fn slot_of(
    entry: &EntryText,
    start: usize,
    index: usize,
    shortlist: Option<&Shortlist>,
) -> Option<Slot> {
    let item = entry.item()?;
    let (mut facts, mut diagnostics) = validate::check_entry_alone(entry.text(), item, index);
    diagnostics.extend(entry.errors().iter().map(syntax_diagnostic));
    let shift = Shift {
        from: 0,
        delta: start as isize - entry.offset() as isize,
    };
    facts.shift(shift);
    for diagnostic in &mut diagnostics {
        diagnostic.shift(shift);
    }
    let broken = item.is_broken();
    if let Some(shortlist) = shortlist
        && !broken
    {
        diagnostics.extend(check_membership(shortlist, &facts));
    }
    Some(Slot {
        facts,
        diagnostics,
        rendered: index,
        template: OnceLock::new(),
        object: true,
        broken,
        unclosed: None,
        syntax_errors: entry.errors().len() as u32,
        omitted: Omitted::default(),
    })
}

impl Slot {
    /// Moves every offset it holds.
    fn shift(&mut self, shift: Shift) {
        self.facts.shift(shift);
        if let Some(end) = &mut self.unclosed {
            *end = shift.offset(*end);
        }
        for diagnostic in &mut self.diagnostics {
            diagnostic.shift(shift);
        }
        if let Some(Some(template)) = self.template.get_mut() {
            for diagnostic in &mut template.diagnostics {
                diagnostic.shift(shift);
            }
        }
    }
}

/// Two indices of the same width that an entry is checked with to find
/// where its diagnostics' texts write its index: they differ there alone.
const PROBES: [usize; 2] = [1_000_000_000_000_000_000, 2_000_000_000_000_000_000];

/// An entry's diagnostics as checked with index `PROBES[0]`, and where
/// each of their texts writes it: rendered for any index by writing that
/// index there, without checking the entry again.
#[derive(Clone, Debug)]
struct Template {
    diagnostics: Vec<Diagnostic>,
    /// For each diagnostic, for each of its texts (see [`texts_mut`]), the
    /// offsets where the index's digits start.
    marks: Vec<Vec<Vec<usize>>>,
}

impl Template {
    /// From an entry's diagnostics checked with each of [`PROBES`]; None
    /// unless they differ only in the digits of the index.
    fn new(mut first: Vec<Diagnostic>, mut second: Vec<Diagnostic>) -> Option<Template> {
        if first.len() != second.len() {
            return None;
        }
        let (a, b) = (PROBES[0].to_string(), PROBES[1].to_string());
        let mut marks = Vec::with_capacity(first.len());
        for (x, y) in first.iter_mut().zip(&mut second) {
            let (tx, ty) = (texts_mut(x), texts_mut(y));
            if tx.len() != ty.len() {
                return None;
            }
            let mut found = Vec::with_capacity(tx.len());
            for (sx, sy) in tx.into_iter().zip(ty) {
                if sx.len() != sy.len() {
                    return None;
                }
                let at: Vec<usize> = (0..sx.len())
                    .filter(|&i| sx.as_bytes()[i] != sy.as_bytes()[i])
                    .collect();
                if at
                    .iter()
                    .any(|&i| sx.get(i..i + a.len()) != Some(a.as_str()))
                    || write_index(sx, &at, a.len(), &b) != *sy
                {
                    return None;
                }
                found.push(at);
            }
            marks.push(found);
        }
        // Everything else (codes, ranges, edits' ranges) must be the same.
        let same = first.iter().zip(&second).zip(&marks).all(|((x, y), at)| {
            let mut x = x.clone();
            for (text, at) in texts_mut(&mut x).into_iter().zip(at) {
                *text = write_index(text, at, a.len(), &b);
            }
            x == *y
        });
        same.then_some(Template {
            diagnostics: first,
            marks,
        })
    }

    /// The diagnostics written for entry `index`, unsorted.
    fn render(&self, index: usize) -> Vec<Diagnostic> {
        let digits = index.to_string();
        let width = PROBES[0].to_string().len();
        self.diagnostics
            .iter()
            .zip(&self.marks)
            .map(|(diagnostic, marks)| {
                let mut diagnostic = diagnostic.clone();
                for (text, at) in texts_mut(&mut diagnostic).into_iter().zip(marks) {
                    if !at.is_empty() {
                        *text = write_index(text, at, width, &digits);
                    }
                }
                diagnostic
            })
            .collect()
    }
}

/// Every text of a diagnostic that may name its entry: the message, the
/// related messages, the fix's title and its edits' new texts.
fn texts_mut(diagnostic: &mut Diagnostic) -> Vec<&mut String> {
    let mut texts = vec![&mut diagnostic.message];
    texts.extend(diagnostic.related.iter_mut().map(|r| &mut r.message));
    if let Some(fix) = &mut diagnostic.fix {
        texts.push(&mut fix.title);
        texts.extend(fix.edits.iter_mut().map(|e| &mut e.new_text));
    }
    texts
}

/// `text` with the `width` bytes at each of `at` replaced by `digits`.
fn write_index(text: &str, at: &[usize], width: usize, digits: &str) -> String {
    let mut out = String::with_capacity(text.len() + at.len() * digits.len());
    let mut from = 0;
    for &i in at {
        out.push_str(&text[from..i]);
        out.push_str(digits);
        from = i + width;
    }
    out.push_str(&text[from..]);
    out
}

/// The entries in `text`, which stands between two entries, or an entry
/// and a bracket, of the `entries` array (`before`, `after`: whether an
/// entry is kept there): whitespace, whole `{…}` objects, and exactly the
/// commas between them all. The ranges of the objects, or None.
fn split_entries(text: &str, before: bool, after: bool) -> Option<Vec<std::ops::Range<usize>>> {
    split_values(text, before, after, false)
}

/// Like [`split_entries`], for the shortlist's strings and objects; an
/// array left empty needs no comma at all.
fn split_items(text: &str, before: bool, after: bool) -> Option<Vec<std::ops::Range<usize>>> {
    let blank = text
        .bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if !before && !after && blank {
        return Some(Vec::new());
    }
    split_values(text, before, after, true)
}

/// Whitespace, whole `{…}` objects (and strings, with `strings`), and
/// exactly the commas JSON needs between them and the values kept before
/// and after: the values' ranges, or None.
fn split_values(
    text: &str,
    before: bool,
    after: bool,
    strings: bool,
) -> Option<Vec<std::ops::Range<usize>>> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    let mut want_comma = before;
    let mut i = 0;
    loop {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        let Some(&byte) = bytes.get(i) else { break };
        let end = match byte {
            b',' if want_comma => {
                want_comma = false;
                i += 1;
                continue;
            }
            b'{' if !want_comma => object_end(bytes, i)?,
            b'"' if !want_comma && strings => string_end(bytes, i)?,
            _ => return None,
        };
        items.push(i..end);
        want_comma = true;
        i = end;
    }
    (want_comma != after).then_some(items)
}

/// The offset past the bracket that closes the `{` at `start`, strings
/// skipped; None when the text ends first.
fn object_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') => in_string = false,
            (false, b'"') => in_string = true,
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The entries' facts as slots. Taken from the end and freed as it goes, so
/// that two million entries are not held twice at once.
fn into_slots(entries: &mut Vec<EntryFacts>, mut items: Vec<Item>) -> Vec<Slot> {
    const STEP: usize = 1 << 16;
    let mut slots = Vec::with_capacity(entries.len());
    while let Some(facts) = entries.pop() {
        let Item {
            object,
            broken,
            unclosed,
            extent,
        } = items.pop().expect("as many items as entries");
        slots.push(Slot {
            rendered: facts.index,
            facts,
            diagnostics: Vec::new(),
            template: OnceLock::new(),
            object,
            broken,
            unclosed: unclosed.then_some(extent.end),
            syntax_errors: 0,
            omitted: Omitted::default(),
        });
        if entries.len().is_multiple_of(STEP) {
            entries.shrink_to_fit();
        }
    }
    slots.reverse();
    slots
}

/// The entries by path: a hash of each entry's path with its index, in
/// order, 16 bytes an entry. The entries with a path are those under its
/// hash whose path it is (another path may share the hash).
#[derive(Clone, Debug, Default)]
struct PathIndex {
    pairs: Vec<(u64, usize)>,
}

impl PathIndex {
    fn new(slots: &[Slot]) -> PathIndex {
        let mut pairs: Vec<(u64, usize)> = slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((path_hash(&s.facts.path.as_ref()?.0), i)))
            .collect();
        pairs.sort_unstable();
        PathIndex { pairs }
    }

    /// The indices of the entries with `path`, ascending.
    fn find(&self, path: &str, slots: &[Slot]) -> Vec<usize> {
        let hash = path_hash(path);
        let from = self.pairs.partition_point(|&(h, _)| h < hash);
        self.pairs[from..]
            .iter()
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, i)| i)
            .filter(|&i| slots[i].facts.path.as_ref().is_some_and(|(p, _)| p == path))
            .collect()
    }

    fn remove(&mut self, path: &str, index: usize) {
        if let Ok(at) = self.pairs.binary_search(&(path_hash(path), index)) {
            self.pairs.remove(at);
        }
    }

    fn insert(&mut self, path: &str, index: usize) {
        let pair = (path_hash(path), index);
        if let Err(at) = self.pairs.binary_search(&pair) {
            self.pairs.insert(at, pair);
        }
    }

    /// `removed` entries at `at` gave way to `added`: those after move.
    fn splice(&mut self, at: usize, removed: usize, added: &[Slot]) {
        let end = at + removed;
        self.pairs.retain(|&(_, i)| !(at..end).contains(&i));
        if added.len() != removed {
            for (_, i) in self.pairs.iter_mut().filter(|(_, i)| *i >= end) {
                *i = *i + added.len() - removed;
            }
        }
        let mut new: Vec<(u64, usize)> = added
            .iter()
            .enumerate()
            .filter_map(|(j, s)| Some((path_hash(&s.facts.path.as_ref()?.0), at + j)))
            .collect();
        if new.is_empty() {
            return;
        }
        new.sort_unstable();
        // One merge of two sorted lists.
        let old = std::mem::take(&mut self.pairs);
        let mut merged = Vec::with_capacity(old.len() + new.len());
        let (mut a, mut b) = (old.into_iter().peekable(), new.into_iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x <= y => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        self.pairs = merged;
    }
}

/// A fixed hash of a path (the same in every run).
fn path_hash(path: &str) -> u64 {
    use std::hash::BuildHasher;
    // Fixed seeds: the index must hash a path the same way every time.
    static SEEDS: std::sync::OnceLock<foldhash::fast::FixedState> = std::sync::OnceLock::new();
    SEEDS
        .get_or_init(|| foldhash::fast::FixedState::with_seed(fastrand::u64(..)))
        .hash_one(path)
}

/// The paths of entries that are not in the shortlist.
fn missing_paths(slots: &[Slot], shortlist: Option<&Shortlist>) -> HashSet<String> {
    let Some(shortlist) = shortlist else {
        return HashSet::new();
    };
    slots
        .iter()
        .filter_map(|s| s.facts.path.as_ref().map(|(p, _)| p))
        .filter(|p| !shortlist.contains(p))
        .cloned()
        .collect()
}

/// The offset past the quote that closes the string opened at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'"' => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// How a full analysis' entry `node` (of `text`) is kept, given the item
/// after it or (the last) the array's `]` at `bracket`.
fn item_of(
    text: &str,
    node: syntax::Node<'_>,
    next: Option<syntax::Node<'_>>,
    bracket: usize,
) -> Item {
    // An object whose braces the parser inferred is no text that parses
    // alone: edits in it are not tracked.
    let range = node.range();
    let bytes = text.as_bytes();
    let braced = bytes.get(range.start) == Some(&b'{')
        && range.end > range.start + 1
        && bytes.get(range.end - 1) == Some(&b'}');
    let is_object = matches!(node.value(), Value::Object) && !node.is_incomplete();
    let broken = is_object && node.is_broken();
    // A broken one must also parse in place as it does here.
    let object =
        is_object && braced && (!broken || EntryText::parse(&text[range.as_range()]).is_some());
    let reach = next.map_or(bracket, |next| next.range().start);
    let bracketed = next.is_some() || text.as_bytes().get(bracket) == Some(&b']');
    let unclosed = !object && broken && bracketed && range.end <= reach && {
        let region = &text[range.start..reach];
        let entry = match next {
            Some(next) => EntryText::parse_unclosed(region, &text[next.range().as_range()]),
            None => EntryText::parse_unclosed_last(region, &text[bracket + 1..]),
        };
        entry.is_some_and(|entry| entry.range().len() == range.len())
    };
    let extent = match unclosed {
        true => TextRange::new(range.start, reach),
        false => range,
    };
    Item {
        object: object || unclosed,
        broken: broken && (object || unclosed),
        unclosed,
        extent,
    }
}

/// An item of the `entries` array as a full analysis found it.
#[derive(Clone, Copy)]
struct Item {
    /// An object whose text parses in place (see [`Slot::object`]).
    object: bool,
    broken: bool,
    unclosed: bool,
    /// Its text: the object's range, up to the next item's for one unclosed.
    extent: TextRange,
}

/// The index of the item whose text holds `offset`.
fn slot_range_at(items: &[Item], offset: usize) -> Option<usize> {
    let after = items.partition_point(|item| item.extent.start <= offset);
    let i = after.checked_sub(1)?;
    (offset < items[i].extent.end).then_some(i)
}

/// Codes of syntax errors, which a broken entry keeps as its only diagnostics.
fn is_syntax(code: Code) -> bool {
    matches!(
        code,
        Code::SyntaxError | Code::DuplicateKey | Code::NestingTooDeep | Code::InvalidUtf8
    )
}

/// The slot whose text holds `offset` (see [`extent`]).
fn slot_at(slots: &[Slot], offset: usize) -> Option<usize> {
    let after = slots.partition_point(|s| s.facts.range.start <= offset);
    let i = after.checked_sub(1)?;
    (offset < extent(slots, i).end).then_some(i)
}

/// The text of slot `i`: its entry's range, and for one unclosed (see
/// [`Slot::unclosed`]) up to the next entry's start or the array's `]`.
fn extent(slots: &[Slot], i: usize) -> TextRange {
    let slot = &slots[i];
    match slot.unclosed {
        Some(end) => TextRange::new(slot.facts.range.start, end),
        None => slot.facts.range,
    }
}

/// Diagnostics of the promotion-candidate judgement, recomputed from the entries.
fn is_judgement(code: Code) -> bool {
    matches!(
        code,
        Code::PromotionCandidateUnknownEntry | Code::PromotionCandidateNotClassifierJudged
    )
}
