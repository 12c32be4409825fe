// CUDA 13.0 removed multi-device cooperative launch (release notes, Deprecated
// or Dropped Features: cudaLaunchCooperativeKernelMultiDevice from
// cuda_runtime_api.h, cudaLaunchParams from driver_types.h, this_multi_grid
// and multi_grid_group from cooperative_groups.h; the cudaDeviceProp field
// cooperativeMultiDeviceLaunch and the attribute
// cudaDevAttrCooperativeMultiDeviceLaunch "with no replacement"). Nothing
// does the same, so each use is an error with advice and no fix; Clang's
// own error for the name is not printed besides.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='undeclared identifier' --implicit-check-not='in namespace' --implicit-check-not='no member named' --implicit-check-not='[cuda13-removed-api]' --input-file=%t.log
// RUN: diff %s %t.cu

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void step(float *x) {
  cg::multi_grid_group grid = cg::this_multi_grid();
  // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-1]]:7: error: 'cooperative_groups::multi_grid_group' was removed in CUDA 13.0; multi-device grids are gone with cudaLaunchCooperativeKernelMultiDevice; synchronize the devices from the host [cuda13-removed-api]
  // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-2]]:35: error: 'cooperative_groups::this_multi_grid' was removed in CUDA 13.0
  x[threadIdx.x] += 1.0f;
  grid.sync();
}

int launch(float **buffers, cudaStream_t *streams, int devices) {
  int supported = 0;
  cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeMultiDeviceLaunch, 0);
  // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-1]]:38: error: 'cudaDevAttrCooperativeMultiDeviceLaunch' was removed in CUDA 13; multi-device cooperative launch is gone; cudaDevAttrCooperativeLaunch tells whether one device can launch a cooperative kernel [cuda13-removed-api]
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (!supported || !prop.cooperativeMultiDeviceLaunch)
    // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-1]]:27: error: 'cudaDeviceProp::cooperativeMultiDeviceLaunch' was removed in CUDA 13; multi-device cooperative launch is gone (cudaLaunchCooperativeKernelMultiDevice); cudaDevAttrCooperativeLaunch tells whether one device can launch a cooperative kernel [cuda13-removed-api]
    // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-2]]:27: note: not rewritten: CUDA 13 has no attribute that replaces it
    return 1;
  unsigned flags = cudaCooperativeLaunchMultiDeviceNoPreSync;
  // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-1]]:20: error: 'cudaCooperativeLaunchMultiDeviceNoPreSync' was removed in CUDA 13 (deprecated since CUDA 11.3)
  return cudaLaunchCooperativeKernelMultiDevice(nullptr, devices, flags);
  // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-1]]:10: error: 'cudaLaunchCooperativeKernelMultiDevice' was removed in CUDA 13 (deprecated since CUDA 11.3); launch the kernel on each device with cudaLaunchCooperativeKernel; a grid-wide barrier across devices (this_multi_grid) has no replacement [cuda13-removed-api]
  // DIAG-DAG: cooperative-multi-device.cu:[[@LINE-2]]:10: note: not rewritten: nothing in CUDA 13 does the same
}

// DIAG: cooperative-multi-device.cu: 6 error(s), 0 warning(s) for sm_90; 0 fixed
