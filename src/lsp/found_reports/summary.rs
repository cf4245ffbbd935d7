//! The reviewer's summary of a report that is not open (one over VS Code's
//! 50 MB sync limit, which the client never sends): its file read and
//! analysed as a found report is, its project read with an open report's
//! trust rules (`project_thread::read_project`), off the message loop.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use report_core::host::{DocumentHost, HostOptions, analyze_file};
use report_core::project_checks::WorkspaceFacts;
use report_core::summary::{AtHand, Summary, SummaryOptions};
use report_core::text::LineIndex;

use crate::lsp::project_thread::{Read, read_project};
use crate::lsp::session::Settings;

/// The summary of the report at `path`, rendered by `render` with its text
/// and line index; Err says why there is none.
pub fn summary_from_disk<T>(
    path: &Path,
    folders: &[PathBuf],
    settings: &Settings,
    options: SummaryOptions,
    render: impl FnOnce(&Summary, &str, &LineIndex) -> T,
) -> Result<T, String> {
    let shown = path.display();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("{shown}: cannot read: {e}"))?
        .len();
    if size > settings.max_document_bytes as u64 {
        return Err(report_core::analysis::too_large_message(
            size as usize,
            settings.max_document_bytes,
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let host_options = HostOptions {
        name_matches: true,
        max_document_bytes: settings.max_document_bytes,
        max_diagnostics: settings.max_diagnostics,
    };
    let analysis = analyze_file(bytes, host_options, None);
    let host = DocumentHost::from_analysis(analysis, host_options, Arc::clone);
    let read = read_project(
        &host.project_request(None),
        Some(path),
        folders,
        &settings.workspace(),
        &mut crate::project::Cache::default(),
        &mut |_, _| {},
    );
    // As an open report's workspace facts are: what was read, or why
    // nothing was (the checks off, a root outside the workspace, which
    // says so among the problems too).
    let (facts, workspace) = match read {
        Read::Facts { facts, .. } => {
            let workspace = host.workspace_check(&facts, None);
            (Some(facts), workspace)
        }
        Read::Outside { said, why } => (Some(not_read(why)), vec![said]),
        Read::Off(why) => (Some(not_read(why.to_string())), Vec::new()),
        Read::NoRoot => (None, Vec::new()),
    };
    let at_hand = facts.as_ref().map(|facts| AtHand {
        facts,
        diagnostics: &workspace,
    });
    let summary = host
        .summary(options, at_hand, None)
        .ok_or_else(|| format!("{shown} is not a machine report: there is nothing to sum up"))?;
    let text = host.text();
    let index = LineIndex::new(text);
    Ok(render(&summary, text, &index))
}

fn not_read(why: String) -> WorkspaceFacts {
    WorkspaceFacts {
        not_read: Some(why),
        ..WorkspaceFacts::default()
    }
}
