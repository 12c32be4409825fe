// __launch_bounds__(1024, 2) asks for 2048 threads per SM: sm_80 has them,
// sm_86 (1536 threads per SM) does not.
// RUN: forge-port port --checks=retune-needed --from sm_80 --to sm_86 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: forge-port port --checks=retune-needed --from sm_80 --to sm_90 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not='{{warning|error}}:'

__global__ void __launch_bounds__(1024, 2) wide(float *x) { x[threadIdx.x] = 0; }
// DIAG: [[@LINE-1]]:{{[0-9]+}}: warning: '__launch_bounds__(1024, 2)' asks for 2048 threads per SM; sm_86 runs at most 1536 threads and 16 blocks per SM, so the register budget it implies is wrong there; retune the launch bounds for sm_86 [retune-needed]
__global__ void __launch_bounds__(256, 4) narrow(float *x) { x[threadIdx.x] = 0; }
// OK: 0 error(s), 0 warning(s) for sm_90
