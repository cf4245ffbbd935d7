//! Arbitrary edits to a report, analysed incrementally where the per-entry
//! analysis accepts them: its diagnostics and entry facts equal those of a
//! full analysis of the same text; where it refuses, it is rebuilt from one.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use report_core::analyze;
use report_core::incremental::Incremental;
use report_core::text::TextRange;

const BASE: &str = include_str!("../../examples/golden/valid.report.json");

#[derive(Arbitrary, Debug)]
struct Edit {
    /// Where, as a fraction of the text (out of 65536).
    at: u16,
    removed: u8,
    inserted: String,
}

fuzz_target!(|rounds: Vec<Vec<Edit>>| {
    let mut text = BASE.to_string();
    let mut state = Incremental::new(&analyze(&text));
    for round in rounds.iter().take(16) {
        let mut tracked = state.is_some();
        for edit in round.iter().take(4) {
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
            let diagnostics: Vec<_> = state.diagnostics().into_iter().cloned().collect();
            assert_eq!(diagnostics, full.diagnostics);
            let entries: Vec<_> = state.entries().cloned().collect();
            assert_eq!(entries, full.entries);
        } else {
            state = Incremental::new(&full);
        }
    }
});
