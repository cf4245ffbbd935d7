//! `derive_safety_tier`: the only place a safety tier is ever computed
//! (invariant 7). The tier diagnostic, the tier fix and the hover all read
//! the [`Derivation`] it returns, so they cannot disagree.

use std::fmt;

use crate::schema::{OpType, SafetyTier};

/// A fact that may be known true, known false, or not known at all. The
/// report text does not record git state, so from text alone it is `Unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fact {
    Yes,
    No,
    Unknown,
}

impl From<bool> for Fact {
    fn from(yes: bool) -> Fact {
        if yes { Fact::Yes } else { Fact::No }
    }
}

impl Fact {
    pub const ALL: [Fact; 3] = [Fact::Yes, Fact::No, Fact::Unknown];

    fn describe(self) -> &'static str {
        match self {
            Fact::Yes => "yes",
            Fact::No => "no",
            Fact::Unknown => "unknown",
        }
    }
}

/// What a lifecycle op's deletion rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Evidence {
    /// `served_when_path`: the scanner checks that a path exists.
    ServedWhenPath,
    /// A `temporary` lifetime: the scanner computes retain-recent/age.
    TemporaryAge,
    /// `served_when`: free text judged by the classifier.
    ClassifierJudged,
    /// No usable lifecycle object (absent, or malformed).
    Missing,
}

impl Evidence {
    pub const ALL: [Evidence; 4] = [
        Evidence::ServedWhenPath,
        Evidence::TemporaryAge,
        Evidence::ClassifierJudged,
        Evidence::Missing,
    ];

    pub fn is_scanner_proven(self) -> bool {
        matches!(self, Evidence::ServedWhenPath | Evidence::TemporaryAge)
    }

    fn describe(self) -> &'static str {
        match self {
            Evidence::ServedWhenPath => "served_when_path (scanner-proven)",
            Evidence::TemporaryAge => "temporary age rule (scanner-proven)",
            Evidence::ClassifierJudged => "served_when (classifier-judged)",
            Evidence::Missing => "none",
        }
    }
}

/// The `lifecycle` argument: passed for `delete` and `extract-then-delete` ops only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LifecycleInput {
    pub evidence: Evidence,
    /// Whether the evidence holds now (the served path exists, the age is reached).
    pub satisfied: Fact,
    /// Whether git tracks the path.
    pub tracked: Fact,
    /// Whether the worktree at the path is clean.
    pub clean: Fact,
}

impl LifecycleInput {
    /// What the report text alone tells: the evidence kind, nothing about git.
    pub fn from_text(evidence: Evidence) -> LifecycleInput {
        LifecycleInput {
            evidence,
            satisfied: Fact::Unknown,
            tracked: Fact::Unknown,
            clean: Fact::Unknown,
        }
    }
}

/// The arguments of `derive_safety_tier(op_type, is_destructive, is_reversible, lifecycle)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TierInputs {
    pub op_type: OpType,
    pub is_destructive: bool,
    pub is_reversible: bool,
    pub lifecycle: Option<LifecycleInput>,
}

/// One rule of the derivation, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    Generative,
    LifecycleEvidence,
    LifecycleSatisfied,
    LifecycleTracked,
    LifecycleClean,
    Destructive,
    Irreversible,
}

impl Rule {
    /// How many rules there are.
    pub const COUNT: usize = 7;

    /// The question the rule asks; `confirm` follows when the answer is not the safe one.
    pub fn question(self) -> &'static str {
        match self {
            Rule::Generative => "op_type is generative",
            Rule::LifecycleEvidence => "lifecycle evidence is scanner-proven",
            Rule::LifecycleSatisfied => "the evidence is satisfied",
            Rule::LifecycleTracked => "git tracks the path",
            Rule::LifecycleClean => "the worktree at the path is clean",
            Rule::Destructive => "the op is destructive",
            Rule::Irreversible => "the op is irreversible",
        }
    }
}

/// What one rule found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The rule holds for `auto`: checking goes on.
    Passed,
    /// The rule forces `confirm`.
    Failed,
    /// The fact is not known; unknown never yields `auto`, so it forces `confirm`.
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub rule: Rule,
    pub answer: Answer,
    pub outcome: Outcome,
}

/// A rule's answer: a fact, or the kind of evidence. It shows as the trace
/// writes it ("yes", "no", "unknown", or the evidence kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    Fact(Fact),
    Evidence(Evidence),
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Fact(fact) => fact.describe(),
            Answer::Evidence(evidence) => evidence.describe(),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// At most `N` values kept in place and read as a slice: a derivation's
/// [`Steps`] and the possible [`Tiers`], which a report keeps one of an
/// entry (as vectors, an allocation each).
#[derive(Clone, Copy)]
pub struct Inline<T: Copy, const N: usize> {
    len: u8,
    values: [T; N],
}

impl<T: Copy, const N: usize> Inline<T, N> {
    /// Empty: `unused` fills the room not taken.
    fn new(unused: T) -> Self {
        Inline {
            len: 0,
            values: [unused; N],
        }
    }

    fn push(&mut self, value: T) {
        self.values[usize::from(self.len)] = value;
        self.len += 1;
    }
}

impl<T: Copy, const N: usize> std::ops::Deref for Inline<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.values[..usize::from(self.len)]
    }
}

impl<'a, T: Copy, const N: usize> IntoIterator for &'a Inline<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + PartialEq, const N: usize> PartialEq for Inline<T, N> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Eq, const N: usize> Eq for Inline<T, N> {}

impl<T: Copy + PartialEq, const N: usize, const M: usize> PartialEq<[T; M]> for Inline<T, N> {
    fn eq(&self, other: &[T; M]) -> bool {
        **self == other[..]
    }
}

impl<T: Copy + std::hash::Hash, const N: usize> std::hash::Hash for Inline<T, N> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl<T: Copy + fmt::Debug, const N: usize> fmt::Debug for Inline<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The steps of a derivation, in order: at most one a rule (4 bytes each).
pub type Steps = Inline<Step, { Rule::COUNT }>;

/// The tier and how it was reached.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Derivation {
    pub inputs: TierInputs,
    pub tier: SafetyTier,
    /// The rules checked, in order; the last one decided unless all passed.
    pub steps: Steps,
}

impl Derivation {
    /// The rule that forced `confirm`, or None when every rule passed (`auto`).
    pub fn deciding_rule(&self) -> Option<Step> {
        self.steps
            .last()
            .copied()
            .filter(|s| s.outcome != Outcome::Passed)
    }

    /// A short reason for the tier, for messages.
    pub fn reason(&self) -> String {
        match self.deciding_rule() {
            Some(step) if step.rule == Rule::Generative => "op_type is \"generative\"".into(),
            Some(step) if step.rule == Rule::Destructive => "is_destructive is true".into(),
            Some(step) if step.rule == Rule::Irreversible => "is_reversible is false".into(),
            Some(step) if step.rule == Rule::LifecycleEvidence => {
                format!("lifecycle evidence is {}", step.answer)
            }
            Some(step) => format!("{}: {}", step.rule.question(), step.answer),
            None if self.inputs.lifecycle.is_some() => {
                "scanner-proven evidence on a tracked, clean path".into()
            }
            None => "the op is deterministic, non-destructive and reversible".into(),
        }
    }
}

impl fmt::Display for TierInputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "derive_safety_tier(op_type=\"{}\", is_destructive={}, is_reversible={}, lifecycle=",
            self.op_type, self.is_destructive, self.is_reversible
        )?;
        match self.lifecycle {
            None => write!(f, "None)"),
            Some(l) => write!(
                f,
                "{{evidence: {}, satisfied: {}, tracked: {}, clean: {}}})",
                l.evidence.describe(),
                l.satisfied.describe(),
                l.tracked.describe(),
                l.clean.describe()
            ),
        }
    }
}

/// Derives the safety tier exactly as the spec defines it.
///
/// `confirm` for a generative op; for a lifecycle op (`lifecycle` is Some),
/// `auto` only with scanner-proven, satisfied evidence on a tracked, clean
/// path, whatever `is_destructive`/`is_reversible` say; otherwise `confirm`
/// when destructive or irreversible, and `auto` only when the op is
/// deterministic, non-destructive and reversible.
pub fn derive_safety_tier(inputs: TierInputs) -> Derivation {
    let mut steps = Steps::new(Step {
        rule: Rule::Generative,
        answer: Answer::Fact(Fact::No),
        outcome: Outcome::Passed,
    });
    let confirm = |steps: Steps| Derivation {
        inputs,
        tier: SafetyTier::Confirm,
        steps,
    };
    let generative = inputs.op_type == OpType::Generative;
    steps.push(bool_step(Rule::Generative, generative));
    if generative {
        return confirm(steps);
    }
    match inputs.lifecycle {
        Some(lifecycle) => {
            steps.push(Step {
                rule: Rule::LifecycleEvidence,
                answer: Answer::Evidence(lifecycle.evidence),
                outcome: match lifecycle.evidence.is_scanner_proven() {
                    true => Outcome::Passed,
                    false => Outcome::Failed,
                },
            });
            if !lifecycle.evidence.is_scanner_proven() {
                return confirm(steps);
            }
            for (rule, fact) in [
                (Rule::LifecycleSatisfied, lifecycle.satisfied),
                (Rule::LifecycleTracked, lifecycle.tracked),
                (Rule::LifecycleClean, lifecycle.clean),
            ] {
                let outcome = match fact {
                    Fact::Yes => Outcome::Passed,
                    Fact::No => Outcome::Failed,
                    Fact::Unknown => Outcome::Unknown,
                };
                steps.push(Step {
                    rule,
                    answer: Answer::Fact(fact),
                    outcome,
                });
                if outcome != Outcome::Passed {
                    return confirm(steps);
                }
            }
        }
        None => {
            steps.push(bool_step(Rule::Destructive, inputs.is_destructive));
            if inputs.is_destructive {
                return confirm(steps);
            }
            steps.push(bool_step(Rule::Irreversible, !inputs.is_reversible));
            if !inputs.is_reversible {
                return confirm(steps);
            }
        }
    }
    Derivation {
        inputs,
        tier: SafetyTier::Auto,
        steps,
    }
}

/// A step for a rule whose `true` answer forces `confirm`.
fn bool_step(rule: Rule, forces_confirm: bool) -> Step {
    Step {
        rule,
        answer: Answer::Fact(Fact::from(forces_confirm)),
        outcome: if forces_confirm {
            Outcome::Failed
        } else {
            Outcome::Passed
        },
    }
}

/// Tiers, each once, in `SafetyTier`'s order: what [`possible_tiers`]
/// gives, which each entry's check keeps.
pub type Tiers = Inline<SafetyTier, 2>;

impl Tiers {
    fn of(tiers: impl IntoIterator<Item = SafetyTier>) -> Tiers {
        let mut given = [false; SafetyTier::ALL.len()];
        for tier in tiers {
            given[SafetyTier::ALL
                .iter()
                .position(|&t| t == tier)
                .expect("every tier is in ALL")] = true;
        }
        let mut set = Tiers::new(SafetyTier::Confirm);
        for (&tier, given) in SafetyTier::ALL.iter().zip(given) {
            if given {
                set.push(tier);
            }
        }
        set
    }
}

/// The tiers `derive_safety_tier` can give once the unknown facts become
/// known: it is called on every way of filling them in, so a recorded tier
/// outside this set is wrong whatever the git state turns out to be.
pub fn possible_tiers(inputs: TierInputs) -> Tiers {
    let tier = |lifecycle| {
        derive_safety_tier(TierInputs {
            lifecycle,
            ..inputs
        })
        .tier
    };
    let Some(l) = inputs.lifecycle else {
        return Tiers::of([tier(None)]);
    };
    // Each unknown fact either way, with no allocation: this runs for every entry.
    let options = |fact: Fact| match fact {
        Fact::Unknown => &[Fact::Yes, Fact::No][..],
        Fact::Yes => &[Fact::Yes][..],
        Fact::No => &[Fact::No][..],
    };
    Tiers::of(options(l.satisfied).iter().flat_map(|&satisfied| {
        options(l.tracked).iter().flat_map(move |&tracked| {
            options(l.clean).iter().map(move |&clean| {
                tier(Some(LifecycleInput {
                    satisfied,
                    tracked,
                    clean,
                    ..l
                }))
            })
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input the function can take: 2 op types x 2 x 2 booleans x
    /// (no lifecycle, or 4 evidence kinds x 27 fact combinations).
    fn all_inputs() -> Vec<TierInputs> {
        let mut lifecycles = vec![None];
        for evidence in Evidence::ALL {
            for satisfied in Fact::ALL {
                for tracked in Fact::ALL {
                    for clean in Fact::ALL {
                        lifecycles.push(Some(LifecycleInput {
                            evidence,
                            satisfied,
                            tracked,
                            clean,
                        }));
                    }
                }
            }
        }
        let mut all = Vec::new();
        for op_type in OpType::ALL {
            for is_destructive in [false, true] {
                for is_reversible in [false, true] {
                    for lifecycle in &lifecycles {
                        all.push(TierInputs {
                            op_type: *op_type,
                            is_destructive,
                            is_reversible,
                            lifecycle: *lifecycle,
                        });
                    }
                }
            }
        }
        all
    }

    #[test]
    fn input_space_is_enumerated_whole() {
        assert_eq!(all_inputs().len(), 2 * 2 * 2 * (1 + 4 * 27));
    }

    #[test]
    fn auto_exactly_when_the_spec_allows_it() {
        for inputs in all_inputs() {
            let expected_auto = inputs.op_type == OpType::Deterministic
                && match inputs.lifecycle {
                    None => !inputs.is_destructive && inputs.is_reversible,
                    Some(l) => {
                        l.evidence.is_scanner_proven()
                            && l.satisfied == Fact::Yes
                            && l.tracked == Fact::Yes
                            && l.clean == Fact::Yes
                    }
                };
            let derivation = derive_safety_tier(inputs);
            assert_eq!(
                derivation.tier == SafetyTier::Auto,
                expected_auto,
                "{inputs}"
            );
        }
    }

    #[test]
    fn never_auto_for_generative_destructive_irreversible_or_unproven() {
        for inputs in all_inputs() {
            let tier = derive_safety_tier(inputs).tier;
            if inputs.op_type == OpType::Generative {
                assert_eq!(tier, SafetyTier::Confirm, "generative: {inputs}");
            }
            if inputs.lifecycle.is_none() && (inputs.is_destructive || !inputs.is_reversible) {
                assert_eq!(
                    tier,
                    SafetyTier::Confirm,
                    "destructive or irreversible: {inputs}"
                );
            }
            if let Some(l) = inputs.lifecycle {
                if matches!(l.evidence, Evidence::ClassifierJudged | Evidence::Missing) {
                    assert_eq!(tier, SafetyTier::Confirm, "classifier-judged: {inputs}");
                }
                if l.tracked != Fact::Yes || l.clean != Fact::Yes {
                    assert_eq!(tier, SafetyTier::Confirm, "not tracked+clean: {inputs}");
                }
            }
        }
    }

    #[test]
    fn lifecycle_tier_ignores_the_characterization_booleans() {
        for inputs in all_inputs().into_iter().filter(|i| i.lifecycle.is_some()) {
            let base = derive_safety_tier(inputs).tier;
            for (d, r) in [(false, false), (false, true), (true, false), (true, true)] {
                let other = TierInputs {
                    is_destructive: d,
                    is_reversible: r,
                    ..inputs
                };
                assert_eq!(derive_safety_tier(other).tier, base, "{inputs}");
            }
        }
    }

    #[test]
    fn unknown_never_yields_auto() {
        for inputs in all_inputs() {
            if let Some(l) = inputs.lifecycle
                && [l.satisfied, l.tracked, l.clean].contains(&Fact::Unknown)
            {
                assert_eq!(
                    derive_safety_tier(inputs).tier,
                    SafetyTier::Confirm,
                    "{inputs}"
                );
            }
        }
    }

    /// `Steps` has room for one step a rule: `Rule::COUNT` is how many
    /// there are (the match fails to build when a rule is added).
    #[test]
    fn steps_have_room_for_every_rule() {
        let all = [
            Rule::Generative,
            Rule::LifecycleEvidence,
            Rule::LifecycleSatisfied,
            Rule::LifecycleTracked,
            Rule::LifecycleClean,
            Rule::Destructive,
            Rule::Irreversible,
        ];
        for rule in all {
            match rule {
                Rule::Generative
                | Rule::LifecycleEvidence
                | Rule::LifecycleSatisfied
                | Rule::LifecycleTracked
                | Rule::LifecycleClean
                | Rule::Destructive
                | Rule::Irreversible => {}
            }
        }
        assert_eq!(all.len(), Rule::COUNT);
        let longest = (all_inputs().into_iter())
            .map(|inputs| derive_safety_tier(inputs).steps.len())
            .max();
        assert_eq!(
            longest,
            Some(5),
            "a lifecycle op proven, satisfied, tracked and clean"
        );
    }

    #[test]
    fn trace_ends_at_the_deciding_rule() {
        for inputs in all_inputs() {
            let d = derive_safety_tier(inputs);
            let failing: Vec<_> = d
                .steps
                .iter()
                .filter(|s| s.outcome != Outcome::Passed)
                .collect();
            match d.tier {
                SafetyTier::Auto => assert!(failing.is_empty() && d.deciding_rule().is_none()),
                SafetyTier::Confirm => {
                    assert_eq!(failing.len(), 1, "{inputs}");
                    assert_eq!(Some(*failing[0]), d.deciding_rule());
                }
            }
        }
    }

    /// Its definition, over every input: the tiers of every way of filling
    /// in the unknown facts, each once, in `SafetyTier::ALL`'s order.
    #[test]
    fn possible_tiers_are_those_of_every_completion() {
        for inputs in all_inputs() {
            let options = |fact: Fact| match fact {
                Fact::Unknown => vec![Fact::Yes, Fact::No],
                known => vec![known],
            };
            let mut tiers = Vec::new();
            match inputs.lifecycle {
                None => tiers.push(derive_safety_tier(inputs).tier),
                Some(l) => {
                    for satisfied in options(l.satisfied) {
                        for tracked in options(l.tracked) {
                            for clean in options(l.clean) {
                                let lifecycle = LifecycleInput {
                                    satisfied,
                                    tracked,
                                    clean,
                                    ..l
                                };
                                let filled = TierInputs {
                                    lifecycle: Some(lifecycle),
                                    ..inputs
                                };
                                tiers.push(derive_safety_tier(filled).tier);
                            }
                        }
                    }
                }
            }
            let expected: Vec<SafetyTier> = SafetyTier::ALL
                .iter()
                .copied()
                .filter(|tier| tiers.contains(tier))
                .collect();
            assert_eq!(&*possible_tiers(inputs), &expected[..], "{inputs}");
        }
    }

    #[test]
    fn possible_tiers_from_text() {
        let det = |lifecycle| TierInputs {
            op_type: OpType::Deterministic,
            is_destructive: true,
            is_reversible: false,
            lifecycle,
        };
        use SafetyTier::*;
        // Scanner-proven evidence: git state decides, so both tiers are possible.
        let proven = Some(LifecycleInput::from_text(Evidence::ServedWhenPath));
        assert_eq!(possible_tiers(det(proven)), [Auto, Confirm]);
        let temporary = Some(LifecycleInput::from_text(Evidence::TemporaryAge));
        assert_eq!(possible_tiers(det(temporary)), [Auto, Confirm]);
        // Classifier-judged or missing evidence: always confirm.
        let judged = Some(LifecycleInput::from_text(Evidence::ClassifierJudged));
        assert_eq!(possible_tiers(det(judged)), [Confirm]);
        assert_eq!(
            possible_tiers(det(Some(LifecycleInput::from_text(Evidence::Missing)))),
            [Confirm]
        );
        // Known dirty: confirm only.
        let dirty = Some(LifecycleInput {
            clean: Fact::No,
            ..LifecycleInput::from_text(Evidence::ServedWhenPath)
        });
        assert_eq!(possible_tiers(det(dirty)), [Confirm]);
        // Non-lifecycle ops have one possible tier.
        let clean_op = TierInputs {
            is_destructive: false,
            is_reversible: true,
            ..det(None)
        };
        assert_eq!(possible_tiers(clean_op), [Auto]);
        assert_eq!(possible_tiers(det(None)), [Confirm]);
    }

    #[test]
    fn spec_scenarios() {
        let inputs = |op_type, is_destructive, is_reversible, lifecycle| TierInputs {
            op_type,
            is_destructive,
            is_reversible,
            lifecycle,
        };
        use OpType::*;
        // Deterministic reversible op derives to auto.
        assert_eq!(
            derive_safety_tier(inputs(Deterministic, false, true, None)).tier,
            SafetyTier::Auto
        );
        // Destructive op derives to confirm regardless of op_type.
        for op in [Deterministic, Generative] {
            assert_eq!(
                derive_safety_tier(inputs(op, true, false, None)).tier,
                SafetyTier::Confirm
            );
        }
        // Generative op derives to confirm.
        assert_eq!(
            derive_safety_tier(inputs(Generative, false, true, None)).tier,
            SafetyTier::Confirm
        );
        // A lifecycle delete with scanner-proven evidence and tracked+clean state derives to auto.
        let proven = LifecycleInput {
            evidence: Evidence::ServedWhenPath,
            satisfied: Fact::Yes,
            tracked: Fact::Yes,
            clean: Fact::Yes,
        };
        assert_eq!(
            derive_safety_tier(inputs(Deterministic, true, false, Some(proven))).tier,
            SafetyTier::Auto
        );
        // Classifier-judged evidence always derives to confirm, regardless of tracked/clean.
        let judged = LifecycleInput {
            evidence: Evidence::ClassifierJudged,
            ..proven
        };
        assert_eq!(
            derive_safety_tier(inputs(Deterministic, true, false, Some(judged))).tier,
            SafetyTier::Confirm
        );
        // Dirty or untracked derives to confirm.
        for dirty in [
            LifecycleInput {
                clean: Fact::No,
                ..proven
            },
            LifecycleInput {
                tracked: Fact::No,
                ..proven
            },
        ] {
            assert_eq!(
                derive_safety_tier(inputs(Deterministic, true, false, Some(dirty))).tier,
                SafetyTier::Confirm
            );
        }
    }

    /// Each rule that decides, and each way to `auto`, gives its own reason.
    #[test]
    fn each_deciding_rule_gives_its_reason() {
        let plain = TierInputs {
            op_type: OpType::Deterministic,
            is_destructive: false,
            is_reversible: true,
            lifecycle: None,
        };
        let proven = LifecycleInput {
            evidence: Evidence::ServedWhenPath,
            satisfied: Fact::Yes,
            tracked: Fact::Yes,
            clean: Fact::Yes,
        };
        let lifecycle = |l: LifecycleInput| TierInputs {
            lifecycle: Some(l),
            ..plain
        };
        let cases = [
            (
                TierInputs {
                    op_type: OpType::Generative,
                    ..plain
                },
                "op_type is \"generative\"",
            ),
            (
                TierInputs {
                    is_destructive: true,
                    ..plain
                },
                "is_destructive is true",
            ),
            (
                TierInputs {
                    is_reversible: false,
                    ..plain
                },
                "is_reversible is false",
            ),
            (
                lifecycle(LifecycleInput {
                    evidence: Evidence::Missing,
                    ..proven
                }),
                "lifecycle evidence is none",
            ),
            (
                lifecycle(LifecycleInput {
                    tracked: Fact::Unknown,
                    ..proven
                }),
                "git tracks the path: unknown",
            ),
            (
                lifecycle(proven),
                "scanner-proven evidence on a tracked, clean path",
            ),
            (
                plain,
                "the op is deterministic, non-destructive and reversible",
            ),
        ];
        for (inputs, reason) in cases {
            assert_eq!(derive_safety_tier(inputs).reason(), reason, "{inputs}");
        }
    }

    #[test]
    fn inputs_render_as_the_call() {
        let inputs = TierInputs {
            op_type: OpType::Deterministic,
            is_destructive: true,
            is_reversible: false,
            lifecycle: Some(LifecycleInput::from_text(Evidence::ClassifierJudged)),
        };
        assert_eq!(
            inputs.to_string(),
            "derive_safety_tier(op_type=\"deterministic\", is_destructive=true, is_reversible=false, \
             lifecycle={evidence: served_when (classifier-judged), satisfied: unknown, tracked: unknown, clean: unknown})"
        );
        assert_eq!(
            derive_safety_tier(inputs).reason(),
            "lifecycle evidence is served_when (classifier-judged)"
        );
    }
}
