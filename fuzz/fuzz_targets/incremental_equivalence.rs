//! Arbitrary edits to a report, analysed incrementally where the per-entry
//! analysis accepts them: its diagnostics and entry facts equal those of a
//! full analysis of the same text; where it refuses, it is rebuilt from one.
//! Edits are bytes anywhere, whole entries copied and deleted, or shortlist
//! items added (paths entries use, repeats, invalid paths, objects with a
//! lifecycle), deleted and changed.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use report_core::analyze;
use report_core::incremental::Incremental;
use report_core::syntax;
use report_core::text::TextRange;

const BASE: &str = include_str!("../../examples/golden/valid.report.json");

#[derive(Arbitrary, Debug)]
struct Edit {
    /// Where, as a fraction of the text (out of 65536).
    at: u16,
    removed: u8,
    inserted: String,
    /// Instead, whole entries: copies of one inserted, or some deleted.
    entries: Option<EntriesEdit>,
    /// Instead, shortlist items.
    shortlist: Option<ShortlistEdit>,
}

#[derive(Arbitrary, Debug)]
struct ShortlistEdit {
    at: u8,
    source: u8,
    count: u8,
    /// 0 insert, 1 delete, 2 replace.
    kind: u8,
    item: u8,
    /// Put between the items inserted.
    separator: bool,
}

/// Items a shortlist edit may add; `@` stands for an entry's path, `&`
/// for a copy of an item.
const ITEMS: &[&str] = &[
    "@",
    "&",
    "\"docs/新しい/😀.md\"",
    "\"/abs.md\"",
    "\"a/../b.md\"",
    "\"DOCS/Guide.MD\"",
    "\"\"",
    "{\"path\": @, \"lifecycle\": {\"rule_ref\": \"r\", \"lifetime\": \"temporary\"}}",
    "{\"path\": @, \"lifecycle\": {\"lifetime\": \"keep\"}, \"x\": 1}",
    "{\"lifecycle\": []}",
    "{\"path\": 1}",
    "2",
    "\"e\\u00e9\\\"s.md\"",
];

/// The edit of shortlist items, as a range and its new text, if the text has a shortlist.
fn shortlist_edit(text: &str, edit: &ShortlistEdit) -> Option<(TextRange, String)> {
    let parse = syntax::parse(text);
    let root = parse.root()?;
    let shortlist = root.get("shortlist")?;
    let items: Vec<TextRange> = shortlist.items()?.map(|item| item.range()).collect();
    let paths: Vec<&str> = root
        .get("entries")
        .and_then(|e| e.items())
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("path"))
        .map(|p| &text[p.range().as_range()])
        .collect();
    let new_item = |k: usize| -> String {
        let template = ITEMS[(edit.item as usize + k) % ITEMS.len()];
        let source = edit.source as usize + k;
        match template {
            "&" if !items.is_empty() => text[items[source % items.len()].as_range()].to_string(),
            _ => {
                let path = match paths.len() {
                    0 => "\"docs/x.md\"",
                    n => paths[source % n],
                };
                template.replace('@', path).replace('&', path)
            }
        }
    };
    let count = 1 + edit.count as usize % 3;
    let separator = if edit.separator { ",\n    " } else { ", " };
    match edit.kind % 3 {
        0 => {
            let at = edit.at as usize % (items.len() + 1);
            let new: Vec<String> = (0..count).map(new_item).collect();
            Some(match items.get(at) {
                Some(next) => (
                    TextRange::empty(next.start),
                    new.iter().map(|i| format!("{i}{separator}")).collect(),
                ),
                None if at > 0 => (
                    TextRange::empty(items[at - 1].end),
                    new.iter().map(|i| format!("{separator}{i}")).collect(),
                ),
                None => (
                    TextRange::empty(shortlist.range().start + 1),
                    new.join(separator),
                ),
            })
        }
        1 if !items.is_empty() => {
            let at = edit.at as usize % items.len();
            let end = (at + count).min(items.len());
            Some(match items.get(end) {
                Some(next) => (TextRange::new(items[at].start, next.start), String::new()),
                None if at > 0 => (
                    TextRange::new(items[at - 1].end, items[end - 1].end),
                    String::new(),
                ),
                None => (
                    TextRange::new(items[at].start, items[end - 1].end),
                    String::new(),
                ),
            })
        }
        2 if !items.is_empty() => Some((items[edit.at as usize % items.len()], new_item(0))),
        _ => None,
    }
}

#[derive(Arbitrary, Debug)]
struct EntriesEdit {
    at: u8,
    source: u8,
    count: u8,
    delete: bool,
}

/// The edit of whole entries, as a range and its new text, if the text has entries.
fn entries_edit(text: &str, edit: &EntriesEdit) -> Option<(TextRange, String)> {
    let parse = syntax::parse(text);
    let entries: Vec<TextRange> = parse
        .root()?
        .get("entries")?
        .items()?
        .map(|item| item.range())
        .collect();
    if entries.is_empty() {
        return None;
    }
    let at = edit.at as usize % (entries.len() + 1);
    let count = 1 + edit.count as usize % 4;
    if edit.delete {
        let at = at.min(entries.len() - 1);
        let end = (at + count).min(entries.len());
        return Some(match entries.get(end) {
            Some(next) => (TextRange::new(entries[at].start, next.start), String::new()),
            None if at > 0 => (
                TextRange::new(entries[at - 1].end, entries[end - 1].end),
                String::new(),
            ),
            None => (
                TextRange::new(entries[at].start, entries[end - 1].end),
                String::new(),
            ),
        });
    }
    let copy = &text[entries[edit.source as usize % entries.len()].as_range()];
    Some(match entries.get(at) {
        Some(entry) => (
            TextRange::empty(entry.start),
            format!("{copy},\n").repeat(count),
        ),
        None => (
            TextRange::empty(entries[at - 1].end),
            format!(",\n{copy}").repeat(count),
        ),
    })
}

fuzz_target!(|rounds: Vec<Vec<Edit>>| {
    let mut text = BASE.to_string();
    let mut state = Incremental::new(&analyze(&text));
    for round in rounds.iter().take(16) {
        let before = text.clone();
        let mut tracked = state.is_some();
        for edit in round.iter().take(4) {
            if let Some(items) = &edit.shortlist {
                if let Some((range, inserted)) = shortlist_edit(&text, items) {
                    if let Some(state) = &mut state {
                        tracked &= state.edit(range, inserted.len());
                    }
                    text.replace_range(range.as_range(), &inserted);
                }
                continue;
            }
            if let Some(entries) = &edit.entries {
                if let Some((range, inserted)) = entries_edit(&text, entries) {
                    if let Some(state) = &mut state {
                        tracked &= state.edit(range, inserted.len());
                    }
                    text.replace_range(range.as_range(), &inserted);
                }
                continue;
            }
            let mut start = (edit.at as usize * text.len()) >> 16;
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + edit.removed as usize % 8).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            if let Some(state) = &mut state {
                tracked &= state.edit(TextRange::new(start, end), edit.inserted.len());
            }
            text.replace_range(start..end, &edit.inserted);
        }
        let updated = tracked
            && state
                .as_mut()
                .is_some_and(|s| s.update(|r| text[r.as_range()].to_string()));
        let full = analyze(&text);
        if updated {
            // Its diagnostics through the lag; the rest of a settled copy
            // (the state keeps its lag, over more rounds).
            assert_eq!(diagnostics(state.as_ref().unwrap(), &text), full.diagnostics);
            let mut settled = state.clone().unwrap();
            settled.settle();
            let state = &settled;
            let read = |r: TextRange| text[r.as_range()].to_string();
            assert_describes(state, &full, &text);
            // The file references (document links) read from those facts.
            let refs = |facts: &mut dyn Iterator<Item = &report_core::validate::EntryFacts>| {
                let mut refs = Vec::new();
                for facts in facts {
                    report_core::ide::links::entry_refs(facts, &read, &mut refs);
                }
                refs
            };
            assert_eq!(refs(&mut state.entries()), refs(&mut full.entries.iter()));
            // What navigation, completion and the membership fixes read.
            if let Some(fresh) = Incremental::new(&full) {
                assert_eq!(state.shortlist_state(), fresh.shortlist_state());
            }
        } else {
            // Put back as it was, it describes the text before the round.
            if let Some(state) = state.as_mut()
                && state.resume()
            {
                let before_analysis = analyze(&before);
                assert_eq!(diagnostics(state, &before), before_analysis.diagnostics);
                let mut settled = state.clone();
                settled.settle();
                assert_describes(&settled, &before_analysis, &before);
            }
            state = Incremental::new(&full);
        }
    }
});

/// The diagnostics and entry facts of `state` are those of `full`, the
/// analysis of `text`, which it describes.
fn assert_describes(state: &Incremental, full: &report_core::Analysis, text: &str) {
    assert_eq!(diagnostics(state, text), full.diagnostics);
    let entries: Vec<_> = state.entries().cloned().collect();
    assert_eq!(entries, full.entries);
    assert_eq!(state.len(), text.len());
}

/// The diagnostics of `state`, of `text`.
fn diagnostics(state: &Incremental, text: &str) -> Vec<report_core::diagnostic::Diagnostic> {
    let read = |r: TextRange| text[r.as_range()].to_string();
    (state.diagnostics(&read).into_iter())
        .map(|d| d.into_owned())
        .collect()
}
