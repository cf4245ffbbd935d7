//! The outline: the report's members, its shortlist and candidates, and its
//! entries grouped by class and subtype, each named by its path and
//! classification. Grouping keeps 50 000 entries navigable; past a cap the
//! rest is one notice, as VS Code's JSON server does.

use super::ReportIndex;
use crate::schema::{CategoryClass, CategorySubtype};
use crate::text::TextRange;
use crate::validate::EntryFacts;

/// Entries listed in the outline at most; one notice stands for the rest.
pub const MAX_ENTRY_SYMBOLS: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A member of the report.
    Field,
    Array,
    /// An entry, a promotion candidate.
    Object,
    /// A class or subtype group of entries.
    Group,
    /// The entries left out past the cap.
    Notice,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub detail: Option<String>,
    pub kind: SymbolKind,
    /// What the symbol covers.
    pub range: TextRange,
    /// What to select when it is picked: within `range`.
    pub selection: TextRange,
    pub children: Vec<Symbol>,
}

/// The outline of a report.
pub fn symbols(index: &ReportIndex<'_>) -> Vec<Symbol> {
    index
        .members
        .iter()
        .map(|member| {
            let range = TextRange::new(member.key_range.start, member.value_range.end);
            let mut symbol = Symbol {
                name: member.key.clone(),
                detail: member.items.map(|n| format!("{n} items")),
                kind: match member.items {
                    Some(_) => SymbolKind::Array,
                    None => SymbolKind::Field,
                },
                range,
                selection: member.key_range,
                children: Vec::new(),
            };
            match member.key.as_str() {
                "entries" => {
                    symbol.detail = Some(format!("{} entries", index.entries.len()));
                    symbol.children = entry_groups(index, member.value_range);
                }
                "promotion_candidates" => {
                    symbol.children = index
                        .candidates
                        .iter()
                        .map(|c| Symbol {
                            name: c.path().to_string(),
                            detail: Some("promotion candidate".into()),
                            kind: SymbolKind::Object,
                            range: c.range(),
                            selection: c.range(),
                            children: Vec::new(),
                        })
                        .collect();
                }
                _ => {}
            }
            symbol
        })
        .collect()
}

/// `docs/old.md — stale/orphaned · delete-range · confirm`
pub fn entry_name(entry: &EntryFacts) -> String {
    let path = entry.path.as_ref().map_or("(no path)", |(p, _)| p.as_str());
    let summary = entry.summary();
    let class = summary.class.map_or("?", CategoryClass::as_str);
    let subtype = summary.subtype.map_or("?", CategorySubtype::as_str);
    let mut name = format!("{path} — {class}/{subtype}");
    if let Some(op) = &summary.op {
        name.push_str(&format!(" · {op}"));
    }
    if let Some(tier) = entry.tier.as_ref().and_then(|t| t.recorded) {
        name.push_str(&format!(" · {tier}"));
    }
    name
}

/// Entries under their class, then their subtype, in document order within
/// each; those without a valid class or subtype under "unclassified".
fn entry_groups(index: &ReportIndex<'_>, entries_range: TextRange) -> Vec<Symbol> {
    // class -> subtype -> entries, each in order of first appearance.
    type Subtypes<'e> = Vec<(String, Vec<&'e EntryFacts>)>;
    let mut groups: Vec<(String, Subtypes<'_>)> = Vec::new();
    for entry in &index.entries {
        let class = entry
            .summary()
            .class
            .map_or("unclassified", CategoryClass::as_str);
        let subtype = entry
            .summary()
            .subtype
            .map_or("unclassified", CategorySubtype::as_str);
        let at = match groups.iter().position(|(c, _)| c == class) {
            Some(at) => at,
            None => {
                groups.push((class.to_string(), Vec::new()));
                groups.len() - 1
            }
        };
        let subtypes = &mut groups[at].1;
        match subtypes.iter_mut().find(|(s, _)| s == subtype) {
            Some((_, entries)) => entries.push(entry),
            None => subtypes.push((subtype.to_string(), vec![entry])),
        }
    }
    let mut listed = 0;
    let mut out = Vec::new();
    for (class, subtypes) in groups {
        let count: usize = subtypes.iter().map(|(_, e)| e.len()).sum();
        let mut class_symbol = group(class, count, entries_range);
        for (subtype, entries) in subtypes {
            let mut subtype_symbol = group(subtype, entries.len(), entries_range);
            for entry in entries {
                if listed == MAX_ENTRY_SYMBOLS {
                    break;
                }
                listed += 1;
                subtype_symbol.children.push(Symbol {
                    name: entry_name(entry),
                    detail: None,
                    kind: SymbolKind::Object,
                    range: entry.range,
                    selection: entry.path.as_ref().map_or(entry.range, |(_, r)| *r),
                    children: Vec::new(),
                });
            }
            if let Some(first) = subtype_symbol.children.first() {
                subtype_symbol.selection = first.selection;
            }
            class_symbol.children.push(subtype_symbol);
        }
        if let Some(first) = class_symbol.children.first() {
            class_symbol.selection = first.selection;
        }
        out.push(class_symbol);
    }
    let left_out = index.entries.len().saturating_sub(listed);
    if left_out > 0 {
        out.push(Symbol {
            name: format!("… {left_out} more entries"),
            detail: Some(format!(
                "the outline lists {MAX_ENTRY_SYMBOLS} entries at most"
            )),
            kind: SymbolKind::Notice,
            range: entries_range,
            selection: TextRange::empty(entries_range.start),
            children: Vec::new(),
        });
    }
    out
}

fn group(name: String, count: usize, range: TextRange) -> Symbol {
    Symbol {
        name,
        detail: Some(format!("{count} entries")),
        kind: SymbolKind::Group,
        range,
        selection: TextRange::empty(range.start),
        children: Vec::new(),
    }
}
