//! Model-based edit test: random incremental edits, applied through the
//! same `Document::apply_change` as `didChange` and to a plain `String`;
//! after every step the texts agree and so do their diagnostics, in both
//! position encodings. Out-of-range edits are rejected without a change.

use proptest::prelude::*;
use report_core::text::{Encoding, LineCol, LineIndex, TextRange};
use report_lsp::lsp::document::{self, Changed, Document};

const PIECES: &[&str] = &[
    "", "a", "\"", ",", "{", "}", "[", "]", ":", "\n", "\r\n", "\r", "é", "路径", "😀", "\u{2028}",
    "\"auto\"", "  ", "null",
];

#[derive(Clone, Debug)]
enum Step {
    /// Replace the span starting at `start` (a fraction of the text) of `len` chars.
    Edit {
        start: f64,
        len: usize,
        piece: usize,
    },
    /// A position past the end of its line or the text.
    OutOfRange { line_past: u32, col_past: u32 },
    /// A full-text change.
    Full { piece: usize },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0.0..=1.0f64, 0usize..8, 0..PIECES.len()).prop_map(|(start, len, piece)| Step::Edit { start, len, piece }),
        1 => (0u32..3, 1u32..5).prop_map(|(line_past, col_past)| Step::OutOfRange { line_past, col_past }),
        1 => (0..PIECES.len()).prop_map(|piece| Step::Full { piece }),
    ]
}

fn seed_text() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/golden/invalid/07-safety-tier.report.json"
    ))
    .unwrap()
}

fn char_offset(text: &str, fraction: f64) -> usize {
    let chars = text.chars().count();
    let nth = ((chars as f64) * fraction) as usize;
    text.char_indices().nth(nth).map_or(text.len(), |(i, _)| i)
}

fn run(steps: &[Step], encoding: Encoding) {
    let mut reference = seed_text();
    let mut doc = Document::new(&reference, 1);
    for step in steps {
        match *step {
            Step::Edit { start, len, piece } => {
                let from = char_offset(&reference, start);
                let to = reference[from..]
                    .char_indices()
                    .nth(len)
                    .map_or(reference.len(), |(i, _)| from + i);
                let index = LineIndex::new(&reference);
                let (a, b) = (
                    index.line_col(&reference, from, encoding),
                    index.line_col(&reference, to, encoding),
                );
                // A `\r\n` pair is one line end: an offset between its two bytes has no position.
                let (from, to) = (
                    index.offset(&reference, a, encoding).unwrap(),
                    index.offset(&reference, b, encoding).unwrap(),
                );
                let Changed::Bytes(edit) = doc
                    .apply_change(Some((a, b)), PIECES[piece], encoding)
                    .unwrap()
                else {
                    panic!("a range edit changes bytes");
                };
                // The bytes it reports changed are the ones the model changes.
                assert_eq!(edit.range, TextRange::new(from, to.max(from)));
                assert_eq!(edit.new_len, PIECES[piece].len());
                reference.replace_range(from..to.max(from), PIECES[piece]);
            }
            Step::OutOfRange {
                line_past,
                col_past,
            } => {
                let index = LineIndex::new(&reference);
                let last = index.line_count() - 1;
                let line = last + line_past;
                let end_col = index.line_col(&reference, reference.len(), encoding).col;
                let position = LineCol {
                    line,
                    col: if line_past == 0 {
                        end_col + col_past
                    } else {
                        0
                    },
                };
                assert!(
                    doc.apply_change(Some((position, position)), "x", encoding)
                        .is_err()
                );
            }
            Step::Full { piece } => {
                let before = doc.text();
                reference = format!("{}{}", seed_text(), PIECES[piece]);
                // A whole text is taken as the bytes it changes.
                match doc.apply_change(None, &reference, encoding).unwrap() {
                    Changed::Bytes(edit) => {
                        let mut edited = before.clone();
                        let new = edit.range.start..edit.range.start + edit.new_len;
                        edited.replace_range(edit.range.as_range(), &reference[new]);
                        assert_eq!(edited, reference);
                        assert_ne!(before, reference);
                    }
                    Changed::Nothing => assert_eq!(before, reference),
                    Changed::Whole => panic!("the document was in sync"),
                }
            }
        }
        let text = doc.text();
        assert_eq!(text, reference);
        let ours = report_core::analyze(&text);
        let fresh = report_core::analyze(&reference);
        assert_eq!(ours.diagnostics, fresh.diagnostics);
    }
}

/// The cases proptest once shrank a failure to, as it printed them (the
/// comment beside each seed in `edits.proptest-regressions`): a seed replays
/// another case once `step` changes, the case itself does not. A new
/// failure's shrunk case goes here too.
#[test]
fn the_saved_failures_pass() {
    let saved = [vec![Step::Edit {
        start: 0.0588892837496247,
        len: 0,
        piece: 16,
    }]];
    for steps in &saved {
        run(steps, Encoding::Utf16);
        run(steps, Encoding::Utf8);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn edits_in_utf16_keep_the_document_and_the_model_equal(steps in proptest::collection::vec(step(), 1..40)) {
        run(&steps, Encoding::Utf16);
    }

    #[test]
    fn edits_in_utf8_keep_the_document_and_the_model_equal(steps in proptest::collection::vec(step(), 1..40)) {
        run(&steps, Encoding::Utf8);
    }

    /// The rope's conversions (what the server publishes with) and the
    /// core's line index (what the CLI prints with) agree at every offset,
    /// and on every position a request may send, in range or not.
    #[test]
    fn rope_and_line_index_convert_alike(
        pieces in proptest::collection::vec(0..PIECES.len(), 0..60),
        line in 0u32..12,
        col in 0u32..12,
    ) {
        let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
        let rope = ropey::Rope::from_str(&text);
        let index = LineIndex::new(&text);
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            for offset in 0..=text.len() + 2 {
                prop_assert_eq!(
                    document::line_col(&rope, offset, encoding),
                    index.line_col(&text, offset, encoding),
                    "offset {} of {:?}", offset, text
                );
            }
            let pos = LineCol { line, col };
            prop_assert_eq!(
                document::offset_clamped(&rope, pos, encoding),
                index.offset_clamped(&text, pos, encoding),
                "{:?} in {:?}", pos, text
            );
        }
    }

    /// The core's line index and the rope agree on every position.
    #[test]
    fn line_index_and_rope_agree(pieces in proptest::collection::vec(0..PIECES.len(), 0..60), probe in 0.0..=1.0f64) {
        let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
        let offset = char_offset(&text, probe);
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let index = LineIndex::new(&text);
            let position = index.line_col(&text, offset, encoding);
            let mut doc = Document::new(&text, 1);
            doc.apply_change(Some((position, position)), "|", encoding).unwrap();
            let at = index.offset(&text, position, encoding).unwrap();
            let mut expected = text.clone();
            expected.insert(at, '|');
            prop_assert_eq!(doc.text(), expected);
        }
    }
}
