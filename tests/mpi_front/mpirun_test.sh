#!/bin/sh
# vmc mpirun end to end: builds examples/mpi with vmcc, runs them with -np 1..8 on full, ring
# and hypercube machines and checks their output and exit status; a rank that returns
# non-zero makes mpirun exit with its status, naming it; a deadlock in receives from any
# source names each rank's call. (mpirun_test.cpp holds the rest of vmc mpirun.)
#   mpirun_test.sh VMC VMCC EXAMPLES_DIR [few]
# few (the sanitizers' builds): the example with a bug at p = 1..24 instead of 1..64.
set -u
vmc=$1 vmcc=$2 examples=$3 few=${4:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$vmcc" "$examples/ring.c" -o "$dir/ring" || { echo "FAIL: vmcc ring.c"; exit 1; }
"$vmcc" "$examples/allreduce_sum.c" -o "$dir/allreduce_sum" || { echo "FAIL: vmcc"; exit 1; }
[ "$("$vmcc" -show x.c -o x | grep -c -- '-fPIC -fstack-clash-protection -fexceptions -shared -Wl,-Bsymbolic')" = 1 ] ||
  fail "vmcc -show: $("$vmcc" -show x.c -o x)"

expect() {  # expect TEXT CMD...: CMD exits 0 and prints TEXT
  text=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  [ $rc -eq 0 ] || fail "$* exited $rc: $out"
  case $out in *"$text"*) ;; *) fail "$*: expected '$text' in: $out" ;; esac
}

for p in 1 2 3 4 5 6 7 8; do
  s=$((p * (p + 1) / 2))
  for machine in "-np $p" "--topology ring:$p"; do
    [ $p -eq 1 ] && [ "$machine" = "--topology ring:1" ] && continue
    # shellcheck disable=SC2086
    expect "token $s (expected $s)" "$vmc" mpirun $machine "$dir/ring"
    # shellcheck disable=SC2086
    expect "sum $s (expected $s)" "$vmc" mpirun $machine "$dir/allreduce_sum"
  done
done
for p in 2 4 8; do
  s=$((p * (p + 1) / 2))
  expect "token $s (expected $s)" "$vmc" mpirun --topology "hypercube:$p" "$dir/ring"
  expect "sum $s (expected $s)" "$vmc" mpirun --topology "hypercube:$p" "$dir/allreduce_sum"
  expect "sum $s (expected $s)" "$vmc" mpirun -np $p --engine threads "$dir/allreduce_sum"
done
# Virtual time: two hops of 525 us + 2 us on a 2-ring (the default model).
expect "time       1.054 ms" "$vmc" mpirun -np 2 --stats "$dir/ring"
expect "messages   2 (16 bytes)" "$vmc" mpirun -np 2 --stats "$dir/ring"
expect "0.001054 s" "$vmc" mpirun -np 2 "$dir/ring"

# A rank whose main returns non-zero.
cat > "$dir/fail3.c" <<'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Finalize();
  return r == 3 ? 5 : 0;
}
PROG
"$vmcc" "$dir/fail3.c" -o "$dir/fail3" || fail "vmcc fail3.c"
out=$("$vmc" mpirun -np 6 "$dir/fail3" 2>&1)
rc=$?
[ $rc -eq 5 ] || fail "a rank returned 5, mpirun exited $rc"
case $out in *"rank 3 exited with status 5"*) ;; *) fail "fail3: $out" ;; esac

# Both ranks receive from any source and nobody sends: a deadlock, reported with each rank's
# MPI call.
cat > "$dir/any.c" <<'PROG'
#include <mpi.h>
int main(int argc, char** argv) {
  int x;
  MPI_Init(&argc, &argv);
  MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
PROG
"$vmcc" "$dir/any.c" -o "$dir/any" || fail "vmcc any.c"
out=$("$vmc" mpirun -np 2 "$dir/any" 2>&1)
rc=$?
[ $rc -ne 0 ] || fail "MPI_ANY_SOURCE: mpirun exited 0"
case $out in *deadlock*"rank 0: MPI_Recv(source MPI_ANY_SOURCE, tag 0, MPI_COMM_WORLD)"*) ;;
  *) fail "any: $out" ;; esac

# The example with a bug: every p from 1 to 64 (24 under the sanitizers) on hypercubes and on
# meshes, and exactly the odd p fail, each with the command that runs it alone.
"$vmcc" "$examples/my_allreduce.c" -o "$dir/my_allreduce" || fail "vmcc my_allreduce.c"
top=64
[ -n "$few" ] && top=24
odd=$(seq 1 2 $((top - 1)) | tr '\n' ',' | sed 's/,$//; s/,/, /g')
for family in hypercube mesh; do
  out=$("$vmc" mpirun -np 1:$top --topology $family "$dir/my_allreduce" 2>&1)
  rc=$?
  [ $rc -ne 0 ] || fail "my_allreduce -np 1:$top on $family: mpirun exited 0"
  case $out in *"failed at $((top / 2)) of $top p: $odd"*) ;;
    *) fail "my_allreduce on $family: $out" ;; esac
  for p in 1 $((top / 2 + 1)) $((top - 1)); do
    case $out in *"p = $p: "*"mpirun -np $p --topology $family:"*) ;;
      *) fail "my_allreduce on $family: no command for p = $p" ;; esac
  done
  case $out in *"p = 2: "*) fail "my_allreduce on $family: p = 2 reported failing" ;; esac
done

# A copy's destructors run once per rank, in a single job and in every job of a sweep, while
# vmc still stands: a destructor may print through the rank's stdout (a copy left loaded for
# the process's exit ran its destructors after vmc's own had run, and the process aborted).
cat > "$dir/unload.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
static int rank = -1;
__attribute__((destructor)) static void unloaded(void) {
  char line[32];
  const int n = snprintf(line, sizeof line, "unloaded %d\n", rank);
  if (write(2, line, (size_t)n) != n) _exit(9);
  printf("printed %d\n", rank);
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Finalize();
  return 0;
}
PROG
"$vmcc" "$dir/unload.c" -o "$dir/unload" || fail "vmcc unload.c"
out=$("$vmc" mpirun -np 3 "$dir/unload" 2>&1) || fail "unload -np 3: $out"
[ "$(printf '%s\n' "$out" | grep -c '^unloaded [0-2]$')" = 3 ] || fail "unload -np 3: $out"
for r in 0 1 2; do
  case $out in *"unloaded $r"*) ;; *) fail "unload -np 3: rank $r's copy: $out" ;; esac
  case $out in *"printed $r"*) ;; *) fail "unload -np 3: rank $r's printf: $out" ;; esac
done
out=$("$vmc" mpirun -np 2,3 "$dir/unload" 2>&1) || fail "unload -np 2,3: $out"
[ "$(printf '%s\n' "$out" | grep -c '^unloaded [0-2]$')" = 5 ] || fail "unload -np 2,3: $out"
# vmcc links a program of two loadable segments and no RELRO (cmake/vmc_mpi_program.cmake):
# fewer mappings per rank's copy.
if command -v readelf > /dev/null; then
  [ "$(readelf -lW "$dir/unload" | grep -c '^ *LOAD ')" = 2 ] ||
    fail "vmcc: not two LOAD segments: $(readelf -lW "$dir/unload")"
  readelf -lW "$dir/unload" | grep -q GNU_RELRO && fail "vmcc: the program has a RELRO segment"
fi

# Program arguments are the program's, flags included.
out=$("$vmc" mpirun -np 2 "$dir/ring" -np 5 --stats 2>&1) || fail "arguments: $out"
case $out in *"vmc mpirun:"*) fail "mpirun read the program's --stats: $out" ;; esac

[ $failures -eq 0 ] && echo "all passed"
exit $((failures > 0))
