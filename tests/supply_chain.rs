//! The supply-chain checks `.ci/run` runs (`packaging/test/supply-chain.sh`
//! with `deny.toml`) pass on today's lock files and fail on each thing they
//! are there to refuse: a vulnerable version planted in a copy of
//! `Cargo.lock`, a licence we do not accept, a git dependency, an unknown
//! registry, an advisory ignored without a reason. And the release binary
//! `.ci/run` builds with `cargo auditable` carries its dependency list,
//! which `cargo audit bin` reads.
//!
//! The tools come from `.ci/run` (`REPORT_LSP_CARGO_DENY`,
//! `REPORT_LSP_CARGO_AUDIT`, `REPORT_LSP_RELEASE_BINARY`); without them the
//! tests skip locally and fail in CI.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn tools() -> bool {
    let found = std::env::var_os("REPORT_LSP_CARGO_DENY").is_some()
        && std::env::var_os("REPORT_LSP_CARGO_AUDIT").is_some();
    common::present(
        found,
        "REPORT_LSP_CARGO_DENY and REPORT_LSP_CARGO_AUDIT (cargo-deny, cargo-audit)",
    )
}

fn text(output: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `output`'s text, once it is known to have ended as `passed` says and to
/// say each of `says`.
fn ended(output: &Output, passed: bool, says: &[&str]) -> String {
    let all = text(output);
    assert_eq!(output.status.success(), passed, "{all}");
    for words in says {
        assert!(all.contains(words), "no {words:?} in: {all}");
    }
    all
}

/// One `cargo deny check` with the project's policy and the offline
/// database, exactly as `.ci/run` runs it.
fn deny(args: &[&str]) -> Output {
    script(&["deny"], args).output().unwrap()
}

/// `packaging/test/supply-chain.sh MODE ARGS...`.
fn script(mode: &[&str], args: &[&str]) -> Command {
    let mut command = Command::new("bash");
    command
        .arg(Path::new(ROOT).join("packaging/test/supply-chain.sh"))
        .args(mode)
        .args(args);
    command
}

/// A copy of the checkout's tracked files (the workspace as committed, with
/// whatever is being changed): the place to plant things.
fn workspace_copy() -> tempfile::TempDir {
    let listing = Command::new("git")
        .args(["ls-files", "-z", "--cached"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(listing.status.success(), "{}", text(&listing));
    let copy = tempfile::tempdir().unwrap();
    for name in listing.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).unwrap();
        let from = Path::new(ROOT).join(name);
        if !from.is_file() {
            continue; // deleted in the work tree
        }
        let to = copy.path().join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
    copy
}

fn manifest(copy: &Path) -> String {
    copy.join("Cargo.toml").to_str().unwrap().to_owned()
}

/// `path`'s text with `from` replaced by `to`, which must be there.
fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{}: no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// `cargo metadata` of the copy, as cargo-deny would ask for it, to edit.
fn metadata(copy: &Path) -> String {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--offline",
            "--all-features",
        ])
        .arg("--manifest-path")
        .arg(copy.join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    String::from_utf8(output.stdout).unwrap()
}

/// The metadata with `name`'s package moved to `source`: its id changes
/// everywhere it is named (the package, the resolve graph, its dependents).
fn moved(metadata: &str, name: &str, source: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(metadata).unwrap();
    let package = value["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name && p["source"].is_string())
        .unwrap_or_else(|| panic!("no registry package {name} in the metadata"));
    let old_id = package["id"].as_str().unwrap();
    let old_source = package["source"].as_str().unwrap();
    let new_id = old_id.replacen(old_source, source, 1);
    assert_ne!(old_id, new_id, "the id {old_id} does not hold its source");
    let mut value: serde_json::Value =
        serde_json::from_str(&metadata.replace(&format!("\"{old_id}\""), &format!("\"{new_id}\"")))
            .unwrap();
    for package in value["packages"].as_array_mut().unwrap() {
        if package["id"] == new_id.as_str() {
            package["source"] = source.into();
        }
    }
    value.to_string()
}

#[test]
fn both_lock_files_pass_today() {
    if !tools() {
        return;
    }
    for manifest in ["Cargo.toml", "fuzz/Cargo.toml"] {
        let output = deny(&["--manifest-path", manifest]);
        ended(
            &output,
            true,
            &["advisories ok, bans ok, licenses ok, sources ok"],
        );
    }
}

/// crossbeam-epoch 0.9.18 still meets the tree's requirement (`^0.9.17`), so
/// cargo takes the edited lock as it is; RUSTSEC-2026-0204 affects it.
#[test]
fn a_vulnerable_version_planted_in_the_lock_fails() {
    if !tools() {
        return;
    }
    let copy = workspace_copy();
    let lock = copy.path().join("Cargo.lock");
    let text_before = std::fs::read_to_string(&lock).unwrap();
    let start = text_before
        .find("name = \"crossbeam-epoch\"\nversion = \"0.9.")
        .expect("crossbeam-epoch 0.9 is no longer in Cargo.lock: plant another advisory's version");
    let entry_end = start + text_before[start..].find("\n\n").unwrap();
    let entry = &text_before[start..entry_end];
    let planted: String = entry
        .lines()
        .map(|line| {
            if line.starts_with("version = ") {
                "version = \"0.9.18\"".to_owned()
            } else if line.starts_with("checksum = ") {
                // The sha256 of crossbeam-epoch-0.9.18.crate.
                "checksum = \"5b82ac4a3c2ca9c3460964f020e1402edd5753411d7737aa39c3714ad1b5420e\""
                    .to_owned()
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&lock, text_before.replacen(entry, &planted, 1)).unwrap();
    // The planted crate's manifest, for cargo metadata offline (fetched once
    // per machine; --locked refuses any other change to the lock).
    let fetch = Command::new(env!("CARGO"))
        .args([
            "fetch",
            "--locked",
            "--manifest-path",
            &manifest(copy.path()),
        ])
        .output()
        .unwrap();
    assert!(fetch.status.success(), "{}", text(&fetch));

    let output = deny(&["--manifest-path", &manifest(copy.path())]);
    ended(
        &output,
        false,
        &[
            "error[vulnerability]",
            "RUSTSEC-2026-0204",
            "crossbeam-epoch 0.9.18",
            "advisories FAILED",
            // Nothing else fails: the plant is what the check refused.
            "bans ok, licenses ok, sources ok",
        ],
    );
}

/// One of ours and five dependencies, each under a licence the policy does
/// not take, among them one allowed only for other crates.
#[test]
fn a_licence_we_do_not_accept_fails() {
    if !tools() {
        return;
    }
    let copy = workspace_copy();
    // One of ours, published: its licence is checked like any dependency's.
    edit(
        &copy.path().join("crates/report-core/Cargo.toml"),
        "license.workspace = true",
        "license = \"GPL-3.0-only\"",
    );
    // Dependencies', as their registry metadata would give them.
    let planted = [
        ("ropey", "SSPL-1.0"),
        ("memchr", "AGPL-3.0-only"),
        ("serde", "MPL-2.0"),
        ("tokio", "LGPL-2.1-or-later"),
        // Allowed for foldhash and zlib-rs alone.
        ("itoa", "Zlib"),
    ];
    let metadata = metadata(copy.path());
    let mut value: serde_json::Value = serde_json::from_str(&metadata).unwrap();
    for (name, licence) in planted {
        let package = value["packages"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in the metadata: plant in another crate"));
        package["license"] = licence.into();
    }
    let path = copy.path().join("metadata.json");
    std::fs::write(&path, value.to_string()).unwrap();

    let output = deny(&[
        "--manifest-path",
        &manifest(copy.path()),
        "--metadata-path",
        path.to_str().unwrap(),
    ]);
    let all = ended(&output, false, &["licenses FAILED", "sources ok"]);
    let rejected: Vec<&str> = all.split("error[rejected]").skip(1).collect();
    assert_eq!(rejected.len(), 1 + planted.len(), "{all}");
    // Each refusal names its crate's manifest and the licence refused.
    let ours = ("crates/report-core/Cargo.toml".to_owned(), "GPL-3.0-only");
    let theirs = planted
        .iter()
        .map(|&(name, licence)| (format!("/{name}-"), licence));
    for (manifest, licence) in std::iter::once(ours).chain(theirs) {
        assert!(
            rejected.iter().any(
                |block| block.contains(&manifest) && block.contains(&format!("├ {licence} - "))
            ),
            "{manifest} under {licence} was not refused: {all}"
        );
    }
}

/// Advisories that are not vulnerabilities fail too: a copy of the
/// database with an unmaintained and an unsound advisory planted against
/// two crates we use.
#[test]
fn an_unmaintained_or_unsound_crate_fails() {
    if !tools() {
        return;
    }
    let found = script(&["db"], &[]).output().unwrap();
    assert!(found.status.success(), "{}", text(&found));
    let db = PathBuf::from(String::from_utf8(found.stdout).unwrap().trim());
    let copy = tempfile::tempdir().unwrap();
    let planted_db = copy.path().join("advisory-db");
    let cp = Command::new("cp")
        .arg("-R")
        .arg(&db)
        .arg(&planted_db)
        .output()
        .unwrap();
    assert!(cp.status.success(), "{}", text(&cp));
    for (id, name, kind) in [
        ("RUSTSEC-2099-0001", "memchr", "unmaintained"),
        ("RUSTSEC-2099-0002", "itoa", "unsound"),
    ] {
        let folder = planted_db.join("crates").join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("{id}.md")),
            format!(
                "```toml\n[advisory]\nid = \"{id}\"\npackage = \"{name}\"\ndate = \"2099-01-01\"\n\
                 informational = \"{kind}\"\n\n[versions]\npatched = []\n```\n\n\
                 # `{name}` is {kind} (planted by tests/supply_chain.rs)\n\nNot a real advisory.\n"
            ),
        )
        .unwrap();
    }
    let output = script(&["deny"], &[])
        .env("REPORT_LSP_ADVISORY_DB", &planted_db)
        .output()
        .unwrap();
    ended(
        &output,
        false,
        &[
            "error[unmaintained]: `memchr` is unmaintained",
            "error[unsound]: `itoa` is unsound",
            "advisories FAILED, bans ok, licenses ok, sources ok",
        ],
    );
}

#[test]
fn a_git_dependency_or_an_unknown_registry_fails() {
    if !tools() {
        return;
    }
    let copy = workspace_copy();
    let metadata = metadata(copy.path());
    for (source, words) in [
        (
            "git+https://example.com/memchr?rev=deadbeef#deadbeefdeadbeefdeadbeefdeadbeefdeadbeef",
            "detected 'git' source not explicitly allowed",
        ),
        (
            "registry+https://example.com/index",
            "detected 'registry' source not explicitly allowed",
        ),
    ] {
        let path = copy.path().join("metadata.json");
        std::fs::write(&path, moved(&metadata, "memchr", source)).unwrap();
        let output = deny(&[
            "--manifest-path",
            &manifest(copy.path()),
            "--metadata-path",
            path.to_str().unwrap(),
        ]);
        ended(
            &output,
            false,
            &["error[source-not-allowed]", words, "sources FAILED"],
        );
    }
}

/// The ids of `[advisories] ignore` entries that give no reason.
fn ignored_without_reason(deny_toml: &str) -> Vec<String> {
    let config: toml::Table = toml::from_str(deny_toml).unwrap();
    let ignore = config["advisories"]
        .get("ignore")
        .and_then(|i| i.as_array())
        .cloned()
        .unwrap_or_default();
    ignore
        .iter()
        .filter(|entry| {
            entry
                .get("reason")
                .and_then(|r| r.as_str())
                .is_none_or(|r| r.trim().is_empty())
        })
        .map(|entry| match entry {
            toml::Value::String(id) => id.clone(),
            entry => entry
                .get("id")
                .and_then(|id| id.as_str())
                .unwrap_or("an entry without an id")
                .to_owned(),
        })
        .collect()
}

#[test]
fn every_ignored_advisory_says_why() {
    let deny_toml = std::fs::read_to_string(Path::new(ROOT).join("deny.toml")).unwrap();
    assert_eq!(ignored_without_reason(&deny_toml), Vec::<String>::new());
    // The check sees both ways of ignoring without a reason.
    let planted = deny_toml.replace(
        "ignore = []",
        "ignore = [\"RUSTSEC-2026-0001\", { id = \"RUSTSEC-2026-0002\", reason = \" \" }, \
         { id = \"RUSTSEC-2026-0003\", reason = \"not reachable: we never call it\" }]",
    );
    assert_ne!(
        planted, deny_toml,
        "deny.toml has no `ignore = []` line to plant in"
    );
    assert_eq!(
        ignored_without_reason(&planted),
        ["RUSTSEC-2026-0001", "RUSTSEC-2026-0002"]
    );
}

/// `.ci/run`'s release binary (the one its npm package and .vsix bundle),
/// built with `cargo auditable`: `cargo audit bin` finds its dependency
/// list, and the list is the lock's, version for version.
#[test]
fn the_release_binary_carries_its_dependency_list() {
    let binary = std::env::var_os("REPORT_LSP_RELEASE_BINARY").map(PathBuf::from);
    if !common::present(
        binary.is_some(),
        "REPORT_LSP_RELEASE_BINARY (a cargo auditable build)",
    ) || !tools()
    {
        return;
    }
    let binary = binary.unwrap();
    let output = script(&["audit", "--json", "bin"], &[binary.to_str().unwrap()])
        .output()
        .unwrap();
    let all = ended(&output, true, &[]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["vulnerabilities"]["found"], false, "{all}");
    let count = report["lockfile"]["dependency-count"].as_u64().unwrap();

    // The list itself: the `.dep-v0` section, zlib-compressed JSON.
    let dir = tempfile::tempdir().unwrap();
    let section = dir.path().join("dep-v0.zz");
    let objcopy = Command::new("objcopy")
        .arg("--dump-section")
        .arg(format!(".dep-v0={}", section.display()))
        .arg(&binary)
        .arg(dir.path().join("copy"))
        .output()
        .unwrap();
    assert!(
        objcopy.status.success(),
        "no .dep-v0 section: {}",
        text(&objcopy)
    );
    let inflate = Command::new("python3")
        .args(["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1], 'rb').read()))"])
        .arg(&section)
        .output()
        .unwrap();
    assert!(inflate.status.success(), "{}", text(&inflate));
    let list: serde_json::Value = serde_json::from_slice(&inflate.stdout).unwrap();
    let packages = list["packages"].as_array().unwrap();
    assert_eq!(
        packages.len() as u64,
        count,
        "cargo audit read another list"
    );

    let lock: toml::Table =
        toml::from_str(&std::fs::read_to_string(Path::new(ROOT).join("Cargo.lock")).unwrap())
            .unwrap();
    let locked: std::collections::BTreeSet<(String, String)> = lock["package"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["version"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for package in packages {
        let key = (
            package["name"].as_str().unwrap().to_owned(),
            package["version"].as_str().unwrap().to_owned(),
        );
        assert!(
            locked.contains(&key),
            "{key:?} is in the binary but not in Cargo.lock"
        );
    }
    let names: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for shipped in [
        "report-lsp",
        "report-core",
        "tower-lsp-server",
        "tokio",
        "serde_json",
        "ropey",
        "jsonc-parser",
    ] {
        assert!(
            names.contains(&shipped),
            "{shipped} is not in the binary's list: {names:?}"
        );
    }
    // Dev-only crates are not shipped, so not listed.
    for dev_only in ["criterion", "proptest", "expect-test"] {
        assert!(
            !names.contains(&dev_only),
            "{dev_only} is in the binary's list"
        );
    }
}
