//! Which paths git would transform on their way into the index: the
//! attributes `filter`, `working-tree-encoding`, `ident` (always) and
//! `text`, `eol`, `crlf` (line endings), read from every attributes file
//! git reads, in git's order of precedence, through `gix-attributes`
//! (patterns and macros as git matches them). Nothing is run: a filter is
//! only named here, and a named filter makes a path undecided.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gix_attributes::search::{MetadataCollection, Outcome};
use gix_attributes::{Search, StateRef};

use super::repo::read_small;

const SELECTED: [&str; 6] = [
    "filter",
    "working-tree-encoding",
    "ident",
    "text",
    "eol",
    "crlf",
];

/// What git's clean conversion could do to a path's bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum Transform {
    /// Nothing: the raw bytes are what git hashes.
    None,
    /// Line endings may be converted (CRLF to LF), so the bytes decide
    /// only when they hold no CR.
    LineEndings(String),
    /// The content may be changed whatever it is: never decided by reading.
    Always(String),
}

/// The attributes files of one repository, read once each.
pub struct Attributes {
    work_dir: PathBuf,
    /// System and global files, lowest precedence first, and `info/attributes`.
    globals: Vec<(PathBuf, Vec<u8>)>,
    info: Option<(PathBuf, Vec<u8>)>,
    /// Each folder's `.gitattributes` (repository-relative folder, "" at the top).
    folders: HashMap<String, Option<Vec<u8>>>,
}

impl Attributes {
    pub fn new(work_dir: &Path, info_attributes: &Path) -> Attributes {
        let globals = global_files()
            .into_iter()
            .filter_map(|path| Some((path.clone(), read_small(&path)?)))
            .collect();
        let info = read_small(info_attributes).map(|bytes| (info_attributes.to_path_buf(), bytes));
        Attributes {
            work_dir: work_dir.to_path_buf(),
            globals,
            info,
            folders: HashMap::new(),
        }
    }

    /// The transform git's attributes name for `path` (relative to the work tree's top).
    pub fn transform(&mut self, path: &str) -> Transform {
        let mut collection = MetadataCollection::default();
        let mut buf = Vec::new();
        let Ok(mut search) =
            Search::new_globals(std::iter::empty::<PathBuf>(), &mut buf, &mut collection)
        else {
            return Transform::Always("its attributes could not be read".into());
        };
        for (source, bytes) in &self.globals {
            let _ = search.add_patterns_buffer(bytes, source.clone(), None, &mut collection, true);
        }
        // Each folder from the top down: a deeper file takes precedence.
        let mut folder = String::new();
        let mut components = path.split('/').peekable();
        while let Some(component) = components.next() {
            if let Some(bytes) = self.folder_file(&folder) {
                let source = self.work_dir.join(&folder).join(".gitattributes");
                // Macros are git's only in the top-level file.
                let macros = folder.is_empty();
                let _ = search.add_patterns_buffer(
                    &bytes,
                    source,
                    Some(&self.work_dir),
                    &mut collection,
                    macros,
                );
            }
            if components.peek().is_none() {
                break;
            }
            folder.push_str(component);
            folder.push('/');
        }
        if let Some((source, bytes)) = &self.info {
            let _ = search.add_patterns_buffer(bytes, source.clone(), None, &mut collection, true);
        }
        let mut outcome = Outcome::default();
        outcome.initialize_with_selection(&collection, SELECTED);
        search.pattern_matching_relative_path(
            path.into(),
            gix_glob::pattern::Case::Sensitive,
            Some(false),
            &mut outcome,
        );
        let mut line_endings = None;
        for found in outcome.iter_selected() {
            let name = found.assignment.name.as_str();
            let state = found.assignment.state;
            let named = match state {
                StateRef::Set => name.to_string(),
                StateRef::Value(value) => format!("{name}={}", value.as_bstr()),
                StateRef::Unset | StateRef::Unspecified => continue,
            };
            match name {
                "filter" | "working-tree-encoding" | "ident" => {
                    return Transform::Always(format!(
                        "the `{named}` attribute applies: git would transform the content (report-lsp runs no filter), so a raw comparison cannot decide"
                    ));
                }
                _ => line_endings = Some(named),
            }
        }
        match line_endings {
            Some(named) => Transform::LineEndings(named),
            None => Transform::None,
        }
    }

    fn folder_file(&mut self, folder: &str) -> Option<Vec<u8>> {
        self.folders
            .entry(folder.to_string())
            .or_insert_with(|| read_small(&self.work_dir.join(folder).join(".gitattributes")))
            .clone()
    }
}

/// The system and global attributes files, as git finds them: the user's
/// `core.attributesFile` (from their own config, read as text: no include
/// is followed) or `$XDG_CONFIG_HOME/git/attributes`.
fn global_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("/etc/gitattributes")];
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let configs = [
        xdg.as_ref().map(|x| x.join("git").join("config")),
        home.as_ref().map(|h| h.join(".gitconfig")),
    ];
    let named = configs
        .iter()
        .flatten()
        .filter_map(|c| read_small(c))
        .filter_map(|text| core_attributes_file(&String::from_utf8_lossy(&text)))
        .next_back();
    match named {
        Some(path) => files.push(match (path.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(path),
        }),
        None => files.extend(xdg.map(|x| x.join("git").join("attributes"))),
    }
    files
}

/// `core.attributesFile` in one config text.
fn core_attributes_file(text: &str) -> Option<String> {
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("core");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_core && key.trim().eq_ignore_ascii_case("attributesfile") {
            found = Some(value.trim().trim_matches('"').to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_attributes_file_is_found_in_the_core_section_only() {
        let text = "[user]\n attributesfile = no\n[core]\n\tattributesFile = \"~/attrs\"\n";
        assert_eq!(core_attributes_file(text).as_deref(), Some("~/attrs"));
        assert_eq!(core_attributes_file("[user]\nattributesfile = x\n"), None);
    }

    fn transform(files: &[(&str, &str)], info: &str, path: &str) -> Transform {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let at = dir.path().join(name);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, text).unwrap();
        }
        let info_path = dir.path().join("info-attributes");
        std::fs::write(&info_path, info).unwrap();
        let mut attributes = Attributes::new(dir.path(), &info_path);
        attributes.globals.clear();
        attributes.transform(path)
    }

    #[test]
    fn filters_and_line_endings_follow_gits_precedence_and_macros() {
        assert_eq!(transform(&[], "", "a.md"), Transform::None);
        assert!(matches!(
            transform(&[], "* filter=x", "docs/a.md"),
            Transform::Always(why) if why.contains("`filter=x`")
        ));
        assert_eq!(
            transform(&[(".gitattributes", "* text=auto\n")], "", "a.md"),
            Transform::LineEndings("text=auto".into())
        );
        // A deeper file overrides the top one; info/attributes overrides both.
        let files = [
            (".gitattributes", "*.md filter=lfs\n"),
            ("docs/.gitattributes", "*.md -filter\n"),
        ];
        assert_eq!(transform(&files, "", "docs/a.md"), Transform::None);
        assert!(matches!(
            transform(&files, "", "a.md"),
            Transform::Always(_)
        ));
        assert!(matches!(
            transform(&files, "docs/a.md ident", "docs/a.md"),
            Transform::Always(why) if why.contains("`ident`")
        ));
        // A macro defined at the top expands wherever it is used.
        let macros = [(".gitattributes", "[attr]evil filter=x\n*.md evil\n")];
        assert!(matches!(
            transform(&macros, "", "d/a.md"),
            Transform::Always(_)
        ));
        // `binary` unsets text: nothing to convert.
        assert_eq!(
            transform(&[(".gitattributes", "* text\n*.md binary\n")], "", "a.md"),
            Transform::None
        );
    }
}
