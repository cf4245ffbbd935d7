//! The facts the checks leave about each entry ([`EntryFacts`]), for the
//! checks across entries, the hover, the outline and the fixes.

use super::exact_edit::parse_canonical_ref;
use super::sink::{parse_count, relative_path_problem};
use crate::schema::SafetyTier;
use crate::syntax::{Node, Value};
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
    op_type: None,
    kind: None,
    lifetime: None,
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
    /// `op_type`, `exact_edit.kind` and the lifecycle's `lifetime` (the
    /// entry's, else its exact edit's) as far as they are valid: what the
    /// reviewer's summary groups by.
    pub op_type: Option<crate::schema::OpType>,
    pub kind: Option<crate::schema::EditKind>,
    pub lifetime: Option<crate::schema::Lifetime>,
}

impl EntrySummary {
    /// Reads what is valid of an entry object; checks report the rest.
    pub(crate) fn of(entry: Node<'_>) -> EntrySummary {
        use crate::schema::{
            CategoryClass, CategorySubtype, EditKind, InjectionFrequency, Lifetime, OpType,
        };
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
            op_type: text(entry.get("op_type")).and_then(OpType::parse),
            kind: kind.and_then(EditKind::parse),
            lifetime: text(entry.lookup("/lifecycle/lifetime"))
                .or(text(entry.lookup("/exact_edit/lifecycle/lifetime")))
                .and_then(Lifetime::parse),
        }
    }
}

/// The safety tier of one entry: the derivation from its recorded inputs,
/// every tier consistent with the text, and what the entry records.
#[derive(Clone, Debug, PartialEq)]
pub struct TierCheck {
    pub derivation: Derivation,
    /// The tiers `derive_safety_tier` gives for some git state (see `tier::possible_tiers`).
    pub possible: crate::tier::Tiers,
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
    pub possible: crate::tier::Tiers,
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
