#!/usr/bin/env bash
# Tests the Python wheel: builds it with maturin (pyproject.toml, bindings =
# "bin"), linked by zig (the ziglang package) against glibc 2.17, as the
# release does, and maturin checks the binary against the manylinux2014
# policy; checks that it carries the README
# and the licences, installs it into a fresh venv with no index, and runs
# the venv's report-lsp on the golden examples; then the same from the
# source distribution, which pip builds where no wheel fits the platform.
#
#   bash packaging/test/wheel.sh [CACHE]   (maturin's venv is kept in CACHE;
#                                           default ~/.cache/report-lsp-ci)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
cache="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/report-lsp-ci}"
# Absolute: the sdist's build runs in a folder of pip's.
CARGO_TARGET_DIR="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
export CARGO_TARGET_DIR

work="$(mktemp -d "${TMPDIR:-/tmp}/report-lsp-wheel-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
suite=wheel
# shellcheck source=packaging/test/lib.sh
source packaging/test/lib.sh
version="$(workspace_version)"

maturin_version=1.16.0
ziglang_version=0.17.0
venv="$cache/maturin-$maturin_version-zig-$ziglang_version"
maturin="$venv/bin/maturin"
if ! "$maturin" --version 2>/dev/null | grep -q "^maturin $maturin_version$" ||
  ! "$venv/bin/python" -m ziglang version >/dev/null 2>&1; then
  say "maturin $maturin_version and ziglang $ziglang_version into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --disable-pip-version-check --no-input "maturin==$maturin_version" "ziglang==$ziglang_version"
fi

# As the release ships it: linked by zig against glibc 2.17 (manylinux2014),
# which maturin's policy check then confirms (zig from the venv's PATH:
# python-zig). In a target folder of its own:
# zig's linker is not the host build's.
say "maturin build --release --locked --zig --compatibility manylinux2014"
CARGO_TARGET_DIR="$CARGO_TARGET_DIR/zig" PATH="$venv/bin:$PATH" "$maturin" build --release --locked --zig --compatibility manylinux2014 \
  --target x86_64-unknown-linux-gnu --out "$work/dist" 2>&1 | grep -v '^ *Compiling' || fail "maturin build"
wheels=("$work/dist"/*.whl)
[ "${#wheels[@]}" = 1 ] || fail "maturin built ${#wheels[@]} wheels"
wheel="${wheels[0]}"
echo "$wheel"
case "$(basename "$wheel")" in
  "report_lsp-$version-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl") ;;
  *) fail "the wheel is not a manylinux2014 (glibc 2.17) wheel of report_lsp $version: $(basename "$wheel")" ;;
esac
pass "a manylinux2014 wheel of report-lsp $version (maturin's policy check passed)"

say "what the wheel holds"
python3 -m zipfile -l "$wheel" | awk 'NR > 1 { print $1 }' >"$work/files"
cat "$work/files"
info="report_lsp-$version.dist-info"
for file in "$info/licenses/LICENSE-MIT" "$info/licenses/LICENSE-APACHE" "$info/METADATA" "report_lsp-$version.data/scripts/report-lsp"; do
  contains "$work/files" "$file" "the wheel's files"
done
if grep -v "^report_lsp-$version\.d" "$work/files"; then
  fail "files outside the wheel's .data and .dist-info (above) would land in site-packages"
fi
python3 -m zipfile -e "$wheel" "$work/unpacked"
# maturin builds the wheel's binary itself, not with cargo auditable: the
# wheel carries its dependency list as an SBOM instead, which must name the
# crates of Cargo.lock, version for version.
python3 - "$work/unpacked/$info/sboms/report-lsp.cyclonedx.json" Cargo.lock <<'EOF' || fail "the wheel's SBOM"
import json
import sys
import tomllib

bom = json.load(open(sys.argv[1], encoding="utf-8"))
assert bom["bomFormat"] == "CycloneDX", bom["bomFormat"]
assert bom["metadata"]["component"]["name"] == "report-lsp", bom["metadata"]["component"]
with open(sys.argv[2], "rb") as lock:
    locked = {(p["name"], p["version"]) for p in tomllib.load(lock)["package"]}
listed = {(c["name"], c["version"]) for c in bom["components"]}
assert listed <= locked, f"not in Cargo.lock: {sorted(listed - locked)}"
names = {name for name, _ in listed}
for shipped in ["report-core", "tower-lsp-server", "tokio", "serde_json", "ropey", "jsonc-parser"]:
    assert shipped in names, f"{shipped} is not in the SBOM"
print(f"the wheel's SBOM: CycloneDX {bom['specVersion']}, {len(listed)} crates, all in Cargo.lock")
EOF
metadata="$work/unpacked/$info/METADATA"
contains "$metadata" "License-Expression: MIT OR Apache-2.0" "METADATA"
contains "$metadata" "Description-Content-Type: text/markdown" "METADATA"
# The README is the description, whole.
python3 -c '
import sys
body = open(sys.argv[1], encoding="utf-8").read().split("\n\n", 1)[1]
sys.exit(body.strip() != open(sys.argv[2], encoding="utf-8").read().strip())' "$metadata" README.md ||
  fail "METADATA's description is not README.md"
size="$(stat -c %s "$work/unpacked/report_lsp-$version.data/scripts/report-lsp")"
echo "the binary: $size bytes (stripped)"
pass "the wheel carries the README as its description and both licences"

say "pip install --no-index into a fresh venv"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --disable-pip-version-check --no-input --no-index "$wheel" >"$work/pip" 2>&1 || {
  cat "$work/pip"
  fail "pip install of the wheel"
}
[ -x "$work/venv/bin/report-lsp" ] || fail "no report-lsp in the venv's bin/"
pass "installed: the venv's bin/ holds report-lsp"
checks_the_goldens "the venv's report-lsp" "$work/venv/bin/report-lsp"
checks_stripped "the venv's report-lsp" "$work/venv/bin/report-lsp"

say "maturin sdist, a wheel built from it by pip (as where no wheel fits), installed"
"$maturin" sdist --out "$work/sdist" 2>&1 | tail -n 1
sdists=("$work/sdist"/*.tar.gz)
[ "${#sdists[@]}" = 1 ] || fail "maturin wrote ${#sdists[@]} source distributions"
tar tzf "${sdists[0]}" >"$work/sdist-files"
for file in pyproject.toml Cargo.toml Cargo.lock README.md LICENSE-MIT LICENSE-APACHE crates/report-core/invariants.md \
  examples/golden/valid.report.json; do
  contains "$work/sdist-files" "report_lsp-$version/$file" "the sdist's files"
done
# The RustSec snapshot the supply-chain check reads is never packaged.
if grep -E 'advisory-db|RUSTSEC-' "$work/sdist-files" "$work/files"; then
  fail "the sdist or the wheel holds advisories (above)"
fi
# maturin's venv is the build backend (which runs its maturin from PATH).
# A target folder of its own: the sdist's report-lsp is another package than
# the workspace's, whose binary it would otherwise overwrite.
fresh_crates "$CARGO_TARGET_DIR/build-from-sdist" release
CARGO_TARGET_DIR="$CARGO_TARGET_DIR/build-from-sdist" PATH="$(dirname "$maturin"):$PATH" \
  "$(dirname "$maturin")/pip" wheel --disable-pip-version-check --no-input --no-deps --no-build-isolation --no-index \
  -w "$work/from-sdist" "${sdists[0]}" >"$work/pip" 2>&1 || {
  tail -n 40 "$work/pip"
  fail "pip wheel from the sdist"
}
python3 -m venv "$work/venv-sdist"
"$work/venv-sdist/bin/pip" install --disable-pip-version-check --no-input --no-index "$work/from-sdist"/*.whl >"$work/pip" 2>&1 || {
  cat "$work/pip"
  fail "pip install of the wheel built from the sdist"
}
pass "the sdist builds and installs"
# Built outside any checkout, it has no commit to name.
without_commit=1 checks_the_goldens "the sdist's report-lsp" "$work/venv-sdist/bin/report-lsp"

echo "$suite: $passed passed, 0 failed"
