//! `--format human`: compiler-style snippets, then one summary line.

use std::io::{self, Write};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use report_core::diagnostic::{Diagnostic, Severity};
use report_core::text::{Encoding, TextRange};

use super::{CheckOptions, FileResult, Outcome, Summary, all_diagnostics};

pub(super) fn write(
    out: &mut dyn Write,
    outcome: &Outcome,
    options: &CheckOptions,
) -> io::Result<()> {
    let renderer = if options.color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    for (file, diagnostic) in all_diagnostics(outcome) {
        let group = render_group(file, diagnostic);
        writeln!(out, "{}\n", renderer.render(&[group]))?;
    }
    if options.quiet {
        return Ok(());
    }
    writeln!(out, "{}", summary_line(&outcome.summary()))
}

/// `checked 2 files: 1 error, 1 information; 1 valid, 1 invalid`, with the
/// fixes and unreadable paths when there are any.
fn summary_line(summary: &Summary) -> String {
    let plural = |count: usize, one: &str, many: &str| {
        format!("{count} {}", if count == 1 { one } else { many })
    };
    let mut found: Vec<String> = [
        (summary.errors, Severity::Error),
        (summary.warnings, Severity::Warning),
        (summary.information, Severity::Information),
        (summary.hints, Severity::Hint),
    ]
    .into_iter()
    .filter(|(count, _)| *count > 0)
    .map(|(count, severity)| match severity {
        Severity::Information => format!("{count} information"),
        other => plural(count, other.as_str(), &format!("{}s", other.as_str())),
    })
    .collect();
    if found.is_empty() {
        found.push("no problems".into());
    }
    let mut line = format!(
        "checked {}: {}; {} valid, {} invalid",
        plural(summary.files, "file", "files"),
        found.join(", "),
        summary.valid,
        summary.files - summary.valid
    );
    if summary.fixed > 0 {
        line.push_str(&format!(
            "; fixed {}",
            plural(summary.fixed, "problem", "problems")
        ));
    }
    if summary.failures > 0 {
        line.push_str(&format!(
            "; {} (see above)",
            plural(summary.failures, "failure", "failures")
        ));
    }
    line
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
