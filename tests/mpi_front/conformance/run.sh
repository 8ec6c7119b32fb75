#!/bin/sh
# vmc's MPI conformance programs under vmc mpirun.
#
#   run.sh VMC VMCC DIR [EXAMPLES_DIR]
#
# Builds every program in DIR with vmcc and runs it with vmc mpirun at p = 1..12 and at
# p = 16 and 31, each p on one of eight machines (full, ring, hypercube and mesh, each on the
# threads and the fibers engine) so that every program meets every machine, plus p = 5 under
# --protocol rendezvous; a run passes when it exits 0 and prints "No Errors". Then:
#   - determinism: 20 runs of the determinism program at p = 8 on both engines, 8 of them
#     beside a busy core, and 6 at p = 13 on a mesh, must print the same output;
#   - wrong programs end with an MPI error naming the rank, the function and the problem (a
#     negative count, a rank out of range, a collective whose ranks disagree, MPI_Abort), and
#     a deadlock (two ranks in MPI_Recv from each other; a nonblocking collective whose root
#     never starts it) with a report, never a hang;
#   - the examples: my_allreduce fails at every odd p and only there (also found by one
#     vmc mpirun -np 1:16), wildcards gets its total at every p and the same split each run.
# VMC_CONFORMANCE_FULL=1 runs every p on all eight machines instead (eight times as many
# runs), and p = 64 on a mesh (the reductions, alltoall and the nonblocking collectives left
# out, the slowest);
# VMC_CONFORMANCE_ONLY="env groups" runs only the programs named; VMC_CONFORMANCE_PART=
# collectives runs only the programs coll_*, VMC_CONFORMANCE_PART=others the other programs
# and the checks after them (two ctest tests that run side by side). Prints every failure
# with the command that reproduces it, the number of runs and the time taken; exits 1 when
# anything failed.
set -u
vmc=$1 vmcc=$2 dir=$3
examples=${4:-$dir/../../../examples/mpi}
work=$(mktemp -d)
busy=
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  [ -n "$busy" ] && kill "$busy" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM
failures=0
runs=0
start=$(date +%s)
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Every run is bounded: a hang is a failure, not a stuck test.
limit=
command -v timeout > /dev/null 2>&1 && limit="timeout 300"

# The flags of machine KIND with P nodes (a mesh as square as P allows).
machine() {
  case $1 in
    full) echo "-np $2" ;;
    ring) echo "--topology ring:$2" ;;
    hypercube) echo "--topology hypercube:$2" ;;
    mesh)
      a=1 i=1
      while [ $((i * i)) -le "$2" ]; do
        [ $(($2 % i)) -eq 0 ] && a=$i
        i=$((i + 1))
      done
      echo "--topology mesh:${a}x$(($2 / a))"
      ;;
  esac
}

# launch FLAGS...: runs vmc mpirun, output in $out, exit status in $rc.
launch() {
  runs=$((runs + 1))
  # shellcheck disable=SC2086
  out=$($limit "$vmc" mpirun "$@" 2>&1)
  rc=$?
  [ $rc -eq 124 ] && [ -n "$limit" ] && out="$out
(timed out after 300 s)"
}

show() { printf '%s\n' "$out" | head -n "${1:-20}" | sed 's/^/    /'; }

# conform PROGRAM P MACHINE ENGINE [FLAGS...]: one run that must pass.
conform() {
  name=$1 p=$2 kind=$3 engine=$4
  shift 4
  # shellcheck disable=SC2046
  launch $(machine "$kind" "$p") --engine "$engine" "$@" "$work/$name"
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -qx 'No Errors'; then
    fail "$name, p = $p: exit $rc: vmc mpirun $(machine "$kind" "$p") --engine $engine $* $name"
    show
  fi
}

# The programs.
programs=
for src in "$dir"/*.c; do
  name=$(basename "$src" .c)
  if [ -n "${VMC_CONFORMANCE_ONLY:-}" ]; then
    case " $VMC_CONFORMANCE_ONLY " in *" $name "*) ;; *) continue ;; esac
  fi
  case "${VMC_CONFORMANCE_PART:-}:$name" in
    collectives:coll_* | others:* | :*) ;;
    *) continue ;;
  esac
  case "${VMC_CONFORMANCE_PART:-}:$name" in others:coll_*) continue ;; esac
  if "$vmcc" -O2 "$src" -o "$work/$name" > "$work/$name.build" 2>&1; then
    programs="$programs $name"
  else
    fail "vmcc $name.c:"
    head -n 10 "$work/$name.build" | sed 's/^/    /'
  fi
done

machines="full:fibers ring:threads hypercube:fibers mesh:threads full:threads ring:fibers
hypercube:threads mesh:fibers"
k=0
for name in $programs; do
  k=$((k + 1))
  for p in 1 2 3 4 5 6 7 8 9 10 11 12; do
    if [ "${VMC_CONFORMANCE_FULL:-0}" = 1 ]; then
      chosen=$machines
    else
      # The (p + k)-th machine: twelve consecutive p meet all eight.
      # shellcheck disable=SC2086  # one machine a line
      chosen=$(printf '%s\n' $machines | sed -n "$(((p + k) % 8 + 1))p")
    fi
    for m in $chosen; do conform "$name" "$p" "${m%:*}" "${m#*:}"; done
  done
  conform "$name" 5 full fibers --protocol rendezvous
  conform "$name" 16 hypercube fibers
  conform "$name" 31 ring threads
  [ "${VMC_CONFORMANCE_FULL:-0}" = 1 ] || continue
  case $name in
    coll_reduce* | coll_allreduce | coll_scan | coll_exscan | coll_alltoall | coll_nonblocking) ;;
    *) conform "$name" 64 mesh fibers ;;
  esac
done
if [ "${VMC_CONFORMANCE_PART:-}" = collectives ]; then
  echo "$runs runs of vmc mpirun in $(($(date +%s) - start)) s"
  [ $failures -eq 0 ] && echo "all passed"
  exit $((failures > 0))
fi

# Determinism: the same output in every run, whatever the engine and the load.
deterministic() {  # deterministic LABEL RUNS BUSY_FROM FLAGS...: runs >= BUSY_FROM beside `yes`
  label=$1 n=$2 busy_from=$3
  shift 3
  reference=
  i=1
  while [ "$i" -le "$n" ]; do
    engine=fibers
    [ $((i % 2)) -eq 0 ] && engine=threads
    if [ "$i" -ge "$busy_from" ]; then
      yes > /dev/null &
      busy=$!
    fi
    launch "$@" --engine "$engine" "$work/determinism"
    if [ -n "$busy" ]; then
      kill "$busy" 2>/dev/null
      wait "$busy" 2>/dev/null
      busy=
    fi
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -qx 'No Errors'; then
      fail "determinism ($label), run $i: exit $rc: vmc mpirun $* --engine $engine determinism"
      show
    elif [ -z "$reference" ]; then
      reference=$out
      printf '%s\n' "$out" > "$work/determinism.reference"
    elif [ "$out" != "$reference" ]; then
      printf '%s\n' "$out" > "$work/determinism.run$i"
      fail "determinism ($label): run $i (--engine $engine) differs from run 1:"
      diff "$work/determinism.reference" "$work/determinism.run$i" | head -n 10 | sed 's/^/    /'
    fi
    i=$((i + 1))
  done
}
case " $programs " in
  *" determinism "*)
    deterministic "p = 8" 20 13 -np 8
    deterministic "p = 13, mesh, rendezvous" 6 5 --topology mesh:1x13 --protocol rendezvous
    ;;
esac

# Wrong programs: each must end (non-zero) with a report that names the rank, the function
# and the problem.
wrong() {  # wrong NAME FLAGS -- PATTERN...: $work/NAME.c fails with a report matching each
  # PATTERN (an extended regular expression, any case)
  name=$1
  shift
  flags=
  while [ "$1" != -- ]; do
    flags="$flags $1"
    shift
  done
  shift
  if ! "$vmcc" "$work/$name.c" -o "$work/$name" > "$work/$name.build" 2>&1; then
    fail "vmcc $name.c"
    head -n 10 "$work/$name.build" | sed 's/^/    /'
    return
  fi
  # shellcheck disable=SC2086
  launch $flags "$work/$name"
  [ $rc -ne 0 ] || fail "$name: vmc mpirun$flags exited 0"
  [ $rc -eq 124 ] && [ -n "$limit" ] && fail "$name: vmc mpirun$flags hung"
  for text in "$@"; do
    printf '%s\n' "$out" | grep -qiE -- "$text" || {
      fail "$name: the report does not say '$text':"
      show 12
    }
  done
}

cat > "$work/negative_count.c" << 'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int rank, x[4] = {0, 0, 0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 2) MPI_Send(x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
PROG
wrong negative_count -np 4 -- "(rank|node) 2" MPI_Send count

cat > "$work/bad_rank.c" << 'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
PROG
wrong bad_rank --topology ring:3 --engine threads -- "(rank|node) 1" MPI_Recv 7

cat > "$work/mismatch.c" << 'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int rank, x[2] = {0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Bcast(x, rank == 3 ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
PROG
wrong mismatch -np 5 -- "(rank|node)s? [0-9, and]*3" MPI_Bcast count

cat > "$work/abort.c" << 'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
PROG
wrong abort -np 3 -- "(rank|node) 1" MPI_Abort 7

cat > "$work/deadlock.c" << 'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Recv(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
PROG
# Each rank's blocked call: function, peer, tag and communicator.
wrong deadlock -np 2 --engine fibers -- deadlock "(rank|node) 0" "(rank|node) 1" MPI_Recv \
  MPI_COMM_WORLD "tag 5"
wrong deadlock -np 2 --engine threads -- deadlock "(rank|node) 0" "(rank|node) 1" MPI_Recv \
  MPI_COMM_WORLD "tag 5"

cat > "$work/nonblocking_deadlock.c" << 'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int rank, x[4] = {0, 0, 0, 0};
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    MPI_Recv(x, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Ibcast(x, 4, MPI_INT, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
PROG
# A nonblocking collective whose root never starts it: its waits end in the report, naming it.
wrong nonblocking_deadlock -np 3 --engine fibers -- deadlock "(rank|node) 0" \
  "MPI_Ibcast\(root 1, 4 x MPI_INT, MPI_COMM_WORLD\)" "(rank|node) 1" MPI_Recv

# The examples.
if "$vmcc" "$examples/my_allreduce.c" -o "$work/my_allreduce" > "$work/ex.build" 2>&1; then
  for p in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
    engine=fibers
    [ $((p % 3)) -eq 0 ] && engine=threads
    launch -np "$p" --engine "$engine" "$work/my_allreduce"
    if [ $((p % 2)) -eq 1 ] && [ $rc -eq 0 ]; then
      fail "my_allreduce passed at odd p = $p (its bug shows at every odd p)"
    elif [ $((p % 2)) -eq 0 ] && [ $rc -ne 0 ]; then
      fail "my_allreduce failed at even p = $p: vmc mpirun -np $p --engine $engine my_allreduce"
      show 5
    fi
  done
  # One command for every p: it fails, and names each odd p with a command to rerun it.
  launch -np 1:16 --topology hypercube "$work/my_allreduce"
  [ $rc -ne 0 ] || fail "vmc mpirun -np 1:16 --topology hypercube my_allreduce exited 0"
  for p in 3 5 7 9 11 13 15; do
    printf '%s\n' "$out" | grep -q -e "-np $p " -e "hypercube:$p " ||
      fail "vmc mpirun -np 1:16 --topology hypercube my_allreduce does not name p = $p"
  done
else
  fail "vmcc my_allreduce.c"
  head -n 10 "$work/ex.build" | sed 's/^/    /'
fi
if "$vmcc" "$examples/wildcards.c" -o "$work/wildcards_example" > "$work/ex.build" 2>&1; then
  for p in 1 2 3 4 5 6 7 8 9 10 11 12; do
    launch -np "$p" "$work/wildcards_example"
    line=$(printf '%s\n' "$out" | grep '^wildcards:')
    total=$(printf '%s\n' "$line" | sed -n 's/.*total \([0-9]*\) (expected \([0-9]*\)).*/\1 \2/p')
    if [ $rc -ne 0 ] || [ -z "$total" ] || [ "${total% *}" != "${total#* }" ]; then
      fail "wildcards example, p = $p: exit $rc: vmc mpirun -np $p wildcards"
      show 5
    fi
  done
  launch -np 6 --engine fibers "$work/wildcards_example"
  first=$out
  launch -np 6 --engine threads "$work/wildcards_example"
  [ "$out" = "$first" ] ||
    fail "wildcards example: the split of tasks differs between runs: '$first' then '$out'"
else
  fail "vmcc wildcards.c"
  head -n 10 "$work/ex.build" | sed 's/^/    /'
fi

echo "$runs runs of vmc mpirun in $(($(date +%s) - start)) s"
[ $failures -eq 0 ] && echo "all passed"
exit $((failures > 0))
