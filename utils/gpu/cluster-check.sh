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
bash "$root/utils/gpu/slurm-install.sh" "$work/sldeb-root"
GPU_FILE=/dev/nvidia0 "$root/utils/slurm/local-cluster.sh" run "$work/cluster/slurm" h200 -- \
  bash -c 'sinfo; scontrol show node | grep -i -E "gres|state="; forge-port tune scale.cu --spec scale-16m.json --to sm_90 --executor slurm --partition sm_90=h200 --workdir "$PWD/slurm-work" --worker "$FORGE_WORKER" --db slurm.json --job-dir "$PWD/slurm-root" --diff 2>slurm.err >slurm.diff; echo "tune --executor slurm: exit $?"'
[[ -f slurm.err ]] && grep -v '^\[.*best' slurm.err
ls -la slurm-root slurm-root/*/ 2>/dev/null | head -40
tail -20 slurm/log/slurmctld.log slurm/log/slurmd.log 2>/dev/null

echo "== 4. side by side"
python3 "$root/utils/gpu/cluster/compare.py" local.json jobs slurm.json || status=1
exit $status
