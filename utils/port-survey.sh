#!/usr/bin/env bash
# Ports every CUDA translation unit of a source tree and says, per file,
# whether nvcc built it before and builds what forge-port wrote (the table
# of docs/recall-port.md).
#
#   utils/port-survey.sh TREE [TARGET] [FORGE_PORT] > survey.tsv
#
# A translation unit is a .cu that no other file #includes. Each is
# compiled with nvcc -c for TARGET (default sm_90), ported with
# 'forge-port port --to TARGET --no-validate F -o F.forge.cu' (written beside
# F, so quoted includes still resolve), and F.forge.cu compiled again. The
# include flags are the file's directory, TREE/common and the usual util/src
# siblings; a file that needs more (a project's Makefile flags, headers not in
# the tree) fails both before and after, and its first nvcc error says so.
# Columns: file, nvcc before (ok/fail), forge-port exit status, nvcc after
# (ok/fail, '-' when nothing was written), seconds in forge-port, its
# summary line, nvcc's first error before.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TREE=$(cd "$1" && pwd)
TARGET=${2:-sm_90}
FP=${3:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/forge-port}
NVCC=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TREE"
printf 'file\tnvcc_before\tport_rc\tnvcc_after\tport_s\tport_summary\tfirst_nvcc_error\n'
"$HERE/survey-units.sh" "$TREE" | while read -r f; do
  d=$(dirname "$f")
  flags=(-I"$d" -I"$TREE/common" -I"$d/.." -I"$d/util" -I"$d/src")
  before=ok
  timeout 300 "$NVCC" -arch="$TARGET" -c "$f" -o "$TMP/a.o" "${flags[@]}" > "$TMP/before.log" 2>&1 || before=fail
  out=${f%.cu}.forge.cu
  rm -f "$out"
  t0=$(date +%s.%N)
  timeout 300 "$FP" port --to "$TARGET" --no-validate "$f" -o "$out" -- "${flags[@]}" > "$TMP/port.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  after=-
  if [ -f "$out" ]; then
    after=ok
    timeout 300 "$NVCC" -arch="$TARGET" -c "$out" -o "$TMP/b.o" "${flags[@]}" > "$TMP/after.log" 2>&1 || after=fail
  fi
  summary=$(grep -E 'error\(s\)' "$TMP/port.log" | tail -1 | sed 's/^[^ ]*: //')
  first=$(grep -m1 'error' "$TMP/before.log" | sed 's/.*error: //' | cut -c1-80)
  printf '%s\t%s\t%s\t%s\t%.1f\t%s\t%s\n' "$f" "$before" "$rc" "$after" \
    "$(echo "$t1 - $t0" | bc)" "$summary" "$first"
done
