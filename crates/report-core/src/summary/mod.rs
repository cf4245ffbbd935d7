//! The reviewer's view: a whole report summed up from the facts its
//! analysis already holds (one pass over the entries, no second parse):
//! totals by each classification, the recorded tiers against the derived
//! ones, what runs without a prompt and what waits for approval and why,
//! where the savings are, the problems by invariant, the project's live
//! facts when it is at hand, and the change since an earlier generation.
//! `render.rs` words it as text and Markdown, `json.rs` as JSON, `html.rs`
//! as one self-contained page with pictures.

pub mod answer;
pub mod html;
pub mod json;
pub mod render;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::host::snapshot::Snapshot;
use crate::project_checks::WorkspaceFacts;
use crate::report_diff::ReportDiff;
use crate::schema::{CategoryClass, CategorySubtype, EditKind, Lifetime, OpType, SafetyTier};
use crate::text::TextRange;
use crate::tier::{Derivation, Fact};
use crate::validate::EntryFacts;

/// How many of the largest savings, folders and files are listed; the rest
/// are summed in one line each.
pub const DEFAULT_TOP: usize = 10;

/// An entry a summary points at (a group's first, a large saving): its
/// index in `entries` and its range, for a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryRef {
    pub index: usize,
    pub range: TextRange,
}

/// Entries counted together, and what they would save.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub key: String,
    pub entries: usize,
    /// The sum of their valid `raw_tokens`.
    pub raw_tokens: u64,
    /// The sum of their `weighted_tokens`, where present.
    pub weighted_tokens: f64,
    /// The first of them in document order.
    pub first: Option<EntryRef>,
    /// The group split further (a class's subtypes), in schema order.
    pub parts: Vec<Group>,
}

impl Group {
    fn new(key: impl Into<String>) -> Group {
        Group {
            key: key.into(),
            ..Group::default()
        }
    }

    fn add(&mut self, entry: &EntryFacts) {
        let summary = entry.summary();
        self.entries += 1;
        if let Some((raw, _)) = summary.raw_tokens {
            self.raw_tokens = self.raw_tokens.saturating_add(raw);
        }
        if let Some(weighted) = valid_weight(summary.weighted_tokens) {
            self.weighted_tokens = (self.weighted_tokens + weighted).min(MAX_WEIGHTED);
        }
        if self.first.is_none() {
            self.first = Some(EntryRef {
                index: entry.index,
                range: entry.range,
            });
        }
    }

    fn absorb(&mut self, other: &Group) {
        self.entries += other.entries;
        self.raw_tokens = self.raw_tokens.saturating_add(other.raw_tokens);
        self.weighted_tokens = (self.weighted_tokens + other.weighted_tokens).min(MAX_WEIGHTED);
    }
}

/// The largest sum of weighted tokens told exactly (2^53): past it, a sum
/// is held there, so that every format shows the same number.
pub const MAX_WEIGHTED: f64 = 9_007_199_254_740_992.0;

/// A `weighted_tokens` the summary counts: a finite, non-negative number
/// (the check does not bound it; a token count below zero or past every
/// float is no saving).
fn valid_weight(weighted: Option<f64>) -> Option<f64> {
    weighted.filter(|w| w.is_finite() && *w >= 0.0)
}

/// The largest groups by raw tokens, and the others summed in one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Top {
    pub shown: Vec<Group>,
    /// The groups left out, summed; its key says how many there are.
    pub rest: Option<Group>,
    /// How many groups there are in all.
    pub groups: usize,
}

/// One entry's saving, among the largest.
#[derive(Clone, Debug, PartialEq)]
pub struct Saving {
    pub entry: EntryRef,
    pub path: String,
    pub raw_tokens: u64,
    pub weighted_tokens: Option<f64>,
    /// The kind of its op (its exact edit's kind, else its op).
    pub op: String,
    /// The tier it derives to (see [`Summary::queue`]).
    pub tier: Option<SafetyTier>,
}

/// How many entries record one tier and derive to another.
#[derive(Clone, Debug, PartialEq)]
pub struct TierPair {
    /// The recorded `safety_tier`; None when it is absent or no tier.
    pub recorded: Option<SafetyTier>,
    /// What `derive_safety_tier` gives from the report's text; None when
    /// its inputs are not valid.
    pub derived: Option<SafetyTier>,
    /// The derivation waits on git facts the text does not hold: `auto`
    /// is possible once they are known, `confirm` until then.
    pub open: bool,
    /// The recorded tier is one the derivation allows (false where no
    /// valid tier is recorded, or none can be derived).
    pub agrees: bool,
    pub group: Group,
}

/// The recorded tiers against the derived ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tiers {
    /// Each combination found, the disagreeing ones first.
    pub pairs: Vec<TierPair>,
    /// Entries whose recorded tier the derivation does not allow
    /// (`tier-mismatch`); those with no valid tier recorded, or none
    /// derivable, are in `pairs` but not here.
    pub disagree: usize,
}

/// Which facts the tiers of the queue rest on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// The report's text alone: a fact it does not hold is unknown, and
    /// unknown never yields `auto`.
    Text,
    /// The project read now: a lifecycle entry's tier is derived with its
    /// path's git state and evidence as they are today.
    Live,
}

/// What runs without a prompt and what waits for approval, by the tier
/// `derive_safety_tier` gives (invariant 7: a tier is computed, never
/// taken from the report).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Queue {
    pub basis: Option<Basis>,
    pub auto: Group,
    pub confirm: Group,
    /// `confirm`'s entries by the rule that decided their derivation, the
    /// most entries first.
    pub reasons: Vec<Group>,
    /// Entries whose tier cannot be derived (their inputs are not valid).
    pub underived: Group,
}

/// One diagnostic code and how often the report has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeCount {
    pub code: Code,
    pub count: usize,
    /// Where the first one is.
    pub first: TextRange,
}

/// The problems of one invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantProblems {
    pub invariant: u32,
    pub codes: Vec<CodeCount>,
}

/// The report's problems by invariant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problems {
    pub errors: usize,
    pub warnings: usize,
    /// Information and hints.
    pub others: usize,
    pub invariants: Vec<InvariantProblems>,
    /// Diagnostics the analysis counted without keeping them (past its
    /// cap): they are in the totals by severity but not by code.
    pub not_by_code: usize,
}

/// An entry whose tier derives otherwise today than the report records.
#[derive(Clone, Debug, PartialEq)]
pub struct TierShift {
    pub recorded: Option<SafetyTier>,
    pub live: SafetyTier,
    pub group: Group,
}

/// What the project says now, when it is at hand.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Live {
    /// The root as shown to people.
    pub root: String,
    /// Why nothing was read, when nothing was.
    pub not_read: Option<String>,
    /// Entries whose exact edit's file changed since the check (`stale-exact-edit`).
    pub stale: Group,
    /// Entries whose `path` does not exist (`path-missing`).
    pub missing: Group,
    /// Lifecycle entries whose path has changes git has not committed.
    pub dirty: Group,
    /// Lifecycle entries whose path git does not track.
    pub untracked: Group,
    /// How many entries git's state was read for (the lifecycle deletes).
    pub git_read_for: usize,
    /// Why git's state is unknown, when it is.
    pub git_absent: Option<String>,
    /// Tiers that derive otherwise today than recorded, by their change.
    pub tier_shifts: Vec<TierShift>,
}

/// What changed since an earlier generation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Since {
    /// The earlier generation as named to people (a file, `HEAD`).
    pub name: String,
    pub added: Group,
    pub gone: Group,
    /// Entries matched in both and changed.
    pub changed: usize,
    /// Recorded tier changes of matched entries: from, to, how many.
    pub tier_changes: Vec<(Option<SafetyTier>, Option<SafetyTier>, usize)>,
    pub old_raw_tokens: u64,
    pub new_raw_tokens: u64,
    pub old_entries: usize,
    /// The entries of the text compared: the report's now, or, where it
    /// was edited since the comparison (the editor's since HEAD, as of the
    /// last save), the text compared then.
    pub new_entries: usize,
}

impl Since {
    /// New minus old raw tokens.
    pub fn raw_delta(&self) -> i128 {
        i128::from(self.new_raw_tokens) - i128::from(self.old_raw_tokens)
    }

    /// The tokens of the entries matched in both that changed: what the
    /// added and gone entries leave of the delta.
    pub fn changed_delta(&self) -> i128 {
        self.raw_delta() - i128::from(self.added.raw_tokens) + i128::from(self.gone.raw_tokens)
    }

    pub fn is_empty(&self) -> bool {
        self.added.entries == 0
            && self.gone.entries == 0
            && self.changed == 0
            && self.raw_delta() == 0
    }
}

/// A whole report at a glance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Items of `entries`, objects or not.
    pub entries: usize,
    /// Every entry, with the raw and weighted tokens of those that count them.
    pub total: Group,
    /// Entries with a valid `raw_tokens`.
    pub counted: usize,
    /// Entries with a `weighted_tokens`.
    pub weighted: usize,
    pub by_class: Vec<Group>,
    pub by_op_type: Vec<Group>,
    pub by_kind: Vec<Group>,
    pub by_lifetime: Vec<Group>,
    pub tiers: Tiers,
    pub queue: Queue,
    pub largest: Vec<Saving>,
    pub by_folder: Top,
    pub by_file: Top,
    pub problems: Problems,
    pub live: Option<Live>,
    pub since: Option<Since>,
}

impl Summary {
    /// Every entry the summary names (a group's first, a large saving),
    /// each once, in document order: what a client links to.
    pub fn named_entries(&self) -> Vec<EntryRef> {
        let mut out: Vec<EntryRef> = Vec::new();
        let mut add = |group: &Group| {
            out.extend(group.first.clone());
            for part in &group.parts {
                out.extend(part.first.clone());
            }
        };
        for group in [
            &self.total,
            &self.queue.auto,
            &self.queue.confirm,
            &self.queue.underived,
        ] {
            add(group);
        }
        for groups in [
            &self.by_class,
            &self.by_op_type,
            &self.by_kind,
            &self.by_lifetime,
            &self.queue.reasons,
        ] {
            groups.iter().for_each(&mut add);
        }
        for top in [&self.by_folder, &self.by_file] {
            top.shown.iter().for_each(&mut add);
        }
        for pair in &self.tiers.pairs {
            add(&pair.group);
        }
        if let Some(live) = &self.live {
            for group in [&live.stale, &live.missing, &live.dirty, &live.untracked] {
                add(group);
            }
            for shift in &live.tier_shifts {
                add(&shift.group);
            }
        }
        if let Some(since) = &self.since {
            add(&since.added);
        }
        out.extend(self.largest.iter().map(|s| s.entry.clone()));
        out.sort_by_key(|e| e.index);
        out.dedup_by_key(|e| e.index);
        out
    }
}

/// What the summary is asked with besides the report.
#[derive(Clone, Copy, Debug)]
pub struct SummaryOptions {
    /// How many largest savings, folders and files to list.
    pub top: usize,
}

impl Default for SummaryOptions {
    fn default() -> SummaryOptions {
        SummaryOptions { top: DEFAULT_TOP }
    }
}

/// The project at hand: the facts read and the workspace checks' diagnostics.
#[derive(Clone, Copy)]
pub struct AtHand<'a> {
    pub facts: &'a WorkspaceFacts,
    pub diagnostics: &'a [Diagnostic],
}

/// The key of an entry without the field a group reads.
pub const NONE_KEY: &str = "(none)";

/// The file and the folder of entries without a valid `path`.
pub const NO_PATH: &str = "(no path)";

/// The summary of `document`; None when it is no report.
pub(crate) fn summarize(
    document: Snapshot<'_>,
    options: SummaryOptions,
    at_hand: Option<AtHand<'_>>,
    since: Option<(&str, &ReportDiff)>,
) -> Option<Summary> {
    let index = document.index()?;
    if !document.is_report() {
        return None;
    }
    // Facts of no project (no root found, nothing read) are no project at hand.
    let at_hand = at_hand.filter(|h| h.facts.root.is_some() || h.facts.not_read.is_some());
    let read = at_hand.filter(|h| h.facts.not_read.is_none());
    let entries = &index.entries;
    let mut summary = Summary {
        entries: entries.len(),
        total: Group::new("total"),
        ..Summary::default()
    };
    let mut classes: Vec<Group> = CategoryClass::ALL
        .iter()
        .map(|c| Group {
            parts: CategorySubtype::of_class(*c)
                .map(|s| Group::new(s.as_str()))
                .collect(),
            ..Group::new(c.as_str())
        })
        .collect();
    let mut unclassified = Group::new(NONE_KEY);
    let mut op_types: Vec<Group> = OpType::ALL.iter().map(|o| Group::new(o.as_str())).collect();
    let mut no_op_type = Group::new(NONE_KEY);
    let mut kinds: Vec<Group> = EditKind::ALL
        .iter()
        .map(|k| Group::new(k.as_str()))
        .collect();
    let mut no_kind = Group::new(NONE_KEY);
    let mut lifetimes: Vec<Group> = Lifetime::ALL
        .iter()
        .map(|l| Group::new(l.as_str()))
        .collect();
    let mut no_lifetime = Group::new(NONE_KEY);
    let mut files: Keyed<'_> = Keyed::with_capacity_and_hasher(entries.len(), FIXED);
    let mut pairs: BTreeMap<(u8, u8, u8, bool), TierPair> = BTreeMap::new();
    let mut reasons: HashMap<Option<crate::tier::Step>, Group, _> = HashMap::with_hasher(FIXED);
    let mut queue = Queue {
        auto: Group::new("auto"),
        confirm: Group::new("confirm"),
        underived: Group::new("underived"),
        ..Queue::default()
    };
    let live_tiers = read.map(|h| live_derivations(document, h.facts));
    queue.basis = Some(match live_tiers {
        Some(_) => Basis::Live,
        None => Basis::Text,
    });
    let mut largest: Vec<(u64, usize)> = Vec::new();
    let mut live = at_hand.map(|h| Live {
        root: h.facts.root.clone().unwrap_or_default(),
        not_read: h.facts.not_read.clone(),
        stale: Group::new("stale"),
        missing: Group::new("missing"),
        dirty: Group::new("dirty"),
        untracked: Group::new("untracked"),
        git_absent: match &h.facts.git {
            Some(_) => None,
            None => Some(
                h.facts
                    .git_absent
                    .clone()
                    .unwrap_or_else(|| "no git work tree".into()),
            ),
        },
        ..Live::default()
    });
    let mut shifts: BTreeMap<(u8, u8), TierShift> = BTreeMap::new();
    // The facts' boxes are read first in a loop of nothing else: their
    // loads overlap there, and the pass below finds them in the cache
    // (at 50 000 entries it waited on memory for most of its time).
    let touched = entries.iter().fold(0usize, |n, entry| {
        let summary = usize::from(entry.summary().raw_tokens.is_some());
        let tier = entry
            .tier
            .as_ref()
            .map_or(0, |t| t.possible.first().map_or(0, |p| *p as usize));
        n + summary + tier
    });
    std::hint::black_box(touched);
    for (at, entry) in entries.iter().enumerate() {
        let facts = entry.summary();
        summary.total.add(entry);
        if facts.raw_tokens.is_some() {
            summary.counted += 1;
        }
        if valid_weight(facts.weighted_tokens).is_some() {
            summary.weighted += 1;
        }
        match facts.class.map(class_at) {
            Some(c) => {
                classes[c].add(entry);
                if let Some(subtype) = facts.subtype.filter(|s| s.class() == facts.class.unwrap())
                    && let Some(part) = classes[c]
                        .parts
                        .iter_mut()
                        .find(|p| p.key == subtype.as_str())
                {
                    part.add(entry);
                }
            }
            None => unclassified.add(entry),
        }
        match facts.op_type {
            Some(o) => op_types[OpType::ALL.iter().position(|x| *x == o).unwrap_or(0)].add(entry),
            None => no_op_type.add(entry),
        }
        match facts.kind {
            Some(k) => kinds[EditKind::ALL.iter().position(|x| *x == k).unwrap_or(0)].add(entry),
            None => no_kind.add(entry),
        }
        match facts.lifetime {
            Some(l) => {
                lifetimes[Lifetime::ALL.iter().position(|x| *x == l).unwrap_or(0)].add(entry)
            }
            None => no_lifetime.add(entry),
        }
        // Most paths are their own key, and most files named once: a key
        // is written out only for a path written otherwise.
        let key = (entry.path.as_ref()).map_or(Cow::Borrowed(NO_PATH), |(path, _)| file_key(path));
        files.entry(key).or_default().add(entry);
        if let Some((raw, _)) = facts.raw_tokens {
            largest.push((raw, at));
            if largest.len() >= options.top.saturating_mul(8).max(64) {
                keep_largest(&mut largest, options.top);
            }
        }
        // The tiers: recorded against derived from the text.
        let check = entry.tier.as_deref();
        let recorded = check.and_then(|t| t.recorded);
        let derived = check.map(|t| t.derivation.tier);
        let open = check.is_some_and(|t| t.possible.len() > 1);
        // No valid tier recorded (absent, or not a tier) agrees with nothing.
        let agrees = check.is_some_and(|t| t.recorded.is_some() && t.agrees());
        let key = (
            u8::from(agrees),
            tier_rank(recorded),
            tier_rank(derived),
            open,
        );
        pairs
            .entry(key)
            .or_insert_with(|| TierPair {
                recorded,
                derived,
                open,
                agrees,
                group: Group::default(),
            })
            .group
            .add(entry);
        // The queue: the tier derived now (live where the project is at hand).
        let live_derivation = live_tiers.as_ref().and_then(|l| l.get(&at));
        let derivation: Option<&Derivation> = live_derivation.or(check.map(|t| &t.derivation));
        match derivation {
            Some(d) if d.tier == SafetyTier::Auto => queue.auto.add(entry),
            Some(d) => {
                queue.confirm.add(entry);
                // Keyed by the deciding step: its words are made once a group.
                reasons
                    .entry(d.deciding_rule())
                    .or_insert_with(|| Group::new(d.reason()))
                    .add(entry);
            }
            None => queue.underived.add(entry),
        }
        if let Some(d) = live_derivation
            && Some(d.tier) != recorded
        {
            shifts
                .entry((tier_rank(recorded), tier_rank(Some(d.tier))))
                .or_insert_with(|| TierShift {
                    recorded,
                    live: d.tier,
                    group: Group::default(),
                })
                .group
                .add(entry);
        }
    }
    if let (Some(live), Some(at_hand)) = (&mut live, read) {
        live_facts(live, entries, at_hand);
        live.tier_shifts = shifts.into_values().collect();
    }
    classes.push(unclassified);
    op_types.push(no_op_type);
    kinds.push(no_kind);
    lifetimes.push(no_lifetime);
    summary.by_class = classes;
    summary.by_op_type = op_types;
    summary.by_kind = kinds;
    summary.by_lifetime = lifetimes;
    // Disagreeing pairs first (agrees = 0 sorts first), then by tiers.
    summary.tiers = Tiers {
        disagree: pairs
            .values()
            .filter(|p| !p.agrees && p.recorded.is_some() && p.derived.is_some())
            .map(|p| p.group.entries)
            .sum(),
        pairs: pairs.into_values().collect(),
    };
    let mut reasons: Vec<Group> = reasons.into_values().collect();
    reasons.sort_by(|a, b| b.entries.cmp(&a.entries).then_with(|| a.key.cmp(&b.key)));
    queue.reasons = reasons;
    summary.queue = queue;
    keep_largest(&mut largest, options.top);
    let tier_now = |at: usize| -> Option<SafetyTier> {
        live_tiers
            .as_ref()
            .and_then(|l| l.get(&at))
            .map(|d| d.tier)
            .or(entries[at].tier.as_ref().map(|t| t.derivation.tier))
    };
    summary.largest = largest
        .into_iter()
        .map(|(raw, at)| {
            let entry = entries[at];
            Saving {
                entry: EntryRef {
                    index: entry.index,
                    range: entry.range,
                },
                path: entry
                    .path
                    .as_ref()
                    .map(|(p, _)| p.clone())
                    .unwrap_or_default(),
                raw_tokens: raw,
                weighted_tokens: entry.summary().weighted_tokens,
                op: entry.summary().op.clone().unwrap_or_default(),
                tier: tier_now(at),
            }
        })
        .collect();
    summary.by_folder = top(folders(&files), options.top, "folders");
    summary.by_file = top(files, options.top, "files");
    summary.problems = problems(document, at_hand.map(|h| h.diagnostics));
    summary.live = live;
    summary.since = since.map(|(name, diff)| since_of(name, diff));
    Some(summary)
}

fn class_at(class: CategoryClass) -> usize {
    CategoryClass::ALL
        .iter()
        .position(|c| *c == class)
        .unwrap_or(0)
}

/// A tier's place when sorting: auto, confirm, none.
fn tier_rank(tier: Option<SafetyTier>) -> u8 {
    match tier {
        Some(SafetyTier::Auto) => 0,
        Some(SafetyTier::Confirm) => 1,
        None => 2,
    }
}

/// The `top` largest (raw tokens, entry) pairs, largest first, the earlier
/// entry first among equals.
fn keep_largest(largest: &mut Vec<(u64, usize)>, top: usize) {
    largest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    largest.truncate(top);
}

/// Groups by a key borrowed from the facts where it can be, hashed the
/// same way in every run (the sums' order, and so their last bits, too).
type Keyed<'a> = HashMap<Cow<'a, str>, Group, foldhash::fast::FixedState>;
const FIXED: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0);

/// A path's key as compared (`paths::path_key`), borrowed where the path
/// is written as its key already (no `./`, no empty segment).
fn file_key(path: &str) -> Cow<'_, str> {
    // One pass over the bytes (a path is short: searching it segment by
    // segment cost more than the rest of the summary).
    let bytes = path.as_bytes();
    let mut start = 0;
    let mut plain = true;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'/' {
            let segment = &bytes[start..i];
            plain &= !segment.is_empty() && segment != b".";
            start = i + 1;
        }
    }
    plain &= &bytes[start..] != b".";
    match plain {
        true => Cow::Borrowed(path),
        false => Cow::Owned(crate::paths::path_key(path)),
    }
}

/// The folder of a file's key at `depth`: its first `depth` folders, fewer
/// where it has fewer (a folder's key, `tmp/`, is a folder itself), `./` at
/// the top. Every `/` closes a folder: a file's name has none after it.
fn folder_at(key: &str, depth: usize) -> &str {
    if key == NO_PATH {
        return NO_PATH;
    }
    let mut seen = 0;
    let mut last = None;
    for (i, &b) in key.as_bytes().iter().enumerate() {
        if b == b'/' {
            seen += 1;
            last = Some(i);
            if seen == depth {
                break;
            }
        }
    }
    match last {
        Some(i) => &key[..=i],
        None => "./",
    }
}

/// The files' groups summed by folder: the top-level folders, or, where
/// every path shares its first folders (`docs/`), the first level below
/// them that tells paths apart.
fn folders<'a>(files: &'a Keyed<'_>) -> Keyed<'a> {
    const DEEPEST: usize = 4;
    let mut depth = 1;
    while depth < DEEPEST {
        let mut first = None;
        let one = files.keys().filter(|k| *k != NO_PATH).all(|key| {
            let folder = folder_at(key, depth);
            *first.get_or_insert(folder) == folder
        });
        if !one || files.len() <= 1 {
            break;
        }
        depth += 1;
    }
    let mut out = Keyed::with_hasher(FIXED);
    for (key, group) in files {
        let summed = out.entry(Cow::Borrowed(folder_at(key, depth))).or_default();
        summed.absorb(group);
        if let Some(first) = &group.first
            && summed.first.as_ref().is_none_or(|f| f.index > first.index)
        {
            summed.first = Some(first.clone());
        }
    }
    out
}

/// The `n` groups with the most raw tokens, the rest summed.
fn top(groups: Keyed<'_>, n: usize, what: &str) -> Top {
    let mut groups: Vec<(Cow<'_, str>, Group)> = groups.into_iter().collect();
    let order = |a: &(Cow<'_, str>, Group), b: &(Cow<'_, str>, Group)| {
        b.1.raw_tokens
            .cmp(&a.1.raw_tokens)
            .then(b.1.entries.cmp(&a.1.entries))
            .then_with(|| a.0.cmp(&b.0))
    };
    // Only the first `n` are ordered; the rest are summed as they come.
    if groups.len() > n && n > 0 {
        groups.select_nth_unstable_by(n - 1, order);
        groups[..n].sort_by(order);
    } else {
        groups.sort_by(order);
    }
    let mut groups: Vec<Group> = groups
        .into_iter()
        .enumerate()
        .map(|(i, (key, group))| Group {
            // Keys written out for those shown alone.
            key: if i < n {
                key.into_owned()
            } else {
                String::new()
            },
            ..group
        })
        .collect();
    let count = groups.len();
    let rest = (count > n).then(|| {
        let mut rest = Group::new(format!(
            "{} more {what}",
            crate::rollup::grouped((count - n) as u64)
        ));
        for group in &groups[n..] {
            rest.absorb(group);
        }
        rest
    });
    groups.truncate(n);
    Top {
        shown: groups,
        rest,
        groups: count,
    }
}

/// The report's own diagnostics and the workspace checks' by invariant and
/// code. Only the codes are read: the per-entry analysis renders none.
fn problems(document: Snapshot<'_>, workspace: Option<&[Diagnostic]>) -> Problems {
    let counts: RefCell<BTreeMap<Code, (usize, TextRange)>> = RefCell::new(BTreeMap::new());
    let severities = RefCell::new([0usize; 3]);
    let count = |d: &Diagnostic| {
        let mut counts = counts.borrow_mut();
        let slot = counts.entry(d.code).or_insert((0, d.range));
        slot.0 += 1;
        if d.range.start < slot.1.start {
            slot.1 = d.range;
        }
        severities.borrow_mut()[severity_at(d.severity)] += 1;
        false
    };
    document.diagnostics_where(&count, usize::MAX);
    for diagnostic in workspace.unwrap_or_default() {
        count(diagnostic);
    }
    let omitted = document.analysed.omitted();
    let [errors, warnings, others] = severities.into_inner();
    let mut problems = Problems {
        errors: errors + omitted.errors as usize,
        warnings,
        others,
        invariants: Vec::new(),
        not_by_code: omitted.count as usize,
    };
    // Those left out past the cap: errors are counted, the rest by severity unknown.
    problems.others += (omitted.count - omitted.errors) as usize;
    let mut by_invariant: BTreeMap<u32, Vec<CodeCount>> = BTreeMap::new();
    for (code, (count, first)) in counts.into_inner() {
        by_invariant
            .entry(code.invariant())
            .or_default()
            .push(CodeCount { code, count, first });
    }
    problems.invariants = by_invariant
        .into_iter()
        .map(|(invariant, mut codes)| {
            codes.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(&b.code)));
            InvariantProblems { invariant, codes }
        })
        .collect();
    problems
}

fn severity_at(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Information | Severity::Hint => 2,
    }
}

/// The live derivation of each lifecycle entry, by its place among the
/// entries: `derive_safety_tier` with its path's git state and its
/// evidence as read today (each such entry parsed in place for its
/// served path; the others are not read).
fn live_derivations(
    document: Snapshot<'_>,
    facts_read: &WorkspaceFacts,
) -> HashMap<usize, Derivation> {
    let mut out = HashMap::new();
    let Some(index) = document.index() else {
        return out;
    };
    let is_lifecycle = |entry: &EntryFacts| {
        entry
            .tier
            .as_ref()
            .is_some_and(|t| t.derivation.inputs.lifecycle.is_some())
    };
    fn derive(
        out: &mut HashMap<usize, Derivation>,
        facts: &WorkspaceFacts,
        at: usize,
        node: crate::syntax::Node<'_>,
        entry_facts: &EntryFacts,
    ) {
        if let Some(live) = crate::project_checks::live_derivation(facts, node, Some(entry_facts)) {
            out.insert(at, live.derivation);
        }
    }
    match document.per_entry() {
        // Each lifecycle entry parsed in place, found by its start.
        Some(_) => {
            for (at, entry) in index.entries.iter().enumerate() {
                if is_lifecycle(entry) {
                    document.entry_starting(entry.range.start, |node, facts, _| {
                        derive(&mut out, facts_read, at, node, facts)
                    });
                }
            }
        }
        // The whole tree's entries, read once in order, each with its facts.
        None => {
            if let Some(tree) = document.report_tree() {
                tree.each_entry(|node, facts, _| {
                    if let Some(facts) = facts.filter(|f| is_lifecycle(f)) {
                        // Facts are kept one per entry, in order.
                        let at = match index.entries.get(facts.index) {
                            Some(e) if std::ptr::eq(*e, facts) => facts.index,
                            _ => (index.entries.iter())
                                .position(|e| std::ptr::eq(*e, facts))
                                .unwrap_or(facts.index),
                        };
                        derive(&mut out, facts_read, at, node, facts);
                    }
                });
            }
        }
    }
    out
}

/// Stale, missing, dirty and untracked entries, from the workspace checks'
/// diagnostics (each found in the entry around it) and git's facts.
fn live_facts(live: &mut Live, entries: &[&EntryFacts], at_hand: AtHand<'_>) {
    // The place among `entries` of the entry around `offset`.
    let entry_of = |offset: usize| -> Option<usize> {
        let at = entries
            .partition_point(|e| e.range.start <= offset)
            .checked_sub(1)?;
        (offset <= entries[at].range.end).then_some(at)
    };
    let mut stale = Vec::new();
    let mut missing = Vec::new();
    for diagnostic in at_hand.diagnostics {
        let list = match diagnostic.code {
            Code::StaleExactEdit => &mut stale,
            Code::PathMissing => &mut missing,
            _ => continue,
        };
        if let Some(at) = entry_of(diagnostic.range.start) {
            list.push(at);
        }
    }
    for (list, group) in [(stale, &mut live.stale), (missing, &mut live.missing)] {
        let mut list = list;
        list.sort_unstable();
        list.dedup();
        for at in list {
            group.add(entries[at]);
        }
    }
    let Some(git) = &at_hand.facts.git else {
        return;
    };
    for entry in entries {
        let is_lifecycle = entry
            .tier
            .as_ref()
            .is_some_and(|t| t.derivation.inputs.lifecycle.is_some());
        let Some((path, _)) = entry.path.as_ref().filter(|_| is_lifecycle) else {
            continue;
        };
        if !git.paths.contains_key(path.as_str()) {
            continue;
        }
        live.git_read_for += 1;
        if git.tracked(path).fact == Fact::No {
            live.untracked.add(entry);
        } else if git.clean(path).fact == Fact::No {
            live.dirty.add(entry);
        }
    }
}

fn since_of(name: &str, diff: &ReportDiff) -> Since {
    let mut added = Group::new("added");
    for item in &diff.entries.added {
        added.entries += 1;
        added.raw_tokens = added
            .raw_tokens
            .saturating_add(item.raw_tokens.unwrap_or(0));
        if added.first.is_none() {
            added.first = Some(EntryRef {
                index: item.index,
                range: item.range,
            });
        }
    }
    let mut gone = Group::new("gone");
    for item in &diff.entries.gone {
        gone.entries += 1;
        gone.raw_tokens = gone.raw_tokens.saturating_add(item.raw_tokens.unwrap_or(0));
    }
    let mut changes: BTreeMap<(u8, u8), usize> = BTreeMap::new();
    for change in &diff.entries.changed {
        if change.tier.is_some() && change.old.tier != change.new.tier {
            *changes
                .entry((tier_rank(change.old.tier), tier_rank(change.new.tier)))
                .or_default() += 1;
        }
    }
    let tier = |rank: u8| match rank {
        0 => Some(SafetyTier::Auto),
        1 => Some(SafetyTier::Confirm),
        _ => None,
    };
    Since {
        name: name.to_string(),
        added,
        gone,
        changed: diff.entries.changed.len(),
        tier_changes: changes
            .into_iter()
            .map(|((from, to), n)| (tier(from), tier(to), n))
            .collect(),
        old_raw_tokens: diff.old.rollup.raw_total,
        new_raw_tokens: diff.new.rollup.raw_total,
        old_entries: diff.old.entries,
        new_entries: diff.new.entries,
    }
}

#[cfg(test)]
mod tests;
