#!/usr/bin/env bash
# On the GPU machine: legacy programs ported by forge-port run and pass their
# own verification (issue 20). The trees are made here by
# utils/gpu/make-legacy.sh and carried as
# .legacy/ (ignored by git, not committed):
#   .legacy/shoc-orig   SHOC's src/common and src/cuda as fetched, with the
#                       config/config.h its ./configure wrote
#   .legacy/shoc        `forge-port --all SHOC/src --to sm_90 -o .legacy/shoc/
#                       -- -Iconfig -Isrc/common -Isrc/cuda/common`, and the
#                       same config/config.h
# For each benchmark the original is built with nvcc (CUDA 13 rejects it),
# then the ported one, which is run with its smallest size; SHOC checks the
# GPU's results against the CPU's and prints "Passed" or "FAILED".
#
#   utils/gpu/legacy-check.sh OUT
set -uo pipefail
OUT=${1:?OUT}
mkdir -p "$OUT"
NVCC=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
ARCH=${LEGACY_ARCH:-sm_90}
root=$(cd "$(dirname "$0")/../.." && pwd)
common="common/Option.cpp common/OptionParser.cpp common/ResultDatabase.cpp common/ProgressBar.cpp cuda/common/main.cpp"
status=0
printf '%-10s %-14s %-14s %s\n' benchmark original ported run
for b in reduction/Reduction scan/Scan sort/Sort spmv/Spmv; do
  name=$(basename "$b")
  dir=cuda/level1/$(dirname "$b")
  srcs="$dir/$name.cu"
  [ "$name" = Sort ] && srcs="$srcs $dir/sort_kernel.cu"
  build() { # TREE EXE
    (cd "$1" && "$NVCC" -arch="$ARCH" -O2 -o "$2" $srcs $common -Iconfig -Icommon -Icuda/common \
       -I"$dir") \
      > "$2.log" 2>&1
  }
  orig=builds
  build "$root/.legacy/shoc-orig" "$OUT/$name.orig" || orig="fails"
  ported=builds
  run=-
  if build "$root/.legacy/shoc" "$OUT/$name"; then
    "$OUT/$name" -s 1 --passes 2 > "$OUT/$name.run" 2>&1
    rc=$?
    passed=$(grep -c 'Passed' "$OUT/$name.run")
    failed=$(grep -c 'FAILED' "$OUT/$name.run")
    run="exit $rc, $passed Passed, $failed FAILED"
    { [ $rc -eq 0 ] && [ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]; } || status=1
  else
    ported=fails
    status=1
  fi
  printf '%-10s %-14s %-14s %s\n' "$name" "$orig" "$ported" "$run"
  [ "$orig" = fails ] && grep -m2 -E 'error' "$OUT/$name.orig.log" | sed 's/^/    original: /'
done
exit $status
