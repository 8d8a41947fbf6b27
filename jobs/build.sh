#!/usr/bin/env bash
# Install what ccpdem needs from Debian (only what is missing), then configure and build it in
# build/ (Release). Idempotent: a second call only rebuilds what changed.
# Usage: jobs/build.sh   (environment: BUILD_DIR, default <repo>/build; CCPDEM_PACKAGES_EXTRA)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
# the last three: what the Python reader and plotting scripts import (jobs/tools/, jobs/scaling/)
packages="gcc make pkg-config cmake openmpi-bin libopenmpi-dev libpetsc-real-dev libhdf5-openmpi-dev hdf5-tools libyaml-dev
  python3-numpy python3-h5py python3-matplotlib ${CCPDEM_PACKAGES_EXTRA:-}"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "ccpdem: installing Debian packages:$missing"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends $missing
fi
mkdir -p "$build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" 2>&1 | grep -v -E '^\[ *[0-9]+%\]' || true
test "${PIPESTATUS[0]}" -eq 0
