//! The only place that knows both the core's byte ranges and the protocol's
//! positions: conversions between them, and core results to LSP types.

use tower_lsp_server::ls_types as lsp;

use std::cell::RefCell;

use ropey::Rope;

use super::document::{self, ByteEdit};
use report_core::diagnostic::{Diagnostic, Severity};
use report_core::text::{Encoding, LineCol, LineIndex, TextRange};

/// A document's text and the negotiated encoding. An open document's
/// conversions go through its rope (logarithmic in the text's size), so
/// nothing is indexed per change; with a cache, positions converted before
/// are reused. A text held whole (a report read from disk) is converted
/// through its line starts, a tenth of a rope's memory.
pub struct Positions<'a> {
    pub lines: Lines<'a>,
    pub encoding: Encoding,
    pub cache: Option<&'a PositionCache>,
}

/// What [`Positions`] finds lines in.
#[derive(Clone, Copy)]
pub enum Lines<'a> {
    Rope(&'a Rope),
    Indexed(&'a str, &'a LineIndex),
}

impl Positions<'_> {
    pub fn new(rope: &Rope, encoding: Encoding) -> Positions<'_> {
        Positions {
            lines: Lines::Rope(rope),
            encoding,
            cache: None,
        }
    }

    /// Positions in `text`, whose line starts `index` holds.
    pub fn indexed<'a>(text: &'a str, index: &'a LineIndex, encoding: Encoding) -> Positions<'a> {
        Positions {
            lines: Lines::Indexed(text, index),
            encoding,
            cache: None,
        }
    }

    pub fn position(&self, offset: usize) -> lsp::Position {
        let cached = self.cache.and_then(|c| c.get(offset));
        let position = cached.unwrap_or_else(|| {
            let p = match self.lines {
                Lines::Rope(rope) => document::line_col(rope, offset, self.encoding),
                Lines::Indexed(text, index) => index.line_col(text, offset, self.encoding),
            };
            lsp::Position::new(p.line, p.col)
        });
        if let Some(cache) = self.cache {
            cache.used.borrow_mut().push((offset, position));
        }
        position
    }

    pub fn lsp_range(&self, range: TextRange) -> lsp::Range {
        lsp::Range::new(self.position(range.start), self.position(range.end))
    }

    /// The offset of a position in a request, clamped into the text as LSP asks.
    pub fn offset(&self, position: lsp::Position) -> usize {
        let at = line_col(position);
        match self.lines {
            Lines::Rope(rope) => document::offset_clamped(rope, at, self.encoding),
            Lines::Indexed(text, index) => index.offset_clamped(text, at, self.encoding),
        }
    }

    pub fn range(&self, range: lsp::Range) -> TextRange {
        let (start, end) = (self.offset(range.start), self.offset(range.end));
        TextRange::new(start.min(end), start.max(end))
    }

    /// `d` in protocol form. Its related places go to `relatedInformation`
    /// when the client reads it (`related_information`), or else are told at
    /// the end of the message, a line each, so that nothing is lost.
    pub fn diagnostic(
        &self,
        uri: &lsp::Uri,
        d: &Diagnostic,
        related_information: bool,
    ) -> lsp::Diagnostic {
        let related = d
            .related
            .iter()
            .map(|r| lsp::DiagnosticRelatedInformation {
                location: lsp::Location::new(uri.clone(), self.lsp_range(r.range)),
                message: r.message.clone(),
            })
            .collect::<Vec<_>>();
        let (message, related) = match related_information {
            true => (d.message.clone(), related),
            false => {
                let mut message = d.message.clone();
                for r in &related {
                    let line = r.location.range.start.line + 1;
                    message.push_str(&format!("\nline {line}: {}", r.message));
                }
                (message, Vec::new())
            }
        };
        lsp::Diagnostic {
            range: self.lsp_range(d.range),
            severity: Some(severity(d.severity)),
            code: Some(lsp::NumberOrString::String(d.code.as_str().to_string())),
            // No link: the documentation is `report-lsp explain CODE`, and a
            // link to a file of the build machine would be dead elsewhere.
            code_description: None,
            source: Some("report-lsp".to_string()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data: None,
        }
    }

    pub fn text_edit(&self, edit: &report_core::fix::TextEdit) -> lsp::TextEdit {
        lsp::TextEdit::new(self.lsp_range(edit.range), edit.new_text.clone())
    }
}

/// A hover's words as the client reads them: Markdown where it announced
/// it, else the form of the first protocol, a plain string.
pub fn hover_contents(markdown: String, client_reads_markdown: bool) -> lsp::HoverContents {
    match client_reads_markdown {
        true => lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: markdown,
        }),
        false => lsp::HoverContents::Scalar(lsp::MarkedString::String(plain_text(&markdown))),
    }
}

/// The Markdown the core writes (bold, code spans and blocks, tables), read
/// as plain text: the marks dropped, a table's cells apart by two spaces.
/// What a code block holds (a trace, an edit's diff) stays as it is.
pub fn plain_text(markdown: &str) -> String {
    let mut lines = Vec::new();
    let mut in_code = false;
    for line in markdown.split('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            lines.push(line.to_string());
            continue;
        }
        let table_rule =
            trimmed.starts_with('|') && trimmed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
        if table_rule {
            continue;
        }
        let line = match trimmed.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
            Some(cells) => cells
                .split('|')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join("  "),
            None => line.to_string(),
        };
        lines.push(line.replace("**", "").replace('`', ""));
    }
    lines.join("\n")
}

/// The positions of the offsets a document's last publication used, carried
/// over edits that leave them in place: a keystroke that publishes a
/// thousand diagnostics converts only those whose position it moved.
#[derive(Default)]
pub struct PositionCache {
    /// Sorted by offset.
    known: Vec<(usize, lsp::Position)>,
    used: RefCell<Vec<(usize, lsp::Position)>>,
}

impl PositionCache {
    fn get(&self, offset: usize) -> Option<lsp::Position> {
        let i = self.known.binary_search_by_key(&offset, |e| e.0).ok()?;
        Some(self.known[i].1)
    }

    /// Keeps the positions used since the last call, forgetting the rest.
    pub fn keep_used(&mut self) {
        let mut used = std::mem::take(self.used.get_mut());
        used.sort_unstable_by_key(|e| e.0);
        used.dedup_by_key(|e| e.0);
        self.known = used;
    }

    /// Carries the positions over an edit of `old` (replacing `range` by
    /// `new_len` bytes) that gave `new`: those before the edit stay, those on
    /// a later line than its end move by the lines it added or removed, and
    /// the rest (on the lines it touched) are forgotten.
    #[cfg(test)]
    pub fn shift(&mut self, old: &Rope, new: &Rope, range: TextRange, new_len: usize) {
        let edit = ByteEdit { range, new_len };
        let old_end_line = PositionCache::old_lines(old, edit);
        self.shift_lines(new, range, new_len, old_end_line);
    }

    /// What [`PositionCache::shift_lines`] needs of the text before `edit`:
    /// the line its range ends on.
    pub fn old_lines(old: &Rope, edit: ByteEdit) -> u32 {
        old.byte_to_line(edit.range.end.min(old.len_bytes())) as u32
    }

    /// [`PositionCache::shift`], given the line the edit ended on in the old text.
    pub fn shift_lines(&mut self, new: &Rope, range: TextRange, new_len: usize, end_line: u32) {
        let new_end_line = new.byte_to_line((range.start + new_len).min(new.len_bytes())) as u32;
        let delta = new_len as isize - range.len() as isize;
        self.known.retain_mut(|(offset, position)| {
            if *offset < range.start {
                return true;
            }
            if *offset < range.end || position.line <= end_line {
                return false;
            }
            *offset = offset.saturating_add_signed(delta);
            position.line = position.line - end_line + new_end_line;
            true
        });
    }

    pub fn clear(&mut self) {
        self.known.clear();
    }
}

pub fn line_col(position: lsp::Position) -> LineCol {
    LineCol {
        line: position.line,
        col: position.character,
    }
}

fn severity(severity: Severity) -> lsp::DiagnosticSeverity {
    match severity {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    }
}

pub fn encoding_kind(encoding: Encoding) -> lsp::PositionEncodingKind {
    match encoding {
        Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
        Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
    }
}

/// A filesystem-like path for glob matching: the file path of a `file:` URI, else the URI's path.
pub fn uri_path(uri: &lsp::Uri) -> String {
    match uri.to_file_path() {
        Some(path) => path.to_string_lossy().replace('\\', "/"),
        None => uri.path().as_str().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const PIECES: &[&str] = &["a", "é", "😀", "\n", "\r\n", "\r", " ", "路"];

    fn text_of(pieces: &[usize]) -> String {
        pieces.iter().map(|&i| PIECES[i]).collect()
    }

    #[test]
    fn markdown_reads_as_plain_text_without_its_marks() {
        let markdown = "**safety_tier** of `entries[2]`\n\n```\nop_type=generative\n```\n\n| category | raw tokens |\n|---|---:|\n| **docs** | **1 200** |\n\n---\n\nDerived: `confirm`";
        assert_eq!(
            plain_text(markdown),
            "safety_tier of entries[2]\n\nop_type=generative\n\ncategory  raw tokens\ndocs  1 200\n\n---\n\nDerived: confirm"
        );
        // A code block's lines are kept: a diff of a table with bold text in it.
        let diff = "**Edit preview**\n\n```diff\n |---|\n-| a | b |\n+**x** `y`\n```";
        assert_eq!(
            plain_text(diff),
            "Edit preview\n\n |---|\n-| a | b |\n+**x** `y`"
        );
    }

    /// Positions carried over an edit equal those converted afresh: `before`
    /// and `inserted` are pieces, `at` a fraction of the text, `removed`
    /// characters.
    fn shifted_positions_equal_fresh(
        before: &[usize],
        inserted: &[usize],
        at: f64,
        removed: usize,
        utf8: bool,
    ) -> Result<(), TestCaseError> {
        let encoding = if utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        let old_text = text_of(before);
        let old = Rope::from_str(&old_text);
        let boundaries: Vec<usize> = (0..=old_text.len())
            .filter(|&o| old_text.is_char_boundary(o))
            .collect();
        let start =
            boundaries[((at * (boundaries.len() - 1) as f64) as usize).min(boundaries.len() - 1)];
        let end = *boundaries
            .iter()
            .filter(|&&b| b >= start)
            .nth(removed)
            .unwrap_or(&old_text.len());
        let inserted = text_of(inserted);
        let mut new_text = old_text.clone();
        new_text.replace_range(start..end, &inserted);
        let new = Rope::from_str(&new_text);

        let mut cache = PositionCache::default();
        let positions = Positions {
            lines: Lines::Rope(&old),
            encoding,
            cache: Some(&cache),
        };
        for &offset in &boundaries {
            positions.position(offset);
        }
        cache.keep_used();
        cache.shift(&old, &new, TextRange::new(start, end), inserted.len());
        let fresh = Positions::new(&new, encoding);
        for &(offset, position) in &cache.known {
            prop_assert_eq!(
                position,
                fresh.position(offset),
                "offset {} of {:?}",
                offset,
                new_text
            );
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn shifted_positions_equal_fresh_ones(
            before in prop::collection::vec(0..PIECES.len(), 0..40),
            inserted in prop::collection::vec(0..PIECES.len(), 0..6),
            at in 0.0..=1.0f64,
            removed in 0usize..6,
            utf8 in any::<bool>(),
        ) {
            shifted_positions_equal_fresh(&before, &inserted, at, removed, utf8)?;
        }
    }

    proptest! {
        /// A text held whole converts through its line starts exactly as an
        /// open one does through its rope: every offset (inside a character,
        /// between `\r` and `\n`, past the end) and every position, in range
        /// or not (clamped), in both encodings.
        #[test]
        fn line_starts_convert_as_the_rope_does(
            pieces in prop::collection::vec(0..PIECES.len(), 0..40),
            utf8 in any::<bool>(),
        ) {
            let text = text_of(&pieces);
            let encoding = if utf8 { Encoding::Utf8 } else { Encoding::Utf16 };
            let rope = Rope::from_str(&text);
            let index = LineIndex::new(&text);
            let (by_rope, by_index) = (Positions::new(&rope, encoding), Positions::indexed(&text, &index, encoding));
            for offset in 0..=text.len() + 1 {
                prop_assert_eq!(by_rope.position(offset), by_index.position(offset), "offset {} of {:?}", offset, text);
            }
            let lines = rope.len_lines() as u32;
            for line in 0..=lines {
                for character in 0..=12 {
                    let at = lsp::Position::new(line, character);
                    prop_assert_eq!(by_rope.offset(at), by_index.offset(at), "{:?} in {:?}", at, text);
                }
            }
        }
    }

    /// The cases proptest once shrank a failure to, as it printed them. A
    /// seed of proptest-regressions/ replays another case once the strategy
    /// changes; the case itself does not.
    #[test]
    fn the_saved_failures_pass() {
        shifted_positions_equal_fresh(&[0, 6, 0, 0, 0, 0, 0, 0, 0], &[], 0.0, 1, false).unwrap();
    }
}
