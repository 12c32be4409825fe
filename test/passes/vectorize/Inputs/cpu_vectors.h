// CUDA's vector types for running rewritten kernels on the CPU (with
// test/passes/stencil-register-rows/Inputs/cpu_grid.h): the members and
// the alignment of the real ones.
#ifndef FORGE_TEST_CPU_VECTORS_H
#define FORGE_TEST_CPU_VECTORS_H

#define FORGE_VECTOR(N, T, A)                                                                      \
  struct alignas(A) N##2 {                                                                         \
    T x, y;                                                                                        \
  };                                                                                               \
  struct alignas(2 * A) N##4 {                                                                     \
    T x, y, z, w;                                                                                  \
  };
FORGE_VECTOR(char, signed char, 2)
FORGE_VECTOR(uchar, unsigned char, 2)
FORGE_VECTOR(short, short, 4)
FORGE_VECTOR(ushort, unsigned short, 4)
FORGE_VECTOR(int, int, 8)
FORGE_VECTOR(uint, unsigned, 8)
#undef FORGE_VECTOR
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) double2 {
  double x, y;
};

#endif
