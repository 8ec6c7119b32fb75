#!/usr/bin/env bash
# A refactor changes no virtual time and no result. This script records what `vmc run --json`
# and `vmc explain --json` print over every operation, every registered algorithm (and auto),
# every topology family at a few p, n and roots, and the machine model's options; the output
# is one line per case, its flags then what vmc printed (an error's text included), so two
# recordings compare with diff, every time to the last digit nlohmann-json prints (the
# shortest text that reads back as the same double: equal lines mean equal times to the bit).
#
#   tools/refactor_sweep.sh build/vmc > before.txt    (on the commit before the change)
#   tools/refactor_sweep.sh build/vmc > after.txt     (after it)
#   diff before.txt after.txt && echo same
#
# About 12,000 cases; a minute or two on 2 cores (VMC_SWEEP_JOBS, default nproc).
set -euo pipefail
vmc="$(realpath "${1:?usage: tools/refactor_sweep.sh path/to/vmc}")"
jobs="${VMC_SWEEP_JOBS:-$(nproc)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The operations and their rows, as the program lists them.
"$vmc" list | awk '/^[a-z]/ { op = $1 } /^  [a-z]/ { print op, $1 }' > "$work/rows"
ops=$(awk '{ print $1 }' "$work/rows" | uniq)

rooted() { case "$1" in broadcast|reduce|scatter|gather|scatterv|gatherv) return 0;; esac; return 1; }

# Each case is one line of flags.
cases="$work/cases"
: > "$cases"
topologies=(hypercube:8 hypercube:13 mesh:3x5 mesh:4x4 mesh:2x3x2 torus:3x4 torus:2x3x2 mesh:4x3w
            ring:7 ring:2 array:6 tree:10 full:9 full:1)
extra_flags() {  # the flags a row needs to run at all, per topology
  local algorithm="$1" topology="$2"
  case "$algorithm" in
    hybrid)
      local p="${topology#*:}" d=0
      p=$(echo "$p" | tr 'xw' '* ' | tr -d ' ' | bc)
      while [ $((1 << (d + 1))) -le "$p" ]; do d=$((d + 1)); done
      local s="" i
      for ((i = 0; i < d; i++)); do s="$s$((i % 2))"; done
      [ -n "$s" ] && echo "--strategy $s"
      ;;
    mesh_pfr_dr|mesh_pfr_dr_alt|mesh_pfr_pfr_dc|mesh_pfr_pfr_dc_alt|mesh_mst_sc|mesh_mst_dg) echo "--hybrid 1" ;;
  esac
}
for op in $ops; do
  algorithms="auto $(awk -v op="$op" '$1 == op { print $2 }' "$work/rows")"
  for topology in "${topologies[@]}"; do
    for algorithm in $algorithms; do
      for n in 0 1 5 37; do
        roots=0
        if rooted "$op"; then roots="0 2"; fi
        for root in $roots; do
          echo "run --op $op --algorithm $algorithm --topology $topology --n $n --root $root $(extra_flags "$algorithm" "$topology")" >> "$cases"
        done
      done
    done
  done
done
# The model's options over every row, on two machines, one length.
models=("--port duplex" "--port half" "--port all" "--routing direct" "--routing store_and_forward"
        "--contention shared" "--contention shared --beta-net 3us" "--protocol rendezvous"
        "--worm blocking" "--delta 1us" "--short-alpha 50us --short-items 8"
        "--beta-dim 0=1us,1=5us" "--data none" "--engine threads" "--reduction matmul --type int32"
        "--reduction max --type double")
for op in $ops; do
  algorithms="auto $(awk -v op="$op" '$1 == op { print $2 }' "$work/rows")"
  for model in "${models[@]}"; do
    for topology in hypercube:8 mesh:3x4; do
      for algorithm in $algorithms; do
        echo "run --op $op --algorithm $algorithm --topology $topology --n 11 --root 1 $model $(extra_flags "$algorithm" "$topology")" >> "$cases"
      done
    done
  done
done
# Every member of 004's hybrid families, 000's strategies, a tree's level rates, larger p.
for op in $ops; do
  for row in $(awk -v op="$op" '$1 == op && $2 ~ /^mesh_(pfr_dr|pfr_dr_alt|pfr_pfr_dc|pfr_pfr_dc_alt|mst_sc|mst_dg)$/ { print $2 }' "$work/rows"); do
    for member in 0 1 2 3 4 5; do
      echo "run --op $op --algorithm $row --topology mesh:4x6 --n 240 --hybrid $member" >> "$cases"
      echo "run --op $op --algorithm $row --topology torus:2x3x4 --n 97 --hybrid $member" >> "$cases"
    done
  done
done
for s in 000000 010101 111111 000111 110011; do
  for op in reduce allreduce; do
    echo "run --op $op --algorithm hybrid --topology hypercube:64 --n 1024 --strategy $s" >> "$cases"
  done
done
for op in $ops; do
  echo "run --op $op --topology tree:15 --n 64 --beta-level 1=8us --contention shared" >> "$cases"
  echo "run --op $op --topology hypercube:64 --n 1024" >> "$cases"
  echo "run --op $op --topology mesh:8x8 --n 1000 --root 9" >> "$cases"
  echo "run --op $op --topology torus:5x7 --n 333 --port all" >> "$cases"
  echo "run --op $op --topology ring:97 --n 3" >> "$cases"
done
# What selection predicts and simulates for every row.
for op in $ops; do
  for topology in hypercube:16 mesh:4x5 torus:3x3x2 ring:11 tree:12 full:6; do
    for n in 1 100 10000; do
      echo "explain --op $op --topology $topology --n $n" >> "$cases"
    done
  done
done

one() {  # flags: the line for one case
  local out check=""
  case "$1" in run*--data\ none*) ;; run*) check="--check" ;; esac
  # shellcheck disable=SC2086
  out=$("$vmc" $1 $check --json 2>&1) || true
  [ "${1%% *}" = run ] || out=$(printf '%s' "$out" | tr -d '\n ')
  printf '%s\t%s\n' "$1" "$(printf '%s' "$out" | tr '\n' ' ')"
}
export -f one
export vmc work
# Each case writes a file of its own (lines longer than a pipe's atomic write would interleave).
mkdir "$work/out"
nl -ba -w8 -nrz -s' ' "$cases" |
  xargs -P "$jobs" -d '\n' -n 1 bash -c 'one "${0#* }" > "$work/out/${0%% *}"'
cat "$work/out"/*
