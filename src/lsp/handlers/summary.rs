//! `report-lsp/summary` (and the `report-lsp.summary` command, for clients
//! that only run commands): the reviewer's view of a whole report
//! (`report_core::summary`) as Markdown, text, HTML or JSON, with the
//! range of every entry it names, so that a client can link to them. An
//! open report is summed up on its analysis thread from the analysis it
//! holds, with its last workspace check's facts and comparison with HEAD;
//! one that is not open (a
//! report over VS Code's 50 MB sync limit) is read from disk off the
//! message loop, as the found reports are.

use serde::Deserialize;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types as lsp;

use report_core::summary::answer::{FORMAT_NAMES, Format};
use report_core::summary::{self, AtHand, Summary, SummaryOptions};
use report_core::text::TextRange;

use crate::lsp::analysis::AnalysisPool;
use crate::lsp::convert::Positions;
use crate::lsp::found_reports::summary_from_disk;
use crate::lsp::session::Session;

pub const SUMMARY_METHOD: &str = "report-lsp/summary";
/// The command form: its arguments are the document's URI and, optionally,
/// the format.
pub const SUMMARY_COMMAND: &str = "report-lsp.summary";

/// A format named by the client (`summary::answer::FORMAT_NAMES`).
fn named_format<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Format>, D::Error> {
    let name: Option<String> = Option::deserialize(d)?;
    name.map(|name| {
        Format::named(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown format `{name}`, expected one of {FORMAT_NAMES}"
            ))
        })
    })
    .transpose()
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryParams {
    pub uri: lsp::Uri,
    /// Markdown by default where the client reads Markdown, else text.
    #[serde(default, deserialize_with = "named_format")]
    pub format: Option<Format>,
    /// How many largest savings, folders and files are listed.
    #[serde(default)]
    pub top: Option<usize>,
}

/// The answer: `{format, content, entries: [{index, range}], fromDisk}`;
/// `content` is a string, or an object for JSON.
pub async fn summary(
    session: &Session,
    analysis: &AnalysisPool,
    folders: Vec<std::path::PathBuf>,
    params: SummaryParams,
) -> Result<Value> {
    let client = session.capabilities();
    let format = params.format.unwrap_or(match client.hover_markdown {
        true => Format::Markdown,
        false => Format::Text,
    });
    let options = SummaryOptions {
        top: params.top.unwrap_or(summary::DEFAULT_TOP).clamp(1, 1000),
    };
    let uri = params.uri;
    let name = crate::lsp::convert::uri_path(&uri);
    let shown = name.clone();
    let open = analysis
        .query_latest(&uri, "summary", move |state, workspace| {
            let at_hand = state.workspace.as_deref().map(|facts| AtHand {
                facts,
                diagnostics: workspace,
            });
            // The comparison with HEAD the last workspace check made (see
            // `since_head`): a report over 4 MiB that differs has none.
            let since = state.since_head.as_ref().and_then(|(generation, said)| {
                let name = match *generation == state.generation {
                    true => "HEAD",
                    false => "HEAD (as of the last save)",
                };
                Some((name, said.diff.clone()?, *generation == state.generation))
            });
            let diff = since.as_ref().map(|(name, diff, _)| (*name, diff.as_ref()));
            let Some(mut summary) = state.host.summary(options, at_hand, diff) else {
                return Ok(None);
            };
            // Where the text changed since, the added entries' places are gone.
            if let (Some(said), Some((_, _, false))) = (&mut summary.since, &since) {
                said.added.first = None;
            }
            let positions = state.positions(client.encoding);
            Ok(Some(answer(&summary, format, &shown, &positions, false)))
        })
        .await;
    match open {
        Ok(Some(answer)) => Ok(answer),
        Ok(None) => Err(Error::invalid_params(format!(
            "{name} is not a machine report: there is nothing to sum up"
        ))),
        // Not open: read from disk, as an unopened report is.
        Err(_) => {
            let settings = session.settings_for(&uri);
            let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else {
                return Err(Error::invalid_params(
                    "the document is neither open nor a file",
                ));
            };
            let read = move || {
                summary_from_disk(
                    &path,
                    &folders,
                    &settings,
                    options,
                    |summary, text, index| {
                        let positions = Positions::indexed(text, index, client.encoding);
                        answer(summary, format, &name, &positions, true)
                    },
                )
            };
            match tokio::task::spawn_blocking(read).await {
                Ok(Ok(answer)) => Ok(answer),
                Ok(Err(why)) => Err(Error::invalid_params(why)),
                Err(_) => Err(Error::internal_error()),
            }
        }
    }
}

/// `workspace/executeCommand` of [`SUMMARY_COMMAND`].
pub async fn command(
    session: &Session,
    analysis: &AnalysisPool,
    folders: Vec<std::path::PathBuf>,
    params: lsp::ExecuteCommandParams,
) -> Result<Option<Value>> {
    let uri: lsp::Uri = params
        .arguments
        .first()
        .and_then(|a| serde_json::from_value(a.clone()).ok())
        .ok_or_else(|| {
            Error::invalid_params("the command's first argument is not a document URI")
        })?;
    let format = match params.arguments.get(1) {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_str().and_then(Format::named).ok_or_else(|| {
            Error::invalid_params(format!("the format is one of {FORMAT_NAMES}"))
        })?),
    };
    let params = SummaryParams {
        uri,
        format,
        top: None,
    };
    summary(session, analysis, folders, params).await.map(Some)
}

/// The summary in `format`, with the range of each entry it names, and
/// whether it was read from disk.
fn answer(
    summary: &Summary,
    format: Format,
    name: &str,
    positions: &Positions<'_>,
    from_disk: bool,
) -> Value {
    let range =
        |range: TextRange| serde_json::to_value(positions.lsp_range(range)).unwrap_or(Value::Null);
    let line = |offset: usize| positions.position(offset).line;
    let mut answer = summary::answer::answer(summary, format, name, &range, &line);
    answer["fromDisk"] = Value::Bool(from_disk);
    answer
}
