// Times two expert rewrites against their originals outside the optimiser
// (cudaEvent, median of 21 launches after a warm-up; the outputs compared
// bitwise). Generate the rewritten kernels beside this file first:
//   F=build/bin/forge-port N=utils/bench/naive D=bundle/qbench
//   $F propose $N/zmarch.cu --spec $N/zmarch.json --rules=stencil-z-march --apply -o $D/zmarch_new.cu
//   $F propose $N/minmax.cu --spec $N/minmax.json --rules=hierarchical-reduction --apply -o $D/minmax_new.cu
//   cp utils/bench/pairs/zmarch_minmax.cu $D/bench.cu && nvcc -arch=sm_90 -O3 $D/bench.cu -o $D/bench
// Results: docs/runs/2026-12-06-seventh-session.md.

#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cuda_runtime.h>
namespace o1 {
#include "../../utils/bench/naive/zmarch.cu"
}
namespace n1 {
#include "zmarch_new.cu"
}
namespace o2 {
#include "../../utils/bench/naive/minmax.cu"
}
namespace n2 {
#include "minmax_new.cu"
}
template <class F> float med(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  f(); cudaDeviceSynchronize();
  for (int r = 0; r < 21; ++r) {
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
  }
  std::sort(t.begin(), t.end()); return t[10];
}
int main() {
  const int X = 512, Y = 512, Z = 256; size_t n = (size_t)X * Y * Z;
  float *in, *o1b, *o2b; cudaMalloc(&in, n * 4); cudaMalloc(&o1b, n * 4); cudaMalloc(&o2b, n * 4);
  std::vector<float> h(n); for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 2654435761u) % 1000) / 500.f - 1.f;
  cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemset(o1b, 0, n * 4); cudaMemset(o2b, 0, n * 4);
  dim3 b(32, 8), g((X + 31) / 32, (Y + 7) / 8);
  float t1 = med([&] { o1::lap3d<<<g, b>>>(in, o1b, X, Y, Z); });
  float t2 = med([&] { n1::lap3d<<<g, b>>>(in, o2b, X, Y, Z); });
  std::vector<float> r1(n), r2(n);
  cudaMemcpy(r1.data(), o1b, n * 4, cudaMemcpyDeviceToHost); cudaMemcpy(r2.data(), o2b, n * 4, cudaMemcpyDeviceToHost);
  size_t diff = 0; for (size_t i = 0; i < n; ++i) diff += memcmp(&r1[i], &r2[i], 4) != 0;
  printf("zmarch 512x512x256 f32: original %.4f ms, rewritten %.4f ms, speed-up %.2fx, %.0f GB/s, differing elements %zu\n",
         t1, t2, t1 / t2, 8.0 * n / t2 / 1e6, diff);
  const int N = 1 << 26; int *v, *lo, *hi; cudaMalloc(&v, N * 4); cudaMalloc(&lo, 4); cudaMalloc(&hi, 4);
  std::vector<int> hv(N); for (int i = 0; i < N; ++i) hv[i] = (int)((i * 2654435761u) % 2000001) - 1000000;
  cudaMemcpy(v, hv.data(), N * 4ull, cudaMemcpyHostToDevice);
  int init[2] = {2147483647, (int)0x80000000}, res[2][2];
  auto reset = [&] { cudaMemcpyAsync(lo, &init[0], 4, cudaMemcpyHostToDevice); cudaMemcpyAsync(hi, &init[1], 4, cudaMemcpyHostToDevice); };
  reset(); cudaDeviceSynchronize();
  float m1 = med([&] { o2::minmax<<<(N + 255) / 256, 256>>>(v, N, lo, hi); });
  reset(); o2::minmax<<<(N + 255) / 256, 256>>>(v, N, lo, hi); cudaMemcpy(&res[0][0], lo, 4, cudaMemcpyDeviceToHost); cudaMemcpy(&res[0][1], hi, 4, cudaMemcpyDeviceToHost);
  int G = 4 * 132 * 8;
  float m2 = med([&] { n2::minmax<<<G, 256>>>(v, N, lo, hi); });
  float m3 = med([&] { n2::minmax<<<(N + 255) / 256, 256>>>(v, N, lo, hi); });
  reset(); n2::minmax<<<G, 256>>>(v, N, lo, hi); cudaMemcpy(&res[1][0], lo, 4, cudaMemcpyDeviceToHost); cudaMemcpy(&res[1][1], hi, 4, cudaMemcpyDeviceToHost);
  printf("minmax 64M i32: original %.4f ms, rewritten (grid %d) %.4f ms, speed-up %.2fx, %.0f GB/s; rewritten on the original grid %.4f ms; min/max %d %d vs %d %d\n",
         m1, G, m2, m1 / m2, 4.0 * N / m2 / 1e6, m3, res[0][0], res[0][1], res[1][0], res[1][1]);
  return 0;
}
