//! The project's files a report names: `textDocument/documentLink`, and
//! the file targets of go to definition. The core says which values name
//! which files (and at which lines); here they are looked up under the
//! workspace root the workspace checks found, off the message loop, and
//! only a file that is there and inside the root becomes a link.

use std::path::PathBuf;

use report_core::ide::links::FileRef;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::{AnalysisPool, DocState};
use crate::lsp::session::Session;

/// A file reference with its range in protocol form.
pub struct FileReference {
    pub range: lsp::Range,
    pub path: String,
    pub lines: Option<(u64, u64)>,
}

/// The root the workspace checks found for the document, when they did.
pub fn root(state: &DocState) -> Option<PathBuf> {
    state.workspace.as_ref()?.root.as_deref().map(PathBuf::from)
}

pub fn named(positions: &crate::lsp::convert::Positions<'_>, r: FileRef) -> FileReference {
    // The link covers the path, not its quotes.
    let inner = report_core::text::TextRange::new(
        r.range.start + 1,
        r.range.end.saturating_sub(1).max(r.range.start + 1),
    );
    FileReference {
        range: positions.lsp_range(inner),
        path: r.path,
        lines: r.lines,
    }
}

/// The range a location opens at: the lines named (1-based, inclusive), or the file's start.
pub fn lines_range(lines: Option<(u64, u64)>) -> lsp::Range {
    let line = |n: u64| u32::try_from(n.saturating_sub(1)).unwrap_or(u32::MAX);
    match lines {
        Some((start, end)) => lsp::Range::new(
            lsp::Position::new(line(start), 0),
            lsp::Position::new(line(end), 0),
        ),
        None => lsp::Range::default(),
    }
}

/// Runs the file-system look-ups of `f` on a blocking thread: stats and
/// symlink resolution stay off the message loop.
pub async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    tokio::task::spawn_blocking(f).await.ok()
}

pub async fn document_link(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::DocumentLinkParams,
) -> Result<Option<Vec<lsp::DocumentLink>>> {
    let client = session.capabilities();
    let encoding = client.encoding;
    let max = session
        .settings_for(&params.text_document.uri)
        .max_document_links;
    let found = analysis
        .query(&params.text_document.uri, "documentLink", move |state| {
            let Some(root) = root(state) else {
                return Ok(None);
            };
            let (refs, more) = state.host.file_refs_up_to(max);
            let tell = more && !std::mem::replace(&mut state.links_capped_said, true);
            // The positions are converted off the analysis thread, in the
            // rope of the same text (a clone shares its nodes).
            let rope = state.host.text().0.clone();
            let cache = (state.links.clone(), state.workspace.clone());
            Ok(Some((root, cache, refs, rope, tell)))
        })
        .await?;
    let Some((root, (cache, facts), refs, rope, tell)) = found else {
        return Ok(None);
    };
    // Said once an opening, where the user looks for why links stop.
    if tell {
        let message = format!(
            "report-lsp: {} names more files than the {max} that get document links (setting maxDocumentLinks); go to definition opens any of them",
            params.text_document.uri.as_str()
        );
        session.publisher.notify(
            "window/logMessage",
            lsp::LogMessageParams {
                typ: lsp::MessageType::INFO,
                message,
            },
        );
    }
    let links = blocking(move || {
        let positions = crate::lsp::convert::Positions::new(&rope, encoding);
        let mut cache = crate::lsp::session::lock(&cache);
        cache.renew(facts.as_ref(), &root);
        refs.into_iter()
            .filter_map(|r| {
                let uri = cache.uri(&r.path)?;
                let r = named(&positions, r);
                Some(lsp::DocumentLink {
                    range: r.range,
                    target: Some(uri),
                    tooltip: client.link_tooltips.then(|| match r.lines {
                        Some((start, end)) => format!("{} (lines {start}-{end})", r.path),
                        None => r.path,
                    }),
                    data: None,
                })
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    Ok(Some(links))
}
