//! Which files `check` reads: paths named, folders searched (honouring
//! `.gitignore`) for reports, links kept inside, names shown exactly.

use std::path::{Path, PathBuf};

use report_core::selection::ReportGlobs;

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// Where a target's text comes from.
pub(super) enum Source {
    Stdin,
    /// `only_if_report`: a JSON file found in a folder, checked only if its
    /// content is a report's.
    File {
        only_if_report: bool,
    },
}

/// One file to check.
pub(super) struct Target {
    pub path: PathBuf,
    pub source: Source,
}

/// Paths named explicitly are always checked (`-` is standard input, read
/// once); folders are searched recursively (respecting ignore files) for
/// report names or report-like JSON, each folder's finds in path order.
/// Returns the targets and how many folders were searched.
/// Links skipped in folders go to `notes`, with the reason. A folder is
/// searched with the globs `globs_for` gives it (its project file's).
pub(super) fn find_targets(
    paths: &[PathBuf],
    globs_for: &dyn Fn(&Path) -> ReportGlobs,
    failures: &mut Vec<Failure>,
    notes: &mut Vec<String>,
) -> (Vec<Target>, usize) {
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
        let search = crate::project::discover::search(path, &globs_for(path), usize::MAX);
        for (link, why) in &search.skipped {
            notes.push(format!("{}: skipped: {why}", display_path(link)));
        }
        for error in search.errors {
            failures.push(Failure {
                path: Some(display_path(path)),
                message: format!("cannot search: {error}"),
            });
        }
        targets.extend(search.found.into_iter().map(|c| Target {
            path: c.path,
            source: Source::File {
                only_if_report: c.only_if_report,
            },
        }));
    }
    (targets, folders)
}

/// The path as shown in every format: a name that is not UTF-8 keeps its
/// bytes, each byte that is no UTF-8 character written `\xNN`, so that two
/// such names never look the same (a lossy replacement character would
/// merge them).
pub(super) fn display_path(path: &Path) -> String {
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
