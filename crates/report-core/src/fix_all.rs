//! Fix-all: every unambiguous fix applied, round after round, until none is
//! left. It sits above the analysis, which it runs once per round.

use crate::diagnostic::{Code, Diagnostic};
use crate::fix::{TextEdit, apply, minimal_edit};
use crate::text::TextRange;

/// Applies every unambiguous (preferred) fix until none is left, and returns
/// the fixed text when anything changed. Characterization and shape fixes go
/// first; tier fixes only once those are done, because fixing the inputs of
/// the derivation can change the derived tier.
pub fn fix_all(text: &str) -> Option<String> {
    let mut current = text.to_string();
    let mut analysis = analyze(&current);
    // Each round fixes at least one diagnostic; the bound only guards against a fix that undoes another.
    for _ in 0..16 {
        let preferred: Vec<&Diagnostic> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.fix.as_ref().is_some_and(|f| f.preferred))
            .collect();
        // Tier fixes wait until no other fix is left: those may change the derivation's inputs.
        let others_left = preferred.iter().any(|d| d.code != Code::TierMismatch);
        let mut edits: Vec<TextEdit> = Vec::new();
        let mut fixed: Vec<&Diagnostic> = Vec::new();
        for diagnostic in preferred {
            let Some(fix) = &diagnostic.fix else { continue };
            if others_left && diagnostic.code == Code::TierMismatch {
                continue;
            }
            let clashes = fix
                .edits
                .iter()
                .any(|e| edits.iter().any(|taken| clash(e.range, taken.range)));
            if !clashes {
                edits.extend(fix.edits.iter().cloned());
                fixed.push(diagnostic);
            }
        }
        if edits.is_empty() {
            break;
        }
        let next = match apply(&current, &edits) {
            Ok(next) if next != current => next,
            _ => break,
        };
        let after = analyze(&next);
        if !keeps_round(&fixed, &analysis, &after) {
            break;
        }
        current = next;
        analysis = after;
    }
    (current != text).then_some(current)
}

/// Whether a round that fixed `fixed` in the text of `before`, giving the
/// text of `after`, is kept. A round must do what its fixes say and leave no
/// more errors: in a text whose structure a syntax error hides, a fix can
/// miss its mark (a member inserted outside the object that lacks it). The
/// text before such a round is kept.
fn keeps_round(fixed: &[&Diagnostic], before: &crate::Analysis, after: &crate::Analysis) -> bool {
    let missed = fixed.iter().any(|d| {
        after
            .diagnostics
            .iter()
            .any(|a| a.code == d.code && a.message == d.message)
    });
    !missed && errors(after) <= errors(before)
}

/// An analysis that keeps what fix-all applies, however many, and only
/// counts the rest (a report of millions of errors stays small).
fn analyze(text: &str) -> crate::Analysis {
    crate::analyze_with(
        std::sync::Arc::new(text.to_string()),
        crate::AnalysisOptions::keeping(crate::diagnostic::Keep::PREFERRED_FIXES),
    )
}

fn errors(analysis: &crate::Analysis) -> usize {
    let error = crate::diagnostic::Severity::Error;
    let kept = analysis.diagnostics.iter().filter(|d| d.severity == error);
    kept.count() + analysis.omitted.count(error)
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

#[cfg(test)]
mod tests {
    use crate::diagnostic::Code;

    const ENVELOPE: &str = r#"{"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07Z", "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0}, "shortlist": []"#;

    /// No fix offered leaves more errors now (a search of the golden
    /// examples' one-character mutations found none), so this round is the
    /// one that did before `insert_member` refused a broken last member:
    /// `promotion_candidates` added after an unclosed array lands inside it.
    #[test]
    fn a_round_that_leaves_more_errors_is_not_kept() {
        let before = super::analyze(&format!(r#"{ENVELOPE}, "entries": [}}"#));
        let after = super::analyze(&format!(
            r#"{ENVELOPE}, "entries": [, "promotion_candidates": []}}"#
        ));
        assert!(super::errors(&after) > super::errors(&before));
        assert!(!super::keeps_round(&[], &before, &after));
        assert!(super::keeps_round(&[], &before, &before), "as many errors");
        assert!(super::keeps_round(&[], &after, &before), "fewer errors");
    }

    /// A round whose fixed diagnostic is still there missed its mark; one
    /// of the same code with another message (another entry's) is another.
    #[test]
    fn a_round_that_misses_a_fix_is_not_kept() {
        let before = super::analyze(&format!(r#"{ENVELOPE}, "entries": []}}"#));
        let missing = before
            .diagnostics
            .iter()
            .find(|d| d.code == Code::MissingField)
            .expect("promotion_candidates is missing");
        let after = super::analyze(&format!(
            r#"{ENVELOPE}, "entries": [], "promotion_candidates": []}}"#
        ));
        assert!(super::keeps_round(&[missing], &before, &after));
        assert!(!super::keeps_round(&[missing], &before, &before));
        let mut other = missing.clone();
        other.message = other.message.replace("promotion_candidates", "shortlist");
        assert!(super::keeps_round(&[&other], &before, &before));
        // Errors with a preferred fix count too: the analysis keeps those.
        assert!(!super::keeps_round(&[], &after, &before), "an error more");
    }

    #[test]
    fn fix_all_applies_a_shape_fix() {
        let text = format!(r#"{ENVELOPE}, "entries": []}}"#);
        assert_eq!(
            super::fix_all(&text),
            Some(format!(
                r#"{ENVELOPE}, "entries": [], "promotion_candidates": []}}"#
            ))
        );
    }

    /// Edits that overlap, or insert at one offset, go into different rounds.
    #[test]
    fn edits_clash_when_they_overlap_or_insert_at_one_offset() {
        let r = crate::text::TextRange::new;
        let clash = |a, b| super::clash(a, b) && super::clash(b, a);
        let apart = |a, b| !super::clash(a, b) && !super::clash(b, a);
        assert!(clash(r(3, 5), r(4, 6)), "overlapping");
        assert!(clash(r(5, 5), r(5, 5)), "insertions at one offset");
        assert!(
            clash(r(3, 3), r(3, 5)),
            "an insertion where a replacement starts"
        );
        assert!(apart(r(3, 5), r(5, 7)), "adjacent");
        assert!(
            apart(r(5, 5), r(3, 5)),
            "an insertion where a replacement ends"
        );
        assert!(apart(r(3, 3), r(4, 4)), "insertions at two offsets");
    }

    /// Found by fuzzing: a report whose root a syntax error splits; adding
    /// `promotion_candidates` lands outside the object that lacks it, so
    /// fix-all must not add it round after round.
    #[test]
    fn a_fix_that_misses_its_mark_is_not_repeated() {
        let bytes =
            include_bytes!("../../../fuzz/found/analyze_and_fix/fix-all-misses-its-mark.json");
        let text = String::from_utf8_lossy(bytes).into_owned();
        // The root is split off by an error, so whether it lacks the field
        // is unknown: neither a diagnostic nor a fix says it does.
        let analysis = crate::analysis::analyze(&text);
        assert!(
            !analysis
                .diagnostics
                .iter()
                .any(|d| d.message.contains("\"promotion_candidates\"") && d.fix.is_some()),
            "no fix adds promotion_candidates to a split root"
        );
        if let Some(fixed) = super::fix_all(&text) {
            assert_eq!(super::fix_all(&fixed), None, "fix-all is idempotent");
            assert!(fixed.matches("\"promotion_candidates\": []").count() <= 1);
        }
    }
}
