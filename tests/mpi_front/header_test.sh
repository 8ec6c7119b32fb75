#!/bin/sh
# vmc's mpi.h compiles cleanly in one language standard: SOURCE, which includes it, built with
# -std=STD -Wall -Wextra -pedantic -Werror; with "run", the program is linked and run too (it
# checks the header's constants and exits non-zero on a problem).
#   header_test.sh COMPILER STD SOURCE INCLUDE_DIR [run]
set -u
compiler=$1 std=$2 source=$3 include=$4 run=${5:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
flags="-std=$std -Wall -Wextra -pedantic -Werror -I$include"
if [ "$run" = run ]; then
  # shellcheck disable=SC2086
  "$compiler" $flags "$source" -o "$dir/program" || { echo "FAIL: $compiler -std=$std"; exit 1; }
  "$dir/program" || { echo "FAIL: the program found a problem"; exit 1; }
else
  # shellcheck disable=SC2086
  "$compiler" $flags -c "$source" -o "$dir/object.o" || { echo "FAIL: $compiler -std=$std"; exit 1; }
fi
echo "mpi.h compiles with $compiler -std=$std: passed"
