#!/usr/bin/env bash
# Makes .legacy/ (ignored by git) for utils/gpu/legacy-check.sh: SHOC as
# fetched (its ./configure run for config/config.h) and SHOC ported by this
# build's forge-port in project mode. SHOC is not part of this repository:
# give its git directory (a bare mirror is fine) or an unpacked tree.
#
#   utils/gpu/make-legacy.sh /work/.mirror/vetter+shoc/repo
#
# Replaces only .legacy/shoc-orig and .legacy/shoc; the Rodinia trees are
# made by utils/gpu/make-legacy-rodinia.sh.
set -euo pipefail
src=${1:?the SHOC git directory or tree}
root=$(cd "$(dirname "$0")/../.." && pwd)
fp=${FORGE_PORT:-$root/build/bin/forge-port}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -d "$src/src/cuda" ]; then
  cp -r "$src/." "$work/"
else
  git --git-dir="$src" archive HEAD | tar x -C "$work"
fi
(cd "$work" && PATH=${CUDA_PATH:-/usr/local/cuda}/bin:$PATH ./configure --without-opencl \
   --without-mpi > configure.log 2>&1) || { tail -20 "$work/configure.log"; exit 1; }
rm -rf "$root/.legacy/shoc-orig" "$root/.legacy/shoc" && mkdir -p "$root/.legacy/shoc-orig/config"
cp -r "$work/src/." "$root/.legacy/shoc-orig/"
cp "$work/config/config.h" "$root/.legacy/shoc-orig/config/"
(cd "$work" && "$fp" --all src --to sm_90 --no-validate -o "$root/.legacy/shoc/" \
   -- -Iconfig -Isrc/common -Isrc/cuda/common) 2>&1 | tail -4
mkdir -p "$root/.legacy/shoc/config" && cp "$work/config/config.h" "$root/.legacy/shoc/config/"
du -sh "$root/.legacy/shoc-orig" "$root/.legacy/shoc"
