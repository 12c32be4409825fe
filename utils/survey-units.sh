#!/usr/bin/env bash
# The translation units of a source tree, one per line (./path/to/file.cu,
# sorted): the .cu files whose name no file of the tree #includes (as
# "kernel.cu" or <kernel.cu>). Shared by
# utils/port-survey.sh, utils/port-survey-project.sh and utils/port-recall.sh.
#
#   utils/survey-units.sh TREE
set -uo pipefail
cd "$1" || exit 1
included=$(grep -rhoE '#include *["<][^">]+\.cu[">]' --include='*.cu' --include='*.cuh' --include='*.h' \
             --include='*.c' --include='*.cpp' . | sed -E 's/.*["<](.*)[">]/\1/' | xargs -rn1 basename | sort -u)
find . -name '*.cu' ! -name '*.forge.cu' | sort | while read -r f; do
  printf '%s\n' "$included" | grep -qxF "$(basename "$f")" || printf '%s\n' "$f"
done
