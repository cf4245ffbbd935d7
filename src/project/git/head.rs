//! A file's content as HEAD's commit holds it, for the editor's "since
//! HEAD" comparison: HEAD's tree walked to the path and the blob inflated,
//! in-process. The blob is git's stored form: no filter or line-ending
//! conversion runs (none can: nothing is run), which a comparison by
//! meaning does not mind.

use std::path::Path;

use gix_object::FindExt;

use super::repo::{Repo, Trees};

/// What HEAD holds at a path.
#[derive(Debug, PartialEq, Eq)]
pub enum AtHead {
    /// The blob's bytes and its id.
    Blob { bytes: Vec<u8>, id: String },
    /// HEAD's tree has no file there (a new or untracked file).
    Absent,
    /// The repository has no commit yet.
    NoCommit,
    /// HEAD's copy is larger than [`MAX_HEAD_BYTES`]: not inflated.
    TooLarge { bytes: u64 },
}

/// The largest copy read: a repository may commit an object that inflates
/// to far more than it takes on disk, and every read here is bounded.
pub const MAX_HEAD_BYTES: u64 = 256 << 20;

/// The content HEAD holds for `file` (a path inside a work tree), read
/// within [`super::TIMEOUT`]. Err says why it cannot be told.
pub fn file_at_head(file: &Path) -> Result<AtHead, String> {
    let file = file.to_path_buf();
    super::off_thread(super::TIMEOUT, move || read_now(&file))
}

fn read_now(file: &Path) -> Result<AtHead, String> {
    let (Some(folder), Some(name)) = (file.parent(), file.file_name()) else {
        return Err("the path names no file".into());
    };
    let repo = Repo::open(folder)?;
    let Some(head) = repo.head else {
        return Ok(AtHead::NoCommit);
    };
    let mut buf = Vec::new();
    let tree = repo
        .odb
        .find_commit(&head, &mut buf)
        .map_err(|e| format!("HEAD's commit cannot be read: {e}"))?
        .tree();
    let path = format!("{}{}", repo.prefix, name.to_string_lossy());
    let Some((id, mode)) = Trees::default().entry(&repo.odb, tree, &path) else {
        return Ok(AtHead::Absent);
    };
    if !mode.is_blob() {
        return Ok(AtHead::Absent);
    }
    // The header says the size before anything is inflated.
    let header = gix_object::FindHeader::try_header(&repo.odb, &id)
        .map_err(|e| format!("HEAD's copy cannot be read: {e}"))?
        .ok_or("HEAD's copy is missing from git's objects")?;
    if header.size > MAX_HEAD_BYTES {
        return Ok(AtHead::TooLarge { bytes: header.size });
    }
    let blob = repo
        .odb
        .find_blob(&id, &mut buf)
        .map_err(|e| format!("HEAD's copy cannot be read: {e}"))?;
    Ok(AtHead::Blob {
        bytes: blob.data.to_vec(),
        id: id.to_string(),
    })
}
