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
