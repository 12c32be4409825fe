#!/usr/bin/env bash
# Here (no GPU): the kernels of utils/gpu/templates-bench.sh, written by
# `forge-port new` from descriptions at the benchmark suite's sizes, with
# refs.txt naming each one's bench-refs reference.
#
#   utils/gpu/templates-bench-prepare.sh FORGE_PORT DIR
set -euo pipefail
fp="${1:?usage: templates-bench-prepare.sh FORGE_PORT DIR}"
dir="${2:?}"
rm -rf "$dir" && mkdir -p "$dir"
: > "$dir/refs.txt"
# name | description | bench-refs op | its sizes
while IFS='|' read -r name desc op sizes; do
  [ -z "$name" ] && continue
  "$fp" new "$desc" -o "$dir/$name.cu" --name "$name" > "$dir/$name.new.txt"
  echo "$name $op $sizes" >> "$dir/refs.txt"
done <<'LIST'
reduce_sum_64M|sum of 64M floats|reduce_sum|N=67108864
reduce_max_64M|maximum of 64M floats|reduce_max|N=67108864
reduce_argmax_16M|argmax of 16M floats|reduce_argmax|N=16777216
scan_16M|inclusive prefix sum of 16M floats|scan_inclusive|N=16777216
radix_sort_16M|sort 16M uint32 keys|radix_sort|N=16777216
merge_sort_16M|merge sort 16M uint32 keys|merge_sort|N=16777216
sgemm_4096|SGEMM 4096x4096x4096|sgemm|M=4096,N=4096,K=4096
dgemm_2048|DGEMM 2048x2048x2048|dgemm|M=2048,N=2048,K=2048
sgemm_batched|batched SGEMM, 256 matrices of 256x256|sgemm_batched|BATCH=256,N=256
conv_5x5|2D convolution with a 5x5 filter on a 4096x4096 float input|conv2d_5x5|
conv_7x7|2D convolution with a 7x7 filter on a 4096x4096 float input|conv2d_7x7|
conv_sep7|separable 7x7 filter on a 4096x4096 float image|conv2d_separable|
add_256M|add two vectors of 256M floats|add|N=268435456
transpose_8192|transpose a 8192x8192 float matrix|copy|N=67108864
LIST
echo "prepared $(wc -l < "$dir/refs.txt") kernels in $dir"
