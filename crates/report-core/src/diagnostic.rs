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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_tier_codes_enforce_invariant_7() {
        assert_eq!(Code::TierMismatch.invariant(), 7);
        assert_eq!(Code::UnknownSafetyTier.invariant(), 7);
    }
}
