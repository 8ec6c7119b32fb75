#!/usr/bin/env bash
# Runs vmc's host benchmarks (bench/bench_collectives: ratios against baselines measured in
# the same run) on the release build and writes their table to docs/bench.md, which
# docs/performance.md links to. Takes a few minutes; never part of the tests.
#
#   tools/bench.sh                    (after tools/setup.sh)
#   VMC_BENCH_REPETITIONS=5 tools/bench.sh
#
# The peers, when installed (apt-get install libopenmpi-dev openmpi-bin libsimgrid-dev time;
# re-run tools/setup.sh so that CMake builds bench/peers/peer_allreduce.c):
#   - Open MPI's MPI_Allreduce on this host (mpirun), beside the same allreduce rows, and
#     the same program built with vmcc under `vmc mpirun` (the MPI interface's small call);
#   - SimGrid's SMPI simulating a 1 MiB-per-node allreduce on 1,024 nodes, against
#     `vmc run` of the same call: whole processes (set-up and the one call), wall time and
#     peak memory from /usr/bin/time.
# With VMC_BENCH_SMPI=1 it then runs tools/bench_smpi.sh (about 20 minutes; it installs
# SimGrid when missing): the same MPI programs (allreduce, bcast and alltoall loops) under
# smpirun and vmc mpirun, p = 16 to 4,096, written to docs/bench-smpi.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target bench_collectives vmc vmcc vmc_mpi vmc_mpi_per_rank -j "$(nproc)"
out="$(mktemp)"
peers="$(mktemp)"
work="$(mktemp -d)"
trap 'rm -rf "$out" "$peers" "$work"' EXIT

if [ -x build/bench/peer_allreduce ] && command -v mpirun >/dev/null; then
  # Open MPI refuses root unless told; --oversubscribe: more ranks than cores, as vmc runs.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  openmpi() {  # ranks bytes calls: microseconds per call
    mpirun -np "$1" --oversubscribe --bind-to none build/bench/peer_allreduce "$2" "$3" |
      awk '/^per_call_us/ { print $2 }'
  }
  echo "openmpi/allreduce/8/16MiB $(openmpi 8 16777216 5)" >> "$peers"
  echo "openmpi/allreduce/2/8B $(openmpi 2 8 20000)" >> "$peers"
  echo "openmpi/allreduce/16/8B $(openmpi 16 8 200)" >> "$peers"
  echo "openmpi/allreduce/64/8B $(openmpi 64 8 50)" >> "$peers"
  # The same program through vmc's MPI interface (vmcc, vmc mpirun). MPI_Wtime is virtual
  # time there, so the host's time per call is taken from whole processes: one with the
  # warm-up call only, one with 5 x 20,000 more; their difference over the calls.
  if [ -x build/vmcc ]; then
    ./build/vmcc -O2 -o "$work/peer_allreduce_vmc" bench/peers/peer_allreduce.c
    vmc_mpirun() {  # ranks bytes calls: seconds of the whole process
      local t0 t1
      t0="$(date +%s.%N)"
      ./build/vmc mpirun -np "$1" "$work/peer_allreduce_vmc" "$2" "$3" > /dev/null
      t1="$(date +%s.%N)"
      awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }'
    }
    vmc_per_call() {  # ranks bytes: microseconds per call
      local none many
      none="$(vmc_mpirun "$1" "$2" 0)"
      many="$(vmc_mpirun "$1" "$2" 20000)"
      awk -v a="$none" -v b="$many" 'BEGIN { printf "%.3f", (b - a) / (5 * 20000) * 1e6 }'
    }
    echo "vmc_mpirun/allreduce/2/8B $(vmc_per_call 2 8)" >> "$peers"
  fi
  cat "$peers"
else
  echo "tools/bench.sh: no Open MPI (mpirun and build/bench/peer_allreduce): no peer rows"
fi

VMC_PEERS="$peers" ./build/bench/bench_collectives \
  --benchmark_repetitions="${VMC_BENCH_REPETITIONS:-3}" \
  --benchmark_report_aggregates_only=true | tee "$out"

# Whole processes: a 1 MiB-per-node allreduce on 1,024 nodes, set-up and the call.
whole=""
if command -v smpicc >/dev/null && command -v smpirun >/dev/null && [ -x /usr/bin/time ]; then
  smpicc -O2 -o "$work/peer_allreduce_smpi" bench/peers/peer_allreduce.c 2>/dev/null
  {
    echo "<?xml version='1.0'?>"
    echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
    echo '<platform version="4.1">'
    echo '  <cluster id="vmc" prefix="node-" suffix="" radical="0-1023" speed="1Gf"'
    echo '           bw="10GBps" lat="1us"/>'
    echo '</platform>'
  } > "$work/cluster.xml"
  for i in $(seq 0 1023); do echo "node-$i"; done > "$work/hosts"
  /usr/bin/time -f "%e %M" -o "$work/simgrid.time" \
    smpirun -np 1024 -platform "$work/cluster.xml" -hostfile "$work/hosts" \
    --cfg=smpi/host-speed:1Gf "$work/peer_allreduce_smpi" 1048576 0 > /dev/null 2>&1
  /usr/bin/time -f "%e %M" -o "$work/vmc.time" \
    ./build/vmc run --op allreduce --topology full:1024 --n 262144 --type float \
    --alpha 1us --beta 0.4ns --gamma 1ns > /dev/null
  read -r vs vk < "$work/vmc.time"
  read -r ss sk < "$work/simgrid.time"
  whole="$(awk -v vs="$vs" -v vk="$vk" -v ss="$ss" -v sk="$sk" 'BEGIN {
    printf "| process | wall time | peak memory |\n|---|---:|---:|\n"
    printf "| vmc run (fibers, virtual clock) | %.2f s | %.0f MiB |\n", vs, vk / 1024
    printf "| SimGrid %s smpirun | %.2f s | %.0f MiB |\n", "SMPI", ss, sk / 1024
    printf "| SimGrid / vmc | %.1fx | %.2fx |\n", ss / vs, sk / vk
  }')"
  echo "$whole"
else
  echo "tools/bench.sh: no SimGrid (smpicc, smpirun) or /usr/bin/time: no whole-process rows"
fi

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
  if [ -n "$whole" ]; then
    echo
    echo "A 1 MiB-per-node allreduce (floats, sum) on 1,024 nodes, each tool's whole process:"
    echo "set-up, generating the data and the one call (\`vmc run --op allreduce --topology"
    echo "full:1024 --n 262144\`; bench/peers/peer_allreduce.c under \`smpirun -np 1024\` on a"
    echo "1,024-host cluster). Both touch 2 GiB of fresh memory for inputs and outputs."
    echo
    echo "$whole"
  fi
} > docs/bench.md
echo "wrote docs/bench.md"
if [ "${VMC_BENCH_SMPI:-0}" = 1 ]; then
  tools/bench_smpi.sh
fi
