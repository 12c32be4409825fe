#!/usr/bin/env bash
# The greedy loop against `optimize --search evolve` under the same
# evaluation budget, then both again with the experience library the first
# runs filled (issue 18; docs/evolve.md, docs/bench/evolve.md).
#
#   evolve-compare.sh OUT PHASE KERNEL...
#
# PHASE 1: each kernel's greedy run (GREEDY_ROUNDS, 6, of GREEDY_PROPOSALS, 8;
# its evaluations set the budget), then
# its evolve run with that budget, both filling OUT/library.json.
# PHASE 2: the same runs again, reading (and growing) that library.
# KERNEL: a path without extension (K.cu, K.json). Reports go to
# OUT/<name>-<search>-<phase>.json; utils/gpu/evolve-table.py makes the
# table. Needs $FP (forge-port) and $FORGE_WORKER.
set -uo pipefail
out=${1:?usage: evolve-compare.sh OUT PHASE KERNEL...}
phase=${2:?phase 1 or 2}
shift 2
mkdir -p "$out"
lib="$out/library.json"
common=(--to sm_90 --no-tuner --timing-rounds 3 --reps 20 --experience "$lib")
for k in "$@"; do
  n=$(basename "$k")
  w="$out/work/$n-$phase"
  mkdir -p "$w"
  cp "$k.cu" "$k.json" "$w/"
  t=$(date +%s)
  "$FP" optimize "$w/$n.cu" --spec "$w/$n.json" "${common[@]}" --rounds "${GREEDY_ROUNDS:-6}" --proposals "${GREEDY_PROPOSALS:-8}" \
    --report "$out/$n-greedy-$phase.json" -o "$w/$n-greedy.cu" > "$w/greedy.log" 2>&1
  echo "$n greedy phase $phase: exit $? in $(( $(date +%s) - t )) s; $(grep -E '^forge-port: .*over the original|stopped' "$w/greedy.log" | tail -1)"
  # The same budget: the evaluations the greedy loop used (at least 2).
  b=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(max(2, sum(len(x['proposals']) for x in r['rounds'])))" "$out/$n-greedy-$phase.json" 2>/dev/null || echo 8)
  [ "$phase" = 2 ] && [ -f "$out/$n-budget" ] && b=$(cat "$out/$n-budget")
  [ "$phase" = 1 ] && echo "$b" > "$out/$n-budget"
  t=$(date +%s)
  "$FP" optimize "$w/$n.cu" --spec "$w/$n.json" "${common[@]}" --search evolve --islands 2 \
    --offspring 2 --budget "$b" --seed 1 --report "$out/$n-evolve-$phase.json" \
    -o "$w/$n-evolve.cu" > "$w/evolve.log" 2>&1
  echo "$n evolve phase $phase (budget $b): exit $? in $(( $(date +%s) - t )) s; $(grep -E 'over the original' "$w/evolve.log" | tail -1)"
  grep -E '^forge-port: (evolve|the winner)' "$w/evolve.log"
done
