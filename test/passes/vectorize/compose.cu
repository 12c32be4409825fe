// REQUIRES: cuda
// grid-stride then vectorize: vectorize reads grid-stride's output (a
// grid-stride loop whose body opens with `if (c) continue;`, the early
// exit's other condition) and keeps the exit per element.
// RUN: forge-port propose %s --kernel masked --rules=grid-stride --apply -o %t.gs.cu 2>/dev/null
// RUN: forge-port propose %t.gs.cu --kernel masked --rules=vectorize --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// And vectorize's output is a grid-stride loop already.
// RUN: not forge-port propose %t.cu --kernel masked --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=AGAIN

__global__ void masked(const float *x, float *y, int n, const int *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || mask[i] == 0)
    return;
  y[i] = x[i];
}
// NOTE: forge-port: note: applied expert:vectorize: 16-byte accesses (float4, int4) to x, y, mask
// FIX:          if (!(forge_mask.x == 0)) {
// FIX-NEXT:       forge_y.x = forge_x.x;
// FIX-NEXT:     }
// FIX:          reinterpret_cast<float4 *>(y)[forge_v] = forge_y;
// FIX-NEXT:   }
// FIX-NEXT:   for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride) {
// FIX-NEXT:     if (mask[i] == 0) continue;
// FIX-NEXT:     y[i] = x[i];
// FIX-NEXT:   }
// FIX-NEXT: }
// PTX: ld.global.v4.f32
// PTX: st.global.v4.f32
// AGAIN: forge-port: note: grid-stride: not applicable: the kernel already loops over a grid stride
