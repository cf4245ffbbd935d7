//! Quick fixes: the fixes of the diagnostics at a range, and whether
//! fix-all has anything to do. Past the diagnostics cap, those the analysis
//! only counted are worked out again for the range asked about.

use std::borrow::Cow;
use std::sync::Arc;

use crate::analysis;
use crate::diagnostic::{Diagnostic, Keep};
use crate::fix::Fix;
use crate::host::snapshot::Snapshot;
use crate::text::TextRange;

/// A quick fix offered for a diagnostic: one the analysis keeps, or one
/// worked out again for the cursor when the analysis left it out.
#[derive(Clone, Debug)]
pub struct QuickFix<'h> {
    pub diagnostic: Cow<'h, Diagnostic>,
}

impl QuickFix<'_> {
    pub fn fix(&self) -> &Fix {
        self.diagnostic
            .fix
            .as_ref()
            .expect("a quick fix's diagnostic has a fix")
    }
}

/// The fixes of the diagnostics whose range touches `range`, in document
/// order. When the analysis left some diagnostics out, those at the range
/// are worked out again: from the entry's text alone inside an entry,
/// else from an analysis of the whole text that keeps only them.
pub fn quick_fixes<'a>(document: Snapshot<'a>, range: TextRange) -> Vec<QuickFix<'a>> {
    let wanted = |d: &Diagnostic| d.range.meets(range) && d.fix.is_some();
    // Per entry, every diagnostic left out lies in an entry.
    let beside_entries = document.per_entry().is_some_and(|i| {
        i.entries_span()
            .is_none_or(|span| range.end < span.start || span.end < range.start)
    });
    if document.analysed.omitted().fixable > 0 && !beside_entries {
        let again = document.per_entry().and_then(|incremental| {
            incremental
                .entry_diagnostics(range.start, |r| document.read(r))
                .filter(|_| {
                    incremental
                        .entry_around(range.start)
                        .is_some_and(|e| range.end <= e.range.end)
                })
        });
        let again = again.unwrap_or_else(|| {
            let whole = Arc::new(document.text.whole());
            analysis::analyze_with(
                whole,
                analysis::AnalysisOptions::keeping(Keep::touching(range)),
            )
            .diagnostics
        });
        return again
            .into_iter()
            .filter(|d| wanted(d))
            .map(|d| QuickFix {
                diagnostic: Cow::Owned(d),
            })
            .collect();
    }
    document
        .diagnostics_where(&wanted, usize::MAX)
        .into_iter()
        .map(|diagnostic| QuickFix { diagnostic })
        .collect()
}

/// Whether fix-all has anything to do: some diagnostic has a preferred
/// fix (or a fix, among those left out).
pub fn can_fix_all(document: Snapshot<'_>) -> bool {
    document.analysed.omitted().fixable > 0
        || document
            .analysed
            .any_diagnostic(|d| d.fix.as_ref().is_some_and(|f| f.preferred))
}
