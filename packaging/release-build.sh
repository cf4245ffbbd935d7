#!/usr/bin/env bash
# The release build of the report-lsp binary: what the release workflow
# runs on each platform's runner, what .ci/run bundles in its npm package
# and .vsix, and what packaging/test/reproducible.sh builds again to compare.
#
#   TARGET=<rust triple> [ZIG_TARGET=<triple>.2.17] bash packaging/release-build.sh
#
# Writes ${CARGO_TARGET_DIR:-target}/$TARGET/release/report-lsp[.exe].
# Needs cargo-auditable on PATH (and cargo-zigbuild for ZIG_TARGET).
#
# Auditable: `cargo auditable` embeds the dependency list (crate names and
# versions, from Cargo.lock) in a `.dep-v0` section that `cargo audit bin`
# and other scanners read from the binary alone.
#
# Reproducible: one commit gives the same bytes wherever and whenever it is
# built with the same toolchain (the release workflow pins it).
# - Paths: our crates are compiled from paths relative to the workspace and
#   the standard library's are already /rustc/<hash>/; the dependencies'
#   panic messages would name cargo's home, mapped here to /cargo. (Only
#   that: a flag naming the checkout's path would change with every clone
#   and make cargo rebuild every dependency.)
# - Time: nothing embeds the build's date; SOURCE_DATE_EPOCH is the
#   commit's, for any tool that would read it.
# - Commit: build.rs embeds HEAD's first 7 characters, the same for every
#   clone of one commit, shallow or not.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${TARGET:?TARGET: the Rust target triple to build}"

# rustc takes the paths in the platform's own form (C:\... on Windows).
native() {
  if command -v cygpath >/dev/null; then cygpath -w "$1"; else printf '%s\n' "$1"; fi
}
cargo_home="$(native "${CARGO_HOME:-$HOME/.cargo}")"

SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH
export CARGO_INCREMENTAL=0
# CARGO_ENCODED_RUSTFLAGS (arguments separated by 0x1f) survives spaces in paths.
export CARGO_ENCODED_RUSTFLAGS="--remap-path-prefix=$cargo_home=/cargo"
unset RUSTFLAGS

if [ -n "${ZIG_TARGET:-}" ]; then
  # cargo-auditable runs "$CARGO build ..."; cargo-zigbuild answers as cargo.
  # Called directly: `cargo auditable` would get cargo's own CARGO.
  CARGO=cargo-zigbuild cargo-auditable auditable build --release --locked --target "$ZIG_TARGET" -p report-lsp --bin report-lsp
else
  cargo auditable build --release --locked --target "$TARGET" -p report-lsp --bin report-lsp
fi
