// Runs CUDA kernels that neither synchronise nor share memory on the CPU,
// thread by thread (the lit tests of the streaming form include the
// original and the rewritten kernels into namespaces and compare outputs).
#ifndef FORGE_TEST_CPU_GRID_H
#define FORGE_TEST_CPU_GRID_H

struct D3 {
  unsigned x = 1, y = 1, z = 1;
};
static D3 threadIdx, blockIdx, blockDim, gridDim;
using uint3 = D3;
inline D3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
#define __global__
#define __device__
#define __noinline__
static int min(int a, int b) { return a < b ? a : b; }
static int max(int a, int b) { return a > b ? a : b; }
struct float4 {
  float x, y, z, w;
};

/// Every thread of grid G with blocks B, one after another.
template <typename F> void launch(D3 G, D3 B, F Kernel) {
  gridDim = G;
  blockDim = B;
  for (unsigned Bz = 0; Bz < G.z; ++Bz)
    for (unsigned By = 0; By < G.y; ++By)
      for (unsigned Bx = 0; Bx < G.x; ++Bx)
        for (unsigned Tz = 0; Tz < B.z; ++Tz)
          for (unsigned Ty = 0; Ty < B.y; ++Ty)
            for (unsigned Tx = 0; Tx < B.x; ++Tx) {
              blockIdx = {Bx, By, Bz};
              threadIdx = {Tx, Ty, Tz};
              Kernel();
            }
}

inline unsigned ceilDiv(unsigned A, unsigned B) { return (A + B - 1) / B; }

#endif
