#!/usr/bin/env bash
# Reproduces 000 Fig. 7 (and Fig. 8) with vmc: predicted time beside the time measured on
# the emulated 64-node hypercube, for the global combine versions and the optimal hybrid;
# and 004 Figs. 8-12 in shape: the short-vector, long-vector and optimal hybrid algorithms of
# the broadcast, collect, distributed reduction, reduction-to-all and reduction-to-one on a
# 16x32 mesh, in virtual time.
#
#   tools/figures.sh [--update-docs] [--004-only] [real|virtual] [OUTDIR]
#
# Default: real clock, output in build/figures/. The committed pictures in docs/ are only
# replaced with --update-docs (which writes to docs/ unless OUTDIR is given). Every run
# prints the measured error (measured against predicted, mean and worst over the points),
# per algorithm and over each figure, so a picture never claims more than the run showed.
#
# Fig. 7: alpha = 525 us, beta = 2 us, gamma = 0.35 us. Fig. 8 (000 §6): alpha = 480 us,
# with a 75 us startup for messages of 25 items or fewer, and the §6 modified strategy.
# Both run under the protocol 000 assumes (§2 assumption 4: no overlap of communication and
# computation, vmc's --protocol rendezvous); in virtual time the two protocols give the
# same times for these algorithms.
# The real clock runs Fig. 7 at time scale 8 (each modelled second takes 8 s of wall time,
# which keeps thread wake-ups, tens of microseconds, small next to alpha) and Fig. 8, whose
# short messages start up in 75 us, at scale 16; the two sweeps take a few minutes. The
# error depends on the machine's load: run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
update_docs=0
only_004=0
while [ "${1:-}" = "--update-docs" ] || [ "${1:-}" = "--004-only" ]; do
  [ "$1" = "--update-docs" ] && update_docs=1
  [ "$1" = "--004-only" ] && only_004=1
  shift
done
clock="${1:-real}"
default_out=build/figures
[ "$update_docs" = 1 ] && default_out=docs
out="${2:-$default_out}"
case "$clock" in
  real|virtual) ;;
  *) echo "figures.sh: the clock is real or virtual, not \"$clock\"" >&2; exit 2 ;;
esac
if [ "$update_docs" = 0 ] && [ "$(cd "$(dirname "$out")" 2>/dev/null && pwd)/$(basename "$out")" = "$PWD/docs" ]; then
  echo "figures.sh: give --update-docs to overwrite the committed pictures in docs/" >&2
  exit 2
fi
vmc=./build/vmc
[ -x "$vmc" ] || { echo "figures.sh: build vmc first (tools/setup.sh)" >&2; exit 1; }
mkdir -p "$out"
versions=reduce_broadcast,recursive_doubling,recursive_halving_doubling

# The error over every point of a sweep CSV: |measured - predicted| / predicted.
error_summary() {
  awk -F, -v name="$1" 'NR > 1 && $3 > 0 {
      e = ($4 - $3) / $3; if (e < 0) e = -e; sum += e; n++; if (e > worst) worst = e }
    END { printf "%s: measured vs predicted over %d points: mean %.2f%%, worst %.2f%%\n",
          name, n, 100 * sum / n, 100 * worst }' "$2"
}

# 004 Figs. 8-12 (§16): "comparisons of the hybrid, long vector and short vector approaches
# for the broadcast, collect, distributed reduction, reduction-to-all and reduction-to-one".
# 004's text names no parameters for them (the Touchstone Delta and Paragon), so vmc uses
# 000's iPSC/860 costs with 004's machine: duplex ports, wormhole routing, links shared at
# max(beta, c beta_net) (beta_net = beta). Virtual time, timing only (no data: the 2^20-item
# points of 512 nodes would need gigabytes). --n is the count per node for the collect and
# the distributed reduction (each node's block), the vector for the others. The script
# fails if the hybrid lies above either pure curve at any point.
# An eighth argument names rows drawn beside them (004's DOPL, §16), outside that check.
watts_figure() {
  local fig="$1" op="$2" short="$3" long="$4" hybrid="$5" name="$6" per="${7:-}" extra="${8:-}"
  local csv="$out/004-fig$fig-$op.csv"
  "$vmc" sweep --op "$op" --topology mesh:16x32 --algorithms "$short,$long,$hybrid${extra:+,$extra}" \
    --n 1:1048576:x2 --alpha 525us --beta 2us --gamma 0.35us --port duplex \
    --contention shared --data none --csv "$csv" > /dev/null
  tools/plot_sweep.sh "$csv" "$out/004-fig$fig-$op.png" \
    "004 Fig. $fig ($name$per) on mesh:16x32: alpha 525 us, beta 2 us, gamma 0.35 us, duplex, shared links"
  # The hybrid's measured time at each n against both pure ones.
  awk -F, -v s="$short" -v l="$long" -v h="$hybrid" -v fig="$fig" '
    NR > 1 { t[$1, $2] = $4; if (!($2 in seen)) { seen[$2] = 1; ns[++k] = $2 } }
    END {
      for (i = 1; i <= k; i++) {
        n = ns[i]; best = t[s, n] < t[l, n] ? t[s, n] : t[l, n]
        if (t[h, n] > best) { printf "004 Fig. %s: %s above the pure algorithms at n = %s\n", fig, h, n; bad = 1 }
        if (t[h, n] < best) below++
      }
      printf "004 Fig. %s: %s at or below %s and %s at all %d lengths, below both at %d\n", fig, h, s, l, k, below
      exit bad
    }' "$csv"
}
watts_figure 8 broadcast mesh_mst mesh_sc mesh_mst_sc_optimal "broadcast"
watts_figure 9 allgather mesh_pfr mesh_dr mesh_pfr_dr_optimal "collect" ", n per node"
watts_figure 10 reduce_scatter mesh_pfr mesh_dr mesh_pfr_dr_optimal "distributed reduction" ", n per node"
watts_figure 11 allreduce mesh_pfr mesh_dr mesh_pfr_pfr_dc_optimal "reduction-to-all"
# 004 §16: the library its figures measure "does not use the DOPL primitive for the broadcast
# and reduction-to-all operations", so only the reduction-to-one draws it.
watts_figure 12 reduce mesh_mst mesh_dg mesh_mst_dg_optimal "reduction-to-one" "" mesh_dopl
[ "$only_004" = 1 ] && exit 0

"$vmc" sweep --op allreduce --topology hypercube:64 \
  --algorithms "$versions,hybrid_optimal" --n 1:65536:x2 \
  --alpha 525us --beta 2us --gamma 0.35us --protocol rendezvous --clock "$clock" --time-scale 8 --repeat 1 \
  --csv "$out/fig7-$clock.csv"
tools/plot_sweep.sh "$out/fig7-$clock.csv" "$out/fig7-$clock.png" \
  "allreduce on hypercube:64, alpha 525 us, beta 2 us, gamma 0.35 us ($clock clock)"

"$vmc" sweep --op allreduce --topology hypercube:64 \
  --algorithms "$versions,hybrid_optimal,hybrid_section6" --n 1:4096:x2 \
  --alpha 480us --short-alpha 75us --short-items 25 --beta 2us --gamma 0.35us \
  --protocol rendezvous --clock "$clock" --time-scale 16 --repeat 1 --csv "$out/fig8-$clock.csv"
tools/plot_sweep.sh "$out/fig8-$clock.csv" "$out/fig8-$clock.png" \
  "000 Fig. 8: alpha 480 us (75 us for <= 25 items), beta 2 us, gamma 0.35 us ($clock clock)"

echo
echo "measured error ($clock clock, $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)):"
error_summary "Fig. 7" "$out/fig7-$clock.csv"
error_summary "Fig. 8" "$out/fig8-$clock.csv"
