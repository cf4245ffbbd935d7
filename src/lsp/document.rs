//! An open document: its text in a rope (an opening's made later) and its
//! version, changed only through [`Document::apply_change`] and
//! [`Document::replace`].

use std::sync::{Arc, Mutex, OnceLock};

use ropey::{Rope, RopeSlice};

pub use report_core::text::ByteEdit;
use report_core::text::{Encoding, LineCol, PositionError, TextRange};
use report_core::text::{SourceText, changed_range, spans_most_of};

/// Whole texts from this size on are taken as an opening's when they are
/// new over most of their length ([`Document::replace`]).
pub const REOPENED_FROM_BYTES: usize = 1 << 20;

/// What [`Document::replace`] did.
pub enum Replaced {
    Changed(Changed),
    /// A new text, now the document's as an opening's: it and its rope,
    /// for its analysis.
    Reopened(Arc<String>, OpeningRope),
}

/// What a change did to the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// These bytes.
    Bytes(ByteEdit),
    /// Nothing: the same text again.
    Nothing,
    /// It is a new text (after the document was out of sync).
    Whole,
}

pub struct Document {
    /// Read through [`Document::rope`], which makes it first while opening.
    rope: Rope,
    /// An opening's rope until it is made: by its analysis once its first
    /// diagnostics are out, its tree freed by then (for a report kept per
    /// entry, the text, the tree and a rope of 40 MB each are then never
    /// held at once), or by the first change or request that needs it
    /// sooner.
    opening: Option<OpeningRope>,
    pub version: i32,
    /// Set when a change could not be applied: the text no longer matches the
    /// editor's, so incremental changes are ignored until a full-text change.
    pub out_of_sync: bool,
}

/// The rope of an opening's text, made once by whichever needs it first:
/// the document or its analysis. It holds the text until then only.
#[derive(Clone)]
pub struct OpeningRope(Arc<Opening>);

struct Opening {
    text: Mutex<Option<Arc<String>>>,
    rope: OnceLock<Rope>,
}

impl OpeningRope {
    /// The rope, made now unless it was made already; the text is let go
    /// once it is.
    pub fn get(&self) -> Rope {
        let opening = &*self.0;
        let rope = opening.rope.get_or_init(|| {
            let text = lock(&opening.text).clone();
            let rope = Rope::from_str(text.as_deref().map_or("", String::as_str));
            *lock(&opening.text) = None;
            rope
        });
        rope.clone()
    }

    fn made(&self) -> bool {
        self.0.rope.get().is_some()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Document {
    pub fn new(text: &str, version: i32) -> Document {
        Document {
            rope: Rope::from_str(text),
            opening: None,
            version,
            out_of_sync: false,
        }
    }

    /// An opening's document, whose rope is made later (see
    /// [`Document::opening`]), and that rope for its analysis.
    pub fn opening(text: Arc<String>, version: i32) -> (Document, OpeningRope) {
        let rope = OpeningRope(Arc::new(Opening {
            text: Mutex::new(Some(text)),
            rope: OnceLock::new(),
        }));
        let document = Document {
            rope: Rope::new(),
            opening: Some(rope.clone()),
            version,
            out_of_sync: false,
        };
        (document, rope)
    }

    /// The text, as a rope: made now if the document is opening and its
    /// analysis has not made it yet.
    pub fn rope(&mut self) -> &Rope {
        if let Some(opening) = self.opening.take() {
            self.rope = opening.get();
        }
        &self.rope
    }

    /// Takes the rope its opening's analysis made; makes none. Whether the
    /// rope is at hand now.
    pub fn take_made_rope(&mut self) -> bool {
        match &self.opening {
            Some(opening) if opening.made() => {
                self.rope();
                true
            }
            Some(_) => false,
            None => true,
        }
    }

    /// As [`Document::apply_change`], but a whole text of
    /// [`REOPENED_FROM_BYTES`] or more that differs over most of the current
    /// one is taken as an opening's (see [`Document::opening`]): a report
    /// written again and reloaded is analysed from the editor's string, and
    /// its rope made once its first diagnostics are out.
    pub fn replace(
        &mut self,
        range: Option<(LineCol, LineCol)>,
        text: String,
        encoding: Encoding,
    ) -> Result<Replaced, PositionError> {
        if range.is_none() && text.len() >= REOPENED_FROM_BYTES {
            let edit = changed_range(&RopeText(self.rope().clone()), text.as_str());
            if !edit.is_some_and(|edit| spans_most_of(&[edit], self.rope.len_bytes())) {
                // Compared once: a 40 MB text sent again takes 20 ms more.
                return Ok(Replaced::Changed(self.replace_whole_by(&text, edit)));
            }
            let text = Arc::new(text);
            let (document, rope) = Document::opening(text.clone(), self.version);
            *self = document;
            return Ok(Replaced::Reopened(text, rope));
        }
        self.apply_change(range, &text, encoding)
            .map(Replaced::Changed)
    }

    /// Replaces `range` (None: the whole text) with `text`, and says which
    /// bytes changed (of a large change, only those that differ). A range
    /// outside the document changes nothing and is an error.
    pub fn apply_change(
        &mut self,
        range: Option<(LineCol, LineCol)>,
        text: &str,
        encoding: Encoding,
    ) -> Result<Changed, PositionError> {
        self.rope();
        let Some((start, end)) = range else {
            return Ok(self.replace_whole(text));
        };
        let start = char_index(&self.rope, start, encoding)?;
        let end = char_index(&self.rope, end, encoding)?;
        let (start, end) = (start.min(end), start.max(end));
        let bytes = TextRange::new(self.rope.char_to_byte(start), self.rope.char_to_byte(end));
        let Some((edit, text)) = self.narrowed(bytes, text) else {
            return Ok(Changed::Nothing);
        };
        let start = self.rope.byte_to_char(edit.range.start);
        self.rope
            .remove(start..self.rope.byte_to_char(edit.range.end));
        self.rope.insert(start, text);
        Ok(Changed::Bytes(edit))
    }

    /// The change of `range` to `text` as the bytes it really changes (and
    /// their new text), None when none: a client that replaces the whole
    /// buffer, or a large part of it, sends its range with the new text,
    /// most of it the same. Only those are compared; the rope then keeps
    /// the rest, shared with the analysis' copy, and no second 40 MB rope
    /// is built.
    fn narrowed<'t>(&self, range: TextRange, text: &'t str) -> Option<(ByteEdit, &'t str)> {
        const COMPARED_FROM_BYTES: usize = 4096;
        let whole = ByteEdit {
            range,
            new_len: text.len(),
        };
        if range.len().min(text.len()) < COMPARED_FROM_BYTES {
            return Some((whole, text));
        }
        let old = SliceText(self.rope.byte_slice(range.as_range()));
        let edit = changed_range(&old, text)?;
        let new = edit.range.start..edit.range.start + edit.new_len;
        let edit = ByteEdit {
            range: TextRange::new(range.start + edit.range.start, range.start + edit.range.end),
            new_len: edit.new_len,
        };
        Some((edit, &text[new]))
    }

    /// A whole new text (what formatters send) changes only the bytes that
    /// differ: the rope keeps the rest, shared with the analysis' copy, so
    /// a 40 MB text sent again costs no second rope. While out of sync the
    /// analysis' text is no base for an edit: the text is then a new one.
    fn replace_whole(&mut self, text: &str) -> Changed {
        let edit = changed_range(&RopeText(self.rope.clone()), text);
        self.replace_whole_by(text, edit)
    }

    /// As [`Document::replace_whole`], with the bytes that differ found.
    fn replace_whole_by(&mut self, text: &str, edit: Option<ByteEdit>) -> Changed {
        if let Some(edit) = edit {
            let (start, end) = (
                self.rope.byte_to_char(edit.range.start),
                self.rope.byte_to_char(edit.range.end),
            );
            self.rope.remove(start..end);
            let new = edit.range.start..edit.range.start + edit.new_len;
            self.rope.insert(start, &text[new]);
        }
        match (std::mem::take(&mut self.out_of_sync), edit) {
            (true, _) => Changed::Whole,
            (false, Some(edit)) => Changed::Bytes(edit),
            (false, None) => Changed::Nothing,
        }
    }

    pub fn text(&mut self) -> String {
        self.rope().to_string()
    }
}

/// A document's rope as the core's document host reads it.
#[derive(Clone, Default)]
pub struct RopeText(pub Rope);

impl SourceText for RopeText {
    fn len(&self) -> usize {
        self.0.len_bytes()
    }

    fn slice(&self, range: TextRange) -> String {
        piece(self.0.slice(..), range)
    }

    fn whole(&self) -> String {
        self.0.to_string()
    }

    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.0.chunks())
    }

    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        chunks_reversed(self.0.slice(..))
    }

    fn byte(&self, offset: usize) -> u8 {
        self.0.byte(offset)
    }
}

/// A piece of a rope as a text to compare ([`changed_range`]).
struct SliceText<'a>(RopeSlice<'a>);

impl SourceText for SliceText<'_> {
    fn len(&self) -> usize {
        self.0.len_bytes()
    }

    fn slice(&self, range: TextRange) -> String {
        piece(self.0, range)
    }

    fn whole(&self) -> String {
        self.0.to_string()
    }

    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.0.chunks())
    }

    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        chunks_reversed(self.0)
    }

    fn byte(&self, offset: usize) -> u8 {
        self.0.byte(offset)
    }
}

/// The text of `range` of `text`.
fn piece(text: RopeSlice<'_>, range: TextRange) -> String {
    let slice = text.byte_slice(range.as_range());
    // Most pieces lie in one chunk: copied at once, not written piece by piece.
    match slice.as_str() {
        Some(text) => text.to_string(),
        None => slice.chunks().collect(),
    }
}

fn chunks_reversed<'a>(text: RopeSlice<'a>) -> Box<dyn Iterator<Item = &'a str> + 'a> {
    Box::new(text.chunks_at_byte(text.len_bytes()).0.reversed())
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
        let changed = doc.apply_change(None, "b", Encoding::Utf16).unwrap();
        assert_eq!(changed, Changed::Whole);
        assert!(!doc.out_of_sync);
        assert_eq!(doc.text(), "b");
    }

    #[test]
    fn a_large_ranged_change_changes_only_the_bytes_that_differ() {
        let line = "{\"a😀\": \"路x路\"},\n";
        let old = line.repeat(400);
        let lines = old.lines().count() as u32;
        let everything = Some((pos(0, 0), pos(lines, 0)));
        // The whole text again: nothing.
        let mut doc = Document::new(&old, 1);
        let same = doc.apply_change(everything, &old, Encoding::Utf16).unwrap();
        assert_eq!(same, Changed::Nothing);
        // One emoji for another, on line 200: its four bytes (whose first
        // three the two share), not the 16 KB sent.
        let at = 200 * line.len();
        let new = format!(
            "{}{}{}",
            &old[..at],
            line.replace('😀', "😁"),
            &old[at + line.len()..]
        );
        let changed = doc.apply_change(everything, &new, Encoding::Utf16).unwrap();
        let expected = ByteEdit {
            range: TextRange::new(at + 3, at + 7),
            new_len: 4,
        };
        assert_eq!(changed, Changed::Bytes(expected));
        assert_eq!(doc.text(), new);
        // From line 100 to the end, in UTF-8 columns: the offsets are the whole text's.
        let from = Some((pos(100, 0), pos(lines, 0)));
        let x = 300 * line.len() + line.find('x').unwrap();
        let newer = format!("{}y{}", &new[..x], &new[x + 1..]);
        let changed = doc
            .apply_change(from, &newer[100 * line.len()..], Encoding::Utf8)
            .unwrap();
        let expected = ByteEdit {
            range: TextRange::new(x, x + 1),
            new_len: 1,
        };
        assert_eq!(changed, Changed::Bytes(expected));
        assert_eq!(doc.text(), newer);
    }

    #[test]
    fn a_whole_text_changes_only_the_bytes_that_differ() {
        let old = "{\"a😀\": \"路x路\",\n \"b\": 1}\n";
        let cases = [
            // The same text: nothing.
            (old.to_string(), None),
            // One CJK character for another: its three bytes.
            (old.replace('x', "跑"), Some(((14, 15), 3))),
            // An emoji's bytes must not be split where two emoji share a prefix byte.
            (old.replace("😀", "😁"), Some(((3, 7), 4))),
            (String::new(), Some(((0, old.len()), 0))),
            ("[]".to_string(), Some(((0, old.len()), 2))),
        ];
        for (new, expected) in cases {
            let mut doc = Document::new(old, 1);
            let changed = doc.apply_change(None, &new, Encoding::Utf16).unwrap();
            let expected = match expected {
                None => Changed::Nothing,
                Some(((start, end), new_len)) => Changed::Bytes(ByteEdit {
                    range: TextRange::new(start, end),
                    new_len,
                }),
            };
            assert_eq!(changed, expected, "{new:?}");
            assert_eq!(doc.text(), new);
        }
    }

    #[test]
    fn a_large_whole_text_new_over_most_of_its_length_is_taken_as_an_openings() {
        let line = "{\"路\": \"😀\"},\n";
        // Large enough once its emoji are letters.
        let old = line.repeat(REOPENED_FROM_BYTES / (line.len() - 3) + 1);
        let new = old.replace('😀', "x");
        let end = pos(old.matches('\n').count() as u32, 0);
        let mut reopened = old.clone();
        reopened.replace_range(..line.len(), "[");
        let cases = [
            // New over most of it: an opening's, its rope made later.
            (new.clone(), None, true),
            // Large, but new only at its start: its bytes edited.
            (reopened.clone(), None, false),
            // New over most of it, but sent with a range: edited.
            (new.clone(), Some((pos(0, 0), end)), false),
            // Small.
            (line.replace('😀', "y"), None, false),
        ];
        for (text, range, opening) in cases {
            let mut doc = Document::new(&old, 3);
            let expected = text.clone();
            let replaced = doc.replace(range, text, Encoding::Utf16).unwrap();
            match replaced {
                Replaced::Reopened(text, rope) => {
                    assert!(opening, "{:.20}", text);
                    assert!(!doc.take_made_rope(), "made by the analysis");
                    assert_eq!(rope.get().to_string(), *text);
                }
                Replaced::Changed(_) => assert!(!opening),
            }
            assert_eq!(doc.version, 3);
            assert_eq!(doc.text(), expected);
        }
    }

    #[test]
    fn edits_in_utf16_after_a_reload_taken_as_an_opening() {
        let line = "{\"路径\": \"😀 é\"},\n";
        let old = line.repeat(REOPENED_FROM_BYTES / (line.len() - 2) + 2);
        let new = old.replace('😀', "日").replace("路径", "𝄞x");
        let mut doc = Document::new(&old, 1);
        let Ok(Replaced::Reopened(..)) = doc.replace(None, new.clone(), Encoding::Utf16) else {
            panic!("taken as an opening's")
        };
        // `日` on line 3, after a surrogate pair: its UTF-16 column.
        let third = new.split('\n').nth(3).unwrap();
        let byte = third.find('日').unwrap();
        let column = third[..byte].encode_utf16().count() as u32;
        doc.apply_change(
            Some((pos(3, column), pos(3, column + 1))),
            "月",
            Encoding::Utf16,
        )
        .unwrap();
        let mut expected = new.clone();
        let at = new
            .split_inclusive('\n')
            .take(3)
            .map(str::len)
            .sum::<usize>()
            + byte;
        expected.replace_range(at..at + '日'.len_utf8(), "月");
        assert_eq!(doc.text(), expected);
    }
}
