#!/usr/bin/env bash
# Builds the core as WebAssembly (crates/report-wasm) into editors/web/dist:
# report_wasm.wasm (the module, for Node and the web extension), and the page
# (index.html and report-wasm.js, the module's bytes; see bundle.mjs).
# With rustup, its wasm32-unknown-unknown target (`rustup target add
# wasm32-unknown-unknown`), as on a release runner. Without it, Debian's
# rustc-web, cargo-web and rust-web-src (and lld's wasm-ld): the std is built
# from Debian's sources, which needs RUSTC_BOOTSTRAP for -Zbuild-std.
set -euo pipefail
cd "$(dirname "$0")/../.."
target_dir="${CARGO_TARGET_DIR:-$PWD/target}/web"
# Small over fast: the module is downloaded by every page that loads it.
export CARGO_PROFILE_RELEASE_OPT_LEVEL=s CARGO_PROFILE_RELEASE_LTO=true CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
# Panics' locations name no folder of this machine, as in the release's
# binaries (packaging/release-build.sh): the same bytes from any checkout.
debian_std=/usr/lib/rustlib/src/rust
export CARGO_ENCODED_RUSTFLAGS="--remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo"$'\x1f'"--remap-path-prefix=$debian_std=/rust"
unset RUSTFLAGS
if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  cargo build --locked -p report-wasm --release --target wasm32-unknown-unknown --target-dir "$target_dir"
elif [ -x /usr/bin/rustc ] && [ -d "$debian_std/library" ] && command -v wasm-ld >/dev/null; then
  PATH=/usr/bin:/bin RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld \
    /usr/bin/cargo build --locked -p report-wasm --release --target wasm32-unknown-unknown \
    --target-dir "$target_dir" -Zbuild-std=std,panic_abort
else
  echo "no Rust for wasm32: rustup target add wasm32-unknown-unknown, or apt-get install rustc-web cargo-web rust-web-src lld" >&2
  exit 2
fi
mkdir -p editors/web/dist
cp "$target_dir/wasm32-unknown-unknown/release/report_wasm.wasm" editors/web/dist/
node editors/web/bundle.mjs
ls -l editors/web/dist
