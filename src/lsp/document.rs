//! An open document: its text in a rope and its version, changed only
//! through [`Document::apply_change`].

use ropey::{Rope, RopeSlice};

use report_core::host::SourceText;
pub use report_core::text::ByteEdit;
use report_core::text::{Encoding, LineCol, PositionError, TextRange};

pub struct Document {
    pub rope: Rope,
    pub version: i32,
    /// Set when a change could not be applied: the text no longer matches the
    /// editor's, so incremental changes are ignored until a full-text change.
    pub out_of_sync: bool,
}

impl Document {
    pub fn new(text: &str, version: i32) -> Document {
        Document {
            rope: Rope::from_str(text),
            version,
            out_of_sync: false,
        }
    }

    /// Replaces `range` (None: the whole text) with `text`, and says which
    /// bytes changed (None: the whole text). A range outside the document
    /// changes nothing and is an error.
    pub fn apply_change(
        &mut self,
        range: Option<(LineCol, LineCol)>,
        text: &str,
        encoding: Encoding,
    ) -> Result<Option<ByteEdit>, PositionError> {
        let Some((start, end)) = range else {
            self.rope = Rope::from_str(text);
            self.out_of_sync = false;
            return Ok(None);
        };
        let start = char_index(&self.rope, start, encoding)?;
        let end = char_index(&self.rope, end, encoding)?;
        let (start, end) = (start.min(end), start.max(end));
        let bytes = TextRange::new(self.rope.char_to_byte(start), self.rope.char_to_byte(end));
        self.rope.remove(start..end);
        self.rope.insert(start, text);
        Ok(Some(ByteEdit {
            range: bytes,
            new_len: text.len(),
        }))
    }

    pub fn text(&self) -> String {
        self.rope.to_string()
    }
}

/// A document's rope as the core's document host reads it.
#[derive(Clone)]
pub struct RopeText(pub Rope);

impl SourceText for RopeText {
    fn len(&self) -> usize {
        self.0.len_bytes()
    }

    fn slice(&self, range: TextRange) -> String {
        let slice = self.0.byte_slice(range.as_range());
        // Most pieces lie in one chunk: copied at once, not written piece by piece.
        match slice.as_str() {
            Some(text) => text.to_string(),
            None => slice.chunks().collect(),
        }
    }

    fn whole(&self) -> String {
        self.0.to_string()
    }

    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.0.chunks())
    }

    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.0.chunks_at_byte(self.0.len_bytes()).0.reversed())
    }

    fn byte(&self, offset: usize) -> u8 {
        self.0.byte(offset)
    }
}

/// The position of a byte offset, as [`report_core::text::LineIndex::line_col`]
/// gives it for the same text: an offset past the end is the end, one inside
/// a character or a line break is rounded down to the character or the end
/// of the line's content.
pub fn line_col(rope: &Rope, offset: usize, encoding: Encoding) -> LineCol {
    let offset = offset.min(rope.len_bytes());
    let line = rope.byte_to_line(offset);
    // On a character boundary (always, for the core's offsets): the line's
    // bytes before it, with no conversion to character indices.
    let (chunk, chunk_start, _, _) = rope.chunk_at_byte(offset);
    if !chunk.is_char_boundary(offset - chunk_start) {
        return line_col_inside_char(rope, line, offset, encoding);
    }
    let before = rope.byte_slice(rope.line_to_byte(line)..offset);
    let mut col = match encoding {
        Encoding::Utf8 => before.len_bytes(),
        Encoding::Utf16 => before.len_utf16_cu(),
    };
    // Between the `\r` and the `\n` of a line break: the end of the content.
    if col > 0 && before.byte(before.len_bytes() - 1) == b'\r' {
        col -= 1;
    }
    LineCol {
        line: line as u32,
        col: col as u32,
    }
}

/// [`line_col`] of an offset inside a character: rounded down to it.
fn line_col_inside_char(rope: &Rope, line: usize, offset: usize, encoding: Encoding) -> LineCol {
    let line_start = rope.line_to_char(line);
    let content = without_line_end(rope.line(line));
    let char_in_line = (rope.byte_to_char(offset) - line_start).min(content.len_chars());
    let col = match encoding {
        Encoding::Utf8 => content.char_to_byte(char_in_line),
        Encoding::Utf16 => content.char_to_utf16_cu(char_in_line),
    };
    LineCol {
        line: line as u32,
        col: col as u32,
    }
}

/// The byte offset of a position in a request, clamped as
/// [`report_core::text::LineIndex::offset_clamped`] does: a line past the last is
/// the end of the text, a column past its line's end is that end, and a
/// column inside a character is rounded down to it.
pub fn offset_clamped(rope: &Rope, pos: LineCol, encoding: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let content = without_line_end(rope.line(line));
    let col = pos.col as usize;
    let char_in_line = match encoding {
        Encoding::Utf16 => content.utf16_cu_to_char(col.min(content.len_utf16_cu())),
        Encoding::Utf8 => content.byte_to_char(col.min(content.len_bytes())),
    };
    rope.line_to_byte(line) + content.char_to_byte(char_in_line)
}

/// The char index of a position, exact: a line past the end, a column past
/// the line's end or inside a character (a surrogate pair, a UTF-8 sequence) is an error.
fn char_index(rope: &Rope, pos: LineCol, encoding: Encoding) -> Result<usize, PositionError> {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return Err(PositionError::LineOutOfRange {
            line: pos.line,
            line_count: rope.len_lines() as u32,
        });
    }
    let line_start = rope.line_to_char(line);
    let content = without_line_end(rope.line(line));
    let col = pos.col as usize;
    let (len, char_offset, back) = match encoding {
        Encoding::Utf16 => {
            let len = content.len_utf16_cu();
            let c = content.utf16_cu_to_char(col.min(len));
            (len, c, content.char_to_utf16_cu(c))
        }
        Encoding::Utf8 => {
            let len = content.len_bytes();
            let c = content.byte_to_char(col.min(len));
            (len, c, content.char_to_byte(c))
        }
    };
    if col > len {
        return Err(PositionError::ColumnOutOfRange {
            line: pos.line,
            col: pos.col,
            line_len: len as u32,
        });
    }
    if back != col {
        return Err(PositionError::InsideCharacter {
            line: pos.line,
            col: pos.col,
        });
    }
    Ok(line_start + char_offset)
}

/// A line without its `\n`, `\r\n` or `\r`.
fn without_line_end(line: RopeSlice<'_>) -> RopeSlice<'_> {
    let mut len = line.len_chars();
    if len > 0 && line.char(len - 1) == '\n' {
        len -= 1;
    }
    if len > 0 && line.char(len - 1) == '\r' {
        len -= 1;
    }
    line.slice(..len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    proptest::proptest! {
        /// Every offset's position is what the rope's character indices
        /// give (the conversion used before, kept for offsets inside a
        /// character), through CJK, emoji and every kind of line break.
        #[test]
        fn positions_agree_with_the_character_index_conversion(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["a", "\n", "\r", "\r\n", "文", "😀", "é", "\u{2028}", "\"k\": "]),
                0..40,
            )
        ) {
            let text: String = pieces.concat();
            let rope = Rope::from_str(&text);
            for offset in 0..=text.len() + 1 {
                for encoding in [Encoding::Utf16, Encoding::Utf8] {
                    let line = rope.byte_to_line(offset.min(text.len()));
                    let expected = line_col_inside_char(&rope, line, offset.min(text.len()), encoding);
                    proptest::prop_assert_eq!(line_col(&rope, offset, encoding), expected, "{:?} at {}", text, offset);
                }
            }
        }
    }

    #[test]
    fn edits_after_emoji_and_cjk_in_both_encodings() {
        for (encoding, col) in [(Encoding::Utf16, 5), (Encoding::Utf8, 9)] {
            // "a😀路" is 1 + 2 + 1 UTF-16 units, 1 + 4 + 3 bytes; the edit goes after "路" plus the quote.
            let mut doc = Document::new("x\r\n\"a😀路\": 1\n", 1);
            doc.apply_change(Some((pos(1, col), pos(1, col))), "b", encoding)
                .unwrap();
            assert_eq!(doc.text(), "x\r\n\"a😀路b\": 1\n", "{encoding:?}");
        }
    }

    #[test]
    fn positions_inside_a_surrogate_pair_or_past_the_end_are_rejected() {
        let mut doc = Document::new("😀\nab", 1);
        let inside = doc.apply_change(Some((pos(0, 1), pos(0, 1))), "x", Encoding::Utf16);
        assert!(matches!(inside, Err(PositionError::InsideCharacter { .. })));
        let past = doc.apply_change(Some((pos(1, 3), pos(1, 3))), "x", Encoding::Utf16);
        assert!(matches!(past, Err(PositionError::ColumnOutOfRange { .. })));
        let below = doc.apply_change(Some((pos(5, 0), pos(5, 0))), "x", Encoding::Utf16);
        assert!(matches!(below, Err(PositionError::LineOutOfRange { .. })));
        assert_eq!(doc.text(), "😀\nab");
    }

    #[test]
    fn line_separator_inside_a_string_does_not_shift_lines() {
        let mut doc = Document::new("\"a\u{2028}b\"\nc", 1);
        doc.apply_change(Some((pos(1, 0), pos(1, 1))), "d", Encoding::Utf16)
            .unwrap();
        assert_eq!(doc.text(), "\"a\u{2028}b\"\nd");
    }

    #[test]
    fn full_text_change_resyncs() {
        let mut doc = Document::new("a", 1);
        doc.out_of_sync = true;
        doc.apply_change(None, "b", Encoding::Utf16).unwrap();
        assert!(!doc.out_of_sync);
        assert_eq!(doc.text(), "b");
    }
}
