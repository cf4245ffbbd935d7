//! The layering of ARCHITECTURE.md, checked: the core crate's dependency
//! tree holds no protocol, async runtime, rope, thread pool or file walker,
//! so the compiler keeps it pure.

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

#[test]
fn the_core_depends_on_no_server_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "report-core",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8(output.stdout).unwrap();
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(names.contains(&"report-core"), "{tree}");
    assert!(names.contains(&"serde_json"), "{tree}");
    // The owner's named tokenizer: syntax.rs is its only user.
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
