//! Invariant 11: each promotion candidate has `path`, `name` and `pitch`
//! strings, and its path names an entry whose lifecycle is classifier-judged.

use std::collections::HashMap;

use super::{EntryFacts, Place, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::schema::PROMOTION_CANDIDATE_FIELDS;
use crate::syntax::{JsonType, Node};
use crate::tier::Evidence;

pub(super) fn check_promotion_candidates(
    sink: &mut Sink,
    candidates: Node<'_>,
    entries: &[EntryFacts],
) {
    let place = Place::ROOT.field("promotion_candidates");
    let Some(items) = candidates.items() else {
        return;
    };
    if items.clone().next().is_none() {
        return;
    }
    let mut by_path: HashMap<&str, Vec<&EntryFacts>> = HashMap::new();
    for entry in entries {
        if let Some((path, _)) = &entry.path {
            by_path.entry(path).or_default().push(entry);
        }
    }
    for (i, item) in items.enumerate() {
        let item_place = place.index(i);
        if !sink.expect_type(item, &item_place, JsonType::Object) {
            continue;
        }
        let path = sink.required_str(item, &item_place, "path");
        sink.required_str(item, &item_place, "name");
        sink.required_str(item, &item_place, "pitch");
        sink.unknown_fields(item, &item_place, &[PROMOTION_CANDIDATE_FIELDS]);
        let Some((path, value)) = path else {
            continue;
        };
        let Some(matches) = by_path.get(path) else {
            sink.report(
                Code::PromotionCandidateUnknownEntry,
                value.range(),
                format!("{} \"{path}\" names no entry; a promotion candidate applies to an entry of this report", item_place.field("path")),
            );
            continue;
        };
        let judged = matches
            .iter()
            .any(|e| matches!(e.evidence, Some((Evidence::ClassifierJudged, _))));
        if !judged {
            let entry = matches[0];
            let (related_range, related_message) = match entry.evidence {
                Some((_, range)) => (range, "its lifecycle has no \"served_when\""),
                None => (entry.range, "the entry has no lifecycle object"),
            };
            sink.push(
                Diagnostic::new(
                    Code::PromotionCandidateNotClassifierJudged,
                    value.range(),
                    format!(
                        "{} \"{path}\" names `entries[{}]`, whose lifecycle is not classifier-judged; candidates apply only to entries whose lifecycle carries \"served_when\"",
                        item_place.field("path"),
                        entry.index
                    ),
                )
                .with_related(related_range, related_message),
            );
        }
    }
}
