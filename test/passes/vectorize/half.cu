// REQUIRES: cuda
// 16-bit floats: CUDA has no vector of four __half or __nv_bfloat16, so the
// rewrite declares one (x, y, z, w, aligned to its 8 bytes) above the
// kernel, guarded so that a second kernel of the file reuses it; the
// header's intrinsics (__hadd, __float2half: inline asm on their operands)
// do not stop the map. A store by a class type's operator= needs no load
// first. test/gpu/rules/vectorize-half.cu runs the rewrites on a GPU.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../../gpu/Inputs/rules/half_maps.cu --kernel hadd --block 256 --rules=vectorize --apply -o %t.d/h1.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: forge-port propose %t.d/h1.cu --kernel to_half --block 256 --rules=vectorize --apply -o %t.d/h2.cu 2>&1 | FileCheck %s --check-prefix=NOTE-TO
// RUN: forge-port propose %t.d/h2.cu --kernel bf_scale --block 256 --rules=vectorize --apply -o %t.d/h3.cu 2>&1 | FileCheck %s --check-prefix=NOTE-BF
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.d/h3.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.d/h3.cu -o - | FileCheck %s --check-prefix=PTX
// NOTE: forge-port: note: applied expert:vectorize: 4-element accesses (forge_half4) to a, b, c
// NOTE-TO: forge-port: note: applied expert:vectorize: 4-element accesses (float4, forge_half4) to x, y
// NOTE-BF: forge-port: note: applied expert:vectorize: 4-element accesses (forge_bfloat164, float4) to x, y
// FIX:      // vectorize: 4 __halfs travel as one 8-byte access.
// FIX-NEXT: #ifndef FORGE_VECTOR_HALF4
// FIX-NEXT: #define FORGE_VECTOR_HALF4
// FIX-NEXT: struct alignas(8) forge_half4 {
// FIX-NEXT:   __half x, y, z, w;
// FIX-NEXT: };
// FIX-NEXT: #endif
// FIX-NEXT: __global__ void hadd(const __half *a, const __half *b, __half *c, int n) {
// FIX:          forge_half4 forge_c;
// FIX-NEXT:     { forge_c.x = __hadd(forge_a.x, forge_b.x); }
// FIX:      #ifndef FORGE_VECTOR_HALF4
// FIX:      __global__ void to_half(const float *x, __half *y, int n) {
// FIX:          const bool forge_aligned = ((reinterpret_cast<size_t>(x)) % 16) == 0 && ((reinterpret_cast<size_t>(y)) % 8) == 0;
// FIX:      struct alignas(8) forge_bfloat164 {
// FIX-NEXT:   __nv_bfloat16 x, y, z, w;
// PTX: ld.global.v4.u16
// PTX: st.global.v4.u16
// PTX: ld.global.v4.f32
// PTX: st.global.v4.u16
// PTX: ld.global.v4.u16
// PTX: st.global.v4.f32
