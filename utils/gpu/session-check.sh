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
#   cluster         utils/gpu/cluster-check.sh: job directories written for
#                   Slurm (bundle/cluster-jobs) run outside Slurm against the
#                   local executor, and a single-node Slurm from .sldeb
#   campaign        utils/gpu/campaign-check.sh: the suite's kernels tuned as
#                   one campaign through a single-node Slurm from .sldeb
#                   (arrays, tasks, GPU-seconds: docs/cluster.md's sizing)
#   legacy          utils/gpu/legacy-check.sh: SHOC benchmarks that CUDA 13
#                   rejects, ported here in project mode (.legacy/), built
#                   and run with their own CPU verification
#   measure         utils/gpu/measure-check.sh (planted kernels, repeatability,
#                   program mode): the measure driver on a real GPU
#   cmake           forge_port_kernels(RETUNE AUTO) on test/cmake/project with
#                   an empty database: filled, reused, retuned after an edit,
#                   and forge-retune; each build's log and time, the database
#                   after each
#   cmake-program   RUN "{exe}": program-mode tuning of test/cmake/program, by
#                   the CLI and by the CMake build, with an empty database
#   tune:K          forge-port tune of test/gpu/Inputs/tune/K.cu, exhaustive,
#                   written back with -o and checked against the original
#   tune-speed      utils/bench/tune-speed.sh (issue 16): TUNE_SPEED_RUNS (5)
#                   cold and warm tunes of the CUB block reduction, then Kernel
#                   Tuner 1.4.0 cold on the same 20 configurations
#                   (KT_RUNS, 2) when bundle/kt holds its source tree (kt/)
#                   and its pure-Python dependencies (deps/)
#   program:F:K     forge-port tune F --kernel K --run "{exe}" without a spec:
#                   the tunables the code holds, timed inside the program,
#                   written back with -o; the tuned program is built and run
#   spec-check      forge-port spec --check (test/gpu/spec-check.test by hand,
#                   no lit there): a spec a row short under compute-sanitizer,
#                   then the right one; the sanitizer's logs are kept
#   optimize:K      forge-port optimize of utils/bench/naive/K.cu with its
#                   defaults, a Markdown and a JSON report, a transcript
#   optimize-suite:K  the same for utils/bench/kernels/K.cu
#   suite:CAT       utils/bench/run-suite --category CAT with this session's
#                   forge-port and worker, the suite's own settings of
#                   docs/bench/suite-h200.md (budget 16, 2 rounds), --resume,
#                   results in WORK/bench (SUITE_DEADLINE minutes, default 8)
#   suite-ops:A,B   the same for the named operations only
#   templates       test/gpu/templates/check.py on bundle/template-samples
#                   (forge-port new --all-samples, run here): every template
#                   sample against its CPU reference
#   templates-bench utils/gpu/templates-bench.sh on bundle/template-bench
#                   (utils/gpu/templates-bench-prepare.sh, run here): the
#                   templates at the suite's sizes against bench-refs
#   gemm-sweep      utils/gpu/gemm-sweep.sh: the FP32 GEMM template at 4096^3,
#                   its large tiles tuned exhaustively, the fastest three
#                   measured again beside the defaults, against cuBLAS
#   gemm-lowp       utils/gpu/gemm-lowp-bench.sh: the tf32, f16 and bf16 GEMM
#                   samples against the CPU, 4096^3 against cublasGemmEx
#                   (bundle/template-samples, bundle/gemm-lowp: t, h, b)
#   new-e2e:F:N     utils/gpu/new-e2e.sh: forge-port new --tune --optimize on
#                   descriptions F..F+N-1 of its list, measured with the
#                   library's references
#   sort-template   test/gpu/rules/sort-template.test by hand: the suite's
#                   sorts replaced by the radix sort template, measured
#                   against the originals at 1000003 keys
#   ab              forge-port measure new.cu old.cu --spec spec.json in each
#                   directory of bundle/ab (utils/bench/rule-ab.py: one rule's
#                   proposals from this build against an older one's), one
#                   log per pair and a table of both times
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

timed() { # NAME DIR [ARGS]: a build, its wall time and its log
  local t=$(date +%s%N)
  cmake --build "$2" "${@:3}" > "$out/cmake-$1.log" 2>&1
  local r=$?
  echo "cmake $1: exit $r in $(( ($(date +%s%N) - t) / 1000000 )) ms"
  return $r
}
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
    cluster)
      # The cluster executor's job directories outside Slurm, and Slurm
      # itself on this machine where its .debs run (utils/gpu/cluster-check.sh).
      PATH=/tmp/fp/forge-port/bin:$PATH bash utils/gpu/cluster-check.sh "$out" \
        > "$out/cluster.log" 2>&1
      r=$?
      cat "$out/cluster.log"
      result cluster $r
      ;;
    campaign)
      PATH=/tmp/fp/forge-port/bin:$PATH bash utils/gpu/campaign-check.sh "$out" \
        > "$out/campaign.log" 2>&1
      r=$?
      cat "$out/campaign.log"
      result campaign $r
      ;;
    ab)
      mkdir -p "$out/ab"
      r=0
      for d in bundle/ab/*/; do
        n=$(basename "$d")
        "$fp" measure "$d/new.cu" "$d/old.cu" --spec "$d/spec.json" --format json \
          > "$out/ab/$n.json" 2> "$out/ab/$n.err" || r=1
        python3 - "$out/ab/$n.json" "$n" "$(cat "$d/what.txt")" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))["candidates"]
    t = {r["source"].split("/")[-1]: r for r in rows if r.get("reference") is not True}
    ref = [r for r in rows if r["source"].endswith("new.cu")][0]
    old = t["old.cu"]
    us = lambda r: r["time_ns"]["median"] / 1000 if r.get("time_ns") else float("nan")
    regs = lambda r: r.get("resources", {}).get("registers", "?")
    print("%-20s new %8.1f us (%s regs)  old %8.1f us (%s regs, %s)  %s" % (
        sys.argv[2], us(ref), regs(ref), us(old), regs(old), old["status"], sys.argv[3][:70]))
except Exception as e:
    print("%-20s no result (%r)" % (sys.argv[2], e))
PY
      done
      result ab $r
      ;;
    legacy)
      bash utils/gpu/legacy-check.sh "$out/legacy" > "$out/legacy.log" 2>&1
      r=$?
      cat "$out/legacy.log"
      result legacy $r
      ;;
    measure)
      bash utils/gpu/measure-check.sh "$out/measure" > "$out/measure.log" 2>&1
      result measure $?
      tail -3 "$out/measure.log"
      ;;
    cmake)
      # forge_port_kernels(... RETUNE AUTO) on this GPU (docs/cmake.md): the
      # project of test/cmake with an empty database; the first build tunes
      # triad.cu and fills it, the second reuses it, an edited kernel is
      # retuned, and forge-retune measures again on demand.
      P="$out/cmake-project" B="$out/cmake-build"
      rm -rf "$P" "$B" && cp -r test/cmake/project "$P" && rm -f "$P/forge-tuning.json"
      cmake -S "$P" -B "$B" -G Ninja -DCMAKE_PREFIX_PATH=/tmp/fp/forge-port \
            -DFORGE_WORKER_EXECUTABLE="$FORGE_WORKER" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
            > "$out/cmake-configure.log" 2>&1
      rc=$?
      [ $rc -eq 0 ] && timed build1 "$B" && cp "$P/forge-tuning.json" "$out/cmake-db-1.json" &&
        timed build2 "$B" && cp "$P/forge-tuning.json" "$out/cmake-db-2.json" &&
        echo "// edited after tuning" >> "$P/kernels/triad.cu" &&
        timed build3-edited "$B" && cp "$P/forge-tuning.json" "$out/cmake-db-3.json" &&
        timed retune "$B" --target forge-retune && cp "$P/forge-tuning.json" "$out/cmake-db-4.json" &&
        timed build5-after-retune "$B"
      rc=$?
      # Two tunings at once into one database (a parallel build): they take
      # turns on the GPU and both records are kept.
      T="$B/forge-port/mykernels/kernels/triad.cu.port.cu"
      sed 's/"N": 16777216/"N": 4194304/' "$P/kernels/triad.json" > "$out/triad-small.json"
      pids=()
      for s in "$P/kernels/triad.json" "$out/triad-small.json"; do
        "$fp" tune "$T" --spec "$s" --to sm_90 --db "$out/parallel-db.json" --worker "$FORGE_WORKER" \
          --identity-of "$P/kernels/triad.cu" > "$out/parallel-$(basename "$s" .json).log" 2>&1 &
        pids+=($!)
      done
      # Not a bare wait: it would also wait for the tee of this script's log.
      wait "${pids[@]}"
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('parallel: %d records:' % len(d['records']), [r['key']['sizes'] + ' ' + str(r['best']) for r in d['records']])" "$out/parallel-db.json"
      grep -h "waiting for another" "$out"/parallel-*.log
      result "cmake" $rc
      for f in "$out"/cmake-build*.log "$out"/cmake-retune.log; do
        echo "-- $(basename "$f")"
        grep -h "forge-port: \(porting\|retuning\)\|tuning triad\|complete entry\|x over the original\|nothing is measured\|sm_90:" "$f"
      done
      ;;
    cmake-program)
      # RUN "{exe}" (docs/cmake.md): program-mode tuning of test/cmake/program,
      # a whole program, with an empty database: the CLI first (timed per
      # phase), then the CMake build that fills the database, then a touched
      # source that reuses it.
      PP="$out/cmake-program" PB="$out/cmake-program-build"
      rm -rf "$PP" "$PB" && cp -r test/cmake/program "$PP"
      t=$(date +%s)
      "$fp" tune "$PP/triad_app.cu" --spec "$PP/triad_app.json" --to sm_90 --run "{exe}" \
        --worker "$FORGE_WORKER" --db "$out/program-cli-db.json" -o "$out/program-cli-tuned.cu" \
        > "$out/program-cli.log" 2>&1
      rc=$?
      echo "cli program-mode tune: exit $rc in $(( $(date +%s) - t )) s"
      tail -8 "$out/program-cli.log"
      cmake -S "$PP" -B "$PB" -G Ninja -DCMAKE_PREFIX_PATH=/tmp/fp/forge-port \
            -DFORGE_WORKER_EXECUTABLE="$FORGE_WORKER" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
            > "$out/cmake-program-configure.log" 2>&1 &&
        timed program1 "$PB" && cp "$PP/forge-tuning.json" "$out/cmake-program-db.json" &&
        touch "$PP/triad_app.cu" && timed program2-touched "$PB" && "$PB/triad_app"
      rc=$(( rc | $? ))
      result "cmake-program" $rc
      for f in "$out"/cmake-program*.log; do
        echo "-- $(basename "$f")"
        grep -h "forge-port: \(porting\|program mode\)\|tuning triad\|complete entry\|x over the original\|sm_90:" "$f"
      done
      ;;
    evolve:*)
      # evolve:PHASE:K1,K2,...[:STOP]: the greedy loop against --search evolve under
      # the same evaluation budget (utils/gpu/evolve-compare.sh); phase 2
      # reads the experience library phase 1 filled (with phase 1's reports
      # and budgets, carried in bundle/evolve-phase1/ when the calls are
      # apart).
      spec="${step#evolve:}" ph="${spec%%:*}" list="${spec#*:}" stop=${STOP_AT:-560}
      case $list in *:*) stop=${list##*:} list=${list%:*} ;; esac
      ev="$out/evolve" # inside the archive: the device tool brings back eight files
      mkdir -p "$ev"
      [ "$ph" = 2 ] && [ ! -f "$ev/library.json" ] && [ -d bundle/evolve-phase1 ] &&
        cp -r bundle/evolve-phase1/. "$ev/"
      ks=()
      for k in ${list//,/ }; do ks+=("$k"); done
      # evolve:PHASE:K1,K2:STOP or STOP_AT (seconds after the session's
      # start, 560 by default) ends the comparison early enough for the
      # archive to be written; the kernels finished by then keep their
      # reports.
      left=$(( stop - ($(date +%s) - start) ))
      FP="$fp" timeout "$(( left > 10 ? left : 10 ))" \
        bash utils/gpu/evolve-compare.sh "$ev" "$ph" "${ks[@]}"
      result "evolve phase $ph" $?
      python3 utils/gpu/evolve-table.py "$ev" "${ks[@]}"
      find "$ev/work" -name '*.cu' -delete
      ;;
    tune:*)
      k="${step#tune:}"
      (cd test/gpu/Inputs/tune && "$fp" tune "$k.cu" --spec "$k.json" --to sm_90 \
         --db "$out/tune-$k.db.json" -o "$out/tune-$k.tuned.cu" --report "$out/tune-$k.md") \
        > "$out/tune-$k.log" 2>&1
      result "tune $k" $?
      tail -4 "$out/tune-$k.log"
      ;;
    spec-check)
      sc="$out/spec-check" && rm -rf "$sc" && mkdir -p "$sc"
      cp test/tools/Inputs/spec-check/rows.cu test/tools/Inputs/spec-check/*.json "$sc/"
      (cd "$sc" && "$fp" spec rows.cu --check rows-short.json --job-dir "$sc/short-job" \
         > short.out 2> short.err; echo "exit $?" >> short.out)
      (cd "$sc" && "$fp" spec rows.cu --check rows.json --job-dir "$sc/clean-job" \
         > clean.out 2> clean.err; echo "exit $?" >> clean.out)
      cat "$sc"/short.err "$sc"/short.out "$sc"/clean.err "$sc"/clean.out
      s=0
      grep -q "^rows.cu:10: error: Invalid __global__ read of size 4 bytes.*past the end of 'a'" \
        "$sc/short.out" && grep -q "^exit 1" "$sc/short.out" || s=1
      grep -q "0 error(s); the kernel's run: ok" "$sc/clean.out" && grep -q "^exit 0" "$sc/clean.out" || s=1
      find "$sc/short-job" -name 'sanitizer.*.log' -exec head -c 4000 {} \;
      result spec-check $s
      ;;
    tune-speed)
      kt=()
      [ -d bundle/kt/kt ] && kt=(--kernel-tuner bundle/kt/kt --pythonpath bundle/kt/deps
                                 --kt-runs "${KT_RUNS:-2}")
      bash utils/bench/tune-speed.sh --forge-port "$fp" --runs "${TUNE_SPEED_RUNS:-5}" "${kt[@]}" \
        > "$out/tune-speed.log" 2>&1
      r=$?
      cat "$out/tune-speed.log"
      result tune-speed $r
      ;;
    program:*)
      spec="${step#program:}" f="${spec%:*}" k="${spec##*:}"
      n=$(basename "$f" .cu)
      cp "$f" "$out/$n.cu"
      (cd "$out" && "$fp" tune "$n.cu" --kernel "$k" --run "{exe}" --to sm_90 \
         --db "$out/program-$n.db.json" -o "$out/$n.tuned.cu" --report "$out/program-$n.md") \
        > "$out/program-$n.log" 2>&1
      r=$?
      tail -12 "$out/program-$n.log"
      if [ $r -eq 0 ]; then
        nvcc -O3 -arch=sm_90 -o "$out/$n.orig" "$out/$n.cu" && nvcc -O3 -arch=sm_90 -o "$out/$n.tuned" \
          "$out/$n.tuned.cu" && echo "original prints: $("$out/$n.orig" | head -3)" &&
          echo "tuned prints:    $("$out/$n.tuned" | head -3)" && diff "$out/$n.tuned.cu" "$out/$n.cu"
        [ $? -le 1 ] || r=1
      fi
      result "program $n $k" $r
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
    templates)
      # Every template sample (bundle/template-samples, written here by
      # forge-port new --all-samples) against its CPU reference.
      python3 test/gpu/templates/check.py bundle/template-samples --nvcc nvcc --arch sm_90 \
        --jobs "$(nproc)" --workdir /tmp/template-checks > "$out/templates.log" 2>&1
      r=$?
      grep -E "^(PASS|FAIL)|samples passed" "$out/templates.log"
      result templates $r
      ;;
    templates-bench)
      # The templates at the suite's sizes (bundle/template-bench, written
      # here by utils/gpu/templates-bench-prepare.sh) against bench-refs.
      bash utils/gpu/templates-bench.sh "$fp" bundle/template-bench "$out/template-bench" \
        > "$out/templates-bench.log" 2>&1
      result templates-bench $?
      cat "$out/template-bench/table.txt"
      ;;
    gemm-sweep)
      # The FP32 GEMM template at 4096^3 over its large tiles, against cuBLAS.
      bash utils/gpu/gemm-sweep.sh "$fp" "$out/gemm-sweep" > "$out/gemm-sweep.log" 2>&1
      result gemm-sweep $?
      cat "$out/gemm-sweep.log"
      ;;
    gemm-lowp)
      # The tf32, f16 and bf16 tensor-core GEMMs: samples against the CPU,
      # 4096^3 against cublasGemmEx (bundle/template-samples, bundle/gemm-lowp).
      bash utils/gpu/gemm-lowp-bench.sh "$fp" bundle/template-samples bundle/gemm-lowp \
        "$out/gemm-lowp" > "$out/gemm-lowp.log" 2>&1
      result gemm-lowp $?
      cat "$out/gemm-lowp.log"
      ;;
    new-e2e:*)
      # forge-port new end to end on descriptions FIRST..FIRST+COUNT-1 of
      # utils/gpu/new-e2e.sh's list (step new-e2e:FIRST:COUNT).
      a="${step#new-e2e:}"
      bash utils/gpu/new-e2e.sh "$fp" "$out/new-e2e-${a%%:*}" "${a%%:*}" "${a#*:}" \
        > "$out/new-e2e-${a%%:*}.log" 2>&1
      result "$step" $?
      cat "$out/new-e2e-${a%%:*}.log"
      ;;
    sort-template)
      # test/gpu/rules/sort-template.test by hand (no lit there).
      st="$out/sort-template" && mkdir -p "$st"
      r=0
      for k in radix merge; do
        # 1000003 keys (the merge sort's spec also counts its passes: 20).
        sed -e 's/"N": 16777216/"N": 1000003/' -e 's/"PASSES": 24/"PASSES": 20/' \
          "utils/bench/kernels/${k}_sort.json" > "$st/$k.json"
        "$fp" propose "utils/bench/kernels/${k}_sort.cu" --kernel "${k}_sort" --spec "$st/$k.json" \
          --rules=sort-template -o "$st/${k}_tpl.cu" 2> "$st/$k.propose.err" || r=1
        "$fp" measure "utils/bench/kernels/${k}_sort.cu" "$st/${k}_tpl.cu" --spec "$st/$k.json" \
          > "$st/$k.measure.txt" 2>&1 || r=1
        grep -E "^(ref|c1) " "$st/$k.measure.txt"
        grep -Eq "^c1 +${k}_tpl.cu .* ok +" "$st/$k.measure.txt" || r=1
      done
      result sort-template $r
      ;;
    *) echo "unknown step '$step'" ;;
  esac
  echo "   ($step: $(( $(date +%s) - t0 )) s)"
done
echo "== done in $(( $(date +%s) - start )) s"
tar -C "$out" -czf "$dest/results.tar.gz" .
cp "$out/session.log" "$dest/"
