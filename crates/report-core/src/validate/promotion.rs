//! Invariant 11: each promotion candidate has `path`, `name` and a one-line
//! `pitch`, and its path names an entry whose lifecycle is classifier-judged.

// foldhash: keys are paths and member names of the report, hashed by the
// hundred thousand; its seeds are random per process.
use foldhash::HashMap;

use super::facts::EntryFacts;
use super::sink::{Place, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::schema::PROMOTION_CANDIDATE_FIELDS;
use crate::syntax::{JsonType, Node};
use crate::text::{Shift, TextRange};
use crate::tier::Evidence;

/// A promotion candidate whose `path` is a string: what judging it against
/// the entries needs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Candidate {
    index: usize,
    path: String,
    range: TextRange,
}

impl Candidate {
    pub fn shift(&mut self, shift: Shift) {
        self.range = shift.range(self.range);
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// The range of its `path` value, where its judgement is reported.
    pub fn range(&self) -> TextRange {
        self.range
    }
}

/// The fields of each candidate; returns those with a string `path`.
pub(super) fn check_candidates(sink: &mut Sink, candidates: Node<'_>) -> Vec<Candidate> {
    let place = Place::ROOT.field("promotion_candidates");
    let mut named = Vec::new();
    for (i, item) in candidates.items().into_iter().flatten().enumerate() {
        let item_place = place.index(i);
        if !sink.expect_type(item, &item_place, JsonType::Object) {
            continue;
        }
        let path = sink.required_str(item, &item_place, "path");
        sink.required_str(item, &item_place, "name");
        if let Some((pitch, value)) = sink.required_str(item, &item_place, "pitch")
            && pitch.contains(['\n', '\r', '\u{2028}', '\u{2029}'])
        {
            sink.report(
                Code::MultilinePitch,
                value.range(),
                format!(
                    "{} has a line break; a pitch is the convention's one-line summary",
                    item_place.field("pitch")
                ),
            );
        }
        sink.unknown_fields(item, &item_place, &[PROMOTION_CANDIDATE_FIELDS]);
        if let Some((path, value)) = path {
            named.push(Candidate {
                index: i,
                path: path.to_string(),
                range: value.range(),
            });
        }
    }
    named
}

/// The entries named by a path: whether any is classifier-judged, and the first.
pub(crate) type Named<'e> = Option<(bool, &'e EntryFacts)>;

/// Whether an entry's lifecycle makes it a possible promotion candidate.
pub(crate) fn classifier_judged(entry: &EntryFacts) -> bool {
    matches!(entry.evidence, Some((Evidence::ClassifierJudged, _)))
}

/// Each candidate's path names an entry whose lifecycle is classifier-judged.
pub(crate) fn judge<'e>(
    candidates: &[Candidate],
    named: impl Fn(&str) -> Named<'e>,
    out: &mut Vec<Diagnostic>,
) {
    let place = Place::ROOT.field("promotion_candidates");
    for candidate in candidates {
        let path_place = place.index(candidate.index);
        let path_place = path_place.field("path");
        let path = &candidate.path;
        match named(path) {
            None => out.push(Diagnostic::new(
                Code::PromotionCandidateUnknownEntry,
                candidate.range,
                format!("{path_place} \"{path}\" names no entry; a promotion candidate applies to an entry of this report"),
            )),
            Some((true, _)) => {}
            Some((false, entry)) => {
                let (related_range, related_message) = match entry.evidence {
                    Some((_, range)) => (range, "its lifecycle has no \"served_when\""),
                    None => (entry.range, "the entry has no lifecycle object"),
                };
                out.push(
                    Diagnostic::new(
                        Code::PromotionCandidateNotClassifierJudged,
                        candidate.range,
                        format!(
                            "{path_place} \"{path}\" names `entries[{}]`, whose lifecycle is not classifier-judged; candidates apply only to entries whose lifecycle carries \"served_when\"",
                            entry.index
                        ),
                    )
                    .with_related(related_range, related_message),
                );
            }
        }
    }
}

/// [`judge`] over all the entries at once.
pub(super) fn judge_all(
    candidates: &[Candidate],
    entries: &[EntryFacts],
    out: &mut Vec<Diagnostic>,
) {
    if candidates.is_empty() {
        return;
    }
    // Only the entries a candidate names: a few, among tens of thousands.
    let mut by_path: HashMap<&str, Option<(bool, &EntryFacts)>> = candidates
        .iter()
        .map(|candidate| (candidate.path(), None))
        .collect();
    for entry in entries {
        if let Some((path, _)) = &entry.path
            && let Some(named) = by_path.get_mut(path.as_str())
        {
            let named = named.get_or_insert((false, entry));
            named.0 |= classifier_judged(entry);
        }
    }
    judge(candidates, |path| by_path.get(path).copied().flatten(), out);
}
