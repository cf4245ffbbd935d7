//! What crosses entries: which of them the shortlist lacks, their
//! membership checked again, and the promotion candidates judged against
//! them, the entries found by path (`path_index.rs`).

use std::sync::OnceLock;

use foldhash::{HashSet, HashSetExt};

use crate::diagnostic::{Code, Diagnostic, rank};
use crate::text::TextRange;
use crate::validate::{Shortlist, check_membership, classifier_judged, judge};

use super::slots::{Slot, worst_of};
use super::state::Incremental;

/// The paths of entries that are not in the shortlist.
pub(super) fn missing_paths(slots: &[Slot], shortlist: Option<&Shortlist>) -> HashSet<String> {
    let Some(shortlist) = shortlist else {
        return HashSet::new();
    };
    slots
        .iter()
        .filter_map(|s| s.facts.path.as_ref().map(|(p, _)| p))
        .filter(|p| !shortlist.contains(p))
        .cloned()
        .collect()
}

/// Diagnostics of the promotion-candidate judgement, recomputed from the entries.
pub(super) fn is_judgement(code: Code) -> bool {
    matches!(
        code,
        Code::PromotionCandidateUnknownEntry | Code::PromotionCandidateNotClassifierJudged
    )
}

impl Incremental {
    /// Checks the membership of entry `i` again: its membership diagnostic
    /// is the only one that reads the shortlist, so it alone is made again
    /// when the slot's diagnostics are written for its index (otherwise the
    /// entry is checked again from its text).
    pub(super) fn recheck_membership(
        &mut self,
        i: usize,
        read: &mut impl FnMut(TextRange) -> String,
    ) -> Option<()> {
        let slot = &self.slots[i];
        if !slot.object || slot.broken || slot.rendered != slot.facts.index {
            return self.recheck(&[i], read);
        }
        let shortlist = self.shortlist.as_ref()?;
        let membership = check_membership(shortlist, &slot.facts);
        let slot = &mut self.slots[i];
        self.totals.diagnostics -= slot.diagnostics.len();
        slot.diagnostics
            .retain(|d| d.code != Code::EntryPathNotInShortlist);
        slot.diagnostics.extend(membership);
        self.totals.diagnostics += slot.diagnostics.len();
        slot.diagnostics.sort_by(Diagnostic::order);
        // Its template, if made, holds the old one.
        slot.template = OnceLock::new();
        Some(())
    }

    /// Records whether entries with `path` are outside the shortlist.
    pub(super) fn note_membership(&mut self, path: &str) {
        let outside = self.shortlist.as_ref().is_some_and(|s| !s.contains(path))
            && !self.by_path.find(path, &self.slots).is_empty();
        if outside {
            if !self.missing.contains(path) {
                self.missing.insert(path.to_string());
            }
        } else {
            self.missing.remove(path);
        }
    }

    pub(super) fn move_path(&mut self, index: usize, old: Option<String>, new: Option<String>) {
        if let Some(old) = old {
            self.by_path.remove(&old, index);
        }
        if let Some(new) = new {
            self.by_path.insert(&new, index);
        }
    }

    /// Judges the promotion candidates against the intact entries, and
    /// drops what a broken entry makes unknowable, as a full analysis does.
    /// False, nothing changed, when the judgements changed past the cap and
    /// one of them ranks past a kept diagnostic (only a full analysis can
    /// leave it out; see [`Incremental::leave_out_past_the_kept`]).
    #[must_use]
    pub(super) fn rejudge(&mut self) -> bool {
        let (slots, by_path) = (&self.slots, &self.by_path);
        let named = |path: &str| {
            let indices = by_path.find(path, slots);
            let mut intact = indices.iter().filter(|&&j| !slots[j].broken);
            let first = *intact.clone().next()?;
            let judged = intact.any(|&j| classifier_judged(&slots[j].facts));
            Some((judged, &slots[first].facts))
        };
        let mut judged = Vec::new();
        judge(&self.candidates, named, &mut judged);
        let broken_paths: Option<Vec<&str>> = match self.totals.broken {
            0 => Some(Vec::new()),
            _ => (slots.iter())
                .filter(|s| s.broken)
                .map(|s| s.facts.path.as_ref().map(|(p, _)| p.as_str()))
                .collect(),
        };
        match broken_paths {
            // A broken entry whose path is unreadable may be named by any candidate.
            None => judged.clear(),
            Some(paths) if !paths.is_empty() => {
                let uncertain: Vec<TextRange> = self
                    .candidates
                    .iter()
                    .filter(|c| paths.contains(&c.path()))
                    .map(|c| c.range())
                    .collect();
                judged.retain(|d| !uncertain.contains(&d.range));
            }
            Some(_) => {}
        }
        judged.sort_by(Diagnostic::order);
        // Past the cap every kept diagnostic, the new judgements too, must
        // rank before every one left out: before the worst of those kept so
        // far, that is.
        if self.omitted.count > 0 && judged != self.judged {
            let kept = (self.slots.iter())
                .flat_map(|s| &s.diagnostics)
                .chain(&self.outside)
                .chain(&self.judged);
            let (count, worst) = worst_of(kept);
            let fits = worst.is_some_and(|w| judged.iter().all(|d| rank(d, w).is_lt()))
                && self.publishable(count - self.judged.len() + judged.len());
            if !fits {
                return false;
            }
        }
        self.judged = judged;
        true
    }
}
