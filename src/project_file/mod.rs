//! The project file that `check` and the server both read: `report-lsp.toml`,
//! or the `[tool.report-lsp]` table of a `pyproject.toml`, in the folder of
//! a report or any folder above it (the nearest wins, as ruff's and
//! taplo's do). It sets the report globs, the severity of codes, the token
//! tolerance, the limits and whether the workspace checks run; each value
//! it cannot take is a problem at its place in the file, never a silent
//! default. Reading one never runs anything: it is TOML, read as text.

mod find;

use std::ops::Range;
use std::path::{Path, PathBuf};

use report_core::diagnostic::Code;
use report_core::selection::ReportGlobs;
use report_core::severities::{Level, Severities};
use toml::de::{DeTable, DeValue};

pub use find::ProjectFiles;

/// The project file's own name.
pub const FILE_NAME: &str = "report-lsp.toml";

/// Python's project file, read when it has a `[tool.report-lsp]` table.
pub const PYPROJECT: &str = "pyproject.toml";

/// A project file larger than this is not read: no settings take a megabyte.
pub const MAX_BYTES: u64 = 1 << 20;

/// A project file read: its values, and the problems of the ones refused.
#[derive(Debug)]
pub struct ProjectFile {
    pub path: PathBuf,
    pub values: FileValues,
    /// Every value refused, with its place; the file's other values hold.
    pub problems: Vec<Problem>,
    /// The text read, for the problems' positions.
    pub text: String,
}

/// What a project file sets; None (or empty) where it sets nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileValues {
    pub files: Option<ReportGlobs>,
    pub token_tolerance: Option<f64>,
    pub max_diagnostics: Option<usize>,
    pub max_document_bytes: Option<usize>,
    pub max_document_links: Option<usize>,
    pub workspace_checks: Option<bool>,
    pub find_reports: Option<bool>,
    pub severities: Severities,
}

/// A value refused (or a syntax error), as a byte range of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub range: Range<usize>,
    pub message: String,
}

/// The keys of the file, each with the editor setting that overrides it.
pub const KEYS: &[(&str, &str)] = &[
    ("files", "files"),
    ("token-tolerance", "tokenTolerance"),
    ("max-diagnostics", "maxDiagnostics"),
    ("max-document-bytes", "maxDocumentBytes"),
    ("max-document-links", "maxDocumentLinks"),
    ("workspace-checks", "workspaceChecks"),
    ("find-reports", "findReports"),
    ("severity", "severity"),
];

/// Which of the two files `text` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    ReportLsp,
    Pyproject,
}

impl Kind {
    pub fn of(path: &Path) -> Option<Kind> {
        match path.file_name()?.to_str()? {
            FILE_NAME => Some(Kind::ReportLsp),
            PYPROJECT => Some(Kind::Pyproject),
            _ => None,
        }
    }
}

/// Reads the project file at `path`: None when there is none (no file, or
/// a `pyproject.toml` without a `[tool.report-lsp]` table).
pub fn read(path: &Path) -> Option<ProjectFile> {
    read_as(path, Kind::of(path)?)
}

/// [`read`], for a file of `kind` whatever its name (`check --config`).
pub fn read_as(path: &Path, kind: Kind) -> Option<ProjectFile> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let whole = |text: String, message: String| ProjectFile {
        path: path.to_path_buf(),
        values: FileValues::default(),
        problems: vec![Problem {
            range: 0..0,
            message,
        }],
        text,
    };
    if meta.len() > MAX_BYTES {
        // A Python project's file may be large for its own reasons: not ours.
        return (kind == Kind::ReportLsp).then(|| {
            whole(
                String::new(),
                format!(
                    "the project file is {} bytes, more than the {MAX_BYTES} read; none of its settings are used",
                    meta.len()
                ),
            )
        });
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            return (kind == Kind::ReportLsp).then(|| {
                whole(
                    String::new(),
                    format!(
                        "the project file cannot be read ({error}); none of its settings are used"
                    ),
                )
            });
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            return (kind == Kind::ReportLsp).then(|| {
                let at = error.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
                let mut file = whole(
                    text,
                    "the project file is not UTF-8, as TOML must be; none of its settings are used"
                        .into(),
                );
                file.problems[0].range = at..at;
                file
            });
        }
    };
    let (values, problems) = parse(&text, kind, path.parent().unwrap_or(Path::new(".")))?;
    Some(ProjectFile {
        path: path.to_path_buf(),
        values,
        problems,
        text,
    })
}

/// The values of a project file's text, and the problems of those refused;
/// None for a `pyproject.toml` that has no `[tool.report-lsp]` table.
/// `folder` is the file's own: the `files` globs are relative to it.
pub fn parse(text: &str, kind: Kind, folder: &Path) -> Option<(FileValues, Vec<Problem>)> {
    let (document, errors) = DeTable::parse_recoverable(text);
    let syntax = errors.iter().map(|error| {
        let range = error.span().unwrap_or(0..0);
        Problem {
            range,
            message: format!("TOML syntax: {}", error.message().trim_end()),
        }
    });
    let mut problems: Vec<Problem> = syntax.collect();
    let table = match kind {
        Kind::ReportLsp => Some(document.get_ref()),
        Kind::Pyproject => entry(document.get_ref(), "tool")
            .and_then(|(_, tool)| tool.get_ref().as_table())
            .and_then(|tool| entry(tool, "report-lsp"))
            .and_then(|(_, ours)| ours.get_ref().as_table()),
    };
    let table = match table {
        Some(table) => table,
        // A broken pyproject.toml that names our table is ours to report.
        None if kind == Kind::Pyproject
            && !problems.is_empty()
            && text.contains("tool.report-lsp") =>
        {
            return Some((FileValues::default(), problems));
        }
        None if kind == Kind::Pyproject => return None,
        None => return Some((FileValues::default(), problems)),
    };
    let mut values = FileValues::default();
    let syntax: Vec<Range<usize>> = problems.iter().map(|p| p.range.clone()).collect();
    for (key, value) in table.iter() {
        let name: &str = key.get_ref();
        let span = value.span();
        // A value the parser made up while recovering is told by its syntax error.
        if syntax
            .iter()
            .any(|s| s.start <= span.end && span.start <= s.end)
        {
            continue;
        }
        let value = value.get_ref();
        let refused = match name {
            "files" => globs(value, folder).map(|g| values.files = Some(g)),
            "token-tolerance" => tolerance(value).map(|t| values.token_tolerance = Some(t)),
            "max-diagnostics" => positive(value).map(|n| values.max_diagnostics = Some(n)),
            "max-document-bytes" => positive(value).map(|n| values.max_document_bytes = Some(n)),
            "max-document-links" => positive(value).map(|n| values.max_document_links = Some(n)),
            "workspace-checks" => on_off(value).map(|on| values.workspace_checks = Some(on)),
            "find-reports" => value
                .as_bool()
                .ok_or_else(|| expected("true or false", value))
                .map(|on| values.find_reports = Some(on)),
            "severity" => {
                match value.as_table() {
                    Some(levels) => values.severities = severities(levels, &mut problems),
                    None => problems.push(Problem {
                        range: span.clone(),
                        message: expected(
                            "a table of codes (or invariant-N) and levels, such as `[severity]` with `path-missing = \"error\"`",
                            value,
                        ),
                    }),
                }
                Ok(())
            }
            unknown => {
                problems.push(Problem {
                    range: key.span(),
                    message: unknown_key(unknown),
                });
                Ok(())
            }
        };
        if let Err(message) = refused {
            problems.push(Problem {
                range: span,
                message: format!("`{name}` refused: {message}; the default is used"),
            });
        }
    }
    problems.sort_by_key(|p| (p.range.start, p.range.end));
    Some((values, problems))
}

fn entry<'t, 'i>(
    table: &'t DeTable<'i>,
    name: &str,
) -> Option<(
    &'t toml::Spanned<toml::de::DeString<'i>>,
    &'t toml::Spanned<DeValue<'i>>,
)> {
    table.iter().find(|(key, _)| {
        let key: &str = key.get_ref();
        key == name
    })
}

fn unknown_key(name: &str) -> String {
    let squashed = |s: &str| s.replace(['-', '_'], "").to_lowercase();
    let known = KEYS
        .iter()
        .map(|(key, _)| format!("`{key}`"))
        .collect::<Vec<_>>();
    match KEYS.iter().find(|(key, _)| squashed(key) == squashed(name)) {
        Some((key, _)) => format!("unknown key `{name}`: did you mean `{key}`?"),
        None => format!("unknown key `{name}`; the keys are {}", known.join(", ")),
    }
}

fn kind_of(value: &DeValue) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn expected(what: &str, found: &DeValue) -> String {
    format!("expected {what}, found {}", kind_of(found))
}

fn integer(value: &DeValue) -> Option<i128> {
    let integer = value.as_integer()?;
    i128::from_str_radix(integer.as_str(), integer.radix()).ok()
}

fn positive(value: &DeValue) -> Result<usize, String> {
    const WHAT: &str = "a whole number of at least 1";
    match integer(value) {
        Some(n) if n >= 1 => usize::try_from(n).map_err(|_| format!("{n} is too large")),
        Some(n) => Err(format!("expected {WHAT}, found {n}")),
        None => Err(expected(WHAT, value)),
    }
}

fn tolerance(value: &DeValue) -> Result<f64, String> {
    const WHAT: &str = "a fraction of at least 0, such as 0.1 for 10%";
    let number = match value {
        DeValue::Float(float) => float.as_str().replace('_', "").parse::<f64>().ok(),
        DeValue::Integer(_) => integer(value).map(|n| n as f64),
        _ => return Err(expected(WHAT, value)),
    };
    number
        .filter(|t| t.is_finite() && *t >= 0.0)
        .ok_or_else(|| format!("expected {WHAT}"))
}

fn on_off(value: &DeValue) -> Result<bool, String> {
    match value {
        DeValue::Boolean(on) => Ok(*on),
        DeValue::String(s) if s == "on" => Ok(true),
        DeValue::String(s) if s == "off" => Ok(false),
        _ => Err(expected("true, false, \"on\" or \"off\"", value)),
    }
}

fn globs(value: &DeValue, folder: &Path) -> Result<ReportGlobs, String> {
    const WHAT: &str = "an array of glob strings, such as [\"**/*.report.json\"]";
    let items = value.as_array().ok_or_else(|| expected(WHAT, value))?;
    let patterns = items
        .iter()
        .map(|item| {
            item.get_ref()
                .as_str()
                .ok_or_else(|| expected(WHAT, item.get_ref()))
        })
        .collect::<Result<Vec<&str>, String>>()?;
    if patterns.is_empty() {
        return Err("expected at least one glob; no report would be found".into());
    }
    let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
    let folder = folder.to_string_lossy().replace('\\', "/");
    ReportGlobs::under(&folder, &patterns)
        .map_err(|error| format!("a glob does not parse: {error}"))
}

/// The `[severity]` table: a code's key beats its invariant's, wherever
/// each is written.
fn severities(levels: &DeTable, problems: &mut Vec<Problem>) -> Severities {
    let mut set = Severities::default();
    let mut by_code = Vec::new();
    let mut by_invariant = Vec::new();
    for (key, value) in levels.iter() {
        let name: &str = key.get_ref();
        let level = match value.get_ref().as_str().and_then(Level::parse) {
            Some(level) => level,
            None => {
                problems.push(Problem {
                    range: value.span(),
                    message: format!(
                        "`{name}` refused: {}; its own severity is used",
                        expected(
                            "\"error\", \"warning\", \"information\", \"hint\" or \"off\"",
                            value.get_ref()
                        )
                    )
                    .replace(", found a string", ""),
                });
                continue;
            }
        };
        let invariant = name
            .strip_prefix("invariant-")
            .and_then(|n| n.parse::<u32>().ok());
        match (Code::parse(name), invariant) {
            (Some(code), _) => by_code.push((code, level, value.span())),
            (None, Some(n)) if Code::ALL.iter().any(|c| c.invariant() == n) => {
                by_invariant.push((n, level, value.span()))
            }
            _ => problems.push(Problem {
                range: key.span(),
                message: format!(
                    "unknown code `{name}`: a key is a code (`report-lsp explain CODE` lists one) or invariant-N, N from 1 to 13"
                ),
            }),
        }
    }
    for (n, level, span) in by_invariant {
        let codes = Code::ALL.iter().filter(|c| c.invariant() == n);
        let refused: Vec<String> = codes
            .clone()
            .filter(|&&c| report_core::severities::refusal(c, level).is_some())
            .map(|c| format!("`{c}`"))
            .collect();
        if !refused.is_empty() {
            problems.push(Problem {
                range: span,
                message: format!(
                    "`invariant-{n}` cannot be {}: {} enforce the report's contract and stay errors (a report that breaks them is invalid); name the other codes one by one",
                    level.as_str(),
                    refused.join(", ")
                ),
            });
            continue;
        }
        for &code in codes {
            // Named alone, a code keeps its own key's level.
            if !by_code.iter().any(|(c, _, _)| *c == code) {
                let _ = set.set(code, level);
            }
        }
    }
    for (code, level, span) in by_code {
        if let Err(why) = set.set(code, level) {
            problems.push(Problem {
                range: span,
                message: why,
            });
        }
    }
    set
}

/// Where a problem is, for a person: "PATH:LINE:COLUMN" (one-based,
/// columns in characters).
pub fn place(file: &ProjectFile, problem: &Problem, shown: &str) -> String {
    let index = report_core::text::LineIndex::new(&file.text);
    let start = problem.range.start.min(file.text.len());
    let line = index
        .line_col(&file.text, start, report_core::text::Encoding::Utf8)
        .line;
    let column = index.char_column(&file.text, start);
    format!("{shown}:{}:{column}", line + 1)
}

#[cfg(test)]
mod tests;
