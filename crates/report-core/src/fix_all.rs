//! Fix-all: every unambiguous fix applied, round after round, until none is
//! left. It sits above the analysis, which it runs once per round.

use crate::diagnostic::Code;
use crate::fix::{Fix, TextEdit, apply, minimal_edit};
use crate::text::TextRange;

/// Applies every unambiguous (preferred) fix until none is left, and returns
/// the fixed text when anything changed. Characterization and shape fixes go
/// first; tier fixes only once those are done, because fixing the inputs of
/// the derivation can change the derived tier.
pub fn fix_all(text: &str) -> Option<String> {
    let mut current = text.to_string();
    // Each round fixes at least one diagnostic; the bound only guards against a fix that undoes another.
    for _ in 0..16 {
        let analysis = crate::analyze(&current);
        let preferred: Vec<(Code, &Fix)> = analysis
            .diagnostics
            .iter()
            .filter_map(|d| d.fix.as_ref().filter(|f| f.preferred).map(|f| (d.code, f)))
            .collect();
        // Tier fixes wait until no other fix is left: those may change the derivation's inputs.
        let others_left = preferred
            .iter()
            .any(|(code, _)| *code != Code::TierMismatch);
        let mut edits: Vec<TextEdit> = Vec::new();
        for (code, fix) in preferred {
            if others_left && code == Code::TierMismatch {
                continue;
            }
            let clashes = fix
                .edits
                .iter()
                .any(|e| edits.iter().any(|taken| clash(e.range, taken.range)));
            if !clashes {
                edits.extend(fix.edits.iter().cloned());
            }
        }
        if edits.is_empty() {
            break;
        }
        match apply(&current, &edits) {
            Ok(next) if next != current => current = next,
            _ => break,
        }
    }
    (current != text).then_some(current)
}

/// Whether two edits cannot go into one round: they overlap, or they are
/// insertions at one offset (whose order would be arbitrary).
fn clash(a: TextRange, b: TextRange) -> bool {
    let widen = |r: TextRange| r.end.max(r.start + 1);
    a.start < widen(b) && b.start < widen(a)
}

/// The fix-all of `text` as one minimal edit, when there is anything to fix.
pub fn fix_all_edit(text: &str) -> Option<TextEdit> {
    minimal_edit(text, &fix_all(text)?)
}
