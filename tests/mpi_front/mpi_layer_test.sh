#!/bin/sh
# The MPI layer's unit tests (mpi/state, errors, env, communicators, collectives), end to end:
# the programs of layer/ built with vmcc and run with vmc mpirun for p = 1..12 and larger p,
# on several topologies and both engines; the fatal reports' wording; and the time identity:
# a collective's virtual time in an MPI program is the time `vmc run --op` reports for the
# same call on the same machine, to the last bit, with the same number of messages.
#   mpi_layer_test.sh VMC VMCC LAYER_DIR [PART [few]]
# PART: semantics, fatal or time (all: every part); few (the sanitizer builds): the time
# identity on two of its five machines.
set -u
vmc=$1 vmcc=$2 src=$3 part=${4:-all} few=${5:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for prog in collectives communicators environment errors fatal timing; do
  "$vmcc" -Wall -Wextra -Werror "$src/$prog.c" -o "$dir/$prog" -lpthread ||
    { echo "FAIL: vmcc $prog.c"; exit 1; }
done

expect() {  # expect TEXT CMD...: CMD exits 0 and prints TEXT
  text=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  [ $rc -eq 0 ] || fail "$* exited $rc: $(echo "$out" | head -20)"
  case $out in *"$text"*) ;; *) fail "$*: expected '$text' in: $(echo "$out" | head -20)" ;; esac
}

# expect_fatal TEXT CMD...: CMD exits non-zero and prints "rank R failed: TEXT" (R: whichever
# rank reported first; vmc mpirun's report)
expect_fatal() {
  text=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  [ $rc -ne 0 ] || fail "$* exited 0: $out"
  case $out in *"rank "?" failed: $text"*) ;;
    *) fail "$*: expected 'rank R failed: $text' in: $out" ;; esac
}

if [ "$part" = all ] || [ "$part" = semantics ]; then
  for p in 1 2 3 4 5 6 7 8 9 10 11 12; do
    # Every communicator at a few p (each new shape of a call on a sub-communicator is a
    # simulation for automatic selection), MPI_COMM_WORLD alone at the others.
    case $p in 1|2|3|5) scope=all ;; *) scope=world ;; esac
    expect "collectives: ok, $p ranks" "$vmc" mpirun -np $p "$dir/collectives" $scope
    expect "communicators: ok, $p ranks" "$vmc" mpirun -np $p "$dir/communicators"
    expect "errors: ok, $p ranks" "$vmc" mpirun -np $p "$dir/errors"
  done
  for p in 1 2 7; do
    expect "environment: ok, $p ranks" "$vmc" mpirun -np $p "$dir/environment"
  done
  for machine in "--topology ring:6 --engine threads" "--topology mesh:3x3" \
                 "--topology hypercube:4 --engine threads"; do
    scope=world
    case $machine in *hypercube*) scope=all ;; esac
    # shellcheck disable=SC2086
    expect "collectives: ok" "$vmc" mpirun $machine "$dir/collectives" $scope
    # shellcheck disable=SC2086
    expect "communicators: ok" "$vmc" mpirun $machine "$dir/communicators"
    # shellcheck disable=SC2086
    expect "errors: ok" "$vmc" mpirun $machine "$dir/errors"
    # shellcheck disable=SC2086
    expect "environment: ok" "$vmc" mpirun $machine "$dir/environment"
  done
  # Larger p.
  expect "collectives: ok, 16 ranks" "$vmc" mpirun --topology torus:4x4 "$dir/collectives" world
  expect "collectives: ok, 32 ranks" "$vmc" mpirun --topology hypercube:32 --engine threads \
    "$dir/collectives" world
  expect "communicators: ok, 48 ranks" "$vmc" mpirun --topology mesh:6x8 "$dir/communicators"
  expect "errors: ok, 64 ranks" "$vmc" mpirun -np 64 "$dir/errors"
fi

if [ "$part" = all ] || [ "$part" = fatal ]; then
  f="$vmc mpirun -np 3 $dir/fatal"
  expect_fatal "MPI_Comm_rank: MPI_ERR_OTHER: called before MPI_Init" $f before-init
  expect_fatal "MPI_Barrier: MPI_ERR_OTHER: called after MPI_Finalize" $f after-finalize
  expect_fatal "MPI_Bcast: MPI_ERR_COUNT: negative count -1" $f count
  expect_fatal "MPI_Barrier: MPI_ERR_COMM: communicator 3 was freed (MPI_Comm_free)" $f freed
  expect_fatal "MPI_Group_size: MPI_ERR_GROUP: invalid group 12345" $f group
  # Calls that differ: the report depends on the calls alone (not on which rank came first),
  # blames the lowest rank outside the call most ranks made, and is that rank's failure.
  # vmc's count of the comm's collective calls and its node numbers are left out.
  differ="MPI_ERR_ARG: the ranks' calls differ on MPI_COMM_WORLD: rank 1 called"
  for engine in fibers threads; do
    f="$vmc mpirun -np 3 --engine $engine $dir/fatal"
    expect_fatal "MPI_Allreduce: $differ MPI_Allreduce with op MPI_SUM count 2 item size 4 (MPI_INT), ranks 0, 2 called MPI_Allreduce with op MPI_SUM count 1 item size 4 (MPI_INT)" $f mismatch-count
    expect_fatal "MPI_Bcast: $differ MPI_Bcast root 1 count 1 item size 4 (MPI_INT), ranks 0, 2 called MPI_Bcast root 0 count 1 item size 4 (MPI_INT)" $f mismatch-root
    expect_fatal "MPI_Bcast: $differ MPI_Bcast root 0 count 1 item size 4 (MPI_FLOAT), ranks 0, 2 called MPI_Bcast root 0 count 1 item size 4 (MPI_INT)" $f mismatch-type
    expect_fatal "MPI_Allreduce: $differ MPI_Allreduce with op MPI_MAX count 1 item size 4 (MPI_INT), ranks 0, 2 called MPI_Allreduce with op MPI_SUM count 1 item size 4 (MPI_INT)" $f mismatch-op
    for what in mismatch-count mismatch-root mismatch-type mismatch-op; do
      out=$($f $what 2>&1)
      [ "$(echo "$out" | grep -c "failed:")" -eq 1 ] || fail "$what: not one rank's failure: $out"
      case $out in *"(node "*|*"collective call"*) fail "$what speaks of nodes or vmc's call count: $out" ;; esac
    done
  done
  f="$vmc mpirun -np 3 $dir/fatal"
  expect_fatal "MPI_Bcast: MPI_ERR_ROOT: root 99 is not a rank of a communicator of 3 (MPI_ERRORS_ABORT on MPI_COMM_WORLD: the job is aborted)" $f abort-handler
  out=$($f abort 2>&1)
  [ $? -eq 3 ] || fail "abort: mpirun's exit status is not the code 3: $out"
  case $out in *"rank 2 called MPI_Abort with code 3"*) ;; *) fail "abort does not name rank 2: $out" ;; esac
  # A thread of the program's own is no rank: its call fails (MPI_ERR_OTHER), the run goes on.
  expect "from a thread: 16" $f thread
  case $($f thread 2>&1) in *"MPI_Comm_rank: MPI_ERR_OTHER: called outside a rank"*) ;;
    *) fail "thread: no report" ;; esac
  # A deadlock names each waiting rank's MPI call, on both engines.
  for engine in fibers threads; do
    out=$("$vmc" mpirun -np 3 --engine $engine "$dir/fatal" deadlock 2>&1)
    case $out in *"deadlock"*"rank 1: MPI_Bcast(root 0, 1 x MPI_INT, MPI_COMM_WORLD)"*"rank 2: MPI_Bcast(root 0, 1 x MPI_INT, MPI_COMM_WORLD)"*) ;;
      *) fail "deadlock ($engine): $out" ;; esac
  done
fi

if [ "$part" = all ] || [ "$part" = time ]; then
  # The time identity: every rank's MPI_Wtime after the call, the latest of them, against vmc
  # run's time_s (awk compares the two as doubles: equal only when every bit is), and the
  # messages of mpirun --stats against vmc run's. Gatherv and scatterv run vmc's linear row
  # when no algorithm is named (only the root knows the counts): vmc run is told the same.
  machines="full:5 ring:6 hypercube:8 mesh:3x4 torus:4x4"
  [ "$few" = few ] && machines="ring:6 torus:4x4"
  for machine in $machines; do
    for op in allreduce broadcast reduce allgather alltoall gather scatter reduce_scatter scan \
              exscan barrier allgatherv alltoallv gatherv scatterv; do
      for n in 7 1000; do
        root=1
        algorithm=auto
        case $op in gatherv|scatterv) algorithm=linear ;; esac
        mpi=$("$vmc" mpirun --topology $machine --stats "$dir/timing" $op $n $root 2>&1)
        t_mpi=$(echo "$mpi" | awk '$1 == "time" && $3 + 0 > max { max = $3 } END { printf "%.17g", max }')
        m_mpi=$(echo "$mpi" | sed -n 's/^messages *\([0-9]*\).*/\1/p')
        run=$("$vmc" run --topology $machine --op $op --n $n --root $root --type double \
              --algorithm $algorithm --json 2>&1)
        t_run=$(echo "$run" | sed -n 's/.*"time_s":\([^,}]*\).*/\1/p')
        m_run=$(echo "$run" | sed -n 's/.*"messages":\([0-9]*\).*/\1/p')
        if [ -z "$t_run" ] || [ -z "$m_mpi" ]; then
          fail "time $machine $op $n: no time: mpirun: $mpi; run: $run"
          continue
        fi
        awk -v a="$t_mpi" -v b="$t_run" 'BEGIN { exit !(a + 0 == b + 0) }' ||
          fail "time $machine $op n=$n: mpirun $t_mpi s, vmc run $t_run s"
        [ "$m_mpi" = "$m_run" ] || fail "messages $machine $op n=$n: mpirun $m_mpi, vmc run $m_run"
      done
    done
  done
fi

[ $failures -eq 0 ] && echo "all passed"
exit $((failures > 0))
