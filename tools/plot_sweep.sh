#!/usr/bin/env bash
# Draws a `vmc sweep` CSV as 000 Fig. 7 does: predicted time (left) and measured time (right)
# against the vector length (or the node count, for a sweep over p), one curve per algorithm
# (per algorithm@topology for several networks). Uses gnuplot (Debian's gnuplot-nox).
#
#   tools/plot_sweep.sh sweep.csv fig7.png ["title"]
set -euo pipefail
csv="${1:?usage: plot_sweep.sh SWEEP.csv OUT.png|OUT.svg [TITLE]}"
out="${2:?usage: plot_sweep.sh SWEEP.csv OUT.png|OUT.svg [TITLE]}"
title="${3:-}"
command -v gnuplot >/dev/null || { echo "plot_sweep.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
[ -r "$csv" ] || { echo "plot_sweep.sh: cannot read $csv" >&2; exit 1; }

# The curves, in the order they first appear: the algorithm (column 1), or algorithm@topology
# when the CSV holds several networks (column 8, or its family when the sweep was over p).
# The x axis: the length n (column 2), or the node count p (column 9) when n is one length.
topologies=$(tail -n +2 "$csv" | cut -d, -f8 | awk '!seen[$0]++' | wc -l)
lengths=$(tail -n +2 "$csv" | cut -d, -f2 | awk '!seen[$0]++' | wc -l)
counts=$(tail -n +2 "$csv" | cut -d, -f9 | awk '!seen[$0]++' | wc -l)
x=2
xlabel="vector length n (items)"
curve='strcol(1)'
if [ "$lengths" -eq 1 ] && [ "$counts" -gt 1 ]; then
  x=9
  xlabel="nodes p"
  # the family: the topology up to its ':'
  curve='strcol(1)."@".substr(strcol(8), 1, strstrt(strcol(8), ":") - 1)'
  algorithms=$(tail -n +2 "$csv" | awk -F, '{ split($8, t, ":"); print $1 "@" t[1] }' |
               awk '!seen[$0]++' | tr '\n' ' ')
elif [ "$topologies" -gt 1 ]; then
  curve='strcol(1)."@".strcol(8)'
  algorithms=$(tail -n +2 "$csv" | awk -F, '{ print $1 "@" $8 }' | awk '!seen[$0]++' | tr '\n' ' ')
else
  algorithms=$(tail -n +2 "$csv" | cut -d, -f1 | awk '!seen[$0]++' | tr '\n' ' ')
fi
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
set xlabel "$xlabel"
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
plot for [a in algorithms] "$csv" using ($curve eq a ? \$$x : 1/0):($curve eq a ? \$3 : 1/0) \
     with linespoints title a
set title "measured (vmc)"
plot for [a in algorithms] "$csv" using ($curve eq a ? \$$x : 1/0):($curve eq a ? \$4 : 1/0) \
     with linespoints title a
unset multiplot
GNUPLOT
echo "wrote $out"
