// Runtime calls absent from CUDA 13's headers (generated_cudart_removed_meta.h
// keeps their parameter lists): cudaSetDoubleForDevice/Host (deprecated in
// 7.5, gone in 13.0) did nothing on a GPU with doubles, which every GPU CUDA
// 13 supports has, so a call that is a statement of its own is deleted and
// the output compiles with nvcc. The rest has no mechanical rewrite and is
// reported with advice: the execution-control calls that <<<...>>> lowered to
// (deprecated in 7.0, gone since 10.1), the texture and surface reference
// calls the texture-references prelude does not declare (gone in 12.0),
// cudaProfilerInitialize with its output modes (gone in 12.0) and the last
// multi-device cooperative launch flag (gone in 13.0). Clang's "use of
// undeclared identifier" is reported by the pass instead, once.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='error:' --implicit-check-not='undeclared identifier' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.report.cu -- -DREPORT > %t.report.log 2>&1
// RUN: FileCheck %s --check-prefix=REPORT --implicit-check-not='undeclared identifier' --implicit-check-not='unknown type name' --input-file=%t.report.log

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != cudaSuccess)                                                    \
      return 1;                                                                \
  } while (0)

__global__ void axpy(float a, float *x) { x[threadIdx.x] *= a; }

int doubles(double *d) {
  // DIAG-DAG: removed-runtime.cu:[[@LINE+1]]:3: error: 'cudaSetDoubleForDevice' was removed in CUDA 13 (deprecated since CUDA 7.5); it did nothing on a GPU with double-precision arithmetic, which every GPU CUDA 13 supports has; delete the call [cuda13-removed-api]
  cudaSetDoubleForDevice(d);
  axpy<<<1, 32>>>(2.0f, nullptr);
  { cudaSetDoubleForHost(&d[1]); }
  // DIAG-DAG: removed-runtime.cu:[[@LINE-1]]:5: error: 'cudaSetDoubleForHost' was removed in CUDA 13 (deprecated since CUDA 7.5); it did nothing
  // FIX: int doubles(double *d) {
  // FIX-NEXT: // {{DIAG}}-DAG: removed-runtime.cu:{{.*}}
  // FIX-NEXT: axpy<<<1, 32>>>(2.0f, nullptr);
  // FIX-NEXT: { }
#ifdef REPORT
  CHECK(cudaSetDoubleForDevice(d));
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:9: error: 'cudaSetDoubleForDevice' was removed in CUDA 13 (deprecated since CUDA 7.5); it did nothing
  // REPORT-DAG: removed-runtime.cu:[[@LINE-2]]:9: note: not rewritten: the call is not a statement of its own in a block (its result is used, or it is the body of an if or a loop); it returned cudaSuccess
  if (d)
    cudaSetDoubleForHost(d);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:5: note: not rewritten: the call is not a statement of its own in a block
  cudaSetDoubleForHost(d++);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: note: not rewritten: its argument has side effects

  // The launch that <<<...>>> lowered to before CUDA 9.2.
  float a = 2.0f;
  float *x = nullptr;
  cudaConfigureCall(dim3(1), dim3(32), 0, 0);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: error: 'cudaConfigureCall' was removed in CUDA 10.1 (deprecated since CUDA 7.0); launch the kernel with kernel<<<grid, block, sharedMem, stream>>>(args...) or cudaLaunchKernel(kernel, grid, block, args, sharedMem, stream) [cuda13-removed-api]
  // REPORT-DAG: removed-runtime.cu:[[@LINE-2]]:3: note: not rewritten: the launch spans cudaConfigureCall, a cudaSetupArgument per argument and cudaLaunch
  cudaSetupArgument(&a, sizeof a, 0);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: error: 'cudaSetupArgument' was removed in CUDA 10.1 (deprecated since CUDA 7.0); launch the kernel with
  cudaSetupArgument(&x, sizeof x, 8);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: error: 'cudaSetupArgument' was removed in CUDA 10.1
  cudaLaunch((const void *)axpy);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: error: 'cudaLaunch' was removed in CUDA 10.1 (deprecated since CUDA 7.0)
  // Clang's guess for the name, cuda.h's cuLaunch, adds an error of its own.
  // REPORT-DAG: removed-runtime.cu:[[@LINE-3]]:14: error: cannot initialize a parameter of type 'CUfunction'
#endif
  return 0;
}

#ifdef REPORT
int references(cudaMipmappedArray_t levels, const void *symbol) {
  const textureReference *tex = nullptr;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaBindTextureToMipmappedArray(tex, levels, &desc);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: error: 'cudaBindTextureToMipmappedArray' was removed in CUDA 12.0 (deprecated since CUDA 11); bind the mipmapped array to a texture object: cudaCreateTextureObject with a cudaResourceDesc of resType cudaResourceTypeMipmap [cuda13-removed-api]
  // REPORT-DAG: removed-runtime.cu:[[@LINE-2]]:3: note: not rewritten: the texture reference it binds must become a texture object first, by hand
  // REPORT-DAG: removed-runtime.cu:[[@LINE-3]]:40: error: cannot initialize a parameter of type 'cudaArray_const_t'
  const surfaceReference *surf = nullptr;
  cudaGetSurfaceReference(&surf, symbol);
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: error: 'cudaGetSurfaceReference' was removed in CUDA 12.0 (deprecated since CUDA 11); use a surface object (cudaSurfaceObject_t, created with cudaCreateSurfaceObject) instead of the surface reference [cuda13-removed-api]
  // REPORT-DAG: removed-runtime.cu:[[@LINE-2]]:3: note: not rewritten: the surface reference must become a surface object, by hand
  // REPORT-DAG: removed-runtime.cu:[[@LINE-3]]:27: error: cannot initialize a parameter of type 'const struct textureReference **'
  return 0;
}

int profile() {
  cudaOutputMode_t csv = cudaCSV;
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:3: error: 'cudaOutputMode_t' was removed in CUDA 12.0 (deprecated since CUDA 11.0); profiling is configured by the profiler (Nsight Systems, Nsight Compute); keep cudaProfilerStart/cudaProfilerStop to delimit the range [cuda13-removed-api]
  // REPORT-DAG: removed-runtime.cu:[[@LINE-2]]:26: error: 'cudaCSV' was removed in CUDA 12.0
  // An argument with an error of its own: Clang does not report the
  // undeclared callee; the pass does.
  CHECK(cudaProfilerInitialize("profiler.cfg", "profile.out", cudaKeyValuePair));
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:9: error: 'cudaProfilerInitialize' was removed in CUDA 12.0 (deprecated since CUDA 11.0); profiling is configured by the profiler (Nsight Systems, Nsight Compute); keep cudaProfilerStart/cudaProfilerStop to delimit the range [cuda13-removed-api]
  // REPORT-DAG: removed-runtime.cu:[[@LINE-2]]:9: note: not rewritten: nothing in CUDA 13 does the same
  // REPORT-DAG: removed-runtime.cu:[[@LINE-3]]:63: error: 'cudaKeyValuePair' was removed in CUDA 12.0
  return cudaLaunchCooperativeKernel((const void *)axpy, 1, 32, nullptr, 0,
                                     cudaCooperativeLaunchMultiDeviceNoPostSync) != cudaSuccess;
  // REPORT-DAG: removed-runtime.cu:[[@LINE-1]]:38: error: 'cudaCooperativeLaunchMultiDeviceNoPostSync' was removed in CUDA 13 (deprecated since CUDA 11.3); launch the kernel on each device with cudaLaunchCooperativeKernel; a grid-wide barrier across devices (this_multi_grid) has no replacement [cuda13-removed-api]
}
#endif

// BEFORE: error
// DIAG: removed-runtime.cu: 2 error(s), 0 warning(s) for sm_90; 2 fixed; nvcc compiles the patched file for sm_90
// REPORT: removed-runtime.cu: 19 error(s) (16 from the passes, 3 from Clang's parse), 0 warning(s) for sm_90; 2 fixed
