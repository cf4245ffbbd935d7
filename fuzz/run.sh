#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), seeding the corpora
# from the golden examples. Needs cargo-fuzz; the stable toolchain is told to
# accept the sanitizer flags with RUSTC_BOOTSTRAP=1 (no other toolchain can be
# fetched here). A crash fails the run and leaves its input under
# fuzz/artifacts/; turn it into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
export RUSTC_BOOTSTRAP=1

mkdir -p fuzz/corpus/analyze_and_fix fuzz/corpus/line_index fuzz/corpus/rope_changes fuzz/corpus/incremental
cp examples/golden/*.json examples/golden/invalid/*.json fuzz/corpus/analyze_and_fix/

for target in analyze_and_fix line_index rope_changes incremental; do
  echo "fuzzing $target for ${seconds}s"
  cargo fuzz run "$target" "fuzz/corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=65536 2>&1 \
    | grep -E "^(Done|#[0-9]+ *DONE|==[0-9]+==|SUMMARY|thread|panicked)|stat::number_of_executed_units" || true
  test "${PIPESTATUS[0]}" -eq 0
done
