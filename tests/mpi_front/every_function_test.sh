#!/bin/sh
# Every MPI function of vmc's tables links and loads: every_function.c, built by vmcc with
# warnings as errors (vmcc links with -Wl,--no-undefined), runs under `vmc mpirun -np 1` and
# holds as many addresses as the tables have lines, twice (MPI_ and PMPI_); an unsupported
# function, called, ends the run with a report naming the rank, the function and
# MPI_ERR_UNSUPPORTED_OPERATION.
#   every_function_test.sh VMC VMCC SOURCE_DIR TABLE REMOVED_TABLE
set -u
vmc=$1 vmcc=$2 source=$3 table=$4 removed=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$vmcc" -std=c99 -Wall -Wextra -pedantic -Werror -Wl,--no-undefined \
  "$source/every_function.c" -o "$dir/every_function" || { echo "FAIL: vmcc"; exit 1; }

lines=$(cat "$table" "$removed" | grep -c '^VMC_MPI_\(IMPLEMENTED\|UNSUPPORTED\)(')
[ "$lines" -gt 10 ] || fail "no line of the table in $table"
out=$("$vmc" mpirun -np 1 "$dir/every_function" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "every_function exited $rc: $out"
case $out in
  *"every_function: $((2 * lines)) functions by address"*) ;;
  *) fail "expected $((2 * lines)) addresses ($lines lines in the table): $out" ;;
esac
case $out in *"all checks passed"*) ;; *) fail "checks: $out" ;; esac

# unsupported NAME REPORTED: calling NAME fails the run, naming rank 0, REPORTED and the class.
unsupported() {
  out=$("$vmc" mpirun -np 1 "$dir/every_function" "$1" 2>&1)
  rc=$?
  [ $rc -ne 0 ] || fail "$1: the run did not fail: $out"
  case $out in *"every_function: $1 returned"*) fail "$1 returned: $out" ;; esac
  case $out in
    *"rank 0 failed: $2: MPI_ERR_UNSUPPORTED_OPERATION"*"$2"*) ;;
    *) fail "$1: expected rank 0, $2 and MPI_ERR_UNSUPPORTED_OPERATION in: $out" ;;
  esac
}
unsupported MPI_Win_create MPI_Win_create
unsupported PMPI_File_open MPI_File_open
unsupported MPI_T_init_thread MPI_T_init_thread
unsupported MPI_Type_match_size MPI_Type_match_size

[ $failures -eq 0 ] && echo "all passed"
exit $((failures > 0))
