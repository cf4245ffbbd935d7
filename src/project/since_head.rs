//! A report compared with its copy at git's HEAD, for the editor's code
//! lens ("since HEAD: +120 / −80 entries, …") and the command that shows
//! the whole comparison. HEAD's copy is read in-process (`git::head`):
//! nothing the repository names runs.

use std::path::Path;

use report_core::Analysis;
use report_core::report_diff::{self, render};

/// The comparison, as the lens and the command show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinceHead {
    /// One line, for the lens.
    pub title: String,
    /// The whole comparison, as `report-lsp diff` prints it.
    pub text: String,
}

/// The current text of the report at `file` (analysed by `current`, only
/// when HEAD has a copy to compare it with) against HEAD's copy of `file`;
/// None where there is nothing to compare with (no repository, no commit
/// yet) or git's data cannot be read.
pub fn since_head(file: &Path, current: impl FnOnce() -> Analysis) -> Option<SinceHead> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let bytes = match super::git::file_at_head(file).ok()? {
        super::git::AtHead::NoCommit => return None,
        super::git::AtHead::Absent => {
            return Some(SinceHead {
                title: "since HEAD: a new file, not in HEAD".into(),
                text: format!("{name} is not in HEAD's commit: everything in it is new.\n"),
            });
        }
        super::git::AtHead::TooLarge { bytes } => {
            return Some(SinceHead {
                title: "since HEAD: HEAD's copy is too large to compare".into(),
                text: format!(
                    "HEAD's copy of {name} holds {bytes} bytes, more than the {} read at most: it is not compared.\n",
                    super::git::MAX_HEAD_BYTES
                ),
            });
        }
        super::git::AtHead::Blob { bytes, .. } => bytes,
    };
    // Only counted: the comparison needs the facts, not the diagnostics.
    let keep = report_core::diagnostic::Keep::at_most(0);
    let head = report_core::analyze_with(bytes, report_core::AnalysisOptions::keeping(keep));
    let head_name = format!("HEAD:{name}");
    let current = &current();
    match report_diff::diff(&head, current) {
        Ok(diff) => Some(SinceHead {
            title: format!("since HEAD: {}", diff.summary()),
            text: render::human(
                &diff,
                render::Generation {
                    name: &head_name,
                    analysis: &head,
                },
                render::Generation {
                    name: &name,
                    analysis: current,
                },
                false,
            ),
        }),
        Err(report_diff::NotComparable::OldIsNotAReport) => Some(SinceHead {
            title: "since HEAD: HEAD's copy is not a report".into(),
            text: format!("{head_name} is not a machine report: there is nothing to compare.\n"),
        }),
        Err(report_diff::NotComparable::NewIsNotAReport) => None,
    }
}
