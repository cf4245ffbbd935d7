//! The words behind the codes: `invariants.md`, built in, so that hover and
//! `report-lsp explain` quote the same text the contract is written in.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::diagnostic::Code;

/// `invariants.md` as it was when this was built.
pub const INVARIANTS: &str = include_str!("../../../invariants.md");

/// `name -> meaning` from the `## Glossary` section of `invariants.md`.
pub fn glossary() -> &'static HashMap<&'static str, &'static str> {
    static GLOSSARY: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    GLOSSARY.get_or_init(|| {
        let section = INVARIANTS
            .split("\n## Glossary\n")
            .nth(1)
            .unwrap_or_default();
        section
            .lines()
            .filter_map(|line| line.strip_prefix("- `"))
            .filter_map(|line| line.split_once("`: "))
            .collect()
    })
}

/// The section of invariant `number`, from its heading to the next one.
pub fn invariant_section(number: u32) -> Option<&'static str> {
    let heading = format!("\n## {number}. ");
    let start = INVARIANTS.find(&heading)? + 1;
    let end = INVARIANTS[start..]
        .find("\n## ")
        .map_or(INVARIANTS.len(), |i| start + i);
    Some(INVARIANTS[start..end].trim_end())
}

/// What `report-lsp explain CODE` prints: the code, its severity, and the
/// invariant it enforces in the words of `invariants.md`.
pub fn explain(code: Code) -> String {
    let number = code.invariant();
    let section = invariant_section(number).unwrap_or("(invariants.md has no such section)");
    format!(
        "{code} ({severity}) enforces invariant {number} of invariants.md:\n\n{section}\n",
        severity = code.severity().as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_explained_by_the_section_that_lists_it() {
        for &code in Code::ALL {
            let text = explain(code);
            let listed = format!("`{code}`");
            assert!(text.contains(&listed), "{code} is not listed in:\n{text}");
            assert!(
                text.contains(&format!("## {}. ", code.invariant())),
                "{text}"
            );
        }
    }

    #[test]
    fn a_section_ends_before_the_next_heading() {
        let seven = invariant_section(7).unwrap();
        assert!(seven.starts_with("## 7. The safety tier is computed, never assigned"));
        assert!(!seven.contains("## 8."), "{seven}");
    }
}
