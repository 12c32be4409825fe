#!/usr/bin/env bash
# On the GPU machine (utils/gpu/session-check.sh step `campaign`): the
# benchmark suite's kernels (utils/bench/kernels, each <stem>.cu with its
# <stem>.json) tuned as one campaign through a single-node Slurm on this
# machine, the GPU its gres: `forge-port tune *.cu --spec-dir ...
# --executor slurm`. Prints how many arrays went out, the tasks of each,
# and the GPU-seconds the tasks took (the sizing note of docs/cluster.md).
#
#   campaign-check.sh WORK     (FORGE_WORKER and forge-port on PATH)
set -uo pipefail
work=${1:?usage: campaign-check.sh WORK}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir=$work/campaign
rm -rf "$dir" && mkdir -p "$dir/src" "$dir/specs"
for spec in "$root"/utils/bench/kernels/*.json; do
  stem=$(basename "$spec" .json)
  src="$root/utils/bench/kernels/$stem.cu"
  [[ -f $src ]] || continue # the 64M / 4096 variants share a source
  cp "$src" "$dir/src/" && cp "$spec" "$dir/specs/"
done
echo "files: $(ls "$dir"/src/*.cu | wc -l)"
[[ -n ${SKIP_SLURM_INSTALL:-} ]] ||
  bash "$root/utils/gpu/slurm-install.sh" "$work/sldeb-root" > "$work/slurm-install.log" 2>&1 ||
  { cat "$work/slurm-install.log"; exit 1; }
cd "$dir"
start=$(date +%s)
status=0
GPU_FILE=${GPU_FILE-/dev/nvidia0} "$root/utils/slurm/local-cluster.sh" run "$dir/slurm" h200 -- \
  bash -c 'forge-port tune src/*.cu --spec-dir specs --to sm_90 --executor slurm \
             --partition sm_90=h200 --workdir "$PWD/work" --worker "$FORGE_WORKER" \
             --db campaign.json --diff 2>campaign.err >campaign.diff
           r=$?
           echo "campaign: exit $r"
           echo "queue after the run: $(squeue --noheader | wc -l)"
           exit $r' || status=1
echo "wall: $(( $(date +%s) - start )) s"
grep -v '^\[' campaign.err | grep -E "campaign of|\[file|tuning |x over|error|file\(s\) tuned|partition .*task"
for list in work/array-*.list; do
  echo "$(basename "$list"): $(wc -l <"$list") task(s)"
done
# A cluster that did not start, or a campaign without arrays, is a failure.
ls work/array-*.list >/dev/null 2>&1 || status=1
exit $status
