//! Embeds `invariants.md` (the contract in our words, quoted by hover and
//! `report-lsp explain`). In the repository it is the root's file; in the
//! published package, the copy `cargo package` made of this folder's link
//! to it. The root's file is read first where it exists, so a checkout
//! without symbolic links (Windows) still embeds the real text.

use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let source = [
        crate_dir.join("../../invariants.md"),
        crate_dir.join("invariants.md"),
    ]
    .into_iter()
    .find(|path| path.is_file())
    .expect("invariants.md: the repository's root or this package holds it");
    println!("cargo:rerun-if-changed={}", source.display());
    let text = std::fs::read_to_string(&source).expect("invariants.md is UTF-8 text");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("invariants.md"), text).expect("OUT_DIR is writable");
}
