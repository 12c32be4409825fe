#!/usr/bin/env bash
# Makes the Rodinia part of .legacy/ (ignored by git, never committed) for
# utils/gpu/legacy-check.sh (issue 20): Rodinia programs that CUDA 13 breaks
# at source level, as fetched and as ported by this build's forge-port in
# project mode, with their CPU references and generated inputs. Rodinia is
# not part of this repository: give its git directory (a bare mirror is
# fine; files are taken one by one with `git show`, since `git archive` of
# the yuhc/gpu-rodinia mirror stops at a missing blob) or an unpacked tree.
#
#   utils/gpu/make-legacy-rodinia.sh /work/.mirror/yuhc+gpu-rodinia/repo
#
# Writes (and replaces only these):
#   .legacy/rodinia-orig/cuda/kmeans          the CUDA program as fetched
#   .legacy/rodinia-orig/openmp/kmeans_openmp its OpenMP version, the CPU
#        reference; one change: its commented-out print of the cluster
#        centres is re-enabled, so that there is something to compare
#   .legacy/rodinia-orig/cuda/mummergpu       src/ as fetched (its CPU
#        reference is its own `-C` mode, mummergpu_gold.cpp)
#   .legacy/rodinia-orig/cuda/nn, openmp/nn   nn and its OpenMP version
#   .legacy/rodinia/cuda/...                  `forge-port --all DIR --to sm_90
#        --no-validate -o OUT/` of each program directory above
#   .legacy/rodinia/data/                     generated inputs (below)
# and checks here what needs no GPU: nvcc 13 rejects the original, builds the
# ported one, and the OpenMP reference builds with gcc -fopenmp and runs on
# the generated input (nn's too).
set -euo pipefail
src=${1:?the Rodinia git directory or tree}
root=$(cd "$(dirname "$0")/../.." && pwd)
fp=${FORGE_PORT:-$root/build/bin/forge-port}
nvcc=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
orig=$root/.legacy/rodinia-orig
port=$root/.legacy/rodinia
rm -rf "$orig" "$port"
mkdir -p "$orig" "$port/data"

take() { # REPO-DIR DEST-DIR: the files of REPO-DIR (recursively) into DEST-DIR
  if [ -d "$src/cuda" ]; then
    mkdir -p "$2" && cp -r "$src/$1/." "$2/"
  else
    git --git-dir="$src" ls-tree -r --name-only HEAD "$1" | while read -r f; do
      mkdir -p "$2/$(dirname "${f#$1/}")"
      git --git-dir="$src" show "HEAD:$f" > "$2/${f#$1/}"
    done
  fi
}
portdir() { # DIR [FLAG...]: $orig/cuda/DIR ported into $port/cuda/DIR
  local d=$1
  shift
  mkdir -p "$port/cuda"
  # exit 1 where Clang rejects regions nvcc takes (each counts as an error
  # under --no-validate): the tree is written all the same, and nvcc judges it
  (cd "$orig/cuda" && "$fp" --all "$d" --to sm_90 --no-validate -o "$port/cuda/$d/" -- "$@") \
    > "$port/$d.port.log" 2>&1 || echo "$d: forge-port exit $?"
  grep -E '^1 file|^forge-port: the tree' "$port/$d.port.log"
}

# --- kmeans: texture references t_features, t_features_flipped, t_clusters
# declared and read in the included kmeans_cuda_kernel.cu, bound in
# kmeans_cuda.cu.
take cuda/kmeans "$orig/cuda/kmeans"
take openmp/kmeans/kmeans_openmp "$orig/openmp/kmeans_openmp"
python3 - "$orig/openmp/kmeans_openmp/kmeans.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
a = s.index('/*  \tprintf("Cluster Centers Output\\n");')
b = s.index('*/', a)
s = s[:a] + s[a + 2:b] + s[b + 2:]
open(p, 'w').write(s)
PY
portdir kmeans
# Input: Rodinia's text format, "id f1 ... f8" a line. 5 clusters 100 apart in
# every feature, each point within +-5 of its centre, point i in cluster
# i % 5: both programs take the first k points as initial centres, so each
# starts with one centre per cluster and ends with the clusters' means.
python3 - "$port/data/kmeans-10k.txt" <<'PY'
import sys
k, nf, n, seed = 5, 8, 10000, 12345
def rnd():  # a plain LCG: the same file on any machine
    global seed
    seed = (seed * 1103515245 + 12345) % 2**31
    return seed / 2**31
with open(sys.argv[1], 'w') as f:
    for i in range(n):
        c = i % k
        f.write('%d %s\n' % (i + 1, ' '.join('%.3f' % (100.0 * c + 7.0 * (j % 3) + 10.0 * (rnd() - 0.5))
                                             for j in range(nf))))
PY

# --- mummergpu: 2D texture references nodetex, childrentex (and the
# configuration-dependent reftex, qrytex, ...) declared and read in the
# included <mummergpu_kernel.cu>, bound in mummergpu.cu. Its CPU reference is
# its own -C mode (mummergpu_gold.cpp), which needs a GPU too (it primes the
# device with cudaMalloc); openmp/mummergpu is the same program with the
# same CUDA file, its -C mode with OpenMP pragmas, and adds nothing.
take cuda/mummergpu/src "$orig/cuda/mummergpu"
portdir mummergpu -I"$orig/cuda/mummergpu"
# Input: a 100 kb random reference and 4000 reads of 50-100 bp taken from it
# with 0-2 substitutions each (a read gives one or more maximal matches of
# >= 20 bp, the default -l); every tenth read is random.
python3 - "$port/data/mummer-ref.fa" "$port/data/mummer-qry.fa" <<'PY'
import sys
seed = 4242
def rnd(n):  # a plain LCG: the same files on any machine
    global seed
    seed = (seed * 1103515245 + 12345) % 2**31
    return (seed >> 8) % n
L, nq = 100000, 4000
ref = ''.join('ACGT'[rnd(4)] for _ in range(L))
with open(sys.argv[1], 'w') as f:
    f.write('>ref\n')
    for i in range(0, L, 60):
        f.write(ref[i:i + 60] + '\n')
with open(sys.argv[2], 'w') as f:
    for q in range(nq):
        n = 50 + rnd(51)
        p = rnd(L - n)
        s = list(ref[p:p + n])
        for _ in range(rnd(3)):
            k = rnd(n)
            s[k] = 'ACGT'[('ACGT'.index(s[k]) + 1 + rnd(3)) % 4]
        if q % 10 == 9:
            s = ['ACGT'[rnd(4)] for _ in range(n)]
        f.write('>q%d\n%s\n' % (q, ''.join(s)))
PY

# --- nn (no texture: cudaThreadSynchronize, removed in CUDA 13). CPU
# reference: openmp/nn/nn_openmp.c (the directory's prebuilt binaries are
# dropped). Input: Rodinia's hurricane record format (hurricane_gen.c's
# "%4d %2d %2d %2d %2d %-9s %5.1f %5.1f %4d %4d", 49 bytes a line), but
# deterministic (hurricane_gen seeds with the time) and with distinct
# (lat, lng) pairs: 40 000 records in 4 files and a list naming them
# (relative to data/, where the check runs the programs).
take cuda/nn "$orig/cuda/nn"
take openmp/nn "$orig/openmp/nn"
rm -f "$orig/openmp/nn/nn" "$orig/openmp/nn/hurricane_gen"
portdir nn
python3 - "$port/data" <<'PY'
import sys
d = sys.argv[1]
seed = 777
def rnd(n):  # a plain LCG: the same files on any machine
    global seed
    seed = (seed * 1103515245 + 12345) % 2**31
    return (seed >> 8) % n
names = ["ALBERTO", "BERYL", "CHRIS", "DEBBY", "ERNESTO", "FLORENCE", "GORDON", "HELENE", "ISAAC",
         "JOYCE", "KIRK", "LESLIE", "MICHAEL", "NADINE", "OSCAR", "PATTY", "RAFAEL", "SANDY", "TONY",
         "VALERIE", "WILLIAM"]
seen = set()
with open(d + '/nn-list.txt', 'w') as lst:
    for fno in range(4):
        lst.write('nn-cane4_%d.db\n' % fno)
        with open(d + '/nn-cane4_%d.db' % fno, 'w') as f:
            n = 0
            while n < 10000:
                lat, lng = 70 + rnd(630), rnd(3580)  # tenths: 7.0-69.9, 0.0-357.9
                if (lat, lng) in seen:
                    continue
                seen.add((lat, lng))
                n += 1
                f.write('%4d %2d %2d %2d %2d %-9s %5.1f %5.1f %4d %4d\n'
                        % (1950 + rnd(55), 1 + rnd(12), 1 + rnd(28), [0, 6, 12, 18][rnd(4)], 1 + rnd(28),
                           names[rnd(21)], lat / 10, lng / 10, 10 + rnd(155), rnd(900)))
PY

# --- checks that need no GPU: the CUDA file of each program with nvcc 13
# (no link, no run), then the OpenMP kmeans on its input. mummergpu's -C
# mode cannot run here (see above).
cd "$root/.legacy"
log=$(mktemp)
ref=$(mktemp -d)
trap 'rm -rf "$ref" "$log"' EXIT
for p in kmeans/kmeans_cuda.cu mummergpu/mummergpu.cu nn/nn_cuda.cu; do
  d=$(dirname "$p")
  if (cd "rodinia-orig/cuda/$d" && "$nvcc" -arch=sm_90 -I. -c "$(basename "$p")" -o /dev/null) > "$log" 2>&1; then
    echo "$d: the original builds with nvcc 13 (expected to fail)"
  else
    echo "$d: the original fails with nvcc 13: $(grep -m1 error "$log")"
  fi
  if (cd "rodinia/cuda/$d" && "$nvcc" -w -arch=sm_90 -O2 -I. -c "$(basename "$p")" -o /dev/null) > "$log" 2>&1; then
    echo "$d: the port builds with nvcc 13"
  else
    echo "$d: the port fails with nvcc 13:"; grep -m3 error "$log"
  fi
done
(cd rodinia-orig/openmp/kmeans_openmp && gcc -w -O2 -fopenmp -o "$ref/kmeans" cluster.c getopt.c kmeans.c \
   kmeans_clustering.c -lm)
echo "kmeans: the OpenMP reference on data/kmeans-10k.txt:"
"$ref/kmeans" -n 2 -k 5 -i rodinia/data/kmeans-10k.txt | grep -E '^[0-9]+:'
(cd rodinia-orig/openmp/nn && gcc -w -O2 -fopenmp -o "$ref/nn" nn_openmp.c -lm)
echo "nn: the OpenMP reference on data/nn-list.txt (5 nearest to 30.03, 90.01):"
(cd rodinia/data && "$ref/nn" nn-list.txt 5 30.03 90.01 2>&1 >/dev/null)
du -sh "$orig" "$port"
