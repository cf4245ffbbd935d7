//! report-lsp's thin layers over `report_core`: the `check` command and the
//! language server. They translate; every judgement about a report is the core's.

pub mod cli;
pub mod log;
pub mod lsp;
pub mod project;
pub mod project_file;
pub mod threads;
