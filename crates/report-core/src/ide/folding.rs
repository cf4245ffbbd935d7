//! Folding and selection ranges for the JSON structure.

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
