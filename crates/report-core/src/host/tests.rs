//! The host's tests: edits in, the same answers as a full analysis out.
use expect_test::expect;

use super::*;
use crate::fix::Fix;
use crate::fixture::{cursor, report_with_entry};
use crate::generate::{GenerateOptions, generate_report};
use crate::publication::{self, LeftOut, Publication};
use crate::severities::{Level, Severities};

const REPORT: HostOptions = HostOptions {
    name_matches: true,
    max_document_bytes: 1 << 20,
    max_diagnostics: 1000,
};

const WRONG_TIER: &str = r#"{"path": "docs/a.md", "category": {"class": "bloat", "subtype": "distill"}, "signals": [],
      "op": "distill", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "au$0to",
      "token_estimate": {"raw_tokens": 5}}"#;

fn report(entries: usize, violation_every: usize) -> String {
    generate_report(GenerateOptions {
        entries,
        seed: 3,
        violation_every,
    })
}

/// Replaces `range` of the host's text, telling the host the edit.
fn edit(host: &mut DocumentHost<String>, range: TextRange, new_text: &str) -> UpdateKind {
    edit_with(host, range, new_text, REPORT)
}

fn edit_with(
    host: &mut DocumentHost<String>,
    range: TextRange,
    new_text: &str,
    options: HostOptions,
) -> UpdateKind {
    let mut text = host.text().clone();
    text.replace_range(range.as_range(), new_text);
    let edit = ByteEdit {
        range,
        new_len: new_text.len(),
    };
    settled_update(host, text, Some(&[edit]), options)
}

/// The host's update, then [`settle_checking_the_publication`].
fn settled_update(
    host: &mut DocumentHost<String>,
    text: String,
    edits: Option<&[ByteEdit]>,
    options: HostOptions,
) -> UpdateKind {
    let kind = host.update(text, edits, options);
    settle_checking_the_publication(host);
    kind
}

/// Settles the host after an update, checking that what it published
/// while entries lagged is what it publishes once they are moved.
fn settle_checking_the_publication(host: &mut DocumentHost<String>) {
    let owned = |host: &DocumentHost<String>| {
        let published = host.published();
        let diagnostics: Vec<Diagnostic> = (published.diagnostics.into_iter())
            .map(Cow::into_owned)
            .collect();
        (diagnostics, published.left_out, host.diagnostics().len())
    };
    let lagging = owned(host);
    host.settle();
    assert_eq!(lagging, owned(host), "published while entries lagged");
}

/// A copy of the first entry inserted before it: the entries after it move.
fn insert_a_copy_of_the_first_entry(host: &mut DocumentHost<String>) -> UpdateKind {
    let first = host.text().find("\"entries\": [\n    {").unwrap() + 17;
    let end = first + host.text()[first..].find("\n    }").unwrap() + 6;
    let entry = host.text()[first..end].to_string();
    edit(host, TextRange::empty(first), &format!("{entry},\n    "))
}

/// The host's own diagnostics published under a cap of `max`, at their
/// default severities.
fn published_under(host: &DocumentHost<String>, max: usize) -> Publication<'_> {
    let severities = Severities::default();
    let o = publication::Options {
        max,
        severities: &severities,
    };
    publication::publish(host.snapshot().own(max, &severities), &[], &o)
}

fn assert_like_a_full_analysis(host: &DocumentHost<String>) {
    let full = crate::analyze(host.text());
    let diagnostics: Vec<Diagnostic> = host
        .diagnostics()
        .into_iter()
        .map(Cow::into_owned)
        .collect();
    assert_eq!(diagnostics, full.diagnostics);
    let text = host.text();
    // Every offset: outside entries, hover and completion read the text
    // without them (and without the shortlist's items, away from it).
    let index = host.snapshot().index().unwrap();
    for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
        assert_eq!(
            host.hover(offset),
            hover::hover(&full, offset),
            "hover at {offset}"
        );
        let completions = completion::completions(full.root().unwrap(), text, offset, &index);
        assert_eq!(
            host.completions(offset),
            completions,
            "completions at {offset}"
        );
        let selection = folding::selection_ranges(full.root().unwrap(), offset);
        assert_eq!(
            host.selection_ranges(&[offset]),
            [selection],
            "selection at {offset}"
        );
    }
}

#[test]
fn hovers_inside_and_outside_entries_equal_those_of_a_full_analysis() {
    let host = DocumentHost::new(report(6, 2), None, REPORT);
    assert!(host.status().entries.is_some(), "kept per entry");
    assert!(!host.holds_full_analysis());
    assert_like_a_full_analysis(&host);
}

#[test]
fn hovers_and_completions_among_shortlist_items_of_every_kind_equal_those_of_a_full_analysis() {
    let text = report(4, 0);
    let at = text.find("\"shortlist\": [").unwrap() + 14;
    let mixed = "\n    7, \"docs/cleared-0.md\",\n    {\"path\": \"docs/路.md\", \"lifecycle\": {}},\n    \"docs/a.md\" ,\"docs/b.md\",\n    {\"path\": \"docs/c.md\"},\n    \"docs/area-0/note-0-a.md\", [],\n";
    let text = format!("{}{mixed}{}", &text[..at], &text[at..]);
    let host = DocumentHost::new(text, None, REPORT);
    assert!(!host.holds_full_analysis());
    assert_like_a_full_analysis(&host);
}

#[test]
fn edits_in_entries_between_them_and_in_the_envelope_are_incremental_syntax_errors_outside_entries_not()
 {
    let mut host = DocumentHost::new(report(6, 0), None, REPORT);
    let at = host.text().find("\"safety_tier\": \"confirm\"").unwrap() + 16;
    let kind = edit(&mut host, TextRange::new(at, at + 7), "auto");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_eq!(host.diagnostics()[0].code, Code::TierMismatch);
    assert_like_a_full_analysis(&host);

    let between = host.text().find("},\n    {").unwrap() + 2;
    let kind = edit(&mut host, TextRange::empty(between), " ");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_like_a_full_analysis(&host);
    // The envelope is checked again without the entries.
    let version = host.text().find("\"tool_version\"").unwrap() + 1;
    let kind = edit(&mut host, TextRange::empty(version), "x");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_like_a_full_analysis(&host);
    // A syntax error in the envelope is not.
    let kind = edit(&mut host, TextRange::empty(version), "\"");
    assert_eq!(kind, UpdateKind::Full);
    assert_like_a_full_analysis(&host);
    let status = host.status();
    assert_eq!(
        (status.incremental_updates, status.full_analyses),
        (3, 2),
        "{status:?}"
    );
}

#[test]
fn an_update_without_edits_analyses_the_whole_text() {
    let mut host = DocumentHost::new(report(3, 0), None, REPORT);
    let broken = host.text().replacen("\"entries\": [", "\"entries\": [[", 1);
    assert_eq!(
        settled_update(&mut host, broken, None, REPORT),
        UpdateKind::Full
    );
    assert_eq!(host.status().entries, None);
    assert!(host.holds_full_analysis());
    assert_like_a_full_analysis(&host);
}

#[test]
fn no_edits_leave_even_a_full_analysis_standing() {
    let broken = report(3, 1).replacen("\"entries\": [", "\"entries\": [[", 1);
    let mut host = DocumentHost::new(broken.clone(), None, REPORT);
    assert!(host.holds_full_analysis());
    let before = host.diagnostics().into_iter().map(|d| d.into_owned());
    let before: Vec<Diagnostic> = before.collect();
    assert_eq!(
        settled_update(&mut host, broken, Some(&[]), REPORT),
        UpdateKind::Incremental
    );
    assert_eq!(host.status().full_analyses, 1);
    let after: Vec<Diagnostic> = host
        .diagnostics()
        .into_iter()
        .map(|d| d.into_owned())
        .collect();
    assert_eq!(after, before);
    // New options are no edit: they are applied.
    let other = HostOptions {
        max_diagnostics: 1,
        ..REPORT
    };
    let text = host.text().clone();
    assert_eq!(
        settled_update(&mut host, text, Some(&[]), other),
        UpdateKind::Full
    );
}

#[test]
fn publication_is_capped_errors_first_with_a_summary() {
    let host = DocumentHost::new(report(40, 2), None, REPORT);
    let all = host.diagnostics().len();
    assert!(all > 3, "{all}");
    let published = published_under(&host, 3);
    assert_eq!(published.diagnostics.len(), 3);
    assert!(
        published
            .diagnostics
            .windows(2)
            .all(|w| Diagnostic::order(&w[0], &w[1]).is_le())
    );
    let errors = host
        .diagnostics()
        .iter()
        .filter(|d| d.severity == crate::diagnostic::Severity::Error)
        .count();
    assert!(errors >= 3, "{errors}");
    assert!(
        published
            .diagnostics
            .iter()
            .all(|d| d.severity == crate::diagnostic::Severity::Error)
    );
    let left_out = LeftOut {
        count: all - 3,
        total: all,
    };
    assert_eq!(published.left_out, Some(left_out));
    assert!(published_under(&host, all).left_out.is_none());
    assert!(host.published().left_out.is_none(), "under REPORT's cap");
}

/// A cap past the errors fills up with lesser severities, and no more.
#[test]
fn a_cap_past_the_errors_takes_lesser_severities_after_them() {
    let text = r#"{"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07,5Z", "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": -1}, "shortlist": [], "entries": [], "x": 1, "y": 2, "z": 3}"#;
    let host = DocumentHost::new(text.to_string(), None, REPORT);
    let error = |d: &Diagnostic| d.severity == crate::diagnostic::Severity::Error;
    let errors = host.diagnostics().iter().filter(|d| error(d)).count();
    let all = host.diagnostics().len();
    assert!(errors > 0 && all > errors + 1, "{:?}", host.diagnostics());
    let published = published_under(&host, errors + 1);
    assert_eq!(published.diagnostics.len(), errors + 1);
    let published_errors = published.diagnostics.iter().filter(|d| error(d));
    assert_eq!(published_errors.count(), errors);
}

/// What a view shows of `text` under `max` and `severities`, with
/// `workspace` besides: through a host (per entry when it can be) and
/// through a whole analysis as `check` makes it, which must agree.
fn assert_publishes_like_check(
    host: &DocumentHost<String>,
    max: usize,
    severities: &Severities,
    workspace: &[Diagnostic],
) {
    let o = publication::Options { max, severities };
    let ours = publication::publish(host.snapshot().own(max, severities), workspace, &o);
    let keep = Keep::at_most(publication::kept(max));
    let whole = crate::analysis::analyze_with(
        Arc::new(host.text().clone()),
        crate::analysis::AnalysisOptions::keeping(keep),
    );
    let own = publication::Own::of_whole(whole.diagnostics, &whole.omitted);
    let check = publication::publish(own, workspace, &o);
    assert_eq!(ours.diagnostics, check.diagnostics, "max {max}");
    assert_eq!(ours.left_out, check.left_out, "max {max}");
}

#[test]
fn every_view_publishes_the_same_under_levels_caps_and_workspace_checks() {
    // Errors (the generator's) and unknown fields (information), interleaved.
    let mut text = report(60, 2);
    let ops: Vec<usize> = text.match_indices("\"op\": ").map(|(i, _)| i).collect();
    for &at in ops.iter().step_by(3).rev() {
        text.insert_str(at, "\"zz\": 1, ");
    }
    let mut host = DocumentHost::new(text, None, REPORT);
    assert!(host.status().entries.is_some(), "per entry");
    let unknown = |d: &Cow<'_, Diagnostic>| d.code == Code::UnknownField;
    assert!(host.diagnostics().iter().filter(|d| unknown(d)).count() > 10);
    let with = |level: Level| {
        let mut severities = Severities::default();
        severities.set(Code::UnknownField, level).unwrap();
        severities
    };
    let error = Level::Report(crate::diagnostic::Severity::Error);
    let workspace: Vec<Diagnostic> = (0..30)
        .map(|i| Diagnostic::new(Code::PathMissing, TextRange::empty(i * 97), "missing"))
        .collect();
    let all = host.diagnostics().len() + workspace.len();
    let levels = [Severities::default(), with(Level::Off), with(error)];
    for max in [0, 1, 5, 40, all, all + 10] {
        for severities in &levels {
            for workspace in [&workspace[..], &[]] {
                assert_publishes_like_check(&host, max, severities, workspace);
            }
        }
    }
    // The same after an edit that moves the entries after it.
    assert_eq!(
        insert_a_copy_of_the_first_entry(&mut host),
        UpdateKind::Incremental
    );
    for max in [1, 5, 40] {
        for severities in &levels {
            assert_publishes_like_check(&host, max, severities, &workspace);
        }
    }
}

#[test]
fn past_the_cap_problems_are_counted_and_fixes_still_found() {
    // 3000 scalar entries (errors), then an entry with a wrong tier whose
    // error ranks past the 1000 kept: left out, counted, still fixable.
    let zeros = vec!["0"; 3000].join(",");
    let (text, offset) = cursor(&format!(
        "{{\"schema_version\":\"1\",\"entries\":[{zeros},{WRONG_TIER}]}}"
    ));
    let options = HostOptions {
        max_diagnostics: 10,
        ..REPORT
    };
    let mut host = DocumentHost::new(text.clone(), None, options);
    let full = crate::analyze(&text);
    let omitted = host.analysed.omitted();
    assert_eq!(host.diagnostics().len(), options.kept_diagnostics());
    assert_eq!(
        host.diagnostics().len() + omitted.count as usize,
        full.problems()
    );
    assert!(omitted.fixable > 0);
    assert!(host.status().entries.is_some(), "still per entry");
    assert!(
        !host
            .diagnostics()
            .iter()
            .any(|d| d.code == Code::TierMismatch)
    );
    let published = host.published();
    assert_eq!(published.diagnostics.len(), 10);
    let total = full.problems();
    let left_out = LeftOut {
        count: total - 10,
        total,
    };
    assert_eq!(published.left_out, Some(left_out));
    // The fix at the cursor is worked out again from its entry.
    let titles: Vec<String> = host
        .quick_fixes(TextRange::empty(offset))
        .iter()
        .map(|q| format!("{} ({})", q.fix().title, q.diagnostic.code))
        .collect();
    assert_eq!(
        titles,
        ["Set safety_tier to \"confirm\" (derived) (tier-mismatch)"]
    );
    assert!(host.can_fix_all());
    let fixed = crate::fix::apply(host.text(), &[host.fix_all().unwrap()]).unwrap();
    assert!(
        !crate::analyze(&fixed)
            .diagnostics
            .iter()
            .any(|d| d.code == Code::TierMismatch)
    );
    // An edit in that entry is per entry, and publishes what a full analysis would.
    let at = text.find("\"docs/a.md\"").unwrap() + 1;
    assert_eq!(
        edit(&mut host, TextRange::new(at, at + 4), "docs"),
        UpdateKind::Incremental
    );
    let full = crate::analysis::analyze_with(
        Arc::new(host.text().clone()),
        crate::analysis::AnalysisOptions::keeping(Keep::at_most(options.kept_diagnostics())),
    );
    let published: Vec<Diagnostic> = published_under(&host, 10)
        .diagnostics
        .into_iter()
        .map(Cow::into_owned)
        .collect();
    let mut expected = full.diagnostics.clone();
    expected.sort_by(crate::diagnostic::rank);
    expected.truncate(10);
    expected.sort_by(Diagnostic::order);
    assert_eq!(published, expected);
    assert_eq!(
        host.diagnostics().len() + host.analysed.omitted().count as usize,
        full.problems()
    );
}

#[test]
fn after_an_entry_is_inserted_the_capped_publication_names_the_moved_entries() {
    let mut host = DocumentHost::new(report(40, 2), None, REPORT);
    assert_eq!(
        insert_a_copy_of_the_first_entry(&mut host),
        UpdateKind::Incremental
    );
    assert_like_a_full_analysis(&host);
    let fresh = DocumentHost::new(host.text().clone(), None, REPORT);
    for max in [1, 3, 10, 1000] {
        let (ours, theirs) = (published_under(&host, max), published_under(&fresh, max));
        assert_eq!(ours.diagnostics, theirs.diagnostics, "max {max}");
        assert_eq!(ours.left_out, theirs.left_out, "max {max}");
    }
    let at = |h: &DocumentHost<String>| {
        h.quick_fixes(TextRange::new(0, h.text().len()))
            .into_iter()
            .map(|q| (q.fix().clone(), q.diagnostic.into_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(at(&host), at(&fresh));
    assert!(!at(&host).is_empty());
}

#[test]
fn each_quick_fix_of_the_golden_invalid_report_applied_as_a_whole_text() {
    let text = include_str!("../../../../examples/golden/invalid.report.json").to_string();
    let host = DocumentHost::new(text, None, REPORT);
    let all = host.text().len();
    let fixes: Vec<Fix> = host
        .quick_fixes(TextRange::new(0, all))
        .into_iter()
        .map(|q| q.fix().clone())
        .collect();
    for fix in fixes {
        let fixed = crate::fix::apply(host.text(), &fix.edits).unwrap();
        let mut host = DocumentHost::new(host.text().clone(), None, REPORT);
        settled_update(&mut host, fixed, None, REPORT);
        assert_like_a_full_analysis(&host);
    }
}

#[test]
fn quick_fixes_are_those_of_the_diagnostics_at_the_range() {
    let (text, offset) = cursor(&report_with_entry(WRONG_TIER));
    let host = DocumentHost::new(text, None, REPORT);
    let titles: Vec<String> = host
        .quick_fixes(TextRange::empty(offset))
        .iter()
        .map(|q| format!("{} ({})", q.fix().title, q.diagnostic.code))
        .collect();
    expect![[r#"
            [
                "Set safety_tier to \"confirm\" (derived) (tier-mismatch)",
            ]
        "#]]
    .assert_debug_eq(&titles);
    assert!(host.quick_fixes(TextRange::empty(0)).is_empty());
    assert!(host.can_fix_all());
    let fixed = crate::fix::apply(host.text(), &[host.fix_all().unwrap()]).unwrap();
    assert!(crate::analyze(&fixed).is_valid());
}

#[test]
fn a_document_that_is_not_a_report_gets_nothing() {
    let options = HostOptions {
        name_matches: false,
        ..REPORT
    };
    let host = DocumentHost::new(
        r#"{"name": "x", "safety_tier": 1}"#.to_string(),
        None,
        options,
    );
    assert!(!host.is_report());
    assert!(host.diagnostics().is_empty());
    assert_eq!(host.hover(4), None);
    assert!(host.quick_fixes(TextRange::new(0, 30)).is_empty());
    assert_eq!(host.fix_all(), None);
    // Its content alone makes a report of it.
    let (text, _) = cursor(&report_with_entry(WRONG_TIER));
    let host = DocumentHost::new(text, None, options);
    assert!(host.is_report());
    assert!(!host.diagnostics().is_empty());
}

#[test]
fn a_report_known_by_its_content_stays_one_while_broken() {
    let options = HostOptions {
        name_matches: false,
        ..REPORT
    };
    let text = report(4, 0);
    let mut host = DocumentHost::new(text.clone(), None, options);
    assert!(host.is_report());
    // A closing brace deleted: a syntax error, still checked and published.
    let last = text.rfind('}').unwrap();
    let mut broken = text.clone();
    broken.remove(last);
    settled_update(&mut host, broken, None, options);
    assert!(host.is_report());
    let codes: Vec<Code> = host.diagnostics().iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::SyntaxError), "{codes:?}");
    // Replaced by intact JSON that is no report: no longer checked.
    settled_update(&mut host, "{\"name\": \"x\"}".to_string(), None, options);
    assert!(!host.is_report());
    assert!(host.diagnostics().is_empty());
    // A document never taken for a report is not one because it is broken.
    let host = DocumentHost::new("{\"name\": ".to_string(), None, options);
    assert!(!host.is_report());
}

#[test]
fn a_whole_new_text_that_changes_one_value_is_rechecked_per_entry() {
    let mut host = DocumentHost::new(report(20, 0), None, REPORT);
    let text = host.text().clone();
    let changed = text.replacen(
        "\"safety_tier\": \"confirm\"",
        "\"safety_tier\": \"auto\"",
        1,
    );
    assert_eq!(
        settled_update(&mut host, changed, None, REPORT),
        UpdateKind::Incremental
    );
    assert_like_a_full_analysis(&host);
    assert_eq!(
        settled_update(&mut host, text.clone(), None, REPORT),
        UpdateKind::Incremental
    );
    assert!(host.diagnostics().is_empty());
    // New options are a new analysis, even of the same text.
    let other = HostOptions {
        max_document_bytes: 1 << 21,
        ..REPORT
    };
    assert_eq!(
        settled_update(&mut host, text, None, other),
        UpdateKind::Full
    );
}

#[test]
fn a_change_over_the_whole_text_or_a_batch_across_it_is_narrowed_to_what_changed() {
    let mut host = DocumentHost::new(report(20, 0), None, REPORT);
    let text = host.text().clone();
    let whole = TextRange::new(0, text.len());
    // The same text, sent as a replacement of all of it.
    assert_eq!(edit(&mut host, whole, &text), UpdateKind::Incremental);
    assert_eq!(host.status().full_analyses, 1);
    // One value changed, sent the same way: that entry is checked again.
    let changed = text.replacen(
        "\"safety_tier\": \"confirm\"",
        "\"safety_tier\": \"auto\"",
        1,
    );
    assert_eq!(edit(&mut host, whole, &changed), UpdateKind::Incremental);
    assert_eq!(host.status().full_analyses, 1);
    assert!(!host.diagnostics().is_empty());
    assert_like_a_full_analysis(&host);
    // A batch whose first change is at the start and last at the end, each
    // rewriting a byte as it was, with the real change between them.
    let at = changed.find("\"safety_tier\": \"auto\"").unwrap() + "\"safety_tier\": \"".len();
    let same = |offset: usize| ByteEdit {
        range: TextRange::new(offset, offset + 1),
        new_len: 1,
    };
    let back = ByteEdit {
        range: TextRange::new(at, at + "auto".len()),
        new_len: "confirm".len(),
    };
    let batch = [same(0), back, same(text.len() - 1)];
    assert_eq!(
        settled_update(&mut host, text.clone(), Some(&batch), REPORT),
        UpdateKind::Incremental
    );
    assert!(host.diagnostics().is_empty());
    assert_eq!(host.status().full_analyses, 1);
}

/// Deletes the entry's closing brace at `brace`, then types `typed`
/// there: both per entry, and as a full analysis finds them.
fn delete_the_brace_and_type_in_its_place(
    host: &mut DocumentHost<String>,
    brace: usize,
    typed: &str,
) {
    let kind = edit(host, TextRange::new(brace, brace + 1), "");
    assert_eq!(kind, UpdateKind::Incremental);
    let syntax_error = |d: &Cow<'_, Diagnostic>| d.code == Code::SyntaxError;
    assert!(host.diagnostics().iter().any(syntax_error));
    assert_like_a_full_analysis(host);
    let kind = edit(host, TextRange::empty(brace), typed);
    assert_eq!(kind, UpdateKind::Incremental);
    assert_like_a_full_analysis(host);
}

#[test]
fn an_entry_whose_brace_is_missing_before_the_next_is_rechecked_alone() {
    let mut host = DocumentHost::new(report(12, 4), None, REPORT);
    let original = host.text().clone();
    // A closing brace in the middle deleted: the entry ends where its
    // last value does, and the next one starts the next item.
    let brace = original.match_indices("}\n    },\n").nth(4).unwrap().0 + 6;
    assert_eq!(&original[brace..brace + 2], "},");
    // Typed in while broken, before its comma, and the comma deleted.
    delete_the_brace_and_type_in_its_place(&mut host, brace, "\"日本\": 1");
    let comma = brace + "\"日本\": 1".len();
    assert_eq!(&host.text()[comma..comma + 1], ",");
    let kind = edit(&mut host, TextRange::new(comma, comma + 1), "");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_like_a_full_analysis(&host);
    let kind = edit(&mut host, TextRange::empty(comma), ",");
    assert_eq!(kind, UpdateKind::Incremental);
    // Repaired: a whole entry again.
    let kind = edit(&mut host, TextRange::new(brace, comma), "}");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_eq!(host.text(), &original);
    assert_like_a_full_analysis(&host);
    // The entry after an unclosed one is not edited alone.
    edit(&mut host, TextRange::new(brace, brace + 1), "");
    let next_path = brace + host.text()[brace..].find("\"path\": \"").unwrap() + 9;
    let kind = edit(&mut host, TextRange::empty(next_path), "x");
    assert_eq!(kind, UpdateKind::Full);
    assert_like_a_full_analysis(&host);
    // A text opened broken that way is kept per entry, and repaired alone.
    let mut host = DocumentHost::new(host.text().clone(), None, REPORT);
    assert!(host.status().entries.is_some(), "kept per entry");
    let kind = edit(&mut host, TextRange::new(next_path, next_path + 1), "");
    assert_eq!(kind, UpdateKind::Full, "the next entry edited");
    let kind = edit(&mut host, TextRange::empty(brace), "}");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_eq!(host.text(), &original);
    assert_like_a_full_analysis(&host);
}

#[test]
fn the_last_entry_whose_brace_is_missing_before_the_bracket_is_rechecked_alone() {
    let mut host = DocumentHost::new(report(12, 4), None, REPORT);
    let original = host.text().clone();
    let brace = original.rfind("}\n  ],").unwrap();
    // Typed in while broken, right before the bracket.
    delete_the_brace_and_type_in_its_place(&mut host, brace, ", \"😀\": 1");
    let kind = edit(
        &mut host,
        TextRange::new(brace, brace + ", \"😀\": 1".len()),
        "",
    );
    assert_eq!(kind, UpdateKind::Incremental);
    // Opened broken: kept per entry, and repaired alone.
    let mut host = DocumentHost::new(host.text().clone(), None, REPORT);
    assert!(host.status().entries.is_some(), "kept per entry");
    let kind = edit(&mut host, TextRange::empty(brace), "}");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_eq!(host.text(), &original);
    assert_like_a_full_analysis(&host);
    // With a quote after the bracket on its line, a full analysis.
    let mut text = original.clone();
    text.replace_range(brace + 2..brace + 4, "], \"x\": 1,");
    let mut host = DocumentHost::new(text, None, REPORT);
    let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
    assert_eq!(kind, UpdateKind::Full);
    assert_like_a_full_analysis(&host);
}

#[test]
fn past_the_cap_a_break_judged_again_is_refused_and_its_repair_takes_the_state_back() {
    let options = HostOptions {
        max_diagnostics: 10,
        max_document_bytes: 1 << 24,
        ..REPORT
    };
    let text = report(1500, 1);
    let mut host = DocumentHost::new(text.clone(), None, options);
    assert!(
        host.analysed.omitted().count > 0,
        "{:?}",
        host.analysed.omitted()
    );
    assert!(host.status().entries.is_some());
    assert!(
        text.contains("\"promotion_candidates\": [\n"),
        "candidates to judge"
    );
    let brace = text.match_indices("}\n    },\n").nth(700).unwrap().0 + 6;
    let edit = |host: &mut DocumentHost<String>, range, new_text| {
        edit_with(host, range, new_text, options)
    };
    // Broken, the entry's path leaves the judgements: with diagnostics
    // left out that is a full analysis, the state before it kept.
    let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
    assert_eq!(kind, UpdateKind::Full);
    let kind = edit(&mut host, TextRange::empty(brace), "}");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_eq!(host.text(), &text);
    let fresh = DocumentHost::new(text, None, options);
    assert_eq!(host.diagnostics(), fresh.diagnostics());
    assert_eq!(host.analysed.omitted(), fresh.analysed.omitted());
}

#[test]
fn an_entry_broken_and_repaired_takes_back_the_analysis_before_the_break() {
    let mut host = DocumentHost::new(report(12, 4), None, REPORT);
    let original = host.text().clone();
    // The last entry's `signals` bracket deleted: its `]` then closes
    // the entries array, and the rest of the entry lands in the report
    // itself, a full analysis.
    let brace = original.rfind("\"signals\": [").unwrap() + 11;
    assert_eq!(&original[brace..brace + 1], "[");
    let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
    assert_eq!(kind, UpdateKind::Full);
    assert_like_a_full_analysis(&host);
    // Still broken after another edit elsewhere in it: a full analysis,
    // the analysis before the break kept.
    let path = host.text().rfind("\"path\": \"").unwrap() + 9;
    let kind = edit(&mut host, TextRange::empty(path), "日本/");
    assert_eq!(kind, UpdateKind::Full);
    assert_like_a_full_analysis(&host);
    // Repaired: an edit within that entry of the text before the break.
    let kind = edit(&mut host, TextRange::empty(brace + "日本/".len()), "[");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_like_a_full_analysis(&host);
    // The broken text's analysis is kept to be freed when the caller is idle.
    assert!(host.holds_retired());
    host.drop_retired();
    assert!(!host.holds_retired());
    // Broken and put back exactly.
    let kind = edit(&mut host, TextRange::new(path, path + "日本/".len()), "");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_eq!(host.text(), &original);
    let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
    assert_eq!(kind, UpdateKind::Full);
    let kind = edit(&mut host, TextRange::empty(brace), "[");
    assert_eq!(kind, UpdateKind::Incremental);
    assert_like_a_full_analysis(&host);
    // Repaired by a whole text (a formatter's, an undo): compared with the one kept.
    edit(&mut host, TextRange::new(brace, brace + 1), "");
    let kind = settled_update(&mut host, original.clone(), None, REPORT);
    assert_eq!(kind, UpdateKind::Incremental);
    assert_like_a_full_analysis(&host);
    assert_eq!(host.status().full_analyses, 5, "{:?}", host.status());
}

#[test]
fn file_references_up_to_a_limit_are_the_entries_first_in_document_order() {
    let host = DocumentHost::new(report(6, 0), None, REPORT);
    let all = host.file_refs(TextRange::new(0, host.text().len()));
    let (every, more) = host.file_refs_up_to(usize::MAX);
    assert_eq!((every.clone(), more), (all.clone(), false));
    let entries = host.analysed.per_entry().unwrap().entries_span().unwrap();
    let in_entries: Vec<FileRef> = all
        .iter()
        .filter(|r| entries.start <= r.range.start && r.range.end <= entries.end)
        .cloned()
        .collect();
    assert!(in_entries.len() > 3 && in_entries.len() < all.len());
    for limit in [1, 3, in_entries.len()] {
        let (some, more) = host.file_refs_up_to(limit);
        assert_eq!(some, in_entries[..limit], "limit {limit}");
        assert!(more);
    }
    // Room past the entries: the shortlist's and candidates' first.
    let (some, more) = host.file_refs_up_to(in_entries.len() + 1);
    assert_eq!(some.len(), in_entries.len() + 1);
    assert_eq!(some[0], all[0]);
    assert!(more || all.len() == in_entries.len() + 1);
}

#[test]
fn the_outline_and_folding_are_made_once_a_text_and_again_after_an_edit() {
    let mut host = DocumentHost::new(report(5, 0), None, REPORT);
    let fresh = |host: &DocumentHost<String>| {
        let index = host.snapshot().index().unwrap();
        (
            symbols::symbols(&index),
            folding::folding_ranges(host.text(), 50),
        )
    };
    let first = (host.symbols(), host.folding_ranges(50));
    assert_eq!(first, fresh(&host));
    assert_eq!((host.symbols(), host.folding_ranges(50)), first);
    // Another limit is another answer.
    assert_eq!(
        host.folding_ranges(3),
        folding::folding_ranges(host.text(), 3)
    );
    // A path renamed and a line added before the entries: both change.
    let at = host.text().rfind("\"path\": \"").unwrap() + 9;
    edit(&mut host, TextRange::empty(at), "新/");
    let start = host.text().find("\"entries\"").unwrap();
    edit(&mut host, TextRange::empty(start), "\"x\": [\n1\n],\n  ");
    let after = (host.symbols(), host.folding_ranges(50));
    assert_ne!(after, first);
    assert_eq!(after, fresh(&host));
}

#[test]
fn a_burst_of_keystrokes_in_the_shortlist_is_one_edit() {
    let mut host = DocumentHost::new(report(20, 0), None, REPORT);
    let mut text = host.text().clone();
    // Typing inside the first shortlist path: a path no entry has, then 😀.
    let at = text.find("\"shortlist\": [").unwrap();
    let at = at + text[at..].find("\"docs/").unwrap() + 6;
    let mut edits = Vec::new();
    for (i, c) in "新😀".char_indices() {
        text.insert(at + i, c);
        edits.push(ByteEdit {
            range: TextRange::empty(at + i),
            new_len: c.len_utf8(),
        });
    }
    assert_eq!(
        settled_update(&mut host, text, Some(&edits), REPORT),
        UpdateKind::Incremental
    );
    assert_like_a_full_analysis(&host);
    assert_eq!(host.status().full_analyses, 1);
}

#[test]
fn a_burst_of_keystrokes_in_one_entry_is_one_edit() {
    let mut host = DocumentHost::new(report(20, 0), None, REPORT);
    let mut text = host.text().clone();
    let at = text.find("\"signals\": [\"").unwrap() + 13;
    let mut edits = Vec::new();
    for (i, c) in "typed".char_indices() {
        text.insert(at + i, c);
        edits.push(ByteEdit {
            range: TextRange::empty(at + i),
            new_len: 1,
        });
    }
    assert_eq!(
        settled_update(&mut host, text, Some(&edits), REPORT),
        UpdateKind::Incremental
    );
    assert_like_a_full_analysis(&host);
    // Edits in two entries cannot be one; each is still tracked.
    let mut text = host.text().clone();
    let first = text.find("\"signals\": [\"").unwrap() + 13;
    let second = text.rfind("\"signals\": [\"").unwrap() + 13;
    text.insert(second, 'y');
    text.insert(first, 'x');
    let edits = [
        ByteEdit {
            range: TextRange::empty(second),
            new_len: 1,
        },
        ByteEdit {
            range: TextRange::empty(first),
            new_len: 1,
        },
    ];
    assert_eq!(
        settled_update(&mut host, text, Some(&edits), REPORT),
        UpdateKind::Incremental
    );
    assert_like_a_full_analysis(&host);
}

#[test]
fn a_text_over_the_limit_gets_one_diagnostic() {
    let options = HostOptions {
        max_document_bytes: 100,
        ..REPORT
    };
    let host = DocumentHost::new(report(3, 0), None, options);
    let codes: Vec<Code> = host.diagnostics().iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::DocumentTooLarge]);
}

#[test]
fn out_of_sync_is_one_warning_at_the_start() {
    let warning = out_of_sync(&"line 9 is past the end");
    assert_eq!(warning.code, Code::DocumentOutOfSync);
    assert_eq!(warning.severity, crate::diagnostic::Severity::Warning);
    assert_eq!(warning.range, TextRange::empty(0));
    assert!(warning.message.contains("line 9 is past the end"));
}

#[test]
fn past_the_cap_entries_deleted_and_inserted_are_per_entry_and_publish_what_a_full_analysis_does() {
    // 1,600 entries with a violation, 1,000 diagnostics kept; with promotion candidates and without.
    let options = HostOptions {
        max_diagnostics: 10,
        max_document_bytes: usize::MAX,
        ..REPORT
    };
    let with_candidates = report(8000, 5);
    assert!(with_candidates.contains("\"promotion_candidates\": [\n    {"));
    let mut without = with_candidates.clone();
    let list = without.find("\"promotion_candidates\": [").unwrap() + 24;
    let end = list + without[list..].find("\n  ]").unwrap() + 4;
    without.replace_range(list..end, "[]");
    let entry_at = |text: &str, percent: usize| {
        let entries = crate::analyze(text).entries;
        entries[entries.len() * percent / 100].range
    };
    for text in [with_candidates, without] {
        let mut host = DocumentHost::new(text, None, options);
        assert!(host.analysed.omitted().count > 0);
        let mut per_entry = 0;
        for percent in [2, 40, 62, 75, 88, 97] {
            // An entry deleted, with the comma before it; then a copy of the
            // entry before it pasted in its place, so its path is named twice.
            let entry = entry_at(host.text(), percent);
            let comma = host.text()[..entry.start].rfind(',').unwrap();
            let deleted = TextRange::new(comma, entry.end);
            let kind = edit_with(&mut host, deleted, "", options);
            per_entry += usize::from(kind == UpdateKind::Incremental);
            assert_publishes_like_a_capped_full_analysis(&host, options);
            let before = entry_at(host.text(), percent.saturating_sub(1));
            let copy = format!(",\n    {}", &host.text()[before.as_range()]);
            let kind = edit_with(&mut host, TextRange::empty(before.end), &copy, options);
            per_entry += usize::from(kind == UpdateKind::Incremental);
            assert_publishes_like_a_capped_full_analysis(&host, options);
        }
        assert_eq!(per_entry, 12, "each deletion and insertion per entry");
    }
}

/// The publication and the counts of a capped host are those of a fresh
/// host of the same text (the kept diagnostics may differ in number: an
/// incremental one keeps between half and twice the cap).
fn assert_publishes_like_a_capped_full_analysis(host: &DocumentHost<String>, options: HostOptions) {
    let fresh = DocumentHost::new(host.text().clone(), None, options);
    // Kept and left out in all, and how many of them have a fix.
    let counted = |h: &DocumentHost<String>| {
        let fixable = h.diagnostics().iter().filter(|d| d.fix.is_some()).count();
        let omitted = h.analysed.omitted();
        (
            h.analysed.count() + omitted.count as usize,
            fixable + omitted.fixable as usize,
        )
    };
    assert_eq!(counted(host), counted(&fresh));
    let ours = host.published();
    let theirs = fresh.published();
    assert_eq!(ours.left_out, theirs.left_out);
    assert_eq!(ours.diagnostics, theirs.diagnostics);
}

#[test]
fn the_project_request_is_made_once_a_text() {
    let text = report(30, 0);
    let mut host = DocumentHost::new(text.clone(), None, REPORT);
    let first = host.project_request(None);
    assert_eq!(*first, project_checks::request(&crate::analyze(&text)));
    assert!(!first.paths.is_empty());
    // The same text again (new settings, a save): the same request.
    host.update(text.clone(), None, REPORT);
    assert!(Arc::ptr_eq(&first, &host.project_request(None)));
    host.update(text.clone(), Some(&[]), REPORT);
    assert!(Arc::ptr_eq(&first, &host.project_request(None)));
    // An entry that names another file: asked again.
    let at = text.find("\"path\": \"").unwrap() + "\"path\": \"".len();
    let mut edited = text.clone();
    edited.insert_str(at, "新しい😀/");
    let edit = ByteEdit {
        range: TextRange::empty(at),
        new_len: "新しい😀/".len(),
    };
    assert_eq!(
        host.update(edited.clone(), Some(&[edit]), REPORT),
        UpdateKind::Incremental
    );
    host.settle();
    let after = host.project_request(None);
    assert!(!Arc::ptr_eq(&first, &after));
    assert_eq!(*after, project_checks::request(&crate::analyze(&edited)));
    assert_ne!(*after, *first);
}

/// The editor says a report equal to HEAD's copy is unchanged from its own
/// analysis (`diff_side`), parsing neither side: what it says must be what
/// comparing the two texts says, errors left out by the cap included.
#[test]
fn an_unchanged_report_is_said_as_comparing_it_with_itself_says() {
    let invalid = include_str!("../../../../examples/golden/invalid.report.json");
    let valid = include_str!("../../../../examples/golden/valid.report.json");
    let few = HostOptions {
        max_diagnostics: 3,
        ..REPORT
    };
    // Per entry, per entry with errors left out, and whole (a syntax error
    // outside the entries).
    let broken = valid.replacen("\"schema_version\"", "\"schema_version\" ::", 1);
    // More problems than an analysis keeps (1,000): errors are counted too.
    let many = report(2000, 1);
    let few = HostOptions {
        max_document_bytes: many.len(),
        ..few
    };
    let cases = [
        (valid.to_string(), REPORT),
        (invalid.to_string(), REPORT),
        (invalid.to_string(), few),
        (many, few),
        (broken, REPORT),
    ];
    let mut errors_left_out = 0;
    for (text, options) in cases {
        let mut host = DocumentHost::new(text.clone(), None, options);
        host.settle();
        errors_left_out += host.analysed.omitted().errors;
        let full = analysis::analyze_with(
            std::sync::Arc::new(text.clone()),
            analysis::AnalysisOptions::keeping(Keep::at_most(0)),
        );
        let compared = report_diff::diff(&full, &full).expect("a report");
        let side = host.diff_side().expect("a report");
        assert_eq!(side, compared.new, "{}", &text[..60]);
        let unchanged = report_diff::unchanged(side);
        assert_eq!(unchanged, compared);
        let generation = |name| report_diff::render::Generation {
            name,
            analysis: &full,
        };
        assert_eq!(
            report_diff::render::human_unchanged(&unchanged, "HEAD:r.json", "r.json"),
            report_diff::render::human(
                &compared,
                generation("HEAD:r.json"),
                generation("r.json"),
                false
            ),
        );
    }
    assert!(errors_left_out > 0, "no case left errors out");
    // Where the comparison finds no report, neither does the host: not an
    // object, or no envelope (the name still makes it a report here).
    for text in ["[1]", r#"{"schema_version": "1.0"}"#, "{\"entries\": [] ::"] {
        let mut host = DocumentHost::new(text.to_string(), None, REPORT);
        host.settle();
        let full = analysis::analyze(text);
        assert!(report_diff::diff(&full, &full).is_err(), "{text}");
        assert_eq!(host.diff_side(), None, "{text}");
    }
}

#[test]
fn an_opening_makes_its_text_once_the_tree_is_freed_and_answers_as_a_new_host() {
    let cases = [
        // Kept per entry; kept whole (broken outside entries); not a report.
        (report(40, 3), REPORT, true),
        (
            "{\"entries\": [{\"path\": \"a\"}], \"x\": [1,".to_string(),
            REPORT,
            false,
        ),
        (
            "[1, 2]".to_string(),
            HostOptions {
                name_matches: false,
                ..REPORT
            },
            false,
        ),
    ];
    for (text, options, per_entry) in cases {
        let threads = Threads::Parallel {
            runner: &crate::fixture::OnThreads,
            threads: 3,
        };
        let mut made = 0;
        let opened = DocumentHost::open(Arc::new(text.clone()), options, threads, |whole| {
            made += 1;
            // The tree shares the text: only the analysis holds it now.
            if per_entry {
                assert_eq!(Arc::strong_count(whole), 1, "the tree is freed first");
            }
            whole.to_string()
        });
        assert_eq!(made, 1);
        assert_eq!(opened.text(), &text);
        assert_eq!(opened.holds_full_analysis(), !per_entry, "{text:.40}");
        let new = DocumentHost::new(text.clone(), None, options);
        assert_eq!(opened.diagnostics(), new.diagnostics(), "{text:.40}");
    }
}

#[test]
fn a_reopening_answers_as_an_update_to_the_whole_new_text() {
    let sniffed = HostOptions {
        name_matches: false,
        ..REPORT
    };
    let first = report(30, 4);
    let cases = [
        // Another generation; one broken outside its entries (it stays a
        // report, as it would after an update); one that is not a report;
        // new options.
        (report(45, 2), sniffed),
        (
            format!("{}, \"x\": [1,", first.trim_end().trim_end_matches('}')),
            sniffed,
        ),
        ("[1, 2]".to_string(), sniffed),
        (report(20, 0), REPORT),
    ];
    for (new, options) in cases {
        let mut updated = DocumentHost::new(first.clone(), None, sniffed);
        let mut reopened = DocumentHost::new(first.clone(), None, sniffed);
        updated.update(new.clone(), None, options);
        let threads = Threads::Parallel {
            runner: &crate::fixture::OnThreads,
            threads: 2,
        };
        let mut made = 0;
        // Released first, as the server does: it still knows what it was.
        reopened.release();
        assert_eq!(reopened.text(), "");
        reopened.reopen(Arc::new(new.clone()), options, threads, |whole| {
            made += 1;
            whole.to_string()
        });
        assert_eq!(made, 1);
        assert_eq!(reopened.text(), &new);
        assert_eq!(reopened.is_report(), updated.is_report(), "{new:.60}");
        assert_eq!(reopened.diagnostics(), updated.diagnostics(), "{new:.60}");
        assert_eq!(reopened.status().full_analyses, 2);
        // And it goes on as any host: an edit within an entry.
        if reopened.holds_full_analysis() || !reopened.is_report() {
            continue;
        }
        let at = new.find("\"path\"").unwrap();
        let range = TextRange::new(at + 1, at + 5);
        let kind = edit_with(&mut reopened, range, "pat", options);
        assert_eq!(kind, UpdateKind::Incremental, "{new:.60}");
        edit_with(&mut updated, range, "pat", options);
        assert_eq!(reopened.diagnostics(), updated.diagnostics());
    }
}

#[test]
fn a_reopening_forgets_the_state_parked_before_an_entry_broke() {
    // An edit within the last entry breaks it: the state before it is parked.
    let original = report(12, 4);
    let bracket = original.rfind("\"signals\": [").unwrap() + 11;
    let last_entry = original[..bracket].rfind("    {\n      \"path\"").unwrap();
    let mut reopened = DocumentHost::new(original.clone(), None, REPORT);
    let mut updated = DocumentHost::new(original.clone(), None, REPORT);
    for host in [&mut reopened, &mut updated] {
        let kind = edit(host, TextRange::new(bracket, bracket + 1), "");
        assert_eq!(kind, UpdateKind::Full);
    }
    let broken = reopened.text().clone();
    // Another text as long as the broken one, broken at the same place,
    // its other entries' values new: the parked edits would fit it.
    let mut other =
        broken[..last_entry].replace("\"is_destructive\": false", "\"is_destructive\": 12345");
    other.push_str(&broken[last_entry..]);
    assert_eq!(other.len(), broken.len());
    assert_ne!(other, broken);
    reopened.release();
    reopened.reopen(Arc::new(other.clone()), REPORT, Threads::OneThread, |w| {
        w.to_string()
    });
    settled_update(&mut updated, other.clone(), None, REPORT);
    assert_eq!(
        reopened.diagnostics(),
        updated.diagnostics(),
        "after the reload"
    );
    // The bracket typed back into the new text: its own analysis, not the
    // parked one of the old text.
    edit(&mut reopened, TextRange::empty(bracket), "[");
    edit(&mut updated, TextRange::empty(bracket), "[");
    let fresh = DocumentHost::new(reopened.text().clone(), None, REPORT);
    assert!(!fresh.diagnostics().is_empty());
    assert_eq!(updated.diagnostics(), fresh.diagnostics(), "the update's");
    assert_eq!(reopened.diagnostics(), fresh.diagnostics(), "the reopen's");
}
