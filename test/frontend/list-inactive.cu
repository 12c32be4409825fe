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

#if 0
void legacyDriver(float *c) { oldKernel<<<1, 32>>>(c); }
#endif

// SM80: (read for sm_80): 2 kernels, 1 launch site
// SM80:      gemm
// SM80:        inactive for sm_80: inline-asm, setmaxnreg, wgmma
// SM80:      list-inactive.cu:16:17 {{ *}}hopperOnly  [inactive for sm_80]
// SM80:      list-inactive.cu:20:31 {{ *}}oldKernel  [chevron, unresolved, inactive for sm_80]
// SM80:      Inactive for sm_80 (preprocessor)
// SM80-NEXT:   list-inactive.cu:7-10  features: inline-asm, setmaxnreg, wgmma
// SM80-NEXT:   list-inactive.cu:15-17  kernels: hopperOnly
// SM80-NEXT:   list-inactive.cu:19-21  launches: oldKernel

// SM90A: (read for sm_90a): 2 kernels, 1 launch site
// SM90A:      gemm
// SM90A-NEXT:   void gemm(float *c)
// SM90A-NEXT:   features: inline-asm, setmaxnreg, wgmma
// SM90A:      hopperOnly
// SM90A-NEXT:   void hopperOnly(float *c)
// `#if 0` is inactive for every target.
// SM90A:      oldKernel  [chevron, unresolved, inactive for sm_90a]
