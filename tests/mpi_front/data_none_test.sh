#!/bin/sh
# vmc mpirun --data none (a timing-only run, docs/mpi.md) on every conformance program and
# example: each built with vmcc and run with data and timing only, at p = 5 (ring, fibers) or
# 8 (hypercube, threads, rendezvous protocol), the programs taking the two machines in turn.
# A timing-only run must
# end as the program ends it, never as vmc would end a broken run: exit 0, or 1 with every
# rank's report "exited with status 1" (the programs check their results, which a timing-only
# run does not compute: their checks fail), no crash, deadlock, MPI error or sanitizer report.
# And its virtual time, messages and bytes must be those of the run with data: no program
# here lets its communication depend on what it receives.
#   data_none_test.sh VMC VMCC CONFORMANCE_DIR EXAMPLES_DIR [few]
# few (the sanitizers' builds, where a whole run is three to ten times slower): every sixth
# program, on the threads machine only (the one whose ranks run side by side); every third
# had made this test the longest of both sanitizer phases.
set -u
vmc=$1 vmcc=$2 conformance=$3 examples=$4 few=${5:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
runs=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
limit=
command -v timeout > /dev/null 2>&1 && limit="timeout 300"

# The run's JSON line, reduced to "exit time messages bytes" and its report lines.
summary() { python3 "$(dirname "$0")/run_summary.py"; }

index=0
for source in "$conformance"/*.c "$examples"/*.c; do
  index=$((index + 1))
  if [ -n "$few" ] && [ $((index % 6)) -ne 1 ]; then continue; fi
  name=$(basename "$source" .c)
  "$vmcc" -O1 "$source" -o "$dir/$name" -lm 2> "$dir/$name.log" ||
    { fail "vmcc $source: $(cat "$dir/$name.log")"; continue; }
  which=threads
  [ -z "$few" ] && [ $((index % 2)) -eq 1 ] && which=fibers
  for which in $which; do
    case $which in
      fibers) machine="--topology ring:5 --engine fibers" ;;
      *) machine="--topology hypercube:8 --engine threads --protocol rendezvous" ;;
    esac
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    with=$($limit "$vmc" mpirun $machine --json "$dir/$name" 2> "$dir/err" | summary)
    # shellcheck disable=SC2086
    none=$($limit "$vmc" mpirun $machine --data none --json "$dir/$name" 2> "$dir/err" | summary)
    command="vmc mpirun $machine --data none $name"
    case $none in
      "0 "* | "1 "*) ;;
      *) fail "$command: $(echo "$none" | head -3)"; continue ;;
    esac
    # A failing program's only lines: its ranks' exits, and the line that says why in a
    # timing-only job.
    hint='^(a timing-only job, --data none: no payload reaches a receive buffer'
    echo "$none" | tail -n +2 | grep -v 'exited with status 1$' | grep -v "$hint" > "$dir/reports"
    if [ -s "$dir/reports" ]; then fail "$command: $(head -3 "$dir/reports")"; fi
    case $none in
      "1 "*) echo "$none" | grep -q "$hint" || fail "$command: no line says why a timing-only job fails" ;;
    esac
    if grep -q 'Sanitizer\|runtime error:' "$dir/err"; then
      fail "$command: $(grep -m 3 'Sanitizer\|runtime error:' "$dir/err")"
    fi
    [ "$(echo "$none" | head -1 | cut -d' ' -f2-)" = "$(echo "$with" | head -1 | cut -d' ' -f2-)" ] ||
      fail "$command: time, messages, bytes $(echo "$none" | head -1 | cut -d' ' -f2-); with data $(echo "$with" | head -1 | cut -d' ' -f2-)"
  done
done
echo "$runs programs and machines run with data and timing only, $failures failed"
[ "$failures" -eq 0 ]
