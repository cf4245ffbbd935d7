//! Diagnostic codes, severities and the diagnostic itself: where (a byte
//! range) is kept apart from why (a stable code) and the rendered message.

use crate::fix::Fix;
use crate::text::{Shift, TextRange};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

/// Declares the codes with their spelling, the invariant of `invariants.md`
/// they enforce, and their severity.
macro_rules! codes {
    ($($variant:ident = $text:literal, $invariant:literal, $severity:ident;)+) => {
        /// A stable diagnostic code. Each enforces one numbered invariant of `invariants.md`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($variant),+ }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),+];

            /// The kebab-case name shown to users and matched by tools.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $text),+ }
            }

            /// The number of the invariant in `invariants.md` this code enforces.
            pub fn invariant(self) -> u32 {
                match self { $(Code::$variant => $invariant),+ }
            }

            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity),+ }
            }

            pub fn parse(text: &str) -> Option<Code> {
                match text { $($text => Some(Code::$variant),)+ _ => None }
            }
        }
    };
}

codes! {
    InvalidUtf8 = "invalid-utf8", 1, Error;
    SyntaxError = "syntax-error", 1, Error;
    NestingTooDeep = "nesting-too-deep", 1, Error;
    EmptyDocument = "empty-document", 1, Error;
    RootNotObject = "root-not-object", 1, Error;
    DuplicateKey = "duplicate-key", 1, Error;

    MissingField = "missing-field", 2, Error;
    WrongType = "wrong-type", 2, Error;
    InvalidCount = "invalid-count", 2, Error;
    UnknownField = "unknown-field", 2, Information;
    UnsupportedSchemaVersion = "unsupported-schema-version", 3, Error;
    InvalidGeneratedAt = "invalid-generated-at", 3, Error;
    DecimalComma = "decimal-comma", 3, Hint;
    PathNotRelative = "path-not-relative", 4, Error;
    EmptyProjectRoot = "empty-project-root", 4, Error;
    EntryPathNotInShortlist = "entry-path-not-in-shortlist", 4, Error;
    UnknownCategoryClass = "unknown-category-class", 5, Error;
    UnknownCategorySubtype = "unknown-category-subtype", 5, Error;
    SubtypeClassMismatch = "subtype-class-mismatch", 5, Error;
    UnknownOpType = "unknown-op-type", 6, Error;
    ExactEditMissing = "exact-edit-missing", 6, Error;
    ExactEditForbidden = "exact-edit-forbidden", 6, Error;
    OpMismatch = "op-mismatch", 6, Error;
    UnknownSafetyTier = "unknown-safety-tier", 7, Error;
    TierMismatch = "tier-mismatch", 7, Error;
    UnknownExactEditKind = "unknown-exact-edit-kind", 8, Error;
    InvalidAnchor = "invalid-anchor", 8, Error;
    InvalidSha256 = "invalid-sha256", 8, Error;
    InvalidCanonicalRef = "invalid-canonical-ref", 8, Error;
    UnknownExtractionTarget = "unknown-extraction-target", 8, Error;
    CharacterizationMismatch = "characterization-mismatch", 8, Error;
    UnknownLifetime = "unknown-lifetime", 9, Error;
    ServedWhenConflict = "served-when-conflict", 9, Error;
    ServedWhenMissing = "served-when-missing", 9, Error;
    ServedWhenUnexpected = "served-when-unexpected", 9, Error;
    LifecycleRequired = "lifecycle-required", 9, Error;
    LifecycleMismatch = "lifecycle-mismatch", 9, Error;
    UnknownInjectionFrequency = "unknown-injection-frequency", 10, Error;
    PromotionCandidateUnknownEntry = "promotion-candidate-unknown-entry", 11, Error;
    PromotionCandidateNotClassifierJudged = "promotion-candidate-not-classifier-judged", 11, Error;
    MultilinePitch = "multiline-pitch", 11, Error;
    DocumentTooLarge = "document-too-large", 12, Error;
    TooManyDiagnostics = "too-many-diagnostics", 12, Warning;
    DocumentOutOfSync = "document-out-of-sync", 12, Warning;
    CheckedFromDisk = "checked-from-disk", 12, Information;
    WorkspaceRootUnknown = "workspace-root-unknown", 13, Information;
    PathOutsideRoot = "path-outside-root", 13, Warning;
    PathMissing = "path-missing", 13, Warning;
    PathUnreadable = "path-unreadable", 13, Warning;
    StaleExactEdit = "stale-exact-edit", 13, Warning;
    AnchorPastEnd = "anchor-past-end", 13, Warning;
    OverlappingEdits = "overlapping-edits", 13, Warning;
    DedupeDiverged = "dedupe-diverged", 13, Error;
    LiveTierConfirm = "live-tier-confirm", 13, Warning;
    ConventionUnknown = "convention-unknown", 13, Warning;
    ConventionPitchMismatch = "convention-pitch-mismatch", 13, Warning;
    PromotionCandidateMissing = "promotion-candidate-missing", 13, Hint;
    ModifiedAfterCheck = "modified-after-check", 13, Hint;
    ReplaceMatchMissing = "replace-match-missing", 13, Warning;
    TokenCountMismatch = "token-count-mismatch", 13, Hint;
    RootOutsideWorkspace = "root-outside-workspace", 13, Information;
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A second place that explains a diagnostic (the shortlist, for a path missing from it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub range: TextRange,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// The exact offending node: the value for a wrong value, the key for a
    /// misplaced key, the enclosing object for a missing key.
    pub range: TextRange,
    /// What was found and what was expected.
    pub message: String,
    pub related: Vec<Related>,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// Moves every range it holds (its own, related ones, its fix's edits).
    pub fn shift(&mut self, shift: Shift) {
        self.range = shift.range(self.range);
        for related in &mut self.related {
            related.range = shift.range(related.range);
        }
        if let Some(fix) = &mut self.fix {
            for edit in &mut fix.edits {
                edit.range = shift.range(edit.range);
            }
        }
    }

    /// The order diagnostics are reported in: by position, then code, then
    /// message, so that it does not depend on the order checks ran in.
    pub fn order(a: &Diagnostic, b: &Diagnostic) -> std::cmp::Ordering {
        (a.range.start, a.range.end, a.code, &a.message).cmp(&(
            b.range.start,
            b.range.end,
            b.code,
            &b.message,
        ))
    }

    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            range,
            message: message.into(),
            related: Vec::new(),
            fix: None,
        }
    }

    pub fn with_related(mut self, range: TextRange, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related {
            range,
            message: message.into(),
        });
        self
    }

    pub fn with_fix(mut self, fix: Option<Fix>) -> Diagnostic {
        self.fix = fix;
        self
    }
}

/// Which diagnostics an analysis keeps: at most `max`, errors before lesser
/// severities, then in document order ([`rank`]); the others are only
/// counted ([`Omitted`]). So an analysis's memory follows its document, not
/// the number of problems in it (two million scalars in `entries` are two
/// million errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keep {
    pub max: usize,
    /// Only those with a preferred fix, however many: what fix-all applies.
    pub preferred_fixes_only: bool,
    /// Only those whose range touches this one, however many: what quick
    /// fixes at a cursor need.
    pub touching: Option<TextRange>,
}

impl Keep {
    /// What `analyze` keeps: far more than anyone reads.
    pub const DEFAULT: Keep = Keep::at_most(100_000);
    /// Every diagnostic (one entry's checks).
    pub const ALL: Keep = Keep::at_most(usize::MAX);
    /// Every diagnostic with a preferred fix, and no other.
    pub const PREFERRED_FIXES: Keep = Keep {
        max: usize::MAX,
        preferred_fixes_only: true,
        touching: None,
    };

    pub const fn at_most(max: usize) -> Keep {
        Keep {
            max,
            preferred_fixes_only: false,
            touching: None,
        }
    }

    /// Every diagnostic whose range touches `range`.
    pub const fn touching(range: TextRange) -> Keep {
        Keep {
            max: usize::MAX,
            preferred_fixes_only: false,
            touching: Some(range),
        }
    }

    fn filters(self) -> bool {
        self.preferred_fixes_only || self.touching.is_some()
    }

    fn wants(self, diagnostic: &Diagnostic) -> bool {
        let r = diagnostic.range;
        (!self.preferred_fixes_only || diagnostic.fix.as_ref().is_some_and(|f| f.preferred))
            && self
                .touching
                .is_none_or(|t| r.start <= t.end && t.start <= r.end)
    }
}

/// The order in which diagnostics are kept under a cap: errors first, then
/// lesser severities, each in document order.
pub fn rank(a: &Diagnostic, b: &Diagnostic) -> std::cmp::Ordering {
    a.severity
        .cmp(&b.severity)
        .then_with(|| Diagnostic::order(a, b))
}

/// What is left of a diagnostic an analysis did not keep: where it starts,
/// its severity, whether it had a fix. Eight bytes, for counts and for
/// telling which entry it belonged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OmittedAt {
    pub start: u32,
    pub severity: Severity,
    pub fixable: bool,
}

/// The diagnostics an analysis counted but did not keep. Every one of them
/// ranks after every kept one ([`rank`]), unless kept only for its fix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Omitted {
    pub(crate) at: Vec<OmittedAt>,
}

impl Omitted {
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// How many have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.at.iter().filter(|o| o.severity == severity).count()
    }

    /// How many had a fix.
    pub fn fixable(&self) -> usize {
        self.at.iter().filter(|o| o.fixable).count()
    }

    /// How many, and how many had a fix.
    pub fn counted(&self) -> OmittedCount {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        OmittedCount {
            count: clamp(self.len()),
            fixable: clamp(self.fixable()),
            errors: clamp(self.count(Severity::Error)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &OmittedAt> {
        self.at.iter()
    }

    pub(crate) fn push(&mut self, diagnostic: &Diagnostic) {
        self.at.push(OmittedAt {
            start: u32::try_from(diagnostic.range.start).unwrap_or(u32::MAX),
            severity: diagnostic.severity,
            fixable: diagnostic.fix.is_some(),
        });
    }

    pub fn extend(&mut self, other: Omitted) {
        self.at.extend(other.at);
    }

    pub(crate) fn retain(&mut self, keep: impl FnMut(&OmittedAt) -> bool) {
        self.at.retain(keep);
    }
}

/// How many diagnostics an analysis left out, how many of them had a fix,
/// and how many were errors: what the per-entry analysis keeps of an
/// [`Omitted`] (twelve bytes an entry).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OmittedCount {
    pub count: u32,
    pub fixable: u32,
    pub errors: u32,
}

impl OmittedCount {
    pub(crate) fn add(&mut self, other: OmittedCount) {
        self.count += other.count;
        self.fixable += other.fixable;
        self.errors += other.errors;
    }

    pub(crate) fn remove(&mut self, other: OmittedCount) {
        self.count -= other.count;
        self.fixable -= other.fixable;
        self.errors -= other.errors;
    }

    pub(crate) fn one(diagnostic: &Diagnostic) -> OmittedCount {
        OmittedCount::of(diagnostic.severity, diagnostic.fix.is_some())
    }

    pub(crate) fn of(severity: Severity, fixable: bool) -> OmittedCount {
        OmittedCount {
            count: 1,
            fixable: u32::from(fixable),
            errors: u32::from(severity == Severity::Error),
        }
    }
}

/// Collects diagnostics under a [`Keep`], compacting now and then so that
/// no more than about twice the cap are ever held.
#[derive(Debug)]
pub(crate) struct Collector {
    keep: Keep,
    pub kept: Vec<Diagnostic>,
    pub omitted: Omitted,
    /// The length at which the next compaction happens.
    next: usize,
}

impl Collector {
    pub fn new(keep: Keep) -> Collector {
        Collector {
            keep,
            kept: Vec::new(),
            omitted: Omitted::default(),
            next: Collector::threshold(keep, 0),
        }
    }

    fn threshold(keep: Keep, kept: usize) -> usize {
        match keep.filters() {
            true => (kept.saturating_mul(2)).max(4096),
            false => keep.max.saturating_add(keep.max.max(4096)),
        }
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.kept.push(diagnostic);
        if self.kept.len() >= self.next {
            self.compact();
        }
    }

    /// Down to what the cap keeps; the rest counted.
    pub fn compact(&mut self) {
        let keep = self.keep;
        if keep.filters() {
            let omitted = &mut self.omitted;
            self.kept.retain(|d| {
                let wanted = keep.wants(d);
                if !wanted {
                    omitted.push(d);
                }
                wanted
            });
        }
        if self.kept.len() > keep.max {
            self.kept.select_nth_unstable_by(keep.max, rank);
            for dropped in self.kept.drain(keep.max..) {
                self.omitted.push(&dropped);
            }
        }
        self.next = Collector::threshold(keep, self.kept.len());
    }

    pub fn keep(&self) -> Keep {
        self.keep
    }

    /// Takes in what `other` (under the same [`Keep`]) collected: the cap
    /// then keeps the best-ranked of both, as if all had been pushed here.
    pub fn absorb(&mut self, other: Collector) {
        debug_assert_eq!(self.keep, other.keep);
        self.omitted.extend(other.omitted);
        for diagnostic in other.kept {
            self.push(diagnostic);
        }
    }

    /// What is kept, in no particular order, and what was counted.
    pub fn finish(mut self) -> (Vec<Diagnostic>, Omitted) {
        self.compact();
        (self.kept, self.omitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collector that took in another's (compacted) collection keeps and
    /// counts what one collector given everything does.
    #[test]
    fn a_collector_absorbing_another_keeps_what_one_collector_keeps() {
        let all: Vec<Diagnostic> = (0..40)
            .map(|i| {
                let code = Code::ALL[(i * 7) % Code::ALL.len()];
                Diagnostic::new(code, TextRange::new(i * 3, i * 3 + 1), format!("d{i}"))
            })
            .collect();
        let summary = |collector: Collector| {
            let (mut kept, omitted) = collector.finish();
            kept.sort_by(Diagnostic::order);
            let mut at: Vec<_> = omitted.iter().map(|o| (o.start, o.severity)).collect();
            at.sort();
            (kept, at)
        };
        for keep in [Keep::at_most(5), Keep::touching(TextRange::new(20, 70))] {
            let mut one = Collector::new(keep);
            all.iter().cloned().for_each(|d| one.push(d));
            let (mut first, mut second) = (Collector::new(keep), Collector::new(keep));
            all[..25].iter().cloned().for_each(|d| first.push(d));
            all[25..].iter().cloned().for_each(|d| second.push(d));
            // Each half left out some of its own already.
            first.compact();
            second.compact();
            assert!(!second.omitted.is_empty(), "{keep:?}");
            first.absorb(second);
            let (expected, merged) = (summary(one), summary(first));
            assert!(!expected.1.is_empty(), "{keep:?}: some are left out");
            assert_eq!(expected, merged, "{keep:?}");
        }
    }

    #[test]
    fn codes_are_unique_kebab_case_and_parse_back() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-' || b.is_ascii_digit()),
                "{text}"
            );
            assert_eq!(Code::parse(text), Some(*code));
        }
    }

    #[test]
    fn a_collector_keeps_the_best_ranked_and_counts_the_rest() {
        let at = |start: usize, code: Code| Diagnostic::new(code, TextRange::empty(start), "x");
        let mut collector = Collector::new(Keep::at_most(3));
        // Warnings early in the text, errors late: errors are kept first.
        for i in 0..6000 {
            collector.push(at(i, Code::PathMissing));
            assert!(collector.kept.len() < 3 + 4096 + 1, "compacted as it goes");
        }
        for i in (6000..6010).rev() {
            collector.push(at(i, Code::WrongType));
        }
        let (kept, omitted) = collector.finish();
        let mut starts: Vec<usize> = kept.iter().map(|d| d.range.start).collect();
        starts.sort();
        assert_eq!(starts, [6000, 6001, 6002]);
        assert_eq!(omitted.len(), 6007);
        assert_eq!(omitted.count(Severity::Error), 7);
        assert_eq!(omitted.count(Severity::Warning), 6000);
        // Every one left out ranks after every one kept.
        let worst = kept.iter().max_by(|a, b| rank(a, b)).unwrap();
        assert!(
            omitted
                .iter()
                .all(|o| (o.severity, o.start as usize) > (worst.severity, worst.range.start))
        );
    }

    #[test]
    fn a_collector_for_fix_all_keeps_only_preferred_fixes() {
        let fixed = |start: usize| {
            Diagnostic::new(Code::TierMismatch, TextRange::empty(start), "x").with_fix(Some(Fix {
                title: "t".into(),
                edits: Vec::new(),
                preferred: true,
            }))
        };
        let mut collector = Collector::new(Keep::PREFERRED_FIXES);
        for i in 0..10_000 {
            collector.push(Diagnostic::new(Code::WrongType, TextRange::empty(i), "x"));
            collector.push(fixed(i));
        }
        let (kept, omitted) = collector.finish();
        assert_eq!(kept.len(), 10_000);
        assert!(kept.iter().all(|d| d.fix.is_some()));
        assert_eq!((omitted.len(), omitted.fixable()), (10_000, 0));
    }

    #[test]
    fn the_tier_codes_enforce_invariant_7() {
        assert_eq!(Code::TierMismatch.invariant(), 7);
        assert_eq!(Code::UnknownSafetyTier.invariant(), 7);
    }
}
