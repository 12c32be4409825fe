#!/usr/bin/env bash
# On the GPU machine: the tensor-core GEMM kernels of lib/Templates (tf32,
# f16, bf16) checked against their CPU references and timed at 4096^3
# against cuBLAS's cublasGemmEx with the same data types and compute.
#
#   utils/gpu/gemm-lowp-bench.sh FORGE_PORT SAMPLES DIR OUT
#
# SAMPLES is `forge-port new --all-samples` output (its gemm_tf32_*,
# gemm_f16_* and gemm_bf16_* samples are checked); DIR holds t, h and b
# (.cu and .json), written by `forge-port new` from "SGEMM 4096x4096x4096
# on tf32 tensor cores", "half precision GEMM 4096x4096x4096" and "bf16
# GEMM 4096x4096x4096". Each kernel is timed by `forge-port measure --reps
# 20` (forge-worker: CUPTI, L2 flushed before every launch, median), each
# reference by bench-refs (the same timer).
set -uo pipefail
fp="${1:?usage: gemm-lowp-bench.sh FORGE_PORT SAMPLES DIR OUT}"
samples="${2:?}"
dir="${3:?}"
out="${4:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$out"
only=$(ls "$samples" | sed -n 's/^\(gemm_\(tf32\|f16\|bf16\)_[a-z0-9_]*\)\.cu$/\1/p' | sort -u | paste -sd,)
timeout 200 python3 "$root/test/gpu/templates/check.py" "$samples" --nvcc nvcc --arch sm_90 \
    --jobs "$(nproc)" --workdir /tmp/lowp-checks --only "$only" > "$out/check.log" 2>&1
echo "check ($only): exit $?"
grep -E "^(PASS|FAIL)|samples passed" "$out/check.log"
bash "$root/utils/gpu/build-bench-refs.sh" > "$out/bench-refs-build.log" 2>&1 || exit 1
for k in t:sgemm_tf32 h:hgemm b:bgemm; do
  n=${k%%:*} op=${k#*:}
  "$fp" measure "$dir/$n.cu" --spec "$dir/$n.json" --reps 20 --format json \
      > "$out/$n.measure.json" 2> "$out/$n.measure.log"
  echo "measure $n: exit $?"
  /tmp/bench-refs --op "$op" > "$out/$n.ref.jsonl" 2> "$out/$n.ref.log"
  echo "bench-refs $op: exit $?"
done
python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
names = {"t": "tf32 (f32 data)", "h": "f16", "b": "bf16"}
print("%-16s %12s %12s %8s %8s  %s" % ("kernel", "template us", "cuBLAS us", "TFLOP/s", "% lib", "check"))
for n, what in names.items():
    try:
        m = json.load(open(os.path.join(out, n + ".measure.json")))
        c = [c for c in m["candidates"] if c.get("time_ns")][0]
        us = c["time_ns"]["median"] / 1000
        refs = [json.loads(l) for l in open(os.path.join(out, n + ".ref.jsonl")) if l.startswith("{")]
        r = [l for l in refs if l.get("type") == "ref" and l.get("median_ns")][0]
        lib = r["median_ns"] / 1000
        print("%-16s %12.1f %12.1f %8.1f %7.1f%%  %s / %s" % (what, us, lib, 2 * 4096 ** 3 / us / 1e6,
              100 * lib / us, c.get("status"), r.get("check")))
    except Exception as e:  # a missing result is reported, not fatal
        print("%-16s no result (%r)" % (what, e))
EOF
