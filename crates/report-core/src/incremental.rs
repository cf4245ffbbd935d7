//! Per-entry incremental analysis. A report is an object with a few large
//! arrays; an edit within one object of `entries` (its braces included: a
//! whole entry pasted over another is one) changes that entry only, plus the
//! facts that cross entries (shortlist membership and promotion candidates). [`Incremental`] keeps each entry's facts and
//! diagnostics, moves the offsets of everything after an edit, and parses
//! and checks again only the edited entries.
//!
//! Why the result equals a full analysis of the new text: the whole text
//! parsed without errors, and the edited entry's new text (from its old
//! start to its old end moved by the edit) parses on its own as exactly one
//! object, also without errors. The text around it is unchanged, and strict
//! JSON is lexed the same way from a `{` in value position whatever precedes
//! it, so the whole text parses as before with that object in place of the
//! old one, and the checks of every other entry see the same nodes. An edit
//! that adds or removes an entry, or spills past one, fails that test. Anything else (an edit between
//! entries or in the envelope, an entry that no longer parses alone, a text
//! with syntax errors) is refused, and the caller analyses the whole text.
//! `tests/incremental.rs` compares both after random edits.

use std::collections::HashMap;
use std::sync::Arc;

use crate::Analysis;
use crate::diagnostic::{Code, Diagnostic};
use crate::schema::ENTRY_DEPTH;
use crate::syntax::{self, Value};
use crate::text::{Shift, TextRange};
use crate::validate::{
    self, Candidate, EntryFacts, Shortlist, check_membership, classifier_judged, judge,
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
    /// Entry indices by path, ascending; kept only when there are candidates.
    by_path: HashMap<String, Vec<usize>>,
    /// Entries edited since the last [`Incremental::update`], ascending.
    dirty: Vec<usize>,
    /// Set when an edit was refused: nothing more can be tracked.
    refused: bool,
}

#[derive(Clone, Debug)]
struct Slot {
    facts: EntryFacts,
    /// Its own checks' diagnostics and its membership one, sorted.
    diagnostics: Vec<Diagnostic>,
    /// Whether the entry is an object: only edits inside objects are tracked.
    object: bool,
}

impl Incremental {
    /// The per-entry form of a full analysis, or None when the text has
    /// syntax errors or its entries were not checked.
    pub fn new(analysis: &Analysis) -> Option<Incremental> {
        Incremental::from_analysis(analysis.clone()).ok()
    }

    /// Like [`Incremental::new`], taking the analysis apart instead of
    /// copying it (the tree and text are freed first); gives it back when it
    /// has no per-entry form.
    pub fn from_analysis(analysis: Analysis) -> Result<Incremental, Box<Analysis>> {
        let objects: Option<Vec<bool>> = analysis
            .cross
            .as_ref()
            .filter(|_| analysis.parse.errors.is_empty())
            .and_then(|_| analysis.root()?.get("entries")?.items())
            .map(|items| {
                items
                    .map(|item| matches!(item.value(), Value::Object))
                    .collect()
            });
        let objects = match objects {
            Some(objects) if objects.len() == analysis.entries.len() => objects,
            _ => return Err(Box::new(analysis)),
        };
        let Analysis {
            text,
            parse,
            diagnostics,
            entries,
            cross,
            ..
        } = analysis;
        let len = text.len();
        drop(parse);
        drop(text);
        let cross = cross.expect("checked above");
        let mut slots: Vec<Slot> = entries
            .into_iter()
            .zip(objects)
            .map(|(facts, object)| Slot {
                facts,
                diagnostics: Vec::new(),
                object,
            })
            .collect();
        let mut outside = Vec::new();
        let mut judged = Vec::new();
        for diagnostic in diagnostics {
            if is_judgement(diagnostic.code) {
                judged.push(diagnostic);
            } else if let Some(i) = slot_at(&slots, diagnostic.range.start) {
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
            by_path,
            dirty: Vec::new(),
            refused: false,
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
    /// was replaced by `new_len` bytes. False when the edit is not within one
    /// entry object (braces included): the state is then unusable, and the
    /// whole text must be analysed.
    pub fn edit(&mut self, range: TextRange, new_len: usize) -> bool {
        let inside = slot_at(&self.slots, range.start).filter(|&i| {
            let entry = self.slots[i].facts.range;
            // An insertion right before the `{` lands between two entries.
            let before = range.is_empty() && range.start == entry.start;
            self.slots[i].object && range.end <= entry.end && !before
        });
        let Some(i) = inside.filter(|_| !self.refused && range.end <= self.len) else {
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
        self.len = shift.offset(self.len);
        if let Err(at) = self.dirty.binary_search(&i) {
            self.dirty.insert(at, i);
        }
        true
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
            let Some((facts, mut diagnostics)) = check_alone(read(range), range, i) else {
                self.refused = true;
                return false;
            };
            if let Some(shortlist) = &self.shortlist {
                diagnostics.extend(check_membership(shortlist, &facts));
            }
            diagnostics.sort_by(Diagnostic::order);
            let old = std::mem::replace(
                &mut self.slots[i],
                Slot {
                    facts,
                    diagnostics,
                    object: true,
                },
            );
            let new = &self.slots[i].facts;
            let path_changed =
                old.facts.path.as_ref().map(|p| &p.0) != new.path.as_ref().map(|p| &p.0);
            rejudge |= path_changed || classifier_judged(&old.facts) != classifier_judged(new);
            if !self.candidates.is_empty() && path_changed {
                let new_path = new.path.as_ref().map(|(p, _)| p.clone());
                self.move_path(i, old.facts.path.map(|(p, _)| p), new_path);
            }
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

    /// The facts of each entry, in order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &EntryFacts> {
        self.slots.iter().map(|s| &s.facts)
    }

    /// The entry object whose range holds `offset`, if any.
    pub fn entry_at(&self, offset: usize) -> Option<&EntryFacts> {
        let i = slot_at(&self.slots, offset)?;
        self.slots[i].object.then(|| &self.slots[i].facts)
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

    fn rejudge(&mut self) {
        let (slots, by_path) = (&self.slots, &self.by_path);
        let named = |path: &str| {
            let indices = by_path.get(path)?;
            let judged = indices.iter().any(|&j| classifier_judged(&slots[j].facts));
            Some((judged, &slots[*indices.first()?].facts))
        };
        let mut judged = Vec::new();
        judge(&self.candidates, named, &mut judged);
        judged.sort_by(Diagnostic::order);
        self.judged = judged;
    }
}

/// Parses and checks an entry's text on its own, in offsets of the whole
/// text; None unless it is exactly one object without syntax errors.
fn check_alone(
    text: String,
    range: TextRange,
    index: usize,
) -> Option<(EntryFacts, Vec<Diagnostic>)> {
    if text.len() != range.len() {
        return None;
    }
    let text = Arc::new(text);
    let parse = syntax::parse_nested(text.clone(), ENTRY_DEPTH);
    let root = parse.root().filter(|_| parse.errors.is_empty())?;
    if !matches!(root.value(), Value::Object) || root.range() != TextRange::new(0, text.len()) {
        return None;
    }
    let (mut facts, mut diagnostics) = validate::check_entry_alone(&text, root, index);
    let shift = Shift {
        from: 0,
        delta: range.start as isize,
    };
    facts.shift(shift);
    for diagnostic in &mut diagnostics {
        diagnostic.shift(shift);
    }
    Some((facts, diagnostics))
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
