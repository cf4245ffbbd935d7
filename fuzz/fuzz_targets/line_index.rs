//! Offset <-> position conversions in both encodings: round trips are exact
//! and out-of-range positions are errors or clamp, never panics.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use report_core::text::{Encoding, LineCol, LineIndex};

#[derive(Arbitrary, Debug)]
struct Input {
    text: String,
    offset: usize,
    line: u32,
    col: u32,
}

fuzz_target!(|input: Input| {
    let text = &input.text;
    let index = LineIndex::new(text);
    for encoding in [Encoding::Utf8, Encoding::Utf16] {
        let mut offset = input.offset % (text.len() + 1);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let position = index.line_col(text, offset, encoding);
        let back = index
            .offset(text, position, encoding)
            .expect("a position from an offset converts back");
        // Only the byte between `\r` and `\n` of a line end has no position of its own.
        assert!(back == offset || (back + 1 == offset && text[back..].starts_with("\r\n")));
        let arbitrary = LineCol {
            line: input.line,
            col: input.col,
        };
        if let Ok(at) = index.offset(text, arbitrary, encoding) {
            assert!(text.is_char_boundary(at));
            assert_eq!(index.line_col(text, at, encoding), arbitrary);
        }
        let clamped = index.offset_clamped(text, arbitrary, encoding);
        assert!(clamped <= text.len() && text.is_char_boundary(clamped));
    }
});
