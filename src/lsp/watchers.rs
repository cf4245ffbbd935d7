//! The file watchers the client is asked for
//! (`workspace/didChangeWatchedFiles`, registered dynamically where the
//! client allows it). Only what the server reads: the reports (the report
//! globs of the settings and of the project files), the project files,
//! git's index and HEAD, `conventions.json`, and the files the reports
//! name, one glob per extension (`**/*.md`): a few globs for thousands of
//! files, and never `**/*`, which has a client send every change in the
//! tree (a build's thousands of files) and lsp-mode ask whether to watch it
//! all. The globs are registered again, under a new id, when what the
//! reports name or the settings change.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use super::found_reports::Store;
use super::session::{Session, lock};

/// The globs of the files the server reads whatever the reports name.
const ALWAYS: &[&str] = &[
    "**/report-lsp.toml",
    "**/pyproject.toml",
    "**/conventions.json",
    "**/.git/index",
    "**/.git/HEAD",
];

/// The registrations' id, numbered: a new set is registered before the
/// old one is taken back, so no change falls between the two.
const REGISTRATION_ID: &str = "report-lsp/watched-files";

/// What the open reports name, as globs, and the task that registers
/// them (the found reports' are read from the search's store).
#[derive(Default)]
pub struct Watched {
    /// The globs of the files each open report names (`project_thread`).
    open: Mutex<HashMap<Uri, BTreeSet<String>>>,
    /// Told that the globs may have changed; none before `initialized`.
    poke: Mutex<Option<tokio::sync::mpsc::UnboundedSender<()>>>,
    started: AtomicBool,
}

/// How long a burst of changes is let settle before the globs are worked
/// out again: the search puts each report it finds in the store.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(200);

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

    /// Something the globs come from changed (the settings, a project
    /// file): they are worked out again, and registered if they differ.
    pub fn changed(&self) {
        if let Some(poke) = lock(&self.poke).as_ref() {
            let _ = poke.send(());
        }
    }

    /// `initialized`: registers the globs when the client allows it, and
    /// again each time they change.
    pub fn start(&self, client: &Client, session: &Arc<Session>, store: &Arc<Store>) {
        if !session.capabilities().watches_files || self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let (poke, mut poked) = tokio::sync::mpsc::unbounded_channel();
        *lock(&self.poke) = Some(poke);
        let (client, session, store) = (client.clone(), session.clone(), store.clone());
        let mut found = store.subscribe();
        tokio::spawn(async move {
            let mut registered: Option<(String, BTreeSet<String>)> = None;
            let mut serial = 0u64;
            loop {
                let globs = wanted(&session, &store);
                if registered.as_ref().map(|(_, g)| g) != Some(&globs) {
                    serial += 1;
                    let id = format!("{REGISTRATION_ID}-{serial}");
                    match client
                        .register_capability(vec![registration(&id, &globs)])
                        .await
                    {
                        Ok(()) => {
                            if let Some((old, _)) = registered.replace((id, globs)) {
                                let gone = lsp::Unregistration {
                                    id: old,
                                    method: "workspace/didChangeWatchedFiles".into(),
                                };
                                let _ = client.unregister_capability(vec![gone]).await;
                            }
                        }
                        Err(error) => {
                            tracing::warn!("the client refused the file watchers: {error}");
                        }
                    }
                }
                tokio::select! {
                    poke = poked.recv() => if poke.is_none() { return },
                    change = found.changed() => if change.is_err() { return },
                }
                // A burst of changes is one registration.
                tokio::time::sleep(SETTLE).await;
                while poked.try_recv().is_ok() {}
                found.mark_unchanged();
            }
        });
    }
}

/// Every glob the server wants watched now.
fn wanted(session: &Session, store: &Store) -> BTreeSet<String> {
    let mut globs: BTreeSet<String> = ALWAYS.iter().map(|g| g.to_string()).collect();
    globs.extend(session.report_globs());
    globs.extend(lock(&session.watched.open).values().flatten().cloned());
    globs.extend(store.read(|state| globs_naming(state.named_files())));
    globs
}

fn registration(id: &str, globs: &BTreeSet<String>) -> lsp::Registration {
    let options = lsp::DidChangeWatchedFilesRegistrationOptions {
        watchers: globs
            .iter()
            .map(|glob| lsp::FileSystemWatcher {
                glob_pattern: lsp::GlobPattern::String(glob.clone()),
                kind: None,
            })
            .collect(),
    };
    lsp::Registration {
        id: id.into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: serde_json::to_value(options).ok(),
    }
}

/// The glob that covers a file a report names: `**/*.md` by its
/// extension, else `**/LICENSE` by its name. What the glob syntax reads
/// as a pattern (`*?[]{}`) matches any one character instead.
pub fn glob_naming(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let plain = |text: &str| -> String {
        text.chars()
            .map(|c| match c {
                '*' | '?' | '[' | ']' | '{' | '}' => '?',
                c => c,
            })
            .collect()
    };
    // `.gitignore` is a name, not an extension.
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() && !extension.is_empty() => {
            Some(format!("**/*.{}", plain(extension)))
        }
        _ => Some(format!("**/{}", plain(name))),
    }
}

/// [`glob_naming`] of each path.
pub fn globs_naming<'p>(paths: impl IntoIterator<Item = &'p Path>) -> BTreeSet<String> {
    paths.into_iter().filter_map(glob_naming).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_file_is_watched_by_its_extension_else_by_its_name() {
        let globs = globs_naming(
            [
                "/w/docs/a.md",
                "/w/docs/深/b 😀.md",
                "/w/notes/c.txt",
                "/w/LICENSE",
                "/w/.gitignore",
                "/w/docs/",
                "/w/odd/x.m[d]",
                "/w/odd/{y}",
            ]
            .map(Path::new),
        );
        let expected: BTreeSet<String> = [
            "**/*.md",
            "**/*.txt",
            "**/LICENSE",
            "**/.gitignore",
            "**/docs",
            "**/*.m?d?",
            "**/?y?",
        ]
        .map(String::from)
        .into();
        assert_eq!(globs, expected);
        assert!(globs.iter().all(|g| g != "**/*"));
    }
}
