//! Arbitrary edits to a report, analysed incrementally where the per-entry
//! analysis accepts them: its diagnostics and entry facts equal those of a
//! full analysis of the same text; where it refuses, it is rebuilt from one.
//! Edits are bytes anywhere, or whole entries copied and deleted.
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
            None if at > 0 => (TextRange::new(entries[at - 1].end, entries[end - 1].end), String::new()),
            None => (TextRange::new(entries[at].start, entries[end - 1].end), String::new()),
        });
    }
    let copy = &text[entries[edit.source as usize % entries.len()].as_range()];
    Some(match entries.get(at) {
        Some(entry) => (TextRange::empty(entry.start), format!("{copy},\n").repeat(count)),
        None => (TextRange::empty(entries[at - 1].end), format!(",\n{copy}").repeat(count)),
    })
}

fuzz_target!(|rounds: Vec<Vec<Edit>>| {
    let mut text = BASE.to_string();
    let mut state = Incremental::new(&analyze(&text));
    for round in rounds.iter().take(16) {
        let mut tracked = state.is_some();
        for edit in round.iter().take(4) {
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
            let state = state.as_ref().unwrap();
            let read = |r: TextRange| text[r.as_range()].to_string();
            let diagnostics: Vec<_> = state
                .diagnostics(&read)
                .into_iter()
                .map(|d| d.into_owned())
                .collect();
            assert_eq!(diagnostics, full.diagnostics);
            let entries: Vec<_> = state.entries().cloned().collect();
            assert_eq!(entries, full.entries);
            // The file references (document links) read from those facts.
            let refs = |facts: &mut dyn Iterator<Item = &report_core::validate::EntryFacts>| {
                let mut refs = Vec::new();
                for facts in facts {
                    report_core::ide::links::entry_refs(facts, &read, &mut refs);
                }
                refs
            };
            assert_eq!(refs(&mut state.entries()), refs(&mut full.entries.iter()));
        } else {
            state = Incremental::new(&full);
        }
    }
});
