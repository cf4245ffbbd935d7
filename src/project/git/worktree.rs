//! Whether each asked path is tracked and clean: the worktree's bytes
//! hashed raw (as a blob) against the index's entry, with git's stat data
//! as the fast path, and the index's entry against HEAD's tree. A path
//! whose attributes could transform its content, a submodule, a sparse or
//! skip-worktree entry, or an index being rewritten is undecided, never
//! clean.

use report_core::tier::Fact;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gix_hash::ObjectId;
use gix_index::entry::{Flags, Mode, Stage};
use gix_object::FindExt;
use report_core::project_checks::Worktree;

use super::attributes::{Attributes, Transform};
use super::blobs::{BlobCache, blob_id};
use super::repo::{Repo, Trees};
use crate::project::files::{MAX_HASH_BYTES, refusal};

/// Files and folders listed under one asked folder, at most (HEAD's and the
/// worktree's); past it the folder is undecided.
pub(super) const MAX_UNDER_FOLDER: usize = 200_000;

fn too_many() -> String {
    format!("more than {MAX_UNDER_FOLDER} files under it: not compared")
}

pub struct Examiner<'r> {
    repo: &'r Repo,
    attributes: Attributes,
    head_tree: Option<ObjectId>,
    trees: Trees,
    blobs: &'r mut BlobCache,
    /// Folders on the way to a path that are symlinks (git treats what lies
    /// beyond one as deleted), by repository-relative folder.
    symlinked: HashMap<String, bool>,
}

impl<'r> Examiner<'r> {
    pub fn new(repo: &'r Repo, blobs: &'r mut BlobCache) -> Examiner<'r> {
        let mut buf = Vec::new();
        let head_tree = repo
            .head
            .and_then(|head| repo.odb.find_commit(&head, &mut buf).ok().map(|c| c.tree()));
        Examiner {
            repo,
            attributes: Attributes::new(&repo.work_dir, &repo.info_attributes),
            head_tree,
            trees: Trees::default(),
            blobs,
            symlinked: HashMap::new(),
        }
    }

    /// `path` as the report writes it (root-relative, `dir/` for a folder):
    /// whether it is tracked (unknown when undecided too) and its worktree state.
    pub fn examine(&mut self, path: &str) -> (Fact, Worktree) {
        if let Some(why) = refusal(path) {
            return (
                Fact::Unknown,
                Worktree::Undecided(format!("not read: {why}")),
            );
        }
        let inside = path.trim_end_matches('/');
        let repo_path = format!("{}{inside}", self.repo.prefix);
        if let Some(why) = self.enclosing(&repo_path) {
            return (Fact::Unknown, Worktree::Undecided(why));
        }
        let (tracked, state) = if path.ends_with('/') {
            self.folder(&repo_path)
        } else {
            self.file(&repo_path)
        };
        match (&self.repo.undecided, state) {
            (Some(why), Worktree::Clean) => (tracked, Worktree::Undecided(why.clone())),
            (_, state) => (tracked, state),
        }
    }

    /// Why a folder above `repo_path` keeps it out of reach: a submodule, or
    /// a folder a sparse index holds as one entry.
    fn enclosing(&self, repo_path: &str) -> Option<String> {
        let index = &self.repo.index;
        for (end, _) in repo_path.match_indices('/') {
            let folder = &repo_path[..end];
            if index
                .entry_by_path(folder.into())
                .is_some_and(|e| e.mode == Mode::COMMIT)
            {
                return Some(format!(
                    "inside the submodule `{}`, a repository of its own",
                    self.shown(folder)
                ));
            }
            if index
                .entry_by_path(format!("{folder}/").as_str().into())
                .is_some_and(|e| e.mode == Mode::DIR)
            {
                return Some("outside the sparse checkout (a sparse index folder)".into());
            }
        }
        None
    }

    fn file(&mut self, repo_path: &str) -> (Fact, Worktree) {
        let index = &self.repo.index;
        let entries: Vec<&gix_index::Entry> = index
            .prefixed_entries(repo_path.into())
            .unwrap_or_default()
            .iter()
            .filter(|e| e.path(index) == repo_path)
            .collect();
        let Some(entry) = entries.first() else {
            let there = std::fs::symlink_metadata(self.on_disk(repo_path)).is_ok();
            let what = if there {
                "untracked"
            } else {
                "not in the git index"
            };
            return (Fact::No, Worktree::Changed(what.into()));
        };
        if entries.len() > 1 || entry.stage() != Stage::Unconflicted {
            return (
                Fact::Yes,
                Worktree::Changed("unmerged: a conflict is not resolved".into()),
            );
        }
        (Fact::Yes, self.entry(repo_path, entry))
    }

    /// One index entry against the worktree, then against HEAD.
    fn entry(&mut self, repo_path: &str, entry: &gix_index::Entry) -> Worktree {
        if entry.mode == Mode::COMMIT {
            return Worktree::Undecided("a submodule, a repository of its own".into());
        }
        if entry.mode == Mode::DIR {
            return Worktree::Undecided(
                "outside the sparse checkout (a sparse index folder)".into(),
            );
        }
        if entry.flags.contains(Flags::SKIP_WORKTREE) {
            return Worktree::Undecided("outside the sparse checkout (skip-worktree)".into());
        }
        if entry.flags.contains(Flags::INTENT_TO_ADD) {
            return Worktree::Changed("added with --intent-to-add, not committed".into());
        }
        let worktree = self.against_worktree(repo_path, entry);
        if worktree != Worktree::Clean {
            return worktree;
        }
        match self.in_head(repo_path) {
            None => Worktree::Changed("added to the index, not committed".into()),
            Some((id, mode)) if id != entry.id || mode != entry.mode => {
                Worktree::Changed("modified in the index, not committed".into())
            }
            Some(_) => Worktree::Clean,
        }
    }

    fn against_worktree(&mut self, repo_path: &str, entry: &gix_index::Entry) -> Worktree {
        if let Some(folder) = self.leading_symlink(repo_path) {
            return Worktree::Changed(format!(
                "deleted in the worktree: `{}` on its way is a symlink",
                self.shown(&folder)
            ));
        }
        let on_disk = self.on_disk(repo_path);
        let metadata = match std::fs::symlink_metadata(&on_disk) {
            Ok(m) => m,
            // A file where a folder on its way was is a deletion too, as git says.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return Worktree::Changed("deleted in the worktree".into());
            }
            Err(e) => return Worktree::Undecided(format!("cannot be read: {e}")),
        };
        let modified = || Worktree::Changed("modified in the worktree".into());
        if entry.mode == Mode::SYMLINK {
            if !metadata.file_type().is_symlink() {
                return Worktree::Changed("its type changed in the worktree".into());
            }
            return match std::fs::read_link(&on_disk) {
                Ok(target) if blob_id(target.as_os_str().as_encoded_bytes()) == entry.id => {
                    Worktree::Clean
                }
                Ok(_) => modified(),
                Err(e) => Worktree::Undecided(format!("cannot be read: {e}")),
            };
        }
        if !metadata.is_file() {
            return Worktree::Changed("its type changed in the worktree".into());
        }
        if is_executable(&metadata) != (entry.mode == Mode::FILE_EXECUTABLE) {
            return Worktree::Changed("its executable bit changed in the worktree".into());
        }
        let transform = self.attributes.transform(repo_path);
        if let Transform::Always(why) = transform {
            return Worktree::Undecided(why);
        }
        if metadata.len() > MAX_HASH_BYTES {
            return Worktree::Undecided(format!(
                "larger than {} MiB: not compared",
                MAX_HASH_BYTES >> 20
            ));
        }
        let blob = match self.blobs.blob(&on_disk, &metadata) {
            Ok(blob) => blob,
            Err(why) => return Worktree::Undecided(why),
        };
        match transform {
            Transform::LineEndings(attribute) if blob.has_cr => Worktree::Undecided(format!(
                "the `{attribute}` attribute applies and the file holds CR bytes: git may convert its line endings, so a raw comparison cannot decide"
            )),
            _ if blob.raw == entry.id => Worktree::Clean,
            Transform::None if blob.lf == Some(entry.id) => Worktree::Undecided(
                "differs from the index only in its line endings, which git may convert (core.autocrlf): a raw comparison cannot decide"
                    .into(),
            ),
            _ => modified(),
        }
    }

    /// A folder: every entry under it, HEAD's files the index lost, and the
    /// worktree's untracked files (ignored ones left out, as `git status`
    /// does). The first change by path decides; else the first undecided.
    fn folder(&mut self, repo_path: &str) -> (Fact, Worktree) {
        let prefix = if repo_path.is_empty() {
            String::new()
        } else {
            format!("{repo_path}/")
        };
        let index = &self.repo.index;
        let under: Vec<&gix_index::Entry> = index
            .prefixed_entries(prefix.as_str().into())
            .unwrap_or_default()
            .iter()
            .collect();
        let mut found: Vec<(String, Worktree)> = Vec::new();
        let mut i = 0;
        while i < under.len() {
            let path = under[i].path(index).to_string();
            let mut j = i + 1;
            while j < under.len() && under[j].path(index) == path.as_str() {
                j += 1;
            }
            let state = if j - i > 1 || under[i].stage() != Stage::Unconflicted {
                Worktree::Changed("unmerged: a conflict is not resolved".into())
            } else {
                self.entry(&path, under[i])
            };
            if state != Worktree::Clean {
                found.push((path, state));
            }
            i = j;
        }
        // A sparse index holds a folder outside the cone as one entry: HEAD's
        // files under it are in the index, as that entry.
        let sparse: Vec<String> = under
            .iter()
            .filter(|e| e.mode == Mode::DIR)
            .map(|e| e.path(index).to_string())
            .collect();
        let listed = self
            .head_files_under(repo_path)
            .and_then(|head| Ok((head, self.untracked_under(repo_path)?)));
        let (head, untracked) = match listed {
            Ok(lists) => lists,
            Err(why) => return (Fact::from(!under.is_empty()), Worktree::Undecided(why)),
        };
        for path in head {
            if !sparse
                .iter()
                .any(|folder| path.starts_with(folder.as_str()))
                && index.entry_by_path(path.as_str().into()).is_none()
            {
                found.push((path, Worktree::Changed("deleted in the index".into())));
            }
        }
        for path in untracked {
            found.push((path, Worktree::Changed("untracked".into())));
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let first = |changed: bool| {
            found
                .iter()
                .find(|(_, s)| matches!(s, Worktree::Changed(_)) == changed)
        };
        let tracked = !under.is_empty();
        let state = match first(true).or_else(|| first(false)) {
            Some((path, Worktree::Changed(what))) => {
                Worktree::Changed(format!("{}: {what}", self.shown(path)))
            }
            Some((path, Worktree::Undecided(why))) => {
                Worktree::Undecided(format!("{}: {why}", self.shown(path)))
            }
            _ if !tracked && found.is_empty() => {
                Worktree::Changed("nothing under it is in the git index".into())
            }
            _ => Worktree::Clean,
        };
        (tracked.into(), state)
    }

    /// The id and mode HEAD's tree records for `repo_path`.
    fn in_head(&mut self, repo_path: &str) -> Option<(ObjectId, Mode)> {
        let (id, mode) = self
            .trees
            .entry(&self.repo.odb, self.head_tree?, repo_path)?;
        Some((id, Mode::from(mode)))
    }

    /// The files HEAD's tree holds under the folder `repo_path`. Each tree
    /// is listed once (a crafted tree naming itself is no loop), and past
    /// [`MAX_UNDER_FOLDER`] files the folder is undecided, never clean.
    fn head_files_under(&mut self, repo_path: &str) -> Result<Vec<String>, String> {
        let Some(tree) = self.head_tree else {
            return Ok(Vec::new());
        };
        let start = if repo_path.is_empty() {
            Some(tree)
        } else {
            self.trees
                .entry(&self.repo.odb, tree, repo_path)
                .filter(|(_, mode)| mode.is_tree())
                .map(|(id, _)| id)
        };
        let mut files = Vec::new();
        let mut listed = std::collections::HashSet::new();
        let mut stack: Vec<(ObjectId, String)> = start
            .map(|id| (id, repo_path.to_string()))
            .into_iter()
            .collect();
        while let Some((id, folder)) = stack.pop() {
            if !listed.insert(id) {
                continue;
            }
            let Some(entries) = self.trees.entries(&self.repo.odb, id) else {
                return Err(format!(
                    "HEAD's tree at `{}` cannot be read",
                    self.shown(&folder)
                ));
            };
            for (name, (oid, mode)) in entries {
                let path = if folder.is_empty() {
                    name.clone()
                } else {
                    format!("{folder}/{name}")
                };
                if mode.is_tree() {
                    stack.push((*oid, path));
                } else {
                    files.push(path);
                }
                if files.len() + stack.len() > MAX_UNDER_FOLDER {
                    return Err(too_many());
                }
            }
        }
        Ok(files)
    }

    /// Files under the folder `repo_path` on disk that the index lacks, as
    /// `git status` lists them: its ignore rules (each `.gitignore` from the
    /// top of the work tree down, `info/exclude`, the user's excludes; no
    /// `.ignore` file, nothing above the work tree), and a nested repository
    /// as one untracked folder, never entered.
    fn untracked_under(&mut self, repo_path: &str) -> Result<Vec<String>, String> {
        if self.leading_symlink(&format!("{repo_path}/")).is_some()
            || !self.on_disk(repo_path).is_dir()
        {
            // Beyond a symlink every entry is already a deletion.
            return Ok(Vec::new());
        }
        let work_dir = self.repo.work_dir.clone();
        let target = work_dir.join(repo_path);
        let nested: Arc<Mutex<Vec<std::path::PathBuf>>> = Arc::default();
        let found_nested = Arc::clone(&nested);
        let walk = ignore::WalkBuilder::new(&work_dir)
            .standard_filters(false)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(true)
            .require_git(false)
            .follow_links(false)
            .filter_entry(move |entry| {
                let path = entry.path();
                // Only the way down to the folder, and what is under it.
                if !(target.starts_with(path) || path.starts_with(&target)) {
                    return false;
                }
                if entry.file_name() == ".git" {
                    return false;
                }
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if is_dir && path != work_dir && path.join(".git").exists() {
                    if path.starts_with(&target) {
                        found_nested.lock().unwrap().push(path.to_path_buf());
                    }
                    return false;
                }
                true
            })
            .build();
        let mut untracked = Vec::new();
        let mut seen = 0;
        for entry in walk.flatten() {
            seen += 1;
            if seen > MAX_UNDER_FOLDER {
                return Err(too_many());
            }
            if entry.file_type().is_none_or(|t| t.is_dir())
                || !entry.path().starts_with(self.on_disk(repo_path))
            {
                continue;
            }
            let path = self.relative(entry.path());
            if !self.in_index(&path) {
                untracked.push(path);
            }
        }
        for folder in nested.lock().unwrap().iter() {
            let path = self.relative(folder);
            // A submodule is the index's gitlink entry; any other is untracked.
            if !self.in_index(&path) {
                untracked.push(format!("{path}/"));
            }
        }
        Ok(untracked)
    }

    fn in_index(&self, path: &str) -> bool {
        let index = &self.repo.index;
        index
            .prefixed_entries(path.into())
            .is_some_and(|es| es.iter().any(|e| e.path(index) == path))
    }

    /// A path under the work tree, relative to its top, with `/`.
    fn relative(&self, path: &std::path::Path) -> String {
        path.strip_prefix(&self.repo.work_dir)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// The first folder on the way to `repo_path` (the folder itself
    /// included for a folder's files) that is a symlink.
    fn leading_symlink(&mut self, repo_path: &str) -> Option<String> {
        for (end, _) in repo_path.match_indices('/') {
            let folder = &repo_path[..end];
            let work_dir = &self.repo.work_dir;
            let is_link = *self.symlinked.entry(folder.to_string()).or_insert_with(|| {
                std::fs::symlink_metadata(work_dir.join(folder))
                    .is_ok_and(|m| m.file_type().is_symlink())
            });
            if is_link {
                return Some(folder.to_string());
            }
        }
        None
    }

    fn on_disk(&self, repo_path: &str) -> std::path::PathBuf {
        self.repo.work_dir.join(repo_path)
    }

    /// A repository path as the report writes it (root-relative).
    fn shown<'p>(&self, repo_path: &'p str) -> &'p str {
        repo_path
            .strip_prefix(self.repo.prefix.as_str())
            .unwrap_or(repo_path)
    }
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o100 != 0
}

#[cfg(not(unix))]
// Never compiled on Unix, where the tests run: cargo-mutants is told to skip
// it by an attribute that never applies (its mutant's name differs from the
// Unix one's only by line, so `exclude_re` could not name it for good).
#[cfg_attr(unix, mutants::skip)]
fn is_executable(_: &std::fs::Metadata) -> bool {
    false
}
