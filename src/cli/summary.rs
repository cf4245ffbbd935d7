//! The `summary` command: one report summed up for a reviewer
//! (`report_core::summary`), as text, Markdown, JSON or one HTML page. It
//! reads the report as `check` does (its project file, its project's facts
//! and git, in-process), an earlier generation when `--since` names one,
//! and writes nothing.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use report_core::host::{DocumentHost, HostOptions};
use report_core::project_checks::WorkspaceFacts;
use report_core::report_diff::{self, NotComparable};
use report_core::summary::{self, AtHand, SummaryOptions};
use report_core::text::TextRange;
use report_core::{Analysis, AnalysisOptions};
use serde_json::{Map, Value};

use super::project::Projects;
use super::targets::display_path;
use super::{CheckOptions, EXIT_USAGE_OR_IO, ProjectFileChoice, STDIN_PATH, print};
use crate::project::git::{AtHead, file_at_head};
use crate::project::root::Resolution;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryFormat {
    Text,
    Markdown,
    Json,
    Html,
}

/// What `--since` names: a file, or git's `HEAD` copy of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SinceArg {
    File(PathBuf),
    Head,
}

#[derive(Clone, Debug)]
pub struct SummaryCommand {
    /// The report; `-` is standard input.
    pub report: PathBuf,
    pub format: SummaryFormat,
    pub since: Option<SinceArg>,
    /// How many largest savings, folders and files are listed.
    pub top: usize,
    /// The project root, over `scan.project_root`.
    pub root: Option<PathBuf>,
    pub project_file: ProjectFileChoice,
}

/// Runs `summary`: 0 when it printed, 2 when a file cannot be read or is
/// not a report.
pub fn run_summary(
    options: &SummaryCommand,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    match summarize(options, stdin) {
        Ok(text) => print(out, &text),
        Err(message) => {
            let _ = writeln!(err, "report-lsp: {message}");
            EXIT_USAGE_OR_IO
        }
    }
}

fn read(path: &Path, stdin: &mut dyn Read) -> Result<(String, Vec<u8>), String> {
    if path.as_os_str() == STDIN_PATH {
        let mut bytes = Vec::new();
        stdin
            .read_to_end(&mut bytes)
            .map_err(|e| format!("<stdin>: cannot read: {e}"))?;
        return Ok(("<stdin>".into(), bytes));
    }
    let name = display_path(path);
    match super::fix::ReadFile::read(path) {
        Ok((_, bytes)) => Ok((name, bytes)),
        Err(error) => Err(format!("{name}: cannot read: {error}")),
    }
}

fn not_a_report(name: &str) -> String {
    format!(
        "{name} is not a machine report (a JSON object with `schema_version` and another member of the envelope)"
    )
}

fn summarize(options: &SummaryCommand, stdin: &mut dyn Read) -> Result<String, String> {
    if options.report.as_os_str() == STDIN_PATH
        && matches!(&options.since, Some(SinceArg::File(p)) if p.as_os_str() == STDIN_PATH)
    {
        return Err("only one of REPORT and --since can be standard input (-)".into());
    }
    let (name, bytes) = read(&options.report, stdin)?;
    let report_path = (options.report.as_os_str() != STDIN_PATH).then_some(&options.report);
    let mut failures = Vec::new();
    let projects = Projects::new(&options.project_file, &mut failures);
    let mut check = CheckOptions::new(vec![options.report.clone()]);
    check.root = options.root.clone();
    let settings = projects.settings_for(report_path.map(|p| p.as_path()), &check);
    if let Some(failure) = failures.first() {
        return Err(super::check::failure_text(failure));
    }
    // As `check` reads a file it is named: whatever its name and size.
    let host_options = HostOptions {
        name_matches: true,
        max_document_bytes: usize::MAX,
        max_diagnostics: settings.max,
    };
    // As `check` analyses one file: in pieces and runs per core.
    let pool = crate::threads::analysis_pool();
    let runner = crate::threads::OnPool(&pool);
    let analysis = report_core::analyze_with(
        bytes,
        AnalysisOptions {
            threads: runner.threads(),
            ..AnalysisOptions::keeping(report_core::diagnostic::Keep::at_most(
                host_options.kept_diagnostics(),
            ))
        },
    );
    let since = match &options.since {
        None => None,
        Some(SinceArg::File(path)) => {
            let (old_name, old_bytes) = read(path, stdin)?;
            let old = report_core::analyze_with(old_bytes, AnalysisOptions::default());
            Some((old_name, old))
        }
        Some(SinceArg::Head) => {
            let path =
                report_path.ok_or("--since HEAD needs the report's file, not standard input")?;
            // HEAD's copy is found from the file's folder: a bare name has none.
            let path = std::path::absolute(path).map_err(|e| format!("{name}: {e}"))?;
            match file_at_head(&path).map_err(|why| format!("{name}: HEAD's copy: {why}"))? {
                AtHead::Blob { bytes, .. } => Some((
                    "HEAD".to_string(),
                    report_core::analyze_with(bytes, AnalysisOptions::default()),
                )),
                AtHead::Absent => return Err(format!("{name}: HEAD has no copy of it")),
                AtHead::NoCommit => return Err(format!("{name}: the repository has no commit")),
                AtHead::TooLarge { bytes } => {
                    return Err(format!("{name}: HEAD's copy is too large ({bytes} bytes)"));
                }
            }
        }
    };
    let diff = match &since {
        Some((old_name, old)) => match report_diff::diff(old, &analysis) {
            Ok(diff) => Some((old_name.as_str(), diff)),
            Err(NotComparable::OldIsNotAReport) => return Err(not_a_report(old_name)),
            Err(NotComparable::NewIsNotAReport) => return Err(not_a_report(&name)),
        },
        None => None,
    };
    let facts = match settings.workspace_checks {
        true => project_facts(
            &analysis,
            report_path.map(|p| p.as_path()),
            options,
            &settings,
        ),
        false => None,
    };
    let workspace = facts
        .as_ref()
        .map(|f| report_core::project_checks::check(&analysis, f))
        .unwrap_or_default();
    let text = analysis.text.clone();
    let invalid_utf8 =
        (analysis.diagnostics.iter()).any(|d| d.code == report_core::diagnostic::Code::InvalidUtf8);
    let host = DocumentHost::of_whole(analysis, host_options, Arc::clone);
    let at_hand = facts.as_ref().map(|facts| AtHand {
        facts,
        diagnostics: &workspace,
    });
    let summary = host
        .summary(
            SummaryOptions { top: options.top },
            at_hand,
            diff.as_ref().map(|(n, d)| (*n, d)),
        )
        .ok_or_else(|| match invalid_utf8 {
            true => {
                format!("{name} is not UTF-8 (invalid-utf8): `report-lsp check {name}` says where")
            }
            false => not_a_report(&name),
        })?;
    let places = places(&text, &summary);
    let line = |range: TextRange| places.get(&range.start).copied().unwrap_or((1, 1));
    let words = |range: TextRange| format!("line {}", line(range).0);
    let place = |range: TextRange| {
        let (line, column) = line(range);
        let mut map = Map::new();
        map.insert("line".into(), Value::from(line));
        map.insert("column".into(), Value::from(column));
        map
    };
    Ok(match options.format {
        SummaryFormat::Text => summary::render::text(&summary, &name, &words) + "\n",
        SummaryFormat::Markdown => summary::render::markdown(&summary, &name, &words) + "\n",
        SummaryFormat::Json => {
            let mut text = serde_json::to_string_pretty(&summary::json::to_json(&summary, &place))
                .expect("a summary serializes");
            text.push('\n');
            text
        }
        SummaryFormat::Html => summary::html::html(&summary, &name, &words),
    })
}

/// The line and column of each place the summary names, as `check` prints
/// positions (1-based, columns in UTF-16 units), found in one pass over
/// the text up to the last: a line index of a 40 MB report for a few dozen
/// places would cost more than the summary.
fn places(text: &str, summary: &summary::Summary) -> HashMap<usize, (u32, u32)> {
    let mut offsets: Vec<usize> = summary
        .named_entries()
        .iter()
        .map(|e| e.range.start)
        .chain(
            summary
                .problems
                .invariants
                .iter()
                .flat_map(|i| i.codes.iter().map(|c| c.first.start)),
        )
        .map(|o| o.min(text.len()))
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut out = HashMap::with_capacity(offsets.len());
    let (mut line, mut line_start) = (1u32, 0usize);
    // Line ends as the core's `LineIndex` takes them: `\n`, `\r\n`, `\r`.
    let bytes = text.as_bytes();
    let mut newlines = memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(|&i| !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')))
        .peekable();
    for offset in offsets {
        while let Some(&at) = newlines.peek().filter(|&&at| at < offset) {
            line += 1;
            line_start = at + 1;
            newlines.next();
        }
        let column = text
            .get(line_start..offset)
            .map_or(0, |s| s.encode_utf16().count());
        out.insert(offset, (line, column as u32 + 1));
    }
    out
}

/// The project's facts as `check` reads them, when its root is here.
fn project_facts(
    analysis: &Analysis,
    report: Option<&Path>,
    options: &SummaryCommand,
    settings: &super::project::FileSettings,
) -> Option<WorkspaceFacts> {
    let named = (analysis.root())
        .and_then(report_core::project_checks::project_root_of)
        .and_then(|node| node.as_str());
    let resolution = crate::project::root::resolve(named, report, options.root.as_deref(), &[]);
    let Resolution::Found(root) = resolution else {
        return None;
    };
    let mut cache = crate::project::Cache {
        token_tolerance: settings.token_tolerance,
        ..crate::project::Cache::default()
    };
    let request = report_core::project_checks::request(analysis);
    Some(crate::project::gather(&request, Some(&root), &mut cache))
}
