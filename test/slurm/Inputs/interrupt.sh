#!/usr/bin/env bash
# Run inside a local cluster (utils/slurm/local-cluster.sh run): starts
# `forge-port tune ARGS...` in the background, waits until its standard
# error shows PATTERN (grep -E), then sends it SIGNAL (INT or KILL), waits
# for it to end, and prints its exit status and how many tasks the queue
# still holds.
#   interrupt.sh SIGNAL PATTERN ERRFILE ARGS...
set -u
sig=$1 pattern=$2 err=$3
shift 3
forge-port tune "$@" 2>"$err" &
pid=$!
for _ in $(seq 600); do
  grep -Eq "$pattern" "$err" 2>/dev/null && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -"$sig" $pid
wait $pid
echo "exit status $?"
echo "queued after the $sig: $(squeue --noheader | wc -l)"
