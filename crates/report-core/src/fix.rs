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

/// The indentation of the line `offset` is on, when only whitespace precedes `offset` there.
fn own_line_indent(text: &str, offset: usize) -> Option<&str> {
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    before
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
        .then_some(before)
}

/// What goes between two elements of a container: a line break with the
/// elements' indentation when the first element sits on its own line, a
/// space otherwise. The line break is the one the document already uses
/// there (`\r\n`, `\r` or `\n`), so a fix never mixes line endings.
fn element_separator(text: &str, first_start: usize) -> String {
    match own_line_indent(text, first_start) {
        Some(indent) => {
            let line_start = first_start - indent.len();
            format!(",{}{indent}", line_break_before(text, line_start))
        }
        None => ", ".to_string(),
    }
}

/// The line break that ends the line before `line_start`; on the first
/// line, the document's first line break (`\n` in a one-line text).
fn line_break_before(text: &str, line_start: usize) -> &'static str {
    match &text.as_bytes()[..line_start] {
        [.., b'\r', b'\n'] => "\r\n",
        [.., b'\r'] => "\r",
        [.., b'\n'] => "\n",
        _ => match text.find(['\n', '\r']).map(|i| &text.as_bytes()[i..]) {
            Some([b'\r', b'\n', ..]) => "\r\n",
            Some([b'\r', ..]) => "\r",
            _ => "\n",
        },
    }
}

/// Inserts `"key": value_json` as the last member of `object`, in the style
/// of its members. None when a syntax error broke the last member: where the
/// object resumes after it is a guess, and a member put there can land
/// inside it (`"entries": [}` would become `"entries": [, "key": …}`, one
/// error more).
pub fn insert_member(
    text: &str,
    object: crate::syntax::Node<'_>,
    key: &str,
    value_json: &str,
) -> Option<Vec<TextEdit>> {
    let member = format!("{}: {value_json}", json_string(key));
    let members: Vec<_> = object.members().into_iter().flatten().collect();
    match (members.first(), members.last()) {
        (Some(_), Some(last)) if last.is_broken() => None,
        (Some(first), Some(last)) => {
            let separator = element_separator(text, first.key_range.start);
            Some(vec![TextEdit::insert(
                last.value.range().end,
                format!("{separator}{member}"),
            )])
        }
        _ => Some(vec![TextEdit::insert(object.range().start + 1, member)]),
    }
}

/// Where and how a new last item goes into one array, worked out once for
/// any number of items to append.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Appender {
    pub offset: usize,
    separator: String,
}

impl Appender {
    pub fn new(text: &str, array: crate::syntax::Node<'_>) -> Appender {
        let mut items = array.items().into_iter().flatten();
        match (items.next(), items.last()) {
            (Some(first), last) => Appender {
                offset: last.unwrap_or(first).range().end,
                separator: element_separator(text, first.range().start),
            },
            (None, _) => Appender {
                offset: array.range().start + 1,
                separator: String::new(),
            },
        }
    }

    pub fn edit(&self, item_json: &str) -> TextEdit {
        TextEdit::insert(self.offset, format!("{}{item_json}", self.separator))
    }

    pub(crate) fn set_separator(&mut self, separator: String) {
        self.separator = separator;
    }
}

/// The separator [`Appender::new`] finds for an array whose first item
/// starts at `first` of `text`, the text from just after the array's `[`.
pub(crate) fn separator_after_bracket(text: &str, first: usize) -> String {
    match text[..first].rfind(['\n', '\r']) {
        // On the bracket's line: not on a line of its own.
        None => ", ".to_string(),
        Some(_) => element_separator(text, first),
    }
}

/// Removes the member at `index` of `object` with its separator, keeping the
/// layout of the members around it.
pub fn remove_member(object: crate::syntax::Node<'_>, index: usize) -> Vec<TextEdit> {
    let Some(members) = object.members() else {
        return Vec::new();
    };
    let members: Vec<_> = members.collect();
    let Some(member) = members.get(index) else {
        return Vec::new();
    };
    let range = match (
        index.checked_sub(1).and_then(|i| members.get(i)),
        members.get(index + 1),
    ) {
        (_, Some(next)) => TextRange::new(member.key_range.start, next.key_range.start),
        (Some(previous), None) => {
            TextRange::new(previous.value.range().end, member.value.range().end)
        }
        (None, None) => TextRange::new(object.range().start + 1, object.range().end - 1),
    };
    vec![TextEdit::delete(range)]
}

/// A JSON string literal for `text`.
pub fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("strings always serialize")
}

/// The single edit that turns `before` into `after`: the span between their
/// common prefix and common suffix, so the rest stays byte-for-byte.
pub fn minimal_edit(before: &str, after: &str) -> Option<TextEdit> {
    if before == after {
        return None;
    }
    let mut prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !before.is_char_boundary(prefix) || !after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = before.len().min(after.len()) - prefix;
    let mut suffix = before
        .bytes()
        .rev()
        .zip(after.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !before.is_char_boundary(before.len() - suffix)
        || !after.is_char_boundary(after.len() - suffix)
    {
        suffix -= 1;
    }
    Some(TextEdit::replace(
        TextRange::new(prefix, before.len() - suffix),
        &after[prefix..after.len() - suffix],
    ))
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
