#!/usr/bin/env bash
# Installs what Kernel Forge needs (Debian 12 packages), checks for the CUDA
# toolkit, then configures and builds into build/. Safe to run again: it
# installs only what is missing and rebuilds only what changed.
#
#   utils/setup.sh            install, configure, build
#   utils/setup.sh --deps     install and check only
#   utils/setup.sh --tests    also what the test suite needs (utils/run-tests.sh):
#                             Slurm and munge for the cluster tests (test/slurm)
#   BUILD_DIR=out utils/setup.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

deps_only=0
packages=(cmake ninja-build g++ python3 clang-22 libclang-22-dev llvm-22-dev llvm-22-tools
          nlohmann-json3-dev libcurl4-openssl-dev libgtest-dev)
for arg in "$@"; do
  case $arg in
  --deps) deps_only=1 ;;
  --tests) packages+=(slurm-wlm munge) ;;
  *) echo "usage: $0 [--deps] [--tests]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

cuda="${CUDA_PATH:-/usr/local/cuda}"
if [ ! -x "$cuda/bin/nvcc" ] && command -v nvcc >/dev/null; then
  cuda="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
fi
if [ ! -f "$cuda/include/cuda_runtime.h" ]; then
  echo "error: no CUDA toolkit found (looked at \$CUDA_PATH, /usr/local/cuda, nvcc on PATH)." >&2
  echo "       Install CUDA 13 or set CUDA_PATH; Kernel Forge never downloads a toolkit." >&2
  exit 1
fi

[ "$deps_only" = 1 ] && exit 0

if [ ! -f "$build/build.ninja" ]; then
  say "configuring $build"
  # clang++-22 (installed above) builds Kernel Forge in about half the time
  # g++ 12 takes, with the precompiled Clang headers (FORGE_PCH): the first
  # build is most of the set-up. $CXX, when set, is used instead.
  compiler=()
  if [ -z "${CXX:-}" ] && command -v clang++-22 >/dev/null; then
    compiler=(-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22)
  fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFORGE_CUDA_PATH="$cuda" \
    "${compiler[@]}" >/dev/null
fi
say "building (this takes several minutes the first time on 2 cores)"
ninja -C "$build" ${NINJA_JOBS:+-j "$NINJA_JOBS"}
