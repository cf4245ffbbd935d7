//! `didOpen`, `didChange`, `didClose`: the documents' texts. Changes are
//! applied to the session's rope under its lock, before any `.await`, so
//! later changes cannot overtake them; the analysis thread then checks the
//! new text. Each returns what to log when it rejected something.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use report_core::host;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::{AnalysisPool, JobRope};
use crate::lsp::convert::{self, Positions};
use crate::lsp::document::{Changed, Document, Replaced};
use crate::lsp::services::Services;
use crate::lsp::session::{OpenDocument, Session, lock};

pub fn open(
    session: &Session,
    services: &Services,
    params: lsp::DidOpenTextDocumentParams,
) -> Option<String> {
    let doc = params.text_document;
    let target = is_target(session, &doc.uri, &doc.language_id);
    let mut documents = lock(&session.documents);
    let open = documents
        .entry(doc.uri.clone())
        .or_insert_with(|| OpenDocument {
            document: Document::new("", doc.version),
            generation: first_generation(),
            published: false,
            target,
            as_file: Default::default(),
        });
    open.target = target;
    if target {
        // Kept for the features of a target document; never analysed.
        open.document = Document::new(&doc.text, doc.version);
        open.generation += 1;
        drop(documents);
        session.publish_project_files_read();
        return None;
    }
    // The text the editor sent becomes the job's: no second copy of a huge
    // report. Its rope is made by its analysis once its first diagnostics
    // are out, or here by the first change or request that needs it sooner.
    let text = Arc::new(doc.text);
    let (document, rope) = Document::opening(text.clone(), doc.version);
    open.document = document;
    let job = (text, JobRope::Opening(rope));
    services
        .analysis
        .schedule(session, &doc.uri, open, None, Some(job));
    services.search.opened(&doc.uri);
    drop(documents);
    // Its settings may have read the project file that governs it.
    session.publish_project_files_read();
    None
}

/// Whether a document is one a report may name rather than a report: not
/// JSON by its language or its name, nor named as a report by the globs.
fn is_target(session: &Session, uri: &lsp::Uri, language: &str) -> bool {
    let json = matches!(language, "json" | "jsonc" | "json5");
    let path = convert::uri_path(uri);
    let named_json = path.ends_with(".json") || path.ends_with(".jsonc");
    !json && !named_json && !session.settings_for(uri).globs.matches(&path)
}

/// Where an opening's generations start: each opening of the session in a
/// block of its own, so that a fix or an answer made for the text of an
/// earlier opening (closed, then opened again with another text) is never
/// taken for one of the current text.
fn first_generation() -> u64 {
    static OPENINGS: AtomicU64 = AtomicU64::new(0);
    OPENINGS.fetch_add(1, Ordering::Relaxed) << 32
}

/// Applies the changes in order. A change that does not fit the text puts
/// the document out of sync: one warning replaces its diagnostics, and
/// incremental changes are ignored until the editor sends the whole text.
pub fn change(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::DidChangeTextDocumentParams,
) -> Option<String> {
    let encoding = session.capabilities().encoding;
    let uri = params.text_document.uri;
    let mut documents = lock(&session.documents);
    let Some(open) = documents.get_mut(&uri) else {
        return Some(format!(
            "didChange for a document that is not open: {}",
            uri.as_str()
        ));
    };
    open.document.version = params.text_document.version;
    let mut failure = None;
    // The byte edits, while every change so far was one.
    let mut edits = Some(Vec::new());
    // A whole new text taken as an opening's, while no change came after it.
    let mut reopened = None;
    for change in params.content_changes {
        if open.document.out_of_sync && change.range.is_some() {
            continue;
        }
        let range = change
            .range
            .map(|r| (convert::line_col(r.start), convert::line_col(r.end)));
        let replaced = match open.target {
            true => open
                .document
                .apply_change(range, &change.text, encoding)
                .map(Replaced::Changed),
            false => open.document.replace(range, change.text, encoding),
        };
        if !matches!(replaced, Ok(Replaced::Changed(Changed::Nothing))) {
            reopened = None;
        }
        match replaced {
            Ok(Replaced::Reopened(text, rope)) => {
                edits = None;
                reopened = Some((text, JobRope::Opening(rope)));
            }
            Ok(Replaced::Changed(Changed::Bytes(edit))) => {
                edits.iter_mut().for_each(|e| e.push(edit))
            }
            Ok(Replaced::Changed(Changed::Nothing)) => {}
            Ok(Replaced::Changed(Changed::Whole)) => edits = None,
            Err(error) => {
                edits = None;
                if !open.document.out_of_sync && !open.target {
                    // Analyses still queued are of a text we no longer trust: make them stale.
                    open.generation += 1;
                    // The diagnostics on screen point into a text we no longer have: replace them.
                    let positions = Positions::new(open.document.rope(), encoding);
                    let warning = positions.diagnostic(
                        &uri,
                        &host::out_of_sync(&error),
                        session.capabilities().related_information,
                    );
                    session.publisher.publish(
                        uri.clone(),
                        Some(open.document.version),
                        vec![warning],
                    );
                    open.published = true;
                }
                open.document.out_of_sync = true;
                failure = Some(format!(
                    "rejected a change to {}: {error}; the document is out of sync until the editor sends its full text (reopen it)",
                    uri.as_str()
                ));
            }
        }
    }
    if open.target {
        open.generation += 1;
    } else if !open.document.out_of_sync {
        analysis.schedule(session, &uri, open, edits, reopened);
    }
    failure
}

pub fn close(
    session: &Session,
    services: &Services,
    params: lsp::DidCloseTextDocumentParams,
) -> Option<String> {
    let uri = params.text_document.uri;
    let mut documents = lock(&session.documents);
    let removed = documents.remove(&uri);
    if removed.as_ref().is_some_and(|e| e.published) {
        // Queued behind any publication for it, so nothing reappears after the clear.
        session.publisher.publish(uri.clone(), None, Vec::new());
    }
    if removed.as_ref().is_some_and(|e| e.target) {
        // The reports naming it are checked against the file on disk again.
        super::target_documents::changed(&services.projects, &uri);
    } else {
        services.search.closed(&uri);
    }
    services.analysis.close(uri);
    drop(documents);
    drop(removed);
    crate::lsp::memory::release_memory();
    None
}
