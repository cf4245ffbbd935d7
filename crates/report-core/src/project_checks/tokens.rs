//! Check 8's spans: which text of which file `token_estimate.raw_tokens`
//! claims to count. The caller tokenizes them (the core holds no
//! tokenizer) and hands the counts back as [`TokenCounts`].

use std::collections::HashMap;

use crate::syntax::Node;

/// The span of one file whose tokens `raw_tokens` claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenSpan {
    /// A `delete` or `extract-then-delete` removes the whole file.
    WholeFile,
    /// The exact edit's anchored lines, 1-based and inclusive.
    Lines(u64, u64),
}

impl std::fmt::Display for TokenSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenSpan::WholeFile => f.write_str("the whole file"),
            TokenSpan::Lines(start, end) => write!(f, "lines {start}-{end}"),
        }
    }
}

/// The recounts, as the caller made them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TokenCounts {
    /// The tokenizer's encoding, as shown to people (`o200k_base`).
    pub encoding: String,
    /// How far apart, as a fraction of the recount, the recorded count may be.
    pub tolerance: f64,
    /// Per path as the report writes it and span: the count, or why there is none.
    pub counts: HashMap<(String, TokenSpan), Result<u64, String>>,
}

impl TokenCounts {
    /// Whether `recorded` is further from `counted` than the tolerance allows.
    pub fn differs(&self, recorded: u64, counted: u64) -> bool {
        recorded.abs_diff(counted) as f64 > self.tolerance * counted as f64
    }
}

/// The path and span `entry`'s `raw_tokens` counts: the anchored lines of
/// its exact edit, or the whole file for a delete kind. None when there is
/// nothing to recount: no exact edit (a generative op's reduction is the
/// model's), an `insert-frontmatter` (it removes nothing), a folder, or no
/// `raw_tokens` at all.
pub fn token_span(entry: Node<'_>) -> Option<(&str, TokenSpan)> {
    entry.lookup("/token_estimate/raw_tokens")?;
    let path = entry.get("path")?.as_str()?;
    if path.ends_with('/') {
        return None;
    }
    let edit = entry.get("exact_edit")?;
    match edit.get("kind")?.as_str()? {
        "delete" | "extract-then-delete" => Some((path, TokenSpan::WholeFile)),
        "insert-frontmatter" => None,
        _ => {
            let (start, end, _) = super::checks::anchor_of(edit)?;
            Some((path, TokenSpan::Lines(start, end)))
        }
    }
}

/// The text of `span` in `text`: the whole text, or lines `start..=end`
/// (counted as `str::lines` does) as one slice, their inner line breaks
/// kept and the last one left off. None when the lines pass the end.
pub fn span_text(text: &str, span: TokenSpan) -> Option<&str> {
    let TokenSpan::Lines(start, end) = span else {
        return Some(text);
    };
    let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
    if start == 0 || end < start {
        return None;
    }
    let mut from = None;
    let mut at = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if index + 1 == start {
            from = Some(at);
        }
        if index + 1 == end {
            let body = line.strip_suffix('\n').unwrap_or(line);
            let body = body.strip_suffix('\r').unwrap_or(body);
            return Some(&text[from?..at + body.len()]);
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_the_anchored_lines_as_str_lines_counts_them() {
        let text = "one\r\ntwo\nthree\n";
        assert_eq!(span_text(text, TokenSpan::Lines(1, 1)), Some("one"));
        assert_eq!(span_text(text, TokenSpan::Lines(2, 3)), Some("two\nthree"));
        assert_eq!(span_text(text, TokenSpan::Lines(1, 2)), Some("one\r\ntwo"));
        assert_eq!(span_text(text, TokenSpan::Lines(3, 4)), None);
        assert_eq!(span_text(text, TokenSpan::Lines(0, 1)), None);
        assert_eq!(span_text(text, TokenSpan::WholeFile), Some(text));
        // No final newline: the last line is still a line.
        assert_eq!(span_text("a\nb", TokenSpan::Lines(2, 2)), Some("b"));
        // Agrees with the anchored lines of the other checks.
        let text = "α\n漢字\r\n😀 x\n";
        for (s, e) in [(1, 1), (1, 3), (2, 3), (3, 3)] {
            let joined = super::super::anchored_lines(text, s, e).unwrap();
            let span = span_text(text, TokenSpan::Lines(s, e)).unwrap();
            assert_eq!(span.lines().collect::<Vec<_>>(), joined);
        }
    }

    #[test]
    fn the_tolerance_is_a_fraction_of_the_recount() {
        let counts = TokenCounts {
            tolerance: 0.1,
            ..Default::default()
        };
        assert!(!counts.differs(110, 100));
        assert!(counts.differs(111, 100));
        assert!(counts.differs(89, 100));
        assert!(!counts.differs(0, 0));
        assert!(counts.differs(1, 0));
    }

    #[test]
    fn which_entries_are_recounted() {
        let report = crate::analyze(
            r#"{"entries": [
 {"path": "a.md", "token_estimate": {"raw_tokens": 3}, "exact_edit": {"kind": "delete-range", "anchor": {"start_line": 2, "end_line": 4}}},
 {"path": "b.md", "token_estimate": {"raw_tokens": 3}, "exact_edit": {"kind": "delete"}},
 {"path": "c.md", "token_estimate": {"raw_tokens": 3}, "exact_edit": {"kind": "insert-frontmatter"}},
 {"path": "d.md", "token_estimate": {"raw_tokens": 3}},
 {"path": "e/", "token_estimate": {"raw_tokens": 3}, "exact_edit": {"kind": "delete"}},
 {"path": "f.md", "exact_edit": {"kind": "delete"}}]}"#,
        );
        assert_eq!(
            super::super::request(&report).token_spans,
            vec![
                ("a.md".to_string(), TokenSpan::Lines(2, 4)),
                ("b.md".to_string(), TokenSpan::WholeFile)
            ]
        );
    }
}
