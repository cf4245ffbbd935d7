//! One entry's text parsed as it parses in its report. A recovering parser
//! decides what a stray `]` or `}` means from the containers around it, so
//! an entry's text alone can parse otherwise than in place: it is parsed
//! inside the same two containers a report gives it (an object, then the
//! `entries` array), followed by a line break as entries are. When the
//! entry stays one complete, braced object there, with every syntax error
//! inside it, the whole report parses with that object in place and the
//! rest as before; that is what lets one entry be checked on its own.

use std::sync::Arc;

use crate::syntax::{self, Node, Parse, Value};
use crate::text::TextRange;

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
        let alone = matches!(item.value(), Value::Object)
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

    /// The root of the parsed text: `{"entries": [the entry]}`, so that a
    /// path down from it names the entry's fields as in the report.
    pub fn root(&self) -> Option<Node<'_>> {
        self.parse.root()
    }

    /// The entry's range in [`EntryText::text`].
    pub fn range(&self) -> TextRange {
        self.range
    }

    /// The entry's object.
    pub fn item(&self) -> Option<Node<'_>> {
        let mut items = self.parse.root()?.get("entries")?.items()?;
        let item = items.next()?;
        items.next().is_none().then_some(item)
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
}
