//! Which project file governs a path: the nearest folder, from the path's
//! own up, that holds `report-lsp.toml` or a `pyproject.toml` with a
//! `[tool.report-lsp]` table (`report-lsp.toml` first, in one folder). Each
//! folder is looked at once and remembered until told it changed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{FILE_NAME, PYPROJECT, ProjectFile};

/// The project files found, by folder; shared by threads.
#[derive(Default)]
pub struct ProjectFiles {
    /// Each folder looked at: its project file, or None when it has none.
    folders: Mutex<HashMap<PathBuf, Option<Arc<ProjectFile>>>>,
    /// Files read since the last [`ProjectFiles::take_read`]: the server
    /// publishes their problems.
    read: Mutex<Vec<Arc<ProjectFile>>>,
}

impl ProjectFiles {
    /// The project file governing `path` (a file, or a folder: then its own
    /// file counts), if any.
    pub fn governing(&self, path: &Path) -> Option<Arc<ProjectFile>> {
        let path = std::path::absolute(path).ok()?;
        let start = if path.is_dir() {
            path.as_path()
        } else {
            path.parent()?
        };
        start.ancestors().find_map(|folder| self.in_folder(folder))
    }

    /// The project file of `folder` itself.
    fn in_folder(&self, folder: &Path) -> Option<Arc<ProjectFile>> {
        if let Some(known) = lock(&self.folders).get(folder) {
            return known.clone();
        }
        // Read outside the lock: another thread may look at other folders.
        let file = super::read(&folder.join(FILE_NAME))
            .or_else(|| super::read(&folder.join(PYPROJECT)))
            .map(Arc::new);
        let mut folders = lock(&self.folders);
        if let Some(known) = folders.get(folder) {
            return known.clone();
        }
        folders.insert(folder.to_path_buf(), file.clone());
        if let Some(file) = &file {
            lock(&self.read).push(file.clone());
        }
        file
    }

    /// Forgets what `folder` held (one of its project files changed); the
    /// project file it had, if any, so its problems can be withdrawn.
    pub fn forget(&self, folder: &Path) -> Option<Arc<ProjectFile>> {
        lock(&self.folders).remove(folder).flatten()
    }

    /// The report globs of the project files known, anchored at their
    /// folders (absolute).
    pub fn report_globs(&self) -> Vec<String> {
        lock(&self.folders)
            .values()
            .flatten()
            .filter_map(|file| file.values.files.as_ref())
            .flat_map(|globs| globs.patterns().iter().cloned())
            .collect()
    }

    /// The files read since the last call.
    pub fn take_read(&self) -> Vec<Arc<ProjectFile>> {
        std::mem::take(&mut *lock(&self.read))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
