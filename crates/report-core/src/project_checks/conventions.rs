//! `conventions.json` as we read it, and the deterministic finalize rule
//! that turns it and the report's lifecycle entries into promotion
//! candidates (both written down in invariants.md, Readings).

use crate::syntax::Node;

/// One convention of `conventions.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Convention {
    pub name: String,
    pub pitch: String,
    /// Already adopted by the project: never a candidate.
    pub adopted: bool,
    /// The rulebook rules (`lifecycle.rule_ref`) the convention replaces.
    pub rule_refs: Vec<String>,
}

/// Reads `{"conventions": [{name, pitch, adopted?, rule_refs?}]}` (a bare
/// array of the same objects is accepted too).
pub fn parse_conventions(text: &str) -> Result<Vec<Convention>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let list = match &value {
        serde_json::Value::Array(list) => list,
        other => other
            .get("conventions")
            .and_then(|c| c.as_array())
            .ok_or("expected an object with a `conventions` array")?,
    };
    list.iter()
        .map(|item| {
            let text = |key: &str| item.get(key).and_then(|v| v.as_str()).map(str::to_string);
            Ok(Convention {
                name: text("name").ok_or("a convention without a string `name`")?,
                pitch: text("pitch").unwrap_or_default(),
                adopted: item
                    .get("adopted")
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false),
                rule_refs: item
                    .get("rule_refs")
                    .and_then(|v| v.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|r| r.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// The finalize rule: an entry whose lifecycle carries `served_when`
/// (classifier-judged) gets one candidate per unadopted convention whose
/// `rule_refs` names the entry's `lifecycle.rule_ref`. Returns the entry's
/// path node and the convention, in the conventions' order.
pub(super) fn entry_candidates<'t, 'c>(
    entry: Node<'t>,
    conventions: &'c [Convention],
) -> Vec<(Node<'t>, &'c Convention)> {
    let mut out = Vec::new();
    let Some(path) = entry.get("path").filter(|p| p.as_str().is_some()) else {
        return out;
    };
    let lifecycle = entry
        .get("lifecycle")
        .or_else(|| entry.lookup("/exact_edit/lifecycle"));
    let Some(lifecycle) = lifecycle.filter(|l| l.get("served_when").is_some()) else {
        return out;
    };
    let Some(rule) = lifecycle.get("rule_ref").and_then(Node::as_str) else {
        return out;
    };
    for convention in conventions {
        if !convention.adopted && convention.rule_refs.iter().any(|r| r == rule) {
            out.push((path, convention));
        }
    }
    out
}
