//! The summary's numbers against reports whose totals are known by
//! construction (the generator's manifest), hand-made disagreements, the
//! project's live facts, an earlier generation, and the per-entry
//! analysis after edits against a fresh one.

use std::collections::HashMap;

use super::*;
use crate::generate::{GenerateOptions, GeneratedEntry, generate_with_manifest};
use crate::host::{DocumentHost, HostOptions};
use crate::project_checks::{GitFacts, Worktree};
use crate::text::ByteEdit;

const OPTIONS: HostOptions = HostOptions {
    name_matches: true,
    max_document_bytes: 1 << 30,
    max_diagnostics: 1_000_000,
};

fn generated(entries: usize, violation_every: usize) -> (String, Vec<GeneratedEntry>) {
    generate_with_manifest(GenerateOptions {
        entries,
        seed: 11,
        violation_every,
    })
}

fn summary_of(text: &str) -> Summary {
    let host = DocumentHost::new(text.to_string(), None, OPTIONS);
    host.summary(SummaryOptions::default(), None, None).unwrap()
}

/// What a group of the manifest's entries sums to: entries, raw tokens,
/// weighted tokens (to a tenth).
fn sums<'m>(entries: impl Iterator<Item = &'m GeneratedEntry>) -> (usize, u64, i64) {
    let mut out = (0, 0, 0.0);
    for entry in entries {
        out.0 += 1;
        out.1 += entry.raw_tokens;
        out.2 += entry.weighted_tokens;
    }
    (out.0, out.1, (out.2 * 10.0).round() as i64)
}

fn of(group: &Group) -> (usize, u64, i64) {
    (
        group.entries,
        group.raw_tokens,
        (group.weighted_tokens * 10.0).round() as i64,
    )
}

fn find<'g>(groups: &'g [Group], key: &str) -> &'g Group {
    groups
        .iter()
        .find(|g| g.key == key)
        .unwrap_or_else(|| panic!("no group {key}"))
}

#[test]
fn the_totals_are_the_manifests_sums() {
    let (text, manifest) = generated(3000, 0);
    let summary = summary_of(&text);
    assert_eq!(summary.entries, 3000);
    assert_eq!(summary.counted, 3000);
    assert_eq!(summary.weighted, 3000);
    assert_eq!(of(&summary.total), sums(manifest.iter()));
    for class in ["stale", "bloat"] {
        let group = find(&summary.by_class, class);
        assert_eq!(
            of(group),
            sums(manifest.iter().filter(|e| e.class == class))
        );
        for part in &group.parts {
            let want = sums(manifest.iter().filter(|e| e.subtype == part.key));
            assert_eq!(of(part), want, "{class}/{}", part.key);
        }
    }
    for op_type in ["deterministic", "generative"] {
        let want = sums(manifest.iter().filter(|e| e.op_type == op_type));
        assert_eq!(of(find(&summary.by_op_type, op_type)), want, "{op_type}");
    }
    for kind in EditKind::ALL {
        let want = sums(manifest.iter().filter(|e| e.kind == Some(kind.as_str())));
        assert_eq!(of(find(&summary.by_kind, kind.as_str())), want, "{kind}");
    }
    let want = sums(manifest.iter().filter(|e| e.kind.is_none()));
    assert_eq!(of(find(&summary.by_kind, NONE_KEY)), want);
    for lifetime in Lifetime::ALL {
        let want = sums(
            manifest
                .iter()
                .filter(|e| e.lifetime == Some(lifetime.as_str())),
        );
        assert_eq!(of(find(&summary.by_lifetime, lifetime.as_str())), want);
    }
    let want = sums(manifest.iter().filter(|e| e.lifetime.is_none()));
    assert_eq!(of(find(&summary.by_lifetime, NONE_KEY)), want);
}

#[test]
fn the_queue_is_the_derived_tiers_and_confirm_says_why() {
    let (text, manifest) = generated(2000, 0);
    let summary = summary_of(&text);
    let queue = &summary.queue;
    assert_eq!(queue.basis, Some(Basis::Text));
    let tier = |t: &str| sums(manifest.iter().filter(|e| e.derived_tier == t));
    assert_eq!(of(&queue.auto), tier("auto"));
    assert_eq!(of(&queue.confirm), tier("confirm"));
    assert_eq!(queue.underived.entries, 0);
    // The first rule that forced confirm, per template.
    let reason = |e: &GeneratedEntry| match e.op {
        _ if e.op_type == "generative" => "op_type is \"generative\"",
        "delete" => "the evidence is satisfied: unknown",
        "extract-then-delete" => "lifecycle evidence is served_when (classifier-judged)",
        _ => "is_destructive is true",
    };
    let mut want: HashMap<&str, (usize, u64, i64)> = HashMap::new();
    for entry in manifest.iter().filter(|e| e.derived_tier == "confirm") {
        let slot = want.entry(reason(entry)).or_default();
        let one = sums(std::iter::once(entry));
        *slot = (slot.0 + one.0, slot.1 + one.1, slot.2 + one.2);
    }
    let got: HashMap<&str, (usize, u64, i64)> = queue
        .reasons
        .iter()
        .map(|g| (g.key.as_str(), of(g)))
        .collect();
    assert_eq!(got, want);
    // The most entries first, each group's first entry the first in the manifest.
    assert!(
        queue
            .reasons
            .windows(2)
            .all(|w| w[0].entries >= w[1].entries)
    );
    for group in &queue.reasons {
        let first = manifest
            .iter()
            .position(|e| e.derived_tier == "confirm" && reason(e) == group.key)
            .unwrap();
        assert_eq!(group.first.as_ref().unwrap().index, first, "{}", group.key);
    }
}

#[test]
fn the_largest_savings_folders_and_files_are_the_manifests() {
    let (text, manifest) = generated(1500, 0);
    let summary = summary_of(&text);
    let mut order: Vec<usize> = (0..manifest.len()).collect();
    order.sort_by(|&a, &b| {
        manifest[b]
            .raw_tokens
            .cmp(&manifest[a].raw_tokens)
            .then(a.cmp(&b))
    });
    let largest: Vec<(usize, u64)> = summary
        .largest
        .iter()
        .map(|s| (s.entry.index, s.raw_tokens))
        .collect();
    let want: Vec<(usize, u64)> = order[..DEFAULT_TOP]
        .iter()
        .map(|&i| (i, manifest[i].raw_tokens))
        .collect();
    assert_eq!(largest, want);
    assert_eq!(summary.largest[0].path, manifest[order[0]].path);
    // Every path is under docs/: the folders are the level below it.
    let mut folders: HashMap<String, (usize, u64, i64)> = HashMap::new();
    for entry in &manifest {
        let folder = entry.path.split('/').take(2).collect::<Vec<_>>().join("/") + "/";
        let slot = folders.entry(folder).or_default();
        let one = sums(std::iter::once(entry));
        *slot = (slot.0 + one.0, slot.1 + one.1, slot.2 + one.2);
    }
    assert_eq!(summary.by_folder.groups, folders.len());
    for group in &summary.by_folder.shown {
        assert_eq!(of(group), folders[&group.key], "{}", group.key);
    }
    let shown: u64 = summary.by_folder.shown.iter().map(|g| g.raw_tokens).sum();
    let rest = summary.by_folder.rest.as_ref().unwrap();
    assert_eq!(
        rest.key,
        format!("{} more folders", folders.len() - DEFAULT_TOP)
    );
    assert_eq!(shown + rest.raw_tokens, summary.total.raw_tokens);
    assert_eq!(summary.by_file.groups, 1500);
    assert!(
        summary
            .by_folder
            .shown
            .windows(2)
            .all(|w| w[0].raw_tokens >= w[1].raw_tokens)
    );
}

#[test]
fn recorded_tiers_that_derive_otherwise_are_counted_and_problems_grouped_by_invariant() {
    let (text, manifest) = generated(1200, 5);
    let summary = summary_of(&text);
    let disagree = manifest.iter().filter(|e| !e.agrees).count();
    assert!(disagree > 10, "{disagree}");
    assert_eq!(summary.tiers.disagree, disagree);
    let first_pair = &summary.tiers.pairs[0];
    assert!(!first_pair.agrees, "the disagreeing pairs come first");
    let mismatches = summary
        .problems
        .invariants
        .iter()
        .find(|i| i.invariant == 7)
        .and_then(|i| i.codes.iter().find(|c| c.code == Code::TierMismatch))
        .map_or(0, |c| c.count);
    assert_eq!(mismatches, disagree);
    let analysis = crate::analyze(&text);
    let errors = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    assert_eq!(summary.problems.errors, errors);
    let by_code: usize = summary
        .problems
        .invariants
        .iter()
        .flat_map(|i| &i.codes)
        .map(|c| c.count)
        .sum();
    assert_eq!(by_code, analysis.diagnostics.len());
}

/// A hand-made report: one entry recording `auto` for a destructive op.
#[test]
fn a_hand_made_disagreement_is_the_one_counted() {
    let text = crate::fixture::report_with_entry(
        r#"{"path": "docs/a.md", "category": {"class": "stale", "subtype": "orphaned"}, "signals": [],
      "op": "delete-range", "op_type": "deterministic", "is_destructive": true, "is_reversible": false, "safety_tier": "auto",
      "token_estimate": {"raw_tokens": 40},
      "exact_edit": {"kind": "delete-range", "anchor": {"start_line": 1, "end_line": 2}, "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}"#,
    );
    let summary = summary_of(&text);
    assert_eq!(summary.tiers.disagree, 1);
    let pair = &summary.tiers.pairs[0];
    assert_eq!(
        (
            pair.recorded,
            pair.derived,
            pair.agrees,
            pair.group.raw_tokens
        ),
        (Some(SafetyTier::Auto), Some(SafetyTier::Confirm), false, 40)
    );
    assert_eq!(summary.queue.confirm.entries, 1);
    assert_eq!(summary.queue.reasons[0].key, "is_destructive is true");
}

#[test]
fn the_project_at_hand_gives_stale_missing_dirty_untracked_and_live_tiers() {
    let (text, manifest) = generated(60, 0);
    let host = DocumentHost::new(text.clone(), None, OPTIONS);
    let analysis = crate::analyze(&text);
    let deletes: Vec<usize> = (0..manifest.len())
        .filter(|&i| manifest[i].op == "delete")
        .collect();
    assert!(deletes.len() >= 4, "{}", deletes.len());
    let mut git = GitFacts::default();
    // The first delete's path is untracked, the second dirty, the others clean.
    for (n, &i) in deletes.iter().enumerate() {
        let (tracked, worktree) = match n {
            0 => (false, Worktree::Clean),
            1 => (true, Worktree::Changed("modified".into())),
            _ => (true, Worktree::Clean),
        };
        git.insert(&manifest[i].path, tracked, worktree);
    }
    let facts = WorkspaceFacts {
        root: Some("/home/dev/monorepo".into()),
        git: Some(git),
        ..WorkspaceFacts::default()
    };
    // Two entries stale and one missing, as the workspace checks say them.
    let at = |i: usize| analysis.entries[i].range;
    let diagnostics = vec![
        Diagnostic::new(Code::StaleExactEdit, at(1), "stale"),
        Diagnostic::new(Code::StaleExactEdit, at(1), "stale again"),
        Diagnostic::new(Code::StaleExactEdit, at(7), "stale"),
        Diagnostic::new(Code::PathMissing, at(9), "missing"),
    ];
    let at_hand = AtHand {
        facts: &facts,
        diagnostics: &diagnostics,
    };
    let summary = host
        .summary(SummaryOptions::default(), Some(at_hand), None)
        .unwrap();
    let live = summary.live.as_ref().unwrap();
    let raw = |list: &[usize]| list.iter().map(|&i| manifest[i].raw_tokens).sum::<u64>();
    assert_eq!(
        (live.stale.entries, live.stale.raw_tokens),
        (2, raw(&[1, 7]))
    );
    assert_eq!(
        (live.missing.entries, live.missing.raw_tokens),
        (1, raw(&[9]))
    );
    assert_eq!(live.untracked.first.as_ref().unwrap().index, deletes[0]);
    assert_eq!((live.untracked.entries, live.dirty.entries), (1, 1));
    assert_eq!(live.dirty.first.as_ref().unwrap().index, deletes[1]);
    assert_eq!(live.git_read_for, deletes.len());
    // A temporary delete's age is the scanner's: confirm today too, and
    // the deletes the generator records as `auto` derive otherwise.
    assert_eq!(summary.queue.basis, Some(Basis::Live));
    let shifted: usize = live.tier_shifts.iter().map(|s| s.group.entries).sum();
    let recorded_auto = deletes
        .iter()
        .filter(|&&i| manifest[i].recorded_tier == "auto")
        .count();
    assert_eq!(shifted, recorded_auto);
    // The workspace checks' diagnostics are among the problems (invariant 13).
    let thirteen = summary
        .problems
        .invariants
        .iter()
        .find(|i| i.invariant == 13)
        .unwrap();
    assert_eq!(thirteen.codes[0].code, Code::StaleExactEdit);
    assert_eq!(thirteen.codes[0].count, 3);
}

#[test]
fn the_change_since_an_earlier_generation_is_the_diffs() {
    let (old_text, old) = generated(400, 0);
    // The next generation: the first 50 entries gone, 30 new ones after them.
    let (new_full, new_manifest) = generate_with_manifest(GenerateOptions {
        entries: 430,
        seed: 11,
        violation_every: 0,
    });
    let old_analysis = crate::analyze(&old_text);
    let new_analysis = crate::analyze(&new_full);
    let diff = crate::report_diff::diff(&old_analysis, &new_analysis).unwrap();
    let host = DocumentHost::new(new_full.clone(), None, OPTIONS);
    let summary = host
        .summary(SummaryOptions::default(), None, Some(("OLD", &diff)))
        .unwrap();
    let since = summary.since.as_ref().unwrap();
    assert_eq!(since.name, "OLD");
    assert_eq!(since.added.entries, diff.entries.added.len());
    assert_eq!(since.gone.entries, diff.entries.gone.len());
    let old_raw: u64 = old.iter().map(|e| e.raw_tokens).sum();
    let new_raw: u64 = new_manifest.iter().map(|e| e.raw_tokens).sum();
    assert_eq!(since.raw_delta(), i128::from(new_raw) - i128::from(old_raw));
    assert_eq!((since.old_entries, summary.entries), (400, 430));
    // The same text: no change.
    let same = crate::report_diff::diff(&new_analysis, &new_analysis).unwrap();
    let summary = host
        .summary(SummaryOptions::default(), None, Some(("HEAD", &same)))
        .unwrap();
    assert!(summary.since.unwrap().is_empty());
}

#[test]
fn after_edits_the_per_entry_summary_is_a_fresh_analysis_summary() {
    let (text, _) = generated(300, 7);
    let mut host = DocumentHost::new(text.clone(), None, OPTIONS);
    let mut text = text;
    // Edits within entries (a tier, a token count), then an entry deleted.
    let mut apply = |find: &dyn Fn(&str) -> std::ops::Range<usize>, new_text: &str| {
        let range = find(&text);
        text.replace_range(range.clone(), new_text);
        let edit = ByteEdit {
            range: TextRange {
                start: range.start,
                end: range.end,
            },
            new_len: new_text.len(),
        };
        host.update(text.clone(), Some(&[edit]), OPTIONS);
        host.settle();
        text.clone()
    };
    let value = |n: usize, key: &'static str| {
        move |text: &str| {
            let entry = crate::analyze(text).entries[n].range;
            let at = text[entry.as_range()].find(key).unwrap() + entry.start + key.len();
            let end = at + text[at..].find([',', '\n', '}']).unwrap();
            at..end
        }
    };
    apply(&value(20, "\"safety_tier\": "), "\"auto\"");
    apply(&value(30, "\"raw_tokens\": "), "123456");
    let text = apply(
        &|text: &str| {
            let analysis = crate::analyze(text);
            analysis.entries[40].range.start..analysis.entries[41].range.start
        },
        "",
    );
    let fresh = DocumentHost::new(text.clone(), None, OPTIONS);
    let options = SummaryOptions::default();
    assert_eq!(
        host.summary(options, None, None),
        fresh.summary(options, None, None)
    );
}

#[test]
fn a_text_that_is_no_report_has_no_summary() {
    for text in ["", "[1, 2]", "{\"a\": 1}", "{\"schema_version\": "] {
        let host = DocumentHost::new(text.to_string(), None, OPTIONS);
        assert_eq!(
            host.summary(SummaryOptions::default(), None, None),
            None,
            "{text}"
        );
    }
}

#[test]
fn paths_are_grouped_by_their_key_and_folder() {
    for (path, key, borrowed) in [
        ("docs/a.md", "docs/a.md", true),
        ("tmp/", "tmp/", true),
        ("README.md", "README.md", true),
        ("./docs//a.md", "docs/a.md", false),
        ("docs/./a.md", "docs/a.md", false),
        ("/docs/a.md", "docs/a.md", false),
    ] {
        let got = file_key(path);
        assert_eq!(got, key, "{path}");
        assert_eq!(matches!(got, Cow::Borrowed(_)), borrowed, "{path}");
    }
    for (key, depth, folder) in [
        ("docs/a.md", 1, "docs/"),
        ("docs/a.md", 2, "docs/"),
        ("docs/area-1/n.md", 2, "docs/area-1/"),
        ("docs/area-1/n.md", 1, "docs/"),
        ("tmp/", 1, "tmp/"),
        ("a/b/", 3, "a/b/"),
        ("README.md", 1, "./"),
    ] {
        assert_eq!(folder_at(key, depth), folder, "{key} at {depth}");
    }
}

/// The live tiers of a whole analysis (the CLI's) are those of the same
/// report kept per entry (the editor's).
#[test]
fn a_whole_analysis_and_a_per_entry_one_sum_up_alike_with_the_project_at_hand() {
    let (text, manifest) = generated(200, 0);
    let mut git = GitFacts::default();
    for entry in manifest.iter().filter(|e| e.op == "delete") {
        git.insert(&entry.path, true, Worktree::Clean);
    }
    let facts = WorkspaceFacts {
        root: Some("/p".into()),
        git: Some(git),
        ..WorkspaceFacts::default()
    };
    let at_hand = AtHand {
        facts: &facts,
        diagnostics: &[],
    };
    let per_entry = DocumentHost::new(text.clone(), None, OPTIONS);
    let whole = DocumentHost::of_whole(crate::analyze(&text), OPTIONS, |t| t.to_string());
    let options = SummaryOptions::default();
    let one = per_entry.summary(options, Some(at_hand), None).unwrap();
    assert_eq!(one, whole.summary(options, Some(at_hand), None).unwrap());
    assert!(one.live.unwrap().git_read_for > 10);
}

/// A generative entry of `op`, `path`, `raw` tokens, recording `tier`, with
/// `weighted` tokens (JSON text) where given.
fn generative(op: &str, path: &str, raw: u64, tier: &str, weighted: Option<&str>) -> String {
    let weighted = weighted.map_or(String::new(), |w| {
        format!(r#", "injection_frequency": "on-demand", "weighted_tokens": {w}"#)
    });
    format!(
        r#"{{"path": {path}, "category": {{"class": "bloat", "subtype": "distill"}}, "signals": [],
      "op": {op}, "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "{tier}",
      "token_estimate": {{"raw_tokens": {raw}{weighted}}}}}"#,
        op = serde_json::to_string(op).unwrap(),
        path = serde_json::to_string(path).unwrap(),
    )
}

fn with_entries(entries: &[String]) -> String {
    crate::fixture::report_with_entry(&entries.join(",\n    "))
}

#[test]
fn a_recorded_value_that_is_no_tier_agrees_with_nothing_and_is_no_mismatch() {
    let text = with_entries(&[
        generative("distill", "docs/a.md", 5, "manual", None),
        generative("distill", "docs/a.md", 7, "auto", None),
    ]);
    let summary = summary_of(&text);
    // The `auto` one is a mismatch; the `manual` one is `unknown-safety-tier`.
    assert_eq!(summary.tiers.disagree, 1);
    let none = summary
        .tiers
        .pairs
        .iter()
        .find(|p| p.recorded.is_none())
        .unwrap();
    assert_eq!((none.agrees, none.group.raw_tokens), (false, 5));
    let text = render::text(&summary, "r", &|_| String::new());
    let row = text.lines().find(|l| l.contains("no valid tier")).unwrap();
    assert!(row.contains(" – "), "{row}");
}

#[test]
fn weights_below_zero_or_past_exact_sums_show_one_number_everywhere() {
    let text = with_entries(&[
        generative("distill", "docs/a.md", 1, "confirm", Some("1e308")),
        generative("distill", "docs/a.md", 1, "confirm", Some("1e308")),
        generative("distill", "docs/a.md", 1, "confirm", Some("-7.5")),
    ]);
    let summary = summary_of(&text);
    assert_eq!(summary.weighted, 2, "a negative weight is no saving");
    assert_eq!(summary.total.weighted_tokens, MAX_WEIGHTED);
    let json = json::to_json(&summary, &|_| serde_json::Map::new());
    assert_eq!(json["total"]["weighted_tokens"], 9_007_199_254_740_992.0);
    let text = render::text(&summary, "r", &|_| String::new());
    assert!(text.contains("9 007 199 254 740 992 weighted"), "{text}");
    let page = html::html(&summary, "r", &|_| String::new());
    assert!(page.contains("data-value=\"9007199254740992\""));
}

#[test]
fn markdown_from_the_report_stays_in_code_and_a_line_break_in_its_row() {
    let op = "![t](https://tracker.invalid/p.png) <img src=x> ``x``";
    let path = "docs/a\nb.md";
    let text = with_entries(&[generative(op, path, 9, "confirm", None)]);
    let summary = summary_of(&text);
    let markdown = render::markdown(&summary, "n`a|me", &|_| String::new());
    // Every table row is one line; the op and path are code spans fenced
    // past their own backticks, the line break shown escaped.
    for line in markdown.lines().filter(|l| l.contains("tracker.invalid")) {
        assert!(line.starts_with('|'), "{line}");
        assert!(
            line.contains("``` ![t](https://tracker.invalid/p.png) <img src=x> ``x`` ```"),
            "{line}"
        );
    }
    assert!(markdown.contains("`docs/a\\nb.md`"), "{markdown}");
    assert!(
        markdown.starts_with("## Report summary: `n`a|me`")
            || markdown.starts_with("## Report summary: ``n`a|me``"),
        "{markdown}"
    );
    let text = render::text(&summary, "r", &|_| String::new());
    assert!(text.contains("docs/a\\nb.md"), "{text}");
}

#[test]
fn entries_without_a_path_are_their_own_file_and_folder() {
    let mut no_path = generative("distill", "x", 4, "confirm", None);
    no_path = no_path.replace(r#""path": "x", "#, "");
    let text = with_entries(&[
        no_path,
        generative("distill", "docs/a.md", 6, "confirm", None),
    ]);
    let summary = summary_of(&text);
    assert_eq!(summary.entries, 2, "{text}");
    let keys = |top: &Top| -> Vec<(String, u64)> {
        top.shown
            .iter()
            .map(|g| (g.key.clone(), g.raw_tokens))
            .collect()
    };
    assert_eq!(
        keys(&summary.by_file),
        [("docs/a.md".to_string(), 6), (NO_PATH.to_string(), 4)]
    );
    assert_eq!(
        keys(&summary.by_folder),
        [("docs/".to_string(), 6), (NO_PATH.to_string(), 4)]
    );
}
