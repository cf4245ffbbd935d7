# shellcheck shell=bash
# Helpers the installation tests share (sourced, not run). The caller sets
# `work` (a temp folder), `suite` (the name in the closing line), `root`
# (the repository) and, for checks_the_goldens, `version`.
# shellcheck disable=SC2154 # work, suite, root and version are the caller's
passed=0
say() { echo "== $*"; }
pass() {
  passed=$((passed + 1))
  echo "ok: $*"
}
fail() {
  echo "FAILED: $*" >&2
  echo "$suite: $passed passed, 1 failed"
  exit 1
}
# Runs a command, keeping its output and error: expect STATUS DESCRIPTION COMMAND...
expect() {
  local want=$1 what=$2
  shift 2
  local status=0
  "$@" >"$work/out" 2>"$work/err" || status=$?
  if [ "$status" != "$want" ]; then
    echo "--- stdout of: $*"
    cat "$work/out"
    echo "--- stderr"
    cat "$work/err"
    fail "$what: exit status $status, expected $want"
  fi
}
contains() { # FILE TEXT DESCRIPTION
  grep -qF -- "$2" "$1" || {
    cat "$1"
    fail "$3: no \"$2\" in the output above"
  }
}
# The version every package carries: the workspace's, in Cargo.toml.
workspace_version() {
  sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml
}
# Packaged sources (a .crate's or an sdist's files) all carry one fixed date,
# older than any build: cargo would take a target folder's builds of an
# earlier package for fresh. So our two crates are built anew each run in
# TARGET_DIR (their dependencies stay). fresh_crates TARGET_DIR PROFILE...
# `cargo package --workspace` also unpacks report-core's package into
# CARGO_HOME's registry sources to build report-lsp's against it, and takes
# an earlier run's unpacked copy of the same version as it is: those go too.
fresh_crates() {
  local target_dir=$1 profile version registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
  shift
  for profile in "$@"; do
    cargo clean --quiet --profile "$profile" --target-dir "$target_dir" -p report-lsp -p report-core
  done
  version="$(workspace_version)"
  rm -rf "$registry"/*/"report-core-$version" "$registry"/*/"report-lsp-$version"
}
# What ships has no symbol table: the release profile (and maturin) strip it.
# checks_stripped NAME BINARY
checks_stripped() {
  local name=$1 binary=$2
  ! readelf -S "$binary" | grep -q ' \.symtab' || fail "$name keeps its symbol table"
  pass "$name is stripped"
}

# Checks an installed report-lsp: --version names VERSION and HEAD's commit (or,
# with without_commit=1, VERSION alone: a build with neither git nor a
# package's record of one), the valid golden report passes and the invalid
# one fails. checks_the_goldens NAME COMMAND...
checks_the_goldens() {
  local name=$1
  shift
  expect 0 "$name --version" "$@" --version
  cat "$work/out"
  if [ "${without_commit:-0}" = 1 ]; then
    grep -qE "^report-lsp $version$" "$work/out" || fail "$name --version is not the version alone"
    pass "$name --version names the version"
  else
    # This checkout's commit: a binary left from another build names another.
    local head
    head="$(git -C "$root" rev-parse HEAD)"
    grep -qE "^report-lsp $version \(${head:0:7}[0-9a-f]*\)$" "$work/out" ||
      fail "$name --version does not name the version and this commit (${head:0:7})"
    pass "$name --version names the version and this commit"
  fi
  expect 0 "$name check of the valid report" "$@" check "$root/examples/golden/valid.report.json"
  tail -n 1 "$work/out"
  pass "$name check of a valid report exits 0"
  expect 1 "$name check of the invalid report" "$@" check "$root/examples/golden/invalid.report.json"
  tail -n 1 "$work/out"
  pass "$name check of an invalid report exits 1"
}
