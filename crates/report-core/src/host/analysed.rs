//! How a document's current text is analysed: per entry, in full, or not
//! at all because it is not a report. The questions that need no text are
//! answered here, one `match` each; those that read the text are the
//! snapshot's.

use crate::analysis::Analysis;
use crate::diagnostic::{Diagnostic, OmittedCount};
use crate::ide::ReportIndex;
use crate::incremental::Incremental;

/// How the current text is analysed. A report starts per entry whenever its
/// text has that form (no syntax error outside entry objects); a broken one
/// is analysed in full until it parses again.
#[derive(Debug)]
pub(crate) enum Analysed {
    /// A report, kept per entry: an edit checks only the entries it touches.
    PerEntry(Incremental),
    /// A report analysed as a whole.
    Whole(Analysis),
    /// A document that is not a report: it gets no diagnostics, hover or
    /// fixes. Its parse serves selection ranges.
    NotAReport(Analysis),
}

impl Analysed {
    /// Stands for a report's analysis for the moment an update replaces
    /// it: the old one is freed before the new one is made, which needs the
    /// memory.
    pub(super) fn placeholder() -> Analysed {
        Analysed::Whole(Analysis::empty())
    }

    /// A placeholder that is a report's, or not.
    pub(super) fn placeholder_of(report: bool) -> Analysed {
        match report {
            true => Analysed::placeholder(),
            false => Analysed::NotAReport(Analysis::empty()),
        }
    }

    pub(crate) fn is_report(&self) -> bool {
        !matches!(self, Analysed::NotAReport(_))
    }

    pub(crate) fn per_entry(&self) -> Option<&Incremental> {
        match self {
            Analysed::PerEntry(incremental) => Some(incremental),
            _ => None,
        }
    }

    /// The full analysis, of a report or not.
    pub(crate) fn full(&self) -> Option<&Analysis> {
        match self {
            Analysed::PerEntry(_) => None,
            Analysed::Whole(analysis) | Analysed::NotAReport(analysis) => Some(analysis),
        }
    }

    /// The full analysis of a report.
    pub(crate) fn whole(&self) -> Option<&Analysis> {
        match self {
            Analysed::Whole(analysis) => Some(analysis),
            _ => None,
        }
    }

    /// How many diagnostics there are, of those kept.
    pub(crate) fn count(&self) -> usize {
        match self {
            Analysed::PerEntry(incremental) => incremental.count(),
            Analysed::Whole(full) => full.diagnostics.len(),
            Analysed::NotAReport(_) => 0,
        }
    }

    /// How many diagnostics the analysis counted but did not keep (see
    /// the host's `max_diagnostics` option), and how many had a fix.
    pub(crate) fn omitted(&self) -> OmittedCount {
        match self {
            Analysed::PerEntry(incremental) => incremental.omitted(),
            Analysed::Whole(full) => full.omitted.counted(),
            Analysed::NotAReport(_) => OmittedCount::default(),
        }
    }

    /// How many kept diagnostics satisfy `test` (see `Incremental::count_where`).
    pub(crate) fn count_where(&self, test: impl Fn(&Diagnostic) -> bool) -> usize {
        match self {
            Analysed::PerEntry(incremental) => incremental.count_where(test),
            Analysed::Whole(full) => full.diagnostics.iter().filter(|d| test(d)).count(),
            Analysed::NotAReport(_) => 0,
        }
    }

    pub(crate) fn any_diagnostic(&self, test: impl Fn(&Diagnostic) -> bool) -> bool {
        match self {
            Analysed::PerEntry(incremental) => incremental.any(test),
            Analysed::Whole(full) => full.diagnostics.iter().any(test),
            Analysed::NotAReport(_) => false,
        }
    }

    /// What the editor features read of a report; None for another document.
    pub(crate) fn index(&self) -> Option<ReportIndex<'_>> {
        match self {
            Analysed::PerEntry(incremental) => Some(ReportIndex {
                entries: incremental.entries().collect(),
                shortlist: incremental.shortlist(),
                candidates: incremental.candidates(),
                members: incremental.members(),
            }),
            Analysed::Whole(full) => {
                let cross = full.cross.as_ref();
                Some(ReportIndex {
                    entries: full.entries.iter().collect(),
                    shortlist: cross.and_then(|c| c.shortlist.as_ref()),
                    candidates: cross.map_or(&[][..], |c| &c.candidates[..]),
                    members: cross.map_or(&[][..], |c| &c.members[..]),
                })
            }
            Analysed::NotAReport(_) => None,
        }
    }
}
