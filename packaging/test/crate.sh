#!/usr/bin/env bash
# Tests the crates as a registry would receive them: packages the workspace
# (`cargo package --locked --workspace`, which also builds each package on
# its own), checks what the packages hold, runs `cargo publish --dry-run`
# for report-core then report-lsp, and installs report-lsp from its package
# offline into a throw-away root (its report-core from the package beside
# it, as the registry would serve it), then runs the installed binary on the
# golden examples.
#
#   bash packaging/test/crate.sh [CARGO ARGS...]   (e.g. --allow-dirty while developing)
#
# Everything builds in a target folder of its own, below CARGO_TARGET_DIR
# (kept between runs where that is, as in .ci/run's cache): the packages'
# report-lsp is another package than the workspace's, whose binaries it
# would otherwise overwrite (and a build found fresh would then hand out
# the other one's).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
target="$(mkdir -p "${CARGO_TARGET_DIR:-target}/packaging" && cd "${CARGO_TARGET_DIR:-target}/packaging" && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/report-lsp-crate-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
suite=crates
# shellcheck source=packaging/test/lib.sh
source packaging/test/lib.sh
version="$(workspace_version)"

# cargo package's check builds in dev, the install in release.
fresh_crates "$target" dev release

say "cargo package --locked --workspace $*"
cargo package --locked --workspace --target-dir "$target" "$@" 2>&1 | grep -v '^warning: ignoring \(test\|benchmark\)' || fail "cargo package"
pass "every package builds on its own"

say "what the packages hold"
tar tzf "$target/package/report-lsp-$version.crate" >"$work/lsp"
tar tzf "$target/package/report-core-$version.crate" >"$work/core"
for file in Cargo.toml Cargo.lock README.md LICENSE-MIT LICENSE-APACHE build.rs src/main.rs .cargo_vcs_info.json \
  examples/golden/valid.report.json examples/golden/invalid/07-safety-tier.report.json; do
  contains "$work/lsp" "report-lsp-$version/$file" "report-lsp's package"
done
for file in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE invariants.md build.rs src/lib.rs; do
  contains "$work/core" "report-core-$version/$file" "report-core's package"
done
# The core's files that link to the root's are the real text, not a link's.
for file in invariants.md LICENSE-MIT LICENSE-APACHE; do
  tar xzOf "$target/package/report-core-$version.crate" "report-core-$version/$file" | cmp -s - "$file" ||
    fail "report-core's $file differs from the repository's"
done
# Nor the RustSec snapshot the supply-chain check reads (it lives outside
# the checkout, and its copies in temporary folders).
if grep -E '/(tests|benches|editors|fuzz|packaging|\.ci|\.github)/|/tests\.rs$|\.expected$|advisory-db|RUSTSEC-|/deny\.toml$' "$work/lsp" "$work/core"; then
  fail "a package holds tests, fixtures, editors, packaging or advisories (above)"
fi
pass "the packages hold the sources, the licences and the README, and no tests or fixtures"

say "cargo publish --dry-run --locked -p report-core -p report-lsp $*"
cargo publish --dry-run --locked -p report-core -p report-lsp --target-dir "$target" "$@" >"$work/publish" 2>&1 || {
  cat "$work/publish"
  fail "cargo publish --dry-run"
}
grep -E '^ *Uploading' "$work/publish" | tee "$work/order"
if [ "$(grep -c . "$work/order")" != 2 ] || ! head -n 1 "$work/order" | grep -q "report-core"; then
  fail "the dry run does not upload report-core, then report-lsp"
fi
pass "the dry run publishes report-core, then report-lsp"

say "cargo install --offline from the packages, unpacked outside any workspace"
# As a user gets them: the .crate files unpacked in a folder of their own.
mkdir "$work/crates"
tar xzf "$target/package/report-lsp-$version.crate" -C "$work/crates"
tar xzf "$target/package/report-core-$version.crate" -C "$work/crates"
cargo install --locked --offline --root "$work/root" --target-dir "$target" \
  --path "$work/crates/report-lsp-$version" \
  --config "patch.crates-io.report-core.path=\"$work/crates/report-core-$version\"" 2>&1 |
  grep -v '^ *Compiling' || fail "cargo install"
pass "installed from the package"
checks_the_goldens "the installed report-lsp" "$work/root/bin/report-lsp"
checks_stripped "the installed report-lsp" "$work/root/bin/report-lsp"

echo "$suite: $passed passed, 0 failed"
