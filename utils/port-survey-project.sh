#!/usr/bin/env bash
# Ports a whole source tree in project mode and says, per translation unit,
# whether nvcc built it before and builds the ported tree (the project-mode
# table of docs/recall-port.md).
#
#   utils/port-survey-project.sh TREE [TARGET] [FORGE_PORT] > survey.tsv
#
# The translation units are the .cu files that no other file #includes (as
# 'forge-port --all' finds them). A compile database gives each the include
# flags of utils/port-survey.sh (its directory, TREE/common, its parent and
# util/src siblings); 'forge-port -p DB --all --to TARGET --no-validate
# -o OUT/' ports the tree into OUT (fixes in shared headers and included .cu
# files applied once), and each unit is compiled again inside OUT with the
# same flags mapped there (SURVEY_INCLUDES="a b": more -I directories
# under TREE). Columns: file, nvcc before (ok/fail), nvcc after
# (ok/fail/missing), nvcc's first error after (or before). The last line
# has forge-port's exit status, its wall time and its summary.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TREE=$(cd "$1" && pwd)
TARGET=${2:-sm_90}
FP=${3:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/forge-port}
NVCC=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
cd "$TREE"
units=()
while read -r f; do
  units+=("${f#./}")
done < <("$HERE/survey-units.sh" "$TREE")
# SURVEY_INCLUDES: more include directories, relative to TREE, for trees
# whose headers live elsewhere (SHOC's cuda/common).
# SURVEY_PLAIN=1: only the file's directory and SURVEY_INCLUDES (a tree whose
# parent directories hold headers that must not be found, llm.c's dev/unistd.h).
flags_of() { # DIR ROOT -> the include flags, one per line
  printf '%s\n' "-I$2/$1"
  [ -n "${SURVEY_PLAIN:-}" ] || printf '%s\n' "-I$2/common" "-I$2/$1/.." "-I$2/$1/util" "-I$2/$1/src"
  for i in ${SURVEY_INCLUDES:-}; do printf '%s\n' "-I$2/$i"; done
}
{
  echo '['
  sep=''
  for f in "${units[@]}"; do
    d=$(dirname "$f")
    args=$(flags_of "$d" "$TREE" | sed 's/.*/"&"/' | paste -sd, -)
    printf '%s{"directory": "%s", "arguments": ["nvcc", "-arch=%s", %s, "-c", "%s"], "file": "%s/%s"}\n' \
      "$sep" "$TREE" "$TARGET" "$args" "$f" "$TREE" "$f"
    sep=','
  done
  echo ']'
} > "$TMP/compile_commands.json"
t0=$(date +%s.%N)
"$FP" port -p "$TMP" --all --to "$TARGET" --no-validate -o "$OUT/" > "$TMP/port.log" 2>&1
rc=$?
t1=$(date +%s.%N)
printf 'file\tnvcc_before\tnvcc_after\tfirst_nvcc_error\n'
for f in "${units[@]}"; do
  d=$(dirname "$f")
  mapfile -t before_flags < <(flags_of "$d" "$TREE")
  before=ok
  timeout 300 "$NVCC" -arch="$TARGET" -c "$f" -o "$TMP/a.o" "${before_flags[@]}" > "$TMP/before.log" 2>&1 || before=fail
  after=missing
  log=$TMP/before.log
  if [ -f "$OUT/$f" ]; then
    mapfile -t after_flags < <(flags_of "$d" "$OUT")
    after=ok
    (cd "$OUT" && timeout 300 "$NVCC" -arch="$TARGET" -c "$f" -o "$TMP/b.o" "${after_flags[@]}") \
      > "$TMP/after.log" 2>&1 || { after=fail; log=$TMP/after.log; }
  fi
  first=$(grep -m1 'error' "$log" | sed 's/.*error: //' | cut -c1-90)
  [ "$before" = ok ] && [ "$after" = ok ] && first=''
  printf '%s\t%s\t%s\t%s\n' "$f" "$before" "$after" "$first"
done
printf '# forge-port exit %s in %.0f s: %s\n' "$rc" "$(echo "$t1 - $t0" | bc)" \
  "$(grep -E '^[0-9]+ file\(s\):' "$TMP/port.log" | tail -1)"
