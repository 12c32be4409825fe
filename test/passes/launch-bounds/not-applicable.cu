// REQUIRES: cuda
// No block size known (none given and no launch in the file, or a launch
// with a run-time block), or bounds already there: a note and exit 1.
// RUN: not forge-port propose %s --kernel unknown --rules=launch-bounds 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not forge-port propose %s --kernel nolaunch --rules=launch-bounds 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
// RUN: not forge-port propose %s --kernel bounded --rules=launch-bounds --block 256 2>&1 | FileCheck %s --check-prefix=BOUNDED

__global__ void unknown(float *y) { y[threadIdx.x] = 0.f; }
__global__ void nolaunch(float *y) { y[threadIdx.x] = 1.f; }
__global__ void __launch_bounds__(256, 2) bounded(float *y) { y[threadIdx.x] = 0.f; }

void run(float *y, int threads) { unknown<<<1, threads>>>(y); }

// UNKNOWN: forge-port: note: launch-bounds: not applicable: the launch at line 12 has a block size known only at run time ('threads')
// NOLAUNCH: forge-port: note: launch-bounds: not applicable: the block size is not known: give --block or --spec, or launch the kernel with a constant block size in this file
// BOUNDED: forge-port: note: launch-bounds: not applicable: the kernel already has __launch_bounds__
