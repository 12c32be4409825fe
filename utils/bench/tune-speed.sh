#!/usr/bin/env bash
# tune-speed.sh: the whole-process time of `forge-port tune`, cold and warm,
# on the CUB block reduction of issue 16 (utils/bench/inputs/tune-speed:
# hk::blockSum<BLOCK, ITEMS>, BLOCK in {64..1024}, ITEMS in {1, 2, 4, 8}, 20
# configurations, 2^26 floats), and Kernel Tuner's on the same 20
# configurations when given its source tree and a GPU. docs/bench/tune-speed.md
# has the numbers and how they were taken.
#
#   utils/bench/tune-speed.sh [--forge-port PATH] [--runs N] [--to sm_XX]
#                             [--kernel-tuner DIR] [--pythonpath DIRS] [--kt-runs N]
#
# Cold: a fresh compile cache (FORGE_CACHE_DIR) and no tuning database.
# Warm: the same command again, with the database and cache the cold run
# left. Without a GPU (nvidia-smi finds none) the tuner measures with
# test/Inputs/fake-worker.py, which makes up times and says so: every
# stage but the GPU's runs for real (Clang, nvcc, the harnesses). Each run's
# time and the median of --runs (3) are printed.
#
# Kernel Tuner (1.4.0, docs/bench/tune-speed.md and /work/shared/PEERS.md):
# --kernel-tuner DIR is its source tree; --pythonpath adds its pure-Python
# dependencies (colon-separated). It runs with the CuPy backend, brute
# force, in a new Python process with a fresh CUPY_CACHE_DIR (cold), --kt-runs
# times (1).
# TUNE_SPEED_KEEP=1 keeps the run directories (printed) for a look after.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
forge=${FORGE_PORT:-$root/build/bin/forge-port}
runs=3
arch=""
kt=""
pypath=""
ktruns=1
while [ $# -gt 0 ]; do
  case $1 in
    --forge-port) forge=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --to) arch=$2; shift 2 ;;
    --kernel-tuner) kt=$2; shift 2 ;;
    --pythonpath) pypath=$2; shift 2 ;;
    --kt-runs) ktruns=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "tune-speed.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

gpu=no
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  gpu=yes
  if [ -z "$arch" ]; then
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
    arch=sm_$cc
  fi
fi
arch=${arch:-sm_90}

work=$(mktemp -d "${TMPDIR:-/tmp}/tune-speed.XXXXXX")
if [ -n "${TUNE_SPEED_KEEP:-}" ]; then
  echo "tune-speed: runs kept in $work"
else
  trap 'rm -rf "$work"' EXIT
fi
inputs=$here/inputs/tune-speed

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "tune-speed: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tune-speed: forge-port $forge, --to $arch, GPU: $gpu"
if [ $gpu = no ]; then
  export FORGE_WORKER=$root/test/Inputs/fake-worker.py FAKE_BEST=BLOCK=512,ITEMS=8
  echo "tune-speed: no GPU: measured by the fake worker (times made up; compiles and parses real)"
fi

cold=() warm=()
for i in $(seq 1 "$runs"); do
  d=$work/run$i
  mkdir -p "$d"
  cp "$inputs/block_sum.cu" "$inputs/block_sum.json" "$d/"
  cmd=("$forge" tune block_sum.cu --spec block_sum.json --to "$arch" --db db.json -o tuned.cu)
  t0=$(now)
  (cd "$d" && FORGE_CACHE_DIR=$d/cache "${cmd[@]}" 2> cold.err) ||
    { cat "$d/cold.err" >&2; exit 1; }
  t1=$(now)
  (cd "$d" && FORGE_CACHE_DIR=$d/cache "${cmd[@]}" 2> warm.err) ||
    { cat "$d/warm.err" >&2; exit 1; }
  t2=$(now)
  c=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') w=$(awk -v a="$t1" -v b="$t2" 'BEGIN {print b - a}')
  cold+=("$c") warm+=("$w")
  summary=$(grep -o 'compile [0-9.]* s, run [0-9.]* s' "$d/cold.err" || true)
  best=$(grep -m1 -o "$arch: BLOCK=[0-9]* ITEMS=[0-9]*" "$d/cold.err" || true)
  printf 'run %d: cold %.2f s (%s; %s), warm %.2f s\n' "$i" "$c" "$summary" "$best" "$w"
done
printf 'forge-port tune: cold %.2f s, warm %.2f s (median of %d)\n' \
  "$(printf '%s\n' "${cold[@]}" | median)" "$(printf '%s\n' "${warm[@]}" | median)" "$runs"

[ -z "$kt" ] && exit 0
if [ $gpu = no ]; then
  echo "tune-speed: Kernel Tuner needs a GPU; not run" >&2
  exit 0
fi
# Kernel Tuner compiles with NVRTC: the kernel alone, with the header NVRTC
# can compile (not <cub/cub.cuh>), outside the namespace (its name
# expression is blockSum<BLOCK,ITEMS>).
awk '/^namespace hk/ {next} /^} \/\/ namespace hk/ {exit} {print}' "$inputs/block_sum.cu" \
  > "$work/kt_block_sum.cu"
cat > "$work/kt.py" <<'PY'
import sys, time
import numpy as np
from kernel_tuner import tune_kernel
src = open(sys.argv[1]).read()
n = np.int32(2**26)
x = np.random.default_rng(1).random(int(n), dtype=np.float32)
out = np.zeros(1, dtype=np.float32)
ref = np.zeros(1, dtype=np.float32)
ref[0] = x.astype(np.float64).sum()
params = {"BLOCK": [64, 128, 256, 512, 1024], "ITEMS": [1, 2, 4, 8]}
t0 = time.time()
res, env = tune_kernel("blockSum<BLOCK,ITEMS>", src, int(n), [x, out, n], params,
                       grid_div_x=["BLOCK*ITEMS"], block_size_names=["BLOCK"], lang="cupy",
                       strategy="brute_force",
                       compiler_options=["-I/usr/local/cuda/include/cccl", "-std=c++17"],
                       defines={}, answer=[None, ref, None], atol=1e-4 * float(ref[0]),
                       verbose=False, quiet=True)
best = min(res, key=lambda r: r["time"])
print("kernel tuner: tune_kernel %.2f s, best BLOCK=%d ITEMS=%d %.4f ms" %
      (time.time() - t0, best["BLOCK"], best["ITEMS"], best["time"]))
PY
for i in $(seq 1 "$ktruns"); do
  t0=$(now)
  CUPY_CACHE_DIR=$work/cupy-cache$i PYTHONPATH="$kt${pypath:+:$pypath}" \
    python3 "$work/kt.py" "$work/kt_block_sum.cu"
  t1=$(now)
  printf 'Kernel Tuner run %d: cold whole process %.2f s\n' "$i" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')"
done
