// The input does not compile with CUDA 13. Each removed field is an error of
// the pass (with its fix or its reason); Clang's own "no member named" error
// for it is not printed besides (PARSE-NOT).
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='warning:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=PARSE --implicit-check-not='no member named' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

// The device that the struct describes is not known here, or may have
// changed since: warn, explain, and leave the code alone.

int memClock(const cudaDeviceProp &prop) {
  return prop.memoryClockRate;
  // DIAG: [[@LINE-1]]:15: error: 'cudaDeviceProp::memoryClockRate' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device) [cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:15: error: no member named 'memoryClockRate' in 'cudaDeviceProp'
  // DIAG: [[@LINE-3]]:15: note: not rewritten: no cudaGetDeviceProperties(&prop, device) call before this use in the same function says which device 'prop' describes; pass that device to cudaDeviceGetAttribute by hand
  // FIX: return prop.memoryClockRate;
}

int lastClock(int n) {
  cudaDeviceProp prop;
  int dev = 0;
  for (dev = 0; dev < n; ++dev)
    cudaGetDeviceProperties(&prop, dev);
  return prop.clockRate;
  // DIAG: [[@LINE-1]]:15: error: 'cudaDeviceProp::clockRate' was removed{{.*}}[cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:15: error: no member named 'clockRate' in 'cudaDeviceProp'
  // DIAG: [[@LINE-3]]:15: note: not rewritten: cudaGetDeviceProperties is called in a loop that does not contain this use
  // FIX: return prop.clockRate;
}

void resetClock(int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  prop.clockRate = 0;
  // DIAG: [[@LINE-1]]:8: error: 'cudaDeviceProp::clockRate' was removed{{.*}}[cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:8: error: no member named 'clockRate' in 'cudaDeviceProp'
  // DIAG: [[@LINE-3]]:8: note: not rewritten: the field is assigned to; cudaDeviceGetAttribute yields a value
  // FIX: prop.clockRate = 0;
}

int otherDevice(int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  dev = dev + 1;
  return prop.clockRate;
  // DIAG: [[@LINE-1]]:15: error: 'cudaDeviceProp::clockRate' was removed{{.*}}[cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:15: error: no member named 'clockRate' in 'cudaDeviceProp'
  // DIAG: [[@LINE-3]]:15: note: not rewritten: 'dev' may change after cudaGetDeviceProperties
  // FIX: return prop.clockRate;
}

// After the loop, 'd' is gone: not rewritten, and the note says so.
int lastClock(int count) {
  cudaDeviceProp prop;
  for (int d = 0; d < count; ++d)
    cudaGetDeviceProperties(&prop, d);
  return prop.clockRate;
  // DIAG: [[@LINE-1]]:15: error: 'cudaDeviceProp::clockRate' was removed in CUDA 13
  // DIAG: [[@LINE-2]]:15: note: not rewritten: 'd' is not in scope at this use
  // FIX: return prop.clockRate;
}

// The device index changes in a loop between the query and the use: the
// second round reads a device the query did not see.
int drift(int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  int sum = 0;
  for (int i = 0; i < 2; ++i) {
    sum += prop.clockRate;
    // DIAG: [[@LINE-1]]:17: error: 'cudaDeviceProp::clockRate' was removed in CUDA 13
    // DIAG: [[@LINE-2]]:17: note: not rewritten: 'dev' may change after cudaGetDeviceProperties
    // FIX: sum += prop.clockRate;
    dev++;
  }
  return sum;
}

// Queried only when a condition holds: a later write is not harmless.
int maybe(int dev, bool q) {
  cudaDeviceProp prop;
  int r = 0;
  while (dev < 4) {
    if (q)
      cudaGetDeviceProperties(&prop, dev);
    r += prop.clockRate;
    // DIAG: [[@LINE-1]]:15: error: 'cudaDeviceProp::clockRate' was removed in CUDA 13
    // DIAG: [[@LINE-2]]:15: note: not rewritten: 'dev' may change after cudaGetDeviceProperties
    // FIX: r += prop.clockRate;
    ++dev;
  }
  return r;
}
