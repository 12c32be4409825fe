#!/usr/bin/env bash
# On the GPU machine: builds forge-worker with its own CMake, unpacks the
# forge-port bundle (utils/make-bundle.sh), and shows measurement working:
#   1. the device and its measured ceilings;
#   2. the planted kernels of test/gpu/Inputs/planted, each caught with its
#      reason while the run goes on (off-by-one, unwritten, writes its input,
#      faults, hangs, does no work) next to the correct one;
#   3. the same measurement of a >= 100 us kernel five times: the spread of
#      the five medians must be under 2 %;
#   4. program mode on a program with several kernels (forge-port measure
#      --run), and CUPTI against CUDA events (utils/gpu/program-mode-check.sh).
# Every step's output goes to stdout and, as files, to OUT.
#   utils/gpu/measure-check.sh OUT
set -uo pipefail
out="${1:?usage: measure-check.sh OUT}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mkdir -p "$out"
fail=0
step() { echo; echo "== $*"; }
check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fail=1; fi
}

step "$(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi -L | head -1)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader

step "build forge-worker (cmake -S tools/forge-worker)"
t0=$(date +%s)
cmake -S tools/forge-worker -B /tmp/build-worker -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/worker-cmake.log 2>&1 || { cat /tmp/worker-cmake.log; exit 1; }
ninja -C /tmp/build-worker > /tmp/worker-build.log 2>&1 || { cat /tmp/worker-build.log; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
export FORGE_WORKER=/tmp/build-worker/forge-worker
bdir=$(mktemp -d)
tar -C "$bdir" -xJf bundle/forge-port.tar.xz
fp="$bdir/forge-port/bin/forge-port"
"$fp" --version

step "forge-worker info; forge-worker ceilings"
"$FORGE_WORKER" info
"$FORGE_WORKER" ceilings --refresh

P=test/gpu/Inputs/planted
step "planted kernels: forge-port measure good.cu <6 planted> --spec stencil3.json --timeout 10"
t0=$(date +%s)
"$fp" measure $P/good.cu $P/off_by_one.cu $P/unwritten.cu $P/writes_input.cu $P/fault.cu \
      $P/hang.cu $P/nowork.cu --spec $P/stencil3.json --timeout 10 --job-dir /tmp/planted
echo "exit status $? (1 expected: not every candidate is correct); $(( $(date +%s) - t0 )) s"
"$fp" measure $P/good.cu $P/off_by_one.cu $P/unwritten.cu $P/writes_input.cu $P/fault.cu \
      $P/hang.cu $P/nowork.cu --spec $P/stencil3.json --timeout 10 --format json \
      > "$out/planted.json" 2> /tmp/planted-json.err
cp /tmp/planted/results.jsonl "$out/planted-results.jsonl"
python3 - "$out/planted.json" <<'EOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
want = {"good.cu": "ok", "off_by_one.cu": "wrong", "unwritten.cu": "unwritten",
        "writes_input.cu": "writes-input", "fault.cu": "crashed", "hang.cu": "timeout",
        "nowork.cu": "no-work"}
bad = 0
for c in r["candidates"]:
    f = c["source"].split("/")[-1]
    ok = c["status"] == want[f]
    bad += not ok
    print("%-4s %-16s %-13s expected %-13s %s" % ("PASS" if ok else "FAIL", f, c["status"],
          want[f], c.get("error", "")))
sys.exit(1 if bad else 0)
EOF

step "repeatability: the same measurement of good.cu five times"
for i in 1 2 3 4 5; do
  "$fp" measure $P/good.cu --spec $P/stencil3.json --format json > "/tmp/repeat-$i.json" 2>/dev/null
  echo "run $i: exit $?"
done
python3 - /tmp <<'EOF' || fail=1
import json, sys
meds = []
for i in range(1, 6):
    c = json.load(open("%s/repeat-%d.json" % (sys.argv[1], i)))["candidates"][0]
    meds.append(c["time_ns"]["median"])
    print("run %d: median %.2f us, min %.2f us, spread within the run %.2f %%, %.0f GB/s, roofline %.1f %%"
          % (i, c["time_ns"]["median"] / 1e3, c["time_ns"]["min"] / 1e3,
             100 * c["time_ns"]["spread"], c.get("gbps", 0), 100 * c.get("roofline_fraction", 0)))
spread = (max(meds) - min(meds)) / (sum(meds) / len(meds))
print("spread of the five medians: %.2f %% (goal < 2 %%), kernel %.1f us (goal >= 100 us)"
      % (100 * spread, min(meds) / 1e3))
sys.exit(0 if spread < 0.02 and min(meds) >= 100e3 else 1)
EOF

step "the text report of one measurement, with configurations"
"$fp" measure $P/good.cu --spec $P/stencil3.json --all-configs

step "program mode: the original, a variant with another grid, and a wrong variant"
app=test/gpu/Inputs/multi_kernel_app.cu
mkdir -p /tmp/pm
sed 's/kStreamBlocks = 8192;/kStreamBlocks = 1056;/' $app > /tmp/pm/app_grid1056.cu
sed 's/(kSaxpyN, 0.5f, x, y)/(kSaxpyN, 0.25f, x, y)/' $app > /tmp/pm/app_wrong.cu
diff $app /tmp/pm/app_grid1056.cu; diff $app /tmp/pm/app_wrong.cu
echo "forge-port measure $app app_grid1056.cu app_wrong.cu --run '{exe} 20' --runs 3"
"$fp" measure $app /tmp/pm/app_grid1056.cu /tmp/pm/app_wrong.cu --run "{exe} 20" --runs 3 \
      --job-dir /tmp/prog
echo "exit status $? (1 expected: app_wrong.cu's output differs)"
step "program mode: CUPTI against CUDA events (utils/gpu/program-mode-check.sh)"
bash utils/gpu/program-mode-check.sh /tmp/program-mode || fail=1
cp /tmp/program-mode/inject.jsonl /tmp/program-mode/events.jsonl "$out/" 2>/dev/null

step "result: $([ $fail = 0 ] && echo ALL PASS || echo SOME FAILED)"
exit $fail
