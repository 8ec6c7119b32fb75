#!/bin/sh
# The conformance programs under Open MPI: the proof that they are right before they judge
# vmc. Not part of the test suite (it takes minutes, and needs Open MPI's mpicc and mpirun).
#
#   run_openmpi.sh [DIR [EXAMPLES_DIR]]
#
# Builds every program in DIR (default: this script's directory) with mpicc and runs it with
# mpirun at every p in $P (default 1..12, 16 and 32); a run passes when it exits 0 and prints
# "No Errors". Then again at every p in $SSEND_P (default 1 2 3 4 7) with every MPI_Send and
# MPI_Isend made synchronous (MPI_Ssend, MPI_Issend, through the profiling interface): a
# program that relied on a standard send being buffered would deadlock there, and would
# under vmc's rendezvous protocol. Then the examples: my_allreduce must fail exactly at the
# odd p of 1..16, wildcards pass at every p. Prints the failures, the runs and the time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here}
examples=${2:-$dir/../../../examples/mpi}
P=${P:-1 2 3 4 5 6 7 8 9 10 11 12 16 32}
SSEND_P=${SSEND_P:-1 2 3 4 7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 2' INT TERM
failures=0
runs=0
start=$(date +%s)
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
limit=
command -v timeout > /dev/null 2>&1 && limit="timeout 600"
mpirun_flags="--allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none"

launch() {  # launch P PROGRAM: output in $out, exit status in $rc
  runs=$((runs + 1))
  # shellcheck disable=SC2086
  out=$($limit mpirun $mpirun_flags -np "$1" "$2" 2>&1)
  rc=$?
}

cat > "$work/synchronous_sends.c" << 'SHIM'
#include <mpi.h>
int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return PMPI_Issend(buf, count, type, dest, tag, comm, request);
}
SHIM

programs=
for src in "$dir"/*.c; do
  name=$(basename "$src" .c)
  if mpicc -O2 -Wall "$src" -o "$work/$name" > "$work/$name.build" 2>&1 &&
    mpicc -O2 "$src" "$work/synchronous_sends.c" -o "$work/$name.ssend" >> "$work/$name.build" 2>&1; then
    programs="$programs $name"
  else
    fail "mpicc $name.c"
    head -n 10 "$work/$name.build"
  fi
done

check() {  # check NAME P MODE
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -qx 'No Errors'; then
    fail "$1 at p = $2$3: exit $rc"
    printf '%s\n' "$out" | head -n 15 | sed 's/^/    /'
  else
    echo "ok $1 p = $2$3"
  fi
}
for name in $programs; do
  for p in $P; do
    launch "$p" "$work/$name"
    check "$name" "$p" ""
  done
  for p in $SSEND_P; do
    launch "$p" "$work/$name.ssend"
    check "$name" "$p" " (synchronous sends)"
  done
done

if mpicc -O2 "$examples/my_allreduce.c" -o "$work/my_allreduce" &&
  mpicc -O2 "$examples/wildcards.c" -o "$work/wildcards_example"; then
  for p in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
    launch "$p" "$work/my_allreduce"
    if [ $((p % 2)) -eq 1 ] && [ $rc -eq 0 ]; then fail "my_allreduce passed at odd p = $p"; fi
    if [ $((p % 2)) -eq 0 ] && [ $rc -ne 0 ]; then fail "my_allreduce failed at even p = $p"; fi
    launch "$p" "$work/wildcards_example"
    line=$(printf '%s\n' "$out" | grep '^wildcards:')
    total=$(printf '%s\n' "$line" | sed -n 's/.*total \([0-9]*\) (expected \([0-9]*\)).*/\1 \2/p')
    if [ $rc -ne 0 ] || [ -z "$total" ] || [ "${total% *}" != "${total#* }" ]; then
      fail "wildcards example at p = $p: exit $rc: $line"
    fi
  done
  echo "ok examples: my_allreduce fails exactly at odd p, wildcards right at p = 1..16"
else
  fail "mpicc of the examples"
fi

echo "$runs runs of mpirun in $(($(date +%s) - start)) s"
[ $failures -eq 0 ] && echo "all passed"
exit $((failures > 0))
