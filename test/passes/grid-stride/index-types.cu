// REQUIRES: cuda
// The loop index is as wide as the bound, and never narrower than 64 bits,
// so that adding the stride cannot overflow.
// RUN: forge-port propose %s --kernel fill_u --rules=grid-stride --apply 2>/dev/null | FileCheck %s --check-prefix=U --match-full-lines
// RUN: forge-port propose %s --kernel fill_z --rules=grid-stride --apply 2>/dev/null | FileCheck %s --check-prefix=Z --match-full-lines
// RUN: forge-port propose %s --kernel fill_z --rules=grid-stride --apply -o %t.cu 2>/dev/null
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o /dev/null

__global__ void fill_u(unsigned *out, unsigned n) {
  unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[i] = i;
}
// U: for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) out[i] = i;

__global__ void fill_z(float *out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (n > i) out[i] = 1.f;
}
// Z: for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; n > i; i += (size_t)blockDim.x * gridDim.x) out[i] = 1.f;
