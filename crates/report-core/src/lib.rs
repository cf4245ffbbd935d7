//! report-lsp's core: text in; diagnostics, tier derivations and fixes out.
//!
//! Everything here is plain data over byte offsets; no protocol types, no
//! I/O. The CLI and the language server (the `report-lsp` crate) translate
//! to and from it. ARCHITECTURE.md at the repository root says which module
//! may know what; in short, from the bottom up: `text`, `cancel`, `parallel`, `syntax`, `schema`,
//! `fix` (edits) and `diagnostic`, `tier`, `validate`, `analysis`,
//! `entry_text`, `incremental`, `envelope_text`, `publication` (what every
//! view shows of the diagnostics), what a feature reads of a
//! document (`ide::ReportIndex`, `host::snapshot`), the features (`hover`,
//! `project_checks`, `rollup`, `ide`), and `host` over all of them.

#![forbid(unsafe_code)]

pub mod analysis;
pub mod cancel;
pub mod clean_edit;
pub mod diagnostic;
pub mod docs;
pub mod entry_text;
pub mod envelope_text;
pub mod fix;
pub mod fix_all;
pub mod generate;
pub mod host;
pub mod hover;
pub mod ide;
pub mod incremental;
pub mod json_schema;
pub mod parallel;
pub mod paths;
pub mod project_checks;
pub mod publication;
pub mod report_diff;
pub mod rollup;
pub mod schema;
pub mod selection;
pub mod severities;
pub mod summary;
pub mod syntax;
pub mod text;
pub mod tier;
pub mod validate;
pub mod wire;

#[cfg(test)]
mod fixture;

pub use analysis::{
    ANALYSIS_STACK_BYTES, Analysis, AnalysisOptions, Input, analyze, analyze_with, too_large,
};
pub use parallel::{RunAll, Threads};
