//! The workspace checks' I/O, shared by the CLI and the server: where the
//! project is (`root`), the facts about the files a report names (`files`,
//! bounded, inside the root only, hashes cached) and git's view of the root
//! (`git`, read-only, with a timeout). The judgement is the core's
//! (`report_core::workspace`); nothing here writes anything.

pub mod files;
pub mod git;
pub mod root;

use std::path::Path;

use report_core::Analysis;
use report_core::diagnostic::Diagnostic;
use report_core::workspace::{self, WorkspaceFacts};

pub use files::HashCache;

/// Gathers every fact `analysis`'s report needs from the project at `root`
/// (None: no root was found, which the checks say once).
pub fn gather(analysis: &Analysis, root: Option<&Path>, cache: &mut HashCache) -> WorkspaceFacts {
    let Some(root) = root else {
        return WorkspaceFacts::default();
    };
    let Some(tree) = analysis.root() else {
        return WorkspaceFacts {
            root: Some(root.display().to_string()),
            ..Default::default()
        };
    };
    let requests = workspace::requested_paths(tree);
    let (git, git_absent) = match git::query(root) {
        Ok(git) => (Some(git), None),
        Err(why) => (None, Some(why)),
    };
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut facts = WorkspaceFacts {
        root: Some(root.display().to_string()),
        git,
        git_absent,
        conventions: files::read_conventions(&canonical_root),
        ..Default::default()
    };
    let mut commits_left = git::MAX_LAST_COMMITS;
    for request in requests {
        let mut file = files::facts(&canonical_root, &request, cache);
        if request.last_commit && facts.git.is_some() && commits_left > 0 {
            commits_left -= 1;
            file.last_commit = git::last_commit(root, &request.path);
        }
        facts.files.insert(request.path, file);
    }
    facts
}

/// The workspace diagnostics of one report: gathered and judged.
pub fn check(analysis: &Analysis, root: Option<&Path>, cache: &mut HashCache) -> Vec<Diagnostic> {
    let facts = gather(analysis, root, cache);
    workspace::check(analysis, &facts)
}
