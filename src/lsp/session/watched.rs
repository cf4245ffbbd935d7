//! The globs of the files the open reports name, kept for the client's
//! watchers (`lsp/watchers.rs` registers them), and how it is told that
//! they, or the settings they come with, changed.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};

use tower_lsp_server::ls_types::Uri;

/// What the open reports name, as globs.
#[derive(Default)]
pub struct Watched {
    /// The globs of the files each open report names (`project_thread`).
    open: Mutex<HashMap<Uri, BTreeSet<String>>>,
    /// Told that the globs may have changed; none before `initialized`.
    poke: Mutex<Option<tokio::sync::mpsc::UnboundedSender<()>>>,
}

impl Watched {
    /// The globs of the files the open report at `uri` names, or none when
    /// it closed (None).
    pub fn open_report(&self, uri: &Uri, globs: Option<BTreeSet<String>>) {
        let changed = {
            let mut open = lock(&self.open);
            match globs {
                Some(globs) => open.insert(uri.clone(), globs.clone()).as_ref() != Some(&globs),
                None => open.remove(uri).is_some(),
            }
        };
        if changed {
            self.changed();
        }
    }

    /// Every open report's globs.
    pub fn open_globs(&self) -> BTreeSet<String> {
        lock(&self.open).values().flatten().cloned().collect()
    }

    /// Something the globs come from changed (the settings, a project
    /// file, an open report): they are worked out again, and registered
    /// again if they differ.
    pub fn changed(&self) {
        if let Some(poke) = lock(&self.poke).as_ref() {
            let _ = poke.send(());
        }
    }

    /// Where [`Watched::changed`] is told from now on; false when it
    /// already was (the watchers are started once).
    pub fn tell(&self, poke: tokio::sync::mpsc::UnboundedSender<()>) -> bool {
        let mut told = lock(&self.poke);
        if told.is_some() {
            return false;
        }
        *told = Some(poke);
        true
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while it was held left the data whole: each change is one call.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
