//! The layering of ARCHITECTURE.md, checked: the core crate's dependency
//! tree holds no protocol, async runtime, rope, thread pool or file walker,
//! so the compiler keeps it pure; and the binary can start no program.

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

/// The code of `src/` before its test module, file by file.
fn shipped_sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            shipped_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            let text = std::fs::read_to_string(&path).unwrap();
            let shipped = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            out.push((path.display().to_string(), shipped));
        }
    }
}

#[test]
fn nothing_shipped_starts_a_process() {
    let mut sources = Vec::new();
    shipped_sources(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut sources,
    );
    assert!(sources.len() > 20);
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
        let bytes = text.as_bytes();
        for start in ["crate::", "super::", "self::"]
            .iter()
            .flat_map(|p| text.match_indices(p).map(|(i, _)| i))
        {
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let path: Vec<&str> = text[start..]
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .collect();
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
            for segment in rest {
                let mut next = at.clone();
                next.push(segment.to_string());
                if !modules.contains_key(&next) {
                    break;
                }
                at = next;
            }
            if &at != module && modules.contains_key(&at) {
                targets.insert(at);
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

/// No import cycle between source files of any crate (issue 25): each
/// module can be read knowing only the ones it names.
#[test]
fn no_import_cycle_between_source_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = cycles(&root.join("crates/report-core/src"));
    found.extend(cycles(&root.join("crates/report-gen/src")));
    let server = cycles(&root.join("src"));
    assert_eq!(server, Vec::<Vec<String>>::new(), "import cycles in src/");
    assert_eq!(
        found,
        Vec::<Vec<String>>::new(),
        "import cycles in the core"
    );
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
}
