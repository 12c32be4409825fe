// Micro-benchmark: histograms of bytes into few bins, where the per-byte
// work after the load (a shared atomic per byte) bounds histogram-privatize's
// rewrites below the DRAM roofline (docs/bench/naive-h200.md: letters,
// hist_image). Two computations: letter counts (26 bins, bytes 'a'..'z'
// only) and 64 levels (byte >> 2). Variants of the per-block copy:
//   one     one shared copy, atomicAdd per byte (what the rule keeps today)
//   lanes   32 copies [bin][lane], atomicAdd per byte
//   thread  a private column per thread, [bin][thread], plain ++ (no atomic:
//           the column is the thread's own), 32-bit counters
//   one2 / thread2   the same, two 16-byte loads in flight per step
// Not a test: a profiling aid, run by hand on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o fb few-bins-variants.cu && ./fb [log2 N]
// Every variant is checked against a CPU histogram of the same bytes.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// The bin of a byte, or -1: letters ('a'..'z' -> 0..25) or levels (>> 2).
template <int Kind> __device__ __forceinline__ int binOf(unsigned b) {
  if (Kind == 0)
    return b - 'a' < 26u ? int(b - 'a') : -1;
  return int(b >> 2);
}
template <int Kind> __host__ __device__ constexpr int binsOf() { return Kind == 0 ? 26 : 64; }

enum Layout { One, Lanes, Thread };

template <int Kind, int L> __device__ __forceinline__ void count(unsigned *h, int t, int nt, unsigned b) {
  int k = binOf<Kind>(b);
  if (k < 0)
    return;
  if (L == One)
    atomicAdd(&h[k], 1u);
  else if (L == Lanes)
    atomicAdd(&h[k * 32 + (t & 31)], 1u);
  else
    h[k * nt + t] += 1;
}

template <int Kind, int L> __device__ __forceinline__ void word(unsigned *h, int t, int nt, unsigned v) {
#pragma unroll
  for (int s = 0; s < 32; s += 8)
    count<Kind, L>(h, t, nt, (v >> s) & 255);
}

template <int Kind, int L, int InFlight>
__global__ void hist(const unsigned char *data, unsigned *bins, long long n) {
  extern __shared__ unsigned h[];
  constexpr int B = binsOf<Kind>();
  int t = threadIdx.x, nt = blockDim.x;
  int Copies = L == One ? 1 : L == Lanes ? 32 : nt;
  for (int j = t; j < B * Copies; j += nt)
    h[j] = 0;
  __syncthreads();
  long long g = (long long)blockIdx.x * nt + t, s = (long long)nt * gridDim.x;
  long long m = n / 16;
  const uint4 *q = reinterpret_cast<const uint4 *>(data);
  long long k = g;
  if (InFlight == 2)
    for (; k + s < m; k += 2 * s) {
      uint4 a = q[k], c = q[k + s];
      word<Kind, L>(h, t, nt, a.x), word<Kind, L>(h, t, nt, a.y);
      word<Kind, L>(h, t, nt, a.z), word<Kind, L>(h, t, nt, a.w);
      word<Kind, L>(h, t, nt, c.x), word<Kind, L>(h, t, nt, c.y);
      word<Kind, L>(h, t, nt, c.z), word<Kind, L>(h, t, nt, c.w);
    }
  for (; k < m; k += s) {
    uint4 a = q[k];
    word<Kind, L>(h, t, nt, a.x), word<Kind, L>(h, t, nt, a.y);
    word<Kind, L>(h, t, nt, a.z), word<Kind, L>(h, t, nt, a.w);
  }
  for (long long i = m * 16 + g; i < n; i += s)
    count<Kind, L>(h, t, nt, data[i]);
  __syncthreads();
  for (int j = t; j < B; j += nt) {
    unsigned c = 0;
    for (int r = 0; r < Copies; ++r)
      c += h[j * Copies + (r + j) % Copies];
    if (c)
      atomicAdd(&bins[j], c);
  }
}

template <int Kind> std::vector<unsigned> cpu(const std::vector<unsigned char> &d) {
  std::vector<unsigned> h(binsOf<Kind>(), 0);
  for (unsigned char b : d)
    if (Kind == 0 ? (b >= 'a' && b <= 'z') : true)
      ++h[Kind == 0 ? b - 'a' : b >> 2];
  return h;
}

template <int Kind, int L, int InFlight>
bool run(const char *Name, const unsigned char *d, long long n, unsigned *bins,
         const std::vector<unsigned> &ref, int sms, int threads, int waves) {
  constexpr int B = binsOf<Kind>();
  int Copies = L == One ? 1 : L == Lanes ? 32 : threads;
  size_t Shm = size_t(B) * Copies * 4;
  auto K = hist<Kind, L, InFlight>;
  CK(cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Shm)));
  int PerSM = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSM, K, threads, Shm));
  unsigned grid = unsigned(sms * std::max(1, std::min(PerSM, 2048 / threads)) * waves);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ts;
  for (int r = 0; r < 11; ++r) {
    CK(cudaMemset(bins, 0, B * 4));
    CK(cudaEventRecord(a));
    K<<<grid, threads, Shm>>>(d, bins, n);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  std::vector<unsigned> got(B);
  CK(cudaMemcpy(got.data(), bins, B * 4, cudaMemcpyDeviceToHost));
  bool ok = got == ref;
  float med = ts[ts.size() / 2];
  std::printf("%-8s %-10s threads %4d waves %d blocks/SM %2d grid %6u  %9.2f us  %7.1f GB/s  %s\n",
              Kind == 0 ? "letters" : "levels", Name, threads, waves, PerSM, grid, med * 1e3,
              n / (med * 1e-3) / 1e9, ok ? "ok" : "MISMATCH");
  return ok;
}

template <int Kind> bool all(const unsigned char *d, long long n, unsigned *bins,
                             const std::vector<unsigned> &ref, int sms) {
  bool ok = true;
  for (int threads : {256, 512})
    for (int waves : {1, 2, 4}) {
      ok &= run<Kind, One, 1>("one", d, n, bins, ref, sms, threads, waves);
      ok &= run<Kind, One, 2>("one2", d, n, bins, ref, sms, threads, waves);
      ok &= run<Kind, Lanes, 1>("lanes", d, n, bins, ref, sms, threads, waves);
      ok &= run<Kind, Thread, 1>("thread", d, n, bins, ref, sms, threads, waves);
      ok &= run<Kind, Thread, 2>("thread2", d, n, bins, ref, sms, threads, waves);
    }
  return ok;
}

int main(int argc, char **argv) {
  int lg = argc > 1 ? std::atoi(argv[1]) : 28;
  long long n = (1ll << lg) + 5; // not a multiple of 16: the scalar tail runs
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s, %d SMs, %lld bytes\n", p.name, p.multiProcessorCount, n);
  std::vector<unsigned char> text(n), img(n);
  unsigned s = 12345;
  for (long long i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    text[i] = (unsigned char)(32 + (s >> 24) % 95); // printable ASCII
    img[i] = (unsigned char)(s >> 16);
  }
  unsigned char *d;
  unsigned *bins;
  CK(cudaMalloc(&d, n));
  CK(cudaMalloc(&bins, 64 * 4));
  bool ok = true;
  CK(cudaMemcpy(d, text.data(), n, cudaMemcpyHostToDevice));
  ok &= all<0>(d, n, bins, cpu<0>(text), p.multiProcessorCount);
  CK(cudaMemcpy(d, img.data(), n, cudaMemcpyHostToDevice));
  ok &= all<1>(d, n, bins, cpu<1>(img), p.multiProcessorCount);
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
