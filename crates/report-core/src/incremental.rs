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
//! full analysis. An edit that adds or removes an entry, or spills past one,
//! fails that test. Anything else (an edit between entries or in the
//! envelope, an entry that no longer parses in place, syntax errors outside
//! entries) is refused, and the caller analyses the whole text.
//! `tests/incremental.rs` compares both after random edits.

use std::collections::HashMap;

use crate::Analysis;
use crate::analysis::syntax_diagnostic;
use crate::diagnostic::{Code, Diagnostic, rank};
use crate::entry_text::{self, EntryText};
use crate::selection::looks_like_report;
use crate::syntax::{self, Value};
use crate::text::{Shift, TextRange};
use crate::validate::{
    self, Candidate, EntryFacts, Shortlist, TopMember, check_membership, classifier_judged, judge,
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
    /// Entry indices by path, ascending; kept only when there are candidates.
    by_path: HashMap<String, Vec<usize>>,
    /// Entries edited since the last [`Incremental::update`], ascending.
    dirty: Vec<usize>,
    /// Set when an edit was refused: nothing more can be tracked.
    refused: bool,
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

#[derive(Clone, Debug)]
struct Slot {
    facts: EntryFacts,
    /// Its syntax errors, its own checks' diagnostics and its membership
    /// one, sorted.
    diagnostics: Vec<Diagnostic>,
    /// Whether the entry is an object: only edits inside objects are tracked.
    object: bool,
    /// Whether a syntax error broke it: it then has no checks, no
    /// membership, and makes the candidates naming its path unknowable.
    broken: bool,
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
        let items: Option<Vec<(bool, bool, TextRange)>> = analysis
            .cross
            .as_ref()
            .filter(|_| analysis.parse.errors.len() < syntax::MAX_SYNTAX_ERRORS)
            .and_then(|_| analysis.root()?.get("entries")?.items())
            .map(|items| {
                items
                    .map(|item| {
                        // An object whose braces the parser inferred is no
                        // text that parses alone: edits in it are not tracked.
                        let range = item.range();
                        let bytes = analysis.text.as_bytes();
                        let braced = bytes.get(range.start) == Some(&b'{')
                            && range.end > range.start + 1
                            && bytes.get(range.end - 1) == Some(&b'}');
                        let object = matches!(item.value(), Value::Object)
                            && braced
                            && !item.is_incomplete();
                        // A broken one must also parse in place as it does here.
                        let broken = object && item.is_broken();
                        let object = object
                            && (!broken
                                || EntryText::parse(&analysis.text[range.as_range()]).is_some());
                        (object, broken && object, range)
                    })
                    .collect()
            });
        let items = match items {
            Some(items) if items.len() == analysis.entries.len() => items,
            _ => return Err(Box::new(analysis)),
        };
        // Syntax errors are tracked inside entry objects only, and only in
        // an entry whose own text parses alone the way the whole text does.
        let errors_inside = analysis.parse.errors.iter().all(|error| {
            let after = items.partition_point(|(_, _, range)| range.start <= error.range.start);
            after.checked_sub(1).is_some_and(|i| {
                let (object, _, range) = items[i];
                object && entry_text::holds(range, error.range)
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
        let slots = into_slots(&mut entries, items);
        drop(entries);
        let mut slots = slots;
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
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
        if !cross.candidates.is_empty() {
            for (i, slot) in slots.iter().enumerate() {
                if let Some((path, _)) = &slot.facts.path {
                    by_path.entry(path.clone()).or_default().push(i);
                }
            }
        }
        Ok(Incremental {
            len,
            slots,
            outside,
            judged,
            shortlist: cross.shortlist,
            candidates: cross.candidates,
            members: cross.members,
            by_path,
            dirty: Vec::new(),
            refused: false,
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
        read: impl FnOnce(TextRange) -> String,
    ) -> Option<Vec<Diagnostic>> {
        let i = slot_at(&self.slots, offset).filter(|&i| self.slots[i].object)?;
        let range = self.slots[i].facts.range;
        let mut slot = check_alone(read(range), range, i)?;
        if let Some(shortlist) = &self.shortlist
            && !slot.broken
        {
            slot.diagnostics
                .extend(check_membership(shortlist, &slot.facts));
        }
        slot.diagnostics.sort_by(Diagnostic::order);
        Some(slot.diagnostics)
    }

    /// The length of the text it describes, after the edits recorded so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records that `range` of the text (as it is after the previous edits)
    /// was replaced by `new_len` bytes. False when the edit is not within one
    /// entry object (braces included): the state is then unusable, and the
    /// whole text must be analysed.
    pub fn edit(&mut self, range: TextRange, new_len: usize) -> bool {
        let Some(i) = self.slot_holding(range) else {
            self.refused = true;
            return false;
        };
        let shift = Shift {
            from: range.end,
            delta: new_len as isize - range.len() as isize,
        };
        for slot in &mut self.slots[i..] {
            slot.facts.shift(shift);
            for diagnostic in &mut slot.diagnostics {
                diagnostic.shift(shift);
            }
        }
        for diagnostic in self.outside.iter_mut().chain(&mut self.judged) {
            diagnostic.shift(shift);
        }
        if let Some(shortlist) = &mut self.shortlist {
            shortlist.shift(shift);
        }
        for candidate in &mut self.candidates {
            candidate.shift(shift);
        }
        for member in &mut self.members {
            member.shift(shift);
        }
        self.len = shift.offset(self.len);
        if let Err(at) = self.dirty.binary_search(&i) {
            self.dirty.insert(at, i);
        }
        true
    }

    /// Whether an edit of `range` would be tracked: it lies within one entry
    /// object, braces included.
    pub fn accepts(&self, range: TextRange) -> bool {
        self.slot_holding(range).is_some()
    }

    fn slot_holding(&self, range: TextRange) -> Option<usize> {
        if self.refused || range.end > self.len {
            return None;
        }
        slot_at(&self.slots, range.start).filter(|&i| {
            let entry = self.slots[i].facts.range;
            // An insertion right before the `{` lands between two entries.
            let before = range.is_empty() && range.start == entry.start;
            self.slots[i].object && range.end <= entry.end && !before
        })
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
        for i in std::mem::take(&mut self.dirty) {
            let range = self.slots[i].facts.range;
            let Some(mut slot) = check_alone(read(range), range, i) else {
                self.refused = true;
                return false;
            };
            if let Some(shortlist) = &self.shortlist
                && !slot.broken
            {
                slot.diagnostics
                    .extend(check_membership(shortlist, &slot.facts));
            }
            slot.diagnostics.sort_by(Diagnostic::order);
            let old = std::mem::replace(&mut self.slots[i], slot);
            self.omitted.remove(old.omitted);
            if self.omitted.count > 0 && !self.leave_out_past_the_kept(i) {
                self.refused = true;
                return false;
            }
            let new = &self.slots[i];
            let path_changed =
                old.facts.path.as_ref().map(|p| &p.0) != new.facts.path.as_ref().map(|p| &p.0);
            rejudge |= path_changed
                || old.broken != new.broken
                || classifier_judged(&old.facts) != classifier_judged(&new.facts);
            if !self.candidates.is_empty() && path_changed {
                let new_path = new.facts.path.as_ref().map(|(p, _)| p.clone());
                self.move_path(i, old.facts.path.map(|(p, _)| p), new_path);
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
        true
    }

    /// All diagnostics, in the order of a full analysis.
    pub fn diagnostics(&self) -> Vec<&Diagnostic> {
        let mut others: Vec<&Diagnostic> = self.outside.iter().chain(&self.judged).collect();
        others.sort_by(|a, b| Diagnostic::order(a, b));
        let mut others = others.into_iter().peekable();
        let mut all = Vec::with_capacity(self.outside.len() + self.judged.len());
        for diagnostic in self.slots.iter().flat_map(|s| &s.diagnostics) {
            while let Some(other) = others.next_if(|o| Diagnostic::order(o, diagnostic).is_lt()) {
                all.push(other);
            }
            all.push(diagnostic);
        }
        all.extend(others);
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
        if let Some(old) = old
            && let Some(indices) = self.by_path.get_mut(&old)
        {
            indices.retain(|&j| j != index);
            if indices.is_empty() {
                self.by_path.remove(&old);
            }
        }
        if let Some(new) = new {
            let indices = self.by_path.entry(new).or_default();
            if let Err(at) = indices.binary_search(&index) {
                indices.insert(at, index);
            }
        }
    }

    /// Judges the promotion candidates against the intact entries, and
    /// drops what a broken entry makes unknowable, as a full analysis does.
    fn rejudge(&mut self) {
        let (slots, by_path) = (&self.slots, &self.by_path);
        let named = |path: &str| {
            let mut intact = by_path.get(path)?.iter().filter(|&&j| !slots[j].broken);
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

/// Parses and checks an entry's text on its own, in offsets of the whole
/// text, with its membership left to the caller. None unless it parses in
/// place as one complete object (see [`EntryText`]): the whole text then
/// parses with that object there, syntax errors and all, and the rest of
/// the text as before.
fn check_alone(text: String, range: TextRange, index: usize) -> Option<Slot> {
    if text.len() != range.len() {
        return None;
    }
    let entry = EntryText::parse(&text)?;
    let item = entry.item()?;
    let (mut facts, mut diagnostics) = validate::check_entry_alone(entry.text(), item, index);
    diagnostics.extend(entry.errors().iter().map(syntax_diagnostic));
    let shift = Shift {
        from: 0,
        delta: range.start as isize - entry.offset() as isize,
    };
    facts.shift(shift);
    for diagnostic in &mut diagnostics {
        diagnostic.shift(shift);
    }
    Some(Slot {
        facts,
        diagnostics,
        object: true,
        broken: item.is_broken(),
        syntax_errors: entry.errors().len() as u32,
        omitted: Omitted::default(),
    })
}

/// The entries' facts as slots. Taken from the end and freed as it goes, so
/// that two million entries are not held twice at once.
fn into_slots(entries: &mut Vec<EntryFacts>, mut items: Vec<(bool, bool, TextRange)>) -> Vec<Slot> {
    const STEP: usize = 1 << 16;
    let mut slots = Vec::with_capacity(entries.len());
    while let Some(facts) = entries.pop() {
        let (object, broken, _) = items.pop().expect("as many items as entries");
        slots.push(Slot {
            facts,
            diagnostics: Vec::new(),
            object,
            broken,
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

/// The index of the item range that holds `offset`.
fn slot_range_at(items: &[(bool, bool, TextRange)], offset: usize) -> Option<usize> {
    let after = items.partition_point(|(_, _, range)| range.start <= offset);
    let i = after.checked_sub(1)?;
    (offset < items[i].2.end).then_some(i)
}

/// Codes of syntax errors, which a broken entry keeps as its only diagnostics.
fn is_syntax(code: Code) -> bool {
    matches!(
        code,
        Code::SyntaxError | Code::DuplicateKey | Code::NestingTooDeep | Code::InvalidUtf8
    )
}

/// The slot whose range holds `offset`.
fn slot_at(slots: &[Slot], offset: usize) -> Option<usize> {
    let after = slots.partition_point(|s| s.facts.range.start <= offset);
    let i = after.checked_sub(1)?;
    (offset < slots[i].facts.range.end).then_some(i)
}

/// Diagnostics of the promotion-candidate judgement, recomputed from the entries.
fn is_judgement(code: Code) -> bool {
    matches!(
        code,
        Code::PromotionCandidateUnknownEntry | Code::PromotionCandidateNotClassifierJudged
    )
}
