//! The editor features through the document host, on fixtures with `$0`
//! cursor markers: what a person sees, in text.

use expect_test::{Expect, expect};

use crate::fix::apply;
use crate::fixture::cursor;
use crate::host::{DocumentHost, HostOptions};
use crate::text::TextRange;

const OPTIONS: HostOptions = HostOptions {
    max_diagnostics: 1000,
    name_matches: true,
    max_document_bytes: 1 << 20,
};

/// Two entries, a shortlist path without an entry, a promotion candidate.
const REPORT: &str = r#"{
  "schema_version": "1",
  "tool_version": "t",
  "generated_at": "2026-11-29T18:42:07Z",
  "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 3},
  "shortlist": ["docs/a.md", "docs/b.md", "docs/c.md"],
  "entries": [
    {"path": "docs/a.md", "category": {"class": "bloat", "subtype": "distill"}, "signals": [],
      "op": "distill", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "auto",
      "token_estimate": {"raw_tokens": 300, "injection_frequency": "per-session", "weighted_tokens": 300}},
    {"path": "docs/b.md", "category": {"class": "stale", "subtype": "provisional"}, "signals": [],
      "op": "delete", "op_type": "deterministic", "is_destructive": true, "is_reversible": false, "safety_tier": "confirm",
      "token_estimate": {"raw_tokens": 100},
      "lifecycle": {"rule_ref": "r", "lifetime": "delete-once-served", "served_when": "the plan shipped"},
      "exact_edit": {"kind": "delete", "anchor": {"start_line": 1, "end_line": 9},
        "lifecycle": {"rule_ref": "r", "lifetime": "delete-once-served", "served_when": "the plan shipped"},
        "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}
  ],
  "promotion_candidates": [{"path": "docs/b.md", "name": "plans", "pitch": "Mark shipped plans."}]
}
"#;

fn host(text: &str) -> DocumentHost<String> {
    DocumentHost::new(text.to_string(), None, OPTIONS)
}

/// Each range as `line:text` of what it covers.
fn show(text: &str, ranges: &[TextRange]) -> String {
    ranges
        .iter()
        .map(|r| {
            let line = text[..r.start].matches('\n').count() + 1;
            format!("{line}:{}\n", &text[r.as_range()])
        })
        .collect()
}

fn at(marked: &str) -> (String, usize) {
    cursor(marked)
}

#[test]
fn definition_leads_from_an_entry_to_its_shortlist_item_and_from_a_candidate_to_its_entry() {
    let (text, offset) =
        at(&REPORT.replacen("\"path\": \"docs/b.md\"", "\"path\": \"docs/$0b.md\"", 1));
    let host = host(&text);
    expect![[r#"
        6:"docs/b.md"
    "#]]
    .assert_eq(&show(&text, &host.definition(offset)));
    let (text, offset) = at(&REPORT.replacen(
        "[{\"path\": \"docs/b.md\"",
        "[{\"path\": \"do$0cs/b.md\"",
        1,
    ));
    let host = self::host(&text);
    expect![[r#"
        11:"docs/b.md"
    "#]]
    .assert_eq(&show(&text, &host.definition(offset)));
}

#[test]
fn references_of_a_shortlist_path_are_its_entries_and_candidates() {
    let (text, offset) = at(&REPORT.replacen(
        "\"docs/b.md\", \"docs/c.md\"",
        "\"docs/$0b.md\", \"docs/c.md\"",
        1,
    ));
    let host = host(&text);
    expect![[r#"
        6:"docs/b.md"
        11:"docs/b.md"
        19:"docs/b.md"
    "#]]
    .assert_eq(&show(&text, &host.references(offset, true)));
    assert_eq!(host.references(offset, false).len(), 2);
}

#[test]
fn rename_changes_a_path_everywhere_at_once() {
    let (text, offset) =
        at(&REPORT.replacen("\"path\": \"docs/b.md\"", "\"path\": \"docs/$0b.md\"", 1));
    let host = host(&text);
    let (range, path) = host.prepare_rename(offset).unwrap();
    assert_eq!(
        (&text[range.as_range()], path.as_str()),
        ("docs/b.md", "docs/b.md")
    );
    let edits = host.rename(offset, "docs/β.md").unwrap();
    let renamed = apply(&text, &edits).unwrap();
    assert_eq!(renamed.matches("docs/β.md").count(), 3);
    assert!(!renamed.contains("docs/b.md"));
    assert!(
        crate::analyze(&renamed).diagnostics.is_empty()
            == crate::analyze(&text).diagnostics.is_empty()
    );
    let refused = host.rename(offset, "../x.md").unwrap_err();
    assert!(refused.contains("`..`"), "{refused}");
    assert!(host.prepare_rename(1).is_none());
}

#[test]
fn the_outline_groups_entries_by_class_and_subtype() {
    let host = host(REPORT);
    let mut out = String::new();
    fn walk(out: &mut String, symbols: &[crate::ide::symbols::Symbol], depth: usize) {
        for s in symbols {
            let detail = s
                .detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            out.push_str(&format!("{}{}{detail}\n", "  ".repeat(depth), s.name));
            walk(out, &s.children, depth + 1);
        }
    }
    walk(&mut out, &host.symbols(), 0);
    expect![[r#"
        schema_version
        tool_version
        generated_at
        scan
        shortlist (3 items)
        entries (2 entries)
          bloat (1 entries)
            distill (1 entries)
              docs/a.md — bloat/distill · distill · auto
          stale (1 entries)
            provisional (1 entries)
              docs/b.md — stale/provisional · delete · confirm
        promotion_candidates (1 items)
          docs/b.md (promotion candidate)
    "#]]
    .assert_eq(&out);
}

#[test]
fn inlay_hints_show_a_differing_derived_tier_and_each_share_of_the_tokens() {
    let host = host(REPORT);
    let hints: String = host
        .inlay_hints(TextRange::new(0, REPORT.len()))
        .iter()
        .map(|h| format!("{:?} {}\n", &REPORT[h.offset - 6..h.offset], h.label))
        .collect();
    expect![[r#"
        "\"auto\"" → confirm
        "\": 300" 75.0 %
        "\": 100" 25.0 %
    "#]]
    .assert_eq(&hints);
}

#[test]
fn inlay_hints_outside_the_range_asked_for_are_left_out() {
    let host = host(REPORT);
    let all = host.inlay_hints(TextRange::new(0, REPORT.len()));
    assert_eq!(all.len(), 3);
    // From the first entry's start to just before its tier's hint: the entry
    // overlaps the range, its hints stand after it.
    let first_hint = all[0].offset;
    let entry_start = REPORT.find("\"entries\"").unwrap();
    let before = host.inlay_hints(TextRange::new(entry_start, first_hint - 1));
    assert!(before.is_empty(), "{before:?}");
    // A range ending at a hint's offset holds it; one starting past it does not.
    let at = host.inlay_hints(TextRange::new(first_hint, first_hint));
    assert_eq!(at, all[..1]);
    let after = host.inlay_hints(TextRange::new(first_hint + 1, all[1].offset));
    assert_eq!(after, all[1..2]);
}

#[test]
fn the_roll_up_counts_bottom_up_and_shows_on_entries() {
    let host = host(REPORT);
    let lenses = host.code_lenses();
    assert_eq!(lenses.len(), 1);
    assert_eq!(&REPORT[lenses[0].0.as_range()], "\"entries\"");
    expect![[r#"400 raw tokens (stale 100, bloat 300) · weighted: 300 per session, 0 on demand"#]]
        .assert_eq(&lenses[0].1);
    let on_key = REPORT.find("\"entries\"").unwrap() + 2;
    let hover = host.hover(on_key).unwrap().markdown;
    assert!(hover.contains("| stale/provisional | 100 |"), "{hover}");
    assert!(hover.contains("| **total** | **400** |"), "{hover}");
}

#[test]
fn folding_covers_multi_line_objects_and_arrays() {
    let host = host(REPORT);
    let folds = host.folding_ranges(100);
    let lines: Vec<(usize, usize)> = folds
        .iter()
        .map(|r| {
            (
                REPORT[..r.start].matches('\n').count() + 1,
                REPORT[..r.end].matches('\n').count() + 1,
            )
        })
        .collect();
    assert_eq!(lines, [(1, 20), (7, 18), (8, 10), (11, 17), (15, 17)]);
    assert_eq!(host.folding_ranges(2).len(), 2);
}

#[test]
fn selection_widens_from_a_value_to_the_document() {
    let (text, offset) =
        at(&REPORT.replacen("\"distill\", \"op_type\"", "\"dis$0till\", \"op_type\"", 1));
    let host = host(&text);
    let widths: Vec<String> = host.selection_ranges(&[offset])[0]
        .iter()
        .map(|r| {
            text[r.as_range()]
                .chars()
                .take(30)
                .collect::<String>()
                .replace('\n', "⏎")
        })
        .collect();
    expect![[r#"
        [
            "\"distill\"",
            "\"op\": \"distill\"",
            "{\"path\": \"docs/a.md\", \"categor",
            "[⏎    {\"path\": \"docs/a.md\", \"c",
            "\"entries\": [⏎    {\"path\": \"doc",
            "{⏎  \"schema_version\": \"1\",⏎  \"",
        ]
    "#]]
    .assert_debug_eq(&widths);
}

fn check_completion(marked: &str, expected: Expect) {
    let (text, offset) = at(marked);
    let host = host(&text);
    let items: String = host
        .completions(offset)
        .iter()
        .map(|item| {
            let replaced = &text[item.edit.range.as_range()];
            format!(
                "{}{} [{replaced}] -> {}\n",
                item.label,
                if item.preselect { " *" } else { "" },
                item.edit.new_text.lines().next().unwrap_or_default()
            )
        })
        .collect();
    expected.assert_eq(&items);
}

#[test]
fn completion_of_a_half_typed_op_type() {
    check_completion(
        &REPORT.replacen(
            "\"op_type\": \"generative\", ",
            "\"op_type\": \"ge$0\n      ",
            1,
        ),
        expect![[r#"
            deterministic ["ge] -> "deterministic"
            generative ["ge] -> "generative"
        "#]],
    );
    check_completion(
        &REPORT.replacen("\"op_type\": \"generative\",", "\"op_type\": $0,", 1),
        expect![[r#"
            deterministic [] -> "deterministic"
            generative [] -> "generative"
        "#]],
    );
}

#[test]
fn completion_right_after_a_colon_reaches_over_the_blank_to_the_cursor() {
    check_completion(
        &REPORT.replacen("\"op_type\": \"generative\",", "\"op_type\":$0 \"ge\",", 1),
        expect![[r#"
            deterministic [ "ge"] ->  "deterministic"
            generative [ "ge"] ->  "generative"
        "#]],
    );
}

/// At every offset of a report, each completion's edit holds the offset and
/// stays on one line, as the protocol asks.
#[test]
fn every_completion_edit_holds_its_offset_on_one_line() {
    let text = include_str!("../../../../examples/golden/valid.report.json");
    let host = host(text);
    let mut asked = 0;
    for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
        for item in host.completions(offset) {
            let range = item.edit.range;
            asked += 1;
            assert!(
                range.start <= offset && offset <= range.end,
                "{:?} at {offset}: {range:?}",
                item.label
            );
            assert!(
                !text[range.as_range()].contains('\n'),
                "{:?} at {offset}",
                item.label
            );
        }
    }
    assert!(asked > 1000, "{asked} items");
}

#[test]
fn completion_of_a_subtype_follows_the_class() {
    check_completion(
        &REPORT.replacen("\"subtype\": \"distill\"", "\"subtype\": \"$0\"", 1),
        expect![[r#"
            distill [""] -> "distill"
            split [""] -> "split"
            freeze [""] -> "freeze"
        "#]],
    );
}

#[test]
fn completion_of_safety_tier_offers_only_the_derived_tier() {
    check_completion(
        &REPORT.replacen(
            "\"safety_tier\": \"auto\",",
            "\"safety_tier\": \"$0\n     ",
            1,
        ),
        expect![[r#"
            confirm * ["] -> "confirm"
        "#]],
    );
}

#[test]
fn completion_of_paths_comes_from_the_shortlist() {
    check_completion(
        &REPORT.replacen("\"path\": \"docs/a.md\"", "\"path\": \"docs/$0", 1),
        expect![[r#"
            docs/a.md ["docs/] -> "docs/a.md"
            docs/b.md ["docs/] -> "docs/b.md"
            docs/c.md ["docs/] -> "docs/c.md"
        "#]],
    );
}

#[test]
fn completion_of_keys_offers_the_missing_ones_with_snippets() {
    check_completion(
        &REPORT.replacen("{\"raw_tokens\": 100}", "{\"raw_tokens\": 100, $0}", 1),
        expect![[r#"
            injection_frequency [] -> "injection_frequency": "$1"
            weighted_tokens [] -> "weighted_tokens": ${1:null}
        "#]],
    );
}

#[test]
fn completion_between_entries_offers_a_whole_entry() {
    check_completion(
        &REPORT.replacen("\"entries\": [", "\"entries\": [$0", 1),
        expect![[r#"
            new entry [] -> {
        "#]],
    );
}

/// Entries whose exact edits name other files: an anchor, a canonical ref,
/// a destination, a served path, a repo-durable target; non-ASCII paths.
const FILES: &str = r#"{
  "schema_version": "1",
  "tool_version": "t",
  "generated_at": "2099-01-01T00:00:00Z",
  "scan": {"project_root": ".", "scope_globs": [], "excluded_dirs": [], "files_scanned": 3},
  "shortlist": ["文档/旧.md", "docs/dup.md", "old/🚀.md", "../out.md"],
  "entries": [
    {"path": "文档/旧.md", "category": {"class": "bloat", "subtype": "distill"}, "signals": [],
      "op": "delete-range", "op_type": "deterministic", "is_destructive": true, "is_reversible": false, "safety_tier": "confirm",
      "exact_edit": {"kind": "delete-range", "anchor": {"start_line": 3, "end_line": 7}}},
    {"path": "docs/dup.md", "category": {"class": "bloat", "subtype": "distill"}, "signals": [],
      "op": "dedupe", "op_type": "deterministic", "is_destructive": false, "is_reversible": true, "safety_tier": "auto",
      "exact_edit": {"kind": "dedupe", "anchor": {"start_line": 1, "end_line": 2}, "canonical_ref": "docs/keep.md#L10-L11"}},
    {"path": "old/🚀.md", "category": {"class": "stale", "subtype": "provisional"}, "signals": [],
      "op": "move-to-archive", "op_type": "deterministic", "is_destructive": false, "is_reversible": true, "safety_tier": "auto",
      "exact_edit": {"kind": "move-to-archive", "anchor": {"start_line": 2, "end_line": 1}, "dest_path": "archive/🚀.md"}},
    {"path": "plan.md", "category": {"class": "stale", "subtype": "provisional"}, "signals": [],
      "op": "extract-then-delete", "op_type": "deterministic", "is_destructive": true, "is_reversible": false, "safety_tier": "auto",
      "lifecycle": {"rule_ref": "r", "lifetime": "delete-once-served", "served_when_path": "done.md"},
      "exact_edit": {"kind": "extract-then-delete", "anchor": {"start_line": 1, "end_line": 4},
        "lifecycle": {"rule_ref": "r", "lifetime": "delete-once-served", "served_when_path": "shipped/done.md"},
        "extraction_target": "repo-durable", "target_doc": "docs/decisions.md"}},
    {"path": "../out.md", "category": {"class": "bloat", "subtype": "distill"}, "signals": [],
      "op": "delete", "op_type": "deterministic", "is_destructive": true, "is_reversible": false, "safety_tier": "confirm",
      "exact_edit": {"kind": "dedupe", "canonical_ref": "/etc/passwd#L1-L2", "dest_path": "/tmp/x"}}
  ],
  "promotion_candidates": [{"path": "docs/dup.md", "name": "dups", "pitch": "p"}]
}
"#;

fn show_refs(text: &str, refs: &[crate::ide::links::FileRef]) -> String {
    refs.iter()
        .map(|r| {
            let line = text[..r.range.start].matches('\n').count() + 1;
            let lines = r
                .lines
                .map(|(s, e)| format!(" L{s}-L{e}"))
                .unwrap_or_default();
            format!(
                "{line}:{} -> {}{lines}\n",
                &text[r.range.as_range()],
                r.path
            )
        })
        .collect()
}

#[test]
fn file_refs_name_every_project_file_with_its_lines_and_never_one_outside() {
    let host = host(FILES);
    assert!(host.status().entries.is_some(), "analysed per entry");
    let expected = expect![[r#"
        6:"文档/旧.md" -> 文档/旧.md
        6:"docs/dup.md" -> docs/dup.md
        6:"old/🚀.md" -> old/🚀.md
        8:"文档/旧.md" -> 文档/旧.md L3-L7
        11:"docs/dup.md" -> docs/dup.md L1-L2
        13:"docs/keep.md#L10-L11" -> docs/keep.md L10-L11
        14:"old/🚀.md" -> old/🚀.md
        16:"archive/🚀.md" -> archive/🚀.md
        17:"plan.md" -> plan.md L1-L4
        19:"done.md" -> done.md
        21:"shipped/done.md" -> shipped/done.md
        22:"docs/decisions.md" -> docs/decisions.md
        27:"docs/dup.md" -> docs/dup.md
    "#]];
    expected.assert_eq(&show_refs(
        FILES,
        &host.file_refs(TextRange::new(0, FILES.len())),
    ));
    // The same from a full analysis (a syntax error elsewhere keeps it whole).
    let broken = FILES.replacen("\"tool_version\": \"t\",", "\"tool_version\": \"t\",,", 1);
    let full = self::host(&broken);
    assert!(full.status().entries.is_none(), "analysed whole");
    expected.assert_eq(&show_refs(
        &broken,
        &full.file_refs(TextRange::new(0, broken.len())),
    ));
}

/// Edits in and between entries, each applied to a host kept up to date
/// incrementally: its file references are those of a host made from the
/// text afresh, and of a full analysis (recorded by the checks, moved by
/// every edit after them, read from the text when asked).
#[test]
fn file_refs_follow_every_edit_of_the_per_entry_analysis() {
    use crate::host::UpdateKind;
    use crate::text::ByteEdit;
    let mut text = FILES.to_string();
    let mut host = host(&text);
    let edits: &[(&str, &str)] = &[
        // A longer path before the others: every later range moves.
        (
            "\"docs/dup.md\", \"category\"",
            "\"docs/dup-長い名前🚀.md\", \"category\"",
        ),
        // A new destination, escaped; a canonical ref's lines changed.
        ("\"archive/🚀.md\"", "\"archive\\/🚀 \\u6587.md\""),
        ("#L10-L11", "#L12-L20"),
        // An anchor added lines to a path; one taken from another.
        (
            "\"anchor\": {\"start_line\": 2, \"end_line\": 1}",
            "\"anchor\": {\"start_line\": 2, \"end_line\": 9}",
        ),
        (
            "\"anchor\": {\"start_line\": 3, \"end_line\": 7}",
            "\"anchor\": {\"start_line\": 3}",
        ),
        // No longer repo-durable: its target doc names no file to open.
        ("\"repo-durable\"", "\"repo-local\""),
        // A served path that leaves the root, one that comes back.
        ("\"done.md\"", "\"../done.md\""),
        ("\"dest_path\": \"/tmp/x\"", "\"dest_path\": \"tmp/新.md\""),
    ];
    for (old, new) in edits {
        let at = text.find(old).unwrap_or_else(|| panic!("{old}"));
        let edit = ByteEdit {
            range: TextRange::new(at, at + old.len()),
            new_len: new.len(),
        };
        text.replace_range(edit.range.as_range(), new);
        let kind = host.update(text.clone(), Some(&[edit]), OPTIONS);
        assert_eq!(kind, UpdateKind::Incremental, "{new}");
        host.settle();
        let whole = TextRange::new(0, text.len());
        let fresh = self::host(&text);
        let broken = text.replacen("\"tool_version\": \"t\",", "\"tool_version\": \"t\",,", 1);
        let full = self::host(&broken);
        assert!(full.status().entries.is_none(), "analysed whole");
        let shown = show_refs(&text, &host.file_refs(whole));
        assert_eq!(shown, show_refs(&text, &fresh.file_refs(whole)), "{new}");
        let full_refs = full.file_refs(TextRange::new(0, broken.len()));
        assert_eq!(shown, show_refs(&broken, &full_refs), "{new}");
    }
    expect![[r#"
        6:"文档/旧.md" -> 文档/旧.md
        6:"docs/dup.md" -> docs/dup.md
        6:"old/🚀.md" -> old/🚀.md
        8:"文档/旧.md" -> 文档/旧.md
        11:"docs/dup-長い名前🚀.md" -> docs/dup-長い名前🚀.md L1-L2
        13:"docs/keep.md#L12-L20" -> docs/keep.md L12-L20
        14:"old/🚀.md" -> old/🚀.md L2-L9
        16:"archive\/🚀 \u6587.md" -> archive/🚀 文.md
        17:"plan.md" -> plan.md L1-L4
        21:"shipped/done.md" -> shipped/done.md
        25:"tmp/新.md" -> tmp/新.md
        27:"docs/dup.md" -> docs/dup.md
    "#]]
    .assert_eq(&show_refs(
        &text,
        &host.file_refs(TextRange::new(0, text.len())),
    ));
}

/// The whole text's links take the shortlist's paths from its facts, a
/// few (definition's) read them from the text: the same references, repeats,
/// escapes and non-ASCII paths included.
#[test]
fn many_shortlist_items_give_the_references_a_few_at_a_time_give() {
    let generated = crate::generate::generate_report(crate::generate::GenerateOptions {
        entries: 100,
        seed: 3,
        violation_every: 0,
    });
    let at = generated.find("\"shortlist\": [").unwrap() + "\"shortlist\": [".len();
    let mut text = generated.clone();
    text.insert_str(
        at,
        "\"文档/🚀.md\", \"docs\\/esc.md\", \"文档/🚀.md\", \"../out.md\", ",
    );
    let host = host(&text);
    assert!(host.status().entries.is_some(), "analysed per entry");
    let whole = host.file_refs(TextRange::new(0, text.len()));
    let step = text.len() / 400;
    let mut pieces: Vec<_> = (0..=text.len() / step)
        .flat_map(|k| host.file_refs(TextRange::new(k * step, ((k + 1) * step).min(text.len()))))
        .collect();
    pieces.sort_by_key(|r| r.range.start);
    pieces.dedup();
    assert_eq!(whole, pieces);
    let named: Vec<&str> = whole.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(named.iter().filter(|p| **p == "文档/🚀.md").count(), 2);
    assert!(named.contains(&"docs/esc.md"));
    assert!(!named.contains(&"../out.md"));
    assert!(whole.len() > 200, "{}", whole.len());
}

#[test]
fn the_file_ref_under_the_cursor_is_the_value_it_stands_in() {
    let (text, offset) = at(&FILES.replacen("\"docs/keep.md#L10", "\"docs/ke$0ep.md#L10", 1));
    let host = host(&text);
    let found = host.file_ref_at(offset).unwrap();
    assert_eq!(
        (found.path.as_str(), found.lines),
        ("docs/keep.md", Some((10, 11)))
    );
    let (text, offset) = at(&FILES.replacen("\"archive/🚀", "\"archive/🚀$0", 1));
    let found = self::host(&text).file_ref_at(offset).unwrap();
    assert_eq!(found.path, "archive/🚀.md");
    // An absolute or `..` path is no file of the project; a key is no value.
    for marked in [
        FILES.replacen("\"/etc/pa", "\"/etc/pa$0", 1),
        FILES.replacen("{\"path\": \"../o", "{\"path\": \"../o$0", 1),
        FILES.replacen("\"dest_path\": \"archive", "\"dest_$0path\": \"archive", 1),
    ] {
        let (text, offset) = at(&marked);
        assert_eq!(self::host(&text).file_ref_at(offset), None, "{marked}");
    }
}

fn live_facts(changes: &[(&str, &str)], git: bool) -> crate::project_checks::WorkspaceFacts {
    use crate::project_checks::{FileFacts, FileKind, GitFacts, WorkspaceFacts, Worktree};
    let mut facts = WorkspaceFacts {
        root: Some("/p".into()),
        ..Default::default()
    };
    facts
        .files
        .insert("shipped/done.md".into(), FileFacts::of_kind(FileKind::File));
    facts
        .files
        .insert("done.md".into(), FileFacts::of_kind(FileKind::File));
    if git {
        let mut tracked = GitFacts::default();
        tracked.insert("plan.md", true, Worktree::Clean);
        for (path, what) in changes {
            tracked.insert(path, true, Worktree::Changed(what.to_string()));
        }
        facts.git = Some(tracked);
    }
    facts
}

#[test]
fn the_live_tier_shows_when_the_tree_now_gives_another() {
    let host = host(FILES);
    let whole = TextRange::new(0, FILES.len());
    let tiers = |facts: Option<&crate::project_checks::WorkspaceFacts>| -> String {
        host.inlay_hints_live(whole, facts)
            .iter()
            .filter(|h| {
                FILES[..h.offset].ends_with("\"auto\"")
                    || FILES[..h.offset].ends_with("\"confirm\"")
            })
            .map(|h| {
                let line = FILES[..h.offset].matches('\n').count() + 1;
                format!("{line}: {}\n", h.label)
            })
            .collect()
    };
    // Tracked and clean: auto, as recorded; the text alone cannot tell.
    expect![[r#""#]].assert_eq(&tiers(Some(&live_facts(&[], true))));
    let dirty = live_facts(&[("plan.md", "modified in the worktree")], true);
    expect![[r#"
        18: auto→confirm: dirty
    "#]]
    .assert_eq(&tiers(Some(&dirty)));
    let hint = host
        .inlay_hints_live(whole, Some(&dirty))
        .into_iter()
        .find(|h| h.label.contains('→'))
        .unwrap();
    assert!(
        hint.tooltip.contains("modified in the worktree"),
        "{}",
        hint.tooltip
    );
    let mut untracked = live_facts(&[], true);
    let git = untracked.git.as_mut().unwrap();
    git.insert(
        "plan.md",
        false,
        crate::project_checks::Worktree::Changed("untracked".into()),
    );
    expect![[r#"
        18: auto→confirm: untracked
    "#]]
    .assert_eq(&tiers(Some(&untracked)));
    // Without git, or without facts, nothing live is known.
    assert_eq!(tiers(Some(&live_facts(&[], false))), "");
    assert_eq!(host.inlay_hints_live(whole, None), host.inlay_hints(whole));
}

#[test]
fn workspace_symbols_are_the_entries_named_by_path_with_their_classification() {
    let host = host(REPORT);
    let listed: Vec<String> = host
        .entry_symbols()
        .iter()
        .map(|s| {
            format!(
                "{} — {} @ {}",
                s.name,
                s.detail,
                &REPORT[s.selection.as_range()]
            )
        })
        .collect();
    expect![[r#"
        docs/a.md — entries[0] · bloat/distill · distill · auto @ "docs/a.md"
        docs/b.md — entries[1] · stale/provisional · delete · confirm @ "docs/b.md""#]]
    .assert_eq(&listed.join("\n"));
}

#[test]
fn the_clean_at_the_cursor_and_the_clean_of_every_entry_deriving_auto() {
    use crate::clean_edit::{FileChange, Targets};
    use crate::project_checks::{GitFacts, Worktree};
    use crate::schema::SafetyTier;
    use std::collections::HashMap;

    let (text, facts) = crate::clean_edit::tests::golden();
    let open = HashMap::new();
    let host = host(&text);
    let targets = Targets {
        facts: &facts,
        open: &open,
    };
    let summary = |clean: &crate::ide::clean::EntryClean| {
        format!(
            "entries[{}] {} {} {:?} {}",
            clean.index,
            clean.kind,
            clean.path,
            clean.tier,
            match &clean.edit {
                Ok(edit) => format!(
                    "{} change(s), held {}",
                    edit.changes.len(),
                    edit.held.is_some()
                ),
                Err(why) => why.clone(),
            }
        )
    };
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle}"));
    // A `confirm` delete-range, the held half of an extract-then-delete,
    // and a lifecycle delete that git facts do not prove: confirm.
    let cleans: Vec<String> = [
        "\"kind\": \"delete-range\"",
        "\"kind\": \"extract-then-delete\"",
        "\"path\": \"notes/scratch-2026-10.md\",\n      \"category\"",
    ]
    .iter()
    .map(|needle| summary(&host.clean_at(at(needle), targets).expect(needle)))
    .collect();
    expect![[r#"
        [
            "entries[2] delete-range docs/old-api.md Some(Confirm) 1 change(s), held false",
            "entries[10] extract-then-delete handoff/会议记录-😀.md Some(Confirm) 1 change(s), held true",
            "entries[8] delete notes/scratch-2026-10.md Some(Confirm) 1 change(s), held false",
        ]
    "#]]
    .assert_debug_eq(&cleans);
    // Outside every entry, and on an entry without an exact edit: none.
    assert_eq!(host.clean_at(at("\"schema_version\""), targets), None);
    assert_eq!(
        host.clean_at(at("\"path\": \"docs/contributing.md\",\n"), targets),
        None
    );
    assert!(host.may_clean_auto());
    let (combined, taken) = host.clean_auto(targets);
    let indices: Vec<usize> = taken.iter().map(|c| c.index).collect();
    assert_eq!(indices, vec![0, 1, 3, 4], "the entries deriving auto");
    assert_eq!(combined.taken, indices);
    assert!(taken.iter().all(|c| c.tier == Some(SafetyTier::Auto)));
    let paths: Vec<&str> = combined.changes.iter().map(FileChange::path).collect();
    assert_eq!(
        paths,
        [
            "docs/setup.md",
            "docs/architecture.md",
            "docs/roadmap-2023.md",
            "docs/archive/roadmap-2023.md",
            "docs/design/frozen-spec.md"
        ]
    );
    // A lifecycle delete derives through the live facts: confirm until
    // git proves the file tracked and clean and the served path exists.
    let sha = "1".repeat(64);
    let lifecycle = r#"{"rule_ref": "r", "lifetime": "delete-once-served", "served_when_path": "docs/done.md"}"#;
    let report = format!(
        r#"{{"schema_version": "1", "entries": [{{"path": "plans/p.md",
          "category": {{"class": "stale", "subtype": "completed-in-place"}}, "signals": [],
          "op": "delete", "op_type": "deterministic", "is_destructive": true, "is_reversible": true,
          "safety_tier": "auto", "token_estimate": {{"raw_tokens": 1}}, "lifecycle": {lifecycle},
          "exact_edit": {{"kind": "delete", "anchor": {{"start_line": 1, "end_line": 1}},
            "lifecycle": {lifecycle}, "expected_sha256": "{sha}"}}}}]}}"#
    );
    let host = DocumentHost::new(report.clone(), None, OPTIONS);
    let mut plan = crate::project_checks::FileFacts::of_kind(crate::project_checks::FileKind::File);
    plan.sha256 = Some(sha.clone());
    plan.text = Some("plan\n".into());
    let mut facts = crate::project_checks::WorkspaceFacts {
        root: Some("/p".into()),
        files: [
            ("plans/p.md".to_string(), plan.clone()),
            ("docs/done.md".to_string(), plan),
        ]
        .into_iter()
        .collect(),
        ..Default::default()
    };
    let tier_of = |facts: &crate::project_checks::WorkspaceFacts| {
        let targets = Targets { facts, open: &open };
        let clean = host
            .clean_at(report.find("plans/p.md").unwrap(), targets)
            .unwrap();
        let (_, taken) = host.clean_auto(targets);
        (clean.tier, taken.len())
    };
    assert_eq!(
        tier_of(&facts),
        (Some(SafetyTier::Confirm), 0),
        "git unproven"
    );
    let mut git = GitFacts::default();
    git.insert("plans/p.md", true, Worktree::Clean);
    facts.git = Some(git);
    assert_eq!(tier_of(&facts), (Some(SafetyTier::Auto), 1), "proven live");
}

#[test]
fn a_target_documents_entries_are_found_by_its_path_alone() {
    use crate::ide::targets::TargetSpan;
    use crate::schema::SafetyTier;

    let (text, facts) = crate::clean_edit::tests::golden();
    let per_entry = host(&text);
    assert!(per_entry.status().entries.is_some(), "kept per entry");
    // The same report analysed whole (a stray comma outside the entries).
    let broken = text.replacen("\"tool_version\"", ",\"tool_version\"", 1);
    let whole = host(&broken);
    assert!(whole.status().entries.is_none(), "analysed whole");
    let spans = |host: &DocumentHost<String>, path: &str| -> Vec<TargetSpan> {
        host.spans_naming(path, Some(&facts))
    };
    let summary = |spans: &[TargetSpan], text: &str| -> Vec<String> {
        spans
            .iter()
            .map(|s| {
                format!(
                    "entries[{}] {} {:?} {:?} {:?} {} signals, canonical {:?}, at {}",
                    s.entry,
                    s.op.as_deref().unwrap_or("-"),
                    s.lines,
                    s.tier,
                    s.raw_tokens,
                    s.signals.len(),
                    s.canonical_ref,
                    &text[s.path_range.as_range()],
                )
            })
            .collect()
    };
    let index = per_entry.target_index();
    assert_eq!(index.files(), 12);
    let mut shown = Vec::new();
    for path in [
        "docs/architecture.md",
        "./handoff/会议记录-😀.md",
        "tmp/experiments/",
        "docs/not-named.md",
    ] {
        let found = spans(&per_entry, path);
        let shifted = spans(&whole, path);
        assert_eq!(
            summary(&found, &text),
            summary(&shifted, &broken),
            "{path}: the same entries either way"
        );
        shown.extend(summary(&found, &text));
    }
    expect![[r#"
        [
            "entries[1] dedupe Some((40, 58)) Some(Auto) Some(212) 1 signals, canonical Some(\"docs/overview.md#L12-L30\"), at \"docs/architecture.md\"",
            "entries[10] extract-then-delete Some((1, 52)) Some(Confirm) Some(410) 2 signals, canonical None, at \"handoff/会议记录-😀.md\"",
            "entries[11] delete None Some(Confirm) Some(2210) 2 signals, canonical None, at \"tmp/experiments/\"",
        ]
    "#]]
    .assert_debug_eq(&shown);
    assert!(!index.names("docs/not-named.md"));
    let sha = spans(&per_entry, "docs/architecture.md")[0]
        .expected_sha256
        .clone()
        .unwrap();
    let span = &spans(&per_entry, "docs/architecture.md")[0];
    assert!(!span.stale_for(&sha.to_uppercase()), "hex in either case");
    assert!(span.stale_for(&"0".repeat(64)));
    assert!(span.removes() && span.holds_line(40) && !span.holds_line(59));
    assert_eq!(span.tier, Some(SafetyTier::Auto));
}

#[test]
fn a_stale_span_says_what_changed() {
    use crate::ide::targets::{TargetSpan, stale_detail};

    let span = |lines: Option<(u64, u64)>, found: Option<&str>| TargetSpan {
        entry: 0,
        path_range: TextRange::empty(0),
        op: Some("delete-range".into()),
        lines,
        tier: None,
        reason: None,
        raw_tokens: None,
        expected_sha256: None,
        signals: vec![],
        canonical_ref: None,
        canonical_lines: None,
        match_text: found.map(str::to_string),
        trace: None,
    };
    // A dedupe of lines 2–3, whose canonical copy holds them.
    let dedupe = TargetSpan {
        op: Some("dedupe".into()),
        canonical_ref: Some("docs/overview.md#L5-L6".into()),
        canonical_lines: Some(vec!["old 1".into(), "old 2".into()]),
        ..span(Some((2, 3)), None)
    };
    let made_from = "a\nold 1\nold 2\nb\n";
    let cases = [
        (span(Some((2, 3)), None), "a\nold 1\nold 2\nb!\n"),
        (span(Some((2, 3)), None), "new\nmore\na\nold 1\nold 2\nb\n"),
        (span(Some((2, 3)), None), "a\nold 1\nedited\nb\n"),
        (span(Some((2, 2)), Some("old 1")), "a\nold one\nold 2\nb\n"),
        (span(None, None), "x\n"),
        (span(Some((7, 9)), None), "x\n"),
        (dedupe.clone(), "a\nold 1\nedited\nb\n"),
        (dedupe, "new\na\nold 1\nold 2\nb\n"),
    ];
    let said: Vec<String> = cases
        .iter()
        .map(|(span, now)| stale_detail(span, made_from, now))
        .collect();
    expect![[r#"
        [
            "lines 2–3 unchanged; the change is elsewhere in the file",
            "content identical, now at lines 4–5",
            "lines 2–3 changed",
            "the match `old 1` is gone from lines 2–2",
            "the file changed since the report",
            "the file changed since the report; its lines 7–9 were not in it",
            "lines 2–3 changed: they diverged from their canonical copy `docs/overview.md#L5-L6`, so the dedupe would lose what differs",
            "content identical, now at lines 3–4",
        ]
    "#]]
    .assert_debug_eq(&said);
}
