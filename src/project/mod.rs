//! The workspace checks' I/O, shared by the CLI and the server: where the
//! project is (`root`), the facts about the files a report names (`files`,
//! bounded, inside the root only, hashes cached) and git's view of the root
//! (`git`, read in-process: no program is ever started, with a timeout).
//! The judgement is the core's (`report_core::project_checks`); nothing here
//! writes anything, and nothing the project or a report names is run.

pub mod discover;
pub mod files;
pub mod git;
pub mod overlay;
pub mod root;
pub mod since_head;
pub mod tokens;

use std::path::Path;

use report_core::project_checks::{ProjectRequest, WorkspaceFacts};

pub use files::HashCache;

/// What one pass of the workspace checks keeps for the next (hashes, texts
/// and token counts, by path, size and mtime or by content) and how it is set.
pub struct Cache {
    pub files: HashCache,
    pub tokens: tokens::TokenCache,
    /// git's last commits by HEAD and path (a pass after the first walks no
    /// history while HEAD stays) and blob ids by stat.
    pub git: git::GitCache,
    /// Check 8's tolerance: a fraction of the recount.
    pub token_tolerance: f64,
}

impl Default for Cache {
    fn default() -> Cache {
        Cache {
            files: HashCache::default(),
            tokens: tokens::TokenCache::default(),
            git: Default::default(),
            token_tolerance: tokens::DEFAULT_TOLERANCE,
        }
    }
}

/// Gathers every fact a report's checks ask of the project at `root`
/// (`request`, [`report_core::project_checks::request`]; None: no root was found,
/// which the checks say once).
pub fn gather(request: &ProjectRequest, root: Option<&Path>, cache: &mut Cache) -> WorkspaceFacts {
    gather_with_progress(request, root, cache, &mut |_, _| {})
}

/// [`gather`], telling `progress(done, total)` how many of the named paths
/// have been read so far.
pub fn gather_with_progress(
    request: &ProjectRequest,
    root: Option<&Path>,
    cache: &mut Cache,
    progress: &mut dyn FnMut(usize, usize),
) -> WorkspaceFacts {
    let Some(root) = root else {
        return WorkspaceFacts::default();
    };
    let lifecycle: Vec<String> = request
        .paths
        .iter()
        .filter(|r| r.lifecycle)
        .map(|r| r.path.clone())
        .collect();
    let (git, git_absent) = match git::read(root, lifecycle, &mut cache.git) {
        Ok(read) => (Some(read), None),
        Err(why) => (None, Some(why)),
    };
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let (git, mut last_commits) = match git {
        Some(read) => (Some(read.facts), read.last_commits),
        None => (None, Default::default()),
    };
    let mut facts = WorkspaceFacts {
        root: Some(root.display().to_string()),
        git,
        git_absent,
        conventions: files::read_conventions(&canonical_root),
        ..Default::default()
    };
    let total = request.paths.len();
    progress(0, total);
    for (done, wanted) in request.paths.iter().enumerate() {
        if done % PROGRESS_EVERY == 0 && done > 0 {
            progress(done, total);
        }
        let mut file = files::facts(&canonical_root, wanted, &mut cache.files);
        file.last_commit = last_commits.remove(&wanted.path).flatten();
        facts.files.insert(wanted.path.clone(), file);
    }
    let spans = request.token_spans.clone();
    tokens::recount(&mut facts, spans, cache.token_tolerance, &mut cache.tokens);
    progress(total, total);
    facts
}

/// Paths read between two progress reports.
const PROGRESS_EVERY: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::git::tests::git;

    #[test]
    fn a_deletes_last_commit_is_cached_until_head_moves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("plan.md"), "# plan\n").unwrap();
        git(root, &["init", "-q", "-b", "main"]);
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "first"]);
        let report = r#"{"entries": [{"path": "plan.md", "token_estimate": {"raw_tokens": 3},
            "exact_edit": {"kind": "delete", "anchor": {"start_line": 1, "end_line": 1}}}]}"#;
        let request = report_core::project_checks::request(&report_core::analyze(report));
        let mut cache = Cache::default();
        let last = |cache: &mut Cache| {
            gather(&request, Some(root), cache).files["plan.md"]
                .last_commit
                .clone()
                .unwrap()
        };
        assert!(
            last(&mut cache).contains(" first ("),
            "{:?}",
            cache.git.history
        );
        assert_eq!(cache.git.history.len(), 1);
        assert!(last(&mut cache).contains(" first ("));
        assert_eq!(cache.git.history.len(), 1);
        // A new commit moves HEAD: asked again.
        std::fs::write(root.join("plan.md"), "# plan, done\n").unwrap();
        git(root, &["commit", "-q", "-am", "second"]);
        assert!(last(&mut cache).contains(" second ("));
        assert_eq!(cache.git.history.len(), 2);
    }
}
