// Code the preprocessor skips for the target is reported as inactive for
// that target, since it may be active for another.
// RUN: forge-port list --arch sm_80 %s -- %cuda_mock_flags | FileCheck %s --check-prefix=SM80
// RUN: forge-port list --arch sm_90a %s -- %cuda_mock_flags | FileCheck %s --check-prefix=SM90A

__global__ void gemm(float *c) {
#if __CUDA_ARCH__ >= 900
  asm volatile("wgmma.fence.sync.aligned;\n");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
#else
  c[threadIdx.x] = 0.0f;
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__global__ void hopperOnly(float *c) { c[0] = 1.0f; }
#endif

// SM80: (read for sm_80): 2 kernels
// SM80:      gemm
// SM80:        inactive for sm_80: inline-asm, setmaxnreg, wgmma
// SM80:      hopperOnly  [inactive for sm_80]
// SM80:      Inactive for sm_80 (preprocessor)
// SM80-NEXT:   list-inactive.cu:7-10  features: inline-asm, setmaxnreg, wgmma
// SM80-NEXT:   list-inactive.cu:15-17  kernels: hopperOnly

// SM90A: (read for sm_90a): 2 kernels
// SM90A:      gemm
// SM90A-NEXT:   void gemm(float *c)
// SM90A-NEXT:   features: inline-asm, setmaxnreg, wgmma
// SM90A:      hopperOnly
// SM90A-NOT:  inactive
