//! `--format human`: compiler-style snippets, then one summary line.

use std::io::{self, Write};

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

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
        let rendered = renderer.render(&[group]);
        writeln!(out, "{}\n", without_empty_origins(&rendered))?;
    }
    for file in outcome
        .files
        .iter()
        .filter(|f| !f.analysis.omitted.is_empty())
    {
        writeln!(out, "{}\n", omitted_note(file))?;
    }
    if options.quiet {
        return Ok(());
    }
    writeln!(out, "{}", summary_line(&outcome.summary()))
}

/// What stands for a file's diagnostics past `--max-diagnostics`.
pub(super) fn omitted_note(file: &FileResult) -> String {
    let omitted = &file.analysis.omitted;
    format!(
        "note: {}: {} more {} not shown ({} errors among them; the limit is {}, errors first)",
        file.path,
        omitted.len(),
        if omitted.len() == 1 {
            "problem is"
        } else {
            "problems are"
        },
        omitted.count(Severity::Error),
        file.limit,
    )
}

/// The rendering without the bare `:::` lines that a snippet without a path
/// brings (a long line's window, whose place is given apart, see
/// [`with_snippet`]); the text is unchanged when there are none.
fn without_empty_origins(rendered: &str) -> std::borrow::Cow<'_, str> {
    // Colour codes may surround the marker, so compare what is left of them.
    let is_bare_origin = |line: &str| strip_ansi(line).trim() == ":::";
    if !rendered.lines().any(is_bare_origin) {
        return rendered.into();
    }
    let kept: Vec<&str> = rendered.lines().filter(|l| !is_bare_origin(l)).collect();
    kept.join("\n").into()
}

/// `line` without ANSI escape sequences (`ESC [ … letter`).
fn strip_ansi(line: &str) -> String {
    let mut plain = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
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
    let group = Group::with_title(
        level
            .primary_title(diagnostic.message.as_str())
            .id(diagnostic.code.as_str()),
    );
    let mut group = with_snippet(
        group,
        result,
        diagnostic.range,
        AnnotationKind::Primary,
        None,
    );
    for related in &diagnostic.related {
        group = with_snippet(
            group,
            result,
            related.range,
            AnnotationKind::Context,
            Some(related.message.as_str()),
        );
    }
    group
}

/// Lines longer than this are shown as a window around the annotated place:
/// rendering a whole minified report (one line) for each of its thousands of
/// diagnostics would cost the line's length times their number.
const LONG_LINE_BYTES: usize = 512;

/// Bytes of a long line kept on each side of the annotated place.
const WINDOW_CONTEXT_BYTES: usize = 80;

/// Adds a snippet of the line around `range` only, so that rendering costs
/// the same in a small file and a huge one. A range over several lines is
/// shown on its first line: a missing field's range is its whole enclosing
/// object. A long line is cut to a window around the range, and its place
/// (`path:line:column`) is then given apart, counted on the whole line.
fn with_snippet<'a>(
    group: Group<'a>,
    result: &'a FileResult,
    range: TextRange,
    kind: AnnotationKind,
    label: Option<&'a str>,
) -> Group<'a> {
    let text: &str = &result.analysis.text;
    let index = result.analysis.line_index();
    let start = index.line_col(text, range.start, Encoding::Utf8);
    let line_start = range.start - start.col as usize;
    let line_end = index.line_range(text, start.line).end;
    let end = range.end.clamp(range.start, line_end.max(range.start));
    let long = line_end - line_start > LONG_LINE_BYTES;
    let (window_start, window_end) = match long {
        false => (line_start, line_end),
        true => (
            floor_char_boundary(
                text,
                range
                    .start
                    .saturating_sub(WINDOW_CONTEXT_BYTES)
                    .max(line_start),
            ),
            floor_char_boundary(
                text,
                (end.min(range.start + WINDOW_CONTEXT_BYTES) + WINDOW_CONTEXT_BYTES).min(line_end),
            ),
        ),
    };
    let end = end.min(window_end);
    let source = &text[window_start..window_end];
    let span = (range.start - window_start)..(end - window_start);
    let annotation = match label {
        Some(label) => kind.span(span).label(label),
        None => kind.span(span),
    };
    let snippet = Snippet::source(source).line_start(start.line as usize + 1);
    match long {
        false => group.element(snippet.path(result.path.as_str()).annotation(annotation)),
        true => group
            .element(
                Origin::path(result.path.as_str())
                    .line(start.line as usize + 1)
                    .char_column(index.char_column(text, range.start)),
            )
            .element(snippet.annotation(annotation)),
    }
}

/// The last character boundary at or before `offset`.
fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}
