#!/usr/bin/env bash
# Whether the release build is reproducible: BINARY, built from this checkout
# by packaging/release-build.sh, must be byte for byte the binary that a
# second build of the same sources gives, made later, from a clone at another
# path, into another target folder; and name none of those folders, nor
# cargo's home.
#
#   bash packaging/test/reproducible.sh BINARY TARGET-DIR
#
# TARGET-DIR is the second build's target folder (.ci/run keeps it between
# runs, so that only our crates are rebuilt; removed, the next run builds
# everything again, which is the stronger check). TARGET (the triple, host by
# default) and ZIG_TARGET are passed to the build as given.
set -euo pipefail
cd "$(dirname "$0")/../.."

binary="${1:?BINARY: the first build}"
target_dir="${2:?TARGET-DIR: the target folder of the second build}"
export TARGET="${TARGET:-$(rustc -vV | sed -n 's/^host: //p')}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The clone holds HEAD; the work tree's versions of the tracked files are
# copied over it, so that both builds see the same sources when they differ
# from HEAD. The path is deliberately deeper and differently named.
clone="$work/elsewhere/second-build/report-lsp"
git clone --quiet --no-local --no-hardlinks . "$clone"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$clone"

start=$SECONDS
(cd "$clone" && CARGO_TARGET_DIR="$target_dir" bash packaging/release-build.sh)
second="$target_dir/$TARGET/release/report-lsp"
[ -f "$second" ] || second="$second.exe"

sum() {
  if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d ' ' -f 1
}
first_sum="$(sum "$binary")"
second_sum="$(sum "$second")"
echo "first build:  $first_sum  $binary"
echo "second build: $second_sum  $second ($((SECONDS - start)) s, from $clone)"
if [ "$first_sum" != "$second_sum" ]; then
  echo "the two release builds differ ($(cmp "$binary" "$second" | head -n 1));" \
    "strings found in one only:" >&2
  diff <(strings -n 8 "$binary" | sort -u) <(strings -n 8 "$second" | sort -u) | head -n 20 >&2 || true
  exit 1
fi
echo "reproducible: the two builds are identical"

# Identical builds on one machine could still both hold this machine's paths
# (one cargo home, one user), which a build elsewhere would not: none of the
# folders either build used may be named in the binary.
# (Absolute folders only: BINARY may be given relative, as the release
# workflow does, and "." would match anything.)
leaks=0
for folder in "${CARGO_HOME:-$HOME/.cargo}" "$PWD" "$clone" "$target_dir" "${CARGO_TARGET_DIR:-$PWD/target}" "$HOME"; do
  case "$folder" in
    /?*) ;;
    *) continue ;;
  esac
  if strings -n 6 "$binary" | grep -F -q "$folder"; then
    echo "the binary names a folder of this machine: $folder" >&2
    leaks=1
  fi
done
[ "$leaks" = 0 ] || exit 1
echo "reproducible: no folder of this machine is named in the binary"
