//! The `check` command: find report files (or read standard input), analyse
//! them, perhaps fix them, print the findings in one format and choose the
//! exit code. Each output format has its own module; `fix` is the one place
//! that writes files. `diff` compares two generations of a report.

mod check;
mod diff;
mod explain;
mod fix;
mod github;
mod human;
mod json;
mod outcome;
mod preview;
mod project;
mod sarif;
mod summary;
mod targets;
mod terminal;

use std::path::PathBuf;

use report_core::diagnostic::Severity;

pub(crate) use check::Checked;
pub use check::run_check;
pub use diff::{DiffFormat, DiffOptions, run_diff};
pub use explain::run_explain;
pub use outcome::{Failure, FileResult, Outcome, Summary};
pub(crate) use outcome::{all_diagnostics, one_based, one_based_range};
pub use project::ProjectFileChoice;
pub use summary::{SinceArg, SummaryCommand, SummaryFormat, run_summary};
pub use terminal::{auto_color, print};

/// Exit codes, as a compiler's.
pub const EXIT_OK: u8 = 0;
pub const EXIT_INVALID: u8 = 1;
pub const EXIT_USAGE_OR_IO: u8 = 2;

/// The path that stands for standard input.
pub const STDIN_PATH: &str = "-";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

/// What `check` does with the fix-all edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// Report only.
    Off,
    /// Write the fixed files.
    Write,
    /// Print a unified diff of what `Write` would change, and write nothing.
    Diff,
}

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub paths: Vec<PathBuf>,
    pub format: Format,
    /// ANSI colours in human output.
    pub color: bool,
    /// The name standard input is shown under.
    pub stdin_filename: Option<String>,
    /// Accept folders in which no report is found.
    pub allow_empty: bool,
    /// Print problems only: no summary line.
    pub quiet: bool,
    /// The least severe diagnostic that fails the check (exit 1).
    pub fail_at: Severity,
    pub fix: FixMode,
    /// The project the reports describe (`--root`); None: each report's own resolution.
    pub root: Option<PathBuf>,
    /// The most diagnostics shown per file (`--max-diagnostics`), errors
    /// first; the others are counted, in the summary and the exit code too.
    /// None: the project file's, else [`DEFAULT_MAX_DIAGNOSTICS`].
    pub max_diagnostics: Option<usize>,
    /// Check 8's tolerance (`--token-tolerance`), a fraction of the
    /// recount. None: the project file's, else the default.
    pub token_tolerance: Option<f64>,
    /// Which project file is read (`--config`, `--isolated`).
    pub project_file: ProjectFileChoice,
    /// Print what a clean would do to the project's files (`--preview`)
    /// instead of the diagnostics.
    pub preview: bool,
}

/// `--max-diagnostics`' default: more than anyone reads, few enough that a
/// report of millions of problems takes the memory of its text.
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 100_000;

impl CheckOptions {
    /// Options for `paths` with every other setting at its default.
    pub fn new(paths: Vec<PathBuf>) -> CheckOptions {
        CheckOptions {
            paths,
            format: Format::Human,
            color: false,
            stdin_filename: None,
            allow_empty: false,
            quiet: false,
            fail_at: Severity::Error,
            fix: FixMode::Off,
            root: None,
            max_diagnostics: None,
            token_tolerance: None,
            project_file: ProjectFileChoice::Nearest,
            preview: false,
        }
    }
}
