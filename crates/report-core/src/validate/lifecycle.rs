//! Invariant 9: lifecycle objects carry `rule_ref`, a known `lifetime`, and
//! the served field the lifetime calls for: exactly one of `served_when_path`
//! and `served_when` for `keep` and `delete-once-served`, none for
//! `temporary` (keyed on age, the spec's one exception).

use super::sink::{Place, Sink, check_relative_path, missing_key};
use crate::diagnostic::Code;
use crate::schema::{LIFECYCLE_FIELDS, LIFECYCLE_OPTIONAL_FIELDS, Lifetime};
use crate::syntax::{JsonType, Node};
use crate::tier::Evidence;

/// Checks one lifecycle object and returns the evidence it gives the tier
/// derivation (None when the node is not an object at all).
pub(super) fn check_lifecycle(
    sink: &mut Sink,
    node: Node<'_>,
    place: &Place<'_>,
) -> Option<Evidence> {
    if !sink.expect_type(node, place, JsonType::Object) {
        return None;
    }
    sink.required_str(node, place, "rule_ref");
    let lifetime = sink
        .required_enum::<Lifetime>(node, place, "lifetime", Code::UnknownLifetime)
        .and_then(|(lifetime, _)| lifetime);
    let served_path = node.member("served_when_path");
    let served_when = node.member("served_when");
    if let Some(member) = served_path
        && let Some((path, value)) = sink.str_value(member.value, &place.field("served_when_path"))
    {
        check_relative_path(sink, path, value, &place.field("served_when_path"));
    }
    if let Some(member) = served_when {
        sink.str_value(member.value, &place.field("served_when"));
    }
    match (lifetime, served_path, served_when) {
        (_, Some(path), Some(when)) => {
            let later = if when.key_range.start > path.key_range.start { when } else { path };
            sink.push(
                crate::diagnostic::Diagnostic::new(
                    Code::ServedWhenConflict,
                    later.key_range,
                    format!("{place} has both \"served_when_path\" and \"served_when\"; it must carry exactly one"),
                )
                .with_related(
                    if later.key_range == when.key_range { path.key_range } else { when.key_range },
                    "the other served field",
                ),
            );
        }
        (Some(lifetime @ (Lifetime::DeleteOnceServed | Lifetime::Keep)), None, None) => {
            sink.push(missing_key(
                Code::ServedWhenMissing,
                node,
                format!(
                    "{place} has lifetime \"{lifetime}\" but neither \"served_when_path\" nor \"served_when\"; it must carry exactly one"
                ),
            ))
        }
        (Some(lifetime @ Lifetime::Temporary), path, when) => {
            for member in [path, when].into_iter().flatten() {
                sink.report(
                    Code::ServedWhenUnexpected,
                    member.key_range,
                    format!(
                        "{place} has lifetime \"{lifetime}\", which is keyed on age and carries no served field, but has \"{}\"",
                        member.key
                    ),
                );
            }
        }
        _ => {}
    }
    sink.unknown_fields(node, place, &[LIFECYCLE_FIELDS, LIFECYCLE_OPTIONAL_FIELDS]);
    Some(evidence_of(node))
}

/// The evidence a lifecycle object offers, taking the cautious reading when it is malformed:
/// any `served_when` makes it classifier-judged.
pub(super) fn evidence_of(node: Node<'_>) -> Evidence {
    if node.get("served_when").is_some() {
        return Evidence::ClassifierJudged;
    }
    let lifetime = node
        .get("lifetime")
        .and_then(Node::as_str)
        .and_then(Lifetime::parse);
    match lifetime {
        Some(Lifetime::Temporary) => Evidence::TemporaryAge,
        Some(Lifetime::DeleteOnceServed | Lifetime::Keep)
            if node
                .get("served_when_path")
                .and_then(Node::as_str)
                .is_some() =>
        {
            Evidence::ServedWhenPath
        }
        _ => Evidence::Missing,
    }
}
