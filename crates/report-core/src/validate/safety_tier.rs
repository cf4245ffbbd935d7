//! Invariant 7: the recorded `safety_tier` is what `derive_safety_tier`
//! gives, in both directions. This file only compares: the tier itself comes
//! from `crate::tier`.

use super::facts::{InEntry, KindTiers, TierCheck};
use super::sink::{Place, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::fix::{Fix, TextEdit};
use crate::schema::{EditKind, OpType, Reversibility, SafetyTier};
use crate::text::TextRange;
use crate::tier::{self, Evidence, LifecycleInput, TierInputs, Tiers};

/// The tier inputs and the tier as an entry records them.
pub(super) struct Recorded {
    pub op_type: OpType,
    pub is_destructive: bool,
    pub is_reversible: bool,
    /// Some for delete kinds: the evidence their lifecycle objects give.
    pub lifecycle: Option<Evidence>,
    /// The exact edit's kind, when it names one: its fixed characterization
    /// may contradict the recorded booleans.
    pub kind: Option<EditKind>,
    pub tier: Option<SafetyTier>,
    pub tier_range: Option<TextRange>,
    /// Where the entry starts, which the facts count their ranges from.
    pub entry_start: usize,
}

pub(super) fn check_safety_tier(
    sink: &mut Sink,
    place: &Place<'_>,
    recorded: Recorded,
) -> TierCheck {
    let inputs = TierInputs {
        op_type: recorded.op_type,
        is_destructive: recorded.is_destructive,
        is_reversible: recorded.is_reversible,
        lifecycle: recorded.lifecycle.map(LifecycleInput::from_text),
    };
    let possible = tier::possible_tiers(inputs);
    let check = TierCheck {
        derivation: tier::derive_safety_tier(inputs),
        by_kind: recorded
            .kind
            .and_then(|kind| tiers_by_kind(kind, inputs, &possible)),
        possible,
        recorded: recorded.tier,
        recorded_range: recorded
            .tier_range
            .map(|range| InEntry::new(range, recorded.entry_start)),
    };
    if let (Some(tier), Some(range), false) = (check.recorded, recorded.tier_range, check.agrees())
    {
        // A recorded tier outside the possible set means the set has the other tier only.
        let derived = check.possible[0];
        let why = match derived {
            SafetyTier::Confirm => check.derivation.reason(),
            SafetyTier::Auto => "the op is deterministic, non-destructive and reversible".into(),
        };
        let message = format!(
            "{} is \"{tier}\" but derive_safety_tier gives \"{derived}\" because {why}; the tier is derived, never assigned",
            place.field("safety_tier")
        );
        let fix = Fix {
            title: format!("Set safety_tier to \"{derived}\" (derived)"),
            edits: vec![TextEdit::replace(range, format!("\"{derived}\""))],
            preferred: true,
        };
        sink.push(Diagnostic::new(Code::TierMismatch, range, message).with_fix(Some(fix)));
    }
    check
}

/// The tiers the kind's own characterization leads to, when it contradicts
/// the recorded booleans in a way that changes the tiers possible.
fn tiers_by_kind(kind: EditKind, inputs: TierInputs, possible: &Tiers) -> Option<KindTiers> {
    let characterization = kind.characterization();
    let is_reversible = match characterization.is_reversible {
        Reversibility::Fixed(value) => value,
        Reversibility::GitDependent => inputs.is_reversible,
    };
    let is_destructive = characterization.is_destructive;
    // The common case: the booleans follow the kind.
    if (is_destructive, is_reversible) == (inputs.is_destructive, inputs.is_reversible) {
        return None;
    }
    let by_kind = tier::possible_tiers(TierInputs {
        is_destructive,
        is_reversible,
        ..inputs
    });
    (by_kind != *possible).then_some(KindTiers {
        kind,
        possible: by_kind,
    })
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::fixture::{fixes_at, report_with_entry};

    #[test]
    fn tier_fix_rewrites_the_value_to_the_derived_tier() {
        let entry = r#"{"path": "docs/a.md", "category": {"class": "stale", "subtype": "contradicted"}, "signals": [],
      "op": "rewrite", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "a$0uto",
      "token_estimate": {"raw_tokens": 5}}"#;
        expect![[r#"
            Set safety_tier to "confirm" (derived) (tier-mismatch)
                  "op": "rewrite", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "confirm",
        "#]]
        .assert_eq(&fixes_at(&report_with_entry(entry)));
    }

    #[test]
    fn a_too_cautious_tier_is_fixed_to_auto() {
        let entry = r#"{"path": "docs/a.md", "category": {"class": "bloat", "subtype": "freeze"}, "signals": [],
      "op": "insert-frontmatter", "op_type": "deterministic", "is_destructive": false, "is_reversible": true, "safety_tier": "$0confirm",
      "token_estimate": {"raw_tokens": 5},
      "exact_edit": {"kind": "insert-frontmatter", "key": "hygiene", "value": "frozen", "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}"#;
        expect![[r#"
            Set safety_tier to "auto" (derived) (tier-mismatch)
                  "op": "insert-frontmatter", "op_type": "deterministic", "is_destructive": false, "is_reversible": true, "safety_tier": "auto",
        "#]]
        .assert_eq(&fixes_at(&report_with_entry(entry)));
    }
}
