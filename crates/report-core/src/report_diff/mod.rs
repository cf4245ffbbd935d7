//! Two generations of one report compared by meaning, for `report-lsp diff`
//! and the editor's "since HEAD" lens. A regenerated report reorders its
//! arrays, so a text diff says nothing: entries are matched by path and
//! kind (the `exact_edit`'s `kind`, or `generative`), shortlist items by
//! path, promotion candidates by path and name, and what changed is said
//! field by field, with both tier derivations where a tier changed.
//!
//! Within one path and kind, several entries are paired identical first,
//! then by the same anchor, then in their order; entries left over of one
//! path are paired across kinds (their `kind` shows as a change). Neither
//! side has to be valid: what parses is compared, and each side's errors
//! are counted.

use foldhash::{HashMap, HashMapExt};
use std::fmt::Write as _;

use crate::analysis::Analysis;
use crate::diagnostic::Severity;
use crate::rollup::{Rollup, grouped, rollup};
use crate::schema::SafetyTier;
use crate::selection::looks_like_report;
use crate::syntax::{Node, Value};
use crate::text::TextRange;
use crate::tier::Derivation;
use crate::validate::{EntryFacts, same_json};

/// What one side is, for the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub entries: usize,
    /// Error-severity diagnostics, kept and left out.
    pub errors: usize,
    pub rollup: Rollup,
}

/// One item of an array, as the output names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemId {
    /// Its index in its array.
    pub index: usize,
    pub range: TextRange,
    /// `path` (empty when it has none).
    pub path: String,
    /// An entry's kind, a candidate's `name`; empty for a shortlist item.
    pub kind: String,
    /// An entry's recorded `safety_tier`.
    pub tier: Option<SafetyTier>,
    /// An entry's `raw_tokens`.
    pub raw_tokens: Option<u64>,
}

/// What part of an entry a field is, so output can group and colour it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Aspect {
    /// `category`, `op`, `op_type`, `is_destructive`, `is_reversible`.
    Classification,
    /// `exact_edit`'s `expected_sha256`.
    Hash,
    /// The rest of `exact_edit` (its kind, anchor and targets) but its lifecycle.
    Target,
    /// A `lifecycle` object, of the entry or of its `exact_edit`.
    Lifecycle,
    /// `token_estimate`.
    Tokens,
    /// `signals`.
    Signals,
    /// Anything else (a shortlist item's or candidate's other fields, unknown fields).
    Other,
}

impl Aspect {
    fn of(field: &str) -> Aspect {
        let first = field.split('/').next().unwrap_or(field);
        if field.split('/').any(|part| part == "lifecycle") {
            return Aspect::Lifecycle;
        }
        match first {
            "category" | "op" | "op_type" | "is_destructive" | "is_reversible" => {
                Aspect::Classification
            }
            "exact_edit" if field == "exact_edit/expected_sha256" => Aspect::Hash,
            "exact_edit" => Aspect::Target,
            "token_estimate" => Aspect::Tokens,
            "signals" => Aspect::Signals,
            _ => Aspect::Other,
        }
    }
}

/// A field whose value differs: `None` where a side lacks it. Values are
/// compact JSON (`"text"`, `12`, `["a","b"]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldChange {
    /// The path inside the item, as a JSON pointer without the leading `/`.
    pub field: String,
    pub aspect: Aspect,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// The recorded or the derived tier of an entry changed.
#[derive(Clone, Debug, PartialEq)]
pub struct TierChange {
    pub old_recorded: Option<SafetyTier>,
    pub new_recorded: Option<SafetyTier>,
    /// `derive_safety_tier` on each side's inputs, from the text alone.
    pub old_derivation: Option<Derivation>,
    pub new_derivation: Option<Derivation>,
}

impl TierChange {
    /// The tier each side ends on: the derived one, else the recorded one.
    pub fn tiers(&self) -> (Option<SafetyTier>, Option<SafetyTier>) {
        (
            self.old_derivation
                .as_ref()
                .map(|d| d.tier)
                .or(self.old_recorded),
            self.new_derivation
                .as_ref()
                .map(|d| d.tier)
                .or(self.new_recorded),
        )
    }
}

/// An item present on both sides with something changed.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemChange {
    pub old: ItemId,
    pub new: ItemId,
    /// In field order; an entry's `safety_tier` is in `tier` instead.
    pub fields: Vec<FieldChange>,
    pub tier: Option<TierChange>,
}

/// One array compared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArrayDiff {
    /// In the new side's order.
    pub added: Vec<ItemId>,
    /// In the old side's order.
    pub gone: Vec<ItemId>,
    /// In the new side's order.
    pub changed: Vec<ItemChange>,
    /// Items on both sides, changed or not, at another index.
    pub moved: usize,
}

impl ArrayDiff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.gone.is_empty() && self.changed.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReportDiff {
    pub old: Side,
    pub new: Side,
    /// Top-level members other than the three arrays (`generated_at`, `scan/…`).
    pub envelope: Vec<FieldChange>,
    pub entries: ArrayDiff,
    pub shortlist: ArrayDiff,
    pub candidates: ArrayDiff,
}

/// Why two texts cannot be compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotComparable {
    OldIsNotAReport,
    NewIsNotAReport,
}

/// Compares two analysed generations of a report.
pub fn diff(old: &Analysis, new: &Analysis) -> Result<ReportDiff, NotComparable> {
    let old_root = report_root(old).ok_or(NotComparable::OldIsNotAReport)?;
    let new_root = report_root(new).ok_or(NotComparable::NewIsNotAReport)?;
    let no_tier = |_: &Item<'_, '_>, _: &Item<'_, '_>| None;
    let keyed = |key: &str, also: Option<&'static str>| {
        compare(
            &keyed_items(old_root, key, also),
            &keyed_items(new_root, key, also),
            false,
            no_tier,
        )
    };
    Ok(ReportDiff {
        old: side(old),
        new: side(new),
        envelope: envelope_changes(old_root, new_root),
        entries: compare(
            &entry_items(old_root, &old.entries),
            &entry_items(new_root, &new.entries),
            true,
            tier_change,
        ),
        shortlist: keyed("shortlist", None),
        candidates: keyed("promotion_candidates", Some("name")),
    })
}

/// What [`diff`] finds between two identical texts of a report, said from
/// one side's facts alone: the editor knows its text equals HEAD's copy
/// and has its analysis, so it parses neither.
pub fn unchanged(side: Side) -> ReportDiff {
    ReportDiff {
        old: side.clone(),
        new: side,
        envelope: Vec::new(),
        entries: ArrayDiff::default(),
        shortlist: ArrayDiff::default(),
        candidates: ArrayDiff::default(),
    }
}

impl ReportDiff {
    pub fn is_empty(&self) -> bool {
        self.envelope.is_empty()
            && self.entries.is_empty()
            && self.shortlist.is_empty()
            && self.candidates.is_empty()
    }

    /// Entries whose recorded or derived tier changed.
    pub fn tier_changes(&self) -> usize {
        self.entries
            .changed
            .iter()
            .filter(|c| c.tier.is_some())
            .count()
    }

    /// The change of the raw token roll-up, new minus old.
    pub fn token_delta(&self) -> i128 {
        i128::from(self.new.rollup.raw_total) - i128::from(self.old.rollup.raw_total)
    }

    /// One line: "+120 / −80 entries, 14 tier changes, −3.2 k tokens".
    pub fn summary(&self) -> String {
        if self.is_empty() {
            return "no changes".into();
        }
        let mut parts = vec![format!(
            "+{} / −{} entries",
            grouped(self.entries.added.len() as u64),
            grouped(self.entries.gone.len() as u64)
        )];
        let changed = self.entries.changed.len();
        if changed > 0 {
            parts.push(format!("{} changed", grouped(changed as u64)));
        }
        let tiers = self.tier_changes();
        parts.push(format!(
            "{} tier change{}",
            grouped(tiers as u64),
            if tiers == 1 { "" } else { "s" }
        ));
        parts.push(format!("{} tokens", signed_short(self.token_delta())));
        parts.join(", ")
    }
}

/// `-3200` as `−3.2 k`, `120` as `+120`, `0` as `±0`.
pub fn signed_short(n: i128) -> String {
    let sign = match n.signum() {
        1 => "+",
        -1 => "−",
        _ => "±",
    };
    let abs = n.unsigned_abs();
    let body = match abs {
        0..1_000 => abs.to_string(),
        1_000..1_000_000 => short(abs, 1_000, "k"),
        _ => short(abs, 1_000_000, "M"),
    };
    format!("{sign}{body}")
}

fn short(abs: u128, unit: u128, suffix: &str) -> String {
    let tenths = (abs * 10 + unit / 2) / unit;
    match tenths % 10 {
        0 => format!("{} {suffix}", tenths / 10),
        d => format!("{}.{d} {suffix}", tenths / 10),
    }
}

fn report_root(analysis: &Analysis) -> Option<Node<'_>> {
    analysis.root().filter(|root| looks_like_report(*root))
}

/// One analysed generation as a side of the comparison.
pub fn side(analysis: &Analysis) -> Side {
    let errors = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
        + analysis.omitted.count(Severity::Error);
    Side {
        entries: analysis.entries.len(),
        errors,
        rollup: rollup(analysis.entries.iter()),
    }
}

/// Where a field sits inside its item: its keys from the item down, at
/// most [`FLATTEN_DEPTH`] of them (no allocation per field).
#[derive(Clone, Copy)]
struct FieldPath<'t> {
    keys: [&'t str; FLATTEN_DEPTH],
    len: u8,
}

impl PartialEq for FieldPath<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.keys() == other.keys()
    }
}

impl Eq for FieldPath<'_> {}

impl PartialOrd for FieldPath<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FieldPath<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.keys().cmp(other.keys())
    }
}

impl<'t> FieldPath<'t> {
    const ROOT: FieldPath<'static> = FieldPath {
        keys: [""; FLATTEN_DEPTH],
        len: 0,
    };

    fn child(mut self, key: &'t str) -> FieldPath<'t> {
        self.keys[self.len as usize] = key;
        self.len += 1;
        self
    }

    fn keys(&self) -> &[&'t str] {
        &self.keys[..self.len as usize]
    }

    fn render(&self) -> String {
        self.keys().join("/")
    }
}

/// An item for matching and comparing: its node, and what it is matched
/// by. Its fields are flattened only when it differs from its partner.
struct Item<'t, 'a> {
    index: usize,
    node: Node<'t>,
    path: &'t str,
    kind: &'t str,
    /// An entry's `safety_tier`.
    recorded: Option<SafetyTier>,
    /// The top-level members left out of its fields.
    skip: &'static [&'static str],
    facts: Option<&'a EntryFacts>,
}

impl<'t> Item<'t, '_> {
    fn key(&self) -> (&'t str, &'t str) {
        (self.path, self.kind)
    }

    fn fields(&self) -> Vec<(FieldPath<'t>, Node<'t>)> {
        flatten(self.node, self.skip)
    }

    fn anchor(&self) -> Option<(Node<'t>, Node<'t>)> {
        let anchor = self.node.get("exact_edit")?.get("anchor")?;
        Some((anchor.get("start_line")?, anchor.get("end_line")?))
    }

    fn same_anchor(&self, other: &Item<'_, '_>) -> bool {
        match (self.anchor(), other.anchor()) {
            (Some((a, b)), Some((c, d))) => same_json(a, c) && same_json(b, d),
            _ => false,
        }
    }

    /// Whether nothing but its position differs from `other`.
    fn same_as(&self, other: &Item<'_, '_>) -> bool {
        same_value(self.node, other.node)
    }

    fn id(&self) -> ItemId {
        ItemId {
            index: self.index,
            range: self.node.range(),
            path: self.path.to_string(),
            kind: self.kind.to_string(),
            tier: self.recorded,
            raw_tokens: self
                .facts
                .and_then(|f| f.summary().raw_tokens.map(|(n, _)| n)),
        }
    }
}

/// [`same_json`], first by the text (one generator writes an unchanged
/// value the same way), then member by member while the keys come in the
/// same order, sorting only where they do not.
fn same_value(a: Node<'_>, b: Node<'_>) -> bool {
    if a.source() == b.source() && !a.is_broken() && !b.is_broken() {
        return true;
    }
    match (a.members(), b.members()) {
        (Some(ma), Some(mb)) => {
            let (mut ma, mut mb) = (ma, mb);
            loop {
                match (ma.next(), mb.next()) {
                    (None, None) => return true,
                    (Some(x), Some(y)) if x.key == y.key => {
                        if !same_value(x.value, y.value) {
                            return false;
                        }
                    }
                    _ => return same_json(a, b),
                }
            }
        }
        _ => match (a.items(), b.items()) {
            (Some(ia), Some(ib)) => {
                ia.clone().count() == ib.clone().count()
                    && ia.zip(ib).all(|(x, y)| same_value(x, y))
            }
            _ => same_json(a, b),
        },
    }
}

fn array<'t>(root: Node<'t>, key: &str) -> impl Iterator<Item = Node<'t>> + 't {
    root.get(key).and_then(|a| a.items()).into_iter().flatten()
}

fn path_of(node: Node<'_>) -> &str {
    node.get("path")
        .and_then(|p| p.as_str())
        .or_else(|| node.as_str())
        .unwrap_or_default()
}

fn entry_items<'t, 'a>(root: Node<'t>, facts: &'a [EntryFacts]) -> Vec<Item<'t, 'a>> {
    // The facts are in index order: found by position, else by search.
    let facts_of = |index: usize| {
        facts.get(index).filter(|f| f.index == index).or_else(|| {
            facts
                .binary_search_by_key(&index, |f| f.index)
                .ok()
                .map(|at| &facts[at])
        })
    };
    array(root, "entries")
        .enumerate()
        .map(|(index, node)| {
            let (mut path, mut recorded, mut kind) = ("", None, "generative");
            for member in node.members().into_iter().flatten() {
                match member.key {
                    "path" => path = member.value.as_str().unwrap_or_default(),
                    "safety_tier" => recorded = member.value.as_str().and_then(SafetyTier::parse),
                    "exact_edit" => {
                        kind = member
                            .value
                            .get("kind")
                            .and_then(|k| k.as_str())
                            .unwrap_or("?")
                    }
                    _ => {}
                }
            }
            Item {
                index,
                node,
                path,
                kind,
                recorded,
                skip: &["path", "safety_tier"],
                facts: facts_of(index),
            }
        })
        .collect()
}

/// Items keyed by `path` and the member `also` names; a string item is its path.
fn keyed_items<'t>(
    root: Node<'t>,
    key: &str,
    also: Option<&'static str>,
) -> Vec<Item<'t, 'static>> {
    let skip: &'static [&'static str] = match also {
        Some("name") => &["path", "name"],
        _ => &["path"],
    };
    array(root, key)
        .enumerate()
        .map(|(index, node)| Item {
            index,
            node,
            path: path_of(node),
            kind: also
                .and_then(|k| node.get(k).and_then(|n| n.as_str()))
                .unwrap_or_default(),
            recorded: None,
            skip,
            facts: None,
        })
        .collect()
}

/// Objects are walked this deep into fields of their own; deeper, and
/// arrays, are one field each.
const FLATTEN_DEPTH: usize = 4;

/// The leaf fields of an object in document order, skipping the top-level
/// members `skip`; a scalar but a string (a path) is one field at the root.
fn flatten<'t>(node: Node<'t>, skip: &[&str]) -> Vec<(FieldPath<'t>, Node<'t>)> {
    let mut fields = Vec::new();
    match node.members() {
        Some(members) => {
            for member in members.filter(|m| !skip.contains(&m.key)) {
                flatten_into(member.value, FieldPath::ROOT.child(member.key), &mut fields);
            }
        }
        None if node.as_str().is_none() => fields.push((FieldPath::ROOT, node)),
        None => {}
    }
    fields
}

fn flatten_into<'t>(node: Node<'t>, at: FieldPath<'t>, out: &mut Vec<(FieldPath<'t>, Node<'t>)>) {
    match node.members() {
        Some(members) if (at.len as usize) < FLATTEN_DEPTH => {
            for member in members {
                flatten_into(member.value, at.child(member.key), out);
            }
        }
        _ => out.push((at, node)),
    }
}

/// Compact JSON with sorted keys and numbers as values, so spacing, key
/// order and `1.0` against `1` are no change.
pub fn compact(node: Node<'_>) -> String {
    let mut out = String::new();
    write_compact(node, &mut out);
    out
}

fn write_compact(node: Node<'_>, out: &mut String) {
    match node.value() {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Value::Number(text) => match text.parse::<f64>() {
            Ok(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e15 => {
                let _ = write!(out, "{}", n as i64);
            }
            Ok(n) if n.is_finite() => {
                let _ = write!(out, "{n}");
            }
            _ => out.push_str(text),
        },
        Value::String(s) => {
            out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()))
        }
        Value::Array => {
            out.push('[');
            for (i, item) in node.items().into_iter().flatten().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(item, out);
            }
            out.push(']');
        }
        Value::Object => {
            let mut members: Vec<_> = node.members().into_iter().flatten().collect();
            members.sort_by(|a, b| a.key.cmp(b.key));
            out.push('{');
            for (i, member) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(member.key).unwrap_or_default());
                out.push(':');
                write_compact(member.value, out);
            }
            out.push('}');
        }
        Value::Error => out.push_str("<unreadable>"),
    }
}

/// How many unpaired items of one key are searched for an identical or
/// same-anchor partner: beyond that, a report repeating one path and kind
/// thousands of times is paired in order, in linear time.
const PARTNER_SEARCH: usize = 64;

#[derive(Clone, Copy)]
enum Pass {
    Identical,
    SameAnchor,
    InOrder,
}

/// Pairs the items of two sides: `old`'s index for each of `new`'s.
fn pair(old: &[Item<'_, '_>], new: &[Item<'_, '_>], across_kinds: bool) -> Vec<Option<usize>> {
    const END: usize = usize::MAX;
    // Per key, the first unpaired old item; each old item links to the next
    // of its key, in order (no list per key).
    let mut first: HashMap<(&str, &str), usize> = HashMap::with_capacity(old.len());
    let mut next = vec![END; old.len()];
    for (i, item) in old.iter().enumerate().rev() {
        if let Some(after) = first.insert(item.key(), i) {
            next[i] = after;
        }
    }
    let mut new_count: HashMap<(&str, &str), usize> = HashMap::with_capacity(new.len());
    for item in new {
        *new_count.entry(item.key()).or_default() += 1;
    }
    let mut old_used = vec![false; old.len()];
    let mut partner: Vec<Option<usize>> = vec![None; new.len()];
    // Three passes over every new item, so that a changed entry never takes
    // the partner an identical one later in the array should have: the
    // identical first, then those with the same anchor, then in order.
    for pass in [Pass::Identical, Pass::SameAnchor, Pass::InOrder] {
        for (n, item) in new.iter().enumerate() {
            if partner[n].is_some() {
                continue;
            }
            let Some(head) = first.get_mut(&item.key()) else {
                continue;
            };
            while *head != END && old_used[*head] {
                *head = next[*head];
            }
            if *head == END {
                continue;
            }
            // One of its key on each side: they are each other's.
            let alone = next[*head] == END && new_count[&item.key()] == 1;
            let open = std::iter::successors(Some(*head), |&o| Some(next[o]).filter(|&o| o != END))
                .filter(|&o| !old_used[o])
                .take(PARTNER_SEARCH);
            let chosen = match pass {
                _ if alone => Some(*head),
                Pass::Identical => open.clone().find(|&o| old[o].same_as(item)),
                Pass::SameAnchor => open.clone().find(|&o| old[o].same_anchor(item)),
                Pass::InOrder => Some(*head),
            };
            if let Some(chosen) = chosen {
                old_used[chosen] = true;
                partner[n] = Some(chosen);
            }
        }
    }
    if across_kinds {
        // What is left of one path pairs across kinds, in order.
        let mut left_by_path: HashMap<&str, Vec<usize>> = HashMap::new();
        for (o, item) in old.iter().enumerate().rev() {
            if !old_used[o] && !item.path.is_empty() {
                left_by_path.entry(item.path).or_default().push(o);
            }
        }
        for (n, item) in new.iter().enumerate() {
            if partner[n].is_none()
                && let Some(o) = left_by_path.get_mut(item.path).and_then(Vec::pop)
            {
                partner[n] = Some(o);
            }
        }
    }
    partner
}

/// Compares two sides of one array; `tier` judges a pair of entries.
fn compare(
    old: &[Item<'_, '_>],
    new: &[Item<'_, '_>],
    entries: bool,
    tier: impl Fn(&Item<'_, '_>, &Item<'_, '_>) -> Option<TierChange>,
) -> ArrayDiff {
    let partner = pair(old, new, entries);
    let mut paired = vec![false; old.len()];
    let mut result = ArrayDiff::default();
    for (n, item) in new.iter().enumerate() {
        let Some(o) = partner[n] else {
            result.added.push(item.id());
            continue;
        };
        paired[o] = true;
        let before = &old[o];
        if before.index != item.index {
            result.moved += 1;
        }
        let fields = match before.same_as(item) {
            true => Vec::new(),
            false => field_changes(&before.fields(), &item.fields()),
        };
        let tier = tier(before, item);
        if !fields.is_empty() || tier.is_some() {
            result.changed.push(ItemChange {
                old: before.id(),
                new: item.id(),
                fields,
                tier,
            });
        }
    }
    result.gone = old
        .iter()
        .zip(&paired)
        .filter(|(_, paired)| !**paired)
        .map(|(item, _)| item.id())
        .collect();
    result
}

type Fields<'t> = [(FieldPath<'t>, Node<'t>)];

/// The fields that differ, in the new side's order when both sides list
/// the same fields in the same order (one generator writes them so), else
/// in path order.
fn field_changes(old: &Fields<'_>, new: &Fields<'_>) -> Vec<FieldChange> {
    if old.len() == new.len() && old.iter().zip(new).all(|((a, _), (b, _))| a == b) {
        return old
            .iter()
            .zip(new)
            .filter(|((_, o), (_, n))| !same_json(*o, *n))
            .map(|((field, o), (_, n))| field_change(field, Some(*o), Some(*n)))
            .collect();
    }
    sorted_field_changes(&sorted(old), &sorted(new))
}

fn sorted<'t>(fields: &Fields<'t>) -> Vec<(FieldPath<'t>, Node<'t>)> {
    let mut fields = fields.to_vec();
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    fields
}

fn field_change(
    field: &FieldPath<'_>,
    old: Option<Node<'_>>,
    new: Option<Node<'_>>,
) -> FieldChange {
    let field = field.render();
    FieldChange {
        aspect: Aspect::of(&field),
        field,
        old: old.map(compact),
        new: new.map(compact),
    }
}

/// [`field_changes`] of two lists sorted by path: a merge.
fn sorted_field_changes(old: &Fields<'_>, new: &Fields<'_>) -> Vec<FieldChange> {
    let change = field_change;
    let mut changes = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some((fo, o)), Some((fnew, n))) if fo == fnew => {
                if !same_json(*o, *n) {
                    changes.push(change(fo, Some(*o), Some(*n)));
                }
                i += 1;
                j += 1;
            }
            (Some((fo, o)), Some((fnew, _))) if fo < fnew => {
                changes.push(change(fo, Some(*o), None));
                i += 1;
            }
            (Some((fo, o)), None) => {
                changes.push(change(fo, Some(*o), None));
                i += 1;
            }
            (_, Some((fnew, n))) => {
                changes.push(change(fnew, None, Some(*n)));
                j += 1;
            }
            (None, None) => break,
        }
    }
    changes
}

/// Each side's recorded tier and derivation, when either differs.
fn tier_change(old: &Item<'_, '_>, new: &Item<'_, '_>) -> Option<TierChange> {
    let (old_recorded, new_recorded) = (old.recorded, new.recorded);
    let (old_derivation, new_derivation) = (derivation(old.facts), derivation(new.facts));
    let tier = |d: Option<&Derivation>| d.map(|d| d.tier);
    (old_recorded != new_recorded || tier(old_derivation) != tier(new_derivation)).then(|| {
        TierChange {
            old_recorded,
            new_recorded,
            old_derivation: old_derivation.cloned(),
            new_derivation: new_derivation.cloned(),
        }
    })
}

fn derivation(facts: Option<&EntryFacts>) -> Option<&Derivation> {
    Some(&facts?.tier.as_ref()?.derivation)
}

fn envelope_changes(old: Node<'_>, new: Node<'_>) -> Vec<FieldChange> {
    let arrays = ["shortlist", "entries", "promotion_candidates"];
    field_changes(&flatten(old, &arrays), &flatten(new, &arrays))
}

pub mod render;

#[cfg(test)]
mod tests;
