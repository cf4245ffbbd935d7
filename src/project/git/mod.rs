//! git's view of a root, read in-process: the index, HEAD and the objects
//! a preview needs, through gitoxide's plumbing crates. **No child process
//! is started, so no program the repository names can run.**
//!
//! Why that holds, against every entry of `git help config` that names a
//! command (filter drivers and filter processes, textconv and external
//! diff, `gpg.program` and the other signature verifiers, `core.fsmonitor`,
//! hooks and `core.hooksPath`, pagers, editors, credential helpers,
//! `core.sshCommand`, `core.askPass`, merge drivers, upload-pack hooks, …):
//! - this module never calls `std::process`; `tests/architecture.rs` checks
//!   that nothing under `src/` outside the tests does;
//! - the crates it uses read files and decode them: none of them links
//!   `gix-command`, `gix-filter`, `gix-credentials` or `gix-transport`, the
//!   gitoxide crates that start programs (also checked there); `gix-path`
//!   can run `git config` to find git's installation (its `env` module),
//!   which nothing here calls, and the test bans by name;
//! - git's configuration is not read at all, so `include`, `includeIf` and
//!   every command setting are inert text. Where configuration or
//!   attributes could change what "clean" means (a filter, a line-ending
//!   conversion, `ident`), the path is [`Worktree::Undecided`], never clean.
//!
//! Reading never hangs the caller: the reader runs on its own thread and is
//! abandoned after [`TIMEOUT`] (a FIFO planted as `.git/HEAD` blocks it, not
//! the editor).

mod attributes;
mod blobs;
mod head;
mod history;
mod repo;
mod worktree;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use report_core::project_checks::GitFacts;
#[cfg(test)]
use report_core::project_checks::Worktree;

pub use head::{AtHead, MAX_HEAD_BYTES, file_at_head};
pub use history::HistoryCache;

/// What one read keeps for the next: last commits by HEAD, blob ids by stat.
#[derive(Default)]
pub struct GitCache {
    pub history: HistoryCache,
    blobs: blobs::BlobCache,
}

/// How long one read of git's data may take before it is abandoned.
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// Readers running at once, the abandoned ones included, at most.
const MAX_READERS: usize = 4;
static READING: AtomicUsize = AtomicUsize::new(0);
/// `delete` previews that show a last commit, at most.
pub const MAX_LAST_COMMITS: usize = 200;

/// What one read found.
#[derive(Debug, Default)]
pub struct GitRead {
    pub facts: GitFacts,
    /// `<short hash> <subject> (<date>)` of the last commit touching each
    /// path asked for (None: no commit found).
    pub last_commits: HashMap<String, Option<String>>,
}

/// Reads git's data about `paths` (as the report writes them, `dir/` for a
/// folder) under `root`: tracked, clean, and the last commit of the first
/// [`MAX_LAST_COMMITS`] of them. Err says why there are no git facts at all
/// (no work tree, a bare or SHA-256 repository, an unreadable index, …).
pub fn read(root: &Path, paths: Vec<String>, cache: &mut GitCache) -> Result<GitRead, String> {
    read_within(root, paths, cache, TIMEOUT)
}

fn read_within(
    root: &Path,
    paths: Vec<String>,
    kept: &mut GitCache,
    timeout: Duration,
) -> Result<GitRead, String> {
    let root = root.to_path_buf();
    let mut cache = std::mem::take(kept);
    let (read, cache) = off_thread(timeout, move || {
        let read = read_now(&root, &paths, &mut cache);
        Ok((read, cache))
    })?;
    *kept = cache;
    read
}

/// Runs a read of git's data on a thread of its own and waits at most
/// `timeout` for it.
fn off_thread<T: Send + 'static>(
    timeout: Duration,
    read: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    // A reader stuck on a FIFO cannot be stopped, only abandoned: past a
    // few of them, no more are started.
    if READING.load(Ordering::SeqCst) >= MAX_READERS {
        return Err(format!(
            "{MAX_READERS} earlier reads of git's data are still stuck (a FIFO in .git?)"
        ));
    }
    let (send, receive) = mpsc::channel();
    READING.fetch_add(1, Ordering::SeqCst);
    let spawned = std::thread::Builder::new()
        .name("git-read".into())
        .spawn(move || {
            let result = read();
            READING.fetch_sub(1, Ordering::SeqCst);
            let _ = send.send(result);
        });
    if let Err(error) = spawned {
        READING.fetch_sub(1, Ordering::SeqCst);
        return Err(format!("git's data cannot be read: {error}"));
    }
    match receive.recv_timeout(timeout) {
        Ok(result) => result,
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
            "reading git's data took more than {} s (a FIFO or a slow file system in .git?)",
            timeout.as_secs()
        )),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err("git's data could not be read (the reader failed)".into())
        }
    }
}

fn read_now(root: &Path, paths: &[String], cache: &mut GitCache) -> Result<GitRead, String> {
    let repo = repo::Repo::open(root)?;
    let mut read = GitRead::default();
    let mut examiner = worktree::Examiner::new(&repo, &mut cache.blobs);
    for path in paths {
        let (tracked, state) = examiner.examine(path);
        read.facts.insert(path, tracked, state);
    }
    let wanted: Vec<&str> = paths
        .iter()
        .take(MAX_LAST_COMMITS)
        .map(String::as_str)
        .collect();
    read.last_commits = history::last_commits(&repo, &wanted, &mut cache.history);
    Ok(read)
}

#[cfg(test)]
pub(crate) mod tests;
