//! Checks the Mason (mason.nvim) package definition,
//! `packaging/mason/packages/report-lsp/package.yaml`, against Mason's registry schema.
//!
//! mason-registry's CI validates every `packages/<name>/package.yaml` against
//! that schema, so a definition that fails here would be turned away upstream.
//! The schema is split over many files that `$ref` each other by their `$id`
//! (`https://json.schemastore.org/mason-registry.json/...`); a vendored copy
//! lives in `packaging/mason/schema/` (see its README) and every file in it is
//! registered under its `$id`, so nothing is fetched: an unresolved `$ref`
//! fails the build of the validator instead.
//!
//! The second test breaks the definition in several ways and expects each to
//! be rejected, so the first cannot pass because the schema accepts anything.

use std::path::{Path, PathBuf};

use jsonschema::{Registry, Validator};
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn package() -> Value {
    let path = Path::new(ROOT).join("packaging/mason/packages/report-lsp/package.yaml");
    serde_yaml_ng::from_str(&read(&path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// A validator for `package.schema.json`, with every vendored schema file
/// registered under its `$id` and retrieval switched off.
fn validator() -> Validator {
    let dir = Path::new(ROOT).join("packaging/mason/schema");
    let mut files = Vec::new();
    json_files(&dir, &mut files);
    let mut resources = Vec::new();
    for path in &files {
        let schema: Value = serde_json::from_str(&read(path)).unwrap();
        let id = schema["$id"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: no $id", path.display()));
        resources.push((id.to_owned(), schema));
    }
    assert!(
        resources.len() > 20,
        "vendored schema looks incomplete: {files:?}"
    );
    let registry = Registry::new()
        .extend(resources)
        .unwrap()
        .prepare()
        .unwrap();
    let main: Value = serde_json::from_str(&read(&dir.join("package.schema.json"))).unwrap();
    jsonschema::options()
        .with_registry(&registry)
        .offline()
        .should_validate_formats(true)
        .build(&main)
        .expect("the vendored Mason schema compiles with all its $refs resolved")
}

fn errors(validator: &Validator, package: &Value) -> Vec<String> {
    validator
        .iter_errors(package)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn package_yaml_is_valid_against_mason_schema() {
    let package = package();
    let errors = errors(&validator(), &package);
    assert!(
        errors.is_empty(),
        "package.yaml is invalid:\n{}",
        errors.join("\n")
    );

    // The schema only wants some `pkg:pypi/...@...`; pin ours to this crate.
    let purl = format!("pkg:pypi/report-lsp@{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(package["source"]["id"], purl.as_str());
    assert_eq!(package["bin"]["report-lsp"], "pypi:report-lsp");
}

#[test]
fn broken_package_yaml_is_rejected() {
    let validator = validator();
    type Breakage = fn(&mut Value);
    let breakages: [(&str, Breakage); 6] = [
        ("no source", |p| {
            p.as_object_mut().unwrap().remove("source");
        }),
        ("purl without a version", |p| {
            p["source"]["id"] = "pkg:pypi/report-lsp".into()
        }),
        ("no licenses", |p| p["licenses"] = serde_json::json!([])),
        ("not a licence", |p| {
            p["licenses"][0] = "MIT / Apache 2".into()
        }),
        ("unknown category", |p| {
            p["categories"][0] = "Validator".into()
        }),
        ("unknown field", |p| p["version"] = "0.1.0".into()),
    ];
    for (what, breakage) in breakages {
        let mut package = package();
        breakage(&mut package);
        assert!(
            !validator.is_valid(&package),
            "accepted a package.yaml with {what}"
        );
    }
}
