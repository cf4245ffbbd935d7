//! A report compared with its copy at git's HEAD, for the editor's code
//! lens ("since HEAD: +120 / −80 entries, …") and the command that shows
//! the whole comparison. HEAD's copy is read in-process (`git::head`):
//! nothing the repository names runs.

use std::path::Path;
use std::sync::Arc;

use report_core::Analysis;
use report_core::report_diff::{self, NotComparable, ReportDiff, Side, render};

/// The comparison, as the lens and the command show it.
#[derive(Clone, Debug, PartialEq)]
pub struct SinceHead {
    /// One line, for the lens.
    pub title: String,
    /// The whole comparison, as `report-lsp diff` prints it; None where it
    /// is made when the command asks ([`HeadCopy::Differs`]).
    pub text: Option<String>,
    /// The comparison itself, for the summary's change since HEAD; None
    /// where there is none (not compared, HEAD's copy no report).
    pub diff: Option<Arc<ReportDiff>>,
}

/// What reading HEAD's copy found.
#[derive(Clone, Debug, PartialEq)]
pub enum HeadCopy {
    /// The two texts, compared.
    Compared(SinceHead),
    /// HEAD's copy differs from a text too large to compare at every
    /// check (see [`Current::compare_now`]): compared when the command asks.
    Differs,
    /// HEAD's copy is the current text, byte for byte: the editor says so
    /// from the analysis it holds ([`unchanged`]), and nothing is parsed.
    /// A report opened from a commit, as reviewed, is one.
    Unchanged { head_name: String, name: String },
}

/// The current text of a report in the editor, as the comparison needs it.
pub struct Current<Same, Analyse> {
    /// Whether HEAD's bytes are the current text.
    pub is: Same,
    /// Whether two different texts are compared now. The comparison
    /// analyses both whole, about five times the text at once: for a big
    /// report that is more than its open costs, so it waits for the command.
    pub compare_now: bool,
    /// An analysis of the current text, made only when it is compared.
    pub analyse: Analyse,
}

/// The current text of the report at `file` against HEAD's copy of
/// `file`; None where there is nothing to compare with (no repository, no
/// commit yet) or git's data cannot be read.
pub fn since_head(
    file: &Path,
    current: Current<impl FnOnce(&[u8]) -> bool, impl FnOnce() -> Analysis>,
) -> Option<HeadCopy> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let bytes = match super::git::file_at_head(file).ok()? {
        super::git::AtHead::NoCommit => return None,
        super::git::AtHead::Absent => {
            return Some(HeadCopy::Compared(SinceHead {
                title: "since HEAD: a new file, not in HEAD".into(),
                text: Some(format!(
                    "{name} is not in HEAD's commit: everything in it is new.\n"
                )),
                diff: None,
            }));
        }
        super::git::AtHead::TooLarge { bytes } => {
            return Some(HeadCopy::Compared(SinceHead {
                title: "since HEAD: HEAD's copy is too large to compare".into(),
                text: Some(format!(
                    "HEAD's copy of {name} holds {bytes} bytes, more than the {} read at most: it is not compared.\n",
                    super::git::MAX_HEAD_BYTES
                )),
                diff: None,
            }));
        }
        super::git::AtHead::Blob { bytes, .. } => bytes,
    };
    let head_name = format!("HEAD:{name}");
    let same = (current.is)(&bytes);
    // The same text: said from the editor's analysis, or without one
    // (see [`unchanged`]); nothing is parsed.
    if same {
        return Some(HeadCopy::Unchanged { head_name, name });
    }
    if !same && !current.compare_now {
        return Some(HeadCopy::Differs);
    }
    // Only counted: the comparison needs the facts, not the diagnostics.
    let keep = report_core::diagnostic::Keep::at_most(0);
    let head = report_core::analyze_with(bytes, report_core::AnalysisOptions::keeping(keep));
    let current = &(current.analyse)();
    let compared = report_diff::diff(&head, current);
    let generation = |name, analysis| render::Generation { name, analysis };
    let text = |diff: &ReportDiff| {
        render::human(
            diff,
            generation(&head_name, &head),
            generation(&name, current),
            false,
        )
    };
    said(compared, &head_name, text).map(HeadCopy::Compared)
}

/// [`HeadCopy::Differs`] as the lens says it; its command compares.
pub fn differs() -> SinceHead {
    SinceHead {
        title: "since HEAD: changed (run to compare)".into(),
        text: None,
        diff: None,
    }
}

/// [`HeadCopy::Unchanged`] said from the editor's analysis of the text:
/// `side` is its `diff_side`, None where it is not a report; `analysed`
/// is false when the text was too large to be analysed.
pub fn unchanged(
    head_name: &str,
    name: &str,
    side: Option<Side>,
    analysed: bool,
) -> Option<SinceHead> {
    if !analysed {
        return Some(SinceHead {
            title: "since HEAD: no changes".into(),
            text: Some(format!("{head_name} → {name}: no changes\n")),
            diff: None,
        });
    }
    // One text: where it is not a report, HEAD's copy is not one either.
    let compared = side
        .map(report_diff::unchanged)
        .ok_or(NotComparable::OldIsNotAReport);
    said(compared, head_name, |diff| {
        render::human_unchanged(diff, head_name, name)
    })
}

/// The lens's title and the command's text for a comparison.
fn said(
    compared: Result<ReportDiff, NotComparable>,
    head_name: &str,
    text: impl FnOnce(&ReportDiff) -> String,
) -> Option<SinceHead> {
    match compared {
        Ok(diff) => Some(SinceHead {
            title: format!("since HEAD: {}", diff.summary()),
            text: Some(text(&diff)),
            diff: Some(Arc::new(diff)),
        }),
        Err(NotComparable::OldIsNotAReport) => Some(SinceHead {
            title: "since HEAD: HEAD's copy is not a report".into(),
            text: Some(format!(
                "{head_name} is not a machine report: there is nothing to compare.\n"
            )),
            diff: None,
        }),
        Err(NotComparable::NewIsNotAReport) => None,
    }
}
