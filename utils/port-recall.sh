#!/usr/bin/env bash
# The recall run of docs/recall-port.md: every translation unit of a tree
# that nvcc builds must port with exit status 0, every warning is listed for
# review, and forge-port's time is set against one nvcc compile.
#
#   utils/port-recall.sh TREE [TARGET] [FORGE_PORT] > recall.tsv
#
# For each .cu that no other file includes: nvcc -c for TARGET (timed), then
# 'forge-port port --to TARGET F' with nvcc validation (timed, its exit
# status), then the same with --no-validate (timed: forge-port's own
# analysis). Include flags: the file's directory and SURVEY_INCLUDES
# (directories under TREE, as the project's Makefile gives them);
# SURVEY_FLAGS adds other flags (-std=c++17, -DX). The warnings and errors forge-port printed go to
# RECALL_LOG (default recall-findings.log) for review. Columns: file, nvcc
# (ok/fail), nvcc s, port exit, port s, analysis s, port s / nvcc s,
# warnings, errors, forge-port's summary.
#
# RECALL_DB=BUILD_DIR: a CMake project's compile database instead. The
# units are its .cu entries under TREE (RECALL_UNITS=FILE: only the paths,
# relative to TREE, listed there); nvcc runs each entry's own command (its
# --options-file and all) with the arch replaced by -arch=TARGET, and
# forge-port reads the same entry ('-p BUILD_DIR'), so the source arch is
# the database's. SURVEY_INCLUDES and SURVEY_FLAGS are not used then.
# Without a database RECALL_UNITS=FILE also keeps only the units listed
# there (as the TSV's first column prints them: a re-timing of some rows).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TREE=$(cd "$1" && pwd)
TARGET=${2:-sm_100}
FP=${3:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/forge-port}
NVCC=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
LOG=${RECALL_LOG:-recall-findings.log}
LOG=$(cd "$(dirname "$LOG")" && pwd)/$(basename "$LOG")
: > "$LOG"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TREE"
now() { date +%s.%N; }
printf 'file\tnvcc\tnvcc_s\tport_rc\tport_s\tanalysis_s\tratio\twarnings\terrors\tsummary\n'
DB=${RECALL_DB:+$(cd "$RECALL_DB" && pwd)}
units() {
  if [ -z "$DB" ]; then
    if [ -n "${RECALL_UNITS:-}" ]; then
      # Only the units listed (paths relative to TREE, as the TSV prints them).
      "$HERE/survey-units.sh" "$TREE" | grep -Fxf <(sed 's|^\./||; s|^|./|' "$RECALL_UNITS")
    else
      "$HERE/survey-units.sh" "$TREE"
    fi
    return
  fi
  python3 - "$DB/compile_commands.json" "$TREE" "${RECALL_UNITS:-}" <<'PY'
import json, os, sys
db, tree, only = sys.argv[1], sys.argv[2], sys.argv[3]
keep = set(l.strip() for l in open(only) if l.strip()) if only else None
for e in json.load(open(db)):
    f = os.path.normpath(os.path.join(e['directory'], e['file']))
    rel = os.path.relpath(f, tree)
    if f.endswith('.cu') and not rel.startswith('..') and (keep is None or rel in keep):
        print('./' + rel)
PY
}
# The database entry's nvcc command for F, for TARGET, writing OUT: its
# directory on the first line, the command (shell-quoted) on the second.
db_command() {
  python3 - "$DB/compile_commands.json" "$TREE/$1" "$TARGET" "$2" <<'PY'
import json, os, shlex, sys
db, f, target, out = sys.argv[1:5]
for e in json.load(open(db)):
    if os.path.normpath(os.path.join(e['directory'], e['file'])) != os.path.normpath(f):
        continue
    a = e.get('arguments') or shlex.split(e['command'])
    r, i = [], 0
    while i < len(a):
        x = a[i]
        if x in ('-gencode', '--generate-code', '-arch', '--gpu-architecture', '-o'):
            i += 1
        elif not x.startswith(('-gencode=', '--generate-code=', '-arch=', '--gpu-architecture=')):
            r.append(x)
        i += 1
    print(e['directory'])
    print(shlex.join(r[:1] + ['-arch=' + target] + r[1:] + ['-o', out]))
    break
PY
}
units | while read -r f; do
  d=$(dirname "$f")
  flags=(-I"$d")
  for i in ${SURVEY_INCLUDES:-}; do flags+=(-I"$TREE/$i"); done
  # shellcheck disable=SC2206
  flags+=(${SURVEY_FLAGS:-})
  t0=$(now)
  nv=ok
  if [ -n "$DB" ]; then
    mapfile -t cmd < <(db_command "$f" "$TMP/a.o")
    (cd "${cmd[0]}" && eval "timeout 300 ${cmd[1]}") > "$TMP/nvcc.log" 2>&1 || nv=fail
    flags=()
    fp_db=(-p "$DB")
  else
    timeout 300 "$NVCC" -arch="$TARGET" -c "$f" -o "$TMP/a.o" "${flags[@]}" > "$TMP/nvcc.log" 2>&1 || nv=fail
    fp_db=()
  fi
  t1=$(now)
  timeout 300 "$FP" port --to "$TARGET" "${fp_db[@]}" "$f" -- "${flags[@]}" > "$TMP/port.log" 2>&1
  rc=$?
  t2=$(now)
  timeout 300 "$FP" port --to "$TARGET" --no-validate "${fp_db[@]}" "$f" -- "${flags[@]}" > /dev/null 2>&1
  t3=$(now)
  w=$(grep -c ' warning: .*\]$' "$TMP/port.log")
  e=$(grep -c ' error: .*\]$' "$TMP/port.log")
  { echo "== $f (nvcc $nv, port exit $rc)"; grep -E ' (warning|error): ' "$TMP/port.log"; } >> "$LOG"
  summary=$(grep -E 'error\(s\)' "$TMP/port.log" | tail -1 | sed 's/^[^ ]*: //')
  printf '%s\t%s\t%.1f\t%s\t%.1f\t%.1f\t%.2f\t%s\t%s\t%s\n' "$f" "$nv" "$(echo "$t1 - $t0" | bc)" "$rc" \
    "$(echo "$t2 - $t1" | bc)" "$(echo "$t3 - $t2" | bc)" "$(echo "($t2 - $t1) / ($t1 - $t0)" | bc -l)" \
    "$w" "$e" "$summary"
done
