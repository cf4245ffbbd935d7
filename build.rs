//! Build facts for the binary: the version with the git commit it was built
//! from (when built from a git checkout), and the golden examples that
//! `report-lsp explain` quotes, embedded so the binary needs no files.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What cargo tells the script when it runs it. Read then, not with `env!`
/// when the script is compiled: a package unpacked elsewhere (cargo install
/// of the published crate) can share the compiled script's hash with this
/// checkout's, and must not see this checkout's paths.
fn cargo_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = cargo_env("CARGO_PKG_VERSION");
    let described = match packaged_commit().or_else(git_commit) {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=REPORT_LSP_VERSION={described}");
    embed_golden_examples();
}

/// The commit `cargo package` recorded in `.cargo_vcs_info.json` (a crate
/// built from its published package, where no checkout is at hand; read
/// first, since a package unpacked inside some other checkout would
/// otherwise name that one's HEAD), shortened as git shortens it.
fn packaged_commit() -> Option<String> {
    let info = Path::new(&cargo_env("CARGO_MANIFEST_DIR")).join(".cargo_vcs_info.json");
    // Only a package has one (a path that never exists would rerun this each build).
    let text = std::fs::read_to_string(&info).ok()?;
    println!("cargo:rerun-if-changed={}", info.display());
    let after = text.split_once("\"sha1\"")?.1;
    let sha1: String = after
        .trim_start_matches([' ', ':', '"', '\n', '\t'])
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha1.len() == 40).then(|| sha1[..7].to_string())
}

/// HEAD's commit, its first 7 characters, or None without git or outside a
/// checkout.
/// Reruns when HEAD moves: HEAD itself (a branch switch) and the branch's
/// ref (a commit), wherever this checkout (perhaps a worktree) keeps them.
///
/// This runs at build time, on report-lsp's own sources, never at run time:
/// the binary reads a project's git data in-process and starts nothing. Only
/// a repository whose top is this package's folder is asked (the ceiling):
/// a package or sdist unpacked inside someone else's repository gets no
/// commit rather than asking theirs. And `rev-parse` only reads refs: it
/// runs no hook, filter or other program a repository's config names.
fn git_commit() -> Option<String> {
    let manifest_dir = PathBuf::from(cargo_env("CARGO_MANIFEST_DIR"));
    let ceiling = manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .args(args)
            .current_dir(&manifest_dir)
            .env("GIT_CEILING_DIRECTORIES", &ceiling)
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?;
        (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
    };
    // Always 7 characters: git's own abbreviation grows with the repository
    // (and differs between a shallow and a full clone), which would make
    // two builds of one commit differ.
    let commit = git(&["rev-parse", "HEAD"])?.get(..7)?.to_string();
    for path in ["HEAD", "packed-refs"] {
        if let Some(file) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={file}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(file) = git(&["rev-parse", "--git-path", &branch])
    {
        println!("cargo:rerun-if-changed={file}");
    }
    Some(commit)
}

/// Writes `golden_examples.rs` into OUT_DIR: `INVALID`, every golden example
/// with diagnostics (the invalid ones in name order, then the small valid
/// examples, whose hints are diagnostics too), and `VALID`, the valid report.
fn embed_golden_examples() {
    let root = PathBuf::from(cargo_env("CARGO_MANIFEST_DIR"));
    let golden = root.join("examples/golden");
    println!("cargo:rerun-if-changed={}", golden.display());
    println!(
        "cargo:rerun-if-changed={}",
        golden.join("invalid").display()
    );
    println!("cargo:rerun-if-changed={}", golden.join("valid").display());
    let reports_in = |folder: &str| {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(golden.join(folder))
            .map(|dir| {
                dir.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "json"))
                    .collect()
            })
            .unwrap_or_default();
        paths.sort();
        paths
    };
    // The valid examples of readings come last: a hint shows only there.
    let mut invalid = reports_in("invalid");
    invalid.extend(reports_in("valid"));
    let example = |path: &Path| {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        format!(
            "Example {{ name: {name:?}, bytes: include_bytes!({:?}) }}",
            path.display().to_string()
        )
    };
    let mut code = String::from(
        "use report_core::docs::Example;\n\npub const INVALID: &[Example<'static>] = &[\n",
    );
    for path in &invalid {
        code.push_str(&format!("    {},\n", example(path)));
    }
    code.push_str("];\n\n");
    code.push_str(&format!(
        "pub const VALID: Example<'static> = {};\n",
        example(&golden.join("valid.report.json"))
    ));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("golden_examples.rs"), code).expect("OUT_DIR is writable");
}
