//! Workspace truth (invariant 13): the report checked against the project it
//! describes. The caller gathers plain facts (does a file exist, its kind,
//! size, mtime, sha256 and text, what git tracks and what is dirty, the
//! `conventions.json` text); the checks here judge them without any I/O.
//!
//! `request` says what the checks need of the project; `check` turns the
//! facts into diagnostics; `preview` renders the edit preview of the hover.

mod checks;
mod conventions;
mod preview;
mod recheck;
mod tokens;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::Analysis;
use crate::host::snapshot::ReportTree;
use crate::syntax::Node;
use crate::text::TextRange;
use crate::tier::Fact;

pub(crate) use checks::check_report;
pub(crate) use checks::{LiveFacts, anchor_of, live_derivation};
pub use checks::{check, root_outside_workspace};
pub use conventions::{Convention, parse_conventions};
pub use preview::{hover, hover_at};
pub use recheck::recheck;
pub use tokens::{TokenCounts, TokenSpan, span_text, token_span};

/// What the caller found at one project-relative path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileKind {
    File,
    Directory,
    Missing,
    /// Not read on purpose: absolute, `..`, or a symlink resolving outside the root.
    Refused(String),
    /// There, but not read: a FIFO, a device, too large, permission denied.
    Unreadable(String),
}

/// The facts about one path, as the caller gathered them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFacts {
    pub kind: FileKind,
    pub size: u64,
    /// Modification time in milliseconds since the Unix epoch.
    pub modified_ms: Option<i64>,
    /// Lowercase hex sha256 of the whole file (regular files only).
    pub sha256: Option<String>,
    /// The file's text when it is UTF-8 and small enough to read whole.
    pub text: Option<Arc<str>>,
    /// `<short hash> <subject>` of the last commit touching the path.
    pub last_commit: Option<String>,
}

impl FileFacts {
    pub fn missing() -> FileFacts {
        FileFacts::of_kind(FileKind::Missing)
    }

    pub fn of_kind(kind: FileKind) -> FileFacts {
        FileFacts {
            kind,
            size: 0,
            modified_ms: None,
            sha256: None,
            text: None,
            last_commit: None,
        }
    }
}

/// Git's view of the paths the live derivation asks about (each lifecycle
/// entry's `path`), read once per pass. A path not in `paths` was not
/// asked about, and its facts are unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitFacts {
    /// Keyed by the path as the report writes it (`dir/` for a folder).
    pub paths: HashMap<String, GitPath>,
}

/// What git's data says about one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitPath {
    /// In the index (a folder: some file under it is); unknown when
    /// reading cannot tell (inside a submodule: the worktree's reason says why).
    pub tracked: crate::tier::Fact,
    pub worktree: Worktree,
}

/// The worktree at a path against the index and HEAD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Worktree {
    /// The worktree's bytes are the index's blob, and the index's entry is HEAD's.
    Clean,
    /// A change, in words ("modified in the worktree", "untracked", …).
    Changed(String),
    /// Reading cannot decide it (a filter would transform the content, a
    /// submodule, a sparse checkout, …), and why.
    Undecided(String),
}

/// One fact of the live derivation, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sourced {
    pub fact: crate::tier::Fact,
    pub source: String,
}

impl GitFacts {
    /// Records what git's data says about `path`.
    pub fn insert(
        &mut self,
        path: &str,
        tracked: impl Into<crate::tier::Fact>,
        worktree: Worktree,
    ) {
        let tracked = tracked.into();
        self.paths
            .insert(path.to_string(), GitPath { tracked, worktree });
    }

    /// Whether git tracks `path` (a folder, `dir/`: any file under it).
    pub fn tracked(&self, path: &str) -> Sourced {
        match self.paths.get(path) {
            Some(GitPath {
                tracked: fact @ (Fact::Yes | Fact::No),
                ..
            }) => sourced(
                *fact == Fact::Yes,
                "from the git index",
                "not in the git index",
            ),
            Some(GitPath {
                worktree: Worktree::Undecided(why),
                ..
            }) => Sourced {
                fact: crate::tier::Fact::Unknown,
                source: why.clone(),
            },
            _ => not_asked(),
        }
    }

    /// Whether the worktree at `path` (under it, for a folder) is clean.
    pub fn clean(&self, path: &str) -> Sourced {
        let Some(found) = self.paths.get(path) else {
            return not_asked();
        };
        let (fact, source) = match &found.worktree {
            Worktree::Clean => (
                crate::tier::Fact::Yes,
                "the worktree matches the index and HEAD".to_string(),
            ),
            Worktree::Changed(what) => (crate::tier::Fact::No, what.clone()),
            Worktree::Undecided(why) => (crate::tier::Fact::Unknown, why.clone()),
        };
        Sourced { fact, source }
    }
}

fn not_asked() -> Sourced {
    Sourced {
        fact: crate::tier::Fact::Unknown,
        source: "git's data was not read for this path".into(),
    }
}

fn sourced(yes: bool, if_yes: &str, if_no: &str) -> Sourced {
    Sourced {
        fact: if yes {
            crate::tier::Fact::Yes
        } else {
            crate::tier::Fact::No
        },
        source: (if yes { if_yes } else { if_no }).into(),
    }
}

/// Everything the caller learnt about the project.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkspaceFacts {
    /// The root as shown to people; None when no root could be found.
    pub root: Option<String>,
    /// Keyed by the path as the report writes it. A B-tree: a big report's
    /// tens of thousands of paths take half the memory of a hash table.
    pub files: BTreeMap<String, FileFacts>,
    /// None when the root is not inside a git work tree (or git is missing).
    pub git: Option<GitFacts>,
    /// Why git facts are missing, for the hover ("git not found", …).
    pub git_absent: Option<String>,
    /// The text of `conventions.json` at the root, when there is one.
    pub conventions: Option<String>,
    /// The tokenizer's recounts of the spans `raw_tokens` claims; None when
    /// nothing was recounted (check 8 is then silent).
    pub tokens: Option<TokenCounts>,
    /// Why nothing of the project was read although it may be at hand (the
    /// editor's workspace checks are off, or its root lies outside every
    /// workspace folder): the hover says so where facts would show.
    pub not_read: Option<String>,
}

impl WorkspaceFacts {
    pub fn file(&self, path: &str) -> Option<&FileFacts> {
        self.files.get(path)
    }
}

/// What the checks will ask about one path: its text too, or only its stat.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathRequest {
    pub path: String,
    /// The file's text is needed (anchored lines, dedupe spans, previews).
    pub text: bool,
    /// Its sha256 is needed (an exact edit's `expected_sha256`).
    pub hash: bool,
    /// A lifecycle delete: its git state (tracked, clean) and its last
    /// commit (the preview) are wanted.
    pub lifecycle: bool,
}

/// What the checks ask of the project a report describes, read from the
/// report alone before any file is: where its root is, the facts of which
/// paths, and which spans' tokens are recounted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectRequest {
    /// Whether the text looks like a report (its envelope's fields): one
    /// that does not is not checked against a project.
    pub is_report: bool,
    /// `scan.project_root` as written, when it is a string.
    pub named_root: Option<String>,
    /// Where `scan.project_root` is (the start when it is absent): what
    /// is said of the root is said there.
    pub root_range: TextRange,
    /// Each path once, in a stable order.
    pub paths: Vec<PathRequest>,
    /// The spans whose tokens check 8 recounts, each once, sorted.
    pub token_spans: Vec<(String, TokenSpan)>,
}

/// What the checks of `analysis`'s report ask of its project.
pub fn request(analysis: &Analysis) -> ProjectRequest {
    request_of(&ReportTree::Whole(analysis), None)
}

/// `scan.project_root`, where a report names its project: read by the
/// checks, the request, the host and the server's and `check`'s search for
/// the root alike.
pub fn project_root_of(report: Node<'_>) -> Option<Node<'_>> {
    report.lookup("/scan/project_root")
}

/// [`request`] of a report however it is analysed (its root, then each entry).
/// `still` is asked now and then (see `cancel`).
pub(crate) fn request_of(
    report: &ReportTree<'_>,
    still: Option<crate::cancel::Wanted<'_>>,
) -> ProjectRequest {
    let Some(root) = report.root() else {
        return ProjectRequest::default();
    };
    let project_root = project_root_of(root);
    let mut wanted = PathsWanted::default();
    for item in items(root, "shortlist") {
        if let Some(path) = item
            .as_str()
            .or_else(|| item.get("path").and_then(Node::as_str))
        {
            wanted.want(path, false, false, false);
        }
    }
    let mut token_spans = Vec::new();
    let mut index = 0;
    report.each_entry(|entry, _, _| {
        crate::cancel::at_entry(index, still);
        index += 1;
        let span = wanted.entry(entry);
        token_spans.extend(span.map(|(path, span)| (path.to_string(), span)));
    });
    token_spans.sort();
    token_spans.dedup();
    let mut paths: Vec<PathRequest> = wanted.0.into_values().collect();
    paths.sort_by(|a, b| a.path.cmp(&b.path));
    ProjectRequest {
        is_report: crate::selection::looks_like_report(root),
        named_root: project_root.and_then(Node::as_str).map(str::to_string),
        root_range: report.back(project_root.map_or(TextRange::empty(0), |n| n.range())),
        paths,
        token_spans,
    }
}

/// The paths asked about so far, each once.
#[derive(Default)]
struct PathsWanted(HashMap<String, PathRequest>);

impl PathsWanted {
    fn want(&mut self, path: &str, text: bool, hash: bool, lifecycle: bool) {
        // Most paths are new: looked up before a key is made.
        let entry = match self.0.get_mut(path) {
            Some(entry) => entry,
            None => self
                .0
                .entry(path.to_string())
                .or_insert_with(|| PathRequest {
                    path: path.to_string(),
                    text: false,
                    hash: false,
                    lifecycle: false,
                }),
        };
        entry.text |= text;
        entry.hash |= hash;
        entry.lifecycle |= lifecycle;
    }

    /// What the checks of one entry read; the span check 8 recounts.
    fn entry<'t>(&mut self, entry: Node<'t>) -> Option<(&'t str, TokenSpan)> {
        let path = entry.get("path").and_then(Node::as_str)?;
        let edit = entry.get("exact_edit");
        let kind = edit.and_then(|e| e.get("kind")).and_then(Node::as_str);
        let is_delete = matches!(kind, Some("delete" | "extract-then-delete"));
        let hashed = edit.and_then(|e| e.get("expected_sha256")).is_some() && !path.ends_with('/');
        // A delete's text is read only for its token recount (check 8).
        let recounted = token_span(entry);
        let is_recounted = recounted.is_some();
        self.want(
            path,
            edit.is_some() && (!is_delete || is_recounted),
            hashed,
            is_delete,
        );
        for lifecycle in [
            entry.get("lifecycle"),
            edit.and_then(|e| e.get("lifecycle")),
        ]
        .into_iter()
        .flatten()
        {
            if let Some(served) = lifecycle.get("served_when_path").and_then(Node::as_str) {
                self.want(served, false, false, false);
            }
        }
        let canonical = edit
            .and_then(|e| e.get("canonical_ref"))
            .and_then(Node::as_str)
            .and_then(|r| crate::validate::parse_canonical_ref(r).ok());
        if let Some((target, _, _)) = canonical {
            self.want(target, true, false, false);
        }
        // Where a move-to-archive lands, for the clean's preview.
        if let Some(dest) = edit.and_then(|e| e.get("dest_path")).and_then(Node::as_str) {
            self.want(dest, true, false, false);
        }
        recounted
    }
}

pub(crate) fn items<'t>(root: Node<'t>, key: &str) -> impl Iterator<Item = Node<'t>> + 't {
    root.get(key)
        .and_then(|n| n.items())
        .into_iter()
        .flatten()
        .filter(|n| !n.is_broken())
}

/// Lines `start..=end` (1-based) of `text`, or None when the anchor passes
/// the end. Line endings are kept off; a final newline ends the last line.
pub(crate) fn anchored_lines(text: &str, start: u64, end: u64) -> Option<Vec<&str>> {
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
    if start == 0 || end < start || end > lines.len() {
        return None;
    }
    Some(lines[start - 1..end].to_vec())
}
