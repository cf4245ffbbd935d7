//! The frozen contract of the machine report as enums and constants: field
//! names, closed value sets and each exact-edit kind's fixed characterization.
//! Nothing here reads text; `validate` applies it to a tree.

/// A closed set of string values, as the checks see it: they parse a field's
/// text and, when it is none of the values, name the set in the message.
pub trait ClosedEnum: Sized {
    /// What one value is, with its article, for messages: "an op type".
    const WHAT: &'static str;

    fn parse(text: &str) -> Option<Self>;

    /// The accepted spellings, quoted and comma-separated, for messages.
    fn expected_list() -> String;
}

/// Declares a closed set of string values with `ALL`, `as_str` and `parse`,
/// and its [`ClosedEnum`] with `$what` as what one value is.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }

            /// The accepted spellings, quoted and comma-separated, for messages.
            pub fn expected_list() -> String {
                Self::ALL.iter().map(|v| format!("\"{}\"", v.as_str())).collect::<Vec<_>>().join(", ")
            }
        }

        impl ClosedEnum for $name {
            const WHAT: &'static str = $what;

            fn parse(text: &str) -> Option<$name> {
                $name::parse(text)
            }

            fn expected_list() -> String {
                $name::expected_list()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// `category.class`.
    CategoryClass, "a category class" { Stale = "stale", Bloat = "bloat" }
);

string_enum!(
    /// `category.subtype`; each belongs to exactly one class.
    CategorySubtype, "a category subtype" {
        Contradicted = "contradicted",
        Orphaned = "orphaned",
        Superseded = "superseded",
        Provisional = "provisional",
        CompletedInPlace = "completed-in-place",
        Duplicated = "duplicated",
        Distill = "distill",
        Split = "split",
        Freeze = "freeze",
    }
);

impl CategorySubtype {
    pub fn class(self) -> CategoryClass {
        match self {
            CategorySubtype::Contradicted
            | CategorySubtype::Orphaned
            | CategorySubtype::Superseded
            | CategorySubtype::Provisional
            | CategorySubtype::CompletedInPlace
            | CategorySubtype::Duplicated => CategoryClass::Stale,
            CategorySubtype::Distill | CategorySubtype::Split | CategorySubtype::Freeze => {
                CategoryClass::Bloat
            }
        }
    }

    pub fn of_class(class: CategoryClass) -> impl Iterator<Item = CategorySubtype> {
        CategorySubtype::ALL
            .iter()
            .copied()
            .filter(move |s| s.class() == class)
    }
}

string_enum!(
    /// `op_type`.
    OpType, "an op type" { Deterministic = "deterministic", Generative = "generative" }
);

string_enum!(
    /// `safety_tier`.
    SafetyTier, "a tier" { Auto = "auto", Confirm = "confirm" }
);

string_enum!(
    /// `exact_edit.kind`.
    EditKind, "an exact-edit kind" {
        DeleteRange = "delete-range",
        MoveToArchive = "move-to-archive",
        InsertFrontmatter = "insert-frontmatter",
        ReplaceText = "replace-text",
        Dedupe = "dedupe",
        Delete = "delete",
        ExtractThenDelete = "extract-then-delete",
    }
);

/// Whether an op can be undone without help from outside the repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reversibility {
    Fixed(bool),
    /// Delete kinds: only git history can bring the file back.
    GitDependent,
}

/// A kind's inherent `(is_destructive, is_reversible)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Characterization {
    pub is_destructive: bool,
    pub is_reversible: Reversibility,
}

impl EditKind {
    pub fn characterization(self) -> Characterization {
        let (is_destructive, is_reversible) = match self {
            EditKind::DeleteRange => (true, Reversibility::Fixed(false)),
            EditKind::MoveToArchive
            | EditKind::InsertFrontmatter
            | EditKind::ReplaceText
            | EditKind::Dedupe => (false, Reversibility::Fixed(true)),
            EditKind::Delete | EditKind::ExtractThenDelete => (true, Reversibility::GitDependent),
        };
        Characterization {
            is_destructive,
            is_reversible,
        }
    }

    /// Delete kinds, whose tier also depends on lifecycle evidence and git state.
    pub fn is_lifecycle_op(self) -> bool {
        matches!(self, EditKind::Delete | EditKind::ExtractThenDelete)
    }

    /// The sub-fields a kind must carry besides `kind` and `expected_sha256`.
    pub fn required_fields(self) -> &'static [&'static str] {
        match self {
            EditKind::DeleteRange => &["anchor"],
            EditKind::MoveToArchive => &["anchor", "dest_path"],
            EditKind::InsertFrontmatter => &["key", "value"],
            EditKind::ReplaceText => &["anchor", "match", "replacement"],
            EditKind::Dedupe => &["anchor", "canonical_ref"],
            EditKind::Delete => &["anchor", "lifecycle"],
            EditKind::ExtractThenDelete => &["anchor", "lifecycle", "extraction_target"],
        }
    }
}

string_enum!(
    /// `lifecycle.lifetime`.
    Lifetime, "a lifetime" { Keep = "keep", Temporary = "temporary", DeleteOnceServed = "delete-once-served" }
);

string_enum!(
    /// `token_estimate.injection_frequency`.
    InjectionFrequency, "an injection frequency" { PerSession = "per-session", OnDemand = "on-demand" }
);

string_enum!(
    /// `exact_edit.extraction_target` of an `extract-then-delete`.
    ExtractionTarget, "an extraction target" { RepoDurable = "repo-durable", CrossRepo = "cross-repo" }
);

/// The top-level fields, in the order a report writes them.
pub const ENVELOPE_FIELDS: &[&str] = &[
    "schema_version",
    "tool_version",
    "generated_at",
    "scan",
    "shortlist",
    "entries",
    "promotion_candidates",
];

pub const SCAN_FIELDS: &[&str] = &[
    "project_root",
    "scope_globs",
    "excluded_dirs",
    "files_scanned",
];

pub const ENTRY_FIELDS: &[&str] = &[
    "path",
    "category",
    "signals",
    "op",
    "op_type",
    "is_destructive",
    "is_reversible",
    "safety_tier",
    "token_estimate",
];

/// Entry fields that are optional or conditional, so not "unknown".
pub const ENTRY_OPTIONAL_FIELDS: &[&str] = &["exact_edit", "lifecycle"];

pub const CATEGORY_FIELDS: &[&str] = &["class", "subtype"];

pub const LIFECYCLE_FIELDS: &[&str] = &["rule_ref", "lifetime"];
pub const LIFECYCLE_OPTIONAL_FIELDS: &[&str] = &["served_when_path", "served_when"];

pub const TOKEN_ESTIMATE_FIELDS: &[&str] = &["raw_tokens"];
pub const TOKEN_ESTIMATE_OPTIONAL_FIELDS: &[&str] = &["injection_frequency", "weighted_tokens"];

pub const PROMOTION_CANDIDATE_FIELDS: &[&str] = &["path", "name", "pitch"];

pub const SHORTLIST_OBJECT_FIELDS: &[&str] = &["path", "lifecycle"];

/// Every field an `exact_edit` of some kind may carry.
pub const EXACT_EDIT_FIELDS: &[&str] = &[
    "kind",
    "expected_sha256",
    "anchor",
    "dest_path",
    "key",
    "value",
    "match",
    "replacement",
    "canonical_ref",
    "lifecycle",
    "extraction_target",
    "target_doc",
];

pub const ANCHOR_FIELDS: &[&str] = &["start_line", "end_line"];

/// The schema major version this validator understands.
pub const SUPPORTED_SCHEMA_MAJOR: &str = "1";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subtype_belongs_to_the_class_the_spec_gives() {
        let stale: Vec<_> = CategorySubtype::of_class(CategoryClass::Stale)
            .map(|s| s.as_str())
            .collect();
        assert_eq!(
            stale,
            [
                "contradicted",
                "orphaned",
                "superseded",
                "provisional",
                "completed-in-place",
                "duplicated"
            ]
        );
        let bloat: Vec<_> = CategorySubtype::of_class(CategoryClass::Bloat)
            .map(|s| s.as_str())
            .collect();
        assert_eq!(bloat, ["distill", "split", "freeze"]);
    }

    #[test]
    fn characterizations_match_the_spec() {
        use Reversibility::*;
        let table: Vec<_> = EditKind::ALL
            .iter()
            .map(|k| {
                (
                    k.as_str(),
                    k.characterization().is_destructive,
                    k.characterization().is_reversible,
                )
            })
            .collect();
        assert_eq!(
            table,
            [
                ("delete-range", true, Fixed(false)),
                ("move-to-archive", false, Fixed(true)),
                ("insert-frontmatter", false, Fixed(true)),
                ("replace-text", false, Fixed(true)),
                ("dedupe", false, Fixed(true)),
                ("delete", true, GitDependent),
                ("extract-then-delete", true, GitDependent),
            ]
        );
    }

    #[test]
    fn parse_round_trips_and_rejects_other_spellings() {
        for kind in EditKind::ALL {
            assert_eq!(EditKind::parse(kind.as_str()), Some(*kind));
        }
        assert_eq!(EditKind::parse("Delete"), None);
        assert_eq!(SafetyTier::parse("AUTO"), None);
        assert_eq!(OpType::expected_list(), "\"deterministic\", \"generative\"");
    }
}
