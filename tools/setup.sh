#!/usr/bin/env bash
# Sets up vmc on a Debian machine: installs the Debian packages it needs when they are
# missing (non-interactive, idempotent), then configures and builds with CMake.
#
#   tools/setup.sh            release build in build/
#   VMC_PRESET=tsan tools/setup.sh   ThreadSanitizer build in build-tsan/
#   VMC_PRESET=asan tools/setup.sh   AddressSanitizer build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config libtbb-dev libconcurrentqueue-dev libgtest-dev libgmock-dev
          librapidcheck-dev libbenchmark-dev libboost-context-dev libcli11-dev nlohmann-json3-dev gnuplot-nox
          chromium libopenmpi-dev openmpi-bin)
source tools/debian_packages.sh
install_missing_packages "vmc setup" "${packages[@]}"

preset="${VMC_PRESET:-release}"
case "$preset" in
  release) build=build ;;
  *) build="build-$preset" ;;
esac
mkdir -p "$build"
# Configure's output is kept in the build directory; what it found is summed up below.
if ! cmake --preset "$preset" > "$build/configure.log" 2>&1; then
  cat "$build/configure.log"
  exit 1
fi
cmake --build --preset "$preset" -j "$(nproc)"

# What this build has, and what it leaves out (a part that is missing takes its tests with it;
# a build that asked for MPI and lacks it fails the test build.MpiTestsBuiltWhenAskedFor).
found() { if [ -n "$2" ]; then echo "  $1: $2"; else echo "  $1: NOT FOUND${3:+ ($3)}"; fi; }
runtime_lib() {  # the compiler's sanitizer runtime, when installed
  local f
  f="$(g++ -print-file-name="$1")"
  if [ -e "$f" ] && [ "$f" != "$1" ]; then echo "$f"; fi
}
echo "vmc setup: the $preset build in $build/"
mpi="$(sed -n 's/^-- vmc: MPI parts \(.*\)$/\1/p' "$build/configure.log")"
if [ "$mpi" = ON ]; then
  found "MPI" "$(command -v mpirun) ($(mpirun --version 2>/dev/null | head -1)): the mpi tests are built"
else
  found "MPI" "" "this build has no MPI parts: the MPI transport, spread machines, vmc calibrate and the mpi tests are left out"
fi
found "Chromium" "$(command -v chromium || true)" "the browser tests fail: install the chromium package"
found "AddressSanitizer" "$(runtime_lib libasan.so)" "VMC_PRESET=asan needs it"
found "UndefinedBehaviorSanitizer" "$(runtime_lib libubsan.so)" "VMC_PRESET=asan needs it"
found "ThreadSanitizer" "$(runtime_lib libtsan.so)" "VMC_PRESET=tsan needs it"
