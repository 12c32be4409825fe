#!/usr/bin/env bash
# Benchmark: `forge-port list` on a file that includes CUB, against a plain
# `clang++ -fsyntax-only` of the same file (host and device, as clang does
# by default). The goal (issue 2) is to stay within 1.5x of the plain parse.
# Runs each command N times, alternating, and prints the medians and ratio.
#
#   utils/bench/list-vs-clang.sh [N=3] [build-dir]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
n="${1:-3}"
build="${2:-$root/build}"
cuda="${CUDA_PATH:-/usr/local/cuda}"
src="$root/utils/bench/inputs/cub_block_reduce.cu"
clang=/usr/lib/llvm-22/bin/clang++
fp=()
cl=()
t() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  e=$(date +%s.%N)
  python3 -c "print(round($e - $s, 2))"
}
test -x "$build/bin/forge-port" || { echo "no forge-port in $build/bin (pass the build directory)" >&2; exit 1; }
for i in $(seq "$n"); do
  fp+=("$(t "$build/bin/forge-port" list --arch sm_90 "$src")")
  cl+=("$(t "$clang" -fsyntax-only -x cuda --cuda-path="$cuda" --cuda-gpu-arch=sm_90 \
            -isystem "$cuda/include/cccl" -Wno-unknown-cuda-version "$src")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mf=$(median "${fp[@]}"); mc=$(median "${cl[@]}")
echo "date: $(date -u +%F), $(nproc) cores, $("$clang" --version | head -1)"
echo "forge-port list   runs: ${fp[*]}  median: $mf s"
echo "clang -fsyntax-only runs: ${cl[*]}  median: $mc s"
echo "ratio: $(python3 -c "print(round($mf / $mc, 2))")"
