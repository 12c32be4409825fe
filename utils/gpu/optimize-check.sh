#!/usr/bin/env bash
# On the GPU machine: `forge-port optimize` end to end, with the forge-port
# bundle and a forge-worker built there.
#   1. the model scenarios of test/tools/optimize-model.test, now with the
#      GPU stages: a real local mock server (utils/mock-model-server.py)
#      serves recorded replies; the cheats must be rejected at correctness,
#      the good edit measured, and the user's file never changed;
#   2. the built-in expert proposer (with the tuner) on four naive kernels:
#      an elementwise triad, a shared-memory tree reduction
#      (test/gpu/Inputs/optimize), a naive 5x5 convolution on 4096^2 and a
#      naive SGEMM 2048^3 (utils/bench/kernels),
#      with Markdown and JSON reports and transcripts;
#   3. a replay of one transcript (no GPU, no network): the same decisions;
#   4. the library references of the four (cuBLAS, CUB, memcpy bandwidth,
#      the suite's tiled convolution) with utils/bench/reference.
#   utils/gpu/optimize-check.sh OUT [kernel...]
set -uo pipefail
out="${1:?usage: optimize-check.sh OUT [kernel...]}"
shift
kernels=("$@")
[ ${#kernels[@]} -eq 0 ] && kernels=(triad reduce_tree conv2d_5x5 sgemm)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mkdir -p "$out"
fail=0
step() { echo; echo "== $*"; }
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fail=1; fi; }

step "$(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi -L | head -1)"
if [ ! -x /tmp/build-worker/forge-worker ]; then
  cmake -S tools/forge-worker -B /tmp/build-worker -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/worker-cmake.log 2>&1 || { cat /tmp/worker-cmake.log; exit 1; }
  ninja -C /tmp/build-worker forge-worker > /tmp/worker-build.log 2>&1 || { cat /tmp/worker-build.log; exit 1; }
fi
export FORGE_WORKER=/tmp/build-worker/forge-worker
if [ ! -x /tmp/fp/forge-port/bin/forge-port ]; then
  mkdir -p /tmp/fp && tar -C /tmp/fp -xJf bundle/forge-port.tar.xz
fi
fp=/tmp/fp/forge-port/bin/forge-port

if [ "${SKIP_MODEL:-0}" != 1 ]; then
  I=test/tools/Inputs/optimize
  w=$(mktemp -d)
  cp $I/scale.cu $I/scale.json "$w/"
  for s in opt-good opt-cheat-partial opt-cheat-skip opt-breaks-then-repairs opt-signature; do
    step "model scenario $s (mock server, GPU stages on)"
    python3 utils/mock-model-server.py --replies $I/replies --log "$out/model-requests.jsonl" -- \
      "$fp" optimize "$w/scale.cu" --spec "$w/scale.json" --to sm_90 --model $s --rounds 1 \
        --no-tuner --llm-backoff 0.1 --transcript "$out/model-$s.json" -i 2>&1 | grep -v '^\[' | tee "/tmp/$s.log"
    check "$s: scale.cu unchanged unless a faster edit was kept" \
      "cmp -s $w/scale.cu $I/scale.cu || grep -q 'model: accepted' /tmp/$s.log"
    cp $I/scale.cu "$w/scale.cu"
  done
  check "partial output rejected at correctness" \
    "grep -q 'model: rejected (correctness: unwritten' /tmp/opt-cheat-partial.log"
  check "skipped work rejected at correctness" \
    "grep -Eq 'model: rejected \(correctness: (unwritten|no-work)' /tmp/opt-cheat-skip.log"
  check "the good edit was checked and timed" \
    "grep -Eq 'model: (accepted|not-faster|slower) \(timing' /tmp/opt-good.log"
  check "the repaired edit was checked and timed" \
    "grep -Eq 'model: (accepted|not-faster|slower) \(timing' /tmp/opt-breaks-then-repairs.log"
  check "the signature change rejected" "grep -q 'model: rejected (contract' /tmp/opt-signature.log"
fi

for k in "${kernels[@]}"; do
  B=utils/bench/kernels
  [ -f test/gpu/Inputs/optimize/$k.cu ] && B=test/gpu/Inputs/optimize
  step "forge-port optimize $B/$k.cu --spec $B/$k.json --to sm_90 (built-in expert rules + tuner)"
  w=$(mktemp -d)
  cp $B/$k.cu $B/$k.json "$w/"
  t0=$(date +%s)
  "$fp" optimize "$w/$k.cu" --spec "$w/$k.json" --to sm_90 --rounds ${ROUNDS:-6} \
        --tune-budget ${TUNE_BUDGET:-48} --db "$out/tuning.json" \
        --report "$out/optimize-$k.md" --transcript "$out/optimize-$k.transcript.json" \
        -o "$out/optimize-$k.cu" 2>&1 | grep -v '^\['
  rc=${PIPESTATUS[0]}
  echo "exit status $rc; $(( $(date +%s) - t0 )) s"
  check "$k: optimize exits 0" "[ $rc -eq 0 ]"
  check "$k: the user's file is unchanged" "cmp -s $w/$k.cu $B/$k.cu"
  "$fp" optimize "$w/$k.cu" --spec "$w/$k.json" --to sm_90 \
        --replay "$out/optimize-$k.transcript.json" > /dev/null 2> "/tmp/replay-$k.log"
  check "$k: the replay reproduces the decisions" "grep -q 'replay: the same decisions' /tmp/replay-$k.log"
  tail -1 "/tmp/replay-$k.log"
done

step "library references (utils/bench/reference, events, L2 flushed, median of 30)"
# (It did not link since the references took the worker's CUPTI timer.)
bash utils/gpu/build-bench-refs.sh || fail=1
ops=$(IFS=,; echo "${kernels[*]}")
ops=${ops//reduce_tree/reduce_sum}   # the library reference of a tree reduction: CUB's
/tmp/bench-refs --op "$ops" | tee "$out/references.jsonl"

echo
[ $fail -eq 0 ] && echo "ALL PASS" || echo "SOME CHECKS FAILED"
exit $fail
