#!/usr/bin/env bash
# tune-cluster.test's cases, run inside its local cluster:
#   cluster-cases.sh WORKER DIR FORGE_PORT
set -u
worker=$1 dir=$2 fp=$3
cd "$dir"
common=(scale.cu --spec scale.json --executor slurm --worker "$worker" --task-size 3
        --poll 0.3 -j 2)
"$fp" tune "${common[@]}" --to sm_80,sm_90 --partition sm_80=a100,sm_90=h100 \
  --workdir "$dir/work" --db db.json -i 2>run.err
echo "campaign: exit $?"
awk '{ n += $1; runs++ } END { printf "candidates measured: %d in %d worker run(s)\n", n, runs }' log
echo "queue after the run: $(squeue --noheader | wc -l)"
cp "$(ls "$dir"/work/array-*.sh | head -1)" script.sh
before=$(ls "$dir"/work/logs | wc -l)

case_() {
  local name=$1
  shift
  out=$("$@" 2>&1 >/dev/null)
  echo "$name: exit $?"
  echo "$out" | grep -m1 "error:" | sed 's/^forge-port: //'
}
case_ "unknown partition" "$fp" tune "${common[@]}" --to sm_80,sm_90 \
  --partition sm_80=a100,sm_90=v100 --workdir "$dir/work"
case_ "target without a partition" "$fp" tune "${common[@]}" --to sm_80,sm_90 \
  --partition sm_90=h100 --workdir "$dir/work"
case_ "partition of another architecture" "$fp" tune "${common[@]}" --to sm_80 \
  --partition sm_80=h100 --workdir "$dir/work"
case_ "no workdir" "$fp" tune "${common[@]}" --to sm_90 --partition sm_90=h100
case_ "workdir not writable" "$fp" tune "${common[@]}" --to sm_90 --partition sm_90=h100 \
  --workdir /proc/forge-port
mkdir -p "$dir/empty"
case_ "no Slurm on PATH" env PATH="$dir/empty" "$fp" tune "${common[@]}" --to sm_90 \
  --partition sm_90=h100 --workdir "$dir/work"
case_ "program mode" "$fp" tune "${common[@]}" --to sm_90 --partition sm_90=h100 \
  --workdir "$dir/work" --run "{exe}"
# The h100 partition's GPU was asked once, by the campaign; the mismatch
# case read it from work/partitions: no job at all was submitted here.
after=$(ls "$dir"/work/logs | wc -l)
echo "nothing submitted by the errors: $((after - before)) job(s)"
