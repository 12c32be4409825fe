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
bash "$root/utils/gpu/build-bench-refs.sh" || exit 1
# The harnesses built first, in parallel (nvcc's results are cached by
# content, so the timed runs below only load them).
while read -r name op sizes; do
  [ -z "$name" ] && continue
  "$fp" measure "$dir/$name.cu" --spec "$dir/$name.json" --arch sm_90 --no-run \
      --job-dir "/tmp/tb-build/$name" > "$out/$name.build.log" 2>&1 &
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 1; done
done < "$dir/refs.txt"
wait
echo "harnesses built: $(date -u +%H:%M:%S)"
while read -r name op sizes; do
  [ -z "$name" ] && continue
  "$fp" measure "$dir/$name.cu" --spec "$dir/$name.json" --reps 20 --format json \
      > "$out/$name.measure.json" 2> "$out/$name.measure.log"
  echo "measure $name: exit $?"
  /tmp/bench-refs --op "$op" ${sizes:+--sizes "$sizes"} > "$out/$name.ref.jsonl" 2> "$out/$name.ref.log"
  echo "bench-refs $op $sizes: exit $?"
done < "$dir/refs.txt"
python3 "$root/utils/gpu/templates-bench-table.py" "$dir/refs.txt" "$out" | tee "$out/table.txt"
