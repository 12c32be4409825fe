#!/usr/bin/env bash
# On the GPU machine: the FP32 GEMM template at 4096^3 swept exhaustively
# over its large block tiles, the fastest configurations measured again
# beside the template's defaults, and cuBLAS timed the same way (issue 14's
# "85 % of cuBLAS on SGEMM 4096^3").
#
#   utils/gpu/gemm-sweep.sh FORGE_PORT OUT
#
# The kernel is `forge-port new "SGEMM 4096x4096x4096"`. Its spec's space
# (1186 valid configurations) is narrowed to block tiles of at least
# 128 x 128 elements, BK 8 or 16 and MINB 1 or 2 (138 configurations): at
# this size smaller tiles only add loads per FMA. `forge-port tune
# --strategy exhaustive` measures them all (forge-worker: CUPTI, L2 flushed
# before every launch); the three fastest are then measured once more in
# one interleaved `forge-port measure` with the defaults, and bench-refs
# times cublasSgemm with the same timer.
set -uo pipefail
fp="${1:?usage: gemm-sweep.sh FORGE_PORT OUT}"
out="${2:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$out"
"$fp" new "SGEMM 4096x4096x4096" -o "$out/sgemm.cu" --spec-out "$out/sgemm.json" \
    --name sgemm_4096 > "$out/new.txt" 2>&1 || { cat "$out/new.txt"; exit 1; }
python3 - "$out/sgemm.json" "$out/sgemm-large.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
keep = {"BM": [64, 128, 256], "BN": [64, 128, 256], "BK": [8, 16],
        "WM": [32, 64, 128], "MINB": [1, 2]}
for t in s["tunables"]:
    if t["name"] in keep:
        t["values"] = [v for v in t["values"] if v in keep[t["name"]]]
s["constraints"].append("BM * BN >= 16384")
json.dump(s, open(sys.argv[2], "w"), indent=1)
EOF
bash "$root/utils/gpu/build-bench-refs.sh" > "$out/bench-refs-build.log" 2>&1 || exit 1
"$fp" tune "$out/sgemm.cu" --spec "$out/sgemm-large.json" --to sm_90 --strategy exhaustive \
    --db "$out/tune.db.json" --report "$out/tune.json" -o "$out/sgemm-tuned.cu" \
    > "$out/tune.log" 2>&1
echo "tune: exit $?"
tail -5 "$out/tune.log"
mapfile -t best < <(python3 - "$out/tune.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ok = sorted((c for c in r["configs"] if c["status"] == "ok" and c["median_ns"]),
            key=lambda c: c["median_ns"])
print(r["original"])
for c in ok[:3]:
    print(c["config"])
EOF
)
args=()
for c in "${best[@]}"; do args+=(--config "$c"); done
"$fp" measure "$out/sgemm.cu" --spec "$out/sgemm.json" "${args[@]}" --reps 20 --format json \
    > "$out/measure.json" 2> "$out/measure.log"
echo "measure: exit $?"
/tmp/bench-refs --op sgemm --sizes M=4096,N=4096,K=4096 > "$out/ref.jsonl" 2> "$out/ref.log"
echo "bench-refs: exit $?"
python3 - "$out/measure.json" "$out/ref.jsonl" "$out/tune.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
refs = [json.loads(l) for l in open(sys.argv[2]) if l.strip().startswith("{")]
refs = [l for l in refs if l.get("type") == "ref" and l.get("median_ns")]
lib = min(refs, key=lambda l: l["median_ns"])
t = json.load(open(sys.argv[3]))
print("tune: %d configurations measured, %.0f s" % (t["measured"], t["wall_seconds"]))
print("library: %s %.1f us" % (lib.get("ref", "?"), lib["median_ns"] / 1000))
for c in m["candidates"]:
    if not c.get("time_ns"):
        print("%-60s %s" % (c.get("label", "?"), c.get("status")))
        continue
    us = c["time_ns"]["median"] / 1000
    print("%-60s %8.1f us  %5.1f %% of cuBLAS  %s" % (c.get("label", "?"), us,
          100 * lib["median_ns"] / 1000 / us, c.get("status")))
EOF
