#!/usr/bin/env bash
# Usage: fuzz/run.sh [SECONDS | --long]
# Runs every fuzz target for SECONDS each (default 60; --long: 20 minutes,
# for any change to the parser), seeding the corpora from the golden
# examples and from fuzz/found/TARGET/, the kept inputs that once found a
# bug (a crash's input is copied there: check it in with its fix). Needs cargo-fuzz. cargo-fuzz wants a nightly
# toolchain's sanitizer flags; rather than install one, the stable toolchain
# is told to accept them with RUSTC_BOOTSTRAP=1 (a nightly works as well:
# `cargo +nightly fuzz run ...`). A crash fails the run and leaves its input
# under fuzz/artifacts/; turn it into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-60}" in
  --long) seconds=1200 ;;
  *[!0-9]*) echo "usage: fuzz/run.sh [SECONDS | --long]" >&2; exit 2 ;;
  *) seconds="${1:-60}" ;;
esac
export RUSTC_BOOTSTRAP=1

targets="analyze_and_fix line_index rope_changes incremental_equivalence parallel_equivalence"
for target in $targets; do
  mkdir -p "fuzz/corpus/$target" "fuzz/found/$target"
  # Every input that ever found a bug stays a seed for good.
  find "fuzz/found/$target" -type f ! -name '*.md' -exec cp {} "fuzz/corpus/$target/" \;
done
cp examples/golden/*.json examples/golden/invalid/*.json fuzz/corpus/analyze_and_fix/
# Two bytes first (how many pieces, how small), then a report.
for report in examples/golden/*.json examples/golden/invalid/*.json; do
  { printf '\007\001'; cat "$report"; } >"fuzz/corpus/parallel_equivalence/$(basename "$report")"
done

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in $targets; do
  echo "fuzzing $target for ${seconds}s"
  # The status is cargo-fuzz's own: a build failure or a crash fails the run.
  if ! cargo fuzz run "$target" "fuzz/corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=65536 >"$log" 2>&1; then
    tail -n 60 "$log"
    for crash in fuzz/artifacts/"$target"/*; do
      [ -f "$crash" ] && cp "$crash" "fuzz/found/$target/"
    done
    echo "fuzzing $target failed; its input is kept under fuzz/found/$target/: check it in with the fix"
    exit 1
  fi
  grep -E "^(Done|#[0-9]+ *DONE)" "$log" || tail -n 3 "$log"
done
