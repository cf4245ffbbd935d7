//! Inlay hints: after an entry's `safety_tier`, the derived tier when the
//! recorded one is not it; after its `raw_tokens`, its share of the total.

use super::ReportIndex;
use crate::text::TextRange;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Where the hint stands: right after the value it is about.
    pub offset: usize,
    pub label: String,
    /// Longer words for the hint's tooltip.
    pub tooltip: String,
}

/// The hints of the entries that overlap `range`.
pub fn inlay_hints(index: &ReportIndex<'_>, range: TextRange) -> Vec<InlayHint> {
    let total: u64 = index
        .entries
        .iter()
        .filter_map(|e| e.summary().raw_tokens.map(|(n, _)| n))
        .fold(0, u64::saturating_add);
    let first = index.entries.partition_point(|e| e.range.end < range.start);
    let mut hints = Vec::new();
    for entry in index.entries[first..]
        .iter()
        .take_while(|e| e.range.start <= range.end)
    {
        if let Some(tier) = &entry.tier
            && let (Some(recorded), Some(at)) = (tier.recorded, tier.recorded_range)
            && !tier.possible.contains(&recorded)
        {
            let derived = tier.possible[0];
            hints.push(InlayHint {
                offset: at.end,
                label: format!("→ {derived}"),
                tooltip: format!(
                    "derive_safety_tier gives \"{derived}\" because {}",
                    tier.derivation.reason()
                ),
            });
        }
        if let Some((raw, at)) = entry.summary().raw_tokens
            && total > 0
        {
            let share = raw as f64 * 100.0 / total as f64;
            hints.push(InlayHint {
                offset: at.end,
                label: format!("{share:.1} %"),
                tooltip: format!("{raw} of the report's {total} raw tokens"),
            });
        }
    }
    hints
}
