#!/usr/bin/env bash
# Checks Kernel Forge's program mode on a GPU machine: the CUPTI injection
# library (tools/forge-worker/inject, libforge-inject.so) must time the
# kernels of an unmodified program as the program's own CUDA events do, and
# must not change its results.
#   utils/gpu/program-mode-check.sh OUTDIR [REPS]
# Builds libforge-inject.so (build-worker/) and test/gpu/Inputs/
# multi_kernel_app.cu, runs the app once without and once with the library,
# prints per kernel: launches, CUPTI median, CUDA-event median and their
# difference, and exits non-zero when a kernel differs by more than 5%, a
# timed kernel is missing from the CUPTI report, or the checksums differ.
# OUTDIR receives inject.jsonl, events.jsonl, events-plain.jsonl and the
# stdout/stderr of both runs.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 OUTDIR [REPS]" >&2
  exit 2
fi
mkdir -p "$1"
out="$(cd "$1" && pwd)"
reps="${2:-20}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cuda="${CUDA_PATH:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
cd "$root"

echo "== building libforge-inject.so"
# Only the forge-inject target: the worker's other targets need not build.
# Should the configure step itself fail (say, a source of another target
# is missing), the library is built by hand from the same single file.
lib="$root/build-worker/libforge-inject.so"
if cmake -S tools/forge-worker -B build-worker -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" >"$out/cmake.log" 2>&1; then
  ninja -C build-worker forge-inject
else
  tail -n 20 "$out/cmake.log"
  echo "WARNING: cmake could not configure tools/forge-worker (log: $out/cmake.log);" \
       "building libforge-inject.so with g++ directly" >&2
  mkdir -p build-worker
  g++ -std=c++17 -O2 -fPIC -shared tools/forge-worker/inject/Inject.cpp \
    -I"$cuda/include" -L"$cuda/lib64" -lcupti -Wl,-rpath,"$cuda/lib64" -o "$lib"
fi
[[ -f "$lib" ]] || { echo "no $lib after the build" >&2; exit 1; }

echo "== building multi_kernel_app"
app="$out/multi_kernel_app"
nvcc -O3 -arch=sm_90 test/gpu/Inputs/multi_kernel_app.cu -o "$app"

echo "== running without injection"
env -u CUDA_INJECTION64_PATH FORGE_APP_EVENTS_OUT="$out/events-plain.jsonl" \
  "$app" "$reps" >"$out/plain.stdout" 2>"$out/plain.stderr" ||
  { cat "$out/plain.stderr"; echo "the app failed without injection" >&2; exit 1; }

echo "== running with CUDA_INJECTION64_PATH=$lib"
rm -f "$out/inject.jsonl" "$out/events.jsonl"
CUDA_INJECTION64_PATH="$lib" FORGE_INJECT_OUT="$out/inject.jsonl" \
  FORGE_APP_EVENTS_OUT="$out/events.jsonl" \
  "$app" "$reps" >"$out/injected.stdout" 2>"$out/injected.stderr" ||
  { cat "$out/injected.stderr"; echo "the app failed with injection" >&2; exit 1; }
if grep -q 'forge-inject:' "$out/injected.stderr"; then
  grep 'forge-inject:' "$out/injected.stderr" >&2
fi

status=0
if diff <(grep '^checksum' "$out/plain.stdout") <(grep '^checksum' "$out/injected.stdout"); then
  echo "checksums: identical with and without injection"
  grep '^checksum' "$out/plain.stdout"
else
  echo "FAIL: the checksums differ with injection (diff above)" >&2
  status=1
fi

python3 - "$out/inject.jsonl" "$out/events.jsonl" "$out/events-plain.jsonl" <<'EOF' || status=1
import json, sys

def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]

inject = lines(sys.argv[1])
events = lines(sys.argv[2])
plain = {e["name"]: e for e in lines(sys.argv[3])}
header, kernels = inject[0], {k["name"]: k for k in inject[1:]}
print("inject header:", json.dumps(header))
ok = header.get("type") == "inject" and header.get("timer") == "cupti"
if not ok:
    print("FAIL: the injection library did not time with CUPTI")
if header.get("dropped", 0):
    print("FAIL: CUPTI dropped %d records" % header["dropped"])
    ok = False

print("%-45s %8s %12s %12s %8s %12s" % ("kernel", "launches", "cupti us", "events us",
                                         "diff %", "no-inject us"))
for e in events:
    name = e["name"]
    k = kernels.get(name)
    plain_us = plain[name]["median_ns"] / 1e3 if name in plain else float("nan")
    if k is None:
        print("%-45s %8d %12s %12.1f %8s %12.1f  FAIL: missing from the CUPTI report"
              % (name, e["launches"], "-", e["median_ns"] / 1e3, "-", plain_us))
        ok = False
        continue
    diff = 100.0 * (k["median_ns"] - e["median_ns"]) / e["median_ns"]
    bad = abs(diff) > 5.0 or k["launches"] != e["launches"]
    print("%-45s %8d %12.1f %12.1f %+8.2f %12.1f%s"
          % (name, k["launches"], k["median_ns"] / 1e3, e["median_ns"] / 1e3, diff, plain_us,
             "  FAIL" if bad else ""))
    if k["launches"] != e["launches"]:
        print("  FAIL: CUPTI saw %d launches, the events %d" % (k["launches"], e["launches"]))
    ok = ok and not bad
    if name in plain and abs(e["median_ns"] / plain[name]["median_ns"] - 1) > 0.02:
        print("  note: %s takes %+.1f%% time under injection vs. without (CUPTI overhead; "
              "not a failure)" % (name, 100 * (e["median_ns"] / plain[name]["median_ns"] - 1)))
others = [n for n in kernels if n not in {e["name"] for e in events}]
if others:
    print("other kernels CUPTI saw (not compared):", ", ".join(others))
sys.exit(0 if ok else 1)
EOF

if [[ $status -eq 0 ]]; then
  echo "program mode check: PASS (files in $out)"
else
  echo "program mode check: FAIL (files in $out)" >&2
fi
exit $status
