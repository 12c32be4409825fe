#!/usr/bin/env bash
# On the GPU machine: tunes three kernels of different kinds with the
# forge-port bundle and a forge-worker built there (test/gpu/Inputs/tune):
# a memory-bound elementwise kernel (triad), a templated reduction
# (reduce_sum) and a tiled matrix product (sgemm_tiled).
#   1. exhaustive tuning of each, recorded in one tuning database, with the
#      tuned speed-up over the original configuration and its noise;
#   2. configurations per minute with and without batched compilation;
#   3. a multi-target write-back (sm_80, sm_90, sm_100) from the database;
#   4. an interrupted run (SIGINT) that saves the database, and a second run
#      that resumes from it.
# The strategies are then compared by replaying the database (no GPU).
#   utils/gpu/tune-check.sh OUT
set -uo pipefail
out="${1:?usage: tune-check.sh OUT}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mkdir -p "$out"
fail=0
step() { echo; echo "== $*"; }

step "$(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi -L | head -1)"
cmake -S tools/forge-worker -B /tmp/build-worker -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/worker-cmake.log 2>&1 || { cat /tmp/worker-cmake.log; exit 1; }
ninja -C /tmp/build-worker forge-worker > /tmp/worker-build.log 2>&1 || { cat /tmp/worker-build.log; exit 1; }
export FORGE_WORKER=/tmp/build-worker/forge-worker
bdir=$(mktemp -d)
tar -C "$bdir" -xJf bundle/forge-port.tar.xz
fp="$bdir/forge-port/bin/forge-port"
T=test/gpu/Inputs/tune
db="$out/tuning.json"
rm -f "$db"

for k in triad reduce_sum sgemm_tiled; do
  step "forge-port tune $k.cu --spec $k.json --to sm_90 --strategy exhaustive --db tuning.json"
  t0=$(date +%s)
  "$fp" tune $T/$k.cu --spec $T/$k.json --to sm_90 --strategy exhaustive --db "$db" \
        --report "/tmp/$k.md" --diff
  echo "exit status $?; $(( $(date +%s) - t0 )) s"
done
cp /tmp/sgemm_tiled.md "$out/"

for mode in "" "--no-batch" "-j 1" "-j 1 --no-batch"; do
  step "configurations per minute: sgemm_tiled exhaustive, fresh database, options: ${mode:-(default: batched over 16 compile threads)}"
  rm -f /tmp/cpm.json
  t0=$(date +%s)
  FORGE_CACHE_DIR=$(mktemp -d) "$fp" tune $T/sgemm_tiled.cu --spec $T/sgemm_tiled.json --to sm_90 --db /tmp/cpm.json $mode \
        2>&1 > /dev/null | grep -E "configurations per minute|over the original"
  echo "wall $(( $(date +%s) - t0 )) s"
done

step "multi-target write-back from the database: triad --to sm_80,sm_90,sm_100"
"$fp" tune $T/triad.cu --spec $T/triad.json --to sm_80,sm_90,sm_100 --db "$db" \
      -o "$out/triad.multi.cu"
echo "exit status $?"
nvcc -c -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
     -gencode arch=compute_100,code=sm_100 "$out/triad.multi.cu" -o /tmp/triad.multi.o \
  && echo "triad.multi.cu compiles for sm_80, sm_90 and sm_100" || fail=1

step "interrupt: SIGINT during a slow sgemm_tiled run (-j 1 --no-batch --batch 2), then resume"
rm -f /tmp/int.json
FORGE_CACHE_DIR=$(mktemp -d) "$fp" tune $T/sgemm_tiled.cu --spec $T/sgemm_tiled.json --to sm_90 --db /tmp/int.json \
      -j 1 --no-batch --batch 2 > /dev/null 2> /tmp/int.err &
pid=$!
sleep 9
kill -INT $pid
wait $pid; echo "interrupted run: exit status $? (130 expected)"
tail -3 /tmp/int.err
python3 -c "import json; d=json.load(open('/tmp/int.json')); print('saved measurements:', sum(len(r['measurements']) for r in d['records']))"
"$fp" tune $T/sgemm_tiled.cu --spec $T/sgemm_tiled.json --to sm_90 --db /tmp/int.json \
      2>&1 > /dev/null | grep -E "evaluated|over the original"
echo "resumed run: exit status $?"

step "result: $([ $fail = 0 ] && echo ALL PASS || echo SOME FAILED)"
exit $fail
