//! Hover: the derivation trace on an entry's tier inputs, and a one-line
//! meaning (from the glossary of `invariants.md`) on field names and values.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::Analysis;
use crate::schema::SafetyTier;
use crate::syntax::{Node, Value};
use crate::text::TextRange;
use crate::tier::Outcome;
use crate::validate::{EntryFacts, TierCheck};

/// What to show, and the range it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverInfo {
    pub range: TextRange,
    pub markdown: String,
}

/// The entry fields whose hover shows the derivation trace.
const TIER_FIELDS: &[&str] = &["safety_tier", "op_type", "is_destructive", "is_reversible"];

pub fn hover(analysis: &Analysis, offset: usize) -> Option<HoverInfo> {
    let root = analysis.root()?;
    let path = root.path_to(offset);
    // The innermost member whose key or value holds the offset.
    let (depth, member) = path
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, (member, _))| member.map(|m| (i, m)))?;
    let on_key = member.key_range.touches(offset);
    let on_scalar_value = member.value.range.touches(offset)
        && !matches!(member.value.value, Value::Array(_) | Value::Object(_));
    if !on_key && !on_scalar_value {
        return value_hover(path.last()?.1, offset);
    }
    // entries[i].<tier field>: the path is root, entries, entries[i], member.
    if depth == 3
        && path[1].0.is_some_and(|m| &*m.key == "entries")
        && TIER_FIELDS.contains(&&*member.key)
        && let Some(facts) = entry_at(analysis, path[2].1)
    {
        let range = if on_key {
            member.key_range
        } else {
            member.value.range
        };
        return Some(HoverInfo {
            range,
            markdown: tier_markdown(facts),
        });
    }
    match on_key {
        true => glossary_hover(&member.key, member.key_range),
        false => value_hover(&member.value, offset),
    }
}

fn value_hover(node: &Node, offset: usize) -> Option<HoverInfo> {
    match &node.value {
        Value::String(text) if node.range.touches(offset) => glossary_hover(text, node.range),
        _ => None,
    }
}

fn entry_at<'a>(analysis: &'a Analysis, entry: &Node) -> Option<&'a EntryFacts> {
    analysis.entries.iter().find(|e| e.range == entry.range)
}

fn glossary_hover(name: &str, range: TextRange) -> Option<HoverInfo> {
    let meaning = glossary().get(name)?;
    Some(HoverInfo {
        range,
        markdown: format!("**{name}**: {meaning}"),
    })
}

/// `name -> meaning` from the `## Glossary` section of `invariants.md`.
pub fn glossary() -> &'static HashMap<&'static str, &'static str> {
    static GLOSSARY: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    GLOSSARY.get_or_init(|| {
        let text = include_str!("../invariants.md");
        let section = text.split("\n## Glossary\n").nth(1).unwrap_or_default();
        section
            .lines()
            .filter_map(|line| line.strip_prefix("- `"))
            .filter_map(|line| line.split_once("`: "))
            .collect()
    })
}

/// The Markdown anchor (GitHub style) of invariant `number`'s heading in `invariants.md`.
pub fn invariant_anchor(number: u32) -> Option<String> {
    let prefix = format!("## {number}. ");
    let heading = include_str!("../invariants.md")
        .lines()
        .find(|l| l.starts_with(&prefix))?;
    let slug: String = heading[3..]
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            ' ' => Some('-'),
            _ => None,
        })
        .collect();
    Some(slug)
}

fn tier_markdown(facts: &EntryFacts) -> String {
    let Some(check) = &facts.tier else {
        return format!(
            "**safety_tier** of `entries[{}]` cannot be derived: op_type, is_destructive and is_reversible must all be valid",
            facts.index
        );
    };
    render_trace(facts.index, check)
}

fn render_trace(index: usize, check: &TierCheck) -> String {
    let derivation = &check.derivation;
    let mut out = format!(
        "**safety_tier** of `entries[{index}]`\n\n```\n{}\n```\n\n",
        derivation.inputs
    );
    for (i, step) in derivation.steps.iter().enumerate() {
        let outcome = match step.outcome {
            Outcome::Passed => "passes".to_string(),
            Outcome::Failed => "→ `confirm`".to_string(),
            Outcome::Unknown => "unknown → `confirm` (unknown never yields `auto`)".to_string(),
        };
        out.push_str(&format!(
            "{}. {}? **{}**: {outcome}\n",
            i + 1,
            step.rule.question(),
            step.answer
        ));
    }
    if derivation.deciding_rule().is_none() {
        out.push_str(&format!(
            "{}. every rule passes → `auto`\n",
            derivation.steps.len() + 1
        ));
    }
    let possible: Vec<String> = check.possible.iter().map(|t| format!("`{t}`")).collect();
    out.push_str(&format!("\nDerived: `{}`", derivation.tier));
    if check.possible.len() > 1 {
        out.push_str(&format!(
            " from the report alone; git state is not recorded, so {} are both possible (`auto` needs the evidence satisfied and the path tracked and clean)",
            possible.join(" and ")
        ));
    }
    match check.recorded {
        Some(recorded) if check.agrees() => {
            out.push_str(&format!("\n\nRecorded: `{recorded}`, which agrees."))
        }
        Some(recorded) => {
            let derived: SafetyTier = check.possible[0];
            out.push_str(&format!(
                "\n\nRecorded: `{recorded}`, which **disagrees**: the tier must be `{derived}`."
            ))
        }
        None => out.push_str("\n\nRecorded: not a valid tier."),
    }
    out
}
