#!/usr/bin/env bash
# The translation units of a source tree, one per line (./path/to/file.cu,
# sorted): the .cu files, and the C/C++ files that include the CUDA
# runtime's header, whose name no file of the tree #includes (as "kernel.cu"
# or <kernel.cu>). Shared by
# utils/port-survey.sh, utils/port-survey-project.sh and utils/port-recall.sh.
#
#   utils/survey-units.sh TREE
set -uo pipefail
cd "$1" || exit 1
included=$(grep -rhoE '#include *["<][^">]+\.cu[">]' --include='*.cu' --include='*.cuh' --include='*.h' \
             --include='*.c' --include='*.cpp' . | sed -E 's/.*["<](.*)[">]/\1/' | xargs -rn1 basename | sort -u)
{
  find . -name '*.cu' ! -name '*.forge.cu'
  # Host code that includes the CUDA runtime's header (as forge-port --all).
  find . \( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' -o -name '*.c' \) -print0 |
    xargs -0 -r grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](cuda_runtime|cuda_runtime_api|cuda)\.h[>"]'
} | sort | while read -r f; do
  printf '%s\n' "$included" | grep -qxF "$(basename "$f")" || printf '%s\n' "$f"
done
