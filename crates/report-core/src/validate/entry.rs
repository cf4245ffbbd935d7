//! One entry on its own: its fields and types (invariant 2), the category
//! taxonomy (5), `op`/`op_type`/`exact_edit` consistency (6), lifecycle
//! presence on delete kinds (9), token estimate (10), and its tier (7).

use super::exact_edit::{self, ExactEdit};
use super::facts::{EntryFacts, EntryLinks, EntrySummary, TierCheck};
use super::sink::{Place, Sink, check_relative_path, missing_key, same_json};
use super::{lifecycle, safety_tier};
use crate::diagnostic::{Code, Diagnostic};
use crate::fix::{self, Fix, TextEdit};
use crate::schema::{
    CATEGORY_FIELDS, CategoryClass, CategorySubtype, ENTRY_FIELDS, ENTRY_OPTIONAL_FIELDS, EditKind,
    InjectionFrequency, OpType, Reversibility, SafetyTier, TOKEN_ESTIMATE_FIELDS,
    TOKEN_ESTIMATE_OPTIONAL_FIELDS,
};
use crate::syntax::{JsonType, Member, Node, Value};
use crate::text::TextRange;
use crate::tier::{self, Evidence, LifecycleInput, TierInputs};

/// Checks one entry, invariant by invariant, and gathers its facts.
pub(super) fn check_entry(sink: &mut Sink, node: Node<'_>, index: usize) -> EntryFacts {
    let entries = Place::ROOT.field("entries");
    let place = entries.index(index);
    let mut facts = EntryFacts {
        index,
        range: node.range(),
        path: None,
        evidence: None,
        tier: None,
        summary: None,
        links: None,
    };
    if !sink.expect_type(node, &place, JsonType::Object) {
        return facts;
    }
    facts.summary = Some(Box::new(EntrySummary::of(node)));
    facts.links = EntryLinks::of(node);
    let fields = check_fields(sink, node, &place);
    let edit = check_edit(sink, node, &place, fields.path.map(|(path, _)| path));
    check_op_type(sink, node, &place, &fields, edit.as_ref());
    let is_lifecycle_op = is_lifecycle_op(&fields, edit.as_ref());
    facts.evidence = check_lifecycle_presence(sink, node, &place, is_lifecycle_op, edit.as_ref());
    // Only a delete op's tier depends on its lifecycle evidence.
    let lifecycle = is_lifecycle_op.then(|| facts.evidence.map_or(Evidence::Missing, |(e, _)| e));
    if let Some((kind, kind_range)) = edit.as_ref().and_then(|e| e.checked.kind) {
        check_characterization(sink, &place, kind, kind_range, &fields, lifecycle);
    }
    let kind = edit
        .as_ref()
        .and_then(|e| e.checked.kind)
        .map(|(kind, _)| kind);
    let start = node.range().start;
    facts.tier = check_tier(sink, &place, &fields, lifecycle, kind, start).map(Box::new);
    facts.path = fields.path.map(|(path, range)| (path.to_string(), range));
    sink.unknown_fields(node, &place, &[ENTRY_FIELDS, ENTRY_OPTIONAL_FIELDS]);
    facts
}

/// What an entry records, each field as far as it is present with the right type.
struct EntryFields<'n> {
    /// `path` and the range of its value.
    path: Option<(&'n str, TextRange)>,
    op: Option<(&'n str, Node<'n>)>,
    op_type: Option<OpType>,
    is_destructive: Option<(bool, TextRange)>,
    is_reversible: Option<(bool, TextRange)>,
    /// The range of the `safety_tier` value, with the tier when it names one.
    tier: Option<(Option<SafetyTier>, TextRange)>,
}

/// An entry's `exact_edit` member and what its own checks (invariant 8) found.
struct EntryEdit<'n> {
    member: Member<'n>,
    checked: ExactEdit,
}

/// Invariant 2: the required fields are present with their types; `category`
/// (5) and `token_estimate` (10) are checked inside.
fn check_fields<'n>(sink: &mut Sink, node: Node<'n>, place: &Place<'_>) -> EntryFields<'n> {
    let path = sink.required_str(node, place, "path");
    if let Some((path, value)) = path {
        check_relative_path(sink, path, value, &place.field("path"));
    }
    if let Some(member) = sink.required(node, place, "category") {
        check_category(sink, member.value, &place.field("category"));
    }
    if let Some(member) = sink.required(node, place, "signals") {
        sink.string_array(member.value, &place.field("signals"));
    }
    let op = sink.required_str(node, place, "op");
    let op_type = sink
        .required_enum::<OpType>(node, place, "op_type", Code::UnknownOpType)
        .and_then(|(op_type, _)| op_type);
    let is_destructive = sink.required_bool(node, place, "is_destructive");
    let is_reversible = sink.required_bool(node, place, "is_reversible");
    let tier =
        sink.required_enum::<SafetyTier>(node, place, "safety_tier", Code::UnknownSafetyTier);
    if let Some(member) = sink.required(node, place, "token_estimate") {
        check_token_estimate(sink, member.value, &place.field("token_estimate"));
    }
    EntryFields {
        path: path.map(|(path, value)| (path, value.range())),
        op,
        op_type,
        is_destructive,
        is_reversible,
        tier,
    }
}

/// Invariant 8 through [`exact_edit::check_exact_edit`], when the entry has an `exact_edit`.
fn check_edit<'n>(
    sink: &mut Sink,
    node: Node<'n>,
    place: &Place<'_>,
    entry_path: Option<&str>,
) -> Option<EntryEdit<'n>> {
    let member = node.member("exact_edit")?;
    let checked =
        exact_edit::check_exact_edit(sink, member.value, &place.field("exact_edit"), entry_path);
    Some(EntryEdit { member, checked })
}

/// Invariant 5: `category` has a known class and a known subtype of that class.
fn check_category(sink: &mut Sink, node: Node<'_>, place: &Place<'_>) {
    if !sink.expect_type(node, place, JsonType::Object) {
        return;
    }
    let class = sink
        .required_enum::<CategoryClass>(node, place, "class", Code::UnknownCategoryClass)
        .and_then(|(class, range)| Some((class?, range)));
    if let Some((text, value)) = sink.required_str(node, place, "subtype") {
        check_subtype(sink, text, value, &place.field("subtype"), class);
    }
    sink.unknown_fields(node, place, &[CATEGORY_FIELDS]);
}

/// A subtype is a known one and, when the class is known, one of the class's:
/// an unknown subtype is then told the class's subtypes only.
fn check_subtype(
    sink: &mut Sink,
    text: &str,
    value: Node<'_>,
    place: &Place<'_>,
    class: Option<(CategoryClass, TextRange)>,
) {
    let expected = || match class {
        Some((class, _)) => subtypes_of(class),
        None => CategorySubtype::expected_list(),
    };
    let subtype = sink.closed_enum::<CategorySubtype>(
        text,
        value,
        place,
        Code::UnknownCategorySubtype,
        expected,
    );
    let (Some(subtype), Some((class, class_range))) = (subtype, class) else {
        return;
    };
    if subtype.class() == class {
        return;
    }
    sink.push(
        Diagnostic::new(
            Code::SubtypeClassMismatch,
            value.range(),
            format!(
                "subtype \"{subtype}\" belongs to class \"{}\", not \"{class}\"; a \"{class}\" subtype is one of {}",
                subtype.class(),
                subtypes_of(class)
            ),
        )
        .with_related(class_range, format!("class is \"{class}\"")),
    );
}

/// The subtypes of `class`, quoted and comma-separated, for messages.
fn subtypes_of(class: CategoryClass) -> String {
    CategorySubtype::of_class(class)
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Invariant 6: `op_type` decides whether the entry carries an `exact_edit`
/// and what its `op` may be.
fn check_op_type(
    sink: &mut Sink,
    node: Node<'_>,
    place: &Place<'_>,
    fields: &EntryFields<'_>,
    edit: Option<&EntryEdit<'_>>,
) {
    let Some(op_type) = fields.op_type else {
        return;
    };
    check_edit_presence(sink, node, place, op_type, edit.map(|e| e.member));
    if let Some((op, op_node)) = fields.op {
        check_op(sink, place, op, op_node, op_type, edit.map(|e| &e.checked));
    }
}

/// A deterministic op carries its `exact_edit`; a generative one does not.
fn check_edit_presence(
    sink: &mut Sink,
    node: Node<'_>,
    place: &Place<'_>,
    op_type: OpType,
    edit: Option<Member<'_>>,
) {
    match (op_type, edit) {
        (OpType::Deterministic, None) => sink.push(missing_key(
            Code::ExactEditMissing,
            node,
            format!("{place} has op_type \"deterministic\" but no \"exact_edit\"; a deterministic op carries its pre-computed edit"),
        )),
        (OpType::Generative, Some(member)) => sink.push(
            Diagnostic::new(
                Code::ExactEditForbidden,
                member.key_range,
                format!("{place} has op_type \"generative\" but carries \"exact_edit\"; a generative op's edit is produced at clean time"),
            )
            .with_related(op_type_range(node), "op_type is \"generative\"")
            .with_fix(Some(Fix {
                title: "Remove exact_edit from this generative entry".into(),
                edits: fix::remove_member(node, last_member_index(node, "exact_edit")),
                // op_type may be the mistake instead, so this is not applied blindly.
                preferred: false,
            })),
        ),
        _ => {}
    }
}

/// The position among `object`'s members of the last one named `key` (the
/// one that counts when a key repeats), 0 when there is none.
fn last_member_index(object: Node<'_>, key: &str) -> usize {
    object
        .members()
        .and_then(|members| members.enumerate().filter(|(_, m)| m.key == key).last())
        .map_or(0, |(index, _)| index)
}

/// The `op_type` value of `entry`, or the entry itself when it has none.
fn op_type_range(entry: Node<'_>) -> TextRange {
    entry.get("op_type").map_or(entry.range(), |n| n.range())
}

/// `op` names the chosen op: the exact-edit kind for a deterministic entry, a
/// prose transformation that is no kind name for a generative one.
fn check_op(
    sink: &mut Sink,
    place: &Place<'_>,
    op: &str,
    op_node: Node<'_>,
    op_type: OpType,
    edit: Option<&ExactEdit>,
) {
    let op_place = place.field("op");
    match op_type {
        OpType::Deterministic => {
            let Some((kind, kind_range)) = edit.and_then(|e| e.kind) else {
                return;
            };
            if op == kind.as_str() {
                return;
            }
            sink.push(
                Diagnostic::new(
                    Code::OpMismatch,
                    op_node.range(),
                    format!("{op_place} is \"{op}\" but the exact edit's kind is \"{kind}\"; a deterministic op is named by its kind"),
                )
                .with_related(kind_range, format!("exact_edit.kind is \"{kind}\"")),
            );
        }
        OpType::Generative => {
            if op.trim().is_empty() {
                sink.report(Code::OpMismatch, op_node.range(), format!("{op_place} is empty; a generative op names its prose transformation, such as \"rewrite\""));
            } else if let Some(kind) = EditKind::parse(op) {
                sink.report(
                    Code::OpMismatch,
                    op_node.range(),
                    format!("{op_place} is \"{kind}\", an exact-edit kind, but op_type is \"generative\"; a generative op is a prose transformation such as \"rewrite\""),
                );
            }
        }
    }
}

/// Whether the entry is a delete op: by its exact edit's kind, or by `op`
/// when the kind is not known.
fn is_lifecycle_op(fields: &EntryFields<'_>, edit: Option<&EntryEdit<'_>>) -> bool {
    edit.and_then(|e| e.checked.kind)
        .map(|(kind, _)| kind)
        .or_else(|| fields.op.and_then(|(op, _)| EditKind::parse(op)))
        .is_some_and(EditKind::is_lifecycle_op)
}

/// Invariant 9 on the entry: a delete op carries a `lifecycle`, and the one
/// its exact edit carries is the same. Returns the evidence of the two that
/// allows less, with the range of its lifecycle.
fn check_lifecycle_presence(
    sink: &mut Sink,
    node: Node<'_>,
    place: &Place<'_>,
    is_lifecycle_op: bool,
    edit: Option<&EntryEdit<'_>>,
) -> Option<(Evidence, TextRange)> {
    let entry_lifecycle = node.member("lifecycle");
    let entry_evidence = entry_lifecycle.and_then(|m| {
        lifecycle::check_lifecycle(sink, m.value, &place.field("lifecycle"))
            .map(|e| (e, m.value.range()))
    });
    let edit_lifecycle = edit.and_then(|e| e.member.value.member("lifecycle"));
    if is_lifecycle_op && entry_lifecycle.is_none() {
        sink.push(missing_key(
            Code::LifecycleRequired,
            node,
            format!("{place} is a delete op but has no \"lifecycle\" object; delete and extract-then-delete entries carry the lifecycle signal that justifies them"),
        ));
    }
    if let (Some(outer), Some(inner)) = (entry_lifecycle, edit_lifecycle)
        && !same_json(outer.value, inner.value)
    {
        sink.push(
            Diagnostic::new(
                Code::LifecycleMismatch,
                inner.value.range(),
                format!(
                    "{} differs from {}; the two must be identical",
                    place.field("exact_edit").field("lifecycle"),
                    place.field("lifecycle")
                ),
            )
            .with_related(outer.value.range(), "the entry's lifecycle"),
        );
    }
    let edit_evidence = edit.and_then(|e| e.checked.evidence).map(|evidence| {
        (
            evidence,
            edit_lifecycle.map_or(node.range(), |m| m.value.range()),
        )
    });
    cautious(entry_evidence, edit_evidence)
}

/// Of two lifecycle evidences, the one that allows less (not scanner-proven wins).
fn cautious(
    a: Option<(Evidence, TextRange)>,
    b: Option<(Evidence, TextRange)>,
) -> Option<(Evidence, TextRange)> {
    match (a, b) {
        (Some(a), Some(b)) if a.0.is_scanner_proven() && !b.0.is_scanner_proven() => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

/// Invariant 7: the recorded tier is the derived one. Needs every input of
/// the derivation; `lifecycle` is Some for delete ops.
fn check_tier(
    sink: &mut Sink,
    place: &Place<'_>,
    fields: &EntryFields<'_>,
    lifecycle: Option<Evidence>,
    kind: Option<EditKind>,
    entry_start: usize,
) -> Option<TierCheck> {
    let (Some(op_type), Some((is_destructive, _)), Some((is_reversible, _))) =
        (fields.op_type, fields.is_destructive, fields.is_reversible)
    else {
        return None;
    };
    Some(safety_tier::check_safety_tier(
        sink,
        place,
        safety_tier::Recorded {
            op_type,
            is_destructive,
            is_reversible,
            lifecycle,
            kind,
            tier: fields.tier.and_then(|(tier, _)| tier),
            tier_range: fields.tier.map(|(_, range)| range),
            entry_start,
        },
    ))
}

/// Invariant 8 on the entry: `is_destructive` and `is_reversible` equal the
/// kind's fixed characterization; the fix also rederives a tier it makes wrong.
fn check_characterization(
    sink: &mut Sink,
    place: &Place<'_>,
    kind: EditKind,
    kind_range: TextRange,
    fields: &EntryFields<'_>,
    lifecycle: Option<Evidence>,
) {
    let characterization = kind.characterization();
    let expected_reversible = match characterization.is_reversible {
        Reversibility::Fixed(value) => Some(value),
        Reversibility::GitDependent => None,
    };
    let checks = [
        (
            "is_destructive",
            fields.is_destructive,
            Some(characterization.is_destructive),
        ),
        ("is_reversible", fields.is_reversible, expected_reversible),
    ];
    for (field, value, expected) in checks {
        let (Some((value, range)), Some(expected)) = (value, expected) else {
            continue;
        };
        if value == expected {
            continue;
        }
        let mut fix = Fix {
            title: format!("Set {field} to {expected} (kind \"{kind}\")"),
            edits: vec![TextEdit::replace(range, expected.to_string())],
            preferred: true,
        };
        // Correcting an input of the derivation can change the tier; keep the two consistent.
        if let (Some(new_tier), Some((_, tier_range))) = (
            rederived_tier(fields, lifecycle, field, expected),
            fields.tier,
        ) {
            fix.title
                .push_str(&format!(" and safety_tier to \"{new_tier}\" (derived)"));
            fix.edits
                .push(TextEdit::replace(tier_range, format!("\"{new_tier}\"")));
        }
        sink.push(
            Diagnostic::new(
                Code::CharacterizationMismatch,
                range,
                format!(
                    "{} is {value}, but kind \"{kind}\" is {}, so it must be {expected}",
                    place.field(field),
                    describe(field, expected)
                ),
            )
            .with_related(kind_range, format!("exact_edit.kind is \"{kind}\""))
            .with_fix(Some(fix)),
        );
    }
}

/// The tier `derive_safety_tier` gives once `field` is set to `value`, when
/// the recorded tier is not one it can give then (None when it still is).
fn rederived_tier(
    fields: &EntryFields<'_>,
    lifecycle: Option<Evidence>,
    field: &str,
    value: bool,
) -> Option<SafetyTier> {
    let tier = fields.tier?.0?;
    let mut is_destructive = fields.is_destructive?.0;
    let mut is_reversible = fields.is_reversible?.0;
    match field {
        "is_destructive" => is_destructive = value,
        _ => is_reversible = value,
    }
    let possible = tier::possible_tiers(TierInputs {
        op_type: fields.op_type?,
        is_destructive,
        is_reversible,
        lifecycle: lifecycle.map(LifecycleInput::from_text),
    });
    (!possible.contains(&tier)).then(|| possible[0])
}

/// The property a characterization boolean states, in words.
fn describe(field: &str, value: bool) -> &'static str {
    match (field, value) {
        ("is_destructive", true) => "destructive",
        ("is_destructive", false) => "non-destructive",
        (_, true) => "reversible",
        (_, false) => "irreversible",
    }
}

/// Invariant 10: `token_estimate` has a `raw_tokens` count and, when present,
/// a known `injection_frequency` and a numeric `weighted_tokens` (each may be null).
fn check_token_estimate(sink: &mut Sink, node: Node<'_>, place: &Place<'_>) {
    if !sink.expect_type(node, place, JsonType::Object) {
        return;
    }
    if let Some(member) = sink.required(node, place, "raw_tokens") {
        sink.count(member.value, &place.field("raw_tokens"));
    }
    if let Some(value) = node.get("injection_frequency") {
        let field = place.field("injection_frequency");
        match value.value() {
            Value::Null => {}
            Value::String(text) => {
                sink.closed_enum::<InjectionFrequency>(
                    text,
                    value,
                    &field,
                    Code::UnknownInjectionFrequency,
                    || format!("{} or null", InjectionFrequency::expected_list()),
                );
            }
            _ => sink.wrong_type(value, &field, "a string or null"),
        }
    }
    if let Some(value) = node.get("weighted_tokens")
        && !matches!(value.value(), Value::Null | Value::Number(_))
    {
        sink.wrong_type(value, &place.field("weighted_tokens"), "a number or null");
    }
    sink.unknown_fields(
        node,
        place,
        &[TOKEN_ESTIMATE_FIELDS, TOKEN_ESTIMATE_OPTIONAL_FIELDS],
    );
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::fixture::{fixes_at, report_with_entry};

    #[test]
    fn characterization_fix_also_rederives_the_tier() {
        let entry = r#"{"path": "docs/a.md", "category": {"class": "stale", "subtype": "orphaned"}, "signals": [],
      "op": "delete-range", "op_type": "deterministic", "is_destructive": fal$0se, "is_reversible": false, "safety_tier": "auto",
      "token_estimate": {"raw_tokens": 5},
      "exact_edit": {"kind": "delete-range", "anchor": {"start_line": 2, "end_line": 4}, "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}"#;
        // The recorded auto agrees with the wrong inputs; once they are right it must be confirm.
        expect![[r#"
            Set is_destructive to true (kind "delete-range") and safety_tier to "confirm" (derived) (characterization-mismatch)
                  "op": "delete-range", "op_type": "deterministic", "is_destructive": true, "is_reversible": false, "safety_tier": "confirm",
        "#]]
        .assert_eq(&fixes_at(&report_with_entry(entry)));
    }

    #[test]
    fn exact_edit_is_removed_from_a_generative_entry_with_its_comma() {
        let entry = r#"{"path": "docs/a.md", "category": {"class": "stale", "subtype": "contradicted"}, "signals": [],
      "op": "rewrite", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "confirm",
      "token_estimate": {"raw_tokens": 5},
      "exact_$0edit": {"kind": "delete-range", "anchor": {"start_line": 2, "end_line": 4}, "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}"#;
        expect![[r#"
            Remove exact_edit from this generative entry (exact-edit-forbidden)
                  "token_estimate": {"raw_tokens": 5}}
        "#]]
        .assert_eq(&fixes_at(&report_with_entry(entry)));
    }
}
