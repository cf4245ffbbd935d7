//! Inlay hints: after an entry's `safety_tier`, the derived tier when the
//! recorded one is not it (or the live tier, derived from the project's
//! tree now, when the workspace checks know it and it differs); after its
//! `raw_tokens`, its share of the total.

use super::ReportIndex;
use crate::host::snapshot::Snapshot;
use crate::project_checks::{LiveFacts, WorkspaceFacts, live_derivation};
use crate::syntax::Node;
use crate::text::TextRange;
use crate::tier::{Fact, Outcome, Rule};
use crate::validate::EntryFacts;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Where the hint stands: right after the value it is about.
    pub offset: usize,
    pub label: String,
    /// Longer words for the hint's tooltip.
    pub tooltip: String,
}

/// The hints of a document that stand in `range`.
pub fn inlay_hints_at(document: Snapshot<'_>, range: TextRange) -> Vec<InlayHint> {
    document
        .index()
        .map(|i| inlay_hints(&i, range))
        .unwrap_or_default()
}

/// The hints with the live tier where the workspace facts (gathered by the
/// caller) make it differ from the recorded one; it takes the place of the
/// derived-tier hint there.
pub fn inlay_hints_live(
    document: Snapshot<'_>,
    range: TextRange,
    workspace: Option<&WorkspaceFacts>,
) -> Vec<InlayHint> {
    let mut hints = inlay_hints_at(document, range);
    let Some(workspace) = workspace.filter(|w| w.git.is_some()) else {
        return hints;
    };
    let mut live = Vec::new();
    document.each_entry_in(range, |entry, facts| {
        let lifecycle = facts
            .and_then(|f| f.tier.as_ref())
            .is_some_and(|t| t.derivation.inputs.lifecycle.is_some());
        if lifecycle
            && let Some(facts) = facts
            && let Some(hint) = live_hint(entry, facts, workspace)
            && stands_in(range, hint.offset)
        {
            live.push(hint);
        }
    });
    if live.is_empty() {
        return hints;
    }
    hints.retain(|h| !(h.label.starts_with('→') && live.iter().any(|l| l.offset == h.offset)));
    hints.extend(live);
    hints.sort_by_key(|h| h.offset);
    hints
}

/// The hints that stand in `range` (its ends included): a client asks for
/// the lines it shows and drops any hint outside them.
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
            && let at = at.at(entry.range.start)
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
            && let at = at.at(entry.range.start)
        {
            let share = raw as f64 * 100.0 / total as f64;
            hints.push(InlayHint {
                offset: at.end,
                label: format!("{share:.1} %"),
                tooltip: format!("{raw} of the report's {total} raw tokens"),
            });
        }
    }
    hints.retain(|h| stands_in(range, h.offset));
    hints
}

fn stands_in(range: TextRange, offset: usize) -> bool {
    (range.start..=range.end).contains(&offset)
}

/// The live-tier hint of one lifecycle entry (`delete`, `extract-then-delete`):
/// `auto→confirm: dirty` when the tier `derive_safety_tier` gives from the
/// project's git state now is not the recorded one. None without git facts
/// (an unknown fact says nothing about the tree: the hover shows it), or
/// when the live tier is the recorded one.
pub(crate) fn live_hint(
    entry: Node<'_>,
    facts: &EntryFacts,
    workspace: &WorkspaceFacts,
) -> Option<InlayHint> {
    workspace.git.as_ref()?;
    let tier = facts.tier.as_ref()?;
    let (recorded, at) = (tier.recorded?, tier.recorded_range?.at(facts.range.start));
    let live = live_derivation(workspace, entry, Some(facts))?;
    let derived = live.derivation.tier;
    if derived == recorded {
        return None;
    }
    let label = match live.derivation.deciding_rule() {
        None => "served, tracked, clean".to_string(),
        Some(step) if step.outcome == Outcome::Unknown => return None,
        Some(step) => short_reason(step.rule, &live)?,
    };
    let sources = [
        ("served", &live.satisfied),
        ("tracked", &live.tracked),
        ("clean", &live.clean),
    ]
    .map(|(name, fact)| format!("{name}: {}", fact.source))
    .join("; ");
    Some(InlayHint {
        offset: at.end,
        label: format!("{recorded}→{derived}: {label}"),
        tooltip: format!(
            "derive_safety_tier gives \"{derived}\" from the project's tree now ({}); {sources}",
            live.derivation.reason()
        ),
    })
}

/// One word for the fact that decided a live `confirm`.
fn short_reason(rule: Rule, live: &LiveFacts) -> Option<String> {
    let no = |fact: &crate::project_checks::Sourced| fact.fact == Fact::No;
    Some(match rule {
        Rule::LifecycleSatisfied if no(&live.satisfied) => "not served".into(),
        Rule::LifecycleTracked if no(&live.tracked) => "untracked".into(),
        Rule::LifecycleClean if no(&live.clean) => "dirty".into(),
        _ => live.derivation.reason(),
    })
}
