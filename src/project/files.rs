//! Facts about the files a report names, read safely: the path is refused
//! when it leaves the root (absolute, `..`, a symlink resolving outside),
//! the file type is checked before opening (a FIFO or device is never
//! opened), reads are bounded, and sha256 is streamed and cached by path,
//! size and mtime so a refresh rehashes only what changed.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use report_core::project_checks::{FileFacts, FileKind, PathRequest};
use sha2::{Digest, Sha256};

/// Files larger than this are not hashed: a diagnostic says so instead of
/// reading gigabytes.
pub const MAX_HASH_BYTES: u64 = 256 << 20;
/// Files larger than this are hashed but their text is not kept.
pub const MAX_TEXT_BYTES: u64 = 8 << 20;
/// `conventions.json` larger than this is not read.
const MAX_CONVENTIONS_BYTES: u64 = 1 << 20;

/// What a read found, kept while the file's size and mtime stay the same.
#[derive(Clone)]
struct Cached {
    size: u64,
    modified_ns: i128,
    sha256: Option<String>,
    text: Option<Arc<str>>,
}

/// Hashes and texts by path, size and mtime.
#[derive(Default)]
pub struct HashCache {
    entries: HashMap<PathBuf, Cached>,
}

/// Why `path` may not be read, or None when it stays inside the root.
pub fn refusal(path: &str) -> Option<String> {
    let p = Path::new(path);
    if p.is_absolute() || path.starts_with('\\') || path.as_bytes().get(1) == Some(&b':') {
        return Some("an absolute path, outside the project root".into());
    }
    if p.components().any(|c| matches!(c, Component::ParentDir))
        || path.split(['/', '\\']).any(|s| s == "..")
    {
        return Some("a `..` segment leaves the project root".into());
    }
    None
}

/// The facts about one requested path under `root` (canonical).
pub fn facts(root: &Path, request: &PathRequest, cache: &mut HashCache) -> FileFacts {
    if let Some(why) = refusal(&request.path) {
        return FileFacts::of_kind(FileKind::Refused(why));
    }
    let joined = root.join(request.path.trim_end_matches('/'));
    if std::fs::symlink_metadata(&joined).is_err() {
        return FileFacts::missing();
    }
    // Resolving the links tells where the path leads; nothing outside is read.
    let resolved = match joined.canonicalize() {
        Ok(resolved) => resolved,
        Err(_) => return FileFacts::missing(),
    };
    if !resolved.starts_with(root) {
        return FileFacts::of_kind(FileKind::Refused(
            "a symlink resolving outside the project root".into(),
        ));
    }
    let metadata = match std::fs::metadata(&resolved) {
        Ok(m) => m,
        Err(error) => return FileFacts::of_kind(FileKind::Unreadable(error.to_string())),
    };
    let modified_ns = metadata
        .modified()
        .ok()
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    let mut out = FileFacts::of_kind(FileKind::File);
    out.size = metadata.len();
    out.modified_ms = Some((modified_ns / 1_000_000) as i64);
    if metadata.is_dir() {
        out.kind = FileKind::Directory;
        return out;
    }
    if !metadata.is_file() {
        out.kind = FileKind::Unreadable(format!("not a regular file ({})", file_type(&metadata)));
        return out;
    }
    if !(request.hash || request.text) {
        return out;
    }
    if metadata.len() > MAX_HASH_BYTES {
        out.kind = FileKind::Unreadable(format!(
            "{} bytes, more than the {} MiB a workspace check reads",
            metadata.len(),
            MAX_HASH_BYTES >> 20
        ));
        return out;
    }
    if let Some(hit) = cache.entries.get(&resolved)
        && hit.size == metadata.len()
        && hit.modified_ns == modified_ns
        && (hit.sha256.is_some() || !request.hash)
        && (hit.text.is_some() || !request.text || metadata.len() > MAX_TEXT_BYTES)
    {
        out.sha256 = hit.sha256.clone();
        out.text = hit.text.clone();
        return out;
    }
    match read(&resolved, request.text && metadata.len() <= MAX_TEXT_BYTES) {
        Ok((sha256, text)) => {
            out.sha256 = Some(sha256);
            out.text = text;
            cache.entries.insert(
                resolved,
                Cached {
                    size: metadata.len(),
                    modified_ns,
                    sha256: out.sha256.clone(),
                    text: out.text.clone(),
                },
            );
        }
        Err(error) => out.kind = FileKind::Unreadable(error.to_string()),
    }
    out
}

fn file_type(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = metadata.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "a special file"
    }
}

/// Streams the file through sha256, keeping its text when asked and UTF-8.
/// Opened without following a last symlink and without blocking, in case
/// the file was swapped for a FIFO after its type was checked.
fn read(path: &Path, keep_text: bool) -> std::io::Result<(String, Option<Arc<str>>)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)?;
    let mut reader = file.take(MAX_HASH_BYTES + 1);
    let mut hasher = Sha256::new();
    let mut kept = Vec::new();
    let mut buffer = vec![0u8; 64 << 10];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        if keep_text {
            kept.extend_from_slice(&buffer[..n]);
        }
    }
    let hex = hex(hasher);
    let text = keep_text
        .then(|| String::from_utf8(kept).ok())
        .flatten()
        .map(Arc::from);
    Ok((hex, text))
}

/// The lowercase hex sha256 of the bytes of `chunks`, in order (an open
/// document's text, whose facts the editor's text makes).
pub fn sha256_of<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = Sha256::new();
    chunks.into_iter().for_each(|c| hasher.update(c));
    hex(hasher)
}

fn hex(hasher: Sha256) -> String {
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `conventions.json` at the root, when it is a small regular file inside it.
pub fn read_conventions(root: &Path) -> Option<String> {
    let path = root.join("conventions.json");
    let resolved = path.canonicalize().ok()?;
    let metadata = std::fs::metadata(&resolved).ok()?;
    if !resolved.starts_with(root) || !metadata.is_file() || metadata.len() > MAX_CONVENTIONS_BYTES
    {
        return None;
    }
    std::fs::read_to_string(resolved).ok()
}

/// The project-relative path of the file at `path` under `root`, as
/// `report_core::paths::path_key` writes it, when it lies there (as
/// written, or once both are resolved through symlinks and `..`).
pub fn relative_key(path: &Path, root: &Path) -> Option<String> {
    RelativeKeys::new(root).key(path)
}

/// [`relative_key`] for many paths under one root: the root is resolved
/// once, and only when a path does not lie under it as written.
pub struct RelativeKeys {
    root: PathBuf,
    plain: PathBuf,
    resolved: std::cell::OnceCell<Option<PathBuf>>,
}

impl RelativeKeys {
    pub fn new(root: &Path) -> RelativeKeys {
        RelativeKeys {
            root: root.to_path_buf(),
            plain: root.components().collect(),
            resolved: std::cell::OnceCell::new(),
        }
    }

    /// What [`relative_key`] says of `path`.
    pub fn key(&self, path: &Path) -> Option<String> {
        let path_plain: PathBuf = path.components().collect();
        let relative = match path_plain.strip_prefix(&self.plain) {
            Ok(relative) => relative.to_path_buf(),
            // A root or a path reached through a symlink or `..`.
            Err(_) => {
                let root = self.resolved.get_or_init(|| self.root.canonicalize().ok());
                path.canonicalize()
                    .ok()?
                    .strip_prefix(root.as_ref()?)
                    .ok()?
                    .to_path_buf()
            }
        };
        let relative = relative.to_str()?.replace('\\', "/");
        Some(report_core::paths::path_key(&relative))
    }
}

/// The file at `path` through its symlinks, as the workspace checks key
/// the files they read; as given when it cannot be resolved (gone).
pub fn resolved(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Where the project-relative `path` is under `root`, for opening it: the
/// path joined to the root, when it is there and stays inside the root (by
/// the rules of [`refusal`], and no symlink resolving outside). None for a
/// path that is missing or leaves the root.
pub fn inside(root: &Path, path: &str) -> Option<PathBuf> {
    Inside::new(root)?.get(path)
}

/// [`inside`] for many paths under one root: the root is resolved once and
/// each folder's resolution is kept, so a path costs one `lstat` (a full
/// resolution only when it is a symlink itself).
pub struct Inside {
    root: PathBuf,
    canonical_root: PathBuf,
    folders: HashMap<PathBuf, Option<PathBuf>>,
}

impl Inside {
    /// None when the root itself cannot be resolved.
    pub fn new(root: &Path) -> Option<Inside> {
        Some(Inside {
            root: root.to_path_buf(),
            canonical_root: root.canonicalize().ok()?,
            folders: HashMap::new(),
        })
    }

    /// What [`inside`] says of `path`.
    pub fn get(&mut self, path: &str) -> Option<PathBuf> {
        if refusal(path).is_some() || path.is_empty() {
            return None;
        }
        let joined = self.root.join(path.trim_end_matches('/'));
        let resolved = self.resolve(&joined)?;
        resolved.starts_with(&self.canonical_root).then_some(joined)
    }

    /// `joined.canonicalize()`, from its folder's when the path's last
    /// component is a plain name that is no symlink.
    fn resolve(&mut self, joined: &Path) -> Option<PathBuf> {
        let (Some(Component::Normal(name)), Some(folder)) =
            (joined.components().next_back(), joined.parent())
        else {
            return joined.canonicalize().ok();
        };
        if std::fs::symlink_metadata(joined)
            .ok()?
            .file_type()
            .is_symlink()
        {
            return joined.canonicalize().ok();
        }
        let folder = self
            .folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| folder.canonicalize().ok())
            .as_ref()?;
        Some(folder.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_the_root_are_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("文档")).unwrap();
        std::fs::write(root.join("文档/旧 🚀.md"), "x").unwrap();
        std::fs::write(dir.path().join("secret.md"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.md"), root.join("link.md")).unwrap();
        assert_eq!(
            inside(&root, "文档/旧 🚀.md"),
            Some(root.join("文档/旧 🚀.md"))
        );
        assert_eq!(inside(&root, "文档/"), Some(root.join("文档")));
        for refused in ["missing.md", "../secret.md", "link.md", "/etc/passwd", ""] {
            assert_eq!(inside(&root, refused), None, "{refused}");
        }
        // Many paths under one root, folders resolved once: the same answers,
        // also through a symlinked folder (inside, or leading outside).
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(dir.path().join("outside/x.md"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("out")).unwrap();
        std::os::unix::fs::symlink(root.join("文档"), root.join("docs")).unwrap();
        let mut many = Inside::new(&root).unwrap();
        for path in [
            "文档/旧 🚀.md",
            "文档/",
            "docs/旧 🚀.md",
            "./文档/旧 🚀.md",
            "文档/./旧 🚀.md",
            "out/x.md",
            "missing.md",
            "../secret.md",
            "link.md",
            "",
        ] {
            let expected = std::fs::canonicalize(root.join(path.trim_end_matches('/')))
                .ok()
                .filter(|r| r.starts_with(root.canonicalize().unwrap()))
                .map(|_| root.join(path.trim_end_matches('/')))
                .filter(|_| !path.is_empty() && !path.contains(".."));
            assert_eq!(many.get(path), expected, "{path}");
            assert_eq!(many.get(path), inside(&root, path), "{path} again");
        }
        assert!(many.get("docs/旧 🚀.md").is_some());
        assert_eq!(many.get("out/x.md"), None);
        let secret = dir.path().join("secret.md");
        assert_eq!(inside(&root, secret.to_str().unwrap()), None);
    }

    fn request(path: &str) -> PathRequest {
        PathRequest {
            path: path.into(),
            text: true,
            hash: true,
            lifecycle: false,
        }
    }

    fn set_mtime(path: &Path, seconds: u64) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(UNIX_EPOCH + std::time::Duration::from_secs(seconds))
            .unwrap();
    }

    #[test]
    fn hashes_and_texts_are_cached_by_path_size_and_mtime() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let file = root.join("a.md");
        std::fs::write(&file, "one 漢字\n").unwrap();
        set_mtime(&file, 1_000_000);
        let mut cache = HashCache::default();
        let first = facts(&root, &request("a.md"), &mut cache);
        assert_eq!(first.text.as_deref(), Some("one 漢字\n"));
        // Same size and mtime: the cache answers, the file is not read again
        // (its new bytes are not seen).
        std::fs::write(&file, "two 漢字\n").unwrap();
        set_mtime(&file, 1_000_000);
        let second = facts(&root, &request("a.md"), &mut cache);
        assert_eq!(second.sha256, first.sha256);
        assert_eq!(second.text.as_deref(), Some("one 漢字\n"));
        // A new mtime: read again.
        set_mtime(&file, 1_000_001);
        let third = facts(&root, &request("a.md"), &mut cache);
        assert_ne!(third.sha256, first.sha256);
        assert_eq!(third.text.as_deref(), Some("two 漢字\n"));
        // A new size: read again, whatever the mtime.
        std::fs::write(&file, "three 漢字\n").unwrap();
        set_mtime(&file, 1_000_001);
        let fourth = facts(&root, &request("a.md"), &mut cache);
        assert_eq!(fourth.text.as_deref(), Some("three 漢字\n"));
    }
}
