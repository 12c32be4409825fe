// REQUIRES: cuda
// double: double2 (16 bytes; CUDA 13 deprecates double4). The index used as
// a value becomes each lane's own element number; a write under a condition
// loads the vector first so that skipped lanes keep their value. Without a
// spec there is no spec change.
// RUN: forge-port propose %s --kernel ramp --rules=vectorize --apply -o %t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE --implicit-check-not=spec:
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

__global__ void ramp(const double *x, double *y, unsigned n) {
  unsigned i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    if (x[i] > 0.0)
      y[i] = x[i] * i;
}
// FIX:      const unsigned long long forge_n = n;
// FIX:      for (unsigned long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// FIX-NEXT:   const double2 forge_x = reinterpret_cast<const double2 *>(x)[forge_v];
// FIX-NEXT:   double2 forge_y = reinterpret_cast<double2 *>(y)[forge_v];
// FIX-NEXT:   { if (forge_x.x > 0.0)
// FIX-NEXT:       forge_y.x = forge_x.x * (forge_v * 2 + 0); }
// FIX-NEXT:   { if (forge_x.y > 0.0)
// FIX-NEXT:       forge_y.y = forge_x.y * (forge_v * 2 + 1); }
// FIX-NEXT:   reinterpret_cast<double2 *>(y)[forge_v] = forge_y;
// FIX-NEXT: }
// FIX-NEXT: for (unsigned long long i = forge_vectors * 2 + forge_first; i < forge_n; i += forge_stride)

// NOTE: forge-port: note: applied expert:vectorize: 16-byte accesses (double2) to x, y
// PTX: ld.global.v2.f64
// PTX: st.global.v2.f64
