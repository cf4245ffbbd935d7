//! Workspace symbols: every entry of a report as one symbol, named by its
//! path and described by its classification, and the query that picks them
//! (`workspace/symbol` across every report the server knows).

use super::ReportIndex;
use crate::schema::{CategoryClass, CategorySubtype};
use crate::text::TextRange;

/// One entry as a workspace symbol.
#[derive(Clone, Debug, PartialEq)]
pub struct EntrySymbol {
    /// The entry's `path`, or `(no path)`.
    pub name: String,
    /// `entries[412] · stale/orphaned · delete-range · confirm`.
    pub detail: String,
    /// The entry's path value (else the whole entry): where a pick lands.
    pub selection: TextRange,
}

/// Every entry of the report, in document order.
pub fn entry_symbols(index: &ReportIndex<'_>) -> Vec<EntrySymbol> {
    index
        .entries
        .iter()
        .map(|entry| {
            let summary = entry.summary();
            let class = summary.class.map_or("?", CategoryClass::as_str);
            let subtype = summary.subtype.map_or("?", CategorySubtype::as_str);
            let mut detail = format!("entries[{}] · {class}/{subtype}", entry.index);
            if let Some(op) = &summary.op {
                detail.push_str(&format!(" · {op}"));
            }
            if let Some(tier) = entry.tier.as_ref().and_then(|t| t.recorded) {
                detail.push_str(&format!(" · {tier}"));
            }
            EntrySymbol {
                name: entry
                    .path
                    .as_ref()
                    .map_or_else(|| "(no path)".to_string(), |(p, _)| p.clone()),
                detail,
                selection: entry.path.as_ref().map_or(entry.range, |(_, r)| *r),
            }
        })
        .collect()
}

/// How well `query` picks a symbol named `name` with `detail`; None when it
/// does not. Each word of the query must be found, case-insensitively: in
/// the name as a subsequence of its characters (`dgd` finds `docs/guide.md`,
/// as VS Code's own filter does), or in the detail as a substring
/// (`orphaned`, `delete-range`, `confirm`). A lower score is a better match:
/// words found whole in the name come first, then shorter names.
pub fn symbol_match(query: &str, name: &str, detail: &str) -> Option<u64> {
    let name_lower = name.to_lowercase();
    let detail_lower = detail.to_lowercase();
    let mut score = 0u64;
    for word in query.split_whitespace() {
        let word = word.to_lowercase();
        if name_lower.contains(&word) {
            continue;
        }
        if detail_lower.contains(&word) {
            score += 1;
            continue;
        }
        if !is_subsequence(&word, &name_lower) {
            return None;
        }
        score += 2;
    }
    Some(score * 1_000_000 + name.len() as u64)
}

fn is_subsequence(needle: &str, haystack: &str) -> bool {
    let mut rest = haystack.chars();
    needle.chars().all(|c| rest.any(|h| h == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_must_be_found_in_the_name_or_the_detail() {
        let detail = "entries[3] · stale/orphaned · delete-range · confirm";
        assert!(symbol_match("", "docs/guide.md", detail).is_some());
        assert!(symbol_match("guide", "docs/guide.md", detail).is_some());
        assert!(symbol_match("GUIDE", "docs/guide.md", detail).is_some());
        assert!(symbol_match("dgd", "docs/guide.md", detail).is_some());
        assert!(symbol_match("guide orphaned", "docs/guide.md", detail).is_some());
        assert!(symbol_match("delete-range confirm", "docs/guide.md", detail).is_some());
        assert_eq!(symbol_match("guide auto", "docs/guide.md", detail), None);
        assert_eq!(symbol_match("zz", "docs/guide.md", detail), None);
        // Non-ASCII names match by character, not by byte.
        assert!(symbol_match("指南", "docs/指南 🚀.md", detail).is_some());
        assert!(symbol_match("🚀", "docs/指南 🚀.md", detail).is_some());
    }

    #[test]
    fn a_whole_word_in_the_name_ranks_before_the_detail_and_a_subsequence() {
        let detail = "entries[0] · stale/orphaned";
        let whole = symbol_match("orphan", "docs/orphan.md", detail).unwrap();
        let in_detail = symbol_match("orphan", "docs/a.md", detail).unwrap();
        let scattered = symbol_match("dam", "docs/a.md", detail).unwrap();
        assert!(whole < in_detail, "{whole} {in_detail}");
        assert!(in_detail < scattered, "{in_detail} {scattered}");
        let short = symbol_match("a", "a.md", detail).unwrap();
        let long = symbol_match("a", "docs/a.md", detail).unwrap();
        assert!(short < long);
    }
}
