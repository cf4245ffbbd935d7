//! Everything under a folder, `.git` included, as it is on disk: to show
//! that a run of the binary changed nothing there.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What a path holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Kind {
    File(Vec<u8>),
    Folder,
    Symlink(PathBuf),
    /// A FIFO, socket or device: its type bits.
    Special(u32),
}

/// One path's kind and content, and the metadata a write changes: the
/// inode (a file replaced by a rename), the mode, the modification time
/// (a folder's changes when a file is created or removed in it, even for
/// a moment) and the status change time, which no user can set back.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    inode: u64,
    mode: u32,
    modified: (i64, i64),
    changed: (i64, i64),
}

/// Every path under a root, by its path from the root.
#[derive(Debug)]
pub struct Tree {
    pub entries: BTreeMap<PathBuf, Entry>,
}

impl Tree {
    /// Reads everything under `root` (the root itself as ``), following no symlink.
    pub fn of(root: &Path) -> Tree {
        let mut entries = BTreeMap::new();
        walk(root, root, &mut entries);
        Tree { entries }
    }

    /// What differs from `self` in `after`, one line a path (`.` for the
    /// root), in path order: empty when nothing was added, removed or touched.
    pub fn changes(&self, after: &Tree) -> Vec<String> {
        let shown = |path: &Path| match path.as_os_str().is_empty() {
            true => ".".to_string(),
            false => path.display().to_string(),
        };
        let mut changes = Vec::new();
        for (path, before) in &self.entries {
            let Some(now) = after.entries.get(path) else {
                changes.push(format!("removed: {}", shown(path)));
                continue;
            };
            let mut what = Vec::new();
            if before.kind != now.kind {
                what.push("content");
            }
            if before.inode != now.inode {
                what.push("inode");
            }
            if before.mode != now.mode {
                what.push("mode");
            }
            if before.modified != now.modified {
                what.push("mtime");
            }
            if before.changed != now.changed {
                what.push("ctime");
            }
            if !what.is_empty() {
                changes.push(format!("changed ({}): {}", what.join(", "), shown(path)));
            }
        }
        for path in after.entries.keys() {
            if !self.entries.contains_key(path) {
                changes.push(format!("added: {}", shown(path)));
            }
        }
        changes
    }

    /// The files (not folders) whose path starts with `prefix`.
    pub fn files_under(&self, prefix: &str) -> usize {
        self.entries
            .iter()
            .filter(|(path, entry)| path.starts_with(prefix) && matches!(entry.kind, Kind::File(_)))
            .count()
    }
}

fn walk(root: &Path, path: &Path, entries: &mut BTreeMap<PathBuf, Entry>) {
    let meta = std::fs::symlink_metadata(path).unwrap();
    let kind = if meta.file_type().is_symlink() {
        Kind::Symlink(std::fs::read_link(path).unwrap())
    } else if meta.is_dir() {
        Kind::Folder
    } else if meta.is_file() {
        Kind::File(std::fs::read(path).unwrap())
    } else {
        Kind::Special(meta.mode() & 0o170000)
    };
    let relative = path.strip_prefix(root).unwrap().to_path_buf();
    entries.insert(
        relative,
        Entry {
            kind,
            inode: meta.ino(),
            mode: meta.mode(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
        },
    );
    if meta.is_dir() {
        for child in std::fs::read_dir(path).unwrap() {
            walk(root, &child.unwrap().path(), entries);
        }
    }
}
