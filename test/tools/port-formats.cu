// --format=json and --format=sarif carry the findings on stdout; --diff
// prints a patch that `patch -p1` applies; --warnings-as-errors fails the run.
// RUN: not forge-port %s --to sm_90 --no-validate --format=json -- %cuda_mock_flags 2>/dev/null | FileCheck %s --check-prefix=JSON
// RUN: not forge-port %s --to sm_90 --no-validate --format=sarif -- %cuda_mock_flags 2>/dev/null | FileCheck %s --check-prefix=SARIF
// RUN: rm -rf %t && mkdir -p %t/a && cp %s %t/a/k.cu
// RUN: cd %t/a && forge-port k.cu --to sm_90 --no-validate --diff -- %cuda_mock_flags 2>/dev/null > %t/k.diff
// RUN: cd %t/a && patch -p1 < %t/k.diff && FileCheck %s --check-prefix=PATCHED --input-file=%t/a/k.cu
// RUN: not forge-port %s --to sm_90 --no-validate --warnings-as-errors -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=WERR

__global__ void k(float *x) {
  float v = x[threadIdx.x];
  v += __shfl_xor(v, 1);
  x[threadIdx.x] = v;
}

// The input still has the parse errors the fixes would remove: exit 1.
// JSON:      "target": "sm_90",
// JSON:      "pass": "warp-sync-intrinsics",
// JSON-NEXT: "severity": "warning",
// JSON-NEXT: "message": "'__shfl_xor' was removed in CUDA 13; use '__shfl_xor_sync'",
// JSON:      "fixed": true
// JSON:      "patched": true,

// SARIF:      "version": "2.1.0",
// SARIF:      "name": "forge-port",
// SARIF:      "ruleId": "warp-sync-intrinsics",
// SARIF-NEXT: "level": "warning",
// SARIF:      "startLine": 12,

// PATCHED: v += __shfl_xor_sync(0xffffffff, v, 1);

// WERR: error: '__shfl_xor' was removed in CUDA 13; use '__shfl_xor_sync' [warp-sync-intrinsics]
