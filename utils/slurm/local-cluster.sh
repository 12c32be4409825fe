#!/usr/bin/env bash
# A single-node Slurm cluster in one directory, for the cluster executor's
# tests (test/slurm) and for trying `--executor slurm` on one machine
# (docs/cluster.md). Debian's slurm-wlm and munge; nothing is installed, and
# nothing outside DIR is written but a /usr/sbin/slurmstepd link where only
# Debian's slurmstepd-wlm is there (see below).
#
#   utils/slurm/local-cluster.sh start DIR [PARTITION...]   (default: sm_90)
#   utils/slurm/local-cluster.sh stop DIR
#   utils/slurm/local-cluster.sh run DIR PARTITION... -- COMMAND [ARG...]
#
# `run` starts the cluster, runs COMMAND with SLURM_CONF set, stops the
# cluster whatever COMMAND did, and exits with COMMAND's status.
#
# `start` generates a munge key, a slurm.conf on free ports with
# ProctrackType=proctrack/linuxproc and TaskPlugin=task/none, one node (this
# host) with one GPU in gres (File=/dev/null: a slot to schedule, not a
# device), a partition per name given, starts munged, slurmctld and slurmd
# as the current user, waits until the node is idle, and prints
# "export SLURM_CONF=DIR/slurm.conf". slurmd needs root.
#
# GPU_FILE=/dev/nvidia0 makes the gres slot that device (a GPU machine).
#
# Where the packages cannot be installed but can be unpacked (the GPU
# machine: `dpkg -x` of the Debian packages into /), the daemons are found
# under Debian's own names (slurmd-wlm, ...), which the package's
# alternatives would otherwise link.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
[[ -n $cmd && -n $dir ]] || { echo "usage: $0 start|stop DIR [PARTITION...]" >&2; exit 2; }
shift 2

find_daemon() {
  local where
  for where in "$(command -v "$1" 2>/dev/null)" "/usr/sbin/$1" "/usr/sbin/$1-wlm"; do
    [[ -n $where && -x $where ]] && { echo "$where"; return 0; }
  done
  return 1
}

stop() {
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munge/munged.pid; do
    [[ -f $pidfile ]] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
  done
  # Wait for them to go, so that the next cluster can take the ports.
  for _ in $(seq 50); do
    alive=0
    for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munge/munged.pid; do
      [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null && alive=1
    done
    [[ $alive == 0 ]] && break
    sleep 0.1
  done
  # Array tasks that outlived slurmd.
  pkill -f "$dir/array-" 2>/dev/null || true
}

run_args=()
case $cmd in
stop) stop; exit 0 ;;
start) ;;
run)
  parts=()
  while [[ $# -gt 0 && $1 != -- ]]; do parts+=("$1"); shift; done
  [[ ${1:-} == -- ]] || { echo "usage: $0 run DIR PARTITION... -- COMMAND" >&2; exit 2; }
  shift
  run_args=("$@")
  set -- "${parts[@]}"
  ;;
*) echo "usage: $0 start|stop|run DIR [PARTITION...]" >&2; exit 2 ;;
esac

partitions=("$@")
[[ ${#partitions[@]} -gt 0 ]] || partitions=(sm_90)
for d in munged slurmctld slurmd; do
  find_daemon "$d" >/dev/null || { echo "local-cluster: $d not found (apt-get install slurm-wlm munge)" >&2; exit 3; }
done
[[ $(id -u) == 0 ]] || { echo "local-cluster: slurmd needs root" >&2; exit 3; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/munge" "$dir/sbin"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port d_port < <(python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
EOF
)
host=$(hostname -s)
user=$(id -un)
cpus=$(nproc)
{
  echo "ClusterName=forge-test"
  echo "SlurmctldHost=$host"
  echo "SlurmUser=$user"
  echo "SlurmdUser=root"
  echo "AuthType=auth/munge"
  echo "CredType=cred/munge"
  echo "AuthInfo=socket=$dir/munge/munge.socket"
  echo "StateSaveLocation=$dir/state"
  echo "SlurmdSpoolDir=$dir/spool"
  echo "SlurmctldPidFile=$dir/slurmctld.pid"
  echo "SlurmdPidFile=$dir/slurmd.pid"
  echo "SlurmctldLogFile=$dir/log/slurmctld.log"
  echo "SlurmdLogFile=$dir/log/slurmd.log"
  echo "SlurmctldPort=$ctld_port"
  echo "SlurmdPort=$d_port"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "MpiDefault=none"
  echo "SchedulerType=sched/backfill"
  # Start queued tasks as soon as the node frees: the default delays batch
  # scheduling by 3 s, which a test cluster of one GPU spends per task.
  echo "SchedulerParameters=batch_sched_delay=0,bf_interval=1"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_Core"
  echo "GresTypes=gpu"
  echo "ReturnToService=2"
  echo "JobAcctGatherType=jobacct_gather/none"
  echo "AccountingStorageType=accounting_storage/none"
  echo "JobCompType=jobcomp/none"
  echo "SlurmctldTimeout=30"
  echo "SlurmdTimeout=30"
  echo "InactiveLimit=0"
  echo "MinJobAge=300"
  echo "KillWait=2"
  echo "NodeName=$host CPUs=$cpus Gres=gpu:1 State=UNKNOWN"
  default=YES
  for p in "${partitions[@]}"; do
    echo "PartitionName=$p Nodes=$host Default=$default MaxTime=INFINITE State=UP"
    default=NO
  done
} >"$dir/slurm.conf"
echo "NodeName=$host Name=gpu File=${GPU_FILE:-/dev/null}" >"$dir/gres.conf"
# slurmd sets up cgroups even with proctrack/linuxproc and task/none; on a
# machine without systemd (containers) it must make the directories itself.
printf 'CgroupPlugin=autodetect\nIgnoreSystemd=yes\n' >"$dir/cgroup.conf"

export SLURM_CONF=$dir/slurm.conf
# Slurm's daemons know what they are by the name they were started as:
# under "slurmctld-wlm" the controller leaves the nodes' gres out. Debian's
# binaries are started through links with the short names.
mkdir -p "$dir/sbin"
daemon() { # NAME: the path to start NAME by
  local p
  p=$(find_daemon "$1")
  if [[ $(basename "$p") != "$1" ]]; then
    ln -sf "$p" "$dir/sbin/$1"
    p=$dir/sbin/$1
  fi
  echo "$p"
}
# slurmd starts slurmstepd from the path it was built with.
if [[ ! -e /usr/sbin/slurmstepd && -x /usr/sbin/slurmstepd-wlm ]]; then
  ln -s slurmstepd-wlm /usr/sbin/slurmstepd
fi
launch() { # NAME LOG ARGS...: start a daemon; if it fails, say why and stop
  local name=$1 log=$2
  shift 2
  if ! "$(daemon "$name")" "$@"; then
    echo "local-cluster: $name did not start; the end of $log:" >&2
    grep -v pmix "$log" 2>/dev/null | tail -8 >&2
    stop
    exit 1
  fi
}
launch munged "$dir/log/munged.log" --socket="$dir/munge/munge.socket" \
  --key-file="$dir/munge/munge.key" --log-file="$dir/log/munged.log" \
  --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" --force
launch slurmctld "$dir/log/slurmctld.log" -f "$SLURM_CONF"
launch slurmd "$dir/log/slurmd.log" -f "$SLURM_CONF"

# Ready when the node is idle.
for _ in $(seq 100); do
  state=$(sinfo --noheader --format=%t 2>/dev/null | head -1 || true)
  if [[ $state == idle ]]; then
    if [[ $cmd == start ]]; then
      echo "export SLURM_CONF=$SLURM_CONF"
      exit 0
    fi
    trap stop EXIT
    set +e
    "${run_args[@]}"
    exit $?
  fi
  sleep 0.2
done
echo "local-cluster: the node did not become idle (state '${state:-none}'); see $dir/log" >&2
tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
stop
exit 1
