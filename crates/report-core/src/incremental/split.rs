//! Text between kept array items split into whole values and commas,
//! without a parser: what an edit of whole entries or shortlist items
//! left in their place.

/// The entries in `text`, which stands between two entries, or an entry
/// and a bracket, of the `entries` array (`before`, `after`: whether an
/// entry is kept there): whitespace, whole `{…}` objects, and exactly the
/// commas between them all. The ranges of the objects, or None.
pub(super) fn split_entries(
    text: &str,
    before: bool,
    after: bool,
) -> Option<Vec<std::ops::Range<usize>>> {
    split_values(text, before, after, false)
}

/// Like [`split_entries`], for the shortlist's strings and objects; an
/// array left empty needs no comma at all.
pub(super) fn split_items(
    text: &str,
    before: bool,
    after: bool,
) -> Option<Vec<std::ops::Range<usize>>> {
    let blank = text
        .bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if !before && !after && blank {
        return Some(Vec::new());
    }
    split_values(text, before, after, true)
}

/// Whitespace, whole `{…}` objects (and strings, with `strings`), and
/// exactly the commas JSON needs between them and the values kept before
/// and after: the values' ranges, or None.
pub(super) fn split_values(
    text: &str,
    before: bool,
    after: bool,
    strings: bool,
) -> Option<Vec<std::ops::Range<usize>>> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    let mut want_comma = before;
    let mut i = 0;
    loop {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        let Some(&byte) = bytes.get(i) else { break };
        let end = match byte {
            b',' if want_comma => {
                want_comma = false;
                i += 1;
                continue;
            }
            b'{' if !want_comma => object_end(bytes, i)?,
            b'"' if !want_comma && strings => string_end(bytes, i)?,
            _ => return None,
        };
        items.push(i..end);
        want_comma = true;
        i = end;
    }
    (want_comma != after).then_some(items)
}

/// The offset past the bracket that closes the `{` at `start`, strings
/// skipped; None when the text ends first.
pub(super) fn object_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') => in_string = false,
            (false, b'"') => in_string = true,
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The offset past the quote that closes the string opened at `start`.
pub(super) fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'"' => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values [`split_values`] finds in `text`, as text.
    #[track_caller]
    fn values(text: &str, before: bool, after: bool, strings: bool) -> Option<Vec<&str>> {
        let ranges = split_values(text, before, after, strings)?;
        Some(ranges.into_iter().map(|range| &text[range]).collect())
    }

    #[test]
    fn whole_objects_with_exactly_the_commas_between_them() {
        let text = " {\"a\": 1},\n  {\"b\": [2, {}]} ";
        let found = values(text, false, false, false);
        assert_eq!(found, Some(vec!["{\"a\": 1}", "{\"b\": [2, {}]}"]));
        // A value kept before wants a comma first; one kept after, last.
        assert_eq!(values(", {}", true, false, false), Some(vec!["{}"]));
        assert_eq!(values("{} ,", false, true, false), Some(vec!["{}"]));
        assert_eq!(values(",{},", true, true, false), Some(vec!["{}"]));
        // Between two kept values, their comma alone; by a bracket, nothing.
        assert_eq!(values(" , ", true, true, false), Some(vec![]));
        assert_eq!(values("\t\r\n", false, true, false), Some(vec![]));
        assert_eq!(values("", true, false, false), Some(vec![]));
    }

    #[test]
    fn a_comma_missing_or_one_too_many_is_refused() {
        let cases = [
            ("{} {}", false, false),
            ("{},, {}", false, false),
            ("{},", false, false),
            (",{}", false, false),
            ("{}", true, false),
            ("{}", false, true),
            ("", true, true),
            (",", false, false),
            // Nothing at all between the brackets: an array left empty.
            ("  ", false, false),
        ];
        for (text, before, after) in cases {
            let found = values(text, before, after, false);
            assert_eq!(found, None, "{text:?}, before {before}, after {after}");
        }
    }

    #[test]
    fn brackets_and_quotes_inside_strings_do_not_count() {
        let object = r#"{"a": "}]", "b": "\"{", "c": "\\"}"#;
        assert_eq!(values(object, false, false, false), Some(vec![object]));
        for unclosed in [r#"{"a": "}"#, "{[}", r#"{"a": "\"}"#] {
            assert_eq!(values(unclosed, false, false, false), None, "{unclosed}");
        }
    }

    #[test]
    fn strings_are_values_only_when_asked_and_nothing_else_is() {
        let text = r#""a.md", "b\"c.md""#;
        let found = values(text, false, false, true);
        assert_eq!(found, Some(vec![r#""a.md""#, r#""b\"c.md""#]));
        assert_eq!(values(r#""a.md""#, false, false, false), None);
        assert_eq!(values(r#""unclosed\""#, false, false, true), None);
        // What only a parser can tell is refused: other values, comments,
        // whitespace JSON does not know.
        for text in ["1", "[]", "null", "/* c */ {}", "\u{a0}{}"] {
            assert_eq!(values(text, false, false, true), None, "{text:?}");
        }
    }

    #[test]
    fn only_the_shortlist_may_be_left_empty() {
        assert_eq!(split_items(" \n ", false, false), Some(vec![]));
        assert_eq!(split_entries(" \n ", false, false), None);
        // With an item kept, blank text still wants its comma.
        assert_eq!(split_items(" ", true, true), None);
        let text = r#", "a.md""#;
        let items = split_items(text, true, false).expect("one item");
        assert_eq!(
            items.iter().map(|r| &text[r.clone()]).collect::<Vec<_>>(),
            ["\"a.md\""]
        );
    }

    #[test]
    fn ends_are_found_past_the_closing_bracket_or_quote() {
        let bytes = br#"x{"k": ["}"]}y"#;
        assert_eq!(object_end(bytes, 1), Some(bytes.len() - 1));
        assert_eq!(string_end(br#""a\"b" ,"#, 0), Some(6));
        assert_eq!(string_end(br#""a\""#, 0), None);
    }
}
