//! Hover: the derivation trace on an entry's tier inputs, and a one-line
//! meaning (from the glossary of `invariants.md`) on field names and values.

use crate::Analysis;
use crate::docs;
use crate::entry_text::EntryText;
use crate::host::snapshot::Snapshot;
use crate::schema::SafetyTier;
use crate::syntax::{Member, Node, Value};
use crate::text::TextRange;
use crate::tier::Outcome;
use crate::validate::{EntryFacts, TierCheck};

/// What to show, and the range it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverInfo {
    pub range: TextRange,
    pub markdown: String,
}

/// The entry fields whose hover shows the derivation trace.
const TIER_FIELDS: &[&str] = &["safety_tier", "op_type", "is_destructive", "is_reversible"];

/// The hover at `offset` of a document. Inside an entry kept per entry it
/// is worked out from that entry's text alone; outside the entries from a
/// parse of the text without them (no checks needed, nothing kept).
pub fn hover_at(document: Snapshot<'_>, offset: usize) -> Option<HoverInfo> {
    // On the `entries` key: its meaning, then the token roll-up.
    let index = document.index()?;
    if let Some(entries) = index.member("entries")
        && entries.key_range.touches(offset)
    {
        return Some(entries_hover(
            entries.key_range,
            index.entries.iter().copied(),
        ));
    }
    let Some(incremental) = document.per_entry() else {
        return hover(document.analysed.whole()?, offset);
    };
    // Inside an entry whose text does not parse alone there is no hover:
    // the envelope has that text cut out.
    if let Some(facts) = incremental.entry_around(offset) {
        let entry = incremental.entry_text(facts, |r| document.read(r))?;
        return hover_entry_text(facts, &entry, offset);
    }
    // Outside every entry object, so no entry's facts are needed.
    let envelope = document.envelope(offset)?;
    let info = hover_in_tree(envelope.parse.root()?, envelope.into_cut(offset), |_| None)?;
    Some(HoverInfo {
        range: envelope.back_range(info.range),
        ..info
    })
}

/// The derivation trace of the entry object around `offset`, over the
/// whole entry: what the hover on its tier fields shows, asked for by
/// place (a page lists problems, not hovers).
pub fn trace_at(document: Snapshot<'_>, offset: usize) -> Option<HoverInfo> {
    let index = document.index()?;
    let facts = index.entry_at(offset)?;
    Some(HoverInfo {
        range: facts.range,
        markdown: tier_markdown(facts),
    })
}

/// The hover at `offset` of a full analysis.
pub fn hover(analysis: &Analysis, offset: usize) -> Option<HoverInfo> {
    let root = analysis.root()?;
    if let Some(entries) = root.member("entries")
        && entries.key_range.touches(offset)
    {
        return Some(entries_hover(entries.key_range, &analysis.entries));
    }
    hover_in_tree(root, offset, |entry| entry_at(analysis, entry))
}

/// The hover on the `entries` key: its meaning, then the token roll-up.
pub fn entries_hover<'e>(
    key_range: TextRange,
    entries: impl IntoIterator<Item = &'e EntryFacts>,
) -> HoverInfo {
    let meaning = docs::glossary().get("entries").copied().unwrap_or_default();
    HoverInfo {
        range: key_range,
        markdown: format!(
            "**entries**: {meaning}\n\n{}",
            crate::rollup::rollup(entries).markdown()
        ),
    }
}

/// The hover at `offset` in a report's tree, with `facts` giving what the
/// checks learnt about an entry (only the tier fields' hover needs it).
pub fn hover_in_tree<'f>(
    root: Node<'_>,
    offset: usize,
    facts: impl FnOnce(Node<'_>) -> Option<&'f EntryFacts>,
) -> Option<HoverInfo> {
    let path = root.path_to(offset);
    // Inside entries[i]: the path is root, entries, entries[i], and on.
    if let [_, (Some(entries), _), (None, entry), ..] = path[..]
        && entries.key == "entries"
    {
        return hover_entry(entry, facts(entry), offset);
    }
    hover_on_path(&path, offset, None)
}

/// The hover at `offset` inside one entry, given its node (in the report's
/// tree, or in a tree of the entry's text alone) and its facts.
pub fn hover_entry(
    entry: Node<'_>,
    facts: Option<&EntryFacts>,
    offset: usize,
) -> Option<HoverInfo> {
    hover_on_path(&entry.path_to(offset), offset, facts)
}

/// The hover at `offset` (in the report) inside the entry `facts`
/// describes, worked out from `entry`, that entry's text parsed in place.
pub fn hover_entry_text(facts: &EntryFacts, entry: &EntryText, offset: usize) -> Option<HoverInfo> {
    let start = facts.range.start;
    let inner = entry.from_document(start, offset)?;
    let info = hover_entry(entry.item()?, Some(facts), inner)?;
    Some(HoverInfo {
        range: entry.to_document(start).range(info.range),
        ..info
    })
}

/// `path` leads from a node to `offset`; `facts` are given when that node is an entry.
fn hover_on_path(
    path: &[(Option<Member<'_>>, Node<'_>)],
    offset: usize,
    facts: Option<&EntryFacts>,
) -> Option<HoverInfo> {
    // The innermost member whose key or value holds the offset.
    let (depth, member) = path
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, (member, _))| member.map(|m| (i, m)))?;
    let on_key = member.key_range.touches(offset);
    let on_scalar_value = member.value.range().touches(offset)
        && !matches!(member.value.value(), Value::Array | Value::Object);
    if !on_key && !on_scalar_value {
        return value_hover(path.last()?.1, offset);
    }
    // A tier field of the entry itself.
    if depth == 1
        && TIER_FIELDS.contains(&member.key)
        && let Some(facts) = facts
    {
        let range = if on_key {
            member.key_range
        } else {
            member.value.range()
        };
        return Some(HoverInfo {
            range,
            markdown: tier_markdown(facts),
        });
    }
    match on_key {
        true => glossary_hover(member.key, member.key_range),
        false => value_hover(member.value, offset),
    }
}

fn value_hover(node: Node<'_>, offset: usize) -> Option<HoverInfo> {
    match node.value() {
        Value::String(text) if node.range().touches(offset) => glossary_hover(text, node.range()),
        _ => None,
    }
}

fn entry_at<'a>(analysis: &'a Analysis, entry: Node<'_>) -> Option<&'a EntryFacts> {
    analysis.entry_facts(entry.range())
}

fn glossary_hover(name: &str, range: TextRange) -> Option<HoverInfo> {
    let meaning = docs::glossary().get(name)?;
    Some(HoverInfo {
        range,
        markdown: format!("**{name}**: {meaning}"),
    })
}

pub(crate) fn tier_markdown(facts: &EntryFacts) -> String {
    let Some(check) = &facts.tier else {
        return format!(
            "**safety_tier** of `entries[{}]` cannot be derived: op_type, is_destructive and is_reversible must all be valid",
            facts.index
        );
    };
    render_trace(facts.index, check)
}

fn render_trace(index: usize, check: &TierCheck) -> String {
    let derivation = &check.derivation;
    let mut out = format!(
        "**safety_tier** of `entries[{index}]`\n\n```\n{}\n```\n\n",
        derivation.inputs
    );
    for (i, step) in derivation.steps.iter().enumerate() {
        let outcome = match step.outcome {
            Outcome::Passed => "passes",
            Outcome::Failed => "→ `confirm`",
            Outcome::Unknown => "not recorded in the report",
        };
        out.push_str(&format!(
            "{}. {}? **{}**: {outcome}\n",
            i + 1,
            step.rule.question(),
            step.answer
        ));
    }
    if derivation.deciding_rule().is_none() {
        out.push_str(&format!(
            "{}. every rule passes → `auto`\n",
            derivation.steps.len() + 1
        ));
    }
    match check.possible[..] {
        [derived] => {
            out.push_str(&format!("\nDerived: `{derived}`"));
            match check.recorded {
                Some(recorded) if recorded == derived && check.by_kind.is_some() => {
                    out.push_str(&format!(
                        "\n\nRecorded: `{recorded}`, which agrees with the inputs as recorded."
                    ))
                }
                Some(recorded) if recorded == derived => {
                    out.push_str(&format!("\n\nRecorded: `{recorded}`, which agrees."))
                }
                Some(recorded) => out.push_str(&format!(
                    "\n\nRecorded: `{recorded}`, which **disagrees**: the tier must be `{derived}`."
                )),
                None => out.push_str("\n\nRecorded: not a valid tier."),
            }
        }
        _ => {
            let unknown = unknown_facts(derivation);
            out.push_str(&format!(
                "\nDerived: `auto` or `confirm`, depending on what the report does not record: {unknown}. `auto` needs all of them to hold, and the cleaner re-verifies them against live git state before it applies the op without a prompt."
            ));
            match check.recorded {
                Some(SafetyTier::Auto) => out.push_str(
                    "\n\nRecorded: `auto`, which is possible: it stands only if those facts hold.",
                ),
                Some(SafetyTier::Confirm) => out.push_str(
                    "\n\nRecorded: `confirm`, which is possible, and the cautious value.",
                ),
                None => out.push_str("\n\nRecorded: not a valid tier."),
            }
        }
    }
    if let Some(by_kind) = &check.by_kind {
        let characterization = by_kind.kind.characterization();
        let tiers: Vec<String> = by_kind.possible.iter().map(|t| format!("`{t}`")).collect();
        out.push_str(&format!(
            "\n\nBut those inputs are wrong: kind `{}` is by definition {}, and with that characterization derive_safety_tier gives {}.",
            by_kind.kind,
            describe_characterization(characterization),
            tiers.join(" or ")
        ));
    }
    out
}

/// The facts of a lifecycle derivation that the report leaves unknown, in words.
fn unknown_facts(derivation: &crate::tier::Derivation) -> String {
    let Some(lifecycle) = derivation.inputs.lifecycle else {
        return "every fact".into();
    };
    let facts = [
        (lifecycle.satisfied, "whether the evidence is satisfied"),
        (lifecycle.tracked, "whether git tracks the path"),
        (lifecycle.clean, "whether the worktree there is clean"),
    ];
    let unknown: Vec<&str> = facts
        .iter()
        .filter(|(fact, _)| *fact == crate::tier::Fact::Unknown)
        .map(|(_, words)| *words)
        .collect();
    match unknown[..] {
        [] => "every fact".into(),
        [one] => one.into(),
        [ref rest @ .., last] => format!("{}, or {last}", rest.join(", ")),
    }
}

fn describe_characterization(characterization: crate::schema::Characterization) -> String {
    let destructive = match characterization.is_destructive {
        true => "destructive",
        false => "non-destructive",
    };
    match characterization.is_reversible {
        crate::schema::Reversibility::Fixed(true) => format!("{destructive} and reversible"),
        crate::schema::Reversibility::Fixed(false) => format!("{destructive} and irreversible"),
        crate::schema::Reversibility::GitDependent => {
            format!("{destructive}, reversible only through git history")
        }
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::fixture::{cursor, report_with_entry};

    const GENERATIVE: &str = r#"{"path": "docs/a.md", "category": {"class": "bloat", "subtype": "distill"}, "signals": [],
      "op": "distill", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": $SAFETY,
      "token_estimate": {"raw_tokens": 5}}"#;

    const SCANNER_DELETE: &str = r#"{"path": "docs/a.md", "category": {"class": "stale", "subtype": "provisional"}, "signals": [],
      "op": "delete", "op_type": "deterministic", "is_destructive": true, "is_reversible": false, "safety_tier": $SAFETY,
      "token_estimate": {"raw_tokens": 5}, "lifecycle": {"rule_ref": "r", "lifetime": "temporary"},
      "exact_edit": {"kind": "delete", "anchor": {"start_line": 1, "end_line": 3}, "lifecycle": {"rule_ref": "r", "lifetime": "temporary"},
        "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}"#;

    fn check(entry: &str, expected: Expect) {
        let (text, offset) = cursor(&report_with_entry(entry));
        let analysis = crate::analyze(&text);
        let hover = super::hover(&analysis, offset);
        let rendered = match hover {
            Some(info) => format!("[{}]\n{}", &text[info.range.as_range()], info.markdown),
            None => "no hover".into(),
        };
        expected.assert_eq(&rendered);
    }

    #[test]
    fn trace_on_a_wrong_tier_value() {
        check(
            &GENERATIVE.replace("$SAFETY", "\"au$0to\""),
            expect![[r#"
                ["auto"]
                **safety_tier** of `entries[0]`

                ```
                derive_safety_tier(op_type="generative", is_destructive=false, is_reversible=true, lifecycle=None)
                ```

                1. op_type is generative? **yes**: → `confirm`

                Derived: `confirm`

                Recorded: `auto`, which **disagrees**: the tier must be `confirm`."#]],
        );
    }

    #[test]
    fn trace_on_an_input_key_with_unknown_git_state() {
        check(
            &SCANNER_DELETE
                .replace("\"is_rev", "\"is_$0rev")
                .replace("$SAFETY", "\"auto\""),
            expect![[r#"
                ["is_reversible"]
                **safety_tier** of `entries[0]`

                ```
                derive_safety_tier(op_type="deterministic", is_destructive=true, is_reversible=false, lifecycle={evidence: temporary age rule (scanner-proven), satisfied: unknown, tracked: unknown, clean: unknown})
                ```

                1. op_type is generative? **no**: passes
                2. lifecycle evidence is scanner-proven? **temporary age rule (scanner-proven)**: passes
                3. the evidence is satisfied? **unknown**: not recorded in the report

                Derived: `auto` or `confirm`, depending on what the report does not record: whether the evidence is satisfied, whether git tracks the path, or whether the worktree there is clean. `auto` needs all of them to hold, and the cleaner re-verifies them against live git state before it applies the op without a prompt.

                Recorded: `auto`, which is possible: it stands only if those facts hold."#]],
        );
    }

    #[test]
    fn trace_names_the_tier_the_kind_characterization_implies() {
        let dedupe = r#"{"path": "docs/a.md", "category": {"class": "stale", "subtype": "duplicated"}, "signals": [],
      "op": "dedupe", "op_type": "deterministic", "is_destructive": true, "is_reversible": true, "safety_tier": "con$0firm",
      "token_estimate": {"raw_tokens": 5},
      "exact_edit": {"kind": "dedupe", "anchor": {"start_line": 2, "end_line": 4}, "canonical_ref": "docs/b.md#L1-L3",
        "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}"#;
        check(
            dedupe,
            expect![[r#"
                ["confirm"]
                **safety_tier** of `entries[0]`

                ```
                derive_safety_tier(op_type="deterministic", is_destructive=true, is_reversible=true, lifecycle=None)
                ```

                1. op_type is generative? **no**: passes
                2. the op is destructive? **yes**: → `confirm`

                Derived: `confirm`

                Recorded: `confirm`, which agrees with the inputs as recorded.

                But those inputs are wrong: kind `dedupe` is by definition non-destructive and reversible, and with that characterization derive_safety_tier gives `auto`."#]],
        );
    }

    #[test]
    fn glossary_on_field_names_and_enum_values() {
        check(
            &GENERATIVE
                .replace("\"subtype\": \"distill\"", "\"subtype\": \"dis$0till\"")
                .replace("$SAFETY", "\"confirm\""),
            expect![[r#"
                ["distill"]
                **distill**: Bloat: a long narrative to condense."#]],
        );
        check(
            &GENERATIVE
                .replace("\"signals\"", "\"sig$0nals\"")
                .replace("$SAFETY", "\"confirm\""),
            expect![[r#"
                ["signals"]
                **signals**: Objective scanner facts that support the classification."#]],
        );
    }

    #[test]
    fn nothing_on_punctuation_or_free_text() {
        check(
            &GENERATIVE
                .replace("\"path\": \"docs", "\"path\": \"do$0cs")
                .replace("$SAFETY", "\"confirm\""),
            expect!["no hover"],
        );
        check(
            &GENERATIVE
                .replace("\"signals\": []", "\"signals\": [$0]")
                .replace("$SAFETY", "\"confirm\""),
            expect!["no hover"],
        );
    }

    #[test]
    fn every_glossary_term_is_a_field_or_value_of_the_schema() {
        use crate::schema::*;
        let glossary = crate::docs::glossary();
        let fields = [
            ENVELOPE_FIELDS,
            SCAN_FIELDS,
            ENTRY_FIELDS,
            ENTRY_OPTIONAL_FIELDS,
            CATEGORY_FIELDS,
            LIFECYCLE_FIELDS,
            LIFECYCLE_OPTIONAL_FIELDS,
            TOKEN_ESTIMATE_FIELDS,
            TOKEN_ESTIMATE_OPTIONAL_FIELDS,
            PROMOTION_CANDIDATE_FIELDS,
            EXACT_EDIT_FIELDS,
            ANCHOR_FIELDS,
        ];
        let mut names: Vec<&str> = fields.iter().flat_map(|f| f.iter().copied()).collect();
        names.extend(CategoryClass::ALL.iter().map(|v| v.as_str()));
        names.extend(CategorySubtype::ALL.iter().map(|v| v.as_str()));
        names.extend(OpType::ALL.iter().map(|v| v.as_str()));
        names.extend(SafetyTier::ALL.iter().map(|v| v.as_str()));
        names.extend(EditKind::ALL.iter().map(|v| v.as_str()));
        names.extend(Lifetime::ALL.iter().map(|v| v.as_str()));
        names.extend(InjectionFrequency::ALL.iter().map(|v| v.as_str()));
        names.extend(ExtractionTarget::ALL.iter().map(|v| v.as_str()));
        for name in &names {
            assert!(glossary.contains_key(name), "{name} has no glossary line");
        }
        for term in glossary.keys() {
            assert!(
                names.contains(term),
                "glossary term {term} is not in the schema"
            );
        }
    }
}
