#!/usr/bin/env bash
# Reproduces 000 Fig. 7 (and Fig. 8) with vmc: predicted time beside the time measured on
# the emulated 64-node hypercube, for the global combine versions and the optimal hybrid.
#
#   tools/figures.sh [--update-docs] [real|virtual] [OUTDIR]
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
if [ "${1:-}" = "--update-docs" ]; then
  update_docs=1
  shift
fi
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
