//! The report against its copy at git's HEAD: a code lens at the top of the
//! document with the comparison's summary, and the command it runs, which
//! answers with the whole comparison as text. The comparison is made by the
//! workspace checks' thread when it checks the report (open, save, a change
//! of git's HEAD), never on a keystroke.

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types as lsp;

use crate::lsp::analysis::{AnalysisPool, DocState};
use crate::lsp::project_thread::compare_with_head;
use crate::project::since_head::{self, HeadCopy};

/// The lens's command: its one argument is the document's URI; its result,
/// the comparison as `report-lsp diff` prints it.
pub const SHOW_DIFF_SINCE_HEAD: &str = "report-lsp.showDiffSinceHead";

/// The lens at the start of the document, when there is a comparison.
pub fn lens(state: &DocState, uri: &lsp::Uri) -> Option<lsp::CodeLens> {
    let (generation, since_head) = state.since_head.as_ref()?;
    // Compared at the last check: the text has changed since.
    let title = match *generation == state.generation {
        true => since_head.title.clone(),
        false => format!("{} (as of the last save)", since_head.title),
    };
    Some(lsp::CodeLens {
        range: lsp::Range::default(),
        command: Some(lsp::Command {
            title,
            command: SHOW_DIFF_SINCE_HEAD.into(),
            arguments: Some(vec![serde_json::json!(uri)]),
        }),
        data: None,
    })
}

/// `workspace/executeCommand` of [`SHOW_DIFF_SINCE_HEAD`]: the whole comparison.
pub async fn show(
    analysis: &AnalysisPool,
    params: lsp::ExecuteCommandParams,
) -> Result<Option<serde_json::Value>> {
    let uri: lsp::Uri = params
        .arguments
        .first()
        .and_then(|a| serde_json::from_value(a.clone()).ok())
        .ok_or_else(|| Error::invalid_params("the command's argument is not a document URI"))?;
    let asked = analysis
        .query(&uri, "showDiffSinceHead", |state| {
            Ok(state.since_head.as_ref().map(|(_, s)| match &s.text {
                Some(text) => Asked::Said(text.clone()),
                None => Asked::Compare(state.host.text().0.clone()),
            }))
        })
        .await?;
    let text = match asked {
        Some(Asked::Said(text)) => Some(text),
        // A big report: compared now, off the message loop. A lens was
        // offered, so a click gets an answer, not an error to pop up.
        Some(Asked::Compare(rope)) => {
            let file = uri.to_file_path().map(|p| p.into_owned());
            let compare = move || {
                let compared = compare_with_head(file.as_deref()?, &rope, true)?;
                match compared {
                    HeadCopy::Compared(said) => said.text,
                    HeadCopy::Unchanged { head_name, name } => {
                        since_head::unchanged(&head_name, &name, None, false)?.text
                    }
                    HeadCopy::Differs => None,
                }
            };
            let said = tokio::task::spawn_blocking(compare).await.ok().flatten();
            Some(said.unwrap_or_else(|| {
                "The report could not be compared with HEAD's copy now: its text is not a report, or git's data cannot be read.\n".into()
            }))
        }
        None => None,
    };
    match text {
        Some(text) => Ok(Some(serde_json::Value::String(text))),
        None => Err(Error::invalid_params(
            "the document has no comparison with HEAD (not in a git repository, no commit yet, or not checked yet)",
        )),
    }
}

/// What the document's state holds of the comparison.
enum Asked {
    Said(String),
    /// Not made yet: the text to compare.
    Compare(ropey::Rope),
}
