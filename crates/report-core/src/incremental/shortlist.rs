//! Shortlist items added, deleted, pasted or changed, taken item by item.
//!
//! An edit inside the shortlist array that replaces whole items and their
//! commas (items added, deleted, pasted, changed) is taken the same way
//! (see [`super::Incremental::splice_shortlist`]): the text between the kept items
//! must be whitespace, whole strings or `{…}` objects that parse alone
//! without syntax errors, and exactly the commas the array needs. The new
//! items are checked alone; the items after them that have diagnostics
//! (whose messages name `shortlist[i]`) are checked again for their new
//! index; the [`Shortlist`](crate::validate::Shortlist)'s first occurrences, repeats and near-miss index
//! follow; and the entries checked again are found through `by_path`, an
//! index of every entry by its path's hash: those whose path became or stopped being
//! a member, and those outside the shortlist (`missing`), whose membership
//! diagnostic names the shortlist's range and appends at its end. No other
//! check reads the shortlist as a whole (its item count is kept in
//! `members`). Any other edit in the shortlist is an envelope edit.
//!

use crate::diagnostic::{Diagnostic, Keep};
use crate::fix::separator_after_bracket;
use crate::text::{Shift, TextRange};
use crate::validate::{ShortlistItem, TopMember, check_item_alone};

use super::split::split_items;
use super::state::{Incremental, ShortlistPending};

/// Why shortlist items were not taken one by one at the update.
pub(super) enum NotSpliced {
    /// The text in their place is not whole items and commas, or not one
    /// taken this way, seen before anything changed: the envelope is checked
    /// again instead.
    NotItems,
    /// An entry whose membership changed could not be checked again.
    EntryUnchecked,
}

impl Incremental {
    /// Builds the shortlist's near-miss index ahead of its first need (see
    /// [`DocumentHost::index_near_misses`](crate::DocumentHost::index_near_misses)).
    pub fn index_near_misses(&self) {
        if let Some(shortlist) = &self.shortlist {
            shortlist.index_near_misses();
        }
    }

    /// An edit inside the shortlist array that replaces whole items and the
    /// separators between them (items added, deleted, pasted, changed): the
    /// items it touches are to be replaced, at the update, by the text from
    /// the end of the item before them to the start of the one after (or
    /// the brackets), parsed as items and commas (see
    /// [`Incremental::splice_shortlist`]). Everything after that text moves
    /// now; the shortlist itself at the update.
    pub(super) fn shortlist_edit(
        &mut self,
        range: TextRange,
        shift: Shift,
    ) -> Option<ShortlistPending> {
        if self.omitted.count > 0 {
            return None;
        }
        if self.totals.broken > 0 {
            return None;
        }
        let (Some(shortlist), Some(array), Some(entries)) = (
            &self.shortlist,
            self.array("shortlist"),
            self.entries_array(),
        ) else {
            return None;
        };
        if !(array.start < range.start && range.end < array.end) || shortlist.range() != array {
            return None;
        }
        let spans = shortlist.spans();
        let at = spans.partition_point(|s| s.end <= range.start);
        let next = spans.partition_point(|s| s.start < range.end);
        let start = match at {
            0 => array.start + 1,
            _ => spans[at - 1].end,
        };
        let end = spans.get(next).map_or(array.end - 1, |s| s.start);
        // What lies from the window's end on moves; the kept items before it not.
        let shift = Shift {
            from: end,
            delta: shift.delta,
        };
        // The removed items' diagnostics go now, while their ranges are as they were.
        let removed = &spans[at..next];
        self.outside.retain(|d| {
            let k = removed.partition_point(|s| s.start <= d.range.start);
            k == 0 || d.range.end > removed[k - 1].end
        });
        if entries.start >= end {
            for slot in &mut self.slots {
                slot.shift(shift);
            }
        }
        self.shift_outside(shift, false);
        Some(ShortlistPending {
            at,
            removed: next - at,
            window: TextRange::new(start, shift.offset(end)),
            shift,
        })
    }

    /// Takes the shortlist items that replaced removed ones (see
    /// [`Incremental::shortlist_edit`]): the window must hold whole string
    /// or object items, each parsing alone without syntax errors, and
    /// exactly the commas the kept items around them need; the whole text
    /// then parses as before with those items in place. Their diagnostics
    /// are theirs checked alone; the items after them that have diagnostics
    /// are checked again for their new index (their messages name
    /// `shortlist[i]`); the shortlist's paths are updated, and the entries
    /// are checked again whose path became or stopped being a member, and
    /// those with a membership diagnostic (its message and fix name the
    /// shortlist). When it is not, why not (see [`NotSpliced`]).
    pub(super) fn splice_shortlist(
        &mut self,
        pending: ShortlistPending,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Result<(), NotSpliced> {
        let ShortlistPending {
            at,
            removed,
            window,
            shift,
        } = pending;
        let shortlist = self.shortlist.as_ref().ok_or(NotSpliced::NotItems)?;
        let text = read(window);
        if text.len() != window.len() {
            return Err(NotSpliced::NotItems);
        }
        let count = shortlist.spans().len();
        let ranges =
            split_items(&text, at > 0, at + removed < count).ok_or(NotSpliced::NotItems)?;
        let mut added = Vec::with_capacity(ranges.len());
        let mut fresh = Vec::new();
        for (j, range) in ranges.iter().enumerate() {
            let (item, diagnostics) =
                check_item_alone(&text[range.clone()], window.start + range.start, at + j)
                    .ok_or(NotSpliced::NotItems)?;
            added.push(item);
            fresh.extend(diagnostics);
        }
        // The items after that have diagnostics, checked for their new index.
        let kept = &shortlist.spans()[at + removed..];
        let mut again: Vec<TextRange> = Vec::new();
        if ranges.len() != removed {
            for d in &self.outside {
                if d.range.start < window.end {
                    continue;
                }
                let k = kept.partition_point(|s| shift.offset(s.start) <= d.range.start);
                let Some(span) = k.checked_sub(1).map(|k| shift.range(kept[k])) else {
                    continue;
                };
                if d.range.end <= span.end && again.last() != Some(&span) {
                    again.push(span);
                }
            }
        }
        again.dedup();
        let mut renumbered = Vec::new();
        for span in &again {
            let k = kept.partition_point(|s| shift.offset(s.start) < span.start);
            let index = at + ranges.len() + k;
            let (_, diagnostics) =
                check_item_alone(&read(*span), span.start, index).ok_or(NotSpliced::NotItems)?;
            renumbered.extend(diagnostics);
        }
        // Past the cap a full analysis leaves some out: it is one.
        let fresh_count = fresh.len() + renumbered.len();
        if fresh_count > 0 && self.count() + fresh_count > Keep::DEFAULT.max {
            return Err(NotSpliced::NotItems);
        }
        let separator = match (at, ranges.first()) {
            (0, Some(first)) => Some(separator_after_bracket(&text, first.start)),
            (0, None) if removed < count => Some(separator_after_bracket(&text, text.len())),
            _ => None,
        };
        // From here on the shortlist changes.
        self.outside.retain(|d| {
            !again
                .iter()
                .any(|s| s.start <= d.range.start && d.range.end <= s.end)
        });
        self.outside.extend(fresh);
        self.outside.extend(renumbered);
        self.outside.sort_by(Diagnostic::order);
        let items: Vec<ShortlistItem> = added;
        let shortlist = self.shortlist.as_mut().expect("checked above");
        let changed = shortlist.splice(at, removed, items, shift, separator);
        let total = shortlist.spans().len();
        if let Some(member) = TopMember::array_mut(&mut self.members, "shortlist") {
            member.items = Some(total);
        }
        for path in &changed {
            self.note_membership(path);
        }
        let mut indices: Vec<usize> = changed
            .iter()
            .map(|p| &**p)
            .chain(self.missing.iter().map(String::as_str))
            .flat_map(|p| self.by_path.find(p, &self.slots))
            .collect();
        indices.sort_unstable();
        indices.dedup();
        self.shortlist_splices += 1;
        for i in indices {
            self.recheck_membership(i, read)
                .ok_or(NotSpliced::EntryUnchecked)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;
    use crate::incremental::Incremental;

    /// An opened report's shortlist gets its near-miss index when asked
    /// (by the server, after the first diagnostics), not before them.
    #[test]
    fn an_opened_shortlist_is_indexed_when_asked() {
        let text = crate::generate::generate_report(crate::generate::GenerateOptions {
            entries: 30,
            seed: 3,
            violation_every: 0,
        });
        let incremental = Incremental::from_analysis(analyze(&text)).unwrap();
        let shortlist = incremental.shortlist.as_ref().expect("a shortlist");
        assert!(!shortlist.near_misses_indexed());
        incremental.index_near_misses();
        let shortlist = incremental.shortlist.as_ref().expect("a shortlist");
        assert!(shortlist.near_misses_indexed());
    }
}
