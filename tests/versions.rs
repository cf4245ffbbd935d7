//! One version for every package report-lsp ships in: the workspace's, in
//! `Cargo.toml`. Each manifest that carries a version of its own (or pins
//! another package's) is read here, and the test names each place that
//! disagrees, so a release that bumps one file and forgets another fails.
//! The binary's `--version` names that version and, built from a checkout,
//! the commit.

use std::path::Path;

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    let path = Path::new(ROOT).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn toml(path: &str) -> toml::Table {
    read(path).parse().unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What a dotted path leads to in a TOML table, as a string (or "" when absent).
fn toml_str(table: &toml::Table, dotted: &str) -> String {
    let mut value = None::<&toml::Value>;
    for key in dotted.split('.') {
        value = match value {
            None => table.get(key),
            Some(v) => v.get(key),
        };
    }
    value
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

/// Every place that states a version, with the version it states.
fn stated_versions() -> Vec<(String, String)> {
    let mut stated = Vec::new();
    let mut state = |place: &str, version: String| stated.push((place.to_string(), version));

    let root = toml("Cargo.toml");
    for (path, manifest) in [
        ("Cargo.toml", &root),
        (
            "crates/report-core/Cargo.toml",
            &toml("crates/report-core/Cargo.toml"),
        ),
        (
            "crates/report-gen/Cargo.toml",
            &toml("crates/report-gen/Cargo.toml"),
        ),
    ] {
        let inherited = manifest["package"]["version"]
            .get("workspace")
            .and_then(|w| w.as_bool());
        if inherited != Some(true) {
            state(
                &format!("{path} package.version"),
                toml_str(manifest, "package.version"),
            );
        }
        // The core is pinned exactly, so report-lsp X always runs report-core X.
        let pin = toml_str(manifest, "dependencies.report-core.version");
        if path != "crates/report-core/Cargo.toml" {
            state(
                &format!("{path} report-core"),
                pin.trim_start_matches('=').to_string(),
            );
            assert!(
                pin.starts_with('='),
                "{path}: report-core is pinned exactly ({pin:?})"
            );
        }
    }
    let lock = toml("Cargo.lock");
    for package in lock["package"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        if ["report-lsp", "report-core", "report-gen"].contains(&name) {
            state(
                &format!("Cargo.lock {name}"),
                package["version"].as_str().unwrap().into(),
            );
        }
    }

    // maturin takes the wheel's version from Cargo.toml: none may be written here.
    let pyproject = toml("pyproject.toml");
    let dynamic = pyproject["project"]["dynamic"].as_array().unwrap();
    if !dynamic.iter().any(|d| d.as_str() == Some("version")) {
        state(
            "pyproject.toml project.version",
            toml_str(&pyproject, "project.version"),
        );
    }

    let npm = json("packaging/npm/report-lsp/package.json");
    state("npm report-lsp", npm["version"].as_str().unwrap().into());
    for (name, version) in npm["optionalDependencies"].as_object().unwrap() {
        state(
            &format!("npm report-lsp → {name}"),
            version.as_str().unwrap().into(),
        );
    }
    let extension = json("editors/vscode/package.json");
    state(
        "VS Code extension",
        extension["version"].as_str().unwrap().into(),
    );
    let lock = json("editors/vscode/package-lock.json");
    state(
        "VS Code package-lock.json",
        lock["version"].as_str().unwrap().into(),
    );
    state(
        "VS Code package-lock.json packages[\"\"]",
        lock["packages"][""]["version"].as_str().unwrap().into(),
    );

    let mason: Value =
        serde_yaml_ng::from_str(&read("packaging/mason/packages/report-lsp/package.yaml")).unwrap();
    let purl = mason["source"]["id"].as_str().unwrap();
    state(
        "Mason source.id",
        purl.rsplit_once('@').map_or("", |(_, v)| v).into(),
    );

    // The newest released section of the changelog.
    let changelog = read("CHANGELOG.md");
    let released = changelog
        .lines()
        .filter_map(|line| line.strip_prefix("## ["))
        .filter_map(|line| line.split_once(']'))
        .map(|(version, _)| version)
        .find(|version| *version != "Unreleased")
        .unwrap_or_default();
    state("CHANGELOG.md newest release", released.into());
    stated
}

fn workspace_version() -> String {
    toml_str(&toml("Cargo.toml"), "workspace.package.version")
}

#[test]
fn every_package_states_the_workspace_version() {
    let version = workspace_version();
    assert!(
        !version.is_empty(),
        "Cargo.toml has a [workspace.package] version"
    );
    let stated = stated_versions();
    // Each kind of package is looked at, not only some.
    for place in [
        "Cargo.lock report-core",
        "npm report-lsp",
        "VS Code extension",
        "Mason source.id",
        "CHANGELOG.md",
    ] {
        assert!(
            stated.iter().any(|(p, _)| p.starts_with(place)),
            "{place} is checked"
        );
    }
    let disagree: Vec<String> = stated
        .iter()
        .filter(|(_, v)| *v != version)
        .map(|(place, v)| format!("{place}: {v:?}"))
        .collect();
    assert!(
        disagree.is_empty(),
        "not at the workspace version {version}:\n{}",
        disagree.join("\n")
    );
    assert_eq!(
        stated
            .iter()
            .filter(|(p, _)| p.starts_with("npm report-lsp → @report-lsp/cli-"))
            .count(),
        6,
        "the npm package names a platform package for each of the six platforms"
    );
}

#[test]
fn version_names_the_version_and_the_commit() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let line = text.trim_end();
    let version = workspace_version();
    let rest = line
        .strip_prefix(&format!("report-lsp {version}"))
        .unwrap_or_else(|| panic!("--version names {version}: {line:?}"));
    // Built from a checkout (as here, and in CI's clone), the commit follows.
    if Path::new(ROOT).join(".git").exists() {
        let commit = rest.strip_prefix(" (").and_then(|r| r.strip_suffix(')'));
        // Exactly 7 characters, whatever git's own abbreviation would be
        // (which grows with the repository): two builds give the same bytes.
        assert!(
            commit.is_some_and(|c| c.len() == 7 && c.bytes().all(|b| b.is_ascii_hexdigit())),
            "--version names the commit in 7 characters: {line:?}"
        );
    }
}
