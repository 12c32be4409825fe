#!/usr/bin/env bash
# On the GPU machine (utils/gpu/session-check.sh step `cluster`): the cluster
# executor's job format and, where Slurm runs there, the executor itself.
#
#  1. local: `forge-port tune` of test/slurm/Inputs/scale.cu with
#     utils/gpu/cluster/scale-16m.json on this GPU, the local executor;
#  2. jobs: the job directories that `tune --executor slurm` wrote on the
#     development machine (bundle/cluster-jobs, harnesses compiled there
#     for sm_90), each run with `forge-worker run` outside Slurm;
#  3. slurm: Debian's Slurm and munge (.sldeb, carried as .debs and
#     unpacked where not installed), a single-node cluster on this machine
#     with the GPU as its gres, and `tune --executor slurm` through it;
#  4. the per-configuration medians of 1, 2 and 3 side by side
#     (utils/gpu/cluster/compare.py).
#
#   cluster-check.sh WORK      (FORGE_WORKER and forge-port on PATH)
set -uo pipefail
work=${1:?usage: cluster-check.sh WORK}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$work/cluster"
cd "$work/cluster"
cp "$root/test/slurm/Inputs/scale.cu" "$root/utils/gpu/cluster/scale-16m.json" .
status=0

echo "== 1. local executor"
forge-port tune scale.cu --spec scale-16m.json --to sm_90 --db local.json --diff \
  2>local.err >local.diff || status=1
grep -v '^\[' local.err

echo "== 2. job directories written for Slurm, run here outside Slurm"
rm -rf jobs && cp -r "$root/bundle/cluster-jobs" jobs
for d in jobs/*/; do
  rm -f "$d/results.jsonl" "$d/exit"
  "$FORGE_WORKER" run "$d" 2>"$d/worker.log"
  echo "$d: forge-worker exit $?"
done

echo "== 3. a single-node Slurm on this machine"
# Unpacked into a staging root first: Debian 12's packages put libraries
# in /lib, which on this image is a link to usr/lib that `dpkg -x` into /
# would replace by a directory (ld then misses libm.so.6). The staging
# root's /lib, /bin and /sbin go under /usr instead.
stage=$work/sldeb-root
rm -rf "$stage" && mkdir -p "$stage"
for f in "$root"/.sldeb/*.deb; do
  pkg=$(dpkg-deb -f "$f" Package)
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    echo "installed already: $pkg"
  else
    dpkg -x "$f" "$stage" && echo "unpacked: $pkg"
  fi
done
for top in lib lib64 bin sbin; do
  if [[ -d $stage/$top && ! -L $stage/$top ]]; then
    mkdir -p "$stage/usr/$top"
    cp -a "$stage/$top/." "$stage/usr/$top/"
    rm -rf "${stage:?}/$top"
  fi
done
cp -a "$stage/." /
ldconfig
for c in munged slurmctld-wlm slurmd-wlm sbatch squeue; do
  p=$(command -v "$c" || ls /usr/sbin/"$c" 2>/dev/null)
  echo "$c: ${p:-missing}"
  [[ -n $p ]] && ldd "$p" | grep "not found"
done
# slurmd's cgroup/v2 plugin puts slurmstepd in system.slice, which a
# machine without systemd lacks.
mount | grep -i cgroup
if [[ -d /sys/fs/cgroup && ! -d /sys/fs/cgroup/system.slice ]]; then
  mkdir /sys/fs/cgroup/system.slice && echo "made /sys/fs/cgroup/system.slice"
fi
cat /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/cgroup.subtree_control 2>&1
GPU_FILE=/dev/nvidia0 "$root/utils/slurm/local-cluster.sh" run "$work/cluster/slurm" h200 -- \
  bash -c 'sinfo; scontrol show node | grep -i -E "gres|state="; forge-port tune scale.cu --spec scale-16m.json --to sm_90 --executor slurm --partition sm_90=h200 --workdir "$PWD/slurm-work" --worker "$FORGE_WORKER" --db slurm.json --job-dir "$PWD/slurm-root" --diff 2>slurm.err >slurm.diff; echo "tune --executor slurm: exit $?"'
[[ -f slurm.err ]] && grep -v '^\[.*best' slurm.err
ls -la slurm-root slurm-root/*/ 2>/dev/null | head -40
tail -20 slurm/log/slurmctld.log slurm/log/slurmd.log 2>/dev/null

echo "== 4. side by side"
python3 "$root/utils/gpu/cluster/compare.py" local.json jobs slurm.json || status=1
exit $status
