//! `workspace/didChangeConfiguration`: new settings, and every open document checked again.

use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::AnalysisThread;
use crate::lsp::session::{Session, lock};

pub fn changed(
    session: &Session,
    analysis: &AnalysisThread,
    params: lsp::DidChangeConfigurationParams,
) -> Option<String> {
    lock(&session.settings).apply(Some(&params.settings));
    let mut documents = lock(&session.documents);
    for (uri, open) in documents.iter_mut() {
        analysis.schedule(session, uri, open, None, None);
    }
    None
}
