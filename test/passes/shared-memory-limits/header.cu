// A kernel in a project header is checked where it is declared.
// RUN: not forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'
#include "Inputs/big_tile.cuh"
void run(float *x) { headerTile<<<1, 256>>>(x); }
// CHECK: big_tile.cuh:2:17: error: kernel 'headerTile' declares 65536 bytes of static shared memory, above the 49152-byte limit per block on sm_90{{.*}}[shared-memory-limits]
// CHECK: big_tile.cuh:3:20: note: largest __shared__ variable 'tile' takes 65536 bytes
// CHECK: 1 error(s), 0 warning(s) for sm_90
