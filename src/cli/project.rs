//! The project files `check` reads: the one `--config` names, none with
//! `--isolated`, else each path's nearest (see [`crate::project_file`]);
//! and what each file is checked with, flags over its project file over
//! the defaults. A value a project file refuses fails the check (exit 2)
//! with its place, rather than being silently replaced by a default.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use report_core::diagnostic::Keep;
use report_core::selection::ReportGlobs;
use report_core::severities::Severities;

use super::targets::display_path;
use super::*;
use crate::project_file::{self, Kind, ProjectFile, ProjectFiles};

/// Which project file `check` reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProjectFileChoice {
    /// Each path's nearest.
    #[default]
    Nearest,
    /// This one for every path (`--config FILE`).
    Given(PathBuf),
    /// None (`--isolated`).
    Isolated,
}

/// What one report is checked with.
pub(super) struct FileSettings {
    /// The most diagnostics shown; the analysis keeps `publication::kept` of them.
    pub max: usize,
    pub keep: Keep,
    /// How the limit is named in the note of what was left out.
    pub limit: String,
    pub token_tolerance: f64,
    pub workspace_checks: bool,
    pub severities: Severities,
}

/// The project files of one run.
pub(super) struct Projects {
    choice: ProjectFileChoice,
    found: ProjectFiles,
    given: Option<Arc<ProjectFile>>,
    /// Every file used, by path, so that each one's problems are told once.
    used: std::sync::Mutex<BTreeMap<PathBuf, Arc<ProjectFile>>>,
}

impl Projects {
    /// Reads `--config`'s file when there is one; a file that cannot be
    /// read is a failure.
    pub fn new(choice: &ProjectFileChoice, failures: &mut Vec<Failure>) -> Projects {
        let given = match choice {
            ProjectFileChoice::Given(path) => {
                let kind = match Kind::of(path) {
                    Some(Kind::Pyproject) => Kind::Pyproject,
                    _ => Kind::ReportLsp,
                };
                if let Err(error) = std::fs::metadata(path) {
                    failures.push(Failure {
                        path: Some(display_path(path)),
                        message: format!("cannot read the project file (--config): {error}"),
                    });
                    None
                } else {
                    let file = project_file::read_as(path, kind).map(Arc::new);
                    if file.is_none() {
                        failures.push(Failure {
                            path: Some(display_path(path)),
                            message: match kind {
                                Kind::Pyproject => "has no [tool.report-lsp] table (--config)",
                                Kind::ReportLsp => "is not a file (--config)",
                            }
                            .into(),
                        });
                    }
                    file
                }
            }
            _ => None,
        };
        Projects {
            choice: choice.clone(),
            found: ProjectFiles::default(),
            given,
            used: Default::default(),
        }
    }

    /// The project file for `path` (a report, or a folder searched).
    pub fn for_path(&self, path: &Path) -> Option<Arc<ProjectFile>> {
        let file = match &self.choice {
            ProjectFileChoice::Isolated => None,
            ProjectFileChoice::Given(_) => self.given.clone(),
            ProjectFileChoice::Nearest => self.found.governing(path),
        }?;
        self.used
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .entry(file.path.clone())
            .or_insert_with(|| file.clone());
        Some(file)
    }

    /// The globs a folder is searched with.
    pub fn globs_for(&self, folder: &Path) -> ReportGlobs {
        self.for_path(folder)
            .and_then(|file| file.values.files.clone())
            .unwrap_or_default()
    }

    /// What the report at `path` (None: standard input, governed from the
    /// current folder) is checked with.
    pub fn settings_for(&self, path: Option<&Path>, options: &CheckOptions) -> FileSettings {
        let file = self.for_path(path.unwrap_or(Path::new(".")));
        let values = file.as_ref().map(|f| &f.values);
        let (max, limit) = match (
            options.max_diagnostics,
            values.and_then(|v| v.max_diagnostics),
        ) {
            (Some(max), _) => (max, format!("--max-diagnostics {max}")),
            (None, Some(max)) => (
                max,
                format!(
                    "max-diagnostics = {max} in {}",
                    shown(&file.as_ref().expect("values come from a file").path)
                ),
            ),
            (None, None) => (
                DEFAULT_MAX_DIAGNOSTICS,
                format!("--max-diagnostics {DEFAULT_MAX_DIAGNOSTICS}"),
            ),
        };
        FileSettings {
            max,
            keep: Keep::at_most(report_core::publication::kept(max)),
            limit,
            token_tolerance: options
                .token_tolerance
                .or(values.and_then(|v| v.token_tolerance))
                .unwrap_or(crate::project::tokens::DEFAULT_TOLERANCE),
            workspace_checks: values.and_then(|v| v.workspace_checks).unwrap_or(true),
            severities: values.map(|v| v.severities.clone()).unwrap_or_default(),
        }
    }

    /// One failure for each problem of each project file used: "PATH:LINE:COLUMN".
    pub fn problems(&self, failures: &mut Vec<Failure>) {
        for file in self
            .used
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .values()
        {
            for problem in &file.problems {
                failures.push(Failure {
                    path: Some(project_file::place(file, problem, &shown(&file.path))),
                    message: problem.message.clone(),
                });
            }
        }
    }
}

/// A project file's path as shown: relative to the current folder when under it.
fn shown(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    display_path(relative.as_deref().unwrap_or(path))
}
