//! Finding and opening the repository around a root: its work tree, git
//! directories, index, objects and HEAD, each read as a file, never run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gix_hash::ObjectId;
use gix_object::FindExt;
use gix_object::tree::EntryMode;

/// Files of `.git` read whole (the config, `commondir`) larger than this are not read.
pub(super) const MAX_SMALL_FILE: u64 = 1 << 20;
/// The most one index or pack may make us allocate at once (untrusted sizes).
const ALLOC_LIMIT: usize = 1 << 30;

/// An opened repository: what the checks read of it.
pub struct Repo {
    /// The work tree's top folder, canonical.
    pub work_dir: PathBuf,
    /// The root relative to the work tree, with a `/` after it ("" at the top).
    pub prefix: String,
    pub index: gix_index::File,
    pub odb: gix_odb::Handle,
    /// The commit HEAD names; None on an unborn branch.
    pub head: Option<ObjectId>,
    /// Why no path's cleanliness can be decided now (an `index.lock`).
    pub undecided: Option<String>,
    /// Where `$GIT_DIR/info/attributes` is.
    pub info_attributes: PathBuf,
}

impl Repo {
    pub fn open(root: &Path) -> Result<Repo, String> {
        let root = root
            .canonicalize()
            .map_err(|e| format!("the root cannot be read: {e}"))?;
        // Ownership decides what git would *run*; we run nothing, so an
        // unvetted or foreign-owned repository is read like any other.
        let options = gix_discover::upwards::Options {
            trust: gix_discover::upwards::TrustPolicy::Assume(gix_sec::Trust::Full),
            ..Default::default()
        };
        let (found, _) = gix_discover::upwards_opts(&root, options)
            .map_err(|_| "the root is not inside a git work tree".to_string())?;
        let (git_dir, work_dir) = found.into_repository_and_work_tree_directories();
        let Some(work_dir) = work_dir else {
            return Err("the root is inside a bare git repository, which has no work tree".into());
        };
        let work_dir = work_dir.canonicalize().unwrap_or(work_dir);
        let common_dir = match read_small(&git_dir.join("commondir")) {
            Some(text) => git_dir.join(String::from_utf8_lossy(&text).trim()),
            None => git_dir.clone(),
        };
        if read_small(&common_dir.join("config")).is_some_and(|c| is_sha256(&c)) {
            return Err(
                "a SHA-256 repository (extensions.objectFormat): report-lsp reads SHA-1 repositories only"
                    .into(),
            );
        }
        let prefix = match root.strip_prefix(&work_dir) {
            Ok(relative) if relative.as_os_str().is_empty() => String::new(),
            Ok(relative) => format!("{}/", relative.to_string_lossy().replace('\\', "/")),
            Err(_) => return Err("the root is not inside the repository's work tree".into()),
        };
        let index = open_index(&git_dir.join("index"))?;
        let odb = gix_odb::at_opts(
            common_dir.join("objects"),
            gix_hash::Kind::Sha1,
            None,
            gix_odb::store::init::Options {
                alloc_limit_bytes: Some(ALLOC_LIMIT),
                ..Default::default()
            },
        )
        .map_err(|e| format!("git's objects cannot be read: {e}"))?;
        let refs = if common_dir == git_dir {
            gix_ref::file::Store::at(git_dir.clone(), gix_hash::Kind::Sha1)
        } else {
            gix_ref::file::Store::for_linked_worktree(
                git_dir.clone(),
                common_dir.clone(),
                gix_hash::Kind::Sha1,
            )
        };
        let undecided = git_dir
            .join("index.lock")
            .exists()
            .then(|| "an index.lock is present: a git command is changing the index".to_string());
        Ok(Repo {
            work_dir,
            prefix,
            index,
            odb,
            head: head(&refs),
            undecided,
            info_attributes: common_dir.join("info").join("attributes"),
        })
    }
}

/// The index, or an empty one when there is none yet. A corrupt index, a
/// FIFO or a folder in its place is an error, never a guess.
fn open_index(path: &Path) -> Result<gix_index::File, String> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(gix_index::File::from_state(
                gix_index::State::new(gix_hash::Kind::Sha1),
                path.to_path_buf(),
            ));
        }
        Err(e) => return Err(format!("the git index cannot be read: {e}")),
        Ok(m) if !m.is_file() => return Err("the git index is not a regular file".into()),
        Ok(_) => {}
    }
    let options = gix_index::decode::Options {
        thread_limit: Some(1),
        alloc_limit_bytes: Some(ALLOC_LIMIT),
        ..Default::default()
    };
    gix_index::File::at(path, gix_hash::Kind::Sha1, false, options)
        .map_err(|e| format!("the git index cannot be read ({e})"))
}

/// The commit HEAD resolves to, following symbolic references a few steps.
fn head(refs: &gix_ref::file::Store) -> Option<ObjectId> {
    let mut name = "HEAD".to_string();
    for _ in 0..5 {
        let reference = refs.try_find(name.as_str()).ok()??;
        match reference.target {
            gix_ref::Target::Object(id) => return Some(id),
            gix_ref::Target::Symbolic(next) => name = next.as_bstr().to_string(),
        }
    }
    None
}

/// A small regular file's bytes; None when absent, not a file or too large.
pub fn read_small(path: &Path) -> Option<Vec<u8>> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_SMALL_FILE {
        return None;
    }
    std::fs::read(path).ok()
}

/// Whether a config text sets `extensions.objectFormat` to sha256. Read as
/// text on purpose (no include is followed): a false alarm only makes the
/// facts unknown.
fn is_sha256(config: &[u8]) -> bool {
    let text = String::from_utf8_lossy(config).to_ascii_lowercase();
    text.lines().any(|line| {
        let line = line.trim();
        line.starts_with("objectformat") && line.contains("sha256")
    })
}

/// One tree's entries by name: each entry's id and mode.
pub type TreeEntries = HashMap<String, (ObjectId, EntryMode)>;

/// Trees decoded once each (an object is inflated on every find): the
/// index is compared with HEAD, and history walked, path by path.
#[derive(Default)]
pub struct Trees {
    decoded: HashMap<ObjectId, Option<TreeEntries>>,
    buf: Vec<u8>,
}

impl Trees {
    /// The entries of the tree `id`, by name; None when it cannot be read.
    pub fn entries(&mut self, odb: &gix_odb::Handle, id: ObjectId) -> Option<&TreeEntries> {
        if !self.decoded.contains_key(&id) {
            let entries = odb.find_tree(&id, &mut self.buf).ok().map(|tree| {
                tree.entries
                    .iter()
                    .map(|e| (e.filename.to_string(), (e.oid.to_owned(), e.mode)))
                    .collect()
            });
            self.decoded.insert(id, entries);
        }
        self.decoded.get(&id)?.as_ref()
    }

    /// The entry at `path` (`a/b/c`) under the tree `id`.
    pub fn entry(
        &mut self,
        odb: &gix_odb::Handle,
        id: ObjectId,
        path: &str,
    ) -> Option<(ObjectId, EntryMode)> {
        let mut found = (id, EntryMode::from(gix_object::tree::EntryKind::Tree));
        for name in path.split('/') {
            if !found.1.is_tree() {
                return None;
            }
            found = *self.entries(odb, found.0)?.get(name)?;
        }
        Some(found)
    }
}
