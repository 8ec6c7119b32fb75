#!/usr/bin/env bash
# What polling a nonblocking collective costs the host: bench/peers/peer_testloop.c (CALLS
# calls of MPI_Iallreduce, each completed by MPI_Wait or by a loop of MPI_Test) under
# `vmc mpirun` at p = 2, 8 and 32 on both engines, as whole processes timed by /usr/bin/time
# (wall, user and system seconds), with the virtual time per call and the tests the loops
# made (docs/performance.md, "Host cost"). Given several builds, it alternates them ROUNDS
# times in the same minutes, an A/B on a loaded host; never part of the tests.
#
#   tools/bench_testloop.sh [BUILD ...]        (default: build)
#   VMC_TESTLOOP_CALLS=200 VMC_TESTLOOP_ROUNDS=3 VMC_TESTLOOP_P="2 8 32" tools/bench_testloop.sh
#
# A BUILD is a build tree or an installed prefix: its vmc and vmcc are BUILD/vmc and
# BUILD/vmcc, or BUILD/bin/vmc and BUILD/bin/vmcc.
set -euo pipefail
cd "$(dirname "$0")/.."
calls="${VMC_TESTLOOP_CALLS:-200}"
rounds="${VMC_TESTLOOP_ROUNDS:-1}"
ps="${VMC_TESTLOOP_P:-2 8 32}"
[ "$#" -gt 0 ] || set -- build
[ -x /usr/bin/time ] || { echo "tools/bench_testloop.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

tool() {  # tool BUILD NAME: the path of vmc or vmcc in BUILD
  if [ -x "$1/$2" ]; then echo "$1/$2"; else echo "$1/bin/$2"; fi
}
k=0
for b in "$@"; do
  "$(tool "$b" vmcc)" -O2 -o "$work/peer_testloop_$k" bench/peers/peer_testloop.c
  k=$((k + 1))
done

printf '%-28s %4s %-8s %-5s %7s %7s %7s %12s %8s\n' \
  build p engine loop wall_s user_s sys_s virtual_us tests/call
for round in $(seq "$rounds"); do
  for p in $ps; do
    for engine in threads fibers; do
      for loop in wait test; do
        k=0
        for b in "$@"; do
          /usr/bin/time -o "$work/time" -f '%e %U %S' \
            "$(tool "$b" vmc)" mpirun -np "$p" --engine "$engine" "$work/peer_testloop_$k" \
            "$loop" "$calls" > "$work/out"
          read -r wall user sys < "$work/time"
          printf '%-28s %4s %-8s %-5s %7s %7s %7s %12s %8s\n' "$b" "$p" "$engine" "$loop" \
            "$wall" "$user" "$sys" "$(awk '/^virtual_us_per_call/ { print $2 }' "$work/out")" \
            "$(awk '/^tests_per_call_per_rank/ { print $2 }' "$work/out")"
          k=$((k + 1))
        done
      done
    done
  done
done
