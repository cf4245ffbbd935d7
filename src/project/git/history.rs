//! The last commit touching each asked path, for the `delete` preview: one
//! walk of HEAD's history, newest first by committer date, decoding commits
//! and trees only (signatures are data here, never verified: no
//! `gpg.program` can run). A commit touches a path when the path's entry
//! differs from its entry in every parent (a root commit: when it has one),
//! which is what `git log -1 -- PATH` finds in all but unusual merges.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use gix_hash::ObjectId;
use gix_object::FindExt;

use super::repo::{Repo, Trees};

/// Last commits by (HEAD's commit, path): a pass while HEAD stays walks nothing.
pub type HistoryCache = HashMap<(String, String), Option<String>>;

/// Commits one walk visits at most; a path not touched by then has None.
pub(super) const MAX_COMMITS: usize = 20_000;

pub fn last_commits(
    repo: &Repo,
    paths: &[&str],
    cache: &mut HistoryCache,
) -> HashMap<String, Option<String>> {
    let mut found = HashMap::new();
    let Some(head) = repo.head else {
        for path in paths {
            found.insert(path.to_string(), None);
        }
        return found;
    };
    let head_hex = head.to_string();
    let mut pending = Vec::new();
    for path in paths {
        match cache.get(&(head_hex.clone(), path.to_string())) {
            Some(line) => {
                found.insert(path.to_string(), line.clone());
            }
            None => pending.push(*path),
        }
    }
    if pending.is_empty() {
        return found;
    }
    let mut walk = Walk::new(repo);
    let lines = walk.run(head, &pending);
    for (path, line) in pending.iter().zip(lines) {
        cache.insert((head_hex.clone(), path.to_string()), line.clone());
        found.insert(path.to_string(), line);
    }
    found
}

/// A commit decoded once: what the walk needs of it.
struct Commit {
    tree: ObjectId,
    parents: Vec<ObjectId>,
    time: i64,
    line: String,
}

struct Walk<'r> {
    repo: &'r Repo,
    commits: HashMap<ObjectId, Option<Commit>>,
    /// Unchanged subtrees are shared between commits: each is decoded once.
    trees: Trees,
    buf: Vec<u8>,
}

impl<'r> Walk<'r> {
    fn new(repo: &'r Repo) -> Walk<'r> {
        Walk {
            repo,
            commits: HashMap::new(),
            trees: Trees::default(),
            buf: Vec::new(),
        }
    }

    fn run(&mut self, head: ObjectId, paths: &[&str]) -> Vec<Option<String>> {
        let repo_paths: Vec<String> = paths
            .iter()
            .map(|p| format!("{}{}", self.repo.prefix, p.trim_end_matches('/')))
            .collect();
        let mut lines: Vec<Option<String>> = vec![None; paths.len()];
        let mut open: Vec<usize> = (0..paths.len()).collect();
        // Newest first; among equal dates the first queued, as git's walk does.
        let mut queue = BinaryHeap::new();
        let mut queued: usize = 0;
        let mut seen = HashSet::new();
        if let Some(commit) = self.commit(head) {
            queue.push((commit.time, Reverse(queued), head));
            seen.insert(head);
        }
        let mut visited = 0;
        while let Some((_, _, id)) = queue.pop() {
            visited += 1;
            if open.is_empty() || visited > MAX_COMMITS {
                break;
            }
            let Some((tree, parents, line)) = self
                .commit(id)
                .map(|c| (c.tree, c.parents.clone(), c.line.clone()))
            else {
                continue;
            };
            let parent_trees: Vec<ObjectId> = parents
                .iter()
                .filter_map(|p| self.commit(*p).map(|c| c.tree))
                .collect();
            open.retain(|&i| {
                let here = self.entry(tree, &repo_paths[i]);
                let touched = if parent_trees.is_empty() {
                    here.is_some()
                } else {
                    parent_trees
                        .iter()
                        .all(|&parent| self.entry(parent, &repo_paths[i]) != here)
                };
                if touched {
                    lines[i] = Some(line.clone());
                }
                !touched
            });
            for parent in parents {
                if seen.insert(parent)
                    && let Some(commit) = self.commit(parent)
                {
                    queued += 1;
                    queue.push((commit.time, Reverse(queued), parent));
                }
            }
        }
        lines
    }

    fn commit(&mut self, id: ObjectId) -> Option<&Commit> {
        if !self.commits.contains_key(&id) {
            let decoded = self.repo.odb.find_commit(&id, &mut self.buf).ok().map(|c| {
                let author = c.author().ok();
                let date = author
                    .and_then(|a| a.time().ok())
                    .map(|t| t.format_or_unix(gix_date::time::format::SHORT))
                    .unwrap_or_default();
                Commit {
                    tree: c.tree(),
                    parents: c.parents().collect(),
                    time: c.time().map(|t| t.seconds).unwrap_or(0),
                    line: format!(
                        "{} {} ({date})",
                        id.to_hex_with_len(7),
                        c.message().summary()
                    ),
                }
            });
            self.commits.insert(id, decoded);
        }
        self.commits.get(&id)?.as_ref()
    }

    /// The id of the entry at `repo_path` in `tree` (a blob or a subtree).
    fn entry(&mut self, tree: ObjectId, repo_path: &str) -> Option<ObjectId> {
        Some(self.trees.entry(&self.repo.odb, tree, repo_path)?.0)
    }
}
