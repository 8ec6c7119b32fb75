#!/bin/sh
# The large-count (_c) forms take the virtual time of their int forms: the conformance program
# large_count (tests/mpi_front/conformance/large_count.c) run with only its int forms and
# with only its _c forms (the same calls on the same data otherwise) must pass both ways and
# report the same virtual time, messages and bytes in `vmc mpirun --json`, at several p and
# machines. Then, under --data none (timing only: no payload is read or written, so the
# program needs no 2 GiB buffer), a message of 2^31 + 1 MPI_BYTE by MPI_Send_c must arrive
# with its count (MPI_Get_count_c; MPI_Get_count MPI_UNDEFINED) and take the virtual time,
# messages and bytes of the same bytes sent by MPI_Send as one item of a contiguous type of
# 2^31 + 1 bytes (large_count bytes c, large_count bytes int).
#   large_count_test.sh VMC VMCC CONFORMANCE_DIR
set -u
vmc=$1 vmcc=$2 conformance=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
runs=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
limit=
command -v timeout > /dev/null 2>&1 && limit="timeout 300"

# The run's JSON line, reduced to "exit time messages bytes" and its report lines.
summary() { python3 "$(dirname "$0")/run_summary.py"; }

"$vmcc" -O1 "$conformance/large_count.c" -o "$dir/large_count" 2> "$dir/log" ||
  { echo "FAIL: vmcc large_count.c: $(cat "$dir/log")"; exit 1; }
for machine in "-np 1" "-np 4" "--topology ring:5 --engine fibers" \
               "--topology hypercube:8 --protocol rendezvous" "--topology mesh:3x4"; do
  # shellcheck disable=SC2086
  narrow=$($limit "$vmc" mpirun $machine --json "$dir/large_count" int 2> "$dir/err" | summary)
  # shellcheck disable=SC2086
  wide=$($limit "$vmc" mpirun $machine --json "$dir/large_count" c 2> "$dir/err" | summary)
  runs=$((runs + 2))
  case $narrow in "0 "*) ;; *) fail "vmc mpirun $machine large_count int: $narrow" ;; esac
  case $wide in "0 "*) ;; *) fail "vmc mpirun $machine large_count c: $wide" ;; esac
  [ "$narrow" = "$wide" ] ||
    fail "vmc mpirun $machine: (exit time messages bytes) int forms $narrow, _c forms $wide"
done
bytes() {  # bytes FORM: the timing-only run of `large_count bytes FORM`, summarized
  $limit "$vmc" mpirun -np 2 --data none --json "$dir/large_count" bytes "$1" 2> "$dir/err" |
    summary
}
one_item=$(bytes int)
many=$(bytes c)
runs=$((runs + 2))
case $many in
  "0 "*) ;;
  *) fail "vmc mpirun -np 2 --data none large_count bytes c: $many $(head -3 "$dir/err")" ;;
esac
[ "$one_item" = "$many" ] ||
  fail "large_count bytes: one item of 2^31 + 1 bytes took $one_item, 2^31 + 1 MPI_BYTE $many"
echo "$runs runs of large_count, $failures failed"
[ "$failures" -eq 0 ]
