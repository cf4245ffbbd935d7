//! One module per feature. A handler converts the request's positions,
//! asks the document's [`report_core::host::DocumentHost`] on the analysis
//! thread, and converts the answer back; what to answer is the core's.

pub mod clean_preview;
pub mod code_action;
pub mod completion;
pub mod configuration;
pub mod diagnostic;
pub mod hover;
pub mod inlay;
pub mod lifecycle;
pub mod links;
pub mod navigation;
pub mod outline;
pub mod since_head;
pub mod status;
pub mod summary;
pub mod target_documents;
pub mod text_sync;
pub mod watched_files;
pub mod workspace_symbol;
