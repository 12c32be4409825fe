#!/usr/bin/env bash
# On the GPU machine: legacy programs ported by forge-port run and pass their
# own verification (issue 20). The trees are made here by
# utils/gpu/make-legacy.sh and carried as
# .legacy/ (ignored by git, not committed):
#   .legacy/shoc-orig   SHOC's src/common and src/cuda as fetched, with the
#                       config/config.h its ./configure wrote
#   .legacy/shoc        `forge-port --all SHOC/src --to sm_90 -o .legacy/shoc/
#                       -- -Iconfig -Isrc/common -Isrc/cuda/common`, and the
#                       same config/config.h
# For each benchmark the original is built with nvcc (CUDA 13 rejects it),
# then the ported one, which is run with its smallest size; SHOC checks the
# GPU's results against the CPU's and prints "Passed" or "FAILED".
#
# Rodinia (second table; trees made by utils/gpu/make-legacy-rodinia.sh):
#   .legacy/rodinia-orig/cuda/{kmeans,mummergpu,nn}  the CUDA programs as fetched
#   .legacy/rodinia-orig/openmp/{kmeans_openmp,nn}  kmeans' and nn's OpenMP versions
#   .legacy/rodinia/cuda/{kmeans,mummergpu,nn}    their forge-port ports
#   .legacy/rodinia/data/                         generated inputs
# Rodinia has no verification mode: the ported program's output is compared
# with its CPU reference's on the same input (kmeans, nn: the OpenMP
# versions; mummergpu: its own -C mode).
#
#   utils/gpu/legacy-check.sh OUT     (LEGACY_SECTIONS="shoc rodinia" by default)
set -uo pipefail
OUT=${1:?OUT}
mkdir -p "$OUT"
NVCC=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
ARCH=${LEGACY_ARCH:-sm_90}
root=$(cd "$(dirname "$0")/../.." && pwd)
common="common/Option.cpp common/OptionParser.cpp common/ResultDatabase.cpp common/ProgressBar.cpp cuda/common/main.cpp"
sections=" ${LEGACY_SECTIONS:-shoc rodinia} "
status=0
[[ $sections == *" shoc "* ]] && printf '%-10s %-14s %-14s %s\n' benchmark original ported run
[[ $sections == *" shoc "* ]] && for b in reduction/Reduction scan/Scan sort/Sort spmv/Spmv; do
  name=$(basename "$b")
  dir=cuda/level1/$(dirname "$b")
  srcs="$dir/$name.cu"
  [ "$name" = Sort ] && srcs="$srcs $dir/sort_kernel.cu"
  build() { # TREE EXE
    (cd "$1" && "$NVCC" -arch="$ARCH" -O2 -o "$2" $srcs $common -Iconfig -Icommon -Icuda/common \
       -I"$dir") \
      > "$2.log" 2>&1
  }
  orig=builds
  build "$root/.legacy/shoc-orig" "$OUT/$name.orig" || orig="fails"
  ported=builds
  run=-
  if build "$root/.legacy/shoc" "$OUT/$name"; then
    "$OUT/$name" -s 1 --passes 2 > "$OUT/$name.run" 2>&1
    rc=$?
    passed=$(grep -c 'Passed' "$OUT/$name.run")
    failed=$(grep -c 'FAILED' "$OUT/$name.run")
    run="exit $rc, $passed Passed, $failed FAILED"
    { [ $rc -eq 0 ] && [ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]; } || status=1
  else
    ported=fails
    status=1
  fi
  printf '%-10s %-14s %-14s %s\n' "$name" "$orig" "$ported" "$run"
  [ "$orig" = fails ] && grep -m2 -E 'error' "$OUT/$name.orig.log" | sed 's/^/    original: /'
done

# ---- Rodinia
if [[ $sections == *" rodinia "* ]]; then
R=$root/.legacy/rodinia
RO=$root/.legacy/rodinia-orig
CU=${CUDA_PATH:-/usr/local/cuda}
D=$R/data
echo
printf '%-10s %-14s %-14s %-14s %s\n' rodinia original ported reference run
row() { # NAME ORIG PORTED REF RUN: a row; the original's first errors when it fails
  printf '%-10s %-14s %-14s %-14s %s\n' "$@"
  [ "$2" = fails ] && grep -m2 -E 'error' "$OUT/$1/orig.log" | sed 's/^/    original: /'
  [ "$3" = fails ] && grep -m3 -E 'error' "$OUT/$1/build.log" | sed 's/^/    ported: /'
  [ "$4" = fails ] && grep -m3 -E 'error' "$OUT/$1/ref.log" | sed 's/^/    reference: /'
  [[ $5 == PASS* ]] || status=1
}
origbuild() { # NAME FILE: the original CUDA file with nvcc (compile only)
  (cd "$RO/cuda/$1" && "$NVCC" -arch="$ARCH" -O2 -I. -c "$2" -o "$OUT/$1/orig.o") > "$OUT/$1/orig.log" 2>&1 \
    && echo builds || echo fails
}

# kmeans (texture references t_features, t_features_flipped, t_clusters).
# The GPU computes the memberships, the host the new centres (CUDA) or
# per-thread partial sums (OpenMP), both in float: the centres, printed
# "%.2f", are compared with a tolerance of 0.02. Each centre is the mean of
# 2000 values below 420; float32 sums of them in another order differ by
# about sqrt(2000) half-ulps of 8.4e5 (0.03), i.e. ~1e-3 in the mean, plus
# 0.005 of rounding on each side. Both are also compared with the data's own
# cluster means in double: a wrong assignment of even one point moves a mean
# by more than 0.02. The data place point i in cluster i % 5, and both
# programs take the first k points as initial centres.
n=kmeans
mkdir -p "$OUT/$n"
orig=$(origbuild $n kmeans_cuda.cu)
ported=builds
( cd "$R/cuda/$n" && set -e
  for c in cluster getopt kmeans kmeans_clustering rmse; do gcc -O2 -fopenmp -c $c.c -o "$OUT/$n/$c.o"; done
  "$NVCC" -arch="$ARCH" -O2 -c kmeans_cuda.cu -o "$OUT/$n/kmeans_cuda.o"
  cd "$OUT/$n" && "$NVCC" -arch="$ARCH" -Xcompiler -fopenmp -o kmeans cluster.o getopt.o kmeans.o \
     kmeans_clustering.o rmse.o kmeans_cuda.o -lm ) > "$OUT/$n/build.log" 2>&1 || ported=fails
ref=builds
(cd "$RO/openmp/kmeans_openmp" && gcc -O2 -fopenmp -o "$OUT/$n/kmeans_omp" cluster.c getopt.c kmeans.c \
   kmeans_clustering.c -lm) > "$OUT/$n/ref.log" 2>&1 || ref=fails
run=-
if [ $ported = builds ] && [ $ref = builds ]; then
  timeout 300 "$OUT/$n/kmeans" -o -m 5 -n 5 -i "$D/kmeans-10k.txt" > "$OUT/$n/gpu.out" 2>&1
  rc=$?
  timeout 300 "$OUT/$n/kmeans_omp" -n 4 -k 5 -i "$D/kmeans-10k.txt" > "$OUT/$n/cpu.out" 2>&1
  rcref=$?
  run=$(python3 - "$D/kmeans-10k.txt" "$OUT/$n/gpu.out" "$OUT/$n/cpu.out" $rc $rcref <<'PY'
import re, sys
data, gpu, cpu, rc, rcref = sys.argv[1:]
def centres(path):
    return [[float(v) for v in m.group(1).split()]
            for m in re.finditer(r'^\d+:((?:\s+-?[0-9.]+)+)\s*$', open(path).read(), re.M)]
g, c = centres(gpu), centres(cpu)
rows = [[float(v) for v in l.split()[1:]] for l in open(data) if l.strip()]
k, nf = 5, len(rows[0])
means = [[sum(r[j] for r in rows[i::k]) / len(rows[i::k]) for j in range(nf)] for i in range(k)]
def dev(a, b):
    return max(abs(x - y) for p, q in zip(a, b) for x, y in zip(p, q)) if len(a) == len(b) == k else float('inf')
ok = rc == '0' and rcref == '0' and dev(g, c) <= 0.02 and dev(g, means) <= 0.02 and dev(c, means) <= 0.02
print('%s: exit %s/%s, %d/%d centres, max |gpu-omp| %.3f, |gpu-mean| %.3f, |omp-mean| %.3f'
      % ('PASS' if ok else 'FAIL', rc, rcref, len(g), len(c), dev(g, c), dev(g, means), dev(c, means)))
PY
)
fi
row $n "$orig" "$ported" "$ref" "$run"

# mummergpu (2D texture references nodetex, childrentex). The GPU and the
# -C (CPU, mummergpu_gold.cpp) runs of the same ported binary print the
# maximal exact matches of every read: compared exactly. Host flags the
# port does not touch: -include unistd.h (suffix-tree.cpp calls read/lseek
# without it) and -fno-delete-null-pointer-checks (SuffixNode::id() tests
# `if (this)`, which g++ removes, and the root's NULL parent is asked its id).
# Each run has 300 s: getFreeDeviceMemory() keeps the board's free memory in
# an int, which a card of 80 GB or more overflows (the -C mode pretends to
# have 768 MB); the query blocks it sizes may come out odd.
n=mummergpu
mkdir -p "$OUT/$n"
orig=$(origbuild $n mummergpu.cu)
ported=builds
( cd "$R/cuda/$n" && set -e
  "$NVCC" -arch="$ARCH" -O2 -I. -DUNIX -c mummergpu.cu -o "$OUT/$n/mummergpu.o"
  for c in mummergpu_gold suffix-tree PoolMalloc mummergpu_main; do
    g++ -O2 -fopenmp -fno-delete-null-pointer-checks -include unistd.h -I. -I"$CU/include" -DUNIX \
      -c $c.cpp -o "$OUT/$n/$c.o"
  done
  cd "$OUT/$n" && g++ -fopenmp -o mummergpu mummergpu_main.o mummergpu.o mummergpu_gold.o suffix-tree.o \
     PoolMalloc.o -L"$CU/lib64" -L"$CU/lib64/stubs" -lcudart -lcuda ) > "$OUT/$n/build.log" 2>&1 || ported=fails
ref="-C mode"
run=-
if [ $ported = builds ]; then
  timeout 300 "$OUT/$n/mummergpu" "$D/mummer-ref.fa" "$D/mummer-qry.fa" > "$OUT/$n/gpu.out" 2> "$OUT/$n/gpu.err"
  rc=$?
  timeout 300 "$OUT/$n/mummergpu" -C "$D/mummer-ref.fa" "$D/mummer-qry.fa" > "$OUT/$n/cpu.out" 2> "$OUT/$n/cpu.err"
  rcref=$?
  lines=$(grep -vc '^>' "$OUT/$n/cpu.out")
  if [ $rc -eq 0 ] && [ $rcref -eq 0 ] && [ "$lines" -gt 0 ] && cmp -s "$OUT/$n/gpu.out" "$OUT/$n/cpu.out"; then
    run="PASS: exit 0/0, $lines match lines, identical"
  else
    same=differ
    [ "$lines" -gt 0 ] && cmp -s <(sort "$OUT/$n/gpu.out") <(sort "$OUT/$n/cpu.out") && same="same lines, other order"
    run="FAIL: exit $rc/$rcref, $(grep -vc '^>' "$OUT/$n/gpu.out")/$lines match lines, $same"
  fi
fi
row $n "$orig" "$ported" "$ref" "$run"

# nn (cudaThreadSynchronize). The 10 records nearest to (30.03, 90.01): the
# GPU prints them sorted ("REC --> Distance=%f", stdout), the OpenMP version
# in its own order ("REC --> %f", stderr). Both are compared with the 10
# nearest computed here from the data in double: sorted distances within
# 1e-4 (float sqrtf of values below 400 on either side, 1 ulp is 3e-5;
# printed to 1e-6), every record among the 10 nearest (or tied with the
# 10th, which either program may keep).
n=nn
mkdir -p "$OUT/$n"
orig=$(origbuild $n nn_cuda.cu)
ported=builds
(cd "$R/cuda/$n" && "$NVCC" -arch="$ARCH" -O2 -o "$OUT/$n/nn" nn_cuda.cu) > "$OUT/$n/build.log" 2>&1 || ported=fails
ref=builds
(cd "$RO/openmp/nn" && gcc -O2 -fopenmp -o "$OUT/$n/nn_omp" nn_openmp.c -lm) > "$OUT/$n/ref.log" 2>&1 || ref=fails
run=-
if [ $ported = builds ] && [ $ref = builds ]; then
  (cd "$D" && timeout 300 "$OUT/$n/nn" nn-list.txt -r 10 -lat 30.03 -lng 90.01) > "$OUT/$n/gpu.out" 2>&1
  rc=$?
  (cd "$D" && timeout 300 "$OUT/$n/nn_omp" nn-list.txt 10 30.03 90.01) > "$OUT/$n/cpu.out" 2>&1
  rcref=$?
  run=$(python3 - "$D" "$OUT/$n/gpu.out" "$OUT/$n/cpu.out" $rc $rcref <<'PY'
import math, re, sys
data, gpu, cpu, rc, rcref = sys.argv[1:]
k, lat, lng = 10, 30.03, 90.01
def dist(r):
    return math.hypot(float(r[27:32]) - lat, float(r[33:38]) - lng)
recs = [l.rstrip('\n') for f in open(data + '/nn-list.txt').read().split()
        for l in open(data + '/' + f)]
true = sorted((dist(r), r) for r in recs)
# records either program may return: up to the k-th distance (ties at it)
allowed = {r for d, r in true if d <= true[k - 1][0] + 1e-4}
def hits(path):
    return sorted((float(m.group(2)), m.group(1))
                  for m in re.finditer(r'^(.{48}) --> (?:Distance=)?(-?[0-9.]+)$', open(path).read(), re.M))
g, c = hits(gpu), hits(cpu)
def dev(h):
    return max(abs(a[0] - b[0]) for a, b in zip(h, true)) if len(h) == k else float('inf')
bad = len({r for d, r in g + c} - allowed)
ok = rc == '0' and rcref == '0' and dev(g) <= 1e-4 and dev(c) <= 1e-4 and bad == 0
print('%s: exit %s/%s, %d/%d records, max |distance - exact| gpu %.1e omp %.1e, %d not among the %d nearest'
      % ('PASS' if ok else 'FAIL', rc, rcref, len(g), len(c), dev(g), dev(c), bad, k))
PY
)
fi
row $n "$orig" "$ported" "$ref" "$run"
fi
exit $status
