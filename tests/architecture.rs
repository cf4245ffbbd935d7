//! The layering of ARCHITECTURE.md, checked: the core crate's dependency
//! tree holds no protocol, async runtime, rope, thread pool or file walker,
//! so the compiler keeps it pure; the binary can start no program; only
//! `check --fix` writes files; and the server's handlers only translate.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// What only the server and the CLI may depend on.
const SERVER_ONLY: &[&str] = &[
    "tokio",
    "tower-lsp-server",
    "ls-types",
    "ropey",
    "rayon",
    "ignore",
    "tiktoken-rs",
    "futures",
    "tower-service",
    "libc",
    // Hashing files is the workspace checks' I/O; the core judges digests it is given.
    "sha2",
];

/// `cargo tree` of a package's normal dependencies: the listing, and each crate's name.
fn dependencies(package: &str) -> (String, Vec<String>) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            package,
            "-e",
            "normal",
        ])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8(output.stdout).unwrap();
    let names = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect();
    (tree, names)
}

#[test]
fn the_core_depends_on_no_server_crate() {
    let (tree, names) = dependencies("report-core");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert!(names.contains(&"report-core"), "{tree}");
    assert!(names.contains(&"serde_json"), "{tree}");
    // The owner's named tokenizer: syntax/lexer.rs is its only user
    // (`only_the_lexer_uses_jsonc_parser`).
    assert!(names.contains(&"jsonc-parser"), "{tree}");
    for forbidden in SERVER_ONLY {
        assert!(
            !names.contains(forbidden),
            "report-core depends on {forbidden}:\n{tree}"
        );
    }
}

#[test]
fn the_core_forbids_unsafe_code() {
    let lib = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/report-core/src/lib.rs"
    ))
    .unwrap();
    assert!(lib.contains("#![forbid(unsafe_code)]"));
}

/// Crates that can start a program (gitoxide's command, filter, credential
/// and transport layers, libgit2's bindings, and `gix`, which links them):
/// none may be built into the binary, so the workspace layer can only read.
const RUNS_PROGRAMS: &[&str] = &[
    "gix",
    "gix-command",
    "gix-filter",
    "gix-credentials",
    "gix-transport",
    "gix-prompt",
    "gix-protocol",
    "git2",
    "libgit2-sys",
];

#[test]
fn the_binary_links_no_crate_that_starts_git_programs() {
    let (tree, names) = dependencies("report-lsp");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // The in-process reader's crates are there …
    assert!(names.contains(&"gix-index"), "{tree}");
    assert!(names.contains(&"gix-odb"), "{tree}");
    // … and none that can run what a repository's config names.
    for forbidden in RUNS_PROGRAMS {
        assert!(
            !names.contains(forbidden),
            "report-lsp depends on {forbidden}:\n{tree}"
        );
    }
}

/// The code of `src/` before its test module, file by file: not the
/// test files (`tests.rs`, and the core's `fixture.rs`, which its lib.rs
/// compiles for tests only).
fn shipped_sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    let core_lib =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/report-core/src/lib.rs");
    let lib = std::fs::read_to_string(&core_lib).unwrap();
    assert!(
        lib.contains("#[cfg(test)]\nmod fixture;"),
        "the core's fixture.rs is compiled for tests only"
    );
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            shipped_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path
                .file_name()
                .is_some_and(|n| n != "tests.rs" && n != "fixture.rs")
        {
            let text = std::fs::read_to_string(&path).unwrap();
            // `mod tests {` only: a `mod tests;` declaration (host/, ide/,
            // syntax/) has the module's code after it.
            let shipped = match text.find("#[cfg(test)]\nmod tests {") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            out.push((path.display().to_string(), shipped));
        }
    }
}

/// What in `text` starts a thread.
fn thread_starts(text: &str) -> Vec<&'static str> {
    let code = code_of(text);
    [
        "thread::spawn",
        "thread::scope",
        "thread::Builder",
        "spawn_scoped",
    ]
    .into_iter()
    .filter(|start| code.contains(start))
    .collect()
}

/// The core starts no thread: it also runs where there are none
/// (WebAssembly), and a caller with threads lends them (`RunAll`).
#[test]
fn the_core_starts_no_thread() {
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/report-core/src");
    let mut sources = Vec::new();
    shipped_sources(&core, &mut sources);
    assert!(sources.len() > 50, "{} core sources", sources.len());
    let starting: Vec<_> = sources
        .iter()
        .map(|(path, text)| (path, thread_starts(text)))
        .filter(|(_, starts)| !starts.is_empty())
        .collect();
    assert!(starting.is_empty(), "the core starts threads: {starting:?}");
    // The scan finds what it looks for.
    assert_eq!(
        thread_starts("let t = std::thread::Builder::new().spawn_scoped(s, f);"),
        ["thread::Builder", "spawn_scoped"]
    );
    assert_eq!(
        thread_starts("// std::thread::scope(|s| ...)"),
        Vec::<&str>::new()
    );
}

#[test]
fn nothing_shipped_starts_a_process() {
    // The server and CLI, the core they are built on, and the WebAssembly module.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    shipped_sources(&root.join("src"), &mut sources);
    shipped_sources(&root.join("crates/report-core/src"), &mut sources);
    shipped_sources(&root.join("crates/report-wasm/src"), &mut sources);
    assert!(sources.len() > 100);
    for (path, text) in &sources {
        // gix-path can run `git config` to find git's installation
        // (`gix_path::env`, reached through `gix_attributes::Source::storage_location`).
        for forbidden in [
            "process::Command",
            "Command::new",
            "process::Stdio",
            "libc::exec",
            "libc::fork",
            "posix_spawn",
            "gix_path::env",
            "storage_location",
            "installation_config",
        ] {
            assert!(
                !text.contains(forbidden),
                "{path} uses {forbidden}: the server and the CLI start no program"
            );
        }
    }
}

/// The calls that change the file system, as shipped code spells them:
/// creating, writing, truncating, renaming, removing, linking files and
/// folders, their permissions and times, and the crates and raw calls
/// that do the same. Standard output and error are streams, not files:
/// `write_all` on them is not listed.
const WRITES: &[&str] = &[
    "fs::write",
    "File::create",
    "create_new(",
    "fs::rename",
    "remove_file",
    "remove_dir",
    "create_dir",
    "DirBuilder",
    "fs::copy",
    "set_permissions",
    "hard_link",
    "fs::symlink(",
    "symlink_file",
    "symlink_dir",
    "set_len(",
    "set_modified(",
    "set_times(",
    "filetime",
    "tempfile",
    "persist(",
    "tokio::fs",
    "gix_lock",
    "gix_tempfile",
    "MmapMut",
    "from_raw_fd",
    ".append(true)",
    ".write(true)",
    ".create(true)",
    ".truncate(true)",
    "O_WRONLY",
    "O_RDWR",
    "O_CREAT",
    "O_TRUNC",
    "O_APPEND",
    "libc::open",
    "libc::creat",
    "libc::write",
    "libc::pwrite",
    "libc::unlink",
    "libc::rename",
    "libc::mkdir",
    "libc::rmdir",
    "libc::link",
    "libc::symlink",
    "libc::truncate",
    "libc::ftruncate",
    "libc::chmod",
    "libc::fchmod",
    "libc::chown",
    "libc::utime",
    "libc::futimens",
];

/// Names too common to look for alone (`write`, `rename`, `copy` and
/// `symlink` are also methods of other things here): found when a `use` of
/// a `fs` module brings them in.
const WRITES_BY_IMPORT: &[&str] = &["write", "rename", "copy", "symlink", "OpenOptions"];

/// What in `text` writes to the file system, each at most once, in
/// [`WRITES`]' order: a listed call, an `OpenOptions` chain that asks for
/// writing (whatever its argument), or a bare name imported from a `fs`
/// module. Lines that are comments alone are skipped.
fn writes_in(text: &str) -> Vec<String> {
    let code = code_of(text);
    let mut found: Vec<String> = WRITES
        .iter()
        .filter(|call| code.contains(*call))
        .map(|call| call.to_string())
        .collect();
    // An option set up to its `open`: asking for writing by a variable counts too.
    for start in ["OpenOptions::new()", "File::options()"] {
        for (at, _) in code.match_indices(start) {
            let chain = &code[at..];
            let chain = &chain[..chain.find(".open(").unwrap_or(chain.len())];
            for asks in [".write(", ".append(", ".create(", ".truncate("] {
                if chain.contains(asks) {
                    found.push(format!("{start}{asks}"));
                }
            }
        }
    }
    for (at, _) in code.match_indices("use ") {
        let statement = &code[at..];
        let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
        let Some((_, from_fs)) = statement.split_once("fs::") else {
            continue;
        };
        let names: Vec<&str> = from_fs
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        for name in WRITES_BY_IMPORT {
            if names.contains(name) {
                found.push(format!("use fs::{name}"));
            }
        }
    }
    let mut seen = BTreeSet::new();
    found.retain(|call| seen.insert(call.clone()));
    found
}

/// `text` without the lines that are comments alone.
fn code_of(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The shipped sources that write files, with what they use to.
fn writers(sources: &[(String, String)]) -> Vec<(String, Vec<String>)> {
    sources
        .iter()
        .map(|(path, text)| (path.clone(), writes_in(text)))
        .filter(|(_, found)| !found.is_empty())
        .collect()
}

/// Only `check --fix` writes a file (issue 50): the server's checks, its
/// preview and code actions, `diff`, `explain` and the rest of `check`
/// read the project and print, whatever the report says.
#[test]
fn nothing_shipped_but_fix_writes_a_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    shipped_sources(&root.join("src"), &mut sources);
    shipped_sources(&root.join("crates/report-core/src"), &mut sources);
    shipped_sources(&root.join("crates/report-wasm/src"), &mut sources);
    assert!(sources.len() > 100);
    let found = writers(&sources);
    let fix = root.join("src/cli/fix.rs").display().to_string();
    // The one writer is seen, so the scan is looking.
    let by_fix = found.iter().find(|(path, _)| *path == fix);
    assert!(
        by_fix.is_some_and(|(_, calls)| calls.contains(&"persist(".to_string())),
        "the scan no longer sees src/cli/fix.rs write: {found:?}"
    );
    let others: Vec<_> = found.iter().filter(|(path, _)| *path != fix).collect();
    assert!(
        others.is_empty(),
        "only src/cli/fix.rs writes files, but these do too: {others:#?}"
    );
}

/// The write finder sees each way of writing planted in a source tree,
/// not the reads, streams and comments beside them, nor a test module's
/// writes, so the test above can fail.
#[test]
fn the_write_finder_finds_planted_writes() {
    for (planted, expected) in [
        ("std::fs::write(&path, text)?;", "fs::write"),
        ("let f = File::create(p)?;", "File::create"),
        ("fs::remove_dir_all(&folder)?;", "remove_dir"),
        ("std::os::unix::fs::symlink(a, b)?;", "fs::symlink("),
        ("file.set_len(0)?;", "set_len("),
        ("let t = tempfile::NamedTempFile::new()?;", "tempfile"),
        (
            "let f = OpenOptions::new()\n    .append(true)\n    .open(p)?;",
            ".append(true)",
        ),
        (
            "let f = std::fs::OpenOptions::new()\n    .read(true)\n    .write(writable)\n    .open(p)?;",
            "OpenOptions::new().write(",
        ),
        (
            "let f = File::options().create(yes).open(p)?;",
            "File::options().create(",
        ),
        (
            "opts.custom_flags(libc::O_NOFOLLOW | libc::O_WRONLY);",
            "O_WRONLY",
        ),
        (
            "use std::fs::{self, rename};\nfn f() { rename(a, b).unwrap(); }",
            "use fs::rename",
        ),
        ("use tokio::fs::write;", "tokio::fs"),
    ] {
        let found = writes_in(planted);
        assert!(
            found.contains(&expected.to_string()),
            "{planted:?}: found {found:?}"
        );
    }
    for harmless in [
        "let text = std::fs::read_to_string(&path)?;",
        "let f = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW).open(p)?;",
        "let meta = std::fs::symlink_metadata(p)?;",
        "std::io::stdout().lock().write_all(text.as_bytes())?;",
        "use std::fs::{File, Metadata};\nuse std::io::Write;",
        "// Nothing here calls std::fs::write or File::create.",
        "fn rename(&self, params: RenameParams) {}",
    ] {
        assert_eq!(writes_in(harmless), Vec::<String>::new(), "{harmless:?}");
    }
    // Through the walk of a tree: a test module's write is not shipped.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("cli")).unwrap();
    std::fs::write(
        src.join("cli/fix.rs"),
        "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    fn t() { std::fs::write(\"x\", \"y\").unwrap(); }\n}\n",
    )
    .unwrap();
    std::fs::write(
        src.join("tests.rs"),
        "fn t() { std::fs::write(\"x\", \"y\").unwrap(); }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("log.rs"),
        "pub fn log(p: &Path) { let _ = std::fs::File::create(p); }\n",
    )
    .unwrap();
    let mut sources = Vec::new();
    shipped_sources(src, &mut sources);
    let found = writers(&sources);
    assert_eq!(
        found,
        vec![(
            src.join("log.rs").display().to_string(),
            vec!["File::create".to_string()]
        )]
    );
}

#[test]
fn only_the_lexer_uses_jsonc_parser() {
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/report-core/src");
    let mut sources = Vec::new();
    shipped_sources(&core, &mut sources);
    let users: Vec<&str> = sources
        .iter()
        .filter(|(_, text)| text.contains("jsonc_parser"))
        .map(|(path, _)| path.as_str())
        .collect();
    assert!(
        users.len() == 1 && users[0].ends_with("syntax/lexer.rs"),
        "jsonc_parser is named in {users:?}: only syntax/lexer.rs adapts it"
    );
}

/// What a handler does not do itself (ARCHITECTURE.md, "Handlers
/// translate"): read the file system or resolve a path through it, hash,
/// analyse a text into a document host, or build a rope of a text. A
/// handler converts the request, calls the layer that does it (the project
/// layer, the found reports, the document's state or host), and converts
/// the answer back. An open document's rope, the editor's own, it reads.
const HANDLERS_DO_NOT: &[&str] = &[
    "std::fs",
    "fs::",
    "File::open",
    "metadata(",
    "read_dir",
    "read_link",
    ".exists()",
    ".is_file()",
    ".is_dir()",
    "canonicalize",
    "sha256_of",
    "Sha256",
    "DocumentHost::new",
    "from_analysis",
    "analyze_file",
    "Rope::from_str",
];

/// What in `text` a handler may not do ([`HANDLERS_DO_NOT`]), each once;
/// lines that are comments alone are skipped.
fn handler_work_in(text: &str) -> Vec<&'static str> {
    let code = code_of(text);
    HANDLERS_DO_NOT
        .iter()
        .copied()
        .filter(|call| code.contains(call))
        .collect()
}

/// Handlers translate (issue 44, step 5): no handler file reads or hashes
/// files, resolves paths, or builds a host or a rope of a text. No handler
/// is excepted.
#[test]
fn handlers_translate() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    shipped_sources(&root.join("src/lsp/handlers"), &mut sources);
    assert!(sources.len() > 10, "{sources:?}");
    let doing: Vec<(&str, Vec<&str>)> = sources
        .iter()
        .map(|(path, text)| (path.as_str(), handler_work_in(text)))
        .filter(|(_, found)| !found.is_empty())
        .collect();
    assert!(
        doing.is_empty(),
        "these handlers do what the project layer, the found reports or the \
         core does (move it there, and call it): {doing:#?}"
    );
}

/// The scan above sees each kind of work planted in a handler, not the
/// calls a handler makes to the layers that do it, nor comments.
#[test]
fn the_handler_scan_finds_planted_work() {
    for (planted, expected) in [
        (
            "let text = std::fs::read_to_string(&path).ok()?;",
            "std::fs",
        ),
        ("use std::fs;\nlet m = fs::metadata(p);", "fs::"),
        (
            "let p = path.canonicalize().unwrap_or(path);",
            "canonicalize",
        ),
        (
            "let sha = sha256_of(rope.chunks().map(str::as_bytes));",
            "sha256_of",
        ),
        (
            "let host = DocumentHost::new(text, None, options);",
            "DocumentHost::new",
        ),
        (
            "let host = host::DocumentHost::from_analysis(a, o, f);",
            "from_analysis",
        ),
        ("let rope = Rope::from_str(host.text());", "Rope::from_str"),
        ("if path.is_file() { return None; }", ".is_file()"),
    ] {
        let found = handler_work_in(planted);
        assert!(found.contains(&expected), "{planted:?}: found {found:?}");
    }
    for harmless in [
        "let spans = services.search.store.naming_file(&path);",
        "let key = crate::project::files::relative_key(&file, &root)?;",
        "let positions = Positions::new(&open.document.rope, encoding);",
        "let texts = TargetTexts::read(editor, disk.as_deref());",
        "// The project layer reads the file (std::fs) and hashes it (sha256_of).",
    ] {
        assert_eq!(
            handler_work_in(harmless),
            Vec::<&str>::new(),
            "{harmless:?}"
        );
    }
}

/// The modules of one crate's `src/`, by path (`lsp::analysis::worker`;
/// a `mod.rs` is its folder), each with its shipped code (tests cut off).
fn modules(src: &std::path::Path) -> std::collections::BTreeMap<Vec<String>, String> {
    let mut found = Vec::new();
    shipped_sources(src, &mut found);
    found
        .into_iter()
        .map(|(path, text)| {
            let relative = std::path::Path::new(&path).strip_prefix(src).unwrap();
            let mut module: Vec<String> = relative
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            (module, text)
        })
        .collect()
}

/// Which modules each module names through `crate::`, `super::` or
/// `self::` paths (a parent's `mod` and `pub use` of its children are its
/// shape, not imports).
fn imports(
    modules: &std::collections::BTreeMap<Vec<String>, String>,
) -> std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>> {
    let mut edges = std::collections::BTreeMap::new();
    for (module, text) in modules {
        let mut targets = std::collections::BTreeSet::new();
        // Comments name modules (doc links) without importing them.
        let code: String = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .map(|line| format!("{line}\n"))
            .collect();
        let text = &code;
        let bytes = text.as_bytes();
        for start in ["crate::", "super::", "self::"]
            .iter()
            .flat_map(|p| text.match_indices(p).map(|(i, _)| i))
        {
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let spelled = text[start..]
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or("");
            let path: Vec<&str> = spelled.split("::").filter(|s| !s.is_empty()).collect();
            let mut at: Vec<String> = module.clone();
            let mut rest = path.as_slice();
            match rest.first() {
                Some(&"crate") => {
                    at.clear();
                    rest = &rest[1..];
                }
                Some(&"self") => rest = &rest[1..],
                _ => {}
            }
            while rest.first() == Some(&"super") {
                at.pop();
                rest = &rest[1..];
            }
            let descend = |mut at: Vec<String>, rest: &[&str]| {
                for segment in rest {
                    let mut next = at.clone();
                    next.push(segment.to_string());
                    if !modules.contains_key(&next) {
                        break;
                    }
                    at = next;
                }
                at
            };
            let at = descend(at, rest);
            // A group, `crate::{a::A, b}`: each of its paths from there.
            let group = text[start + spelled.len()..]
                .strip_prefix('{')
                .and_then(|g| g.split_once('}'))
                .map(|(inside, _)| inside);
            let reached: Vec<Vec<String>> = match group {
                Some(inside) => inside
                    .split(',')
                    .map(|item| {
                        let item: Vec<&str> = item
                            .trim()
                            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                            .next()
                            .unwrap_or("")
                            .split("::")
                            .filter(|s| !s.is_empty() && *s != "self")
                            .collect();
                        descend(at.clone(), &item)
                    })
                    .collect(),
                None => vec![at],
            };
            for at in reached {
                if &at != module && modules.contains_key(&at) {
                    targets.insert(at);
                }
            }
        }
        // A parent naming a child by its bare path (`child::f()`, `use
        // child::X`): an import, but for a re-export (`pub use`), which is
        // the parent's shape. Read line by line, it errs on the safe side:
        // a re-export spread over lines, `pub(in …) use` or a comment after
        // code count as imports.
        for child in modules
            .keys()
            .filter(|c| c.len() == module.len() + 1 && c.starts_with(module))
        {
            let name = child.last().expect("a child has a name");
            let spelled = format!("{name}::");
            let named = text.lines().any(|line| {
                let line = line.trim_start();
                let shape = line.starts_with("pub use ")
                    || line.starts_with("pub(crate) use ")
                    || line.starts_with("pub(super) use ");
                !shape
                    && line.match_indices(&spelled).any(|(i, _)| {
                        let before = line[..i].chars().next_back();
                        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                    })
            });
            if named {
                targets.insert(child.clone());
            }
        }
        edges.insert(module.clone(), targets);
    }
    edges
}

/// The groups of modules that import each other in a circle.
fn cycles(src: &std::path::Path) -> Vec<Vec<String>> {
    let modules = modules(src);
    let edges = imports(&modules);
    let reach = |from: &Vec<String>| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for next in &edges[&m] {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: std::collections::BTreeMap<_, _> =
        edges.keys().map(|m| (m.clone(), reach(m))).collect();
    let mut groups: Vec<Vec<String>> = Vec::new();
    for module in edges.keys() {
        let mut group: Vec<String> = edges
            .keys()
            .filter(|other| reached[module].contains(*other) && reached[*other].contains(module))
            .map(|m| m.join("::"))
            .collect();
        if group.len() > 1 {
            group.sort();
            if !groups.contains(&group) {
                groups.push(group);
            }
        }
    }
    groups
}

/// No import cycle between source files of any crate (issue 25), a
/// folder's `mod.rs` and its own files included (issue 44): each module
/// can be read knowing only the ones it names, and a folder's files read
/// in one direction.
#[test]
fn no_import_cycle_between_source_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for src in ["crates/report-core/src", "crates/report-gen/src", "src"] {
        assert_eq!(
            cycles(&root.join(src)),
            Vec::<Vec<String>>::new(),
            "import cycles in {src}"
        );
    }
}

/// The cycle finder sees a cycle through `crate::` and `super::` paths,
/// and not a parent's `mod` of its child, so the test above can fail.
#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    std::fs::write(src.join("b.rs"), "use super::a::A;\npub struct B;\n").unwrap();
    std::fs::write(src.join("c.rs"), "use crate::a::A;\n").unwrap();
    assert_eq!(cycles(src), vec![vec!["a".to_string(), "b".to_string()]]);
    // Through a group of imports too.
    std::fs::write(src.join("b.rs"), "pub struct B;\n").unwrap();
    std::fs::write(src.join("c.rs"), "use crate::{a::A, b};\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::c;\npub struct A;\n").unwrap();
    assert_eq!(cycles(src), vec![vec!["a".to_string(), "c".to_string()]]);
    // A folder's own loop: its mod.rs calls a file of its by the bare
    // path, and the file reads the folder's type through `super`.
    for old in ["a.rs", "b.rs", "c.rs"] {
        std::fs::remove_file(src.join(old)).unwrap();
    }
    std::fs::write(src.join("lib.rs"), "mod d;\n").unwrap();
    std::fs::create_dir(src.join("d")).unwrap();
    std::fs::write(
        src.join("d/mod.rs"),
        "mod e;\npub use e::E;\npub struct D;\nfn f() { e::g(); }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("d/e.rs"),
        "use super::D;\npub struct E;\npub fn g() {}\n",
    )
    .unwrap();
    assert_eq!(cycles(src), vec![vec!["d".to_string(), "d::e".to_string()]]);
    // Its `mod` and `pub use` are its shape, and a comment imports nothing.
    std::fs::write(
        src.join("d/mod.rs"),
        "mod e;\npub use e::E;\npub struct D;\n// e::g() is called by [`crate::d::e`].\n",
    )
    .unwrap();
    assert_eq!(cycles(src), Vec::<Vec<String>>::new());
}

/// The folders whose every `.rs` file ARCHITECTURE.md's file map names.
const MAPPED_ROOTS: &[&str] = &[
    "crates/report-core/src",
    "crates/report-gen/src",
    "crates/report-wasm/src",
    "src",
    "crates/report-core/tests",
    "crates/report-core/benches",
    "tests",
    "benches",
    "fuzz/fuzz_targets",
];

/// The build scripts, which the map names too.
const MAPPED_FILES: &[&str] = &["build.rs", "crates/report-core/build.rs"];

/// Every `.rs` file under `dir`, tests included, as a path from `base`
/// with `/` between its parts.
fn rust_files(base: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(base, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(base).unwrap();
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.insert(parts.join("/"));
        }
    }
}

/// What is wrong with the `## File map` section of `markdown` (up to the
/// next `## ` heading) against `files`: each line there that starts with
/// ``- ` `` names one file by its backticked path, and the names must be
/// exactly the files, each once. Missing and stale entries are listed
/// apart, each sorted.
fn file_map_problems(markdown: &str, files: &BTreeSet<String>) -> Vec<String> {
    let mut lines = markdown.lines();
    if !lines.any(|line| line.trim_end() == "## File map") {
        return vec!["no `## File map` section".to_string()];
    }
    let mut listed = BTreeSet::new();
    let mut problems = Vec::new();
    for line in lines.take_while(|line| !line.starts_with("## ")) {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let Some((path, _)) = rest.split_once('`') else {
            problems.push(format!("an entry without its closing backtick: {line}"));
            continue;
        };
        if !listed.insert(path.to_string()) {
            problems.push(format!("listed twice: {path}"));
        }
    }
    let missing: Vec<&str> = files.difference(&listed).map(String::as_str).collect();
    let stale: Vec<&str> = listed.difference(files).map(String::as_str).collect();
    for (what, paths) in [
        ("not in the file map", missing),
        ("in the file map but not on disk", stale),
    ] {
        if !paths.is_empty() {
            problems.push(format!(
                "{what} ({}):\n  {}",
                paths.len(),
                paths.join("\n  ")
            ));
        }
    }
    problems
}

/// ARCHITECTURE.md names every source file (issue 25): a file added,
/// moved or removed is placed on the map in the same change.
#[test]
fn architecture_md_names_every_source_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeSet::new();
    for folder in MAPPED_ROOTS {
        rust_files(root, &root.join(folder), &mut files);
    }
    files.extend(MAPPED_FILES.iter().map(|f| f.to_string()));
    assert!(files.len() > 150, "{files:?}");
    assert!(files.contains("crates/report-core/src/host/tests.rs"));
    assert!(files.contains("tests/common/editor.rs"));
    let markdown = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let problems = file_map_problems(&markdown, &files);
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's `## File map` is out of date:\n{}",
        problems.join("\n")
    );
}

/// The `.rs` files the section of `markdown` under `heading` names (in
/// backticks, maybe with a folder), in order, as written.
fn files_named_under(markdown: &str, heading: &str) -> Vec<String> {
    let section = markdown
        .split("\n## ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("no section `## {heading}`"));
    section
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| quoted.ends_with(".rs") && !quoted.contains(' '))
        .map(String::from)
        .collect()
}

/// What is wrong with a tour: a file named twice (the road goes back), or
/// a name that is no file's (ends no source file's path).
fn tour_problems(named: &[String], files: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for name in named {
        if !seen.insert(name) {
            problems.push(format!("named twice: {name}"));
        }
        let tail = format!("/{name}");
        if !files.iter().any(|f| f == name || f.ends_with(&tail)) {
            problems.push(format!("no such file: {name}"));
        }
    }
    problems
}

/// The tours read in one direction (issue 44): a keystroke's, and an
/// unopened report's, each name a file once, and only files that exist.
#[test]
fn each_tour_names_each_file_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeSet::new();
    for folder in MAPPED_ROOTS {
        rust_files(root, &root.join(folder), &mut files);
    }
    let markdown = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    for heading in ["A tour: one keystroke", "The same road from the disk"] {
        let named = files_named_under(&markdown, heading);
        assert!(named.len() >= 5, "{heading}: {named:?}");
        let problems = tour_problems(&named, &files);
        assert!(problems.is_empty(), "{heading}: {problems:?}");
    }
    // The check sees a road that goes back, and a file that is not there.
    let planted = "# T\n\n## A tour\n\n1. `a/x.rs`, then `y.rs`.\n2. `x.rs` again, `z.rs`.\n\n## Next\n`w.rs`";
    let named = files_named_under(planted, "A tour");
    assert_eq!(named, ["a/x.rs", "y.rs", "x.rs", "z.rs"]);
    let files: BTreeSet<String> = ["src/a/x.rs", "src/y.rs"].map(String::from).into();
    assert_eq!(
        tour_problems(
            &["x.rs".into(), "y.rs".into(), "x.rs".into(), "z.rs".into()],
            &files
        ),
        ["named twice: x.rs", "no such file: z.rs"]
    );
}

/// The map's checker sees a missing, a stale and a repeated entry, reads
/// only its own section, and the test above can fail.
#[test]
fn the_file_map_check_finds_planted_mismatches() {
    let files: BTreeSet<String> = ["src/a.rs", "src/b.rs", "src/c.rs"]
        .into_iter()
        .map(String::from)
        .collect();
    let good = "# Title\n\n- `src/z.rs`: not in the map's section.\n\n## File map\n\n\
                - `src/a.rs`: one.\n  A note under it.\n- `src/b.rs`: two.\n\
                - `src/c.rs`: three.\n\n## Tests\n\n- `src/y.rs`: after it.\n";
    assert_eq!(file_map_problems(good, &files), Vec::<String>::new());
    let bad = "## File map\n\n- `src/c.rs`: three.\n- `src/a.rs`: one.\n\
               - `src/gone.rs`: removed.\n- `src/a.rs`: again.\n";
    assert_eq!(
        file_map_problems(bad, &files),
        vec![
            "listed twice: src/a.rs".to_string(),
            "not in the file map (1):\n  src/b.rs".to_string(),
            "in the file map but not on disk (1):\n  src/gone.rs".to_string(),
        ]
    );
    assert_eq!(
        file_map_problems("# No map\n", &files),
        vec!["no `## File map` section".to_string()]
    );
}
