//! Diagnostics survive syntax errors: breaking one entry of a report with
//! known violations, in each way a person typing or deleting breaks JSON,
//! still reports every violation outside that entry with the same code and
//! range, adds a syntax error inside the entry, and invents nothing else.

use report_core::diagnostic::Code;
use report_core::text::TextRange;
use report_core::{Analysis, analyze};

fn golden(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/golden");
    std::fs::read_to_string(path.join(name)).unwrap()
}

/// The valid golden report with cross-entry violations added: an entry
/// whose path is not in the shortlist, and a candidate that names no entry.
fn cross_entry_report() -> String {
    let text = golden("valid.report.json");
    let with_candidate = text.replacen(
        "  \"promotion_candidates\": [\n",
        "  \"promotion_candidates\": [\n    {\"path\": \"docs/nowhere.md\", \"name\": \"n\", \"pitch\": \"p\"},\n",
        1,
    );
    let first_entry = with_candidate.find("\"entries\"").unwrap();
    let path_at = first_entry + with_candidate[first_entry..].find("\"path\": \"").unwrap() + 9;
    let mut out = with_candidate.clone();
    out.insert_str(path_at, "elsewhere/");
    let analysis = analyze(&out);
    let codes: Vec<_> = analysis.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::EntryPathNotInShortlist), "{codes:?}");
    assert!(
        codes.contains(&Code::PromotionCandidateUnknownEntry),
        "{codes:?}"
    );
    out
}

fn generated_report() -> String {
    report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries: 12,
        seed: 3,
        violation_every: 2,
    })
}

/// One way of breaking an item's text around its member `key`; None when
/// the item has no place for it.
type Break = fn(&str, &str) -> Option<String>;

/// The range of the value of `"key": ` in `entry` (a string value: quotes included).
fn value_of(entry: &str, key: &str) -> Option<TextRange> {
    let start = entry.find(&format!("\"{key}\": "))? + key.len() + 4;
    let rest = &entry[start..];
    let len = match rest.as_bytes()[0] {
        b'"' => rest[1..].find('"')? + 2,
        _ => rest.find([',', '\n', '}'])?,
    };
    Some(TextRange::new(start, start + len))
}

fn replace(entry: &str, range: TextRange, with: &str) -> String {
    format!("{}{with}{}", &entry[..range.start], &entry[range.end..])
}

const BREAKS: &[(&str, Break)] = &[
    ("unterminated string", |e, k| {
        let op = value_of(e, k)?;
        Some(replace(e, TextRange::new(op.end - 1, op.end), ""))
    }),
    ("half-typed value", |e, k| {
        let op = value_of(e, k)?;
        let typed = (op.start + 3).min(op.end - 1);
        Some(replace(e, TextRange::new(typed, op.end + 1), ""))
    }),
    ("missing comma", |e, k| {
        let op = value_of(e, k)?;
        (e.as_bytes()[op.end] == b',').then(|| replace(e, TextRange::new(op.end, op.end + 1), ""))
    }),
    ("extra comma", |e, k| {
        let op = value_of(e, k)?;
        (e.as_bytes()[op.end] == b',').then(|| replace(e, TextRange::empty(op.end), ","))
    }),
    ("missing colon", |e, k| {
        let op = value_of(e, k)?;
        Some(replace(e, TextRange::new(op.start - 2, op.start - 1), ""))
    }),
    ("missing value", |e, k| {
        Some(replace(e, value_of(e, k)?, ""))
    }),
    ("value typed up to the colon", |e, k| {
        let op = value_of(e, k)?;
        Some(replace(e, TextRange::new(op.start, op.end + 1), ""))
    }),
    ("unclosed object", |e, _| Some(e[..e.len() - 1].to_string())),
    ("missing opening brace", |e, _| Some(e[1..].to_string())),
    ("unclosed array", |e, _| {
        let signals = e.find("\"signals\": [")?;
        let close = signals + e[signals..].find(']')?;
        Some(replace(e, TextRange::new(close, close + 1), ""))
    }),
    ("stray characters", |e, k| {
        let op = e.find(&format!("\"{k}\""))?;
        Some(replace(e, TextRange::empty(op), "#@! "))
    }),
    ("raw line feed in a string", |e, k| {
        let op = value_of(e, k)?;
        Some(replace(e, TextRange::empty(op.start + 2), "\n"))
    }),
];

fn inside(range: TextRange, region: TextRange) -> bool {
    region.start <= range.start && range.end <= region.end
}

fn keys(analysis: &Analysis) -> Vec<(Code, TextRange)> {
    analysis
        .diagnostics
        .iter()
        .map(|d| (d.code, d.range))
        .collect()
}

fn item_ranges(text: &str, array: &str) -> Vec<TextRange> {
    let parse = report_core::syntax::parse(text);
    let items = parse.root().unwrap().get(array).unwrap();
    items.items().unwrap().map(|n| n.range()).collect()
}

fn entry_ranges(text: &str) -> Vec<TextRange> {
    item_ranges(text, "entries")
}

/// Breaks entry `index` of `text` with `how`; checks the promise and returns the broken analysis.
fn break_entry(text: &str, index: usize, name: &str, how: Break) -> Option<Analysis> {
    break_item(text, "entries", "op", index, name, how)
}

/// Breaks item `index` of the array `array` around its member `key`.
fn break_item(
    text: &str,
    array: &str,
    key: &str,
    index: usize,
    name: &str,
    how: Break,
) -> Option<Analysis> {
    let entry = item_ranges(text, array)[index];
    let broken_entry = how(&text[entry.as_range()], key)?;
    let broken = format!(
        "{}{broken_entry}{}",
        &text[..entry.start],
        &text[entry.end..]
    );
    let delta = broken_entry.len() as isize - entry.len() as isize;
    let map = |o: usize| {
        if o >= entry.end {
            (o as isize + delta) as usize
        } else {
            o
        }
    };
    let moved = |r: TextRange| TextRange::new(map(r.start), map(r.end));
    let new_entry = TextRange::new(entry.start, map(entry.end));
    let before = analyze(text);
    let after = analyze(&broken);
    let context = format!("{name} in {array}[{index}]");
    let kept = keys(&after);
    let expected: Vec<(Code, TextRange)> = keys(&before)
        .into_iter()
        .filter(|&(_, range)| !inside(range, entry))
        .map(|(code, range)| (code, moved(range)))
        .collect();
    for key in &expected {
        assert!(kept.contains(key), "{context}: lost {key:?}; now {kept:?}");
    }
    assert!(
        after.diagnostics.iter().any(|d| d.code == Code::SyntaxError
            && new_entry.start <= d.range.start
            && d.range.start <= new_entry.end),
        "{context}: no syntax error inside the entry; {kept:?}"
    );
    for key in &kept {
        assert!(
            key.0 == Code::SyntaxError || inside(key.1, new_entry) || expected.contains(key),
            "{context}: new {key:?} outside the entry"
        );
    }
    let syntax: Vec<_> = after
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::SyntaxError)
        .map(|d| (d.range, d.message.as_str()))
        .collect();
    assert_eq!(
        syntax.len(),
        1,
        "{context}: one syntax error, not {syntax:?}"
    );
    assert!(!after.is_valid(), "{context}: valid");
    Some(after)
}

fn every_break_of_every_entry(text: &str) {
    let mut tried = 0;
    for index in 0..entry_ranges(text).len() {
        for (name, how) in BREAKS {
            tried += usize::from(break_entry(text, index, name, *how).is_some());
        }
    }
    assert!(
        tried >= entry_ranges(text).len() * 8,
        "{tried} breaks tried"
    );
}

#[test]
fn breaking_one_entry_of_the_invalid_golden_report_keeps_the_others() {
    every_break_of_every_entry(&golden("invalid.report.json"));
}

#[test]
fn breaking_one_entry_keeps_the_cross_entry_checks_of_the_others() {
    every_break_of_every_entry(&cross_entry_report());
}

#[test]
fn breaking_one_entry_of_a_generated_report_keeps_the_others() {
    every_break_of_every_entry(&generated_report());
}

/// The candidate names the entry being broken: whether it is classifier-judged is unknown now.
#[test]
fn a_broken_entry_is_not_called_missing_by_the_candidate_naming_it() {
    let text = cross_entry_report();
    let entries = entry_ranges(&text);
    let index = entries
        .iter()
        .position(|r| text[r.as_range()].contains("\"path\": \"handoff/"))
        .unwrap();
    for (name, how) in BREAKS {
        let Some(after) = break_entry(&text, index, name, *how) else {
            continue;
        };
        let unknown: Vec<_> = after
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::PromotionCandidateUnknownEntry)
            .map(|d| &after.text[d.range.as_range()])
            .collect();
        assert_eq!(unknown, ["\"docs/nowhere.md\""], "{name}");
    }
    // With the entry's path itself unreadable, no candidate can be judged.
    let entry = entries[index];
    let path = value_of(&text[entry.as_range()], "path").unwrap();
    let quote = entry.start + path.end - 1;
    let broken = format!("{}{}", &text[..quote], &text[quote + 1..]);
    let after = analyze(&broken);
    assert!(
        !after
            .diagnostics
            .iter()
            .any(|d| d.code == Code::PromotionCandidateUnknownEntry),
        "{:?}",
        keys(&after)
    );
    assert!(
        after
            .diagnostics
            .iter()
            .any(|d| d.code == Code::EntryPathNotInShortlist)
    );
}

/// A broken shortlist may hold any path: no entry is said to be missing from it.
#[test]
fn a_broken_shortlist_says_nothing_about_membership() {
    let text = cross_entry_report();
    let shortlist = text.find("\"shortlist\": [").unwrap();
    let first_item = shortlist + text[shortlist..].find("\",").unwrap() + 1;
    let broken = format!("{}{}", &text[..first_item], &text[first_item + 1..]);
    let after = analyze(&broken);
    let codes: Vec<_> = after.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::SyntaxError), "{codes:?}");
    assert!(!codes.contains(&Code::EntryPathNotInShortlist), "{codes:?}");
    assert!(
        codes.contains(&Code::PromotionCandidateUnknownEntry),
        "{codes:?}"
    );
}

/// A broken envelope field loses its own checks only.
#[test]
fn a_broken_envelope_field_keeps_the_entries_checked() {
    let text = golden("invalid.report.json");
    let before = analyze(&text);
    for (from, to) in [
        ("\"files_scanned\": ", "\"files_scanned\" "),
        ("\"generated_at\": \"", "\"generated_at\": "),
        ("\"tool_version\": ", "\"tool_version\": @@, \"x\": "),
    ] {
        let broken = text.replacen(from, to, 1);
        let delta = broken.len() as isize - text.len() as isize;
        let at = text.find(from).unwrap();
        let after = analyze(&broken);
        let kept = keys(&after);
        for (code, range) in keys(&before) {
            let moved = |o: usize| {
                if o > at {
                    (o as isize + delta) as usize
                } else {
                    o
                }
            };
            let key = (code, TextRange::new(moved(range.start), moved(range.end)));
            assert!(kept.contains(&key), "{from:?}: lost {key:?}");
        }
        assert!(
            kept.iter().any(|(code, _)| *code == Code::SyntaxError),
            "{from:?}"
        );
    }
}

/// A truncated report: what parsed is checked, and nothing is said to be missing.
#[test]
fn a_truncated_report_checks_the_entries_before_the_cut() {
    let text = golden("invalid.report.json");
    let cut = text.find("docs/big-guide.markdown").unwrap() + 40;
    let after = analyze(&text[..cut]);
    let codes: Vec<_> = after.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::CharacterizationMismatch), "{codes:?}");
    assert!(codes.contains(&Code::ExactEditForbidden), "{codes:?}");
    assert!(!codes.contains(&Code::MissingField), "{codes:?}");
    assert_eq!(
        codes.iter().filter(|c| **c == Code::SyntaxError).count(),
        1,
        "{codes:?}"
    );
}

/// A broken promotion candidate loses its own checks only.
#[test]
fn breaking_one_candidate_keeps_the_other_checks() {
    let text = cross_entry_report();
    for index in 0..item_ranges(&text, "promotion_candidates").len() {
        for (name, how) in BREAKS {
            break_item(&text, "promotion_candidates", "name", index, name, *how);
        }
    }
}
