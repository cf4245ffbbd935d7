//! Fixes as text edits over byte ranges, and applying them.

use crate::text::TextRange;

/// Replace `range` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

impl TextEdit {
    pub fn replace(range: TextRange, new_text: impl Into<String>) -> TextEdit {
        TextEdit {
            range,
            new_text: new_text.into(),
        }
    }

    pub fn insert(offset: usize, new_text: impl Into<String>) -> TextEdit {
        TextEdit::replace(TextRange::empty(offset), new_text)
    }

    pub fn delete(range: TextRange) -> TextEdit {
        TextEdit::replace(range, "")
    }
}

/// A quick fix: a titled set of edits that do not overlap.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fix {
    /// Imperative and specific: `Set safety_tier to "confirm" (derived)`.
    pub title: String,
    pub edits: Vec<TextEdit>,
    /// The one obvious fix for its diagnostic, which editors may apply on their own.
    pub preferred: bool,
}

/// Why edits could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyError {
    OutOfBounds(TextRange),
    NotOnCharBoundary(TextRange),
    Overlapping(TextRange, TextRange),
}

/// Applies non-overlapping edits to `text`; edits may come in any order.
/// Two insertions at one offset keep their given order.
pub fn apply(text: &str, edits: &[TextEdit]) -> Result<String, ApplyError> {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    for edit in &sorted {
        if edit.range.end > text.len() {
            return Err(ApplyError::OutOfBounds(edit.range));
        }
        if !text.is_char_boundary(edit.range.start) || !text.is_char_boundary(edit.range.end) {
            return Err(ApplyError::NotOnCharBoundary(edit.range));
        }
    }
    for pair in sorted.windows(2) {
        if pair[0].range.end > pair[1].range.start {
            return Err(ApplyError::Overlapping(pair[0].range, pair[1].range));
        }
    }
    let mut out =
        String::with_capacity(text.len() + sorted.iter().map(|e| e.new_text.len()).sum::<usize>());
    let mut cursor = 0;
    for edit in sorted {
        out.push_str(&text[cursor..edit.range.start]);
        out.push_str(&edit.new_text);
        cursor = edit.range.end;
    }
    out.push_str(&text[cursor..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_edits_in_any_order() {
        let edits = [
            TextEdit::replace(TextRange::new(4, 5), "X"),
            TextEdit::insert(0, ">"),
            TextEdit::delete(TextRange::new(1, 2)),
        ];
        assert_eq!(apply("abcdef", &edits).unwrap(), ">acdXf");
    }

    #[test]
    fn rejects_overlaps_and_bad_ranges() {
        let overlapping = [
            TextEdit::replace(TextRange::new(0, 3), ""),
            TextEdit::replace(TextRange::new(2, 4), ""),
        ];
        assert!(matches!(
            apply("abcdef", &overlapping),
            Err(ApplyError::Overlapping(..))
        ));
        assert!(matches!(
            apply("ab", &[TextEdit::delete(TextRange::new(1, 9))]),
            Err(ApplyError::OutOfBounds(_))
        ));
        assert!(matches!(
            apply("é", &[TextEdit::delete(TextRange::new(0, 1))]),
            Err(ApplyError::NotOnCharBoundary(_))
        ));
    }
}
