#!/usr/bin/env bash
# tune-campaign.test's run, inside its local cluster:
#   campaign-cases.sh WORKER DIR FORGE_PORT
# Three files tuned as one campaign on partition h100: scale.cu and
# shift.cu (two kernels), and broken.cu, whose spec names a kernel it does
# not have.
set -u
worker=$1 dir=$2 fp=$3
cd "$dir"
"$fp" tune src/scale.cu src/shift.cu src/broken.cu --spec-dir specs --to sm_90 \
  --executor slurm --partition sm_90=h100 --workdir "$dir/work" --worker "$worker" \
  --task-size 3 --poll 0.3 -j 2 --db db.json -i 2>run.err
echo "campaign: exit $?"
# Each round is one array (one list of job directories); the kernels each
# array measured, from the directories' specs.
for list in "$dir"/work/array-*.list; do
  kernels=$(while read -r d; do
              sed -n 's/.*"kernel": *"\([a-z]*\)".*/\1/p' "$d/spec.json"
            done <"$list" | sort -u | tr '\n' ' ')
  echo "array of $(wc -l <"$list") task(s): kernels ${kernels% }"
done | sort
echo "arrays: $(ls "$dir"/work/array-*.list | wc -l)"
echo "queue after the run: $(squeue --noheader | wc -l)"

# Two targets on two partitions: each file sweeps both at once, so a file
# may wait on one partition while its member of the other is idle; --gather
# bounds how long a round waits for such a member.
mkdir -p two && cp src/scale.cu src/shift.cu two/
"$fp" tune two/scale.cu two/shift.cu --spec-dir specs --to sm_80,sm_90 \
  --executor slurm --partition sm_80=a100,sm_90=h100 --workdir "$dir/work2" \
  --worker "$worker" --task-size 12 --poll 0.3 --gather 3 -j 2 -i 2>two.err
echo "two targets: exit $?"
grep -c "sm_80: BLOCK=128 ITEMS=4 \[measured\]" two.err
grep "file(s) tuned" two.err | sed "s/^forge-port: //"
echo "queue after the run: $(squeue --noheader | wc -l)"

# Ctrl-C once the campaign's first array is in the queue: every file stops,
# the array is cancelled, nothing is written back.
mkdir -p int && cp src/scale.cu src/shift.cu int/
bash "$(dirname "$0")/interrupt.sh" INT "[0-9] running" int.err int/scale.cu \
  int/shift.cu --spec-dir specs --to sm_90 --executor slurm --partition sm_90=h100 \
  --workdir "$dir/work3" --worker "$worker" --task-size 3 --poll 0.3 -j 2 -i
grep -c "nothing is written back after an interrupt" int.err
grep "file(s) tuned" int.err | sed "s/^forge-port: //"
