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
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "vmc setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

preset="${VMC_PRESET:-release}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
