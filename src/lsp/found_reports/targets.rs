//! What a target document asks of the reports found on disk: those that
//! name its file ([`Store::naming_file`]), and their entries' spans there,
//! each with the range of its `path` value, read from the report's file the
//! first time a document it names asks ([`Naming::read`]), not while the
//! workspace is searched.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use report_core::host::{DocumentHost, HostOptions};
use report_core::ide::targets::TargetSpan;
use report_core::text::{Encoding, LineIndex};
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::store::{FoundTargets, Store};
use crate::lsp::convert::Positions;
use crate::project::files::relative_key;

/// A report found on disk, not open, whose entries name a file.
#[derive(Clone)]
pub struct Naming {
    pub report: Uri,
    /// The report's file.
    pub path: PathBuf,
    /// The named file as the report's index keys it (`paths::path_key`).
    key: String,
    spans: Arc<OnceLock<FoundTargets>>,
}

impl Store {
    /// The reports found on disk (neither open nor gone) whose entries
    /// name the file at `file`, as the editor has it.
    pub fn naming_file(&self, file: &Path) -> Vec<Naming> {
        let file: PathBuf = file.components().collect();
        self.read(|state| {
            let naming = state.naming(&file).into_iter();
            naming
                .filter_map(|report| Some((report, state.reports.get(report)?)))
                .filter(|(_, found)| !found.open && !found.gone)
                .filter_map(|(report, found)| {
                    let key = relative_key(&file, found.root.as_deref()?)?;
                    found.targets.names(&key).then(|| Naming {
                        report: report.clone(),
                        path: found.path.clone(),
                        key,
                        spans: found.spans.clone(),
                    })
                })
                .collect()
        })
    }
}

impl Naming {
    /// Whether the report's spans are read already.
    pub fn is_read(&self) -> bool {
        self.spans.get().is_some()
    }

    /// Reads every entry's span of the report from its file, once: a
    /// caller meanwhile waits for the same read. It blocks: off the
    /// message loop.
    pub fn read(&self, encoding: Encoding, max_document_bytes: usize) {
        self.spans
            .get_or_init(|| spans_of(&self.path, encoding, max_document_bytes));
    }

    /// The spans of its entries naming the file, each with the range of
    /// its `path` value in the report (none before [`Naming::read`]).
    pub fn spans(&self) -> &[(TargetSpan, lsp::Range)] {
        self.spans
            .get()
            .and_then(|all| all.get(&self.key))
            .map_or(&[], Vec::as_slice)
    }
}

/// Every entry's span of the report at `file`, read from disk, with the
/// range of its `path` value (none when it is no longer a report, or
/// larger than `max_document_bytes`).
fn spans_of(file: &Path, encoding: Encoding, max_document_bytes: usize) -> FoundTargets {
    let readable =
        std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() <= max_document_bytes as u64);
    let Some(text) = readable
        .then(|| std::fs::read_to_string(file).ok())
        .flatten()
    else {
        return FoundTargets::new();
    };
    let options = HostOptions {
        name_matches: true,
        max_document_bytes,
        max_diagnostics: 0,
    };
    let host = DocumentHost::new(text, None, options);
    // Held whole: its line starts, not a rope.
    let lines = LineIndex::new(host.text());
    let positions = Positions::indexed(host.text(), &lines, encoding);
    host.all_target_spans()
        .into_iter()
        .map(|(key, spans)| {
            let spans = spans
                .into_iter()
                .map(|span| {
                    let range = positions.lsp_range(span.path_range);
                    (span, range)
                })
                .collect();
            (key, spans)
        })
        .collect()
}
