//! What a feature outside every entry reads of a report kept per entry: the
//! text with the runs of entries (and the shortlist's items, unless the
//! cursor is among them) cut out. A report is mostly entries: its envelope
//! parses in well under a millisecond where the whole text takes a tenth
//! of a second at 50,000 entries. Offsets move across the cuts and back.
//!
//! A run of entries around the cursor's gap between two of them becomes
//! `{}`, so the array still reads as one with an item on each side of the
//! cursor; elsewhere the cut leaves the array's brackets alone. What the
//! features read there (the envelope's fields, the array around the cursor,
//! the keys of the root) is the same in both texts.

use std::sync::Arc;

use crate::incremental::Incremental;
use crate::syntax::{self, Parse};
use crate::text::{SourceText, TextRange};
use crate::validate::TopMember;

/// The text without the cut spans, parsed.
pub struct EnvelopeText {
    pub text: Arc<String>,
    pub parse: Parse,
    cuts: Vec<Cut>,
}

/// One span of the whole text, replaced by `put` bytes at `at` of the cut text.
#[derive(Clone, Copy, Debug)]
struct Cut {
    at: usize,
    removed: TextRange,
    put: usize,
}

impl EnvelopeText {
    /// `text` with each of `cuts` (sorted, apart, on character boundaries)
    /// replaced by its string.
    pub fn new(text: &(impl SourceText + ?Sized), cuts: &[(TextRange, &str)]) -> EnvelopeText {
        let mut cut_text = String::new();
        let mut kept = Vec::with_capacity(cuts.len());
        let mut from = 0;
        for &(removed, put) in cuts {
            cut_text.push_str(&text.slice(TextRange::new(from, removed.start)));
            kept.push(Cut {
                at: cut_text.len(),
                removed,
                put: put.len(),
            });
            cut_text.push_str(put);
            from = removed.end;
        }
        cut_text.push_str(&text.slice(TextRange::new(from, text.len())));
        let text = Arc::new(cut_text);
        EnvelopeText {
            parse: syntax::parse_shared(text.clone()),
            text,
            cuts: kept,
        }
    }

    /// The text a feature at `offset`, outside every entry of a report kept
    /// per entry, reads: the entries and the shortlist's items (unless
    /// `offset` is among them) cut out.
    pub fn around(
        text: &(impl SourceText + ?Sized),
        incremental: &Incremental,
        offset: usize,
    ) -> EnvelopeText {
        let mut cuts = Vec::new();
        let entries: Vec<TextRange> = incremental.entries().map(|e| e.range).collect();
        if let (Some(first), Some(last)) = (entries.first(), entries.last()) {
            let all = TextRange::new(first.start, last.end);
            if offset < all.start || all.end < offset {
                cuts.push((all, ""));
            } else {
                // In a gap between entries: those on each side become `{}`.
                let after = entries.partition_point(|e| e.end <= offset);
                if after > 0 {
                    cuts.push((TextRange::new(all.start, entries[after - 1].end), "{}"));
                }
                if after < entries.len() {
                    cuts.push((TextRange::new(entries[after].start, all.end), "{}"));
                }
            }
        }
        let shortlist = TopMember::array(incremental.members(), "shortlist")
            .map(|m| m.value_range)
            .filter(|s| s.len() > 2);
        if let Some(shortlist) = shortlist {
            if !(shortlist.start <= offset && offset <= shortlist.end) {
                cuts.push((TextRange::new(shortlist.start + 1, shortlist.end - 1), ""));
            } else if let Some(list) = incremental.shortlist() {
                let runs = shortlist_runs_around(text, list.item_ranges(), offset);
                cuts.extend(runs.into_iter().map(|run| (run, "\"\"")));
            }
        }
        cuts.sort_by_key(|(range, _)| range.start);
        EnvelopeText::new(text, &cuts)
    }

    /// The cut text's offset of the whole text's `offset`, which no cut holds.
    pub fn into_cut(&self, offset: usize) -> usize {
        let before: isize = self
            .cuts
            .iter()
            .take_while(|c| c.removed.end <= offset)
            .map(|c| c.removed.len() as isize - c.put as isize)
            .sum();
        offset.saturating_add_signed(-before)
    }

    /// The whole text's offset of the cut text's `offset`; one inside a
    /// replacement goes to the start of what it replaced.
    pub fn back(&self, offset: usize) -> usize {
        let mut moved = 0isize;
        for cut in &self.cuts {
            if offset < cut.at + cut.put.max(1) && offset <= cut.at {
                break;
            }
            if offset < cut.at + cut.put {
                return cut.removed.start;
            }
            moved += cut.removed.len() as isize - cut.put as isize;
        }
        offset.saturating_add_signed(moved)
    }

    pub fn back_range(&self, range: TextRange) -> TextRange {
        let start = self.back(range.start);
        // An end right after a replacement is the end of what it replaced.
        let end = match self
            .cuts
            .iter()
            .find(|c| c.put > 0 && c.at + c.put == range.end)
        {
            Some(cut) => cut.removed.end,
            None => self.back(range.end),
        };
        TextRange::new(start, end.max(start))
    }
}

/// The runs of shortlist items before and after the one at `offset` (or
/// the gap it is in), each from a string item to a string item, so that only
/// whole items lie in it. `items` are the items' path values in order; a
/// string item's value is preceded by `[` or `,`, an object's path by `:`.
fn shortlist_runs_around(
    text: &(impl SourceText + ?Sized),
    items: &[TextRange],
    offset: usize,
) -> Vec<TextRange> {
    let is_item = |range: &TextRange| {
        let before = (0..range.start)
            .rev()
            .map(|i| text.byte(i))
            .find(|b| !b.is_ascii_whitespace());
        !range.is_empty() && matches!(before, Some(b'[' | b','))
    };
    let run = |items: &[TextRange]| {
        let first = items.iter().position(is_item)?;
        let last = items.iter().rposition(is_item)?;
        Some(TextRange::new(items[first].start, items[last].end))
    };
    let at = items.partition_point(|r| r.end < offset);
    let after = items.get(at + 1..).unwrap_or_default();
    [run(&items[..at]), run(after)]
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_cross_the_cuts_and_come_back() {
        let whole = "{\"a\": [1, 2, 3], \"b\": [\"x\", \"y\"], \"c\": 路}".to_string();
        let first = TextRange::new(7, 14);
        let second = TextRange::new(23, 31);
        let cut = EnvelopeText::new(&whole, &[(first, "{}"), (second, "")]);
        let text = cut.text.as_str();
        assert_eq!(text, "{\"a\": [{}], \"b\": [], \"c\": 路}");
        for (name, offset) in [("\"b\"", 17), ("\"c\"", 34), ("{\"a\"", 0)] {
            assert_eq!(&whole[offset..offset + name.len()], name);
            let inside = cut.into_cut(offset);
            assert_eq!(&text[inside..inside + name.len()], name);
            assert_eq!(cut.back(inside), offset);
        }
        // The arrays' ranges, the replacement's, the whole text's.
        assert_eq!(cut.back_range(TextRange::new(6, 10)), TextRange::new(6, 15));
        assert_eq!(cut.back_range(TextRange::new(7, 9)), first);
        assert_eq!(
            cut.back_range(TextRange::new(17, 19)),
            TextRange::new(22, 32)
        );
        assert_eq!(
            cut.back_range(TextRange::new(0, text.len())),
            TextRange::new(0, whole.len())
        );
    }
}
