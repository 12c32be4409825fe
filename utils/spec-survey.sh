#!/usr/bin/env bash
# Drafts a spec for every kernel of utils/bench/kernels (or DIR) with
# `forge-port spec` and compares it with the spec written by hand beside it
# (utils/spec-compare.py): each buffer's count and the threads along each
# grid dimension, at the hand-written spec's defaults.
#
#   utils/spec-survey.sh [DIR] [FORGE_PORT]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/utils/bench/kernels}"
fp="${2:-$root/build/bin/forge-port}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
specs=0 exact=0 counts=0 equal=0
for spec in "$dir"/*.json; do
  kernel=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kernel'])" "$spec")
  stem=$(basename "$spec" .json)
  src="$dir/$stem.cu"
  # A size variant (reduce_sum_64M.json) shares its kernel's file.
  [ -f "$src" ] || src="$dir/${stem%_*}.cu"
  [ -f "$src" ] || { echo "== $stem: no source"; continue; }
  specs=$((specs + 1))
  echo "== $stem ($kernel)"
  if ! "$fp" spec "$src" --kernel "$kernel" > "$tmp/draft.json" 2> "$tmp/err"; then
    echo "  forge-port spec failed: $(tail -1 "$tmp/err")"
    continue
  fi
  out=$(python3 "$root/utils/spec-compare.py" "$spec" "$tmp/draft.json")
  rc=$?
  echo "$out"
  line=$(echo "$out" | tail -1)
  e=$(echo "$line" | sed -E 's#counts ([0-9]+)/([0-9]+).*#\1#')
  t=$(echo "$line" | sed -E 's#counts ([0-9]+)/([0-9]+).*#\2#')
  equal=$((equal + e)); counts=$((counts + t))
  [ $rc -eq 0 ] && exact=$((exact + 1))
done
echo "specs: $specs; every count equal in $exact; counts equal: $equal of $counts"
