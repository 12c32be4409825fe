#!/usr/bin/env bash
# ctest's 'lit-gpu' test: runs the lit tests under test/gpu when a GPU
# answers, and otherwise exits 77, which ctest reports as skipped, so the
# skip is visible in every test run.
#   run-gpu-tests.sh <lit> <lit-test-dir>
set -u
lit="$1"; dir="$2"
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU answered 'nvidia-smi -L': the GPU tests (test/gpu) are skipped"
  exit 77
fi
exec "$lit" -sv "$dir/gpu"
