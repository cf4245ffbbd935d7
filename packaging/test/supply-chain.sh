#!/usr/bin/env bash
# The dependencies we ship, checked offline: cargo-deny applies deny.toml
# (no known advisory, allowed licences only, crates only from the crates
# registry) to Cargo.lock and fuzz/Cargo.lock, and cargo-audit reads the
# dependency list that `cargo auditable` embedded in a release binary.
#
#   bash packaging/test/supply-chain.sh check [BINARY]
#       both lock files; with BINARY, also its embedded list (what .ci/run runs)
#   bash packaging/test/supply-chain.sh deny [CARGO-DENY OPTIONS...]
#       one `cargo deny check` with our policy and database (tests/supply_chain.rs
#       runs it on planted copies, to show that each check can fail)
#   bash packaging/test/supply-chain.sh audit [CARGO-AUDIT OPTIONS...]
#       one `cargo audit` with the database
#   bash packaging/test/supply-chain.sh db
#       prints the database's folder
#
# Needs REPORT_LSP_CARGO_DENY and REPORT_LSP_CARGO_AUDIT, the two tools'
# binaries (.ci/run installs them). The advisories come from a RustSec
# snapshot, REPORT_LSP_ADVISORY_DB, else the first shared/advisory-db found
# beside the checkout or a folder above it (../shared/advisory-db). It is
# never fetched, changed or packaged: cargo-deny wants a git checkout of the
# database, so each run commits a copy of it in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/../.."

deny_bin="${REPORT_LSP_CARGO_DENY:?REPORT_LSP_CARGO_DENY: the cargo-deny binary}"
audit_bin="${REPORT_LSP_CARGO_AUDIT:?REPORT_LSP_CARGO_AUDIT: the cargo-audit binary}"
db="${REPORT_LSP_ADVISORY_DB:-}"
if [ -z "$db" ]; then
  above="$(cd .. && pwd)"
  while [ ! -d "$above/shared/advisory-db/crates" ] && [ "$above" != / ]; do
    above="$(dirname "$above")"
  done
  db="$above/shared/advisory-db"
fi
if [ ! -d "$db/crates" ]; then
  echo "no RustSec advisory database (../shared/advisory-db, or set REPORT_LSP_ADVISORY_DB)" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# cargo-deny reads <db-path>/advisory-db-<hash of the URL in deny.toml> as
# a git checkout. (A fresh one counts as fetched now: the snapshot's age is
# never held against it, as the snapshot is the newest there is here.)
prepare_db() {
  local copy="$work/dbs/advisory-db-3157b0e258782691"
  mkdir -p "$work/dbs"
  cp -R "$db" "$copy"
  rm -rf "$copy/.git"
  (
    cd "$copy"
    git init -q
    git add -A
    git -c user.name=snapshot -c user.email=snapshot@localhost -c commit.gpgsign=false \
      commit -q -m "RustSec advisory database snapshot"
  )
  # deny.toml, with its db-path pointing at the copy.
  sed "s|^db-path = .*|db-path = \"$work/dbs\"|" deny.toml >"$work/deny.toml"
  if ! grep -q "^db-path = \"$work/dbs\"" "$work/deny.toml"; then
    echo "deny.toml: no db-path line to point at the snapshot" >&2
    exit 2
  fi
}

# One cargo-deny run, offline and --locked: a lock file that does not match
# its manifests fails instead of being rewritten. The two lock files share
# one policy, so a licence exception one of them never needs is no news.
deny() {
  "$deny_bin" --offline --locked --workspace --config "$work/deny.toml" --color never "$@" \
    check --hide-inclusion-graph --allow license-exception-not-encountered
}

# One cargo-audit run. It reads the snapshot as it is (no git needed);
# --stale accepts its age, --no-fetch keeps it offline.
audit() {
  "$audit_bin" audit --db "$db" --no-fetch --stale --color never "$@"
}

case "${1:-}" in
  db)
    echo "$db"
    ;;
  deny)
    shift
    prepare_db
    deny "$@"
    ;;
  audit)
    shift
    audit "$@"
    ;;
  check)
    binary="${2:-}"
    prepare_db
    "$deny_bin" --version
    # Every platform's packages, so that cargo metadata runs offline below.
    cargo fetch --locked --quiet
    cargo fetch --locked --quiet --manifest-path fuzz/Cargo.toml
    for manifest in Cargo.toml fuzz/Cargo.toml; do
      echo "cargo deny: ${manifest%Cargo.toml}Cargo.lock"
      deny --manifest-path "$manifest"
    done
    if [ -n "$binary" ]; then
      "$audit_bin" --version
      echo "cargo audit bin: $binary"
      audit bin "$binary"
    fi
    ;;
  *)
    echo "usage: supply-chain.sh check [BINARY] | deny [CARGO-DENY OPTIONS...] | audit [CARGO-AUDIT OPTIONS...] | db" >&2
    exit 2
    ;;
esac
