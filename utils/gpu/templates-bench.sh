#!/usr/bin/env bash
# On the GPU machine: the templates at the benchmark suite's sizes against
# the suite's library references (issue 14).
#
#   utils/gpu/templates-bench.sh FORGE_PORT DIR OUT
#
# DIR holds <name>.cu and <name>.json written by `forge-port new` (here, by
# utils/gpu/templates-bench-prepare.sh) and refs.txt, one line per kernel:
# "<name> <bench-refs op> [K=V,...]" (the reference and its sizes). Each
# kernel is measured by `forge-port measure` (forge-worker: CUPTI, L2
# flushed, inputs restored before every launch, median of the reps) at its
# spec's defaults, then the references by bench-refs (utils/bench/reference,
# timed the same way); OUT/table.txt has both, one row per kernel.
set -uo pipefail
fp="${1:?usage: templates-bench.sh FORGE_PORT DIR OUT}"
dir="${2:?}"
out="${3:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$out"
if [ ! -x /tmp/bench-refs ]; then
  objs=()
  for s in "$root"/utils/bench/reference/refs_*.cu; do
    o=/tmp/$(basename "$s" .cu).o
    nvcc -O3 -std=c++17 -arch=sm_90 -c "$s" -o "$o" & objs+=("$o")
  done
  wait
  nvcc -arch=sm_90 "${objs[@]}" -lcublas -o /tmp/bench-refs || exit 1
fi
while read -r name op sizes; do
  [ -z "$name" ] && continue
  "$fp" measure "$dir/$name.cu" --spec "$dir/$name.json" --reps 20 --format json \
      > "$out/$name.measure.json" 2> "$out/$name.measure.log"
  echo "measure $name: exit $?"
  /tmp/bench-refs --op "$op" ${sizes:+--sizes "$sizes"} > "$out/$name.ref.jsonl" 2> "$out/$name.ref.log"
  echo "bench-refs $op $sizes: exit $?"
done < "$dir/refs.txt"
python3 - "$dir/refs.txt" "$out" <<'PY' | tee "$out/table.txt"
import json, sys, os
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("%-28s %12s %12s %-32s %8s" % ("kernel", "template us", "library us", "reference", "% of lib"))
for r in rows:
    name, op = r[0], r[1]
    t = lib = None
    ref = "?"
    try:
        m = json.load(open(os.path.join(sys.argv[2], name + ".measure.json")))
        c = [c for c in m["candidates"] if c.get("time_ns")][0]
        t = c["time_ns"]["median"] / 1000
    except Exception as e:
        ref = "measure: %r" % e
    try:
        lines = [json.loads(l) for l in open(os.path.join(sys.argv[2], name + ".ref.jsonl"))
                 if l.strip().startswith("{")]
        # The library's own call (primary), else the fastest reference (a copy of the bytes).
        lines = [l for l in lines if l.get("type") == "ref" and l.get("median_ns")]
        prim = [l for l in lines if l.get("primary")] or lines
        best = min(prim, key=lambda l: l["median_ns"])
        lib = best["median_ns"] / 1000
        ref = "%s (%s)" % (best["ref"], best.get("timer", "?"))
    except Exception as e:
        ref = ref if t is None else "refs: %r" % e
    pct = "%.1f %%" % (100 * lib / t) if t and lib else "-"
    print("%-28s %12s %12s %-32s %8s" % (name, "%.1f" % t if t else "-", "%.1f" % lib if lib else "-", ref[:32], pct))
PY
