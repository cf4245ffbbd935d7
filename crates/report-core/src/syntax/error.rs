//! Syntax errors, and the limits of what the parser accepts and reports.
//! How many errors are reported per container, and what that guarantees, is
//! the recovery's (the `recovery` module).

use crate::text::TextRange;

/// Deepest nesting accepted. Nothing recurses over the tree's depth except
/// `validate::same_json`, which this bounds; reports are a few levels deep.
pub const MAX_NESTING_DEPTH: usize = 512;

/// Syntax errors reported at most directly inside one array or object (or
/// around the root), so that one break cannot cascade through its siblings.
/// After that many, the parser goes on recovering inside that container as
/// before, without saying so.
pub const MAX_ERRORS_PER_CONTAINER: usize = 3;

/// A reason the text is not one strict JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// The text has no value at all (empty or only whitespace).
    Empty,
    /// What the scanner or our grammar found wrong, as a clause.
    Invalid(String),
    /// Arrays and objects nest deeper than [`MAX_NESTING_DEPTH`].
    NestingTooDeep,
    /// A key repeated in one object; `first` is the range of its first occurrence.
    DuplicateKey { key: String, first: TextRange },
    /// The text is longer than positions can address (4 GiB).
    TooLarge,
}

/// A syntax error: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    pub range: TextRange,
}

/// Syntax errors reported at most for one text; parsing goes on quietly after them.
pub const MAX_SYNTAX_ERRORS: usize = 100;

/// `start..end` within `text` and widened to character boundaries: where an
/// error is reported, whatever offsets the recovery worked out.
pub(super) fn clamp(text: &str, start: usize, end: usize) -> TextRange {
    let mut end = end.min(text.len());
    let mut start = start.min(end);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    TextRange::new(start, end)
}
