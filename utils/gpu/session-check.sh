#!/usr/bin/env bash
# On the GPU machine, in one call: builds forge-worker, unpacks the forge-port
# bundle (utils/make-bundle.sh) and runs the steps named on the command line,
# each with its output in OUT/<step>.log and a PASS/FAIL line; OUT/results.tar.gz
# holds everything (the device tool brings back only a few files).
#
#   utils/gpu/session-check.sh OUT step...
#
# The steps write under /tmp/session (WORK); OUT receives only the archive and
# the log, since the device tool brings back at most eight files.
#
# Steps:
#   checks          the GPU lit tests' check programs prepared here by
#                   utils/gpu/prepare-gpu-checks.py in bundle/gpu-checks; each
#                   one's output is OUT/checks/<test>.out, judged back here by
#                   'prepare-gpu-checks.py verify'
#   restore         forge-port measure of test/gpu/Inputs/restore: a kernel
#                   that consumes its inout buffer against one that does not;
#                   with a restore before every timed launch they time alike
#   streams         program mode on test/gpu/Inputs/streams_app.cu: kernels
#                   on two streams counted, one launch left running flagged
#   sandbox         test/gpu/sandbox.test by hand (no lit there): the probe
#                   harness among real candidates under `forge-worker run`,
#                   then `forge-worker sandbox-check --sandbox strict`
#   measure         utils/gpu/measure-check.sh (planted kernels, repeatability,
#                   program mode): the measure driver on a real GPU
#   tune:K          forge-port tune of test/gpu/Inputs/tune/K.cu, exhaustive,
#                   written back with -o and checked against the original
#   optimize:K      forge-port optimize of utils/bench/naive/K.cu with its
#                   defaults, a Markdown and a JSON report, a transcript
#   optimize-suite:K  the same for utils/bench/kernels/K.cu
#   suite:CAT       utils/bench/run-suite --category CAT with this session's
#                   forge-port and worker, the suite's own settings of
#                   docs/bench/suite-h200.md (budget 16, 2 rounds), --resume,
#                   results in WORK/bench (SUITE_DEADLINE minutes, default 8)
#   suite-ops:A,B   the same for the named operations only
set -uo pipefail
dest="${1:?usage: session-check.sh OUT step...}"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${WORK:-/tmp/session}"
rm -rf "$out" && mkdir -p "$out" "$dest"
exec > >(tee "$out/session.log") 2>&1
echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi -L | head -1)"
start=$(date +%s)
if [ ! -x /tmp/build-worker/forge-worker ]; then
  cmake -S tools/forge-worker -B /tmp/build-worker -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/worker-cmake.log 2>&1 || { cat /tmp/worker-cmake.log; exit 1; }
  ninja -C /tmp/build-worker forge-worker forge-inject > /tmp/worker-build.log 2>&1 ||
    { cat /tmp/worker-build.log; exit 1; }
fi
export FORGE_WORKER=/tmp/build-worker/forge-worker
if [ ! -x /tmp/fp/forge-port/bin/forge-port ]; then
  mkdir -p /tmp/fp && tar -C /tmp/fp -xJf bundle/forge-port.tar.xz
fi
fp=/tmp/fp/forge-port/bin/forge-port
"$fp" --version
echo "setup: $(( $(date +%s) - start )) s"

result() { # NAME STATUS
  if [ "$2" -eq 0 ]; then echo "PASS: $1"; else echo "FAIL: $1 (exit $2)"; fi
}
for step in "$@"; do
  t0=$(date +%s)
  case "$step" in
    checks)
      mkdir -p "$out/checks"
      for d in bundle/gpu-checks/*/; do
        n=$(basename "$d")
        bash "$d/device.sh" > "$out/checks/$n.out" 2>&1
        result "check $n" $?
      done
      ;;
    restore)
      R=test/gpu/Inputs/restore
      "$fp" measure $R/consume.cu $R/recompute.cu --spec $R/consume.json --format json \
        > "$out/restore.json" 2> "$out/restore.err"
      "$fp" measure $R/consume.cu $R/recompute.cu --spec $R/consume.json > "$out/restore.log" 2>&1
      cat "$out/restore.log"
      python3 utils/gpu/restore-check.py "$out/restore.json"
      result restore $?
      ;;
    streams)
      "$fp" measure test/gpu/Inputs/streams_app.cu --run "{exe}" --runs 2 \
        --job-dir "$out/streams-job" > "$out/streams.log" 2>&1
      s=$?
      cat "$out/streams.log"
      grep -Eq "^  work\(float\*, int\) +20 +2 " "$out/streams.log" &&
        grep -q "left on another stream" "$out/streams.log" || s=1
      result streams $s
      ;;
    sandbox)
      sb="$out/sandbox" && rm -rf "$sb" && mkdir -p "$sb/job"
      probe=test/worker/Inputs/sandbox-probe.cpp
      nvcc -arch=native -x cu -shared -Xcompiler -fPIC -cudart shared -DPROBE_KERNEL \
        "-DPROBE_OUTSIDE=\"$sb/outside.txt\"" "-DPROBE_MARKER=\"$sb/marker\"" $probe -o "$sb/job/probe.so" &&
      nvcc -arch=native -x cu -shared -Xcompiler -fPIC -cudart shared -DPROBE_KERNEL -DPROBE_BENIGN \
        $probe -o "$sb/job/benign.so" && cp test/gpu/Inputs/sandbox-gpu.plan "$sb/job/job.plan"
      env FORGE_LLM_API_KEY=sk-forge-probe python3 test/worker/Inputs/listen.py \
        "$FORGE_WORKER" run "$sb/job" > "$sb/out" 2> "$sb/err"
      echo "forge-worker run: exit $?"; cat "$sb/out" "$sb/err"; cat "$sb/job/results.jsonl"
      s=0
      grep -q '"id":"ref".*"status":"ok"' "$sb/job/results.jsonl" || s=1
      grep -q '"id":"c2".*"status":"ok"' "$sb/job/results.jsonl" || s=1
      grep -q '"id":"p1".*"status":"sandbox-denied"' "$sb/job/results.jsonl" || s=1
      grep -q "listener: 0 connection(s)" "$sb/out" || s=1
      grep -q "ALLOWED" "$sb/err" && s=1
      ls "$sb/outside.txt" "$sb"/marker.* 2>/dev/null && s=1
      echo "forge-worker sandbox-check --sandbox strict:"
      "$FORGE_WORKER" sandbox-check "$sb/job" --sandbox strict; echo "exit $?"
      result sandbox $s
      ;;
    measure)
      bash utils/gpu/measure-check.sh "$out/measure" > "$out/measure.log" 2>&1
      result measure $?
      tail -3 "$out/measure.log"
      ;;
    tune:*)
      k="${step#tune:}"
      (cd test/gpu/Inputs/tune && "$fp" tune "$k.cu" --spec "$k.json" --to sm_90 \
         --db "$out/tune-$k.db.json" -o "$out/tune-$k.tuned.cu" --report "$out/tune-$k.md") \
        > "$out/tune-$k.log" 2>&1
      result "tune $k" $?
      tail -4 "$out/tune-$k.log"
      ;;
    optimize:* | optimize-suite:*)
      k="${step#*:}"
      dir=utils/bench/naive
      [ "${step%%:*}" = optimize-suite ] && dir=utils/bench/kernels
      cp "$dir/$k.cu" "$out/$k.cu"
      "$fp" optimize "$out/$k.cu" --spec "$dir/$k.json" --to sm_90 -o "$out/$k.optimized.cu" \
        --report "$out/$k.optimize.md" --transcript "$out/$k.transcript.json" \
        > "$out/$k.optimize.log" 2>&1
      s=$?
      "$fp" optimize "$out/$k.cu" --spec "$dir/$k.json" --to sm_90 \
        --replay "$out/$k.transcript.json" --report "$out/$k.optimize.json" \
        > "$out/$k.replay.log" 2>&1
      result "optimize $k" $s
      result "replay $k" $?
      grep -E "^round|forge-port: [0-9.]+ us ->|stopped" "$out/$k.optimize.log" | tail -6
      ;;
    suite:* | suite-ops:*)
      c="${step#*:}"
      sel=(--category "$c")
      [ "${step%%:*}" = suite-ops ] && sel=(--ops "$c")
      python3 utils/bench/run-suite "${sel[@]}" --forge-port "$fp" --worker "$FORGE_WORKER" \
        --out /tmp/suite-results --build-dir /tmp/suite-build --export "$out/bench" --resume \
        --deadline "${SUITE_DEADLINE:-8}" --budget 16 --rounds 2 --optimize-timeout 150 \
        > "$out/suite-$c.log" 2>&1
      result "suite $c" $?
      grep -E "^\| |not-run" "$out/suite-$c.log" | tail -14
      ;;
    *) echo "unknown step '$step'" ;;
  esac
  echo "   ($step: $(( $(date +%s) - t0 )) s)"
done
echo "== done in $(( $(date +%s) - start )) s"
tar -C "$out" -czf "$dest/results.tar.gz" .
cp "$out/session.log" "$dest/"
