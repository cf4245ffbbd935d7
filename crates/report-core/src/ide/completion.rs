//! Completion at value and key positions, in half-typed text too: the
//! recovering parser leaves a node for `"op_type": "de` and for
//! `"op_type": `, and the path down to it says what is being typed.

use super::ReportIndex;
use crate::entry_text::EntryText;
use crate::fix::TextEdit;
use crate::host::snapshot::Snapshot;
use crate::schema::{
    ANCHOR_FIELDS, CATEGORY_FIELDS, CategoryClass, CategorySubtype, ENTRY_FIELDS,
    ENTRY_OPTIONAL_FIELDS, ENVELOPE_FIELDS, EditKind, ExtractionTarget, InjectionFrequency,
    LIFECYCLE_FIELDS, LIFECYCLE_OPTIONAL_FIELDS, Lifetime, OpType, PROMOTION_CANDIDATE_FIELDS,
    Reversibility, SCAN_FIELDS, SHORTLIST_OBJECT_FIELDS, TOKEN_ESTIMATE_FIELDS,
    TOKEN_ESTIMATE_OPTIONAL_FIELDS,
};
use crate::syntax::{Member, Node, Value};
use crate::text::TextRange;

/// Shortlist paths offered for a path value at most.
pub const MAX_PATH_ITEMS: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A value of a closed set.
    EnumMember,
    /// A key, with a snippet of its value.
    Property,
    /// A path from the shortlist.
    Path,
    /// A whole new entry.
    Snippet,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    /// Markdown.
    pub documentation: Option<String>,
    /// What replaces what; `new_text` is a snippet when `snippet` is set.
    pub edit: TextEdit,
    pub snippet: bool,
    pub preselect: bool,
}

/// The completions at `offset` of a document, in half-typed text too: from
/// the entry's text parsed in place inside an entry, from the envelope's
/// outside them.
pub fn completions_at(document: Snapshot<'_>, offset: usize) -> Vec<CompletionItem> {
    let Some(index) = document.index() else {
        return Vec::new();
    };
    let Some((items, at)) = document.at_tree(offset, |root, text, local| {
        completions(root, text, local, &index)
    }) else {
        return Vec::new();
    };
    items
        .into_iter()
        .map(|mut item| {
            item.edit.range = at.range(item.edit.range);
            item
        })
        .collect()
}

/// The completions at `offset` of the tree `root` parses `text` into.
/// `offset` and every range are in `text`'s offsets. Each edit is on one
/// line and holds `offset`, as the protocol asks of a completion's edit.
pub fn completions(
    root: Node<'_>,
    text: &str,
    offset: usize,
    index: &ReportIndex<'_>,
) -> Vec<CompletionItem> {
    candidates(root, text, offset, index)
        .into_iter()
        .filter_map(|item| holding(item, text, offset))
        .collect()
}

/// `item` with its edit reaching `offset` across the spaces between them
/// (the cursor after `"key":`, the value's edit past the space), the spaces
/// written again so the text comes out the same; None when more than
/// spaces lie between (a tab in a snippet is the client's to re-indent), or
/// the edit spans lines.
fn holding(mut item: CompletionItem, text: &str, offset: usize) -> Option<CompletionItem> {
    let blanks = |gap: &str| gap.bytes().all(|b| b == b' ');
    let range = item.edit.range;
    if range.start > offset {
        let gap = text.get(offset..range.start).filter(|g| blanks(g))?;
        item.edit.new_text.insert_str(0, gap);
        item.edit.range = TextRange::new(offset, range.end);
    } else if range.end < offset {
        let gap = text.get(range.end..offset).filter(|g| blanks(g))?;
        item.edit.new_text.push_str(gap);
        item.edit.range = TextRange::new(range.start, offset);
    }
    let replaced = text.get(item.edit.range.as_range())?;
    (!replaced.contains(['\n', '\r'])).then_some(item)
}

fn candidates(
    root: Node<'_>,
    text: &str,
    offset: usize,
    index: &ReportIndex<'_>,
) -> Vec<CompletionItem> {
    let path = root.path_to(offset);
    let keys: Vec<Option<&str>> = path.iter().map(|(m, _)| m.map(|m| m.key)).collect();
    let Some(&(member, node)) = path.last() else {
        return Vec::new();
    };
    // On a member: its key, or its value.
    if let Some(member) = member {
        if member.key_range.touches(offset) && !member.value.range().touches(offset) {
            let object = path[path.len() - 2].1;
            return keys_of(object, &keys[..keys.len() - 1], Some(member));
        }
        let scalar = !matches!(node.value(), Value::Object | Value::Array);
        if scalar {
            return values_of(
                &keys,
                member,
                node,
                path[path.len() - 2].1,
                text,
                offset,
                index,
            );
        }
    }
    // After `"key": ` with the value still missing, the cursor may stand
    // past the node the parser left for it, with only spaces between.
    let waiting = node.members().into_iter().flatten().find(|m| {
        m.value.is_missing()
            && m.range().end <= offset
            && text[m.range().end..offset].trim().is_empty()
    });
    if let Some(member) = waiting {
        let mut keys = keys.clone();
        keys.push(Some(member.key));
        return values_of(&keys, member, member.value, node, text, offset, index);
    }
    match node.value() {
        Value::Object => keys_of(node, &keys, None)
            .into_iter()
            .map(|mut item| {
                item.edit = TextEdit::insert(offset, item.edit.new_text);
                item
            })
            .collect(),
        Value::Array if keys == [None, Some("entries")] => vec![new_entry(offset)],
        _ => Vec::new(),
    }
}

/// Where in the schema a chain of keys is: array items as `*`.
fn schema_path(keys: &[Option<&str>]) -> Vec<&'static str> {
    keys.iter()
        .skip(1)
        .map(|k| match k {
            None => "*",
            Some(k) => known_key(k),
        })
        .collect()
}

fn known_key(key: &str) -> &'static str {
    const ALL: &[&[&str]] = &[
        ENVELOPE_FIELDS,
        SCAN_FIELDS,
        ENTRY_FIELDS,
        ENTRY_OPTIONAL_FIELDS,
        CATEGORY_FIELDS,
        LIFECYCLE_FIELDS,
        LIFECYCLE_OPTIONAL_FIELDS,
        TOKEN_ESTIMATE_FIELDS,
        TOKEN_ESTIMATE_OPTIONAL_FIELDS,
        PROMOTION_CANDIDATE_FIELDS,
        ANCHOR_FIELDS,
        &[
            "exact_edit",
            "kind",
            "expected_sha256",
            "dest_path",
            "key",
            "value",
            "match",
            "replacement",
            "canonical_ref",
            "extraction_target",
            "target_doc",
            "whole",
        ],
    ];
    ALL.iter()
        .flat_map(|set| set.iter())
        .find(|k| **k == key)
        .copied()
        .unwrap_or("?")
}

fn values_of(
    keys: &[Option<&str>],
    member: Member<'_>,
    value: Node<'_>,
    object: Node<'_>,
    text: &str,
    offset: usize,
    index: &ReportIndex<'_>,
) -> Vec<CompletionItem> {
    let at = schema_path(keys);
    // A missing value is typed at the cursor; anything else is replaced whole.
    let range = match value.is_missing() {
        true => TextRange::empty(offset),
        false => value.range(),
    };
    let typed = text[value.range().start..offset.max(value.range().start)].trim_start_matches('"');
    let strings = |values: Vec<(&'static str, Option<String>)>| -> Vec<CompletionItem> {
        values
            .into_iter()
            .map(|(v, doc)| CompletionItem {
                label: v.to_string(),
                kind: CompletionKind::EnumMember,
                detail: Some(member.key.to_string()),
                documentation: doc
                    .or_else(|| crate::docs::glossary().get(v).map(|m| m.to_string())),
                edit: TextEdit::replace(range, format!("\"{v}\"")),
                snippet: false,
                preselect: false,
            })
            .collect()
    };
    let sibling = |key: &str| object.get(key).and_then(Node::as_str);
    match at.as_slice() {
        ["entries", "*", "category", "class"] => {
            strings(all(CategoryClass::ALL, CategoryClass::as_str))
        }
        ["entries", "*", "category", "subtype"] => {
            let class = sibling("class").and_then(CategoryClass::parse);
            strings(
                CategorySubtype::ALL
                    .iter()
                    .filter(|s| class.is_none_or(|c| s.class() == c))
                    .map(|s| (s.as_str(), None))
                    .collect(),
            )
        }
        ["entries", "*", "op_type"] => strings(all(OpType::ALL, OpType::as_str)),
        ["entries", "*", "exact_edit", "kind"] => strings(all(EditKind::ALL, EditKind::as_str)),
        [.., "lifecycle", "lifetime"] => strings(all(Lifetime::ALL, Lifetime::as_str)),
        ["entries", "*", "exact_edit", "extraction_target"] => {
            strings(all(ExtractionTarget::ALL, ExtractionTarget::as_str))
        }
        ["entries", "*", "token_estimate", "injection_frequency"] => {
            let mut items = strings(all(InjectionFrequency::ALL, InjectionFrequency::as_str));
            items.push(CompletionItem {
                label: "null".into(),
                kind: CompletionKind::EnumMember,
                detail: Some("v1: not weighted".into()),
                documentation: None,
                edit: TextEdit::replace(range, "null"),
                snippet: false,
                preselect: false,
            });
            items
        }
        ["entries", "*", "safety_tier"] => derived_tier(text, object, member, range),
        ["entries", "*", field @ ("is_destructive" | "is_reversible")] => {
            characterization(object, field, range)
        }
        ["entries", "*", "path"] | ["promotion_candidates", "*", "path"] => {
            shortlist_paths(index, typed, range)
        }
        _ => Vec::new(),
    }
}

fn all<T: Copy>(
    values: &[T],
    as_str: fn(T) -> &'static str,
) -> Vec<(&'static str, Option<String>)> {
    values.iter().map(|&v| (as_str(v), None)).collect()
}

/// Only the tier `derive_safety_tier` gives for the entry's recorded
/// inputs, with the trace as its documentation. The entry is checked again
/// with a valid tier in place of what is being typed.
fn derived_tier(
    text: &str,
    entry: Node<'_>,
    member: Member<'_>,
    range: TextRange,
) -> Vec<CompletionItem> {
    let entry_range = entry.range();
    let value = member.value.range();
    let mut candidate = String::with_capacity(entry_range.len() + 10);
    candidate.push_str(&text[entry_range.start..value.start]);
    candidate.push_str("\"confirm\"");
    candidate.push_str(&text[value.end..entry_range.end]);
    let Some(parsed) = EntryText::parse(&candidate) else {
        return Vec::new();
    };
    let Some(item) = parsed.item() else {
        return Vec::new();
    };
    let facts = crate::validate::entry_facts_as_parsed(parsed.text(), item, 0);
    let Some(tier) = &facts.tier else {
        return Vec::new();
    };
    let derived = tier.derivation.tier;
    let doc = crate::hover::tier_markdown(&facts);
    vec![CompletionItem {
        label: derived.to_string(),
        kind: CompletionKind::EnumMember,
        detail: Some("derived by derive_safety_tier".into()),
        documentation: Some(doc),
        edit: TextEdit::replace(range, format!("\"{derived}\"")),
        snippet: false,
        preselect: true,
    }]
}

/// `true` and `false`, the exact edit's kind's own value first.
fn characterization(entry: Node<'_>, field: &str, range: TextRange) -> Vec<CompletionItem> {
    let kind = entry
        .get("exact_edit")
        .and_then(|e| e.get("kind"))
        .and_then(Node::as_str)
        .and_then(EditKind::parse);
    let fixed = kind.and_then(|kind| {
        let c = kind.characterization();
        match field {
            "is_destructive" => Some((kind, c.is_destructive)),
            _ => match c.is_reversible {
                Reversibility::Fixed(v) => Some((kind, v)),
                Reversibility::GitDependent => None,
            },
        }
    });
    let mut values = vec![true, false];
    if let Some((_, value)) = fixed
        && !value
    {
        values.reverse();
    }
    values
        .into_iter()
        .map(|value| CompletionItem {
            label: value.to_string(),
            kind: CompletionKind::EnumMember,
            detail: fixed
                .filter(|(_, v)| *v == value)
                .map(|(kind, _)| format!("kind \"{kind}\" is characterized so")),
            documentation: None,
            edit: TextEdit::replace(range, value.to_string()),
            snippet: false,
            preselect: fixed.is_some_and(|(_, v)| v == value),
        })
        .collect()
}

fn shortlist_paths(index: &ReportIndex<'_>, typed: &str, range: TextRange) -> Vec<CompletionItem> {
    let Some(shortlist) = index.shortlist else {
        return Vec::new();
    };
    let mut paths: Vec<&str> = shortlist.paths().filter(|p| p.starts_with(typed)).collect();
    // The first ones in order, without sorting every path of a huge shortlist.
    if paths.len() > MAX_PATH_ITEMS {
        paths.select_nth_unstable(MAX_PATH_ITEMS);
        paths.truncate(MAX_PATH_ITEMS);
    }
    paths.sort_unstable();
    paths
        .into_iter()
        .map(|path| CompletionItem {
            label: path.to_string(),
            kind: CompletionKind::Path,
            detail: Some("in the shortlist".into()),
            documentation: None,
            edit: TextEdit::replace(range, crate::fix::json_string(path)),
            snippet: false,
            preselect: false,
        })
        .collect()
}

/// The keys `object` lacks, each with a snippet of its value's type.
fn keys_of(
    object: Node<'_>,
    keys: &[Option<&str>],
    typing: Option<Member<'_>>,
) -> Vec<CompletionItem> {
    let at = schema_path(keys);
    let kind = object
        .get("kind")
        .and_then(Node::as_str)
        .and_then(EditKind::parse);
    let fields: Vec<&str> = match at.as_slice() {
        [] => ENVELOPE_FIELDS.to_vec(),
        ["scan"] => SCAN_FIELDS.to_vec(),
        ["shortlist", "*"] => SHORTLIST_OBJECT_FIELDS.to_vec(),
        ["entries", "*"] => [ENTRY_FIELDS, ENTRY_OPTIONAL_FIELDS].concat(),
        ["entries", "*", "category"] => CATEGORY_FIELDS.to_vec(),
        [.., "lifecycle"] => [LIFECYCLE_FIELDS, LIFECYCLE_OPTIONAL_FIELDS].concat(),
        ["entries", "*", "token_estimate"] => {
            [TOKEN_ESTIMATE_FIELDS, TOKEN_ESTIMATE_OPTIONAL_FIELDS].concat()
        }
        ["entries", "*", "exact_edit"] => {
            let mut fields = vec!["kind", "expected_sha256"];
            fields.extend(kind.map_or(&[][..], EditKind::required_fields));
            fields
        }
        ["entries", "*", "exact_edit", "anchor"] => ANCHOR_FIELDS.to_vec(),
        ["promotion_candidates", "*"] => PROMOTION_CANDIDATE_FIELDS.to_vec(),
        _ => Vec::new(),
    };
    let typed_key = typing.map(|m| m.key);
    fields
        .into_iter()
        .filter(|f| object.member(f).is_none() || typed_key == Some(*f))
        .map(|field| {
            let (range, new_text) = match typing {
                // A key of a member with a value: only the key changes.
                Some(m) if !m.value.is_missing() => (m.key_range, format!("\"{field}\"")),
                Some(m) => (
                    TextRange::new(m.key_range.start, m.range().end.max(m.key_range.end)),
                    format!("\"{field}\": {}", value_snippet(field)),
                ),
                None => (
                    TextRange::empty(0),
                    format!("\"{field}\": {}", value_snippet(field)),
                ),
            };
            CompletionItem {
                label: field.to_string(),
                kind: CompletionKind::Property,
                detail: None,
                documentation: crate::docs::glossary().get(field).map(|m| m.to_string()),
                edit: TextEdit::replace(range, new_text),
                snippet: true,
                preselect: false,
            }
        })
        .collect()
}

/// A snippet of the value a field takes.
fn value_snippet(field: &str) -> &'static str {
    match field {
        "is_destructive" | "is_reversible" => "${1|false,true|}",
        "files_scanned" | "raw_tokens" | "start_line" | "end_line" => "${1:0}",
        "weighted_tokens" => "${1:null}",
        "scope_globs"
        | "excluded_dirs"
        | "signals"
        | "shortlist"
        | "entries"
        | "promotion_candidates" => "[$1]",
        "scan" | "category" | "token_estimate" | "exact_edit" | "lifecycle" | "anchor" => "{$1}",
        "op_type" => "\"${1|deterministic,generative|}\"",
        "safety_tier" => "\"${1|confirm,auto|}\"",
        _ => "\"$1\"",
    }
}

/// A whole entry: every required field, with placeholders.
fn new_entry(offset: usize) -> CompletionItem {
    let skeleton = r#"{
  "path": "${1:docs/file.md}",
  "category": {"class": "${2|stale,bloat|}", "subtype": "${3}"},
  "signals": [${4}],
  "op": "${5}",
  "op_type": "${6|deterministic,generative|}",
  "is_destructive": ${7|false,true|},
  "is_reversible": ${8|true,false|},
  "safety_tier": "${9|confirm,auto|}",
  "token_estimate": {"raw_tokens": ${10:0}}
}"#;
    CompletionItem {
        label: "new entry".into(),
        kind: CompletionKind::Snippet,
        detail: Some("an entry with every required field".into()),
        documentation: None,
        edit: TextEdit::insert(offset, skeleton),
        snippet: true,
        preselect: false,
    }
}
