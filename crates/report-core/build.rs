//! Embeds `invariants.md` (the contract in our words, quoted by hover and
//! `report-lsp explain`): this folder's copy, a link to the repository's
//! root file in a checkout and the file itself in the published package.
//! A checkout without symbolic links (Windows) leaves the link's target as
//! the file's text; then the root's file is read instead.

use std::path::PathBuf;

fn main() {
    // Read when the script runs (not `env!`): a copy of the package elsewhere
    // may share the compiled script.
    let crate_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let own = crate_dir.join("invariants.md");
    let text = std::fs::read_to_string(&own).expect("invariants.md is beside Cargo.toml");
    println!("cargo:rerun-if-changed={}", own.display());
    let text = match text.trim() {
        link if link.len() < 200 && link.starts_with("../") => {
            let root = crate_dir.join(link);
            println!("cargo:rerun-if-changed={}", root.display());
            std::fs::read_to_string(&root).expect("the root's invariants.md the link names")
        }
        _ => text,
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("invariants.md"), text).expect("OUT_DIR is writable");
}
