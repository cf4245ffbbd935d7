//! Folding and selection ranges for the JSON structure.

use crate::host::snapshot::{Snapshot, TreeAt};
use crate::syntax::Node;
use crate::text::TextRange;

/// Objects and arrays that span more than one line, outermost first, at
/// most `limit` of them (clients state a limit; VS Code's is 5000). One
/// pass over the bytes, strings skipped, so a 40 MB report folds without a
/// parse; a bracket that closes the wrong kind still ends the innermost one.
pub fn folding_ranges(text: &str, limit: usize) -> Vec<TextRange> {
    let bytes = text.as_bytes();
    // (offset of the bracket, line it is on)
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    let (mut line, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => line += 1,
            b'"' => {
                // To the closing quote, or the end of the line for an unterminated string.
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n' | b'\r') {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if bytes.get(i) != Some(&b'"') {
                    continue;
                }
            }
            b'{' | b'[' => open.push((i, line)),
            b'}' | b']' => {
                if let Some((start, start_line)) = open.pop()
                    && line > start_line
                {
                    out.push(TextRange::new(start, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    out.truncate(limit);
    out
}

/// For each offset of a document, the ranges a selection widens through,
/// innermost first.
pub fn selection_ranges_at(document: Snapshot<'_>, offsets: &[usize]) -> Vec<Vec<TextRange>> {
    // The root value's range: the text without the white space around it.
    let text = document.text;
    let ws = |i: usize| text.byte(i).is_ascii_whitespace();
    let start = (0..text.len()).find(|&i| !ws(i)).unwrap_or(0);
    let end = (start..text.len())
        .rev()
        .find(|&i| !ws(i))
        .map_or(start, |i| i + 1);
    let whole = TextRange::new(start, end);
    let entries = document.index().and_then(|i| {
        let member = i.member("entries")?;
        Some((
            member.value_range,
            TextRange::new(member.key_range.start, member.value_range.end),
        ))
    });
    offsets
        .iter()
        .map(|&offset| {
            let Some((ranges, at)) =
                document.at_tree(offset, |root, _, local| selection_ranges(root, local))
            else {
                return Vec::new();
            };
            let mut ranges: Vec<TextRange> = ranges.into_iter().map(|r| at.range(r)).collect();
            // Parsed in place, an entry's outer ranges are the stand-ins' around
            // it: those of the report take their place.
            if matches!(at, TreeAt::Entry(_)) {
                let entry = document.per_entry().and_then(|i| i.entry_around(offset));
                if let Some(entry) = entry {
                    ranges.retain(|r| entry.range.start <= r.start && r.end <= entry.range.end);
                }
                if let Some((array, member)) = entries {
                    ranges.extend([array, member]);
                }
                ranges.push(whole);
            }
            ranges
        })
        .collect()
}

/// From the innermost node at `offset` out to the whole document: each
/// value, and each member (key and value) it belongs to, widest last.
pub fn selection_ranges(root: Node<'_>, offset: usize) -> Vec<TextRange> {
    let mut out = Vec::new();
    for (member, node) in root.path_to(offset).into_iter().rev() {
        if let Some(member) = member {
            if member.key_range.touches(offset) {
                out.push(member.key_range);
            }
            push_wider(&mut out, node.range());
            push_wider(&mut out, member.range());
        } else {
            push_wider(&mut out, node.range());
        }
    }
    out
}

fn push_wider(out: &mut Vec<TextRange>, range: TextRange) {
    let wider = out
        .last()
        .is_none_or(|last| range.start <= last.start && last.end <= range.end && range != *last);
    if wider {
        out.push(range);
    }
}
