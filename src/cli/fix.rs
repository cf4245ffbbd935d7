//! `check --fix` and `--diff`: the fix-all edits the server offers, applied
//! to files. This is the only code that writes a file, and it writes only a
//! fix that leaves no more errors than before, atomically (a temporary file
//! in the same folder, renamed over the original, mode kept), and only when
//! the file has not changed since it was read.

use std::fs::{File, Metadata, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use report_core::Analysis;
use report_core::diagnostic::{Code, Severity};

use super::{Checked, Failure, FileResult, FixMode};

/// A file as it was read, to tell before writing whether it changed since.
/// Its bytes are the analysis's text (only UTF-8 text is ever written back).
pub(crate) struct ReadFile {
    pub path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
    permissions: Permissions,
}

impl ReadFile {
    pub fn read(path: &Path) -> io::Result<(ReadFile, Vec<u8>)> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        // Read what the size said, no more: a file appended to while read
        // would otherwise be read as long as the writer keeps up, and its
        // text would be whatever was there at some moment.
        let changed = || {
            io::Error::other(
                "the file changed while being read (is it still being written?); check it again when it is complete",
            )
        };
        let len = usize::try_from(meta.len()).map_err(|_| io::Error::other("too large"))?;
        let mut bytes = vec![0u8; len];
        read_exact_at(&file, &mut bytes, 0).map_err(|error| match error.kind() {
            io::ErrorKind::UnexpectedEof => changed(),
            _ => error,
        })?;
        let mut more = [0u8; 1];
        if read_at(&file, &mut more, meta.len())? > 0 {
            return Err(changed());
        }
        let read = ReadFile {
            path: path.to_path_buf(),
            len: meta.len(),
            modified: meta.modified().ok(),
            permissions: meta.permissions(),
        };
        Ok((read, bytes))
    }

    /// Whether the file on disk still holds `original`, what was read.
    fn unchanged(&self, original: &str) -> io::Result<bool> {
        let meta: Metadata = std::fs::metadata(&self.path)?;
        if meta.len() != self.len || meta.modified().ok() != self.modified {
            return Ok(false);
        }
        Ok(std::fs::read(&self.path)? == original.as_bytes())
    }

    /// Replaces the file's content, `original` when read, with `text`,
    /// atomically, keeping its mode.
    fn replace(&self, original: &str, text: &str) -> Result<(), String> {
        // Write through a symbolic link, not over it.
        let target =
            std::fs::canonicalize(&self.path).map_err(|e| format!("cannot resolve: {e}"))?;
        let folder = target.parent().unwrap_or(Path::new("."));
        let mut temp = tempfile::Builder::new()
            .prefix(".report-lsp-fix-")
            .suffix(".tmp")
            .tempfile_in(folder)
            .map_err(|e| format!("cannot create a temporary file beside it: {e}"))?;
        temp.write_all(text.as_bytes())
            .and_then(|()| temp.as_file().set_permissions(self.permissions.clone()))
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| format!("cannot write the temporary file: {e}"))?;
        // Checked last, right before the rename, so the window for a lost edit is as small as it can be.
        match self.unchanged(original) {
            Ok(true) => {}
            Ok(false) => {
                return Err(
                    "changed while it was being checked; not fixed (run the check again)".into(),
                );
            }
            Err(e) => return Err(format!("cannot read it again before writing: {e}")),
        }
        temp.persist(&target)
            .map(drop)
            .map_err(|e| format!("cannot replace it: {}", e.error))
    }
}

fn errors(analysis: &Analysis) -> usize {
    let kept = analysis.diagnostics.iter();
    kept.filter(|d| d.severity == Severity::Error).count() + analysis.omitted.count(Severity::Error)
}

/// Why a fixed text is not written: it has more errors than the original.
/// Fix-all keeps no round that adds errors, so no input reaches this through
/// it today; this is the code that writes files, so it checks again rather
/// than trust that, and is tested on its own.
fn refusal(analysis: &Analysis, fixed: &Analysis) -> Option<String> {
    let (before, after) = (errors(analysis), errors(fixed));
    (after > before).then(|| {
        format!("not fixed: the fixes would leave {after} errors where there are {before}")
    })
}

/// Fixes one checked file as `mode` says: a diff goes to `diffs`, a
/// refusal or a failed write to `failures`. Returns what to report: the
/// fixed text's analysis when it was written, else the original one.
pub(super) fn fix_file(
    checked: Checked,
    mode: FixMode,
    keep: report_core::diagnostic::Keep,
    limit: &str,
    diffs: &mut Vec<String>,
    failures: &mut Vec<Failure>,
) -> FileResult {
    let Checked {
        path,
        file,
        analysis,
    } = checked;
    let unchanged = |analysis: Analysis| FileResult {
        path: path.clone(),
        analysis,
        fixed: 0,
        limit: limit.to_string(),
    };
    // A lossy copy of bytes that are not UTF-8 must never be written back.
    if analysis
        .diagnostics
        .iter()
        .any(|d| d.code == Code::InvalidUtf8)
    {
        return unchanged(analysis);
    }
    let Some(fixed_text) = report_core::fix_all::fix_all(&analysis.text) else {
        return unchanged(analysis);
    };
    let fixed = report_core::analyze_with(
        std::sync::Arc::new(fixed_text.clone()),
        report_core::AnalysisOptions::keeping(keep),
    );
    if let Some(message) = refusal(&analysis, &fixed) {
        failures.push(Failure {
            path: Some(path.clone()),
            message,
        });
        return unchanged(analysis);
    }
    match mode {
        FixMode::Off => unchanged(analysis),
        FixMode::Diff => {
            diffs.push(unified_diff(&path, &analysis.text, &fixed_text));
            unchanged(analysis)
        }
        FixMode::Write => {
            let Some(file) = file else {
                return unchanged(analysis);
            };
            if let Err(message) = file.replace(&analysis.text, &fixed_text) {
                failures.push(Failure {
                    path: Some(path.clone()),
                    message,
                });
                return unchanged(analysis);
            }
            let removed = analysis.problems().saturating_sub(fixed.problems());
            FileResult {
                path,
                analysis: fixed,
                fixed: removed,
                limit: limit.to_string(),
            }
        }
    }
}

/// `--- a/PATH` / `+++ b/PATH` and hunks with three lines of context, as `git diff` prints.
fn unified_diff(path: &str, before: &str, after: &str) -> String {
    unified(before, after, &format!("a/{path}"), &format!("b/{path}"))
}

/// A unified diff (three lines of context) with these file headers.
pub(super) fn unified(before: &str, after: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(old, new)
        .to_string()
}

/// From this size, on the pool, a file is read in two halves at once: the
/// copy from the page cache and the new pages take a core each (a 40 MB
/// report, about 25 ms on one).
const READ_IN_HALVES_FROM: usize = 8 << 20;

/// Fills `buf` from `file` at `offset` (where the platform reads at an
/// offset: in two halves at once when large and on the pool).
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        if buf.len() >= READ_IN_HALVES_FROM && rayon::current_thread_index().is_some() {
            let (head, tail) = buf.split_at_mut(buf.len() / 2);
            let tail_at = offset + head.len() as u64;
            let (a, b) = rayon::join(
                || file.read_exact_at(head, offset),
                || file.read_exact_at(tail, tail_at),
            );
            return a.and(b);
        }
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

/// Reads into `buf` from `file` at `offset`: how many bytes there were.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file from the size read in halves: read whole on the pool (in two
    /// halves at once) and off it, and a file shorter than its size said
    /// (truncated while read) refused.
    #[test]
    fn a_large_file_is_read_whole_in_halves_on_the_pool() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let bytes: Vec<u8> = (0..READ_IN_HALVES_FROM + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (read, on_pool) = pool.install(|| ReadFile::read(&path)).unwrap();
        assert_eq!(read.len, bytes.len() as u64);
        assert!(on_pool == bytes, "the halves are joined in order");
        assert!(ReadFile::read(&path).unwrap().1 == bytes);
        let file = File::open(&path).unwrap();
        let mut longer = vec![0u8; bytes.len() + 1];
        let error = pool
            .install(|| read_exact_at(&file, &mut longer, 0))
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    /// Two real texts: `promotion_candidates` added after an unclosed array
    /// lands inside it, one error more (what the fix did before it refused
    /// a broken last member).
    #[test]
    fn a_fix_that_would_leave_more_errors_is_refused() {
        let envelope = r#"{"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07Z", "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0}, "shortlist": []"#;
        let before = report_core::analyze(&format!(r#"{envelope}, "entries": [}}"#));
        let after = report_core::analyze(&format!(
            r#"{envelope}, "entries": [, "promotion_candidates": []}}"#
        ));
        assert_eq!(
            refusal(&before, &after).as_deref(),
            Some("not fixed: the fixes would leave 3 errors where there are 2")
        );
        assert_eq!(refusal(&before, &before), None, "as many errors");
        assert_eq!(refusal(&after, &before), None, "fewer errors");
        // Errors past the cap count as much as those kept.
        let capped = |text: &str| {
            let keep = report_core::diagnostic::Keep::at_most(1);
            report_core::analyze_with(
                std::sync::Arc::new(text.to_string()),
                report_core::AnalysisOptions::keeping(keep),
            )
        };
        assert_eq!(
            refusal(&capped(&before.text), &capped(&after.text)),
            refusal(&before, &after)
        );
    }

    #[test]
    fn a_file_that_changed_since_it_was_read_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.report.json");
        std::fs::write(&path, "{\"a\": 1}").unwrap();
        let (read, _) = ReadFile::read(&path).unwrap();
        // Same length, so only the content tells.
        std::fs::write(&path, "{\"a\": 2}").unwrap();
        let refused = read.replace("{\"a\": 1}", "{\"a\": 3}").unwrap_err();
        assert!(
            refused.contains("changed while it was being checked"),
            "{refused}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\": 2}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "the temporary file is removed");
    }

    /// Procfs files say they are empty and are not: what the size says is
    /// read, and a byte more means the file is not what it said.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_longer_than_its_size_is_refused() {
        let refused = ReadFile::read(Path::new("/proc/self/status"))
            .err()
            .unwrap();
        assert!(
            refused.to_string().contains("changed while being read"),
            "{refused}"
        );
    }

    /// Its time alone tells that it changed, without reading it.
    #[test]
    fn a_file_whose_time_changed_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.report.json");
        std::fs::write(&path, "{}").unwrap();
        let (read, _) = ReadFile::read(&path).unwrap();
        let file = File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::UNIX_EPOCH).unwrap();
        assert!(!read.unchanged("{}").unwrap());
        assert!(read.replace("{}", "{ }").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
    }

    #[test]
    fn an_unchanged_file_is_replaced_through_a_symbolic_link() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.report.json");
        let link = dir.path().join("link.report.json");
        std::fs::write(&path, "{}").unwrap();
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let (read, _) = ReadFile::read(&link).unwrap();
        read.replace("{}", "{ }").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ }");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
