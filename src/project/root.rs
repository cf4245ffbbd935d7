//! Where the project a report describes is: `scan.project_root` (absolute,
//! or relative to the report's folder) when it names one, else the
//! workspace folder that holds the report. An explicit root (`check
//! --root`) wins over both.

use std::path::{Path, PathBuf};

/// Where a report's root was looked for, and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    Found(PathBuf),
    /// A root was asked for (`--root`, or workspace folders were given) and
    /// none holds the report: the checks say so once.
    NotFound,
    /// Nothing was asked and `scan.project_root` names no folder here: the
    /// report is checked away from its project, and these checks stay silent.
    Away,
}

/// Resolves the root for the report at `report` (None for standard input)
/// whose `scan.project_root` is `named` ([`report_core::project_checks::ProjectRequest::named_root`]).
pub fn resolve(
    named: Option<&str>,
    report: Option<&Path>,
    explicit: Option<&Path>,
    workspace_folders: &[PathBuf],
) -> Resolution {
    match find(named, report, explicit, workspace_folders) {
        Some(root) => Resolution::Found(root),
        None if explicit.is_some() || !workspace_folders.is_empty() => Resolution::NotFound,
        None => Resolution::Away,
    }
}

fn find(
    named: Option<&str>,
    report: Option<&Path>,
    explicit: Option<&Path>,
    workspace_folders: &[PathBuf],
) -> Option<PathBuf> {
    if let Some(explicit) = explicit {
        return explicit.is_dir().then(|| explicit.to_path_buf());
    }
    of_named(named, report, workspace_folders)
}

/// The root of a report at `report` whose `scan.project_root` is `named`:
/// that folder, else (naming none) the workspace folder that holds it.
pub fn of_named(
    named: Option<&str>,
    report: Option<&Path>,
    workspace_folders: &[PathBuf],
) -> Option<PathBuf> {
    let folder = report_folder(report);
    let named = named.filter(|s| !s.is_empty()).map(PathBuf::from);
    // A root the report names is taken as given: when it is not here, the
    // report was made elsewhere, and guessing another folder would flag
    // every path. Only a report that names none falls back to its workspace.
    if let Some(named) = named {
        let candidate = match (named.is_absolute(), &folder) {
            (true, _) => Some(named),
            (false, Some(folder)) => Some(folder.join(named)),
            (false, None) => None,
        };
        return candidate.filter(|c| c.is_dir());
    }
    workspace_folder_of(&folder?, workspace_folders)
}

/// The folder the report lies in, made absolute.
fn report_folder(report: Option<&Path>) -> Option<PathBuf> {
    report
        .and_then(|r| std::path::absolute(r).ok())
        .and_then(|r| r.parent().map(Path::to_path_buf))
}

/// The innermost workspace folder that holds `folder`.
fn workspace_folder_of(folder: &Path, workspace_folders: &[PathBuf]) -> Option<PathBuf> {
    workspace_folders
        .iter()
        .filter(|w| folder.starts_with(w))
        .max_by_key(|w| w.components().count())
        .cloned()
}

/// Whether the report lies in one of the workspace folders: the root a
/// report that names none falls back to.
pub fn in_a_workspace_folder(report: Option<&Path>, workspace_folders: &[PathBuf]) -> bool {
    report_folder(report).is_some_and(|f| workspace_folder_of(&f, workspace_folders).is_some())
}

/// Whether the server may read `root`: it lies inside one of the workspace
/// folders, symlinks resolved (with none, inside the report's own folder).
/// A report without a path (an unsaved buffer) and no folder has none.
pub fn inside_a_workspace_folder(
    root: &Path,
    report: Option<&Path>,
    workspace_folders: &[PathBuf],
) -> bool {
    let Ok(root) = root.canonicalize() else {
        return false;
    };
    let own;
    let folders = match workspace_folders {
        [] => {
            own = report_folder(report).into_iter().collect::<Vec<_>>();
            own.as_slice()
        }
        folders => folders,
    };
    folders
        .iter()
        .filter_map(|f| f.canonicalize().ok())
        .any(|f| root.starts_with(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_is_inside_a_folder_only_after_symlinks_and_the_reports_folder_stands_in_for_none() {
        let base = tempfile::tempdir().unwrap();
        let folder = base.path().join("w");
        let away = base.path().join("away");
        std::fs::create_dir_all(folder.join("sub")).unwrap();
        std::fs::create_dir_all(&away).unwrap();
        std::os::unix::fs::symlink(&away, folder.join("link")).unwrap();
        let report = folder.join("r.report.json");
        let folders = [folder.clone()];
        assert!(inside_a_workspace_folder(
            &folder.join("sub/.."),
            Some(&report),
            &folders
        ));
        assert!(inside_a_workspace_folder(
            &folder.join("sub"),
            None,
            &folders
        ));
        // A link in the folder leading out, `..`, a folder elsewhere: outside.
        assert!(!inside_a_workspace_folder(
            &folder.join("link"),
            Some(&report),
            &folders
        ));
        assert!(!inside_a_workspace_folder(
            &folder.join(".."),
            Some(&report),
            &folders
        ));
        assert!(!inside_a_workspace_folder(&away, Some(&report), &folders));
        // No folder: the report's own folder is the folder; no report, none.
        assert!(inside_a_workspace_folder(
            &folder.join("."),
            Some(&report),
            &[]
        ));
        assert!(!inside_a_workspace_folder(&away, Some(&report), &[]));
        assert!(!inside_a_workspace_folder(&folder, None, &[]));
        // A root that is not there is not inside anything.
        assert!(!inside_a_workspace_folder(
            &folder.join("gone"),
            Some(&report),
            &folders
        ));
    }
}
