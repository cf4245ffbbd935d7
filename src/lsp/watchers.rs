//! The file watchers the client is asked for
//! (`workspace/didChangeWatchedFiles`, registered dynamically where the
//! client allows it). Only what the server reads: every JSON file (a
//! report, by its name or its content; `conventions.json`) and the report
//! globs that name other files, the project files, git's index and HEAD,
//! and the files the reports name, one glob per extension (`**/*.md`): a
//! few globs for thousands of files, and never `**/*`, which has a client send every change in the
//! tree (a build's thousands of files). The folders holding reports are
//! watched by name: a client says a folder was deleted or renamed as the
//! folder alone. The globs are registered again, under a new id, when what the
//! reports name or the settings change.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types as lsp;

use super::session::Session;

/// The globs of the files the server reads whatever the reports name.
/// Every JSON file: the search takes one whose content is a report's, by
/// any name (the report globs that name JSON files, and
/// `conventions.json`, need nothing more).
const ALWAYS: &[&str] = &[
    "**/*.json",
    "**/report-lsp.toml",
    "**/pyproject.toml",
    "**/.git/index",
    "**/.git/HEAD",
];

/// The registrations' id, numbered: a new set is registered before the
/// old one is taken back, so no change falls between the two.
const REGISTRATION_ID: &str = "report-lsp/watched-files";

/// How long the client is waited for to answer a registration.
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_secs(30);

/// How long a burst of changes is let settle before the globs are worked
/// out again: the search puts each report it finds in the store.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(200);

/// `initialized`: registers the globs when the client allows it, and again
/// each time they change: told by the session's [`Watched`], and by
/// `found_changes`, the changes of the reports found on disk, whose named
/// files' globs `found` gives.
///
/// [`Watched`]: super::session::Watched
pub fn start(
    client: &Client,
    session: &Arc<Session>,
    found: impl Fn() -> BTreeSet<String> + Send + Sync + 'static,
    mut found_changes: tokio::sync::watch::Receiver<u64>,
) {
    if !session.capabilities().watches_files {
        return;
    }
    let (poke, mut poked) = tokio::sync::mpsc::unbounded_channel();
    if !session.watched.tell(poke) {
        return;
    }
    let (client, session, found) = (client.clone(), session.clone(), Arc::new(found));
    tokio::spawn(async move {
        let mut registered: Option<(String, BTreeSet<String>)> = None;
        let mut serial = 0u64;
        loop {
            // A walk of every found report's named files: off the runtime.
            let found = found.clone();
            let found = tokio::task::spawn_blocking(move || found()).await;
            let globs = wanted(&session, found.unwrap_or_default());
            if registered.as_ref().map(|(_, g)| g) != Some(&globs) {
                serial += 1;
                let id = format!("{REGISTRATION_ID}-{serial}");
                let asked = client.register_capability(vec![registration(&id, &globs)]);
                // A client that never answers does not stop the next registration.
                let answered = tokio::time::timeout(ANSWER_WITHIN, asked).await;
                let answered = answered.unwrap_or_else(|_| {
                    Err(tower_lsp_server::jsonrpc::Error::new(
                        tower_lsp_server::jsonrpc::ErrorCode::RequestCancelled,
                    ))
                });
                match answered {
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
                change = found_changes.changed() => if change.is_err() { return },
            }
            // A burst of changes is one registration.
            tokio::time::sleep(SETTLE).await;
            while poked.try_recv().is_ok() {}
            found_changes.mark_unchanged();
        }
    });
}

/// Every glob the server wants watched now, `found` those of the files
/// the reports found on disk name.
fn wanted(session: &Session, found: BTreeSet<String>) -> BTreeSet<String> {
    let mut globs: BTreeSet<String> = ALWAYS.iter().map(|g| g.to_string()).collect();
    globs.extend(session.report_globs().iter().filter_map(|g| report_glob(g)));
    globs.extend(session.watched.open_globs());
    globs.extend(found);
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
    // `.gitignore` is a name, not an extension.
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() && !extension.is_empty() => {
            Some(format!("**/*.{}", plain(extension)))
        }
        _ => Some(format!("**/{}", plain(name))),
    }
}

/// The folders that hold `reports` below the workspace `folders`, each as
/// `**/NAME`: a client reports a folder deleted or renamed as the folder
/// alone, which no report glob matches, and its reports must be forgotten.
pub fn folders_holding<'p>(
    reports: impl IntoIterator<Item = &'p Path>,
    folders: &[std::path::PathBuf],
) -> BTreeSet<String> {
    let mut globs = BTreeSet::new();
    for report in reports {
        let Some(folder) = folders.iter().find(|f| report.starts_with(f)) else {
            continue;
        };
        for holding in report.ancestors().skip(1).take_while(|a| a != folder) {
            globs.extend(
                holding
                    .file_name()
                    .and_then(|n| n.to_str())
                    .map(|name| format!("**/{}", plain(name))),
            );
        }
    }
    globs
}

/// `text` with what the glob syntax reads as a pattern (`*?[]{}`) made
/// to match any one character.
fn plain(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '*' | '?' | '[' | ']' | '{' | '}' => '?',
            c => c,
        })
        .collect()
}

/// A report glob of the settings or a project file as the client gets
/// it: none for one that names JSON files (`**/*.json` covers them), and a
/// character `globset::escape` wrote as `[c]` (a project file's folder
/// anchors its globs) as `?`, which every client's glob syntax reads.
fn report_glob(pattern: &str) -> Option<String> {
    if pattern.ends_with(".json") {
        return None;
    }
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(c) = rest.chars().next() {
        let escaped = rest.strip_prefix('[').and_then(|r| {
            let mut chars = r.chars();
            let inner = chars.next()?;
            (chars.next() == Some(']') && "*?[]{}".contains(inner)).then_some(inner)
        });
        match escaped {
            Some(_) => {
                out.push('?');
                rest = &rest[3..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    Some(out)
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

    #[test]
    fn a_report_glob_goes_to_the_client_unescaped_or_not_at_all_when_json_covers_it() {
        assert_eq!(report_glob("**/*.report.json"), None);
        assert_eq!(report_glob("**/*.report"), Some("**/*.report".into()));
        let globs =
            report_core::selection::ReportGlobs::under("/w/[项目] {a}/", &["out/*.rep"]).unwrap();
        let anchored = &globs.patterns()[0];
        assert_eq!(
            report_glob(anchored),
            Some("/w/?项目? ?a?/out/*.rep".into())
        );
    }

    #[test]
    fn the_folders_holding_reports_below_a_workspace_folder_are_watched_by_name() {
        let folders = ["/w/一".into(), "/v".into()];
        let globs = folders_holding(
            [
                "/w/一/reports/2026/a.report.json",
                "/w/一/b.report.json",
                "/v/x/[y]/c.report.json",
                "/elsewhere/d/e.report.json",
            ]
            .map(Path::new),
            &folders,
        );
        let expected: BTreeSet<String> = ["**/reports", "**/2026", "**/x", "**/?y?"]
            .map(String::from)
            .into();
        assert_eq!(globs, expected);
    }
}
