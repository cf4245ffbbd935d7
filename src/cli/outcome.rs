//! What `check` found: the files, their analyses, the failures, the
//! summary and the exit code, and positions as CI tools count them.

use report_core::Analysis;
use report_core::diagnostic::{Diagnostic, Severity};
use report_core::text::{Encoding, TextRange};

use super::{EXIT_INVALID, EXIT_OK, EXIT_USAGE_OR_IO};

/// A path that could not be checked, or a check that found nothing to check.
/// Every format shows these, and any of them makes the exit status 2.
#[derive(Clone, Debug)]
pub struct Failure {
    pub path: Option<String>,
    pub message: String,
}

/// One checked file.
pub struct FileResult {
    /// The path as shown.
    pub path: String,
    /// What is reported: after fixing, the analysis of the fixed text.
    pub analysis: Analysis,
    /// How many diagnostics `--fix` removed (0 without it).
    pub fixed: usize,
    /// The limit of diagnostics shown, as named in the note of those left
    /// out: `--max-diagnostics N`, or the project file's key.
    pub limit: String,
}

impl FileResult {
    pub fn valid(&self) -> bool {
        self.analysis.is_valid()
    }
}

/// Everything `check` found, in the order the paths were given.
pub struct Outcome {
    pub files: Vec<FileResult>,
    pub failures: Vec<Failure>,
}

/// Diagnostic counts over every file, for summaries.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    pub files: usize,
    pub valid: usize,
    pub errors: usize,
    pub warnings: usize,
    pub information: usize,
    pub hints: usize,
    /// Diagnostics whose fix `--fix` applies (a preferred fix).
    pub fixable: usize,
    pub fixed: usize,
    pub failures: usize,
    /// Diagnostics counted above but not shown (`--max-diagnostics`).
    pub omitted: usize,
}

impl Outcome {
    pub fn summary(&self) -> Summary {
        let mut summary = Summary {
            files: self.files.len(),
            failures: self.failures.len(),
            ..Summary::default()
        };
        for file in &self.files {
            summary.valid += usize::from(file.valid());
            summary.fixed += file.fixed;
            let omitted = &file.analysis.omitted;
            summary.omitted += omitted.len();
            summary.errors += omitted.count(Severity::Error);
            summary.warnings += omitted.count(Severity::Warning);
            summary.information += omitted.count(Severity::Information);
            summary.hints += omitted.count(Severity::Hint);
            for diagnostic in &file.analysis.diagnostics {
                summary.fixable +=
                    usize::from(diagnostic.fix.as_ref().is_some_and(|f| f.preferred));
                match diagnostic.severity {
                    Severity::Error => summary.errors += 1,
                    Severity::Warning => summary.warnings += 1,
                    Severity::Information => summary.information += 1,
                    Severity::Hint => summary.hints += 1,
                }
            }
        }
        summary
    }

    /// 2 for any failure, 1 for a diagnostic at least as severe as `fail_at`, else 0.
    pub fn exit_code(&self, fail_at: Severity) -> u8 {
        if !self.failures.is_empty() {
            return EXIT_USAGE_OR_IO;
        }
        let fails = self.files.iter().any(|f| {
            let analysis = &f.analysis;
            analysis.diagnostics.iter().any(|d| d.severity <= fail_at)
                || analysis.omitted.iter().any(|o| o.severity <= fail_at)
        });
        if fails { EXIT_INVALID } else { EXIT_OK }
    }
}

/// A position as CI tools count: 1-based line, 1-based UTF-16 column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OneBased {
    pub line: u32,
    pub column: u32,
}

pub(crate) fn one_based(analysis: &Analysis, offset: usize) -> OneBased {
    let p = analysis
        .line_index()
        .line_col(&analysis.text, offset, Encoding::Utf16);
    OneBased {
        line: p.line + 1,
        column: p.col + 1,
    }
}

pub(crate) fn one_based_range(analysis: &Analysis, range: TextRange) -> (OneBased, OneBased) {
    (
        one_based(analysis, range.start),
        one_based(analysis, range.end),
    )
}

/// Every diagnostic of every file, with its file, in output order.
pub(crate) fn all_diagnostics(
    outcome: &Outcome,
) -> impl Iterator<Item = (&FileResult, &Diagnostic)> {
    outcome
        .files
        .iter()
        .flat_map(|file| file.analysis.diagnostics.iter().map(move |d| (file, d)))
}
