//! An entry's slot: its facts and diagnostics, how a full analysis's entry
//! becomes one and how an entry's text checked alone does (`check_alone`),
//! what puts back an edit within one entry (`Undo`), and `Totals`, what
//! the slots hold in all. `Incremental` checks its slots again and renders
//! their diagnostics in `recheck.rs`.

use std::sync::OnceLock;

use crate::analysis::syntax_diagnostic;
use crate::diagnostic::{Code, Diagnostic, OmittedCount, rank};
use crate::entry_text::EntryText;
use crate::syntax::{self, Value};
use crate::text::{Shift, TextRange};
use crate::validate::{self, EntryFacts, Shortlist, check_membership, classifier_judged};

use super::messages::Template;

/// The one edit since the last update, within entry `slot`: moved by
/// `shift`, the entry was `old`, the text `len` long.
#[derive(Clone, Debug)]
pub(super) struct Undo {
    pub(super) slot: usize,
    pub(super) shift: Shift,
    pub(super) old: Slot,
    pub(super) len: usize,
}

#[derive(Clone, Debug)]
pub(super) struct Slot {
    pub(super) facts: EntryFacts,
    /// Its syntax errors, its own checks' diagnostics and its membership
    /// one, sorted, with messages that name the entry as `entries[rendered]`.
    /// When entries are added or removed before it, `facts.index` moves and
    /// these are rendered again on demand, from the template.
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The index its diagnostics' texts were written with.
    pub(super) rendered: usize,
    /// Its diagnostics with the places where their texts write the entry's
    /// index, made from the entry's text the first time they are rendered
    /// for another index. Boxed: most slots never need one, and a report
    /// keeps a slot an entry.
    pub(super) template: OnceLock<Option<Box<Template>>>,
    /// Whether the entry is an object: only edits inside objects are tracked.
    pub(super) object: bool,
    /// Whether a syntax error broke it: it then has no checks, no
    /// membership, and makes the candidates naming its path unknowable.
    pub(super) broken: bool,
    /// When its `}` is missing before the next entry or the array's `]`,
    /// which close it where its last value ends (see
    /// [`EntryText::parse_unclosed`]): where its text then ends, the next
    /// entry's start (that entry must stay whole, and is not edited while it
    /// is so) or the `]`.
    pub(super) unclosed: Option<usize>,
    /// How many syntax errors it holds.
    pub(super) syntax_errors: u32,
    /// Its diagnostics the analysis left out, each ranking after every kept one.
    pub(super) omitted: OmittedCount,
}

/// What an update asks of all the slots at once, kept as slots change, so
/// that a keystroke does not read every slot to ask it (`Totals::of` is
/// the reading, which debug builds compare with after each update).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Totals {
    /// The slots' diagnostics.
    pub diagnostics: usize,
    pub syntax_errors: usize,
    /// Slots a syntax error broke.
    pub broken: usize,
    /// Slots that are not objects.
    pub scalars: usize,
}

impl Totals {
    pub(super) fn of(slots: &[Slot]) -> Totals {
        let mut totals = Totals::default();
        for slot in slots {
            totals.add(slot);
        }
        totals
    }

    pub(super) fn add(&mut self, slot: &Slot) {
        self.diagnostics += slot.diagnostics.len();
        self.syntax_errors += slot.syntax_errors as usize;
        self.broken += usize::from(slot.broken);
        self.scalars += usize::from(!slot.object);
    }

    pub(super) fn remove(&mut self, slot: &Slot) {
        self.diagnostics -= slot.diagnostics.len();
        self.syntax_errors -= slot.syntax_errors as usize;
        self.broken -= usize::from(slot.broken);
        self.scalars -= usize::from(!slot.object);
    }
}

/// Whether the candidates are judged again after entry `old` became `new`.
pub(super) fn judged_again(old: &Slot, new: &Slot) -> bool {
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
pub(super) fn check_alone(
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
pub(super) fn slot_of(
    entry: &EntryText,
    start: usize,
    index: usize,
    shortlist: Option<&Shortlist>,
) -> Option<Slot> {
    let item = entry.item()?;
    let (mut facts, mut diagnostics) = validate::check_entry_alone(entry.text(), item, index);
    diagnostics.extend(entry.errors().iter().map(syntax_diagnostic));
    let shift = entry.to_document(start);
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
        omitted: OmittedCount::default(),
    })
}

impl Slot {
    /// Moves an entry after `shifts`, edits before it whose deltas sum to
    /// `delta`: its own offsets by `delta`, its diagnostics (which may
    /// point before the edits, or between them) by each edit in turn.
    pub(super) fn move_by(&mut self, delta: isize, shifts: &[Shift]) {
        let whole = Shift { from: 0, delta };
        self.facts.shift(whole);
        if let Some(end) = &mut self.unclosed {
            *end = whole.offset(*end);
        }
        let template = self.template.get_mut().and_then(Option::as_mut);
        let template = template.into_iter().flat_map(|t| &mut t.diagnostics);
        for diagnostic in self.diagnostics.iter_mut().chain(template) {
            for &shift in shifts {
                diagnostic.shift(shift);
            }
        }
    }

    /// Moves every offset it holds.
    pub(super) fn shift(&mut self, shift: Shift) {
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

/// The entries' facts as slots. Taken from the end and freed as it goes, so
/// that two million entries are not held twice at once.
pub(super) fn into_slots(entries: &mut Vec<EntryFacts>, mut items: Vec<Item>) -> Vec<Slot> {
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
            omitted: OmittedCount::default(),
        });
        if entries.len().is_multiple_of(STEP) {
            entries.shrink_to_fit();
        }
    }
    slots.reverse();
    slots
}

/// How a full analysis' entry `node` (of `text`) is kept, given the item
/// after it or (the last) the array's `]` at `bracket`.
pub(super) fn item_of(
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
pub(super) struct Item {
    /// An object whose text parses in place (see [`Slot::object`]).
    pub(super) object: bool,
    pub(super) broken: bool,
    pub(super) unclosed: bool,
    /// Its text: the object's range, up to the next item's for one unclosed.
    pub(super) extent: TextRange,
}

/// The index of the item whose text holds `offset`.
pub(super) fn slot_range_at(items: &[Item], offset: usize) -> Option<usize> {
    let after = items.partition_point(|item| item.extent.start <= offset);
    let i = after.checked_sub(1)?;
    (offset < items[i].extent.end).then_some(i)
}

/// How many diagnostics there are, and the worst ranked of them.
pub(super) fn worst_of<'d>(
    diagnostics: impl Iterator<Item = &'d Diagnostic>,
) -> (usize, Option<&'d Diagnostic>) {
    let (mut count, mut worst) = (0, None::<&Diagnostic>);
    for diagnostic in diagnostics {
        count += 1;
        if worst.is_none_or(|w| rank(diagnostic, w).is_gt()) {
            worst = Some(diagnostic);
        }
    }
    (count, worst)
}

/// Codes of syntax errors, which a broken entry keeps as its only diagnostics.
pub(super) fn is_syntax(code: Code) -> bool {
    matches!(
        code,
        Code::SyntaxError | Code::DuplicateKey | Code::NestingTooDeep | Code::InvalidUtf8
    )
}

/// The slot whose text holds `offset` (see [`extent`]).
pub(super) fn slot_at(slots: &[Slot], offset: usize) -> Option<usize> {
    let after = slots.partition_point(|s| s.facts.range.start <= offset);
    let i = after.checked_sub(1)?;
    (offset < extent(slots, i).end).then_some(i)
}

/// The text of slot `i`: its entry's range, and for one unclosed (see
/// [`Slot::unclosed`]) up to the next entry's start or the array's `]`.
pub(super) fn extent(slots: &[Slot], i: usize) -> TextRange {
    let slot = &slots[i];
    match slot.unclosed {
        Some(end) => TextRange::new(slot.facts.range.start, end),
        None => slot.facts.range,
    }
}
