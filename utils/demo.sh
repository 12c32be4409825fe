#!/usr/bin/env bash
# The main job on a bundled example: set up (install what is missing,
# build), then port examples/legacy_reduce.cu to sm_100, showing the
# diagnostics, the patch, and the result validated with nvcc.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/utils/setup.sh"
fp="$build/bin/forge-port"
example="examples/legacy_reduce.cu"
out="$build/demo"
mkdir -p "$out"
cd "$root"
printf '\n\033[1m==> forge-port list %s\033[0m\n' "$example"
"$fp" list "$example" || true
printf '\n\033[1m==> forge-port %s --to sm_100 --diff   (diagnostics on stderr, the patch on stdout)\033[0m\n' "$example"
"$fp" "$example" --to sm_100 --diff --no-validate || true
printf '\n\033[1m==> forge-port %s --to sm_100 -o %s/legacy_reduce.sm_100.cu   (applies the fixes, validates with nvcc)\033[0m\n' "$example" "$out"
status=0
"$fp" "$example" --to sm_100 -o "$out/legacy_reduce.sm_100.cu" || status=$?
printf '\n\033[1m==> the result: %s/legacy_reduce.sm_100.cu\033[0m\n' "$out"
diff -u "$example" "$out/legacy_reduce.sm_100.cu" || true
exit "$status"
