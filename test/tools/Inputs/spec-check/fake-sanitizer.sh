#!/bin/sh
# A stand-in for compute-sanitizer in lit tests (no GPU here): it takes the
# options spec --check gives, writes FAKE_SANITIZER_LOG (a report recorded
# from compute-sanitizer on the H200) to --log-file with %p replaced, and
# runs the worker's command that follows the options. The real sanitizer
# runs in test/gpu (spec-check.test).
log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log=$2; shift 2 ;;
    --*) shift 2 ;;
    *) break ;;
  esac
done
[ -n "$log" ] || { echo "fake-sanitizer: no --log-file" >&2; exit 2; }
log=$(echo "$log" | sed "s/%p/$$/")
cat "${FAKE_SANITIZER_LOG:?}" > "$log"
exec "$@"
