//! The URIs of the project's files a report names, for document links and
//! go to definition: a file becomes a URI only when it is there inside the
//! workspace root. Handlers and the analysis threads use it; it uses
//! neither.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use report_core::project_checks::WorkspaceFacts;
use tower_lsp_server::ls_types::Uri;

use crate::project::files;

/// The file's URI, when it is there inside `root`. Its name is
/// percent-encoded (non-ASCII bytes as UTF-8) by the URI type.
pub fn file_uri(root: &Path, path: &str) -> Option<Uri> {
    // `scan.project_root` "." leaves a `/./` in the root: components drop it.
    let path: PathBuf = files::inside(root, path)?.components().collect();
    Uri::from_file_path(path)
}

/// The URIs of the files a document names, each looked up once per
/// workspace check: kept until the workspace thread reports new facts for
/// the document (its first check, a save, a named file changed on disk),
/// so that the links asked for after every change cost no file-system call.
#[derive(Default)]
pub struct UriCache {
    /// The facts and root it was filled under: the facts by identity (a
    /// weak reference, so that their address is not reused while it is kept).
    under: Option<(Weak<WorkspaceFacts>, PathBuf)>,
    inside: Option<files::Inside>,
    uris: HashMap<String, Option<Uri>>,
}

impl UriCache {
    /// Forgets what it knows unless it was filled under these facts and root.
    pub fn renew(&mut self, facts: Option<&Arc<WorkspaceFacts>>, root: &Path) {
        let same = match (&self.under, facts) {
            (Some((kept, kept_root)), Some(facts)) => {
                Weak::ptr_eq(kept, &Arc::downgrade(facts)) && kept_root == root
            }
            _ => false,
        };
        if !same {
            *self = UriCache {
                under: facts.map(|f| (Arc::downgrade(f), root.to_path_buf())),
                inside: files::Inside::new(root),
                uris: HashMap::new(),
            };
        }
    }

    /// Keeps what it knows under `facts`, which replace those it was filled
    /// under without a file's kind or place changed (an open document's
    /// text laid over its file's facts).
    pub fn carry_to(&mut self, facts: &Arc<WorkspaceFacts>) {
        if let Some((kept, _)) = &mut self.under {
            *kept = Arc::downgrade(facts);
        }
    }

    /// [`file_uri`] of `path`, looked up once.
    pub fn uri(&mut self, path: &str) -> Option<Uri> {
        if let Some(uri) = self.uris.get(path) {
            return uri.clone();
        }
        let uri = self
            .inside
            .as_mut()
            .and_then(|inside| inside.get(path))
            .and_then(|found| Uri::from_file_path(found.components().collect::<PathBuf>()));
        self.uris.insert(path.to_string(), uri.clone());
        uri
    }
}
