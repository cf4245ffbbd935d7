//! Which files of a folder may be reports: the walk `check DIR` makes and
//! the server's search of its workspace folders share it. Ignore files
//! (`.gitignore`, `.ignore`) and hidden files are honoured; links are
//! followed to files inside the folder only, never to folders, so no loop
//! is walked; each link skipped is said, with the reason.
//!
//! Nothing here runs a program. The walk (the `ignore` crate) reads ignore
//! files as text: `.gitignore`, `.ignore`, `.git/info/exclude`, and the
//! user's global excludes file, whose path it parses out of the user's git
//! configuration itself; it never calls `git`, and nothing a repository's
//! configuration, its attributes or a report names is started. Found files
//! are only read (`found_reports`) and analysed by the core.

use std::path::{Path, PathBuf};

use report_core::selection::ReportGlobs;

/// A file found in a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    /// A JSON file whose name is no report's: it is one only if its content says so.
    pub only_if_report: bool,
}

/// What a search found, in path order, and what it passed by.
#[derive(Debug, Default)]
pub struct Search {
    pub found: Vec<Candidate>,
    /// Links not followed, and why.
    pub skipped: Vec<(PathBuf, &'static str)>,
    /// What could not be searched.
    pub errors: Vec<String>,
    /// Whether the search stopped at its limit of candidates.
    pub truncated: bool,
}

pub const FOLDER_LINK: &str =
    "a link to a folder (links to folders are not followed, so no loop is walked)";

/// Searches `folder` for files named as reports (`globs`) and other JSON,
/// stopping at `limit` candidates.
pub fn search(folder: &Path, globs: &ReportGlobs, limit: usize) -> Search {
    let root = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let mut search = Search::default();
    for item in ignore::WalkBuilder::new(folder)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build()
    {
        if search.found.len() >= limit {
            search.truncated = true;
            break;
        }
        match item {
            Ok(item) if item.file_type().is_some_and(|t| t.is_file()) => {
                if let Some(only_if_report) = candidate(item.path(), globs) {
                    search.found.push(Candidate {
                        path: item.into_path(),
                        only_if_report,
                    });
                }
            }
            Ok(item) if item.path_is_symlink() => {
                // A link to a folder is said whatever its name: reports may be in it.
                match (
                    link_inside(item.path(), &root),
                    candidate(item.path(), globs),
                ) {
                    (Ok(()), Some(only_if_report)) => search.found.push(Candidate {
                        path: item.into_path(),
                        only_if_report,
                    }),
                    (Err(why), Some(_)) => search.skipped.push((item.into_path(), why)),
                    (Err(why), None) if why == FOLDER_LINK => {
                        search.skipped.push((item.into_path(), why))
                    }
                    _ => {}
                }
            }
            Ok(_) => {}
            Err(error) => search.errors.push(error.to_string()),
        }
    }
    search.found.sort_by(|a, b| a.path.cmp(&b.path));
    search
}

/// Whether the file at `path`, which changed, is one a search of its
/// folder would find (its name or extension, and no ignore file or hidden
/// folder between `folder` and it); None when it is not a candidate.
pub fn would_find(folder: &Path, path: &Path, globs: &ReportGlobs) -> Option<Candidate> {
    let only_if_report = candidate(path, globs)?;
    let relative = path.strip_prefix(folder).ok()?;
    let hidden = relative
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
    if hidden {
        return None;
    }
    // A link is followed as the walk follows it: to a file inside the folder only.
    if path.is_symlink() {
        let root = std::fs::canonicalize(folder).ok()?;
        link_inside(path, &root).ok()?;
    }
    // Each ignore file from the folder down to the file's own folder, the
    // deepest one's word last, as the walk applies them.
    let mut ignored = false;
    let mut dir = folder.to_path_buf();
    let mut below = relative.components();
    loop {
        for name in [".gitignore", ".ignore"] {
            let file = dir.join(name);
            if !file.is_file() {
                continue;
            }
            let (matcher, _) = ignore::gitignore::Gitignore::new(&file);
            match matcher.matched_path_or_any_parents(path, false) {
                ignore::Match::Ignore(_) => ignored = true,
                ignore::Match::Whitelist(_) => ignored = false,
                ignore::Match::None => {}
            }
        }
        match below.next() {
            Some(part) if dir.join(part.as_os_str()) != path => dir.push(part),
            _ => break,
        }
    }
    (!ignored).then(|| Candidate {
        path: path.to_path_buf(),
        only_if_report,
    })
}

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

/// Whether a file is a candidate: Some(false) for a report by name,
/// Some(true) for other JSON (a report only if its content says so).
fn candidate(path: &Path, globs: &ReportGlobs) -> Option<bool> {
    // Absolute, as the server matches: a project file's globs are anchored at its folder.
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let slashed = absolute.to_string_lossy().replace('\\', "/");
    if globs.matches(&slashed) {
        return Some(false);
    }
    path.extension()
        .is_some_and(|e| e == "json")
        .then_some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_finds_names_and_json_and_honours_ignore_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("docs/报告 🚀")).unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::create_dir_all(root.join(".hidden")).unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        std::fs::write(root.join("hygiene.report.json"), "{}").unwrap();
        std::fs::write(root.join("docs/报告 🚀/other.json"), "{}").unwrap();
        std::fs::write(root.join("docs/notes.md"), "").unwrap();
        std::fs::write(root.join("build/out.json"), "{}").unwrap();
        std::fs::write(root.join(".hidden/x.json"), "{}").unwrap();
        // `ignore` reads .gitignore only inside a git repository.
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let globs = ReportGlobs::default();
        let search = search(root, &globs, 100);
        let found: Vec<(String, bool)> = search
            .found
            .iter()
            .map(|c| {
                let relative = c.path.strip_prefix(root).unwrap();
                (relative.to_string_lossy().into_owned(), c.only_if_report)
            })
            .collect();
        let expected: Vec<(String, bool)> = vec![
            ("docs/报告 🚀/other.json".into(), true),
            ("hygiene.report.json".into(), false),
        ];
        assert_eq!(found, expected);
        assert!(!search.truncated);
        let limited = super::search(root, &globs, 1);
        assert_eq!(limited.found.len(), 1);
        assert!(limited.truncated);

        assert!(would_find(root, &root.join("docs/报告 🚀/other.json"), &globs).is_some());
        assert_eq!(would_find(root, &root.join("build/out.json"), &globs), None);
        assert_eq!(would_find(root, &root.join(".hidden/x.json"), &globs), None);
        assert_eq!(would_find(root, &root.join("docs/notes.md"), &globs), None);
        assert_eq!(
            would_find(root, Path::new("/elsewhere/a.json"), &globs),
            None
        );
    }
}
