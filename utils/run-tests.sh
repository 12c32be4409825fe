#!/usr/bin/env bash
# The whole test suite: set up (install, configure, build), then ctest runs
# the GoogleTest unit tests and the lit suite. GPU tests skip visibly
# without a GPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/utils/setup.sh" --tests
cd "$build"
ctest --output-on-failure -j "${CTEST_JOBS:-2}" "$@"
