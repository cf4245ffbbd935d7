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
/// Links skipped in folders go to `notes`, with the reason.
pub(super) fn find_targets(
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
                    if let Some(source) = candidate(item.path(), &globs) {
                        found.push(Target {
                            path: item.into_path(),
                            source,
                        });
                    }
                }
                Ok(item) if item.path_is_symlink() => {
                    // A link to a folder is said whatever its name: reports may be in it.
                    match (
                        link_inside(item.path(), &root),
                        candidate(item.path(), &globs),
                    ) {
                        (Ok(()), Some(source)) => found.push(Target {
                            path: item.into_path(),
                            source,
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

/// A found file as a target: a report by name, or one only if its content
/// says so (other JSON); None for another file.
fn candidate(path: &Path, globs: &ReportGlobs) -> Option<Source> {
    let slashed = path.to_string_lossy().replace('\\', "/");
    if globs.matches(&slashed) {
        return Some(Source::File {
            only_if_report: false,
        });
    }
    path.extension()
        .is_some_and(|e| e == "json")
        .then_some(Source::File {
            only_if_report: true,
        })
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
