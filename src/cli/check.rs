//! `check` itself: the targets read and analysed (in parallel), the
//! workspace checks added, fixes applied.

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::path::Path;

use report_core::diagnostic::{Diagnostic, Keep};
use report_core::publication::{self, Own};
use report_core::selection::looks_like_report;
use report_core::{Analysis, Threads};

use crate::threads::{OnPool, analysis_pool};

use super::project::{FileSettings, Projects};
use super::targets::{Source, display_path, find_targets};
use super::*;
use crate::project::root::Resolution;

/// Runs `check`, writing the report to `out` and failures to `err`; returns the exit code.
pub fn run_check(
    options: &CheckOptions,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let projects = Projects::new(&options.project_file, &mut failures);
    let (targets, searched_folders) = find_targets(
        &options.paths,
        &|folder| projects.globs_for(folder),
        &mut failures,
        &mut notes,
    );
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
    // Each report's settings: the flags over its project file over the defaults.
    let settings: Vec<FileSettings> = targets
        .iter()
        .map(|target| {
            let path = match target.source {
                Source::Stdin => options
                    .stdin_filename
                    .as_deref()
                    .map(Path::new)
                    .filter(|p| p.parent().is_some_and(|d| d.is_dir())),
                Source::File { .. } => Some(target.path.as_path()),
            };
            projects.settings_for(path, options)
        })
        .collect();
    projects.problems(&mut failures);
    // One file: parsed in a piece per core of the pool, its entries checked
    // in a few runs per core. Several: the pool runs one file a thread already.
    let pool = analysis_pool();
    let runner = OnPool(&pool);
    let threads = match targets.len() {
        1 => runner.threads(),
        _ => Threads::OneThread,
    };
    // Files are analysed in parallel; results keep the targets' order, so output is stable.
    let outcomes: Vec<Result<Option<Checked>, Failure>> = pool.install(|| {
        use rayon::prelude::*;
        targets
            .par_iter()
            .zip(&settings)
            .map(|(target, settings)| (target, settings.keep))
            .map(|(target, keep)| match target.source {
                Source::Stdin => Ok(stdin_bytes.clone().map(|bytes| Checked {
                    path: stdin_name.clone(),
                    file: None,
                    analysis: report_core::analyze_with(
                        bytes,
                        report_core::AnalysisOptions {
                            keep,
                            threads,
                            wanted: None,
                        },
                    ),
                })),
                Source::File { only_if_report } => {
                    check_file(&target.path, only_if_report, keep, threads)
                }
            })
            .collect()
    });
    let mut files = Vec::with_capacity(outcomes.len());
    let mut file_settings = Vec::with_capacity(outcomes.len());
    let mut diffs = Vec::new();
    for (outcome, settings) in outcomes.into_iter().zip(settings) {
        match outcome {
            Ok(Some(checked)) => {
                let result = match options.fix {
                    FixMode::Off => FileResult {
                        path: checked.path,
                        analysis: checked.analysis,
                        fixed: 0,
                        limit: settings.limit.clone(),
                    },
                    mode => fix::fix_file(
                        checked,
                        mode,
                        settings.keep,
                        &settings.limit,
                        &mut diffs,
                        &mut failures,
                    ),
                };
                files.push(result);
                file_settings.push(settings);
            }
            Ok(None) => {}
            Err(failure) => failures.push(failure),
        }
    }
    let started = std::time::Instant::now();
    let (previews, workspace) = workspace_diagnostics(&files, &file_settings, options, &stdin_name);
    for ((file, settings), workspace) in files.iter_mut().zip(&file_settings).zip(&workspace) {
        publish(file, settings, workspace);
    }
    tracing::debug!(
        files = files.len(),
        ms = crate::log::millis(started.elapsed()),
        "workspace checks"
    );
    if files.is_empty() && searched_folders > 0 && !options.allow_empty {
        failures.push(Failure {
            path: None,
            message: "no report found in the given folders (hidden and ignored files are skipped); pass --allow-empty if that is expected".into(),
        });
    }
    for failure in &failures {
        let _ = writeln!(err, "error: {}", failure_text(failure));
    }
    // One file's problems, about to be printed, are placed through a line
    // index built on every core (10 ms of one for a 40 MB report); several
    // files are analysed a thread each already.
    if let [file] = &files[..]
        && !file.analysis.diagnostics.is_empty()
        && !options.preview
        && options.fix != FixMode::Diff
    {
        file.analysis.index_lines(threads);
    }
    let outcome = Outcome { files, failures };
    let written = if options.preview {
        out.write_all(previews.as_bytes())
    } else if options.fix == FixMode::Diff {
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
    let code = outcome.exit_code(options.fail_at);
    // Freeing a large report's analysis value by value takes longer than
    // the exit, which returns the memory whole: a thread does it, which
    // the exit does not wait for (if no thread can start, the refused
    // closure is dropped here, and the outcome with it).
    let _ = std::thread::Builder::new().spawn(move || drop(outcome));
    code
}

/// What `check` shows of a file: its own diagnostics and the workspace
/// checks' as every view publishes them (`report_core::publication`: the
/// project's levels, then the cap over both); those the cap drops are
/// counted with those the analysis counted.
fn publish(file: &mut FileResult, settings: &FileSettings, workspace: &[Diagnostic]) {
    let analysis = &mut file.analysis;
    let own = Own::of_whole(std::mem::take(&mut analysis.diagnostics), &analysis.omitted);
    let o = publication::Options {
        max: settings.max,
        severities: &settings.severities,
    };
    let published = publication::publish(own, workspace, &o);
    analysis.diagnostics = (published.diagnostics.into_iter())
        .map(Cow::into_owned)
        .collect();
    analysis.omitted.extend(published.dropped);
}

/// Checks each report against the project it describes (invariant 13),
/// with one hash cache for all of them: each file's workspace diagnostics.
/// With `--preview`, also what a clean would do, from the same facts.
fn workspace_diagnostics(
    files: &[FileResult],
    settings: &[FileSettings],
    options: &CheckOptions,
    stdin_name: &str,
) -> (String, Vec<Vec<Diagnostic>>) {
    let mut cache = crate::project::Cache::default();
    let mut previews = String::new();
    let found = (files.iter().zip(settings))
        .map(|(file, settings)| {
            let report = (file.path != stdin_name).then(|| Path::new(&file.path));
            workspace_checks(file, report, settings, options, &mut cache, &mut previews)
        })
        .collect();
    (previews, found)
}

/// One report checked against its project; with `--preview`, what a clean
/// would do (or why there is no preview) goes to `previews`.
fn workspace_checks(
    file: &FileResult,
    report: Option<&Path>,
    settings: &FileSettings,
    options: &CheckOptions,
    cache: &mut crate::project::Cache,
    previews: &mut String,
) -> Vec<Diagnostic> {
    let mut no_preview = |why: &str| {
        if options.preview {
            previews.push_str(&format!("# {}: no preview: {why}\n", file.path));
        }
    };
    if !settings.workspace_checks {
        no_preview("the workspace checks are off");
        return Vec::new();
    }
    cache.token_tolerance = settings.token_tolerance;
    // The root first: a report whose project is not here asks nothing of
    // its paths (at 50 000 entries, a fifth of the check's time).
    let named = (file.analysis.root())
        .and_then(report_core::project_checks::project_root_of)
        .and_then(|node| node.as_str());
    let resolution = crate::project::root::resolve(named, report, options.root.as_deref(), &[]);
    let root = match &resolution {
        Resolution::Found(root) => Some(root.as_path()),
        // The checks say once that no root holds the report.
        Resolution::NotFound => None,
        Resolution::Away => {
            no_preview("its project is not here (scan.project_root does not exist; see --root)");
            return Vec::new();
        }
    };
    let facts = match root {
        Some(root) => {
            let request = report_core::project_checks::request(&file.analysis);
            crate::project::gather(&request, Some(root), cache)
        }
        None => report_core::project_checks::WorkspaceFacts::default(),
    };
    match root {
        Some(root) if options.preview => {
            previews.push_str(&super::preview::previews(
                &file.analysis,
                root,
                &facts,
                &file.path,
            ));
        }
        None => no_preview("no project root holds it (see --root)"),
        _ => {}
    }
    report_core::project_checks::check(&file.analysis, &facts)
}

/// "PATH: MESSAGE", or the message alone when no path is concerned.
pub(crate) fn failure_text(failure: &Failure) -> String {
    match &failure.path {
        Some(path) => format!("{path}: {}", failure.message),
        None => failure.message.clone(),
    }
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
fn check_file(
    path: &Path,
    only_if_report: bool,
    keep: Keep,
    threads: Threads<'_>,
) -> Result<Option<Checked>, Failure> {
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
    let started = std::time::Instant::now();
    let analysis = report_core::analyze_with(
        bytes,
        report_core::AnalysisOptions {
            keep,
            threads,
            wanted: None,
        },
    );
    tracing::debug!(
        path = %path.display(),
        bytes = analysis.text.len(),
        ms = crate::log::millis(started.elapsed()),
        problems = analysis.problems(),
        "analysed"
    );
    if only_if_report && !analysis.root().is_some_and(looks_like_report) {
        return Ok(None);
    }
    Ok(Some(Checked {
        path: display_path(path),
        file: Some(read),
        analysis,
    }))
}
