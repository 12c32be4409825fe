// Literal L2 and shared-memory sizes of one GPU.
// RUN: forge-port port --checks=hardware-constants --to sm_100 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'

const size_t kL2Bytes = 60 * 1024 * 1024;
// DIAG: [[@LINE-1]]:25: warning: hard-coded 62914560 is the L2 size of an H200 (60 MB); query cudaDevAttrL2CacheSize with cudaDeviceGetAttribute instead [hardware-constants]
const int kSmemPerSm = 233472;
// DIAG: [[@LINE-1]]:24: warning: hard-coded 233472 is the shared memory per SM of an H100/H200/B200 (228 KB); query cudaDevAttrMaxSharedMemoryPerMultiprocessor with cudaDeviceGetAttribute instead [hardware-constants]
const int kOther = 1024 * 1024;
