#!/bin/sh
# A stand-in for `forge-worker exec` that dies in the ways a real child can,
# chosen by the candidate's id:
#   ok*      writes an ok line        segv*    dies of SIGSEGV
#   cudaerr* writes its crashed line and the cuda-error message, exits 3
#   hang*    never finishes           exit2    exits 2 (a plan error)
# It always "runs" the reference (the first id of the plan, named by
# FAKE_REF) first, as the real child does.
# With FAKE_ENV_OUT set it writes its environment there and makes its
# private directory JOB/sandbox-tmp (the supervisor removes it).
# usage: fake-worker.sh JOB --only IDS --process N
job=$1; ids=$3; proc=$5
if [ -n "$FAKE_ENV_OUT" ]; then
  env >"$FAKE_ENV_OUT"
  mkdir -p "$job/sandbox-tmp/cuda-cache" && : >"$job/sandbox-tmp/cuda-cache/x"
fi
ref=${FAKE_REF:-ref}
line() { printf '{"type":"candidate","id":"%s","status":"%s","process":%s}\n' "$1" "$2" "$proc" >>"$job/results.jsonl"; }
run_one() {
  printf '%s\n' "$1" >"$job/progress"
  case $1 in
    segv*) kill -SEGV $$ ;;
    cudaerr*)
      echo "forge-worker: cuda-error: an illegal memory access was encountered" >&2
      printf '{"type":"candidate","id":"%s","status":"crashed","error":"an illegal memory access was encountered","process":%s}\n' "$1" "$proc" >>"$job/results.jsonl"
      exit 3 ;;
    hang*) exec sleep 60 ;;
    exit2) echo "job.plan:3: bad" >&2; exit 2 ;;
  esac
}
run_one "$ref"
case ",$ids," in *",$ref,"*) line "$ref" ok ;; esac
for id in $(echo "$ids" | tr ',' ' '); do
  [ "$id" = "$ref" ] && continue
  run_one "$id"
  line "$id" ok
done
exit 0
