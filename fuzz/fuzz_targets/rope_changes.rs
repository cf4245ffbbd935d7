//! Arbitrary content changes applied to a document (rope) and to a String:
//! the texts stay equal; a rejected change leaves the document unchanged.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use report_core::text::{Encoding, LineCol, LineIndex};

// The server's document, compiled in by path: it needs only ropey and the
// core, and depending on the server would build its every dependency
// under the sanitizer.
#[path = "../../src/lsp/document.rs"]
#[allow(dead_code)]
mod document;

use document::{Changed, Document};

#[derive(Arbitrary, Debug)]
struct Change {
    start: (u32, u32),
    end: (u32, u32),
    text: String,
    full: bool,
}

#[derive(Arbitrary, Debug)]
struct Input {
    initial: String,
    utf8: bool,
    changes: Vec<Change>,
}

fuzz_target!(|input: Input| {
    let encoding = if input.utf8 {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    };
    let mut reference = input.initial.clone();
    let mut doc = Document::new(&reference, 1);
    for change in input.changes.iter().take(64) {
        if change.full {
            doc.apply_change(None, &change.text, encoding).unwrap();
            reference = change.text.clone();
        } else {
            let start = LineCol {
                line: change.start.0 % 8,
                col: change.start.1 % 64,
            };
            let end = LineCol {
                line: change.end.0 % 8,
                col: change.end.1 % 64,
            };
            let index = LineIndex::new(&reference);
            let expected = match (
                index.offset(&reference, start, encoding),
                index.offset(&reference, end, encoding),
            ) {
                (Ok(a), Ok(b)) => Some((a.min(b), a.max(b))),
                _ => None,
            };
            match (
                doc.apply_change(Some((start, end)), &change.text, encoding),
                expected,
            ) {
                (Ok(Changed::Bytes(edit)), Some((a, b))) => {
                    // The bytes it says it changed are the ones the model changes.
                    assert_eq!((edit.range.start, edit.range.end), (a, b));
                    assert_eq!(edit.new_len, change.text.len());
                    reference.replace_range(a..b, &change.text)
                }
                (Err(_), None) => {}
                (result, expected) => panic!("document said {result:?}, model said {expected:?}"),
            }
        }
        assert_eq!(doc.text(), reference);
    }
});
