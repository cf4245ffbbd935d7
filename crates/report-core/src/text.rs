//! Byte ranges and the line index: the only place that converts byte offsets
//! to and from line/column positions, in UTF-8 or UTF-16 code units.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, exactly as LSP counts them; no
//! other Unicode line separator starts a line.

use std::fmt;
use std::ops::Range;

use crate::parallel::RunAll;

/// A half-open byte range `start..end` into a document's text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TextRange {
    pub start: usize,
    pub end: usize,
}

impl TextRange {
    pub fn new(start: usize, end: usize) -> TextRange {
        debug_assert!(start <= end, "{start} > {end}");
        TextRange { start, end }
    }

    pub fn empty(offset: usize) -> TextRange {
        TextRange::new(offset, offset)
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// True when `offset` lies inside the range or at its end, the way an
    /// editor cursor placed right after a token still counts as on it.
    pub fn touches(self, offset: usize) -> bool {
        self.start <= offset && offset <= self.end
    }

    /// True when the two ranges share an offset, an end included: a
    /// diagnostic or link touching a cursor's empty range counts.
    pub fn meets(self, other: TextRange) -> bool {
        self.start <= other.end && other.start <= self.end
    }

    pub fn as_range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// A change in bytes: `range` of the text before it became `new_len` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteEdit {
    pub range: TextRange,
    pub new_len: usize,
}

impl ByteEdit {
    /// One edit that does what `edits` do in turn (each in the offsets the
    /// previous ones left): the span from the first byte any of them touched
    /// to the last, in the offsets before all of them. None for no edits.
    pub fn compose(edits: &[ByteEdit]) -> Option<ByteEdit> {
        let (first, rest) = edits.split_first()?;
        // The changed span: where it starts, and where it ends before and after.
        let (mut start, mut old_end, mut new_end) = (
            first.range.start,
            first.range.end,
            first.range.start + first.new_len,
        );
        for edit in rest {
            if edit.range.start < start {
                start = edit.range.start;
            }
            if edit.range.end > new_end {
                old_end += edit.range.end - new_end;
                new_end = edit.range.end;
            }
            new_end = (new_end + edit.new_len).saturating_sub(edit.range.len());
        }
        Some(ByteEdit {
            range: TextRange::new(start, old_end),
            new_len: new_end - start,
        })
    }
}

/// How an edit moves the offsets after it: those at or past `from` move by
/// `delta` bytes; those before it stay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shift {
    pub from: usize,
    pub delta: isize,
}

impl Shift {
    pub fn offset(self, offset: usize) -> usize {
        match offset >= self.from {
            true => offset.saturating_add_signed(self.delta),
            false => offset,
        }
    }

    pub fn range(self, range: TextRange) -> TextRange {
        TextRange {
            start: self.offset(range.start),
            end: self.offset(range.end),
        }
    }
}

impl fmt::Debug for TextRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// How columns are counted in a [`LineCol`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Columns count UTF-8 bytes.
    Utf8,
    /// Columns count UTF-16 code units (LSP's default).
    Utf16,
}

/// A 0-based line and column; the column's unit is given by an [`Encoding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Why a position could not be turned into an offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The line is past the last line of the text.
    LineOutOfRange { line: u32, line_count: u32 },
    /// The column is past the end of its line.
    ColumnOutOfRange { line: u32, col: u32, line_len: u32 },
    /// The column falls inside a character (a UTF-8 sequence or a surrogate pair).
    InsideCharacter { line: u32, col: u32 },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PositionError::LineOutOfRange { line, line_count } => {
                write!(
                    f,
                    "line {line} is out of range (the text has {line_count} lines)"
                )
            }
            PositionError::ColumnOutOfRange {
                line,
                col,
                line_len,
            } => {
                write!(
                    f,
                    "column {col} is past the end of line {line} ({line_len} columns)"
                )
            }
            PositionError::InsideCharacter { line, col } => {
                write!(f, "column {col} of line {line} falls inside a character")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Line starts of one text, for offset <-> position conversion.
///
/// Built once per text version; it does not keep the text, so every method
/// that needs the characters takes the same text it was built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of the first character of each line; `line_starts[0] == 0`.
    /// `u32` halves the index of a large report; texts past 4 GiB are refused earlier.
    line_starts: Vec<u32>,
    /// Byte length of the text the index was built from.
    len: usize,
    /// Counts at every [`CHECKPOINT_BYTES`] bytes, so that a column is found
    /// in constant time however long its line (a minified report is one
    /// line); empty for ASCII text, whose columns are byte counts.
    checkpoints: Vec<UnitsBefore>,
}

/// How often [`LineIndex`] records its running counts: a column costs at
/// most two scans of this many bytes.
const CHECKPOINT_BYTES: usize = 1024;

/// UTF-16 units and characters in the text before a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct UnitsBefore {
    utf16: u32,
    chars: u32,
}

/// Characters and UTF-16 units that start in `bytes`, counted per byte (a
/// slice may begin or end inside a character): every byte but a
/// continuation byte starts one character; a 4-byte lead is two UTF-16 units.
fn units_in(bytes: &[u8]) -> UnitsBefore {
    // Counted in byte-wide lanes, at most 255 bytes at a time so that none
    // overflows: the compiler makes this a vector loop, ten times the speed
    // of a count per byte (a 40 MB report's index took 30 ms, now 3).
    let (mut chars, mut four_byte) = (0u32, 0u32);
    for part in bytes.chunks(255) {
        // `b as i8 >= -0x40`: not a continuation byte (0b10xxxxxx).
        chars += part
            .iter()
            .fold(0u8, |n, &b| n + u8::from(b as i8 >= -0x40)) as u32;
        four_byte += part.iter().fold(0u8, |n, &b| n + u8::from(b >= 0xF0)) as u32;
    }
    UnitsBefore {
        utf16: chars + four_byte,
        chars,
    }
}

/// From this size [`LineIndex::new_on`] builds a text's index in parts;
/// below it the jobs cost more than they save.
pub const INDEX_IN_PARTS_FROM: usize = 1 << 20;

/// What a part of a text adds to its [`LineIndex`]: the lines that start
/// in it (after its first byte, but the text's first line), and, unless it
/// is ASCII, the units of each of its blocks (a part starts at a checkpoint).
struct Part {
    len: usize,
    line_starts: Vec<u32>,
    ascii: bool,
    blocks: Vec<UnitsBefore>,
}

impl Part {
    fn of(bytes: &[u8], range: Range<usize>) -> Part {
        let mut line_starts = Vec::new();
        if range.start == 0 {
            line_starts.push(0);
        }
        for i in memchr::memchr2_iter(b'\n', b'\r', &bytes[range.clone()]) {
            let i = range.start + i;
            // A `\r\n` pair ends one line, at its `\n`.
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                continue;
            }
            line_starts.push(i as u32 + 1);
        }
        let ascii = bytes[range.clone()].is_ascii();
        let blocks = match ascii {
            true => Vec::new(),
            false => (bytes[range.clone()].chunks(CHECKPOINT_BYTES))
                .map(units_in)
                .collect(),
        };
        Part {
            len: range.len(),
            line_starts,
            ascii,
            blocks,
        }
    }
}

/// The bytes a line index covers: offsets are u32, so past 4 GiB (which
/// parsing refuses) lines are not indexed.
fn indexed(text: &str) -> &[u8] {
    &text.as_bytes()[..text.len().min(u32::MAX as usize - 1)]
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = indexed(text);
        LineIndex::joined(text, bytes, vec![Part::of(bytes, 0..bytes.len())])
    }

    /// [`LineIndex::new`], built on `runner`, which has `threads` threads:
    /// in a part a thread from [`INDEX_IN_PARTS_FROM`] (a large report's
    /// index takes about 10 ms of one core), whole below it.
    pub fn new_on(text: &str, runner: &dyn RunAll, threads: usize) -> LineIndex {
        match threads > 1 && text.len() >= INDEX_IN_PARTS_FROM {
            true => LineIndex::in_parts(text, runner, threads),
            false => LineIndex::new(text),
        }
    }

    /// [`LineIndex::new`], built in `parts` parts as jobs of `runner`.
    fn in_parts(text: &str, runner: &dyn RunAll, parts: usize) -> LineIndex {
        let bytes = indexed(text);
        // Parts start at checkpoints, so that their blocks are the whole text's.
        let size = (bytes.len().div_ceil(parts.max(1)))
            .next_multiple_of(CHECKPOINT_BYTES)
            .max(CHECKPOINT_BYTES);
        let ranges: Vec<Range<usize>> = (0..bytes.len())
            .step_by(size)
            .map(|start| start..(start + size).min(bytes.len()))
            .collect();
        let mut built: Vec<Option<Part>> = ranges.iter().map(|_| None).collect();
        let jobs = (built.iter_mut().zip(ranges))
            .map(|(part, range)| {
                Box::new(move || *part = Some(Part::of(bytes, range))) as Box<dyn FnOnce() + Send>
            })
            .collect();
        runner.run_all(jobs);
        let parts = built
            .into_iter()
            .map(|part| part.expect("run_all runs every job"));
        LineIndex::joined(text, bytes, parts.collect())
    }

    /// The index of the parts of `bytes` (of `text`), in order.
    fn joined(text: &str, bytes: &[u8], mut parts: Vec<Part>) -> LineIndex {
        debug_assert_eq!(
            parts.iter().map(|part| part.len).sum::<usize>(),
            bytes.len()
        );
        let lines: usize = parts.iter().map(|part| part.line_starts.len()).sum();
        // The first part's lines, which start with the text's, then the others'.
        let mut line_starts = match parts.first_mut() {
            Some(first) => std::mem::take(&mut first.line_starts),
            None => vec![0],
        };
        line_starts.reserve(lines.saturating_sub(line_starts.len()));
        for part in parts.iter().skip(1) {
            line_starts.extend_from_slice(&part.line_starts);
        }
        let checkpoints = match parts.iter().all(|part| part.ascii) {
            true => Vec::new(),
            false => {
                let mut running = UnitsBefore { utf16: 0, chars: 0 };
                let mut checkpoints = Vec::with_capacity(bytes.len() / CHECKPOINT_BYTES + 2);
                checkpoints.push(running);
                for part in &parts {
                    let mut add = |here: UnitsBefore| {
                        running.utf16 += here.utf16;
                        running.chars += here.chars;
                        checkpoints.push(running);
                    };
                    match part.ascii {
                        // A unit per byte.
                        true => (0..part.len).step_by(CHECKPOINT_BYTES).for_each(|start| {
                            let block = (part.len - start).min(CHECKPOINT_BYTES) as u32;
                            add(UnitsBefore {
                                utf16: block,
                                chars: block,
                            });
                        }),
                        false => part.blocks.iter().copied().for_each(add),
                    }
                }
                checkpoints
            }
        };
        LineIndex {
            line_starts,
            len: text.len(),
            checkpoints,
        }
    }

    /// UTF-16 units and characters in `text[..offset]`, offset a character
    /// boundary; from the nearest checkpoint, so in constant time.
    fn units_before(&self, text: &str, offset: usize) -> UnitsBefore {
        if self.checkpoints.is_empty() {
            return UnitsBefore {
                utf16: offset as u32,
                chars: offset as u32,
            };
        }
        let block = offset / CHECKPOINT_BYTES;
        let base = self.checkpoints[block];
        let rest = units_in(&text.as_bytes()[block * CHECKPOINT_BYTES..offset]);
        UnitsBefore {
            utf16: base.utf16 + rest.utf16,
            chars: base.chars + rest.chars,
        }
    }

    /// The 1-based character column of `offset` on its line, as compilers
    /// show it; in constant time, like [`LineIndex::line_col`].
    pub fn char_column(&self, text: &str, offset: usize) -> usize {
        let (_, content, offset) = self.place(text, offset);
        let chars =
            self.units_before(text, offset).chars - self.units_before(text, content.start).chars;
        chars as usize + 1
    }

    /// The line of `offset`, that line's content and the offset moved back
    /// to a character boundary inside the content (not past the end, nor
    /// inside a `\r\n` pair).
    fn place(&self, text: &str, offset: usize) -> (usize, TextRange, usize) {
        debug_assert_eq!(text.len(), self.len, "LineIndex used with another text");
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .line_starts
            .partition_point(|&start| start as usize <= offset)
            - 1;
        let content = self.line_content(text, line);
        (line, content, offset.min(content.end))
    }

    pub fn line_count(&self) -> u32 {
        self.line_starts.len() as u32
    }

    /// Byte range of `line` (0-based, in range) without its line terminator.
    pub fn line_range(&self, text: &str, line: u32) -> TextRange {
        self.line_content(text, line as usize)
    }

    /// Byte range of `line` without its line terminator.
    fn line_content(&self, text: &str, line: usize) -> TextRange {
        let start = self.line_starts[line] as usize;
        let mut end = self
            .line_starts
            .get(line + 1)
            .map_or(self.len, |&s| s as usize);
        let bytes = text.as_bytes();
        if end > start && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        TextRange::new(start, end)
    }

    /// The position of a byte offset. An offset past the end, or inside a
    /// character or a `\r\n` pair, is moved back to the nearest boundary.
    pub fn line_col(&self, text: &str, offset: usize, encoding: Encoding) -> LineCol {
        let (line, content, offset) = self.place(text, offset);
        let col = match encoding {
            Encoding::Utf8 => offset - content.start,
            Encoding::Utf16 => {
                (self.units_before(text, offset).utf16
                    - self.units_before(text, content.start).utf16) as usize
            }
        };
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// The byte offset of a position, or why it does not name one.
    pub fn offset(
        &self,
        text: &str,
        pos: LineCol,
        encoding: Encoding,
    ) -> Result<usize, PositionError> {
        debug_assert_eq!(text.len(), self.len, "LineIndex used with another text");
        let line = pos.line as usize;
        if line >= self.line_starts.len() {
            return Err(PositionError::LineOutOfRange {
                line: pos.line,
                line_count: self.line_count(),
            });
        }
        let content = self.line_content(text, line);
        let line_text = &text[content.as_range()];
        let col = pos.col as usize;
        let inside = PositionError::InsideCharacter {
            line: pos.line,
            col: pos.col,
        };
        let past_end = |line_len: usize| PositionError::ColumnOutOfRange {
            line: pos.line,
            col: pos.col,
            line_len: line_len as u32,
        };
        match encoding {
            Encoding::Utf8 => {
                if col > line_text.len() {
                    return Err(past_end(line_text.len()));
                }
                if !line_text.is_char_boundary(col) {
                    return Err(inside);
                }
                Ok(content.start + col)
            }
            Encoding::Utf16 => {
                if line_text.is_ascii() {
                    return match col <= line_text.len() {
                        true => Ok(content.start + col),
                        false => Err(past_end(line_text.len())),
                    };
                }
                let mut units = 0;
                for (byte, ch) in line_text.char_indices() {
                    if units == col {
                        return Ok(content.start + byte);
                    }
                    units += ch.len_utf16();
                    if units > col {
                        return Err(inside);
                    }
                }
                match units == col {
                    true => Ok(content.end),
                    false => Err(past_end(units)),
                }
            }
        }
    }

    /// Like [`LineIndex::offset`], but a position past the end of its line
    /// means the line's end and a line past the last means the end of the
    /// text, as LSP asks of servers for out-of-range positions in requests.
    pub fn offset_clamped(&self, text: &str, pos: LineCol, encoding: Encoding) -> usize {
        match self.offset(text, pos, encoding) {
            Ok(offset) => offset,
            Err(PositionError::LineOutOfRange { .. }) => self.len,
            Err(PositionError::ColumnOutOfRange { .. }) => {
                self.line_content(text, pos.line as usize).end
            }
            Err(PositionError::InsideCharacter { .. }) => {
                // Round down to the character that holds the column.
                let content = self.line_content(text, pos.line as usize);
                let mut best = content.start;
                for (byte, _) in text[content.as_range()].char_indices() {
                    let start = content.start + byte;
                    if self.line_col(text, start, encoding).col > pos.col {
                        break;
                    }
                    best = start;
                }
                best
            }
        }
    }
}

#[cfg(test)]
mod compose_tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The composed edit, applied to the first text, gives the last one.
        #[test]
        fn composed_edits_do_what_the_edits_do(
            text in "[a-e]{0,40}",
            steps in prop::collection::vec((0.0..=1.0f64, 0usize..5, "[x-z]{0,4}"), 1..6),
        ) {
            let mut current = text.clone();
            let mut edits = Vec::new();
            for (at, len, insert) in steps {
                let start = (at * current.len() as f64) as usize;
                let end = (start + len).min(current.len());
                current.replace_range(start..end, &insert);
                edits.push(ByteEdit { range: TextRange::new(start, end), new_len: insert.len() });
            }
            let one = ByteEdit::compose(&edits).unwrap();
            let mut replayed = text.clone();
            let new_text = &current[one.range.start..one.range.start + one.new_len];
            replayed.replace_range(one.range.as_range(), new_text);
            prop_assert_eq!(replayed, current);
        }
    }
}

/// A document's text as the host reads it: its length, a piece, the whole.
pub trait SourceText {
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text of `range`, which lies on character boundaries.
    fn slice(&self, range: TextRange) -> String;

    fn whole(&self) -> String;

    /// The text's pieces in order, for comparing texts without copying them.
    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_>;

    /// The pieces from the last to the first.
    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_>;

    /// The byte at `offset`, which is inside the text.
    fn byte(&self, offset: usize) -> u8;
}

/// Whether `edits` (in order) span most of a text of `len` bytes: a client
/// that replaces the whole buffer sends one such change, and what it really
/// changed is better found by comparing the texts ([`changed_range`]).
pub fn spans_most_of(edits: &[ByteEdit], len: usize) -> bool {
    ByteEdit::compose(edits).is_some_and(|one| one.range.len().max(one.new_len) * 2 >= len.max(1))
}

/// The single edit that turns `old` into `new`: the bytes between their
/// common prefix and common suffix, both on character boundaries; None when
/// they are equal. Compares chunk by chunk, copying nothing.
pub fn changed_range<A: SourceText + ?Sized, B: SourceText + ?Sized>(
    old: &A,
    new: &B,
) -> Option<ByteEdit> {
    let prefix = common_len(old.chunks(), new.chunks(), false);
    if prefix == old.len() && prefix == new.len() {
        return None;
    }
    let most = old.len().min(new.len()) - prefix;
    let suffix = common_len(old.chunks_reversed(), new.chunks_reversed(), true).min(most);
    // Back to character boundaries: a UTF-8 continuation byte is 0b10xxxxxx.
    fn inside(text: &(impl SourceText + ?Sized), at: usize) -> bool {
        at < text.len() && text.byte(at) & 0xC0 == 0x80
    }
    let mut start = prefix;
    while inside(old, start) || inside(new, start) {
        start -= 1;
    }
    let (mut old_end, mut new_end) = (old.len() - suffix, new.len() - suffix);
    while inside(old, old_end) || inside(new, new_end) {
        old_end += 1;
        new_end += 1;
    }
    Some(ByteEdit {
        range: TextRange::new(start, old_end),
        new_len: new_end - start,
    })
}

/// How many leading bytes two chunk streams share (or trailing bytes, for
/// reversed streams with `from_end`).
fn common_len<'a>(
    mut a: impl Iterator<Item = &'a str>,
    mut b: impl Iterator<Item = &'a str>,
    from_end: bool,
) -> usize {
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    let mut same = 0;
    loop {
        if x.is_empty() {
            match a.next() {
                Some(next) => x = next.as_bytes(),
                None => return same,
            }
            continue;
        }
        if y.is_empty() {
            match b.next() {
                Some(next) => y = next.as_bytes(),
                None => return same,
            }
            continue;
        }
        let n = x.len().min(y.len());
        // The n bytes to compare: at the front, or at the back.
        let (xs, ys, rest_x, rest_y) = match from_end {
            false => (&x[..n], &y[..n], &x[n..], &y[n..]),
            true => (
                &x[x.len() - n..],
                &y[y.len() - n..],
                &x[..x.len() - n],
                &y[..y.len() - n],
            ),
        };
        let equal = match from_end {
            false => xs.iter().zip(ys).take_while(|(p, q)| p == q).count(),
            true => xs
                .iter()
                .rev()
                .zip(ys.iter().rev())
                .take_while(|(p, q)| p == q)
                .count(),
        };
        same += equal;
        if equal < n {
            return same;
        }
        (x, y) = (rest_x, rest_y);
    }
}

/// The text of a [`DocumentHost<String>`] (tests, the CLI): read as a `str`.
impl SourceText for String {
    fn len(&self) -> usize {
        str::len(self)
    }

    fn slice(&self, range: TextRange) -> String {
        self.as_str().slice(range)
    }

    fn whole(&self) -> String {
        self.clone()
    }

    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        self.as_str().chunks()
    }

    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        self.as_str().chunks_reversed()
    }

    fn byte(&self, offset: usize) -> u8 {
        self.as_bytes()[offset]
    }
}

/// The text of a report read from disk and shared with its analysis
/// (`host::analyze_file`), so that keeping it costs no second copy.
impl SourceText for std::sync::Arc<String> {
    fn len(&self) -> usize {
        str::len(self)
    }

    fn slice(&self, range: TextRange) -> String {
        self.as_str().slice(range)
    }

    fn whole(&self) -> String {
        String::clone(self)
    }

    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        self.as_str().chunks()
    }

    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        self.as_str().chunks_reversed()
    }

    fn byte(&self, offset: usize) -> u8 {
        self.as_bytes()[offset]
    }
}

/// A text the caller holds only for a moment (a whole new text from the
/// editor, compared with the kept one).
impl SourceText for str {
    fn len(&self) -> usize {
        str::len(self)
    }

    fn slice(&self, range: TextRange) -> String {
        self[range.as_range()].to_string()
    }

    fn whole(&self) -> String {
        self.to_string()
    }

    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(std::iter::once(self))
    }

    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        self.chunks()
    }

    fn byte(&self, offset: usize) -> u8 {
        self.as_bytes()[offset]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip_all(text: &str) {
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let pos = index.line_col(text, offset, encoding);
                let back = index.offset(text, pos, encoding).unwrap();
                // A `\r\n` pair is one line end: its `\n` maps to the `\r`.
                let expected = if offset > 0
                    && text[..offset].ends_with('\r')
                    && text[offset..].starts_with('\n')
                {
                    offset - 1
                } else {
                    offset
                };
                assert_eq!(
                    back, expected,
                    "{text:?} offset {offset} {encoding:?} {pos:?}"
                );
            }
        }
    }

    #[test]
    fn ascii_lines_with_every_line_end() {
        let text = "ab\ncd\r\nef\rgh";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(
            index.line_col(text, 4, Encoding::Utf16),
            LineCol { line: 1, col: 1 }
        );
        assert_eq!(
            index.line_col(text, 8, Encoding::Utf16),
            LineCol { line: 2, col: 1 }
        );
        assert_eq!(
            index.line_col(text, 11, Encoding::Utf16),
            LineCol { line: 3, col: 1 }
        );
        round_trip_all(text);
    }

    #[test]
    fn cjk_and_emoji_columns_differ_by_encoding() {
        // "路径" is 2 chars, 6 bytes, 2 UTF-16 units; "😀" is 4 bytes, 2 units.
        let text = "{\"路径\": \"😀x\"}";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(
            index.line_col(text, x, Encoding::Utf8),
            LineCol { line: 0, col: 16 }
        );
        assert_eq!(
            index.line_col(text, x, Encoding::Utf16),
            LineCol { line: 0, col: 10 }
        );
        round_trip_all(text);
    }

    #[test]
    fn unicode_line_separators_do_not_start_lines() {
        let text = "a\u{2028}b\u{85}c\nd";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 2);
        round_trip_all(text);
    }

    #[test]
    fn position_inside_a_surrogate_pair_is_an_error() {
        let text = "😀";
        let index = LineIndex::new(text);
        assert_eq!(
            index.offset(text, LineCol { line: 0, col: 1 }, Encoding::Utf16),
            Err(PositionError::InsideCharacter { line: 0, col: 1 })
        );
        assert_eq!(
            index.offset_clamped(text, LineCol { line: 0, col: 1 }, Encoding::Utf16),
            0
        );
    }

    #[test]
    fn out_of_range_positions_are_errors_and_clamp() {
        let text = "ab\r\ncd";
        let index = LineIndex::new(text);
        assert!(matches!(
            index.offset(text, LineCol { line: 0, col: 3 }, Encoding::Utf16),
            Err(PositionError::ColumnOutOfRange { line_len: 2, .. })
        ));
        assert!(matches!(
            index.offset(text, LineCol { line: 5, col: 0 }, Encoding::Utf8),
            Err(PositionError::LineOutOfRange { line_count: 2, .. })
        ));
        assert_eq!(
            index.offset_clamped(text, LineCol { line: 0, col: 9 }, Encoding::Utf16),
            2
        );
        assert_eq!(
            index.offset_clamped(text, LineCol { line: 9, col: 0 }, Encoding::Utf16),
            6
        );
    }

    #[test]
    fn columns_on_a_long_line_cross_checkpoints() {
        // Wide characters on both sides of several checkpoints.
        let text: String = "aé路😀".repeat(CHECKPOINT_BYTES / 2) + "\nx😀y";
        let index = LineIndex::new(&text);
        for (offset, _) in text.char_indices().step_by(7) {
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let prefix = &text[line_start..offset];
            let pos = index.line_col(&text, offset, Encoding::Utf16);
            assert_eq!(pos.col as usize, prefix.encode_utf16().count(), "{offset}");
            assert_eq!(index.char_column(&text, offset), prefix.chars().count() + 1);
        }
        round_trip_all(&text[..300]);
    }

    /// Makes whole blocks of ASCII among the others.
    const LONG_ASCII: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    /// The index built in parts, by every runner: the index built whole.
    fn assert_built_in_parts(text: &str, parts: usize) {
        use crate::fixture::{Backwards, InOrder, OnThreads};
        let whole = LineIndex::new(text);
        for runner in [&InOrder as &dyn RunAll, &Backwards, &OnThreads] {
            assert_eq!(
                LineIndex::in_parts(text, runner, parts),
                whole,
                "{parts} parts"
            );
        }
    }

    #[test]
    fn an_index_built_in_parts_is_the_index_built_whole() {
        // A `\r\n` across the parts' boundary ends one line; a lone `\r` there ends one too.
        let mut text = "a".repeat(2048);
        text.replace_range(1023..1025, "\r\n");
        assert_built_in_parts(&text, 2);
        text.replace_range(1024..1025, "b");
        assert_built_in_parts(&text, 2);
        // Wide characters only in the second part, only in the first, and cut by a boundary.
        let ascii = "x\n".repeat(600);
        for text in [
            format!("{ascii}中😀\r\n中"),
            format!("中😀\n{ascii}"),
            format!("{}中{ascii}", "y".repeat(1023)),
            String::new(),
            "\n".to_string(),
        ] {
            for parts in [1, 2, 3, 8] {
                assert_built_in_parts(&text, parts);
            }
        }
        // From a megabyte, `new_on` builds a part a thread: the same index.
        let large = format!("{}中\r\n", "x\n".repeat(INDEX_IN_PARTS_FROM / 2));
        let on_threads = LineIndex::new_on(&large, &crate::fixture::OnThreads, 2);
        assert_eq!(on_threads, LineIndex::new(&large));
    }

    proptest::proptest! {
        /// Any text, in any number of parts: the index built whole.
        #[test]
        fn any_text_in_parts_is_indexed_as_whole(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![LONG_ASCII, "a", "\n", "\r", "\r\n", "é", "中", "😀", "\u{2028}"]),
                0..1500,
            ),
            parts in 0usize..9,
        ) {
            assert_built_in_parts(&pieces.concat(), parts);
        }

        /// The counts in lanes are the counts per byte, on any bytes (a
        /// slice may cut a character), across the lanes' 255-byte parts.
        #[test]
        fn units_are_counted_per_byte(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..1200)) {
            let chars = bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32;
            let four_byte = bytes.iter().filter(|&&b| b >= 0xF0).count() as u32;
            proptest::prop_assert_eq!(units_in(&bytes), UnitsBefore { utf16: chars + four_byte, chars });
        }
    }

    #[test]
    fn units_are_counted_in_every_part_of_a_long_run() {
        // 255 bytes fill a lane: runs of every kind of byte longer than one.
        for byte in [b'a', 0x80, 0xC3, 0xE8, 0xF0, 0xFF] {
            for len in [254, 255, 256, 510, 511, 1024] {
                let units = units_in(&vec![byte; len]);
                let starts = match byte & 0xC0 == 0x80 {
                    true => 0,
                    false => len as u32,
                };
                let wide = if byte >= 0xF0 { len as u32 } else { 0 };
                assert_eq!(
                    units,
                    UnitsBefore {
                        utf16: starts + wide,
                        chars: starts
                    },
                    "{byte:#x} x{len}"
                );
            }
        }
    }

    #[test]
    fn empty_text_has_one_line() {
        let index = LineIndex::new("");
        assert_eq!(index.line_count(), 1);
        assert_eq!(
            index.offset("", LineCol { line: 0, col: 0 }, Encoding::Utf16),
            Ok(0)
        );
    }

    #[test]
    fn the_changed_range_of_two_texts_lies_on_character_boundaries() {
        let edit = |a: &str, b: &str| changed_range(&a.to_string(), &b.to_string());
        assert_eq!(edit("same", "same"), None);
        let e = edit("a路b", "a跑b").unwrap();
        assert_eq!((e.range, e.new_len), (TextRange::new(1, 4), 3));
        let e = edit("xx", "xyx").unwrap();
        assert_eq!((e.range, e.new_len), (TextRange::new(1, 1), 1));
        let e = edit("😀😀", "😀").unwrap();
        assert_eq!((e.range, e.new_len), (TextRange::new(4, 8), 0));
        let e = edit("", "{}").unwrap();
        assert_eq!((e.range, e.new_len), (TextRange::new(0, 0), 2));
    }
}
