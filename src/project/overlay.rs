//! The editor's text beats the disk's: a file open in the editor is, for
//! the workspace checks, the clean and a target document's lenses, what
//! the editor holds (its size, sha256 and text) until it is saved. The
//! rule is [`EditorText::over`], once: the checks lay a target document's
//! text over the facts they read ([`lay`]), the clean lays every open
//! document under a report's root over them ([`Overlay`]), and a target
//! document's lenses compare its text with the disk's ([`TargetTexts`]).
//! The caller hands in the editor's texts; what is read here is the disk.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use report_core::clean_edit::Targets;
use report_core::ide::targets::{TargetSpan, stale_detail};
use report_core::paths::{path_key, same_path};
use report_core::project_checks::{FileFacts, FileKind, WorkspaceFacts};

use super::files::{RelativeKeys, sha256_of};

/// A file's text as the editor holds it, as a file's facts say it.
#[derive(Debug)]
pub struct EditorText {
    pub size: u64,
    pub sha256: String,
    pub text: Arc<str>,
}

/// Whether the facts laid keep the editor's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepText {
    /// Always: the clean edits the text.
    Always,
    /// Only where the disk's facts kept the file's (the checks asked for it).
    WhereKept,
}

impl EditorText {
    /// `text`, hashed.
    pub fn new(text: String) -> EditorText {
        EditorText {
            size: text.len() as u64,
            sha256: sha256_of([text.as_bytes()]),
            text: text.into(),
        }
    }

    /// The facts of a file the editor holds with this text, over what the
    /// disk said of it (`disk`): a regular file of the editor's size,
    /// sha256 and text; the rest (its time, its last commit) the disk's.
    pub fn over(&self, disk: &FileFacts, keep: KeepText) -> FileFacts {
        let text = match keep {
            KeepText::Always => Some(self.text.clone()),
            KeepText::WhereKept => disk.text.as_ref().map(|_| self.text.clone()),
        };
        FileFacts {
            kind: FileKind::File,
            size: self.size,
            sha256: Some(self.sha256.clone()),
            text,
            ..disk.clone()
        }
    }
}

/// Lays the editor's text of the file at `key` (as compared,
/// `paths::path_key`) over the facts of the files the report writes as
/// that path, the text where the facts keep one; a file that is not one on
/// disk keeps its facts. Returns the paths, as the report writes them,
/// whose facts changed.
pub fn lay(facts: &mut WorkspaceFacts, key: &str, editor: &EditorText) -> HashSet<String> {
    let mut changed = HashSet::new();
    for (written, file) in facts.files.iter_mut() {
        if file.kind != FileKind::File
            || !same_path(written, key)
            || file.sha256.as_deref() == Some(editor.sha256.as_str())
        {
            continue;
        }
        *file = editor.over(file, KeepText::WhereKept);
        changed.insert(written.clone());
    }
    changed
}

/// The documents the editor has open under a report's root, by
/// [`path_key`]: the facts their texts give their files, laid over the
/// disk's (what the clean edits), and which document each is.
pub struct Overlay {
    root: PathBuf,
    facts: HashMap<String, FileFacts>,
    open: HashMap<String, Open>,
}

/// One open document under the root: its place in the caller's list, and
/// its text (None when the editor's text is not known).
struct Open {
    index: usize,
    text: Option<Arc<EditorText>>,
}

impl Overlay {
    /// The documents of `paths` (each open document's file, in the caller's
    /// order) that lie under `root`, as written or resolved; `text_of(i)`
    /// is the editor's text of the `i`th, asked only for those, None when
    /// it is not known (out of sync: its file keeps the disk's facts, and
    /// counts as unsaved).
    pub fn new(
        root: &Path,
        paths: impl IntoIterator<Item = Option<PathBuf>>,
        mut text_of: impl FnMut(usize) -> Option<Arc<EditorText>>,
        disk: &WorkspaceFacts,
    ) -> Overlay {
        let root: PathBuf = root.components().collect();
        let keys = RelativeKeys::new(&root);
        let mut overlay = Overlay {
            root,
            facts: HashMap::new(),
            open: HashMap::new(),
        };
        for (index, path) in paths.into_iter().enumerate() {
            let Some(key) = path.and_then(|path| keys.key(&path)) else {
                continue;
            };
            let text = text_of(index);
            if let Some(text) = &text {
                let on_disk = disk
                    .file(&key)
                    .cloned()
                    .unwrap_or_else(|| FileFacts::of_kind(FileKind::File));
                let facts = text.over(&on_disk, KeepText::Always);
                overlay.facts.insert(key.clone(), facts);
            }
            overlay.open.insert(key, Open { index, text });
        }
        overlay
    }

    /// The files a clean reads: the project's facts with the open
    /// documents' over them.
    pub fn targets<'f>(&'f self, disk: &'f WorkspaceFacts) -> Targets<'f> {
        Targets {
            facts: disk,
            open: &self.facts,
        }
    }

    /// Which of the caller's documents is open at `path` (as the report
    /// writes it), if one is.
    pub fn open(&self, path: &str) -> Option<usize> {
        self.open.get(&path_key(path)).map(|open| open.index)
    }

    /// Where `path` (as the report writes it) is: joined to the root.
    pub fn path(&self, path: &str) -> PathBuf {
        self.root
            .join(path.trim_end_matches('/'))
            .components()
            .collect()
    }

    /// Why deleting `path` would lose what the editor holds: a document
    /// open at it or under it whose text is not the file's on disk (or
    /// is not known).
    pub fn unsaved_under(&self, path: &str) -> Option<String> {
        let key = path_key(path);
        let inside = |other: &str| match key.ends_with('/') {
            true => other.starts_with(&key),
            false => other == key,
        };
        let (other, _) = self.open.iter().find(|(other, open)| {
            inside(other)
                && open.text.as_ref().is_none_or(|text| {
                    let disk = std::fs::read(self.root.join(other.as_str()));
                    !disk.is_ok_and(|bytes| bytes == text.text.as_bytes())
                })
        })?;
        Some(format!(
            "`{other}` has unsaved changes in the editor: save or close it first"
        ))
    }
}

/// Files larger than this are not read to say what changed in them.
const MAX_DISK_READ: u64 = 16 << 20;

/// A target document's texts, to tell whether an entry is stale and how:
/// the editor's, and the file on disk (the text an entry's edit was made
/// for, while its sha256 is the expected one), read when asked.
pub struct TargetTexts {
    editor: Arc<EditorText>,
    disk: Option<(String, String)>,
}

impl TargetTexts {
    /// The editor's text of a target document, and the text of its file at
    /// `disk` when given (read, if a regular file of at most 16 MiB, to say
    /// what changed).
    pub fn read(editor: Arc<EditorText>, disk: Option<&Path>) -> TargetTexts {
        let disk = disk
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() <= MAX_DISK_READ))
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|text| {
                let sha = sha256_of([text.as_bytes()]);
                (text, sha)
            });
        TargetTexts { editor, disk }
    }

    /// Whether the editor's text is not the one `span`'s entry expects.
    pub fn stale_for(&self, span: &TargetSpan) -> bool {
        span.stale_for(&self.editor.sha256)
    }

    /// Why the editor's text is stale for `span`, or None when it is not.
    pub fn stale(&self, span: &TargetSpan) -> Option<String> {
        if !self.stale_for(span) {
            return None;
        }
        Some(match &self.disk {
            Some((text, sha)) if !span.stale_for(sha) => {
                stale_detail(span, text, &self.editor.text)
            }
            _ => "the text changed since the report".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: Option<&str>, sha256: &str) -> FileFacts {
        FileFacts {
            size: 3,
            modified_ms: Some(7),
            sha256: Some(sha256.into()),
            text: text.map(Arc::from),
            last_commit: Some("abc subject".into()),
            ..FileFacts::of_kind(FileKind::File)
        }
    }

    /// One rule for the checks and the clean: the editor's size, sha256
    /// and text, the disk's time and commit; the checks keep the text only
    /// where they read it, and a path that is no file keeps its facts.
    #[test]
    fn the_editors_text_is_laid_over_the_disks_facts() {
        let editor = EditorText::new("漢字 new\n".to_string());
        assert_eq!(editor.size, "漢字 new\n".len() as u64);
        assert_eq!(editor.sha256, sha256_of(["漢字 ".as_bytes(), b"new\n"]));
        let laid = editor.over(&file(None, "old"), KeepText::Always);
        assert_eq!(laid.text.as_deref(), Some("漢字 new\n"));
        assert_eq!(
            (laid.modified_ms, laid.last_commit.as_deref()),
            (Some(7), Some("abc subject"))
        );
        assert_eq!(
            editor.over(&file(None, "old"), KeepText::WhereKept).text,
            None
        );
        let mut facts = WorkspaceFacts::default();
        facts
            .files
            .insert("./docs/a.md".into(), file(Some("old\n"), "old"));
        facts.files.insert("docs/a.md".into(), file(None, "old"));
        facts.files.insert("docs/b.md".into(), file(None, "old"));
        facts
            .files
            .insert("docs/a.md/".into(), FileFacts::of_kind(FileKind::Directory));
        let changed = lay(&mut facts, "docs/a.md", &editor);
        assert_eq!(
            changed,
            HashSet::from(["./docs/a.md".to_string(), "docs/a.md".to_string()])
        );
        assert_eq!(
            facts.files["./docs/a.md"].text.as_deref(),
            Some("漢字 new\n")
        );
        assert_eq!(facts.files["docs/a.md"].text, None);
        assert_eq!(
            facts.files["docs/a.md"].sha256.as_deref(),
            Some(editor.sha256.as_str())
        );
        assert_eq!(facts.files["docs/b.md"].sha256.as_deref(), Some("old"));
        // Laid again, the same text changes nothing.
        assert!(lay(&mut facts, "docs/a.md", &editor).is_empty());
    }

    /// The open documents under the root by key, as written or through a
    /// symlinked root; one out of sync is keyed but has no facts, and is
    /// unsaved; one whose text is the disk's is not.
    #[test]
    fn the_open_documents_under_the_root_are_laid_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/a.md"), "saved\n").unwrap();
        std::fs::write(root.join("docs/b.md"), "saved\n").unwrap();
        std::os::unix::fs::symlink(&root, dir.path().join("link")).unwrap();
        let paths = vec![
            Some(root.join("docs/a.md")),
            Some(dir.path().join("link/docs/b.md")),
            Some(root.join("./docs/c.md")),
            Some(dir.path().join("elsewhere.md")),
            None,
        ];
        let texts = ["saved\n", "typed\n", "?", "x", "x"];
        let mut asked = Vec::new();
        let overlay = Overlay::new(
            &root.join("."),
            paths,
            |i| {
                asked.push(i);
                (i != 2).then(|| Arc::new(EditorText::new(texts[i].to_string())))
            },
            &WorkspaceFacts::default(),
        );
        assert_eq!(asked, [0, 1, 2]);
        assert_eq!(overlay.open("./docs/a.md"), Some(0));
        assert_eq!(overlay.open("docs/b.md"), Some(1));
        assert_eq!(overlay.open("docs/c.md"), Some(2));
        assert_eq!(overlay.path("docs/"), root.join("docs"));
        let disk = WorkspaceFacts::default();
        let targets = overlay.targets(&disk);
        assert_eq!(
            targets.file("docs/b.md").unwrap().text.as_deref(),
            Some("typed\n")
        );
        assert!(targets.file("docs/c.md").is_none());
        assert_eq!(overlay.unsaved_under("docs/a.md"), None);
        assert!(
            overlay
                .unsaved_under("docs/b.md")
                .unwrap()
                .contains("`docs/b.md`")
        );
        assert!(overlay.unsaved_under("docs/c.md").is_some());
        assert!(overlay.unsaved_under("docs/").is_some());
    }
}
