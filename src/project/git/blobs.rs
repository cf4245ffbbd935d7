//! The worktree's files hashed as git blobs (raw bytes, as `git hash-object
//! --no-filters` would), cached between passes by our own stat key. git's
//! own stat data in the index is not trusted for this: it may describe bytes
//! git converted on checkout (`core.autocrlf`, a smudge filter), which a raw
//! comparison must not call clean.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use gix_hash::ObjectId;

/// A file's bytes as git would hash them, raw and with CRLF made LF.
#[derive(Clone, Debug)]
pub struct Blob {
    pub raw: ObjectId,
    pub has_cr: bool,
    /// The blob id of the bytes with every CRLF made LF (when it has a CR).
    pub lf: Option<ObjectId>,
}

/// Hashes by path, kept while size, mtime, ctime and inode stay.
#[derive(Default)]
pub struct BlobCache {
    entries: HashMap<PathBuf, (Key, Blob)>,
}

/// What changes whenever a file's bytes do (ctime cannot be set back by a
/// program), except a rewrite within one mtime tick: see [`RACY`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Key {
    size: u64,
    mtime: Option<SystemTime>,
    ctime: (i64, i64),
    ino: u64,
}

/// A file changed less than this before it was hashed is not cached: a
/// second change within the same tick would keep its key (git's "racy").
const RACY: Duration = Duration::from_secs(2);

impl BlobCache {
    /// `path`'s blob (a regular file whose metadata is `metadata`).
    pub fn blob(&mut self, path: &Path, metadata: &std::fs::Metadata) -> Result<Blob, String> {
        let key = Key::of(metadata);
        if let Some((kept, blob)) = self.entries.get(path)
            && *kept == key
        {
            return Ok(blob.clone());
        }
        let bytes = std::fs::read(path).map_err(|e| format!("cannot be read: {e}"))?;
        let has_cr = memchr::memchr(b'\r', &bytes).is_some();
        let blob = Blob {
            raw: blob_id(&bytes),
            has_cr,
            lf: has_cr.then(|| blob_id(&crlf_to_lf(&bytes))),
        };
        let unchanged = std::fs::symlink_metadata(path).is_ok_and(|m| Key::of(&m) == key);
        let settled = metadata
            .modified()
            .ok()
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age > RACY);
        if unchanged && settled {
            self.entries.insert(path.to_path_buf(), (key, blob.clone()));
        }
        Ok(blob)
    }
}

impl Key {
    fn of(metadata: &std::fs::Metadata) -> Key {
        #[cfg(unix)]
        let (ctime, ino) = {
            use std::os::unix::fs::MetadataExt;
            ((metadata.ctime(), metadata.ctime_nsec()), metadata.ino())
        };
        #[cfg(not(unix))]
        let (ctime, ino) = ((0, 0), 0);
        Key {
            size: metadata.len(),
            mtime: metadata.modified().ok(),
            ctime,
            ino,
        }
    }
}

/// git's blob id of `bytes`.
pub fn blob_id(bytes: &[u8]) -> ObjectId {
    gix_object::compute_hash(gix_hash::Kind::Sha1, gix_object::Kind::Blob, bytes)
        .unwrap_or_else(|_| ObjectId::null(gix_hash::Kind::Sha1))
}

fn crlf_to_lf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            continue;
        }
        out.push(b);
    }
    out
}
