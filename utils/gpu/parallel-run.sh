#!/usr/bin/env bash
# On a GPU machine with several GPUs: builds forge-worker, unpacks the
# forge-port bundle once, then runs one job per GPU at the same time, each
# with CUDA_VISIBLE_DEVICES set, and waits for all. A job is either
# "optimize" (utils/gpu/optimize-check.sh) or "suite:<category>[,<category>]"
# (utils/bench/run-suite); "a+b" runs a then b on one GPU.
#   utils/gpu/parallel-run.sh OUT job0 [job1 ...]      # job i runs on GPU i
# Extra run-suite options come from $SUITE_OPTS; results of earlier calls
# under $RESUME_DIR/<category> are resumed from.
set -uo pipefail
out="${1:?usage: parallel-run.sh OUT job...}"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mkdir -p "$out"
echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi -L | wc -l) GPU(s): $(nvidia-smi -L | head -1)"
cmake -S tools/forge-worker -B /tmp/build-worker -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/worker-cmake.log 2>&1 || { cat /tmp/worker-cmake.log; exit 1; }
ninja -C /tmp/build-worker forge-worker > /tmp/worker-build.log 2>&1 || { cat /tmp/worker-build.log; exit 1; }
export FORGE_WORKER=/tmp/build-worker/forge-worker
mkdir -p /tmp/fp && tar -C /tmp/fp -xJf bundle/forge-port.tar.xz
fp=/tmp/fp/forge-port/bin/forge-port
"$fp" --version
# Everything ends by $TOTAL_S seconds after the start (default 540), so that
# the archive below is made within the device's 10-minute call.
end=$(( $(date +%s) + ${TOTAL_S:-540} ))
run_one() { # GPU JOB
  local gpu=$1 job=$2
  local left=$(( end - $(date +%s) ))
  [ $left -le 20 ] && { echo "no time left for $job" >> "$out/skipped.log"; return; }
  case "$job" in
    optimize)
      CUDA_VISIBLE_DEVICES=$gpu timeout -k 10 $left bash utils/gpu/optimize-check.sh "$out/optimize" \
        > "$out/optimize.log" 2>&1
      ;;
    suite:*)
      local c="${job#suite:}" res=/tmp/res-${job#suite:}
      if [ -n "${RESUME_DIR:-}" ] && [ -d "$RESUME_DIR/$c" ]; then
        mkdir -p "$res" && cp -r "$RESUME_DIR/$c/." "$res/"
      fi
      CUDA_VISIBLE_DEVICES=$gpu timeout -k 10 $left python3 utils/bench/run-suite --category "$c" \
        --forge-port "$fp" --worker /tmp/build-worker/forge-worker --out "$res" \
        --build-dir /tmp/bb-$gpu --export "$out/bench-$c" --resume \
        --deadline "$(awk -v s=$left 'BEGIN{printf "%.1f", (s - 25) / 60}')" ${SUITE_OPTS:-} \
        > "$out/suite-$c.log" 2>&1
      echo "run-suite $c: exit $?" >> "$out/suite-$c.log"
      ;;
    *) echo "unknown job '$job'" ;;
  esac
}
gpu=0
pids=()
for jobs in "$@"; do   # "a+b" runs a, then b, on the same GPU
  (for job in ${jobs//+/ }; do run_one $gpu "$job"; done) &
  pids+=($!)
  gpu=$((gpu + 1))
done
wait "${pids[@]}"
echo "== done $(date -u +%H:%MZ)"
for f in "$out"/*.log; do echo "--- $f"; tail -15 "$f"; done
# Few files travel back well: everything but the logs in one archive.
(cd "$out" && tar czf results.tgz --exclude=results.tgz --exclude='*.log' --exclude='*.so' . \
   && find . -mindepth 1 -maxdepth 1 ! -name results.tgz ! -name '*.log' -exec rm -rf {} +)
ls -la "$out"
