//! git's view of a root, read-only: the `git` binary with fixed arguments,
//! no shell, optional locks off (so `status` never rewrites the index), and
//! a timeout. Queried once per root, not per file.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use report_core::workspace::GitFacts;

/// How long one git command may take before it is killed.
const TIMEOUT: Duration = Duration::from_secs(20);
/// `delete` previews that show a last commit, at most (one git call each).
pub const MAX_LAST_COMMITS: usize = 200;

/// Runs `git -C root ARGS…` and returns its standard output, or why not.
fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotepath=off"])
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "git is not installed".to_string(),
            _ => format!("git cannot run: {e}"),
        })?;
    let mut stdout = child.stdout.take().expect("piped");
    // Read on a thread so a full pipe cannot stall the timeout below.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("git {} took more than {TIMEOUT:?}", args[0]));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("git failed: {e}")),
        }
    };
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err("the root is not inside a git work tree".into());
    }
    Ok(out)
}

/// What git tracks under `root` and what has changed there, as root-relative paths.
pub fn query(root: &Path) -> Result<GitFacts, String> {
    let prefix = git(root, &["rev-parse", "--show-prefix"])?;
    let prefix = String::from_utf8_lossy(&prefix).trim_end().to_string();
    let tracked = git(root, &["ls-files", "-z"])?;
    let status = git(
        root,
        &["status", "--porcelain=v1", "-z", "--untracked-files=all"],
    )?;
    let mut facts = GitFacts {
        tracked: split(&tracked).map(str::to_string).collect(),
        ..Default::default()
    };
    let mut records = split(&status);
    while let Some(record) = records.next() {
        if record.len() < 4 {
            continue;
        }
        let (code, path) = record.split_at(3);
        let code = code.as_bytes();
        // A rename or copy is followed by its source path.
        if matches!(code[0], b'R' | b'C') {
            records.next();
        }
        // Status paths are relative to the repository's top, not to the root.
        let Some(path) = path.strip_prefix(prefix.as_str()) else {
            continue;
        };
        facts
            .changes
            .insert(path.to_string(), describe(code[0], code[1]));
    }
    Ok(facts)
}

fn split(bytes: &[u8]) -> impl Iterator<Item = &str> {
    bytes
        .split(|&b| b == 0)
        .filter(|s| !s.is_empty())
        .filter_map(|s| std::str::from_utf8(s).ok())
}

/// What a porcelain status code means, in words for the hover and messages.
fn describe(index: u8, worktree: u8) -> String {
    match (index, worktree) {
        (b'?', b'?') => "untracked".into(),
        (b'!', b'!') => "ignored".into(),
        (_, b'M') => "modified in the worktree".into(),
        (_, b'D') => "deleted in the worktree".into(),
        (b'A', _) => "added to the index, not committed".into(),
        (b'M', _) => "modified in the index, not committed".into(),
        (b'D', _) => "deleted in the index".into(),
        (b'R', _) => "renamed in the index".into(),
        (i, w) => format!("changed ({}{})", i as char, w as char),
    }
}

/// The commit HEAD names, or None (no commit yet, no git).
pub fn head(root: &Path) -> Option<String> {
    let out = git(root, &["rev-parse", "--verify", "-q", "HEAD"]).ok()?;
    let line = String::from_utf8_lossy(&out).trim().to_string();
    (!line.is_empty()).then_some(line)
}

/// `<short hash> <subject>` of the last commit touching `path`.
pub fn last_commit(root: &Path, path: &str) -> Option<String> {
    let out = git(root, &["log", "-1", "--format=%h %s (%as)", "--", path]).ok()?;
    let line = String::from_utf8_lossy(&out).trim().to_string();
    (!line.is_empty()).then_some(line)
}
