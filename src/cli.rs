//! The `check` command: find report files, analyse them, print compiler-style
//! diagnostics (or one JSON object) and choose the exit code.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use report_core::Analysis;
use report_core::diagnostic::{Code, Diagnostic, Severity};
use report_core::selection::{ReportGlobs, looks_like_report};
use report_core::text::{Encoding, TextRange};

/// Exit codes, as a compiler's.
pub const EXIT_OK: u8 = 0;
pub const EXIT_INVALID: u8 = 1;
pub const EXIT_USAGE_OR_IO: u8 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
}

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub paths: Vec<PathBuf>,
    pub format: Format,
    /// ANSI colours in human output.
    pub color: bool,
}

/// Runs `explain CODE`: the invariant a diagnostic code enforces.
pub fn run_explain(code: &str, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let Some(code) = Code::parse(code.trim()) else {
        let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let _ = writeln!(
            err,
            "report-lsp: no diagnostic code `{code}`; the codes are: {}",
            known.join(", ")
        );
        return EXIT_USAGE_OR_IO;
    };
    match out.write_all(report_core::docs::explain(code).as_bytes()) {
        Ok(()) => EXIT_OK,
        Err(_) => EXIT_USAGE_OR_IO,
    }
}

/// Runs `check`, writing the report to `out` and I/O problems to `err`; returns the exit code.
pub fn run_check(options: &CheckOptions, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut io_failed = false;
    let targets = find_targets(&options.paths, err, &mut io_failed);
    // Files are analysed in parallel; results keep the targets' order, so output is stable.
    let outcomes: Vec<Result<Option<FileResult>, String>> = analysis_pool().install(|| {
        use rayon::prelude::*;
        targets.par_iter().map(check_file).collect()
    });
    let mut results = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        match outcome {
            Ok(Some(result)) => results.push(result),
            Ok(None) => {}
            Err(message) => {
                let _ = writeln!(err, "{message}");
                io_failed = true;
            }
        }
    }
    let written = match options.format {
        Format::Human => write_human(out, &results, options.color),
        Format::Json => write_json(out, &results),
    };
    if let Err(error) = written.and_then(|_| out.flush()) {
        let _ = writeln!(err, "error: cannot write the report: {error}");
        return EXIT_USAGE_OR_IO;
    }
    if io_failed {
        EXIT_USAGE_OR_IO
    } else if results.iter().any(|r| !r.valid) {
        EXIT_INVALID
    } else {
        EXIT_OK
    }
}

/// A pool whose threads have the stack an analysis may need.
fn analysis_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .stack_size(report_core::ANALYSIS_STACK_BYTES)
        .build()
        .expect("the analysis threads start")
}

/// A file to check: named explicitly or by a report glob, or a JSON file
/// found in a folder that is checked only if its content is a report's.
struct Target {
    path: PathBuf,
    only_if_report: bool,
}

/// Checks one target; None for found JSON that turns out not to be a report
/// (so each file is read and parsed once, on the pool).
fn check_file(target: &Target) -> Result<Option<FileResult>, String> {
    let path = &target.path;
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        // An unreadable file that only might have been a report is not one.
        Err(_) if target.only_if_report => return Ok(None),
        Err(error) => return Err(format!("error: cannot read {}: {error}", path.display())),
    };
    let analysis = report_core::analyze_bytes(bytes);
    if target.only_if_report && !analysis.root().is_some_and(looks_like_report) {
        return Ok(None);
    }
    Ok(Some(FileResult {
        path: display_path(path),
        valid: analysis.is_valid(),
        analysis,
    }))
}

struct FileResult {
    path: String,
    valid: bool,
    analysis: Analysis,
}

/// Paths named explicitly are always checked; folders are searched
/// recursively (respecting ignore files) for report names or report-like JSON,
/// each folder's finds in path order.
fn find_targets(paths: &[PathBuf], err: &mut dyn Write, io_failed: &mut bool) -> Vec<Target> {
    let globs = ReportGlobs::default();
    let mut targets = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut found = Vec::new();
                for item in ignore::WalkBuilder::new(path)
                    .sort_by_file_name(|a, b| a.cmp(b))
                    .build()
                {
                    match item {
                        Ok(item) if item.file_type().is_some_and(|t| t.is_file()) => {
                            if let Some(only_if_report) = candidate(item.path(), &globs) {
                                found.push(Target {
                                    path: item.into_path(),
                                    only_if_report,
                                });
                            }
                        }
                        Ok(_) => {}
                        Err(error) => {
                            let _ =
                                writeln!(err, "error: cannot search {}: {error}", path.display());
                            *io_failed = true;
                        }
                    }
                }
                found.sort_by(|a, b| a.path.cmp(&b.path));
                targets.extend(found);
            }
            Ok(_) => targets.push(Target {
                path: path.clone(),
                only_if_report: false,
            }),
            Err(error) => {
                let _ = writeln!(err, "error: cannot read {}: {error}", path.display());
                *io_failed = true;
            }
        }
    }
    targets
}

/// Whether a found file is a report by name (`Some(false)`), might be one by
/// content (`Some(true)`: other JSON), or is not (None).
fn candidate(path: &Path, globs: &ReportGlobs) -> Option<bool> {
    let slashed = path.to_string_lossy().replace('\\', "/");
    if globs.matches(&slashed) {
        return Some(false);
    }
    path.extension()
        .is_some_and(|e| e == "json")
        .then_some(true)
}

fn display_path(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn write_human(out: &mut dyn Write, results: &[FileResult], color: bool) -> io::Result<()> {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut counts = [0usize; 4];
    for result in results {
        for diagnostic in &result.analysis.diagnostics {
            counts[diagnostic.severity as usize] += 1;
            let group = render_group(result, diagnostic);
            writeln!(out, "{}\n", renderer.render(&[group]))?;
        }
    }
    let invalid = results.iter().filter(|r| !r.valid).count();
    let mut parts = Vec::new();
    for (severity, count) in [
        Severity::Error,
        Severity::Warning,
        Severity::Information,
        Severity::Hint,
    ]
    .into_iter()
    .zip(counts)
    {
        if count > 0 {
            let noun = match severity {
                Severity::Information => "information".to_string(),
                other if count == 1 => other.as_str().to_string(),
                other => format!("{}s", other.as_str()),
            };
            parts.push(format!("{count} {noun}"));
        }
    }
    let files = |n: usize| {
        if n == 1 {
            "1 file".to_string()
        } else {
            format!("{n} files")
        }
    };
    let found = if parts.is_empty() {
        "no problems".to_string()
    } else {
        parts.join(", ")
    };
    writeln!(
        out,
        "checked {}: {found}; {} valid, {} invalid",
        files(results.len()),
        results.len() - invalid,
        invalid
    )
}

fn render_group<'a>(result: &'a FileResult, diagnostic: &'a Diagnostic) -> Group<'a> {
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Information => Level::INFO,
        Severity::Hint => Level::HELP,
    };
    let mut group = level
        .primary_title(diagnostic.message.as_str())
        .id(diagnostic.code.as_str())
        .element(snippet(
            result,
            diagnostic.range,
            AnnotationKind::Primary,
            None,
        ));
    for related in &diagnostic.related {
        group = group.element(snippet(
            result,
            related.range,
            AnnotationKind::Context,
            Some(related.message.as_str()),
        ));
    }
    group
}

/// A snippet of the lines around `range` only, so that rendering costs the
/// same in a small file and a huge one. A range over several lines is shown
/// on its first line: a missing field's range is its whole enclosing object.
fn snippet<'a>(
    result: &'a FileResult,
    range: TextRange,
    kind: AnnotationKind,
    label: Option<&'a str>,
) -> Snippet<'a, annotate_snippets::Annotation<'a>> {
    let text: &str = &result.analysis.text;
    let index = &result.analysis.line_index();
    let start = index.line_col(text, range.start, Encoding::Utf8);
    let line_start = range.start - start.col as usize;
    let line_end = text[line_start..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| line_start + i);
    let end = range.end.clamp(range.start, line_end.max(range.start));
    let source = &text[line_start..line_end];
    let span = (range.start - line_start)..(end - line_start);
    let annotation = match label {
        Some(label) => kind.span(span).label(label),
        None => kind.span(span),
    };
    Snippet::source(source)
        .line_start(start.line as usize + 1)
        .path(result.path.as_str())
        .annotation(annotation)
}

fn write_json(out: &mut dyn Write, results: &[FileResult]) -> io::Result<()> {
    let files: Vec<serde_json::Value> = results
        .iter()
        .map(|result| {
            let position = |offset: usize| {
                let p = result.analysis.line_index().line_col(&result.analysis.text, offset, Encoding::Utf16);
                serde_json::json!({"line": p.line, "character": p.col})
            };
            let diagnostics: Vec<serde_json::Value> = result
                .analysis
                .diagnostics
                .iter()
                .map(|d| {
                    serde_json::json!({
                        "code": d.code.as_str(),
                        "severity": d.severity.as_str(),
                        "message": d.message,
                        "range": {"start": position(d.range.start), "end": position(d.range.end)},
                    })
                })
                .collect();
            serde_json::json!({"path": result.path, "valid": result.valid, "diagnostics": diagnostics})
        })
        .collect();
    serde_json::to_writer(&mut *out, &serde_json::json!({ "files": files }))?;
    writeln!(out)
}
