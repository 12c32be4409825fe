#!/usr/bin/env bash
# On the GPU machine: /tmp/bench-refs (utils/bench/reference), built as
# utils/bench/run-suite builds it: the references and the worker's CUPTI
# timer, linked with cuBLAS and CUPTI. Nothing to do when it exists.
set -uo pipefail
[ -x /tmp/bench-refs ] && exit 0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
objs=()
for s in "$root"/utils/bench/reference/refs_*.cu "$root"/tools/forge-worker/Cupti.cpp; do
  o=/tmp/tb-$(basename "$s").o
  nvcc -O3 -std=c++17 -arch=sm_90 -c "$s" -o "$o" & objs+=("$o")
done
wait
cuda="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
nvcc -arch=sm_90 "${objs[@]}" -L"$cuda/lib64" -L"$cuda/extras/CUPTI/lib64" -lcublas -lcupti \
  -Xlinker -rpath="$cuda/lib64:$cuda/extras/CUPTI/lib64" -o /tmp/bench-refs
