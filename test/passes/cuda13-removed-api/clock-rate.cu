// The input does not compile with CUDA 13. Each removed field is an error of
// the pass (with its fix or its reason); Clang's own "no member named" error
// for it is not printed besides (PARSE-NOT).
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='warning:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=PARSE --implicit-check-not='no member named' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// Removed cudaDeviceProp fields read from a struct that cudaGetDeviceProperties
// filled: rewritten to a cudaDeviceGetAttribute query for the same device.

int clockKHz(int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  int khz = prop.clockRate;
  // DIAG: [[@LINE-1]]:18: error: 'cudaDeviceProp::clockRate' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device) [cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:18: error: no member named 'clockRate' in 'cudaDeviceProp'
  // FIX: int khz = [&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrClockRate, dev); return v_; }();
  return khz;
}

int overlap(cudaDeviceProp *p) {
  cudaGetDeviceProperties(p, 0);
  return p->deviceOverlap + 2 * p->kernelExecTimeoutEnabled;
  // DIAG: [[@LINE-1]]:13: error: 'cudaDeviceProp::deviceOverlap' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrGpuOverlap, device) [cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:13: error: no member named 'deviceOverlap' in 'cudaDeviceProp'
  // DIAG: [[@LINE-3]]:36: error: 'cudaDeviceProp::kernelExecTimeoutEnabled' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrKernelExecTimeout, device) [cuda13-removed-api]
  // PARSE-NOT: [[@LINE-4]]:36: error: no member named 'kernelExecTimeoutEnabled' in 'cudaDeviceProp'
  // FIX: return [&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrGpuOverlap, 0); return v_; }() + 2 * [&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrKernelExecTimeout, 0); return v_; }();
}

// computeMode went in CUDA 13 too; cudaDevAttrComputeMode replaces it.
bool exclusive(int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  return prop.computeMode == 3;
  // DIAG: [[@LINE-1]]:15: error: 'cudaDeviceProp::computeMode' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, device) [cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:15: error: no member named 'computeMode' in 'cudaDeviceProp'
  // FIX: return [&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrComputeMode, dev); return v_; }() == 3;
}

// The device index declared by the loop that queries each device (Rodinia's
// gaussian): in scope at the use, and not written after the query.
int sumClocks(int count) {
  int total = 0;
  cudaDeviceProp prop;
  for (int d = 0; d < count; ++d) {
    if (cudaSuccess == cudaGetDeviceProperties(&prop, d))
      total += prop.clockRate;
    // DIAG: [[@LINE-1]]:21: error: 'cudaDeviceProp::clockRate' was removed in CUDA 13
    // FIX: total += [&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrClockRate, d); return v_; }();
  }
  return total;
}


// The device index is advanced after the use, at the end of the loop that
// queries each device (the CUDA samples' helper_cuda.h): each use still
// reads the device the query just saw.
int bestDevice(int count) {
  cudaDeviceProp prop;
  int d = 0, best = 0;
  while (d < count) {
    cudaGetDeviceProperties(&prop, d);
    if (prop.computeMode != 2)
      best = d;
    // DIAG: [[@LINE-2]]:14: error: 'cudaDeviceProp::computeMode' was removed in CUDA 13
    // FIX: if ([&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrComputeMode, d); return v_; }() != 2)
    d++;
  }
  return best;
}
