// JSON and SARIF give every position as a 1-based line and column, with the
// byte offset as an extra field: a finding's location, its notes and its
// fix-its. SARIF regions carry startLine/startColumn/endLine/endColumn and
// byteOffset/byteLength; fix-its are SARIF 'fixes' (deletedRegion plus
// insertedContent).
// RUN: not forge-port %s --to sm_90 --no-validate --format=json -- %cuda_mock_flags 2>/dev/null | FileCheck %s --check-prefix=JSON
// RUN: not forge-port %s --to sm_90 --no-validate --format=sarif -- %cuda_mock_flags 2>/dev/null | FileCheck %s --check-prefix=SARIF

__global__ void k(float *x) {
  float v = x[threadIdx.x];
  v += __shfl_xor(v, 1);
  x[threadIdx.x] = v;
}

__global__ void big(float *x) {
  __shared__ float a[8192];
  __shared__ float b[8192];
  a[threadIdx.x] = x[threadIdx.x];
  b[threadIdx.x] = a[threadIdx.x];
  x[threadIdx.x] = b[threadIdx.x];
}

// '__shfl_xor' is at line 11, column 8: byte 652 of this file.
// JSON:      "pass": "warp-sync-intrinsics",
// JSON:      "location": {
// JSON-NEXT:   "file": "{{.*}}port-positions.cu",
// JSON-NEXT:   "line": 11,
// JSON-NEXT:   "column": 8,
// JSON-NEXT:   "offset": 652
// JSON:      "fixits": [
// JSON-NEXT:   {
// JSON-NEXT:     "file": "{{.*}}port-positions.cu",
// JSON-NEXT:     "line": 11,
// JSON-NEXT:     "column": 8,
// JSON-NEXT:     "offset": 652,
// JSON-NEXT:     "end_line": 11,
// JSON-NEXT:     "end_column": 18,
// JSON-NEXT:     "end_offset": 662,
// JSON-NEXT:     "replacement": "__shfl_xor_sync"
// JSON-NEXT:   },
// JSON-NEXT:   {
// JSON-NEXT:     "file": "{{.*}}port-positions.cu",
// JSON-NEXT:     "line": 11,
// JSON-NEXT:     "column": 19,
// JSON-NEXT:     "offset": 663,
// JSON-NEXT:     "end_line": 11,
// JSON-NEXT:     "end_column": 19,
// JSON-NEXT:     "end_offset": 663,
// JSON-NEXT:     "replacement": "0xffffffff, "
// The note names the largest variable, 'a' at 16:20.
// JSON:      "pass": "shared-memory-limits",
// JSON:      "location": {
// JSON-NEXT:   "file": "{{.*}}port-positions.cu",
// JSON-NEXT:   "line": 15,
// JSON-NEXT:   "column": 17,
// JSON-NEXT:   "offset": 711
// JSON:      "notes": [
// JSON-NEXT:   {
// JSON-NEXT:     "message": "largest __shared__ variable 'a' takes 32768 bytes",
// JSON-NEXT:     "location": {
// JSON-NEXT:       "file": "{{.*}}port-positions.cu",
// JSON-NEXT:       "line": 16,
// JSON-NEXT:       "column": 20,
// JSON-NEXT:       "offset": 746
// JSON:      "fixits": []

// SARIF:      "ruleId": "warp-sync-intrinsics",
// SARIF:      "region": {
// SARIF-NEXT:   "startLine": 11,
// SARIF-NEXT:   "startColumn": 8,
// SARIF-NEXT:   "endLine": 11,
// SARIF-NEXT:   "endColumn": 18,
// SARIF-NEXT:   "byteOffset": 652,
// SARIF-NEXT:   "byteLength": 10
// SARIF:      "fixes": [
// SARIF:        "artifactChanges": [
// SARIF:          "uri": "{{.*}}port-positions.cu"
// SARIF:          "replacements": [
// SARIF-NEXT:       {
// SARIF-NEXT:         "deletedRegion": {
// SARIF-NEXT:           "startLine": 11,
// SARIF-NEXT:           "startColumn": 8,
// SARIF-NEXT:           "endLine": 11,
// SARIF-NEXT:           "endColumn": 18,
// SARIF-NEXT:           "byteOffset": 652,
// SARIF-NEXT:           "byteLength": 10
// SARIF-NEXT:         },
// SARIF-NEXT:         "insertedContent": {
// SARIF-NEXT:           "text": "__shfl_xor_sync"
// SARIF:              "deletedRegion": {
// SARIF-NEXT:           "startLine": 11,
// SARIF-NEXT:           "startColumn": 19,
// SARIF-NEXT:           "endLine": 11,
// SARIF-NEXT:           "endColumn": 19,
// SARIF-NEXT:           "byteOffset": 663,
// SARIF-NEXT:           "byteLength": 0
// SARIF-NEXT:         },
// SARIF-NEXT:         "insertedContent": {
// SARIF-NEXT:           "text": "0xffffffff, "
// SARIF:      "ruleId": "shared-memory-limits",
// SARIF-NEXT: "level": "error",
// SARIF:      "startLine": 15,
// SARIF-NEXT: "startColumn": 17,
// SARIF-NEXT: "endLine": 15,
// SARIF-NEXT: "endColumn": 20,
// SARIF-NEXT: "byteOffset": 711,
// SARIF-NEXT: "byteLength": 3
// SARIF:      "relatedLocations": [
// SARIF:          "startLine": 16,
// SARIF-NEXT:     "startColumn": 20,
// SARIF-NEXT:     "endLine": 16,
// SARIF-NEXT:     "endColumn": 21,
// SARIF-NEXT:     "byteOffset": 746,
// SARIF-NEXT:     "byteLength": 1
// SARIF:        "message": {
// SARIF-NEXT:     "text": "largest __shared__ variable 'a' takes 32768 bytes"
