//! Invariant 8: an `exact_edit` has a kind from the closed set, the
//! sub-fields that kind requires (anchors, paths, `canonical_ref`, lifecycle,
//! extraction target) and a SHA-256 fingerprint.

use super::lifecycle;
use super::sink::{Place, Sink, check_relative_path, relative_path_problem};
use crate::diagnostic::Code;
use crate::schema::{ANCHOR_FIELDS, EXACT_EDIT_FIELDS, EditKind, ExtractionTarget};
use crate::syntax::{JsonType, Node, Value};
use crate::text::TextRange;
use crate::tier::Evidence;

/// What the entry checks need from its exact edit.
pub(super) struct ExactEdit {
    pub kind: Option<(EditKind, TextRange)>,
    /// The evidence of `exact_edit.lifecycle`, when it has one.
    pub evidence: Option<Evidence>,
}

pub(super) fn check_exact_edit(
    sink: &mut Sink,
    node: Node<'_>,
    place: &Place<'_>,
    entry_path: Option<&str>,
) -> ExactEdit {
    let mut edit = ExactEdit {
        kind: None,
        evidence: None,
    };
    if !sink.expect_type(node, place, JsonType::Object) {
        return edit;
    }
    edit.kind = sink
        .required_enum::<EditKind>(node, place, "kind", Code::UnknownExactEditKind)
        .and_then(|(kind, range)| Some((kind?, range)));
    if let Some((sha, value)) = sink.required_str(node, place, "expected_sha256")
        && !(sha.len() == 64 && sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
    {
        sink.report(
            Code::InvalidSha256,
            value.range(),
            format!(
                "{} must be 64 lowercase hexadecimal digits (a SHA-256 digest), found {} characters{}",
                place.field("expected_sha256"),
                sha.chars().count(),
                if sha.bytes().any(|b| b.is_ascii_uppercase()) { " with uppercase letters" } else { "" }
            ),
        );
    }
    let Some((kind, _)) = edit.kind else {
        sink.unknown_fields(node, place, &[EXACT_EDIT_FIELDS]);
        return edit;
    };
    let (mut anchor, mut canonical) = (None, None);
    for &field in kind.required_fields() {
        let Some(member) = sink.required(node, place, field) else {
            continue;
        };
        let value = member.value;
        let field_place = place.field(field);
        match field {
            "anchor" => {
                anchor = check_anchor(sink, value, &field_place, kind, entry_path)
                    .map(|lines| (lines, value.range()))
            }
            "dest_path" => {
                if let Some((path, value)) = sink.str_value(value, &field_place) {
                    check_relative_path(sink, path, value, &field_place);
                }
            }
            "key" | "value" | "match" | "replacement" => {
                sink.str_value(value, &field_place);
            }
            "canonical_ref" => canonical = check_canonical_ref(sink, value, &field_place),
            "lifecycle" => edit.evidence = lifecycle::check_lifecycle(sink, value, &field_place),
            "extraction_target" => check_extraction_target(sink, node, value, place),
            _ => unreachable!("required field {field} has no check"),
        }
    }
    if let (Some(((start, end), anchor_range)), Some(canonical), Some(path)) =
        (anchor, canonical, entry_path)
        && canonical.path == path
        && canonical.start <= end
        && start <= canonical.end
    {
        // Dedupe is non-destructive only because the removed span survives at canonical_ref.
        sink.push(
            crate::diagnostic::Diagnostic::new(
                Code::InvalidCanonicalRef,
                canonical.range,
                format!(
                    "{} points into the span this dedupe removes (lines {start}-{end} of \"{path}\"), so nothing would preserve it; the kept copy must lie elsewhere",
                    place.field("canonical_ref")
                ),
            )
            .with_related(anchor_range, "the removed span"),
        );
    }
    let common: &[&str] = &["kind", "expected_sha256"];
    let target_doc: &[&str] = if kind == EditKind::ExtractThenDelete {
        &["target_doc"]
    } else {
        &[]
    };
    sink.unknown_fields(node, place, &[common, kind.required_fields(), target_doc]);
    edit
}

/// Line anchors are `{start_line, end_line}`, 1-based, inclusive, in order.
/// A delete's anchor spans the whole file (starts at line 1), or is
/// `{"whole": "directory"}` for a directory aggregate (a path ending in `/`).
fn check_anchor(
    sink: &mut Sink,
    node: Node<'_>,
    place: &Place<'_>,
    kind: EditKind,
    entry_path: Option<&str>,
) -> Option<(u64, u64)> {
    if !sink.expect_type(node, place, JsonType::Object) {
        return None;
    }
    let is_directory = entry_path.is_some_and(|p| p.ends_with('/'));
    if kind.is_lifecycle_op() && is_directory {
        let whole = node.get("whole").and_then(Node::as_str);
        if whole != Some("directory") || node.members().is_some_and(|m| m.count() != 1) {
            sink.report(
                Code::InvalidAnchor,
                node.range(),
                format!("{place} of a directory aggregate must be {{\"whole\": \"directory\"}}"),
            );
        }
        return None;
    }
    let start = line_number(sink, node, place, "start_line");
    let end = line_number(sink, node, place, "end_line");
    sink.unknown_fields(node, place, &[ANCHOR_FIELDS]);
    let (start, end) = (start?, end?);
    // The value at fault is the start line (with the end line for an inverted span).
    let start_range = node.get("start_line").map_or(node.range(), |n| n.range());
    if start > end {
        let end_range = node.get("end_line").map_or(node.range(), |n| n.range());
        sink.push(
            crate::diagnostic::Diagnostic::new(
                Code::InvalidAnchor,
                start_range,
                format!("{place} starts at line {start} after it ends at line {end}; expected start_line <= end_line"),
            )
            .with_related(end_range, "the end line"),
        );
    } else if kind.is_lifecycle_op() && start != 1 {
        sink.report(
            Code::InvalidAnchor,
            start_range,
            format!("{place} of a \"{kind}\" must span the whole file, starting at line 1, but starts at line {start}"),
        );
    }
    (start <= end).then_some((start, end))
}

/// A positive integer line number.
fn line_number(
    sink: &mut Sink,
    anchor: Node<'_>,
    place: &Place<'_>,
    key: &'static str,
) -> Option<u64> {
    let member = sink.required(anchor, place, key)?;
    let value = member.value;
    let Value::Number(raw) = value.value() else {
        sink.wrong_type(value, &place.field(key), "a positive integer line number");
        return None;
    };
    match raw.parse::<u64>() {
        Ok(line) if line >= 1 && !raw.starts_with('0') => Some(line),
        _ => {
            sink.report(
                Code::InvalidAnchor,
                value.range(),
                format!(
                    "{} must be a positive integer (lines count from 1), found {raw}",
                    place.field(key)
                ),
            );
            None
        }
    }
}

/// Where a dedupe's kept copy is: a file and its lines.
struct CanonicalRef<'n> {
    path: &'n str,
    start: u64,
    end: u64,
    range: TextRange,
}

/// `PATH#L<start>-L<end>` with a project-root-relative path and 1 <= start <= end.
fn check_canonical_ref<'n>(
    sink: &mut Sink,
    node: Node<'n>,
    place: &Place<'_>,
) -> Option<CanonicalRef<'n>> {
    let (text, node) = sink.str_value(node, place)?;
    match parse_canonical_ref(text) {
        Ok((path, start, end)) => Some(CanonicalRef {
            path,
            start,
            end,
            range: node.range(),
        }),
        Err(problem) => {
            sink.report(
                Code::InvalidCanonicalRef,
                node.range(),
                format!("{place} \"{text}\" {problem}; expected PATH#L<start>-L<end>, such as \"docs/guide.md#L10-L24\""),
            );
            None
        }
    }
}

pub(crate) fn parse_canonical_ref(text: &str) -> Result<(&str, u64, u64), String> {
    let Some((path, lines)) = text.rsplit_once('#') else {
        return Err("has no #L<start>-L<end> part".into());
    };
    if let Some(problem) = relative_path_problem(path) {
        return Err(format!("has a path that {problem}"));
    }
    let number = |s: Option<&str>| {
        s.and_then(|s| s.strip_prefix('L'))
            .filter(|d| {
                !d.is_empty() && !d.starts_with('0') && d.bytes().all(|b| b.is_ascii_digit())
            })
            .and_then(|d| d.parse::<u64>().ok())
    };
    let mut parts = lines.splitn(2, '-');
    let (Some(start), Some(end)) = (number(parts.next()), number(parts.next())) else {
        return Err("has no valid L<start>-L<end> line span".into());
    };
    if start > end {
        return Err(format!(
            "starts at line {start} after it ends at line {end}"
        ));
    }
    Ok((path, start, end))
}

/// `extraction_target` is a known target; a repo-durable one also needs a
/// project-root-relative `target_doc`.
fn check_extraction_target(sink: &mut Sink, edit: Node<'_>, value: Node<'_>, place: &Place<'_>) {
    let field = place.field("extraction_target");
    let Some((text, value)) = sink.str_value(value, &field) else {
        return;
    };
    let target = sink.closed_enum::<ExtractionTarget>(
        text,
        value,
        &field,
        Code::UnknownExtractionTarget,
        ExtractionTarget::expected_list,
    );
    // Only a repo-durable extraction names the document it extracts into.
    if target != Some(ExtractionTarget::RepoDurable) {
        return;
    }
    if let Some((path, node)) = sink.required_str(edit, place, "target_doc") {
        check_relative_path(sink, path, node, &place.field("target_doc"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_refs() {
        assert_eq!(
            parse_canonical_ref("docs/a.md#L3-L9"),
            Ok(("docs/a.md", 3, 9))
        );
        assert_eq!(parse_canonical_ref("a#b.md#L1-L1"), Ok(("a#b.md", 1, 1)));
        for bad in [
            "docs/a.md",
            "docs/a.md#L9-L3",
            "docs/a.md#3-9",
            "/a.md#L1-L2",
            "a.md#L0-L2",
            "a.md#L1",
            "a.md#L1-L2x",
            "#L1-L2",
        ] {
            assert!(parse_canonical_ref(bad).is_err(), "{bad}");
        }
    }
}
