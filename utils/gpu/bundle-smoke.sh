#!/usr/bin/env bash
# On the GPU machine (no LLVM there): unpack the relocatable forge-port
# bundle made by utils/make-bundle.sh, list and port the bundled example
# against that machine's CUDA headers, then build the ported program with
# nvcc and run it on the GPU.
#   utils/gpu/bundle-smoke.sh [out-dir]
set -euo pipefail
out="${1:-/tmp}"
dir=$(mktemp -d)
tar -C "$dir" -xJf bundle/forge-port.tar.xz
fp="$dir/forge-port/bin/forge-port"
echo "== $(date -u) on $(nvidia-smi -L | head -1)"
"$fp" --version
echo "== forge-port list examples/legacy_reduce.cu --arch sm_90"
"$fp" list examples/legacy_reduce.cu --arch sm_90 || true
echo "== forge-port examples/legacy_reduce.cu --to sm_90 -o $out/legacy_reduce.sm_90.cu"
"$fp" examples/legacy_reduce.cu --to sm_90 -o "$out/legacy_reduce.sm_90.cu"
echo "== nvcc -arch=sm_90 and run"
nvcc -arch=sm_90 -o "$dir/ported" "$out/legacy_reduce.sm_90.cu"
"$dir/ported"
