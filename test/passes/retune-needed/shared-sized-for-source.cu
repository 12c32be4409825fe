// A tile sized for sm_90's 228 KB per SM fits fewer blocks on sm_80's 164 KB.
// RUN: forge-port port --checks=retune-needed --from sm_90 --to sm_80 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// The other way round nothing is lost.
// RUN: forge-port port --checks=retune-needed --from sm_80 --to sm_90 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=UP --implicit-check-not='{{warning|error}}:'

__global__ void tiled(float *x) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = x[threadIdx.x];
}

void run(float *x) {
  tiled<<<1024, 256, 100 * 1024>>>(x);
  // DIAG: [[@LINE-1]]:3: warning: 'tiled' uses 102400 bytes of shared memory per block, sized for sm_90 (2 blocks and 25% occupancy per SM there); on sm_80 it fits 1 blocks (12%); retune the tile sizes or pipeline depth for sm_80 [retune-needed]
  // DIAG: [[@LINE-2]]:3: note: predicted from the Arch database, registers not counted; with a sm_80 GPU present, 'forge-port tune' measures it
  tiled<<<1024, 256, 16 * 1024>>>(x);
}
// UP: 0 error(s), 0 warning(s) for sm_90
