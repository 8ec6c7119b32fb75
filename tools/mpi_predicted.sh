#!/bin/sh
# Predicted against measured on this machine: fits alpha, beta and gamma with `vmc calibrate`,
# then runs every allreduce algorithm as a real MPI collective (`vmc run --transport mpi`) at a
# few lengths, and prints a Markdown table of each one's cost formula under the fitted flags
# beside its measured time and MPI_Allreduce's. The table of docs/mpi.md ("Predicted against
# measured") comes from this script, run on an idle machine:
#
#   tools/mpi_predicted.sh [PROCESSES [LENGTHS [ALGORITHMS]]]
#
# PROCESSES defaults to 2 (more than the machine's cores measures the scheduler, not the
# network), LENGTHS to "16 1024 16384 262144" floats, ALGORITHMS to the allreduce rows that
# differ at p = 2. Needs vmc built with MPI (build/vmc) and mpirun.
set -eu
cd "$(dirname "$0")/.."
np=${1:-2}
lengths=${2:-"16 1024 16384 262144"}
algorithms=${3:-"reduce_broadcast recursive_doubling recursive_halving_doubling ring auto"}
mpirun="mpirun --oversubscribe --allow-run-as-root --mca btl_vader_single_copy_mechanism none"

flags=$($mpirun -np 2 ./build/vmc calibrate --type float | tail -n 1)
echo "Calibrated (\`mpirun -np 2 vmc calibrate\`): \`$flags\`; $np processes, float sum."
echo
echo "| n | algorithm | predicted | measured (fastest of 50) | median | MPI_Allreduce (fastest) |"
echo "|---:|---|---:|---:|---:|---:|"
field() {  # field NAME JSON: a number or a string of a one-line JSON object
  printf '%s' "$2" | sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}
us() { awk -v s="$1" 'BEGIN { printf "%.2f us", s * 1e6 }'; }
for n in $lengths; do
  for a in $algorithms; do
    # shellcheck disable=SC2086  # the flags are words
    j=$($mpirun -np "$np" ./build/vmc run --transport mpi --op allreduce --type float \
        --algorithm "$a" --n "$n" --repeat 50 --json $flags)
    name=$(field algorithm "$j")
    [ "$a" = auto ] && name="auto: $name"
    echo "| $n | $name | $(us "$(field predicted_s "$j")") | $(us "$(field time_s "$j")") |" \
         "$(us "$(field median_s "$j")") | $(us "$(field mpi_time_s "$j")") |"
  done
done
