#!/usr/bin/env bash
# Reproduces 000 Fig. 7 (and Fig. 8) with vmc: predicted time beside the time measured on
# the emulated 64-node hypercube, for the global combine versions and the optimal hybrid.
#
#   tools/figures.sh [real|virtual] [OUTDIR]      (default: real clock, docs/)
#
# Fig. 7: alpha = 525 us, beta = 2 us, gamma = 0.35 us. Fig. 8 (000 §6): alpha = 480 us,
# with a 75 us startup for messages of 25 items or fewer, and the §6 modified strategy.
# The real clock runs Fig. 7 at time scale 8 (each modelled second takes 8 s of wall time,
# which keeps thread wake-ups, tens of microseconds, small next to alpha) and Fig. 8, whose
# short messages start up in 75 us, at scale 16; the two sweeps take about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
clock="${1:-real}"
out="${2:-docs}"
vmc=./build/vmc
[ -x "$vmc" ] || { echo "figures.sh: build vmc first (tools/setup.sh)" >&2; exit 1; }
mkdir -p "$out"
versions=reduce_broadcast,recursive_doubling,recursive_halving_doubling

"$vmc" sweep --op allreduce --topology hypercube:64 \
  --algorithms "$versions,hybrid_optimal" --n 1:65536:x2 \
  --alpha 525us --beta 2us --gamma 0.35us --clock "$clock" --time-scale 8 --repeat 1 \
  --csv "$out/fig7-$clock.csv"
tools/plot_sweep.sh "$out/fig7-$clock.csv" "$out/fig7-$clock.png" \
  "allreduce on hypercube:64, alpha 525 us, beta 2 us, gamma 0.35 us ($clock clock)"

"$vmc" sweep --op allreduce --topology hypercube:64 \
  --algorithms "$versions,hybrid_optimal,hybrid_section6" --n 1:4096:x2 \
  --alpha 480us --short-alpha 75us --short-items 25 --beta 2us --gamma 0.35us \
  --clock "$clock" --time-scale 16 --repeat 1 --csv "$out/fig8-$clock.csv"
tools/plot_sweep.sh "$out/fig8-$clock.csv" "$out/fig8-$clock.png" \
  "000 Fig. 8: alpha 480 us (75 us for <= 25 items), beta 2 us, gamma 0.35 us ($clock clock)"
