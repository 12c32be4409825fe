// REQUIRES: cuda
// A float triad: 16-byte loads and stores in a grid-stride loop over float4,
// a scalar loop for the rest, a run-time alignment check, and a spec change
// that launches a quarter of the blocks.
// RUN: forge-port propose %s --kernel triad --rules=vectorize --spec %S/Inputs/triad.json --apply -o %t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

__global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = b[i] + s * c[i];
  }
}
// FIX:      __global__ void triad(float *a, const float *b, const float *c, float s, int n) {
// FIX-NEXT:   // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
// FIX-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// FIX-NEXT:   const long long forge_n = n;
// FIX-NEXT:   const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:   const long long forge_stride = (long long)blockDim.x * gridDim.x;
// FIX-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(a) | reinterpret_cast<size_t>(b) | reinterpret_cast<size_t>(c)) % 16) == 0;
// FIX-NEXT:   const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
// FIX-NEXT:   for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// FIX-NEXT:     float4 forge_a;
// FIX-NEXT:     const float4 forge_b = reinterpret_cast<const float4 *>(b)[forge_v];
// FIX-NEXT:     const float4 forge_c = reinterpret_cast<const float4 *>(c)[forge_v];
// FIX-NEXT:     {
// FIX-NEXT:       forge_a.x = forge_b.x + s * forge_c.x;
// FIX-NEXT:     }
// FIX:            forge_a.w = forge_b.w + s * forge_c.w;
// FIX-NEXT:     }
// FIX-NEXT:     reinterpret_cast<float4 *>(a)[forge_v] = forge_a;
// FIX-NEXT:   }
// FIX-NEXT:   for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride) {
// FIX-NEXT:     a[i] = b[i] + s * c[i];
// FIX-NEXT:   }
// FIX-NEXT: }

// NOTE: forge-port: note: applied expert:vectorize: 16-byte accesses (float4) to a, b, c
// NOTE: forge-port: note: vectorize: spec: grid.x -> ceil_div(ceil_div(N, 256), 4)
// NOTE-NOT: FORGE_GRID_WAVES
// NOTE: forge-port: note: vectorize: spec: why: each thread handles 4 elements per step and the loops cover all n elements for any grid, so 1/4 of the blocks suffice
// PTX: ld.global.v4.f32
// PTX: ld.global.v4.f32
// PTX: st.global.v4.f32
