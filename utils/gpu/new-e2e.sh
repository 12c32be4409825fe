#!/usr/bin/env bash
# On the GPU machine: `forge-port new` end to end (issue 14): each
# description to a kernel, tuned and optimised on this GPU by `new --tune
# --optimize`, then the generated and the final kernel measured together
# (forge-port measure: the generated one is the reference) and the
# library's time for the same operation (bench-refs, built as
# templates-bench.sh builds it).
#
#   utils/gpu/new-e2e.sh FORGE_PORT OUT [FIRST [COUNT]]
#
# FIRST/COUNT pick lines of the list below (1-based), to split the run over
# device calls. OUT/<name>.* hold each step's output; OUT/table.txt the
# times.
set -uo pipefail
fp="${1:?usage: new-e2e.sh FORGE_PORT OUT [FIRST [COUNT]]}"
out="${2:?}"
first="${3:-1}"
count="${4:-100}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$out"
# name | description | bench-refs op | its sizes    (the first five in the
# suite's wording, the last five not)
list='reduce_sum|sum of 64M floats|reduce_sum|N=67108864
radix_sort|sort 16M uint32 keys|radix_sort|N=16777216
sgemm_batched|batched SGEMM, 256 matrices of 256x256|sgemm_batched|BATCH=256,N=256
conv_5x5|2D convolution with a 5x5 filter on a 4096x4096 float input|conv2d_5x5|
scan|inclusive scan of 16M floats|scan_inclusive|N=16777216
largest|find the largest of 2^26 single-precision values|reduce_max|N=67108864
matmul|multiply two 4096 by 4096 float matrices|sgemm|M=4096,N=4096,K=4096
merge_sort|order 16,777,216 unsigned ints with a merge sort|merge_sort|N=16777216
axpy|y = 2.5 * x + y over 256M floats|axpy|N=268435456
transpose|transpose an 8192 × 8192 matrix of floats|copy|N=67108864'
bash "$root/utils/gpu/build-bench-refs.sh" || exit 1
: > "$out/refs.txt"
echo "$list" | sed -n "${first},$((first + count - 1))p" | while IFS='|' read -r name desc op sizes; do
  t0=$(date +%s)
  # The kernel as generated, kept beside the tuned and optimised one.
  "$fp" new "$desc" -o "$out/$name.gen.cu" --spec-out "$out/$name.gen.json" --name "$name" \
      --force > "$out/$name.gen.log" 2>&1
  "$fp" new "$desc" -o "$out/$name.cu" --name "$name" --force --tune --tune-budget 24 \
      --tune-strategy random --optimize --rounds 2 > "$out/$name.new.log" 2>&1
  echo "new $name: exit $? in $(( $(date +%s) - t0 )) s"
  grep -E "^(understood|template|running|wrote)|x over the original" "$out/$name.new.log"
  # Each with its own spec: the generated kernel at the template's
  # defaults, the final one at what new --tune --optimize left (the spec's
  # defaults follow the tuned launch; optimize's final spec).
  "$fp" measure "$out/$name.gen.cu" --spec "$out/$name.gen.json" --reps 20 \
      --format json > "$out/$name.gen.measure.json" 2> "$out/$name.gen.measure.log"
  "$fp" measure "$out/$name.cu" --spec "$out/$name.json" --reps 20 \
      --format json > "$out/$name.measure.json" 2> "$out/$name.measure.log"
  echo "measure $name: exit $?"
  /tmp/bench-refs --op "$op" ${sizes:+--sizes "$sizes"} > "$out/$name.ref.jsonl" 2> "$out/$name.ref.log"
  echo "$name $op $sizes" >> "$out/refs.txt"
done
python3 "$root/utils/gpu/templates-bench-table.py" "$out/refs.txt" "$out" | tee "$out/table.txt"
