#!/usr/bin/env bash
# Runs vmc's host benchmarks (bench/bench_collectives: ratios against baselines measured in
# the same run) on the release build and writes their table to docs/bench.md, which the
# README shows. Takes a few minutes; never part of the tests.
#
#   tools/bench.sh                    (after tools/setup.sh)
#   VMC_BENCH_REPETITIONS=5 tools/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target bench_collectives -j "$(nproc)"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
./build/bench/bench_collectives --benchmark_repetitions="${VMC_BENCH_REPETITIONS:-3}" \
  --benchmark_report_aggregates_only=true | tee "$out"
{
  echo "# Host benchmarks"
  echo
  echo "Written by \`tools/bench.sh\` on $(nproc) cores ($(uname -m)), $(date -u +%Y-%m-%d):"
  echo "medians of ${VMC_BENCH_REPETITIONS:-3} repetitions, virtual clock. A ratio is vmc's"
  echo "time per call over the baseline's, both measured in the same run."
  echo
  sed -n '/^<!-- bench_collectives table -->$/,$p' "$out" | tail -n +2
  echo
  echo "Memory per node: the peak resident memory each timing-only benchmark added to the"
  echo "process, over p; memory an earlier benchmark left in oneTBB's pools is not counted"
  echo "again. \`/usr/bin/time ./build/vmc run ... --data none\` gives a whole process's."
} > docs/bench.md
echo "wrote docs/bench.md"
