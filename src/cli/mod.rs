//! The `check` command: find report files (or read standard input), analyse
//! them, perhaps fix them, print the findings in one format and choose the
//! exit code. Each output format has its own module; `fix` is the one place
//! that writes files.

mod explain;
mod fix;
mod github;
mod human;
mod json;
mod sarif;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use report_core::Analysis;
use report_core::diagnostic::{Diagnostic, Keep, Severity};
use report_core::selection::{ReportGlobs, looks_like_report};
use report_core::text::{Encoding, TextRange};

pub use explain::run_explain;

/// Exit codes, as a compiler's.
pub const EXIT_OK: u8 = 0;
pub const EXIT_INVALID: u8 = 1;
pub const EXIT_USAGE_OR_IO: u8 = 2;

/// The path that stands for standard input.
pub const STDIN_PATH: &str = "-";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

/// What `check` does with the fix-all edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// Report only.
    Off,
    /// Write the fixed files.
    Write,
    /// Print a unified diff of what `Write` would change, and write nothing.
    Diff,
}

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub paths: Vec<PathBuf>,
    pub format: Format,
    /// ANSI colours in human output.
    pub color: bool,
    /// The name standard input is shown under.
    pub stdin_filename: Option<String>,
    /// Accept folders in which no report is found.
    pub allow_empty: bool,
    /// Print problems only: no summary line.
    pub quiet: bool,
    /// The least severe diagnostic that fails the check (exit 1).
    pub fail_at: Severity,
    pub fix: FixMode,
    /// The project the reports describe (`--root`); None: each report's own resolution.
    pub root: Option<PathBuf>,
    /// The most diagnostics shown per file (`--max-diagnostics`), errors
    /// first; the others are counted, in the summary and the exit code too.
    pub max_diagnostics: usize,
    /// Check 8's tolerance (`--token-tolerance`), a fraction of the recount.
    pub token_tolerance: f64,
}

/// `--max-diagnostics`' default: more than anyone reads, few enough that a
/// report of millions of problems takes the memory of its text.
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 100_000;

impl CheckOptions {
    /// Options for `paths` with every other setting at its default.
    pub fn new(paths: Vec<PathBuf>) -> CheckOptions {
        CheckOptions {
            paths,
            format: Format::Human,
            color: false,
            stdin_filename: None,
            allow_empty: false,
            quiet: false,
            fail_at: Severity::Error,
            fix: FixMode::Off,
            root: None,
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
            token_tolerance: crate::workspace::tokens::DEFAULT_TOLERANCE,
        }
    }
}

/// A path that could not be checked, or a check that found nothing to check.
/// Every format shows these, and any of them makes the exit status 2.
#[derive(Clone, Debug)]
pub struct Failure {
    pub path: Option<String>,
    pub message: String,
}

/// One checked file.
pub struct FileResult {
    /// The path as shown.
    pub path: String,
    /// What is reported: after fixing, the analysis of the fixed text.
    pub analysis: Analysis,
    /// How many diagnostics `--fix` removed (0 without it).
    pub fixed: usize,
}

impl FileResult {
    pub fn valid(&self) -> bool {
        self.analysis.is_valid()
    }
}

/// Everything `check` found, in the order the paths were given.
pub struct Outcome {
    pub files: Vec<FileResult>,
    pub failures: Vec<Failure>,
}

/// Diagnostic counts over every file, for summaries.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    pub files: usize,
    pub valid: usize,
    pub errors: usize,
    pub warnings: usize,
    pub information: usize,
    pub hints: usize,
    /// Diagnostics whose fix `--fix` applies (a preferred fix).
    pub fixable: usize,
    pub fixed: usize,
    pub failures: usize,
    /// Diagnostics counted above but not shown (`--max-diagnostics`).
    pub omitted: usize,
}

impl Outcome {
    pub fn summary(&self) -> Summary {
        let mut summary = Summary {
            files: self.files.len(),
            failures: self.failures.len(),
            ..Summary::default()
        };
        for file in &self.files {
            summary.valid += usize::from(file.valid());
            summary.fixed += file.fixed;
            let omitted = &file.analysis.omitted;
            summary.omitted += omitted.len();
            summary.errors += omitted.count(Severity::Error);
            summary.warnings += omitted.count(Severity::Warning);
            summary.information += omitted.count(Severity::Information);
            summary.hints += omitted.count(Severity::Hint);
            for diagnostic in &file.analysis.diagnostics {
                summary.fixable +=
                    usize::from(diagnostic.fix.as_ref().is_some_and(|f| f.preferred));
                match diagnostic.severity {
                    Severity::Error => summary.errors += 1,
                    Severity::Warning => summary.warnings += 1,
                    Severity::Information => summary.information += 1,
                    Severity::Hint => summary.hints += 1,
                }
            }
        }
        summary
    }

    /// 2 for any failure, 1 for a diagnostic at least as severe as `fail_at`, else 0.
    pub fn exit_code(&self, fail_at: Severity) -> u8 {
        if !self.failures.is_empty() {
            return EXIT_USAGE_OR_IO;
        }
        let fails = self.files.iter().any(|f| {
            let analysis = &f.analysis;
            analysis.diagnostics.iter().any(|d| d.severity <= fail_at)
                || analysis.omitted.iter().any(|o| o.severity <= fail_at)
        });
        if fails { EXIT_INVALID } else { EXIT_OK }
    }
}

/// Runs `check`, writing the report to `out` and failures to `err`; returns the exit code.
pub fn run_check(
    options: &CheckOptions,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let (targets, searched_folders) = find_targets(&options.paths, &mut failures, &mut notes);
    for note in &notes {
        let _ = writeln!(err, "note: {note}");
    }
    let stdin_name = options
        .stdin_filename
        .clone()
        .unwrap_or_else(|| "<stdin>".to_string());
    if options.fix == FixMode::Write && targets.iter().any(|t| t.source == Source::Stdin) {
        failures.push(Failure {
            path: Some(stdin_name.clone()),
            message: "--fix cannot write standard input; use --diff to see the fixes".into(),
        });
    }
    let stdin_bytes = if targets.iter().any(|t| t.source == Source::Stdin) {
        let mut bytes = Vec::new();
        match stdin.read_to_end(&mut bytes) {
            Ok(_) => Some(bytes),
            Err(error) => {
                failures.push(Failure {
                    path: Some(stdin_name.clone()),
                    message: format!("cannot read standard input: {error}"),
                });
                None
            }
        }
    } else {
        None
    };
    let keep = Keep::at_most(options.max_diagnostics);
    // Files are analysed in parallel; results keep the targets' order, so output is stable.
    let outcomes: Vec<Result<Option<Checked>, Failure>> = analysis_pool().install(|| {
        use rayon::prelude::*;
        targets
            .par_iter()
            .map(|target| match target.source {
                Source::Stdin => Ok(stdin_bytes.clone().map(|bytes| Checked {
                    path: stdin_name.clone(),
                    file: None,
                    analysis: report_core::analyze_bytes_keeping(bytes, keep),
                })),
                Source::File { only_if_report } => check_file(&target.path, only_if_report, keep),
            })
            .collect()
    });
    let mut files = Vec::with_capacity(outcomes.len());
    let mut diffs = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(Some(checked)) => {
                let result = match options.fix {
                    FixMode::Off => FileResult {
                        path: checked.path,
                        analysis: checked.analysis,
                        fixed: 0,
                    },
                    mode => fix::fix_file(checked, mode, keep, &mut diffs, &mut failures),
                };
                files.push(result);
            }
            Ok(None) => {}
            Err(failure) => failures.push(failure),
        }
    }
    add_workspace_diagnostics(&mut files, options, &stdin_name);
    if files.is_empty() && searched_folders > 0 && !options.allow_empty {
        failures.push(Failure {
            path: None,
            message: "no report found in the given folders (hidden and ignored files are skipped); pass --allow-empty if that is expected".into(),
        });
    }
    for failure in &failures {
        let _ = writeln!(err, "error: {}", failure_text(failure));
    }
    let outcome = Outcome { files, failures };
    let written = if options.fix == FixMode::Diff {
        diffs
            .iter()
            .try_for_each(|diff| out.write_all(diff.as_bytes()))
    } else {
        match options.format {
            Format::Human => human::write(out, &outcome, options),
            Format::Json => json::write(out, &outcome),
            Format::Sarif => sarif::write(out, &outcome),
            Format::Github => github::write(out, &outcome),
        }
    };
    if let Err(error) = written.and_then(|_| out.flush()) {
        // A reader that stopped early (`check dir | head`) is not an error worth a message.
        if error.kind() != io::ErrorKind::BrokenPipe {
            let _ = writeln!(err, "error: cannot write the report: {error}");
            return EXIT_USAGE_OR_IO;
        }
    }
    if options.fix == FixMode::Diff && outcome.failures.is_empty() {
        return if diffs.is_empty() {
            EXIT_OK
        } else {
            EXIT_INVALID
        };
    }
    outcome.exit_code(options.fail_at)
}

/// Checks each report against the project it describes (invariant 13),
/// with one hash cache for all of them; the diagnostics join the file's own.
fn add_workspace_diagnostics(files: &mut [FileResult], options: &CheckOptions, stdin_name: &str) {
    let root = options.root.as_deref();
    let mut cache = crate::workspace::Cache {
        token_tolerance: options.token_tolerance,
        ..Default::default()
    };
    for file in files {
        let report = (file.path != stdin_name).then(|| Path::new(&file.path));
        let resolution = crate::workspace::root::resolve(&file.analysis, report, root, &[]);
        let Some(root) = resolution.root() else {
            continue;
        };
        let found = crate::workspace::check(&file.analysis, root, &mut cache);
        if !found.is_empty() {
            file.analysis.diagnostics.extend(found);
            file.analysis.diagnostics.sort_by(Diagnostic::order);
        }
    }
}

/// "PATH: MESSAGE", or the message alone when no path is concerned.
pub(crate) fn failure_text(failure: &Failure) -> String {
    match &failure.path {
        Some(path) => format!("{path}: {}", failure.message),
        None => failure.message.clone(),
    }
}

/// A pool whose threads have the stack an analysis may need.
fn analysis_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .stack_size(report_core::ANALYSIS_STACK_BYTES)
        .build()
        .expect("the analysis threads start")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Stdin,
    /// `only_if_report`: a JSON file found in a folder, checked only if its
    /// content is a report's.
    File {
        only_if_report: bool,
    },
}

struct Target {
    path: PathBuf,
    source: Source,
}

/// A file read and analysed, before any fixing.
pub(crate) struct Checked {
    pub path: String,
    /// The file on disk and what it held when read; None for standard input.
    pub file: Option<fix::ReadFile>,
    pub analysis: Analysis,
}

/// Checks one file; None for found JSON that turns out not to be a report
/// (so each file is read and parsed once, on the pool).
fn check_file(path: &Path, only_if_report: bool, keep: Keep) -> Result<Option<Checked>, Failure> {
    let (read, bytes) = match fix::ReadFile::read(path) {
        Ok(read) => read,
        // An unreadable file that only might have been a report is not one.
        Err(_) if only_if_report => return Ok(None),
        Err(error) => {
            return Err(Failure {
                path: Some(display_path(path)),
                message: format!("cannot read: {error}"),
            });
        }
    };
    let analysis = report_core::analyze_bytes_keeping(bytes, keep);
    if only_if_report && !analysis.root().is_some_and(looks_like_report) {
        return Ok(None);
    }
    Ok(Some(Checked {
        path: display_path(path),
        file: Some(read),
        analysis,
    }))
}

/// Paths named explicitly are always checked (`-` is standard input, read
/// once); folders are searched recursively (respecting ignore files) for
/// report names or report-like JSON, each folder's finds in path order.
/// Returns the targets and how many folders were searched.
/// Links skipped in folders go to `notes`, with the reason.
fn find_targets(
    paths: &[PathBuf],
    failures: &mut Vec<Failure>,
    notes: &mut Vec<String>,
) -> (Vec<Target>, usize) {
    let globs = ReportGlobs::default();
    let mut targets = Vec::new();
    let mut folders = 0;
    let mut stdin_taken = false;
    for path in paths {
        if path.as_os_str() == STDIN_PATH {
            if !std::mem::replace(&mut stdin_taken, true) {
                targets.push(Target {
                    path: path.clone(),
                    source: Source::Stdin,
                });
            }
            continue;
        }
        // Metadata first: opening a FIFO would wait for a writer, and a device never ends.
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(error) => {
                failures.push(Failure {
                    path: Some(display_path(path)),
                    message: format!("cannot read: {error}"),
                });
                continue;
            }
        };
        if meta.is_file() {
            targets.push(Target {
                path: path.clone(),
                source: Source::File {
                    only_if_report: false,
                },
            });
            continue;
        }
        if !meta.is_dir() {
            failures.push(Failure {
                path: Some(display_path(path)),
                message: "not a regular file or a folder (a FIFO, socket or device?); name report files, folders, or - for standard input".into(),
            });
            continue;
        }
        folders += 1;
        // Links are followed to files inside the searched folder only, never
        // to folders (so no loop is walked), and each one skipped is said.
        let root = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
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
                            source: Source::File { only_if_report },
                        });
                    }
                }
                Ok(item) if item.path_is_symlink() => {
                    // A link to a folder is said whatever its name: reports may be in it.
                    match (
                        link_inside(item.path(), &root),
                        candidate(item.path(), &globs),
                    ) {
                        (Ok(()), Some(only_if_report)) => found.push(Target {
                            path: item.into_path(),
                            source: Source::File { only_if_report },
                        }),
                        (Err(why), Some(_)) => {
                            notes.push(format!("{}: skipped: {why}", display_path(item.path())))
                        }
                        (Err(why), None) if why == FOLDER_LINK => {
                            notes.push(format!("{}: skipped: {why}", display_path(item.path())))
                        }
                        _ => {}
                    }
                }
                Ok(_) => {}
                Err(error) => failures.push(Failure {
                    path: Some(display_path(path)),
                    message: format!("cannot search: {error}"),
                }),
            }
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        targets.extend(found);
    }
    (targets, folders)
}

const FOLDER_LINK: &str =
    "a link to a folder (links to folders are not followed, so no loop is walked)";

/// Whether the symbolic link `link`, found in the folder `root` (resolved),
/// leads to a regular file inside `root`; if not, why it is skipped.
fn link_inside(link: &Path, root: &Path) -> Result<(), &'static str> {
    let target = std::fs::canonicalize(link)
        .map_err(|_| "a dangling link (its target does not exist) or a loop of links")?;
    let meta = std::fs::metadata(&target).map_err(|_| "its target cannot be read")?;
    if meta.is_dir() {
        return Err(FOLDER_LINK);
    }
    if !meta.is_file() {
        return Err("a link to something that is not a regular file");
    }
    if !target.starts_with(root) {
        return Err("a link to a file outside the searched folder");
    }
    Ok(())
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

/// The path as shown in every format: a name that is not UTF-8 keeps its
/// bytes, each byte that is no UTF-8 character written `\xNN`, so that two
/// such names never look the same (a lossy replacement character would
/// merge them).
fn display_path(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str());
    #[cfg(not(unix))]
    let lossy = path.to_string_lossy();
    #[cfg(not(unix))]
    let bytes = lossy.as_bytes();
    let mut shown = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        shown.push_str(chunk.valid());
        for byte in chunk.invalid() {
            shown.push_str(&format!("\\x{byte:02X}"));
        }
    }
    shown
}

/// A position as CI tools count: 1-based line, 1-based UTF-16 column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OneBased {
    pub line: u32,
    pub column: u32,
}

pub(crate) fn one_based(analysis: &Analysis, offset: usize) -> OneBased {
    let p = analysis
        .line_index()
        .line_col(&analysis.text, offset, Encoding::Utf16);
    OneBased {
        line: p.line + 1,
        column: p.col + 1,
    }
}

pub(crate) fn one_based_range(analysis: &Analysis, range: TextRange) -> (OneBased, OneBased) {
    (
        one_based(analysis, range.start),
        one_based(analysis, range.end),
    )
}

/// Every diagnostic of every file, with its file, in output order.
pub(crate) fn all_diagnostics(
    outcome: &Outcome,
) -> impl Iterator<Item = (&FileResult, &Diagnostic)> {
    outcome
        .files
        .iter()
        .flat_map(|file| file.analysis.diagnostics.iter().map(move |d| (file, d)))
}

/// Writes `text` to `out` for a command that prints one document; a reader
/// that stopped early is not an error.
pub fn print(out: &mut dyn Write, text: &str) -> u8 {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(error) => {
            eprintln!("report-lsp: cannot write: {error}");
            EXIT_USAGE_OR_IO
        }
    }
}

/// Whether `--color auto` colours: never with `NO_COLOR`; always with
/// `FORCE_COLOR` or `CLICOLOR_FORCE` (CI logs render colour but are no
/// terminal); otherwise when stdout is a terminal. Empty values and `0` are unset.
pub fn auto_color(
    stdout_is_terminal: bool,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty() && v != "0");
    if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if set("FORCE_COLOR") || set("CLICOLOR_FORCE") {
        return true;
    }
    stdout_is_terminal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_environment_conventions() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert!(auto_color(true, env(&[])));
        assert!(!auto_color(false, env(&[])));
        assert!(auto_color(false, env(&[("FORCE_COLOR", "1")])));
        assert!(auto_color(false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!auto_color(false, env(&[("FORCE_COLOR", "0")])));
        assert!(!auto_color(true, env(&[("NO_COLOR", "1")])));
        assert!(!auto_color(
            true,
            env(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")])
        ));
        assert!(auto_color(true, env(&[("NO_COLOR", "")])));
    }
}
