#!/usr/bin/env bash
# Draws a `vmc sweep` CSV as 000 Fig. 7 does: predicted time (left) and measured time (right)
# against the vector length, one curve per algorithm. Uses gnuplot (Debian's gnuplot-nox).
#
#   tools/plot_sweep.sh sweep.csv fig7.png ["title"]
set -euo pipefail
csv="${1:?usage: plot_sweep.sh SWEEP.csv OUT.png|OUT.svg [TITLE]}"
out="${2:?usage: plot_sweep.sh SWEEP.csv OUT.png|OUT.svg [TITLE]}"
title="${3:-}"
command -v gnuplot >/dev/null || { echo "plot_sweep.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
[ -r "$csv" ] || { echo "plot_sweep.sh: cannot read $csv" >&2; exit 1; }

# The algorithms, in the order they first appear (column 1, header skipped).
algorithms=$(tail -n +2 "$csv" | cut -d, -f1 | awk '!seen[$0]++' | tr '\n' ' ')
case "$out" in
  *.svg) terminal="svg size 1200,520 dynamic font 'sans,11'" ;;
  *) terminal="pngcairo size 1200,520 font 'sans,10'" ;;
esac

gnuplot <<GNUPLOT
set terminal $terminal
set output "$out"
set termoption noenhanced
set datafile separator ","
set key top left Left reverse
set logscale x 2
set logscale y 10
set format x "%.0f"
set xlabel "vector length n (items)"
set ylabel "time (s)"
set grid
# One time axis for both panels, so they compare at a glance.
stats "$csv" every ::1 using 3 nooutput name "P"
stats "$csv" every ::1 using 4 nooutput name "M"
lo = (P_min < M_min ? P_min : M_min)
hi = (P_max > M_max ? P_max : M_max)
if (lo <= 0) lo = hi / 1e6
set yrange [lo / 1.5 : hi * 1.5]
set multiplot layout 1,2 title "$title"
algorithms = "$algorithms"
set title "predicted (cost formula)"
plot for [a in algorithms] "$csv" using (strcol(1) eq a ? \$2 : 1/0):(strcol(1) eq a ? \$3 : 1/0) \
     with linespoints title a
set title "measured (vmc)"
plot for [a in algorithms] "$csv" using (strcol(1) eq a ? \$2 : 1/0):(strcol(1) eq a ? \$4 : 1/0) \
     with linespoints title a
unset multiplot
GNUPLOT
echo "wrote $out"
