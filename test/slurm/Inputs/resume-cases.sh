#!/usr/bin/env bash
# tune-resume.test's cases, run inside its local cluster:
#   resume-cases.sh WORKER DIR
set -u
worker=$1 dir=$2
here=$(dirname "$0")
cd "$dir"
export FAKE_BEST=BLOCK=128,ITEMS=4
args=(scale.cu --spec scale.json --to sm_90 --executor slurm --partition sm_90=h100
      --worker "$worker" --task-size 3 --poll 0.3 -j 2 --db db.json -i)
count() {
  awk '{ n += $1 } END { printf "candidates measured over both runs: %d\n", n }' "$1"
}

# Ctrl-C once the first of the 4 tasks is done.
FAKE_LOG=$dir/log-int FAKE_SLEEP_S=0.5 bash "$here/interrupt.sh" INT "1 done of" int.err \
  "${args[@]}" --workdir "$dir/work-int"
FAKE_LOG=$dir/log-int forge-port tune "${args[@]}" --workdir "$dir/work-int" 2>after-int.err
echo "after the interrupt: exit $?"
count log-int

# SIGKILL once the first task is done; a fresh database and source, so the
# next run asks for the same work again.
cp "$here/scale.cu" scale.cu
rm -f db.json
FAKE_LOG=$dir/log-kill FAKE_SLEEP_S=0.5 bash "$here/interrupt.sh" KILL "1 done of" kill.err \
  "${args[@]}" --workdir "$dir/work-kill"
FAKE_LOG=$dir/log-kill forge-port tune "${args[@]}" --workdir "$dir/work-kill" 2>after-kill.err
echo "after the kill: exit $?"
count log-kill
