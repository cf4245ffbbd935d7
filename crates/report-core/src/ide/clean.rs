//! The clean previewed in the editor: the entry at the cursor's clean, and
//! the clean of every entry that derives `auto` with the live facts, as
//! text edits (`clean_edit`), with the tier each derives to now.

use crate::clean_edit::{self, CleanEdit, Combined, Targets};
use crate::host::snapshot::Snapshot;
use crate::project_checks::{WorkspaceFacts, live_derivation};
use crate::schema::SafetyTier;
use crate::syntax::Node;
use crate::text::TextRange;
use crate::validate::EntryFacts;

/// One entry's clean, as the editor offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryClean {
    /// Its position in `entries`.
    pub index: usize,
    pub path: String,
    /// The exact edit's kind.
    pub kind: String,
    /// The tier it derives to now (None when its fields do not say).
    pub tier: Option<SafetyTier>,
    pub edit: Result<CleanEdit, String>,
}

/// The clean of the entry at `offset`, when it has an exact edit.
pub fn clean_at(document: Snapshot<'_>, offset: usize, targets: Targets<'_>) -> Option<EntryClean> {
    let mut found = None;
    document.each_entry_in(TextRange::empty(offset), |entry, facts| {
        let holds = facts.is_some_and(|f| f.range.start <= offset && offset <= f.range.end);
        if found.is_none() && holds {
            found = entry_clean(entry, facts, targets);
        }
    });
    found
}

/// The cleans of the entries that derive `auto` with the live facts and
/// whose edit can be made, combined into one edit; the others are not
/// offered (a `confirm` entry is previewed alone).
pub fn clean_auto(document: Snapshot<'_>, targets: Targets<'_>) -> (Combined, Vec<EntryClean>) {
    let mut taken = Vec::new();
    let everything = TextRange::new(0, document.text.len());
    document.each_entry_in(everything, |entry, facts| {
        if let Some(clean) = entry_clean(entry, facts, targets)
            && clean.tier == Some(SafetyTier::Auto)
            && clean.edit.is_ok()
        {
            taken.push(clean);
        }
    });
    let combined = clean_edit::combine(
        taken
            .iter()
            .filter_map(|c| Some((c.index, c.edit.clone().ok()?))),
    );
    let kept: std::collections::HashSet<usize> = combined.taken.iter().copied().collect();
    taken.retain(|c| kept.contains(&c.index));
    (combined, taken)
}

/// Whether some entry may derive `auto` (from the facts the analysis
/// kept, without reading an entry): the whole-report clean is offered then.
pub fn may_clean_auto(document: Snapshot<'_>) -> bool {
    document.index().is_some_and(|index| {
        index.entries.iter().any(|e| {
            e.tier.as_ref().is_some_and(|t| {
                t.derivation.tier == SafetyTier::Auto || t.possible.contains(&SafetyTier::Auto)
            })
        })
    })
}

fn entry_clean(
    entry: Node<'_>,
    facts: Option<&EntryFacts>,
    targets: Targets<'_>,
) -> Option<EntryClean> {
    let facts = facts?;
    let kind = entry.get("exact_edit")?.get("kind")?.as_str()?.to_string();
    Some(EntryClean {
        index: facts.index,
        path: facts.path.as_ref()?.0.clone(),
        kind,
        tier: tier_now(entry, facts, Some(targets.facts)),
        edit: clean_edit::entry_edit_over(entry, targets),
    })
}

/// The tier through `derive_safety_tier`: the live derivation for a
/// lifecycle entry (`confirm` while the project's facts are not at hand,
/// as it is while they prove nothing), else its fields'. Where the kind's
/// own characterization could make it `confirm`, it is `confirm`.
pub(crate) fn tier_now(
    entry: Node<'_>,
    facts: &EntryFacts,
    workspace: Option<&WorkspaceFacts>,
) -> Option<SafetyTier> {
    let check = facts.tier.as_ref()?;
    if check.derivation.inputs.lifecycle.is_some() {
        return match workspace {
            Some(workspace) => Some(
                live_derivation(workspace, entry, Some(facts))?
                    .derivation
                    .tier,
            ),
            None if check.possible.contains(&SafetyTier::Confirm) => Some(SafetyTier::Confirm),
            None => Some(check.derivation.tier),
        };
    }
    let by_kind_confirms = check
        .by_kind
        .as_ref()
        .is_some_and(|k| k.possible.contains(&SafetyTier::Confirm));
    Some(match by_kind_confirms {
        true => SafetyTier::Confirm,
        false => check.derivation.tier,
    })
}
