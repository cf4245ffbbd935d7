//! The checks of every invariant of the report schema over a parsed tree.
//!
//! Each entry is checked on its own ([`entry::check_entry`] sees only the
//! entry's node), producing its diagnostics and a small [`EntryFacts`]; the
//! facts that cross entries (shortlist membership, promotion candidates) are
//! checked afterwards from those facts. That split is what lets a later
//! incremental reparse recheck only the entry that changed.

mod entry;
mod envelope;
mod exact_edit;
mod lifecycle;
mod promotion;
mod safety_tier;
mod shortlist;

pub(crate) use envelope::check_generated_at;
pub(crate) use exact_edit::parse_canonical_ref;
pub(crate) use promotion::{Candidate, classifier_judged, judge};
pub(crate) use shortlist::{Item as ShortlistItem, Shortlist, check_item_alone, check_membership};

use std::fmt;

use crate::diagnostic::{Code, Collector, Diagnostic, Keep, Omitted};
use crate::schema::{ClosedEnum, SafetyTier};
use crate::syntax::{JsonType, Member, Node, Value};
use crate::text::{Shift, TextRange};
use crate::tier::{Derivation, Evidence};

/// What the checks learnt about one entry, for the cross-entry checks, the
/// hover and the fixes.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryFacts {
    /// Position in `entries`.
    pub index: usize,
    pub range: TextRange,
    /// `path` and the range of its value, when it is a string.
    pub path: Option<(String, TextRange)>,
    /// The evidence of the entry's lifecycle objects, when it has any.
    pub evidence: Option<(Evidence, TextRange)>,
    /// Boxed, as is the summary: an entry that is no object has neither,
    /// and a report of two million scalars keeps two million facts.
    pub tier: Option<Box<TierCheck>>,
    /// What the outline, the inlay hints and the token roll-ups show of it
    /// (see [`EntryFacts::summary`]); None for an entry that is no object.
    pub summary: Option<Box<EntrySummary>>,
    /// Where it names project files besides its `path`, and the lines its
    /// `path` points at; None when it names no other and has no anchor.
    pub links: Option<Box<EntryLinks>>,
}

/// A range inside an entry object, counted from the entry's start. The
/// facts behind a box keep their ranges so: an edit before the entry moves
/// its start alone, and a keystroke moves each entry after it without
/// reading its boxes (see [`EntryFacts::shift`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InEntry(TextRange);

impl InEntry {
    /// `range`, inside the entry that starts at `entry_start`.
    pub fn new(range: TextRange, entry_start: usize) -> InEntry {
        // Built as `Shift::range` builds: in the entry an edit is inside,
        // a deletion that cuts a value's start leaves its range inverted
        // until the entry is checked again.
        InEntry(TextRange {
            start: range.start.saturating_sub(entry_start),
            end: range.end.saturating_sub(entry_start),
        })
    }

    /// The range in the document, for the entry that starts at `entry_start`.
    pub fn at(self, entry_start: usize) -> TextRange {
        TextRange {
            start: self.0.start + entry_start,
            end: self.0.end + entry_start,
        }
    }

    /// Moved by an edit inside the entry that starts at `entry_start`, which
    /// the edit leaves in place.
    fn shift(&mut self, shift: Shift, entry_start: usize) {
        *self = InEntry::new(shift.range(self.at(entry_start)), entry_start);
    }
}

/// Where an entry names project files, for document links and definition
/// without a parse: the ranges of the values, whose text is read from the
/// document when asked (the entry's `path` is in [`EntryFacts::path`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryLinks {
    /// The exact edit's anchor lines (1-based, inclusive): where its `path` opens.
    pub anchor: Option<(u64, u64)>,
    /// The other string values naming a file, in document order: each
    /// value's range (quotes included), and whether it is a `canonical_ref`
    /// (`path#L<start>-L<end>`, which names its lines too). Only values that
    /// name a root-relative path are kept.
    pub others: Box<[(InEntry, bool)]>,
}

impl EntryLinks {
    /// What an entry object (intact or broken) names: `served_when_path` of
    /// its lifecycle objects, its exact edit's `dest_path`, `target_doc`
    /// (of a repo-durable extraction) and `canonical_ref`.
    pub(crate) fn of(entry: Node<'_>) -> Option<Box<EntryLinks>> {
        let start = entry.range().start;
        let edit = entry.get("exact_edit");
        let anchor = edit.and_then(|e| e.get("anchor")).and_then(|a| {
            let line = |key| match a.get(key)?.value() {
                Value::Number(n) => n.parse::<u64>().ok().filter(|&n| n >= 1),
                _ => None,
            };
            let (start, end) = (line("start_line")?, line("end_line")?);
            (start <= end).then_some((start, end))
        });
        let mut others = Vec::new();
        let mut add = |node: Option<Node<'_>>| {
            if let Some(node) = node
                && let Some(path) = node.as_str()
                && names_project_file(path)
            {
                others.push((InEntry::new(node.range(), start), false));
            }
        };
        add(entry.lookup("/lifecycle/served_when_path"));
        if let Some(edit) = edit {
            add(edit.lookup("/lifecycle/served_when_path"));
            add(edit.get("dest_path"));
            if edit.get("extraction_target").and_then(Node::as_str) == Some("repo-durable") {
                add(edit.get("target_doc"));
            }
            if let Some(node) = edit.get("canonical_ref")
                && let Some(Ok((path, _, _))) = node.as_str().map(parse_canonical_ref)
                && names_project_file(path)
            {
                others.push((InEntry::new(node.range(), start), true));
            }
        }
        others.sort_by_key(|(range, _)| range.0.start);
        (anchor.is_some() || !others.is_empty()).then(|| {
            Box::new(EntryLinks {
                anchor,
                others: others.into_boxed_slice(),
            })
        })
    }

    fn shift(&mut self, shift: Shift, entry_start: usize) {
        for (range, _) in &mut self.others {
            range.shift(shift, entry_start);
        }
    }
}

/// Whether a string value names a file of the project: a non-empty
/// root-relative path (never absolute, never `..`).
pub(crate) fn names_project_file(path: &str) -> bool {
    !path.is_empty() && relative_path_problem(path).is_none()
}

/// The summary of an entry that has none.
static NO_SUMMARY: EntrySummary = EntrySummary {
    class: None,
    subtype: None,
    op: None,
    raw_tokens: None,
    injection: None,
    weighted_tokens: None,
};

/// An entry's classification and token estimate as far as they are valid:
/// what editor features show without reparsing it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntrySummary {
    pub class: Option<crate::schema::CategoryClass>,
    pub subtype: Option<crate::schema::CategorySubtype>,
    /// The op, or its exact edit's kind when it has one.
    pub op: Option<String>,
    /// `token_estimate.raw_tokens` and the range of its value.
    pub raw_tokens: Option<(u64, InEntry)>,
    pub injection: Option<crate::schema::InjectionFrequency>,
    pub weighted_tokens: Option<f64>,
}

impl EntrySummary {
    /// Reads what is valid of an entry object; checks report the rest.
    pub(crate) fn of(entry: Node<'_>) -> EntrySummary {
        use crate::schema::{CategoryClass, CategorySubtype, EditKind, InjectionFrequency};
        fn text(node: Option<Node<'_>>) -> Option<&str> {
            node.and_then(Node::as_str)
        }
        let start = entry.range().start;
        let category = entry.get("category");
        let estimate = entry.get("token_estimate");
        let kind = text(entry.get("exact_edit").and_then(|e| e.get("kind")));
        let op = kind
            .filter(|k| EditKind::parse(k).is_some())
            .or(text(entry.get("op")));
        let raw_tokens = estimate
            .and_then(|e| e.get("raw_tokens"))
            .and_then(|n| match n.value() {
                Value::Number(raw) => Some((parse_count(raw)?, InEntry::new(n.range(), start))),
                _ => None,
            });
        EntrySummary {
            class: text(category.and_then(|c| c.get("class"))).and_then(CategoryClass::parse),
            subtype: text(category.and_then(|c| c.get("subtype"))).and_then(CategorySubtype::parse),
            op: op.map(str::to_string),
            raw_tokens,
            injection: text(estimate.and_then(|e| e.get("injection_frequency")))
                .and_then(InjectionFrequency::parse),
            weighted_tokens: estimate
                .and_then(|e| e.get("weighted_tokens"))
                .and_then(|n| match n.value() {
                    Value::Number(raw) => raw.parse().ok(),
                    _ => None,
                }),
        }
    }
}

/// The safety tier of one entry: the derivation from its recorded inputs,
/// every tier consistent with the text, and what the entry records.
#[derive(Clone, Debug, PartialEq)]
pub struct TierCheck {
    pub derivation: Derivation,
    /// The tiers `derive_safety_tier` gives for some git state (see `tier::possible_tiers`).
    pub possible: Vec<SafetyTier>,
    /// Set when the exact edit's kind is characterized otherwise than the
    /// entry's booleans say, and that would change the tier.
    pub by_kind: Option<KindTiers>,
    /// The recorded `safety_tier` when it is a known tier.
    pub recorded: Option<SafetyTier>,
    /// The range of the recorded `safety_tier` value.
    pub recorded_range: Option<InEntry>,
}

/// What `derive_safety_tier` gives with the inputs an exact-edit kind fixes
/// (`is_destructive`, `is_reversible`) in place of the recorded ones.
#[derive(Clone, Debug, PartialEq)]
pub struct KindTiers {
    pub kind: crate::schema::EditKind,
    pub possible: Vec<SafetyTier>,
}

impl TierCheck {
    pub fn agrees(&self) -> bool {
        self.recorded.is_none_or(|r| self.possible.contains(&r))
    }
}

impl EntryFacts {
    /// What the outline, the inlay hints and the token roll-ups show of it.
    pub fn summary(&self) -> &EntrySummary {
        self.summary.as_deref().unwrap_or(&NO_SUMMARY)
    }

    /// Moves every range it holds.
    pub fn shift(&mut self, shift: Shift) {
        let start = self.range.start;
        self.range = shift.range(self.range);
        if let Some((_, range)) = &mut self.path {
            *range = shift.range(*range);
        }
        if let Some((_, range)) = &mut self.evidence {
            *range = shift.range(*range);
        }
        // The entry moves as a whole (the usual case: an edit before it)
        // when its start moves; else the edit is inside it, and what its
        // boxes hold after the edit moves within it.
        if shift.from > start {
            if let Some(range) = self.tier.as_mut().and_then(|t| t.recorded_range.as_mut()) {
                range.shift(shift, start);
            }
            if let Some((_, range)) = self.summary.as_mut().and_then(|s| s.raw_tokens.as_mut()) {
                range.shift(shift, start);
            }
            if let Some(links) = &mut self.links {
                links.shift(shift, start);
            }
        }
    }
}

/// Everything the checks of one report produce.
#[derive(Clone, Debug, Default)]
pub struct Validation {
    /// In no particular order.
    pub diagnostics: Vec<Diagnostic>,
    /// Those the [`Keep`] left out.
    pub omitted: Omitted,
    pub entries: Vec<EntryFacts>,
    /// What rechecking entries one at a time needs; None when the entries
    /// were not checked (the envelope stopped the checks, or `entries` is
    /// not an array).
    pub(crate) cross: Option<CrossEntry>,
}

/// What the checks across entries need besides the entries' facts.
#[derive(Clone, Debug)]
pub(crate) struct CrossEntry {
    pub shortlist: Option<Shortlist>,
    pub candidates: Vec<Candidate>,
    /// The report's own members, in order, for the outline.
    pub members: Vec<TopMember>,
}

/// A member of the report object: its key and where key and value are.
#[derive(Clone, Debug, PartialEq)]
pub struct TopMember {
    pub key: String,
    pub key_range: TextRange,
    pub value_range: TextRange,
    /// How many items its value has, when it is an array.
    pub items: Option<usize>,
}

impl TopMember {
    /// The member `key` of `members` when its value is an array.
    pub fn array<'m>(members: &'m [TopMember], key: &str) -> Option<&'m TopMember> {
        members.iter().find(|m| m.key == key && m.items.is_some())
    }

    /// The same, to change.
    pub fn array_mut<'m>(members: &'m mut [TopMember], key: &str) -> Option<&'m mut TopMember> {
        members
            .iter_mut()
            .find(|m| m.key == key && m.items.is_some())
    }

    pub fn shift(&mut self, shift: Shift) {
        self.key_range = shift.range(self.key_range);
        self.value_range = shift.range(self.value_range);
    }
}

/// Where the entries' checks run: the caller's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryChecks {
    /// On the calling thread.
    OneThread,
    /// From [`SPLIT_FROM_ENTRIES`] entries, the second half on a scoped
    /// thread: each entry's checks read the entry alone, and at 50 000
    /// entries they take about 100 ms of one core. For a process that ends
    /// after (`check` of one file): glibc keeps the heap of the thread that
    /// made the entries' facts when they are freed, so a server that closes
    /// the document would not get that memory back.
    TwoThreads,
}

/// From how many entries [`EntryChecks::TwoThreads`] splits them.
const SPLIT_FROM_ENTRIES: usize = 4096;

/// Each entry's checks and facts, and which entries a syntax error broke
/// (in order). From `split_from` entries the second half is checked on a
/// scoped thread into a sink of its own, merged after: the cap keeps the
/// best-ranked diagnostics of both, as one pass would. Where no thread can
/// be started, one pass does it all.
fn check_entries(
    sink: &mut Sink<'_>,
    items: &[Node<'_>],
    split_from: usize,
) -> (Vec<EntryFacts>, Vec<usize>) {
    if items.len() < split_from.max(2) {
        return check_entry_run(sink, items, 0);
    }
    let (first, second) = items.split_at(items.len() / 2);
    let (text, keep) = (sink.text, sink.out.keep());
    std::thread::scope(|scope| {
        // The stack every analysis thread gets: an entry's checks recurse
        // (two lifecycles compared, hundreds of levels deep).
        let later = std::thread::Builder::new()
            .name("entry-checks".into())
            .stack_size(crate::ANALYSIS_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let mut own = Sink::new(text, keep);
                let checked = check_entry_run(&mut own, second, first.len());
                (checked, own.out)
            });
        let Ok(later) = later else {
            return check_entry_run(sink, items, 0);
        };
        let (mut entries, mut broken) = check_entry_run(sink, first, 0);
        let ((more, more_broken), out) = later
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        entries.extend(more);
        broken.extend(more_broken);
        sink.out.absorb(out);
        (entries, broken)
    })
}

/// The checks of `items`, the first of them entry `first`.
fn check_entry_run(
    sink: &mut Sink<'_>,
    items: &[Node<'_>],
    first: usize,
) -> (Vec<EntryFacts>, Vec<usize>) {
    let mut entries = Vec::with_capacity(items.len());
    let mut broken = Vec::new();
    for (index, &item) in (first..).zip(items) {
        if item.is_broken() {
            broken.push(index);
            entries.push(broken_entry(item, index));
        } else {
            entries.push(entry::check_entry(sink, item, index));
        }
    }
    (entries, broken)
}

/// Checks a parsed report. A report with syntax errors is checked where it
/// parsed intact: an entry, shortlist item, promotion candidate or envelope
/// field that a syntax error broke ([`Node::is_broken`]) loses its checks,
/// and the checks across entries say nothing they cannot know because of it.
pub fn validate(text: &str, root: Node<'_>, keep: Keep) -> Validation {
    validate_with(text, root, keep, EntryChecks::OneThread)
}

/// Like [`validate`], with the entries' checks where `checks` says.
pub fn validate_with(text: &str, root: Node<'_>, keep: Keep, checks: EntryChecks) -> Validation {
    // A broken text that does not even look like a report: nothing certain to say.
    if root.is_broken() && !crate::selection::looks_like_report(root) {
        return Validation::default();
    }
    let mut sink = Sink::new(text, keep);
    let Some(report) = envelope::check_envelope(&mut sink, root) else {
        let (mut diagnostics, mut omitted) = sink.out.finish();
        drop_broken(root, &mut diagnostics, &mut omitted);
        return Validation {
            diagnostics,
            omitted,
            ..Validation::default()
        };
    };
    let shortlist = report
        .shortlist
        .map(|node| shortlist::check_shortlist(&mut sink, node));
    let candidates = report
        .promotion_candidates
        .map(|node| promotion::check_candidates(&mut sink, node))
        .unwrap_or_default();
    let items: Vec<Node<'_>> = report
        .entries
        .and_then(Node::items)
        .into_iter()
        .flatten()
        .collect();
    let split_from = match checks {
        EntryChecks::OneThread => usize::MAX,
        EntryChecks::TwoThreads => SPLIT_FROM_ENTRIES,
    };
    let (entries, broken) = check_entries(&mut sink, &items, split_from);
    let intact = |entry: &&EntryFacts| broken.binary_search(&entry.index).is_err();
    // A broken shortlist may have held any path.
    if let Some(shortlist) = &shortlist
        && !report.shortlist.is_some_and(Node::is_broken)
    {
        let missing = entries
            .iter()
            .filter(intact)
            .filter_map(|entry| shortlist::check_membership(shortlist, entry));
        for diagnostic in missing {
            sink.push(diagnostic);
        }
    }
    let mut judged = Vec::new();
    if broken.is_empty() {
        promotion::judge_all(&candidates, &entries, &mut judged);
    } else {
        let intact: Vec<EntryFacts> = entries.iter().filter(intact).cloned().collect();
        promotion::judge_all(&candidates, &intact, &mut judged);
    }
    if root.is_broken() {
        drop_unknowable_judgements(root, &report, &entries, &broken, &mut judged);
    }
    for diagnostic in judged {
        sink.push(diagnostic);
    }
    let (mut diagnostics, mut omitted) = sink.out.finish();
    if root.is_broken() {
        drop_broken(root, &mut diagnostics, &mut omitted);
    }
    Validation {
        diagnostics,
        omitted,
        entries,
        cross: report.entries.is_some().then(|| CrossEntry {
            shortlist,
            candidates,
            members: top_members(root),
        }),
    }
}

fn top_members(root: Node<'_>) -> Vec<TopMember> {
    root.members()
        .into_iter()
        .flatten()
        .map(|member| TopMember {
            key: member.key.to_string(),
            key_range: member.key_range,
            value_range: member.value.range(),
            items: member.value.items().map(|items| items.count()),
        })
        .collect()
}

/// The facts of an entry a syntax error broke: only where it is, and its
/// path when that parsed intact (to know which promotion candidates may name it).
fn broken_entry(item: Node<'_>, index: usize) -> EntryFacts {
    EntryFacts {
        index,
        range: item.range(),
        path: item
            .get("path")
            .and_then(|node| Some((node.as_str()?.to_string(), node.range()))),
        evidence: None,
        tier: None,
        summary: None,
        links: EntryLinks::of(item),
    }
}

/// Removes the promotion-candidate judgements that a broken entry makes
/// unknowable: a candidate whose path a broken entry has (or may have, when
/// its path is unreadable or entries are missing) may name it.
fn drop_unknowable_judgements(
    root: Node<'_>,
    report: &envelope::Envelope<'_>,
    entries: &[EntryFacts],
    broken: &[usize],
    judged: &mut Vec<Diagnostic>,
) {
    let entries_lost = match root.get("entries") {
        Some(node) => node.is_error() || node.is_incomplete(),
        None => root.is_incomplete(),
    };
    let mut paths = Vec::new();
    let mut any_path = entries_lost;
    for &index in broken {
        match &entries[index].path {
            Some((path, _)) => paths.push(path.as_str()),
            None => any_path = true,
        }
    }
    if any_path {
        judged.clear();
        return;
    }
    let uncertain: Vec<TextRange> = report
        .promotion_candidates
        .and_then(Node::items)
        .into_iter()
        .flatten()
        .filter_map(|item| item.get("path"))
        .filter(|path| path.as_str().is_some_and(|p| paths.contains(&p)))
        .map(Node::range)
        .collect();
    judged.retain(|d| !uncertain.contains(&d.range));
}

/// Removes what the checks said inside the parts a syntax error broke, and
/// the missing fields of a report whose members may be lost.
fn drop_broken(root: Node<'_>, diagnostics: &mut Vec<Diagnostic>, omitted: &mut Omitted) {
    let mut regions = Vec::new();
    for member in root.members().into_iter().flatten() {
        let value = member.value;
        if !member.is_broken() {
            continue;
        }
        match (member.key, value.items()) {
            (_, _) if !value.is_broken() => regions.push(member.range()),
            ("shortlist" | "entries" | "promotion_candidates", Some(items)) => {
                regions.extend(items.filter(|item| item.is_broken()).map(Node::range));
            }
            _ => regions.push(member.range()),
        }
    }
    let lost_members = root.is_incomplete();
    diagnostics.retain(|d| {
        let inside = regions
            .iter()
            .any(|r| r.start <= d.range.start && d.range.end <= r.end);
        let lost =
            lost_members && d.code == Code::MissingField && d.range == missing_key_range(root);
        !inside && !lost
    });
    // Of one left out only its start is known; what starts in a region lies in it.
    omitted.retain(|o| {
        let start = o.start as usize;
        !regions.iter().any(|r| r.start <= start && start < r.end)
    });
}

/// The facts of one entry as its checks find them, broken or not: what the
/// fields that parsed say (for completion while the entry is half-typed).
pub(crate) fn entry_facts_as_parsed(text: &str, node: Node<'_>, index: usize) -> EntryFacts {
    let mut sink = Sink::new(text, Keep::ALL);
    entry::check_entry(&mut sink, node, index)
}

/// Checks one entry on its own: `text` is the entry's text alone and `node`
/// its root. What [`validate`] finds for it, membership aside, in offsets
/// into `text`.
pub(crate) fn check_entry_alone(
    text: &str,
    node: Node<'_>,
    index: usize,
) -> (EntryFacts, Vec<Diagnostic>) {
    // A syntax error broke it: as in [`validate`], it loses its checks.
    if node.is_broken() {
        return (broken_entry(node, index), Vec::new());
    }
    let mut sink = Sink::new(text, Keep::ALL);
    let facts = entry::check_entry(&mut sink, node, index);
    (facts, sink.out.finish().0)
}

/// Collects diagnostics; its helpers check presence and types of fields.
pub(crate) struct Sink<'t> {
    /// The text the tree was parsed from, for fixes that match its layout.
    pub text: &'t str,
    pub out: Collector,
}

impl Sink<'_> {
    fn new(text: &str, keep: Keep) -> Sink<'_> {
        Sink {
            text,
            out: Collector::new(keep),
        }
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.out.push(diagnostic);
    }

    pub fn report(&mut self, code: Code, range: TextRange, message: impl Into<String>) {
        self.push(Diagnostic::new(code, range, message));
    }

    /// The member `key` of `object`, or a `missing-field` on the object.
    pub fn required<'n>(
        &mut self,
        object: Node<'n>,
        place: &Place<'_>,
        key: &str,
    ) -> Option<Member<'n>> {
        let member = object.member(key);
        if member.is_none() {
            self.push(missing_key(
                Code::MissingField,
                object,
                format!("{place} is missing the required field \"{key}\""),
            ));
        }
        member
    }

    /// True when `node` has type `expected`; otherwise a `wrong-type` on it.
    pub fn expect_type(&mut self, node: Node<'_>, place: &Place<'_>, expected: JsonType) -> bool {
        if node.json_type() == expected {
            return true;
        }
        self.wrong_type(node, place, expected.with_article());
        false
    }

    pub fn wrong_type(&mut self, node: Node<'_>, place: &Place<'_>, expected: &str) {
        self.report(
            Code::WrongType,
            node.range(),
            format!(
                "{place} must be {expected}, found {}",
                node.json_type().with_article()
            ),
        );
    }

    /// A required string field: its value and node, when present and a string.
    pub fn required_str<'n>(
        &mut self,
        object: Node<'n>,
        place: &Place<'_>,
        key: &'static str,
    ) -> Option<(&'n str, Node<'n>)> {
        let member = self.required(object, place, key)?;
        self.str_value(member.value, &place.field(key))
    }

    pub fn str_value<'n>(
        &mut self,
        node: Node<'n>,
        place: &Place<'_>,
    ) -> Option<(&'n str, Node<'n>)> {
        match node.as_str() {
            Some(s) => Some((s, node)),
            None => {
                self.wrong_type(node, place, "a string");
                None
            }
        }
    }

    /// A required field of the closed set `T`: the range of its string
    /// value, with the value it spells (None after a `code` diagnostic).
    pub fn required_enum<T: ClosedEnum>(
        &mut self,
        object: Node<'_>,
        place: &Place<'_>,
        key: &'static str,
        code: Code,
    ) -> Option<(Option<T>, TextRange)> {
        let (text, value) = self.required_str(object, place, key)?;
        let parsed = self.closed_enum(text, value, &place.field(key), code, T::expected_list);
        Some((parsed, value.range()))
    }

    /// The value of the closed set `T` that `text`, the string at `value`,
    /// spells; otherwise a `code` diagnostic on it that says what the field
    /// accepts: `expected`, usually `T::expected_list` (a field may also
    /// accept null, or only some of `T`), rendered only then.
    pub fn closed_enum<T: ClosedEnum>(
        &mut self,
        text: &str,
        value: Node<'_>,
        place: &Place<'_>,
        code: Code,
        expected: impl FnOnce() -> String,
    ) -> Option<T> {
        let parsed = T::parse(text);
        if parsed.is_none() {
            self.report(
                code,
                value.range(),
                format!(
                    "{place} \"{text}\" is not {}; expected one of {}",
                    T::WHAT,
                    expected()
                ),
            );
        }
        parsed
    }

    pub fn required_bool(
        &mut self,
        object: Node<'_>,
        place: &Place<'_>,
        key: &'static str,
    ) -> Option<(bool, TextRange)> {
        let member = self.required(object, place, key)?;
        match member.value.as_bool() {
            Some(b) => Some((b, member.value.range())),
            None => {
                self.wrong_type(member.value, &place.field(key), "a boolean (true or false)");
                None
            }
        }
    }

    /// An array of strings (`signals`, `scope_globs`, `excluded_dirs`).
    pub fn string_array(&mut self, node: Node<'_>, place: &Place<'_>) {
        let Some(items) = node.items() else {
            self.wrong_type(node, place, "an array of strings");
            return;
        };
        for (i, item) in items.enumerate() {
            if item.as_str().is_none() {
                self.wrong_type(item, &place.index(i), "a string");
            }
        }
    }

    /// A non-negative integer written without fraction or exponent.
    pub fn count(&mut self, node: Node<'_>, place: &Place<'_>) -> Option<u64> {
        let Value::Number(raw) = node.value() else {
            self.wrong_type(node, place, "a non-negative integer");
            return None;
        };
        match parse_count(raw) {
            Some(n) => Some(n),
            None => {
                self.report(
                    Code::InvalidCount,
                    node.range(),
                    format!("{place} must be a non-negative integer, found {raw}"),
                );
                None
            }
        }
    }

    /// An `unknown-field` for each member of `object` not named in `known`.
    pub fn unknown_fields(&mut self, object: Node<'_>, place: &Place<'_>, known: &[&[&str]]) {
        let Some(members) = object.members() else {
            return;
        };
        for member in members {
            if known.iter().any(|set| set.contains(&&*member.key)) {
                continue;
            }
            let suggestion = known
                .iter()
                .flat_map(|set| set.iter())
                .filter(|k| object.member(k).is_none())
                .map(|k| (strsim::damerau_levenshtein(member.key, k), *k))
                .filter(|(distance, k)| *distance <= 2.max(k.len() / 4))
                .min();
            let mut message = format!(
                "unknown field \"{}\" in {place}; consumers ignore it",
                member.key
            );
            if let Some((_, k)) = suggestion {
                message.push_str(&format!(" (did you mean \"{k}\"?)"));
            }
            self.report(Code::UnknownField, member.key_range, message);
        }
    }
}

/// A diagnostic about a key `object` lacks. It sits on the object's opening
/// brace, with the whole object as related information: underlining the
/// object itself would cover a whole entry, or the whole document.
pub(crate) fn missing_key(code: Code, object: Node<'_>, message: String) -> Diagnostic {
    Diagnostic::new(code, missing_key_range(object), message)
        .with_related(object.range(), "the object that lacks it")
}

/// The opening brace of `object`, where [`missing_key`] reports.
pub(crate) fn missing_key_range(object: Node<'_>) -> TextRange {
    let start = object.range().start;
    TextRange::new(start, start + 1)
}

/// Digits only, no sign, fraction, exponent or leading zero; however many
/// (a count past u64 is still a count, and saturates).
fn parse_count(raw: &str) -> Option<u64> {
    if raw.is_empty()
        || !raw.bytes().all(|b| b.is_ascii_digit())
        || (raw.len() > 1 && raw.starts_with('0'))
    {
        return None;
    }
    Some(raw.parse().unwrap_or(u64::MAX))
}

/// Where in the report a node sits, for messages: `entries[3].exact_edit`.
/// A chain of borrowed steps, so that building one costs nothing until a
/// message is rendered.
#[derive(Clone, Copy)]
pub(crate) struct Place<'p> {
    parent: Option<&'p Place<'p>>,
    step: Step,
}

#[derive(Clone, Copy)]
enum Step {
    Root,
    Field(&'static str),
    Index(usize),
}

impl<'p> Place<'p> {
    pub const ROOT: Place<'static> = Place {
        parent: None,
        step: Step::Root,
    };

    pub fn field(&'p self, name: &'static str) -> Place<'p> {
        Place {
            parent: Some(self),
            step: Step::Field(name),
        }
    }

    pub fn index(&'p self, index: usize) -> Place<'p> {
        Place {
            parent: Some(self),
            step: Step::Index(index),
        }
    }

    fn write_path(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.write_path(f)?;
        }
        match self.step {
            Step::Root => Ok(()),
            Step::Field(name) if matches!(self.parent.map(|p| p.step), Some(Step::Root)) => {
                f.write_str(name)
            }
            Step::Field(name) => write!(f, ".{name}"),
            Step::Index(i) => write!(f, "[{i}]"),
        }
    }
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            Step::Root => f.write_str("the report"),
            _ => {
                f.write_str("`")?;
                self.write_path(f)?;
                f.write_str("`")
            }
        }
    }
}

/// A project-root-relative path: not empty, not absolute (no leading `/` or
/// `\`, no drive letter), no `..` segment. Returns why not, when it is not.
pub(crate) fn relative_path_problem(path: &str) -> Option<&'static str> {
    let bytes = path.as_bytes();
    if path.is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') || path.starts_with('\\') {
        return Some("is absolute");
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("starts with a drive letter");
    }
    if path.split(['/', '\\']).any(|segment| segment == "..") {
        return Some("has a `..` segment");
    }
    None
}

/// Reports `path-not-relative` when the string at `node` is not a project-root-relative path.
pub(crate) fn check_relative_path(sink: &mut Sink, path: &str, node: Node<'_>, place: &Place<'_>) {
    if let Some(problem) = relative_path_problem(path) {
        sink.report(
            Code::PathNotRelative,
            node.range(),
            format!("{place} {problem}: \"{path}\"; expected a project-root-relative path such as \"docs/notes.md\""),
        );
    }
}

/// JSON equality that ignores positions and key order (the last of repeated keys wins).
/// Its recursion is bounded by the parser's nesting limit.
pub(crate) fn same_json(a: Node<'_>, b: Node<'_>) -> bool {
    match (a.value(), b.value()) {
        (Value::Object, Value::Object) => {
            let (ma, mb) = (sorted_keys(a), sorted_keys(b));
            ma == mb
                && ma
                    .iter()
                    .all(|k| matches!((a.get(k), b.get(k)), (Some(x), Some(y)) if same_json(x, y)))
        }
        (Value::Array, Value::Array) => {
            let (ia, ib) = (
                a.items().into_iter().flatten(),
                b.items().into_iter().flatten(),
            );
            ia.clone().count() == ib.clone().count() && ia.zip(ib).all(|(x, y)| same_json(x, y))
        }
        (Value::Number(x), Value::Number(y)) => {
            x == y || x.parse::<f64>().ok() == y.parse::<f64>().ok()
        }
        (x, y) => x == y,
    }
}

fn sorted_keys<'t>(object: Node<'t>) -> Vec<&'t str> {
    let mut keys: Vec<&str> = object
        .members()
        .into_iter()
        .flatten()
        .map(|m| m.key)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries' checks split over two threads give what one pass gives:
    /// the same facts, broken entries, kept diagnostics and counts, under a
    /// cap that each half alone would fill.
    #[test]
    fn entries_checked_in_two_halves_give_what_one_pass_gives() {
        let generated = crate::generate::generate_report(crate::generate::GenerateOptions {
            entries: 41,
            seed: 7,
            violation_every: 3,
        });
        // Two entries broken by a syntax error (a member without its colon).
        let mut text = generated.clone();
        for nth in [4, 30] {
            let at = text.match_indices("\"op_type\": ").nth(nth).unwrap().0;
            text.replace_range(at..at + 12, "\"op_type\" ");
        }
        let middle = crate::text::TextRange::new(text.len() / 3, text.len() * 2 / 3);
        for keep in [Keep::at_most(7), Keep::ALL, Keep::touching(middle)] {
            let parse = crate::syntax::parse(&text);
            let root = parse.root().unwrap();
            let items: Vec<Node<'_>> = root.get("entries").unwrap().items().unwrap().collect();
            let run = |split_from: usize| {
                let mut sink = Sink::new(&text, keep);
                let (entries, broken) = check_entries(&mut sink, &items, split_from);
                let (mut kept, omitted) = sink.out.finish();
                kept.sort_by(Diagnostic::order);
                let mut at: Vec<_> = omitted
                    .iter()
                    .map(|o| (o.start, o.severity, o.fixable))
                    .collect();
                at.sort();
                (entries, broken, kept, at)
            };
            let (one_pass, halves) = (run(usize::MAX), run(2));
            assert_eq!(one_pass.1.len(), 2, "two broken entries: {:?}", one_pass.1);
            assert!(!one_pass.2.is_empty(), "{keep:?}: nothing kept");
            if keep == Keep::at_most(7) {
                assert_eq!(one_pass.2.len(), 7, "the cap is reached");
                assert!(!one_pass.3.is_empty(), "and some are left out");
            }
            assert!(
                one_pass == halves,
                "{keep:?}: one pass and two halves differ"
            );
        }
    }

    #[test]
    fn places_render_as_paths() {
        let root = Place::ROOT;
        let entries = root.field("entries");
        let entry = entries.index(3);
        let edit = entry.field("exact_edit");
        assert_eq!(root.to_string(), "the report");
        assert_eq!(entries.to_string(), "`entries`");
        assert_eq!(edit.to_string(), "`entries[3].exact_edit`");
    }

    #[test]
    fn counts_are_plain_non_negative_integers() {
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("120"), Some(120));
        // 2^64: a count past u64 is still a count.
        assert_eq!(parse_count("18446744073709551616"), Some(u64::MAX));
        for bad in ["-1", "1.0", "1e3", "01", "", "1_000"] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }

    #[test]
    fn relative_paths() {
        for ok in [
            "docs/a.md",
            "a",
            "docs/",
            "./a.md",
            "a..b/c",
            "日本語/😀.md",
        ] {
            assert_eq!(relative_path_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "\\share",
            "C:/x",
            "c:x",
            "../x",
            "a/../b",
            "a/..",
            "a\\..\\b",
        ] {
            assert!(relative_path_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn same_json_ignores_order_and_spacing() {
        let same = |a: &str, b: &str| {
            let (a, b) = (crate::syntax::parse(a), crate::syntax::parse(b));
            same_json(a.root().unwrap(), b.root().unwrap())
        };
        assert!(same(r#"{"a": 1, "b": [true]}"#, r#"{"b":[true],"a":1}"#));
        assert!(!same(r#"{"a": 1}"#, r#"{"a": 1, "b": 2}"#));
        assert!(!same(r#"{"a": "1"}"#, r#"{"a": 1}"#));
        assert!(same(r#"[1.0]"#, r#"[1]"#));
        assert!(!same(r#"[1, 2]"#, r#"[1]"#));
    }
}
