//! Two generations in, what changed out: the golden valid report against
//! copies of it edited as a regeneration would.

use expect_test::{Expect, expect};
use serde_json::{Value, json};

use super::*;
use crate::analysis::analyze;

const GOLDEN: &str = include_str!("../../../../examples/golden/valid.report.json");

fn golden() -> Value {
    serde_json::from_str(GOLDEN).unwrap()
}

fn pretty(report: &Value) -> String {
    serde_json::to_string_pretty(report).unwrap()
}

fn diff_texts(old: &str, new: &str) -> ReportDiff {
    diff(&analyze(old), &analyze(new)).expect("both are reports")
}

/// Every part of a diff, one line each, for snapshots.
fn render(diff: &ReportDiff) -> String {
    let mut out = format!(
        "{}\nentries {} -> {} (errors {} -> {}), tokens {} -> {}\n",
        diff.summary(),
        diff.old.entries,
        diff.new.entries,
        diff.old.errors,
        diff.new.errors,
        diff.old.rollup.raw_total,
        diff.new.rollup.raw_total
    );
    let field = |f: &FieldChange| {
        format!(
            "{} [{:?}]: {} -> {}",
            f.field,
            f.aspect,
            f.old.as_deref().unwrap_or("(none)"),
            f.new.as_deref().unwrap_or("(none)")
        )
    };
    for f in &diff.envelope {
        out.push_str(&format!("envelope {}\n", field(f)));
    }
    for (name, array) in [
        ("entries", &diff.entries),
        ("shortlist", &diff.shortlist),
        ("candidates", &diff.candidates),
    ] {
        for id in &array.added {
            out.push_str(&format!(
                "{name} + [{}] {} {}\n",
                id.index, id.path, id.kind
            ));
        }
        for id in &array.gone {
            out.push_str(&format!(
                "{name} - [{}] {} {}\n",
                id.index, id.path, id.kind
            ));
        }
        for change in &array.changed {
            out.push_str(&format!(
                "{name} ~ [{}]->[{}] {} {}\n",
                change.old.index, change.new.index, change.new.path, change.new.kind
            ));
            for f in &change.fields {
                out.push_str(&format!("    {}\n", field(f)));
            }
            if let Some(tier) = &change.tier {
                let show = |recorded: Option<SafetyTier>, derivation: &Option<Derivation>| {
                    format!(
                        "recorded {:?}, derived {:?} ({})",
                        recorded.map(|t| t.as_str()),
                        derivation.as_ref().map(|d| d.tier.as_str()),
                        derivation.as_ref().map(|d| d.reason()).unwrap_or_default()
                    )
                };
                out.push_str(&format!(
                    "    tier: {} -> {}\n",
                    show(tier.old_recorded, &tier.old_derivation),
                    show(tier.new_recorded, &tier.new_derivation)
                ));
            }
        }
        if array.moved > 0 {
            out.push_str(&format!("{name} moved {}\n", array.moved));
        }
    }
    out
}

fn check(old: &Value, new: &Value, expected: Expect) {
    expected.assert_eq(&render(&diff_texts(&pretty(old), &pretty(new))));
}

#[test]
fn a_report_against_itself_has_no_changes() {
    let diff = diff_texts(GOLDEN, GOLDEN);
    assert!(diff.is_empty());
    assert_eq!(diff.summary(), "no changes");
    assert_eq!(diff.entries.moved, 0);
}

#[test]
fn reordered_reformatted_arrays_are_no_change() {
    let mut new = golden();
    for key in ["entries", "shortlist"] {
        new[key].as_array_mut().unwrap().reverse();
    }
    // Compact, keys in another order, a number spelled otherwise.
    new["scan"]["files_scanned"] = json!(184.0);
    let text = serde_json::to_string(&new).unwrap();
    let diff = diff_texts(GOLDEN, &text);
    assert!(diff.is_empty(), "{}", render(&diff));
    assert_eq!(diff.entries.moved, 12);
    assert_eq!(diff.shortlist.moved, 12);
}

#[test]
fn entries_added_and_gone_are_named_by_path_and_kind() {
    let mut new = golden();
    let entries = new["entries"].as_array_mut().unwrap();
    let gone = entries.remove(0);
    let mut added = gone.clone();
    added["path"] = json!("docs/new-guide.md");
    added["token_estimate"]["raw_tokens"] = json!(100);
    entries.push(added);
    check(
        &golden(),
        &new,
        expect![[r#"
            +1 / −1 entries, 0 tier changes, +62 tokens
            entries 12 -> 12 (errors 0 -> 1), tokens 13185 -> 13247
            entries + [11] docs/new-guide.md replace-text
            entries - [0] docs/setup.md replace-text
            entries moved 11
        "#]],
    );
}

#[test]
fn a_changed_characterization_shows_both_derivations() {
    let mut new = golden();
    // docs/setup.md: replace-text, auto; made destructive, tier left as it was.
    new["entries"][0]["is_destructive"] = json!(true);
    // docs/old-api.md: delete-range, confirm; its recorded tier changed.
    new["entries"][2]["safety_tier"] = json!("auto");
    check(
        &golden(),
        &new,
        expect![[r#"
            +0 / −0 entries, 2 changed, 2 tier changes, ±0 tokens
            entries 12 -> 12 (errors 0 -> 3), tokens 13185 -> 13185
            entries ~ [0]->[0] docs/setup.md replace-text
                is_destructive [Classification]: false -> true
                tier: recorded Some("auto"), derived Some("auto") (the op is deterministic, non-destructive and reversible) -> recorded Some("auto"), derived Some("confirm") (is_destructive is true)
            entries ~ [2]->[2] docs/old-api.md delete-range
                tier: recorded Some("confirm"), derived Some("confirm") (is_destructive is true) -> recorded Some("auto"), derived Some("confirm") (is_destructive is true)
        "#]],
    );
}

#[test]
fn exact_edit_targets_hashes_and_lifecycles_are_told_apart() {
    let mut new = golden();
    new["entries"][1]["exact_edit"]["expected_sha256"] = json!("0".repeat(64));
    new["entries"][3]["exact_edit"]["dest_path"] = json!("archive/elsewhere.md");
    new["entries"][3]["exact_edit"]["anchor"]["end_line"] = json!(90);
    new["entries"][9]["exact_edit"]["lifecycle"]["served_when_path"] = json!("docs/other.md");
    new["entries"][6]["signals"] = json!(["a new signal"]);
    new["entries"][6]["token_estimate"]["raw_tokens"] = json!(200);
    let diff = diff_texts(GOLDEN, &pretty(&new));
    let aspects: Vec<(String, Aspect)> = diff
        .entries
        .changed
        .iter()
        .flat_map(|c| c.fields.iter().map(|f| (c.new.path.clone(), f.aspect)))
        .collect();
    let expected: Vec<(String, Aspect)> = [
        ("docs/architecture.md", Aspect::Hash),
        ("docs/roadmap-2023.md", Aspect::Target),
        ("docs/roadmap-2023.md", Aspect::Target),
        ("docs/contributing.md", Aspect::Signals),
        ("docs/contributing.md", Aspect::Tokens),
        ("plans/migration-plan.md", Aspect::Lifecycle),
    ]
    .iter()
    .map(|(p, a)| (p.to_string(), *a))
    .collect();
    assert_eq!(aspects, expected, "{}", render(&diff));
    assert_eq!(diff.tier_changes(), 0);
    assert_eq!(diff.token_delta(), 40);
}

#[test]
fn shortlist_membership_and_candidates_are_compared() {
    let mut new = golden();
    let shortlist = new["shortlist"].as_array_mut().unwrap();
    shortlist.retain(|item| item != "docs/contributing.md");
    shortlist.push(json!("docs/fresh.md"));
    shortlist[9]["lifecycle"]["lifetime"] = json!("keep");
    new["promotion_candidates"][0]["pitch"] = json!("A shorter pitch.");
    new["promotion_candidates"]
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "docs/setup.md", "name": "setup-once", "pitch": "p"}));
    new["generated_at"] = json!("2026-12-01T09:00:00Z");
    check(
        &golden(),
        &new,
        expect![[r#"
            +0 / −0 entries, 0 tier changes, ±0 tokens
            entries 12 -> 12 (errors 0 -> 2), tokens 13185 -> 13185
            envelope generated_at [Other]: "2026-11-29T18:42:07Z" -> "2026-12-01T09:00:00Z"
            shortlist + [12] docs/fresh.md 
            shortlist - [7] docs/contributing.md 
            shortlist ~ [10]->[9] plans/migration-plan.md 
                lifecycle/lifetime [Lifecycle]: "delete-once-served" -> "keep"
            shortlist moved 5
            candidates + [1] docs/setup.md setup-once
            candidates ~ [0]->[0] handoff/会议记录-😀.md decision-log
                pitch [Other]: "Record decisions in docs/decisions.md as they are made, so hand-off notes never pile up." -> "A shorter pitch."
        "#]],
    );
}

#[test]
fn entries_of_one_path_and_kind_pair_identical_then_by_anchor() {
    let mut old = golden();
    let first = old["entries"][2].clone();
    let mut second = first.clone();
    second["exact_edit"]["anchor"] = json!({"start_line": 200, "end_line": 210});
    let mut third = first.clone();
    third["exact_edit"]["anchor"] = json!({"start_line": 300, "end_line": 310});
    old["entries"]
        .as_array_mut()
        .unwrap()
        .extend([second.clone(), third.clone()]);
    let mut new = golden();
    let entries = new["entries"].as_array_mut().unwrap();
    entries.remove(2);
    // Reordered: the third first, changed in its hash; then the second as it was; then the first.
    third["exact_edit"]["expected_sha256"] = json!("f".repeat(64));
    entries.insert(0, third);
    entries.insert(1, second);
    entries.push(first);
    let diff = diff_texts(&pretty(&old), &pretty(&new));
    assert!(diff.entries.added.is_empty() && diff.entries.gone.is_empty());
    let changed: Vec<(usize, usize, &str)> = diff
        .entries
        .changed
        .iter()
        .map(|c| (c.old.index, c.new.index, c.fields[0].field.as_str()))
        .collect();
    assert_eq!(
        changed,
        [(13, 0, "exact_edit/expected_sha256")],
        "{}",
        render(&diff)
    );
}

#[test]
fn an_entry_whose_kind_changed_is_paired_by_path() {
    let mut new = golden();
    // docs/setup.md: from a deterministic replace-text to a generative rewrite.
    let entry = &mut new["entries"][0];
    entry.as_object_mut().unwrap().remove("exact_edit");
    entry["op_type"] = json!("generative");
    entry["op"] = json!("rewrite");
    entry["safety_tier"] = json!("confirm");
    let diff = diff_texts(GOLDEN, &pretty(&new));
    assert!(diff.entries.added.is_empty() && diff.entries.gone.is_empty());
    let change = &diff.entries.changed[0];
    assert_eq!(
        (change.old.kind.as_str(), change.new.kind.as_str()),
        ("replace-text", "generative")
    );
    assert!(
        change
            .fields
            .iter()
            .any(|f| f.field == "exact_edit/kind" && f.new.is_none())
    );
    assert_eq!(
        change.tier.as_ref().unwrap().tiers(),
        (Some(SafetyTier::Auto), Some(SafetyTier::Confirm))
    );
}

#[test]
fn a_broken_generation_is_compared_as_far_as_it_parses() {
    let mut new = golden();
    new["entries"].as_array_mut().unwrap().truncate(3);
    let text = pretty(&new);
    let broken = &text[..text.rfind('}').unwrap() - 1];
    let diff = diff_texts(GOLDEN, broken);
    assert!(diff.new.errors > 0);
    assert_eq!(diff.entries.gone.len(), 9, "{}", render(&diff));
}

#[test]
fn what_is_not_a_report_is_not_compared() {
    let (report, array) = (analyze(GOLDEN), analyze("[1, 2]"));
    assert_eq!(diff(&array, &report), Err(NotComparable::OldIsNotAReport));
    assert_eq!(
        diff(&report, &analyze("")),
        Err(NotComparable::NewIsNotAReport)
    );
}

#[test]
fn token_deltas_read_short() {
    let cases = [
        (0, "±0"),
        (38, "+38"),
        (-999, "−999"),
        (1_000, "+1 k"),
        (-3_200, "−3.2 k"),
        (-3_249, "−3.2 k"),
        (999_949, "+999.9 k"),
        (12_345_678, "+12.3 M"),
    ];
    for (n, text) in cases {
        assert_eq!(signed_short(n), text, "{n}");
    }
}

#[test]
fn a_changed_entry_never_takes_the_partner_of_an_identical_one_after_it() {
    let mut old = golden();
    let first = old["entries"][2].clone();
    let mut second = first.clone();
    second["exact_edit"]["anchor"] = json!({"start_line": 200, "end_line": 210});
    old["entries"].as_array_mut().unwrap().push(second.clone());
    let mut new = golden();
    let entries = new["entries"].as_array_mut().unwrap();
    entries.remove(2);
    // The second, moved and with its anchor and hash changed, comes first; the first is as it was.
    second["exact_edit"]["anchor"] = json!({"start_line": 300, "end_line": 310});
    second["exact_edit"]["expected_sha256"] = json!("e".repeat(64));
    entries.insert(0, second);
    entries.push(first);
    let diff = diff_texts(&pretty(&old), &pretty(&new));
    let changed: Vec<(usize, usize)> = diff
        .entries
        .changed
        .iter()
        .map(|c| (c.old.index, c.new.index))
        .collect();
    assert_eq!(changed, [(12, 0)], "{}", render(&diff));
}
