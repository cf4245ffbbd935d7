//! One entry's text parsed as it parses in its report. A recovering parser
//! decides what a stray `]` or `}` means from the containers around it, so
//! an entry's text alone can parse otherwise than in place: it is parsed
//! inside the same two containers a report gives it (an object, then the
//! `entries` array), followed by a line break as entries are. When the
//! entry stays one complete, braced object there, with every syntax error
//! inside it, the whole report parses with that object in place and the
//! rest as before; that is what lets one entry be checked on its own.
//!
//! An entry whose `}` is missing before the next entry (`{"path": "a.md",`
//! then `{`) is closed by the parser where its last value ends, and the next
//! entry's `{` starts the array's next item: the parser stands there as it
//! does after any entry and its comma. So such an entry is parsed in place
//! too, from its text up to the next entry's and that entry's text
//! ([`EntryText::parse_unclosed`]), and the rest of the report parses as
//! before. The last entry's missing `}` is closed the same way by the
//! array's `]`, which then closes the array ([`EntryText::parse_unclosed_last`]).
//! These are the recovery's rules, named in [`syntax::recovery`].

use std::sync::Arc;

use crate::syntax::{self, Node, Parse, Value, recovery};
use crate::text::{Shift, TextRange};

const BEFORE: &str = "{\"entries\":[";
const AFTER: &str = "\n]}";
/// What follows an entry that is not the last: a comma and the next entry.
const AFTER_ANOTHER: &str = ",\n{}\n]}";

/// Whether a syntax error at `error` belongs to the entry at `entry`: it
/// starts after the opening brace and before the end. One at either edge
/// (a missing comma before or after the entry) is between entries.
pub fn holds(entry: TextRange, error: TextRange) -> bool {
    entry.start < error.start && error.start < entry.end && error.end <= entry.end
}

/// An entry's text parsed in place: the parse of the text in its two
/// containers, and where the entry's object lies in it.
pub struct EntryText {
    text: Arc<String>,
    parse: Parse,
    /// The entry's range in the parsed text: `BEFORE.len()` on.
    range: TextRange,
}

/// The range of the first entry of `parse` (of `text`), when it is an
/// object closed where its last value ends, with every syntax error inside
/// it (or, at the array's end, up to the `]` that closed it), and what
/// follows at `region_end` is the second entry, `next_len` long, whole and
/// unbroken, or (None) the `]` of the array.
fn unclosed_entry(
    text: &str,
    parse: &Parse,
    region_end: usize,
    next_len: Option<usize>,
) -> Option<TextRange> {
    let root = parse.root()?;
    let entries = root.get("entries")?;
    let items: Vec<Node<'_>> = entries.items()?.collect();
    let (item, then_as_before, errors_end) = match (next_len, &items[..]) {
        (Some(next_len), &[item, following]) => {
            let next_whole = matches!(following.value(), Value::Object)
                && following.range() == TextRange::new(region_end, region_end + next_len)
                && !following.is_broken()
                && !following.is_incomplete();
            (item, next_whole, item.range().end)
        }
        // The mismatched `]` is reported from the entry's last value to it.
        (None, &[item]) => (item, entries.range().end == region_end + 1, region_end + 1),
        _ => return None,
    };
    let range = item.range();
    let unclosed = matches!(item.value(), Value::Object)
        && range.start == BEFORE.len()
        && range.end <= region_end
        && item.is_broken()
        && !item.is_incomplete()
        && !closed_by_its_brace(text, item)
        && !root.is_incomplete();
    let errors_inside = parse
        .errors
        .iter()
        .all(|e| range.start < e.range.start && e.range.end <= errors_end);
    (unclosed && then_as_before && errors_inside).then_some(range)
}

/// Whether an entry parsed at `range` ended at its own closing brace rather
/// than where its last value ends (its `}` missing).
fn closed_by_its_brace(text: &str, item: Node<'_>) -> bool {
    let range = item.range();
    let last_value_end = item
        .members()
        .and_then(|members| members.last())
        .map_or(range.start + 1, |member| member.value.range().end);
    range.len() >= 2 && text.as_bytes()[range.end - 1] == b'}' && last_value_end < range.end
}

impl EntryText {
    /// Parses `entry`, one entry object's text. None unless it parses as one
    /// complete object with its own braces, every syntax error inside it.
    pub fn parse(entry: &str) -> Option<EntryText> {
        if !entry.starts_with('{') || !entry.ends_with('}') {
            return None;
        }
        let text = Arc::new(format!("{BEFORE}{entry}{AFTER}"));
        let range = TextRange::new(BEFORE.len(), BEFORE.len() + entry.len());
        let parse = syntax::parse_shared(text.clone());
        let parsed = EntryText { text, parse, range };
        let item = parsed.item()?;
        let one = parsed.parse.root()?.get("entries")?.items()?.count() == 1;
        // At the limit of errors for one object, the parser reports no more
        // in it: a broken one may hide that it closed before the next entry
        // (found by review). One unbroken (repeated keys) had no such error.
        let reported_all =
            !item.is_broken() || recovery::every_error_reported(parsed.parse.errors.len());
        let alone = one
            && reported_all
            && matches!(item.value(), Value::Object)
            && item.range() == range
            && !item.is_incomplete()
            && parsed.parse.errors.iter().all(|e| holds(range, e.range));
        // With errors, the recovery at its end may depend on what follows
        // (a string left open at its last line break, say): it must parse
        // the same before the next entry as before the array's end.
        let same_before_another = || {
            let other = syntax::parse_shared(Arc::new(format!("{BEFORE}{entry}{AFTER_ANOTHER}")));
            let items: Option<Vec<Node<'_>>> = other
                .root()
                .and_then(|root| root.get("entries"))
                .and_then(|entries| entries.items())
                .map(Iterator::collect);
            other.errors == parsed.parse.errors
                && items.is_some_and(|items| {
                    items.len() == 2 && items[0].range() == range && !items[0].is_incomplete()
                })
        };
        (alone && (parsed.parse.errors.is_empty() || same_before_another())).then_some(parsed)
    }

    /// Parses an entry whose closing brace is missing before the next entry:
    /// `region` is the text from its `{` up to the next entry's `{`, and
    /// `next` that entry's text, an object without syntax errors. None unless
    /// the parser closes the entry where its last value ends (the syntax
    /// error there and every other lying inside it) and `next` then parses
    /// as the array's next item, whole and unbroken.
    pub fn parse_unclosed(region: &str, next: &str) -> Option<EntryText> {
        // The next entry's first line is what a string's recovery at a line
        // break may look at; an entry holds a key, so a quote, before its end.
        if !region.starts_with('{') || !next.starts_with('{') || !next.contains('"') {
            return None;
        }
        let text = Arc::new(format!("{BEFORE}{region}{next}{AFTER}"));
        let parse = syntax::parse_shared(text.clone());
        let range = unclosed_entry(&text, &parse, BEFORE.len() + region.len(), Some(next.len()))?;
        Some(EntryText { text, parse, range })
    }

    /// Parses the last entry when its closing brace is missing: `region` is
    /// the text from its `{` up to the array's `]`, and `after` what follows
    /// that `]`, to the end of its line at least (or of the text). None
    /// unless the parser closes the entry where its last value ends, at the
    /// `]`, which then closes the array.
    pub fn parse_unclosed_last(region: &str, after: &str) -> Option<EntryText> {
        // A string's recovery at a line break may look at the next line, the
        // bracket's: read the same here without a quote on it.
        let line = &after[..after.find(['\n', '\r']).unwrap_or(after.len())];
        if !region.starts_with('{') || line.contains('"') {
            return None;
        }
        let text = Arc::new(format!("{BEFORE}{region}]}}"));
        let parse = syntax::parse_shared(text.clone());
        let range = unclosed_entry(&text, &parse, BEFORE.len() + region.len(), None)?;
        Some(EntryText { text, parse, range })
    }

    /// The root of the parsed text: `{"entries": [the entry]}`, so that a
    /// path down from it names the entry's fields as in the report.
    pub fn root(&self) -> Option<Node<'_>> {
        self.parse.root()
    }

    /// The entry's range in [`EntryText::text`].
    pub fn range(&self) -> TextRange {
        self.range
    }

    /// The entry's object (the first of the array's items).
    pub fn item(&self) -> Option<Node<'_>> {
        self.parse.root()?.get("entries")?.items()?.next()
    }

    /// The syntax errors, all inside the entry.
    pub fn errors(&self) -> &[syntax::SyntaxError] {
        &self.parse.errors
    }

    /// The parsed text: the entry's text in its containers.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where the entry's text starts in [`EntryText::text`].
    pub fn offset(&self) -> usize {
        self.range.start
    }

    /// `offset` of the document, where the entry starts at `start`, in
    /// [`EntryText::text`]; None before the entry.
    pub fn from_document(&self, start: usize, offset: usize) -> Option<usize> {
        Some(offset.checked_sub(start)? + self.offset())
    }

    /// What moves an offset of [`EntryText::text`] back to the document,
    /// where the entry starts at `start`.
    pub fn to_document(&self, start: usize) -> Shift {
        Shift {
            from: 0,
            delta: start as isize - self.offset() as isize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_whose_recovery_depends_on_what_follows_is_not_parsed_alone() {
        // Found by fuzzing: a key left open at the entry's last line break
        // takes the entry's own `}` for its text. Before `]` the entry then
        // ends with the text; before the next entry it swallows that one.
        let broken = "{\"path\": \"a.md\", \"exact_edit\": {\"kind\": \"x\"\n  #\0\0k'#  }";
        assert!(EntryText::parse(broken).is_none());
        // An error well inside parses the same whatever follows: kept.
        let inside = "{\"path\": \"a.md\", \"op\": tru}";
        assert!(EntryText::parse(inside).is_some());
        assert!(EntryText::parse("{\"path\": \"a.md\"}").is_some());
    }

    #[test]
    fn an_entry_whose_brace_is_missing_parses_in_place_before_the_next() {
        let next = "{\"path\": \"b.md\"}";
        let region = "{\"path\": \"a.md\", \"op\": \"delete\"\n    ,\n    ";
        let entry =
            EntryText::parse_unclosed(region, next).expect("closed where its last value ends");
        let last_value = region.find("\"delete\"").unwrap() + "\"delete\"".len();
        assert_eq!(entry.range().len(), last_value);
        assert_eq!(entry.errors().len(), 1);
        assert!(entry.item().unwrap().is_broken());
        // Without the comma too.
        assert!(EntryText::parse_unclosed("{\"path\": \"a.md\"\n  ", next).is_some());
        let refused = [
            // Closed by its own brace: the comma missing is between entries.
            "{\"path\": \"a.md\"} ",
            // What lies after its last value is more than a comma.
            "{\"path\": \"a.md\" x,\n",
            // A stray bracket closes the array.
            "{\"path\": \"a.md\" ],\n",
            // The `{` is not the next item: an inner object takes it.
            "{\"path\": \"a.md\", \"e\": [{\"k\": 1,\n",
            "\"path\",\n",
        ];
        for region in refused {
            assert!(
                EntryText::parse_unclosed(region, next).is_none(),
                "{region:?}"
            );
        }
        // The last entry, before the array's `]`.
        let last = EntryText::parse_unclosed_last("{\"path\": \"a.md\",\n  ", ",").unwrap();
        assert_eq!(last.range().len(), "{\"path\": \"a.md\"".len());
        assert!(EntryText::parse_unclosed_last("{\"path\": \"a.md\"\n  ", "").is_some());
        assert!(EntryText::parse_unclosed_last("{\"path\": \"a.md\"}\n  ", "").is_none());
        assert!(EntryText::parse_unclosed_last("{\"path\": \"a.md\"\n  ", ", \"x\": 1").is_none());
        // Quotes on the lines after the bracket's are no matter.
        assert!(
            EntryText::parse_unclosed_last("{\"path\": \"a.md\"\n  ", ",\n  \"k\": []").is_some()
        );
        assert!(EntryText::parse_unclosed_last("{\"e\": {\"k\": [1\n  ", "").is_none());
        // The next entry must hold a key, and parse whole.
        let region = "{\"path\": \"a.md\",\n";
        assert!(EntryText::parse_unclosed(region, "{}").is_none());
        assert!(EntryText::parse_unclosed(region, "{\"path\": }").is_none());
    }
}
