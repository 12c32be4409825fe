// Micro-benchmark: shared-memory layouts for a 256-bin byte histogram on
// one GPU, to choose what histogram-privatize proposes (docs/passes/
// histogram-privatize.md). Not a test: a profiling aid, run by hand on the
// GPU machine:
//   nvcc -O3 -arch=sm_90 -o hv histogram-variants.cu && ./hv [log2 N]
// Every variant is checked against a CPU histogram of the same bytes.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

// A: what the rule proposes today: R = 8 copies [8][256], warp w counts
// into copy w % 8 with shared atomics, 16-byte loads.
__global__ void histA(const unsigned char *data, unsigned *bins, long long n) {
  __shared__ unsigned h[8][256];
  int t = threadIdx.x, nt = blockDim.x;
  for (int j = t; j < 8 * 256; j += nt) (&h[0][0])[j] = 0;
  __syncthreads();
  int w = (t / 32) % 8;
  long long g = (long long)blockIdx.x * blockDim.x + t, s = (long long)blockDim.x * gridDim.x;
  long long m = n / 16;
  for (long long k = g; k < m; k += s) {
    uint4 q = reinterpret_cast<const uint4 *>(data)[k];
    unsigned v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int b = 0; b < 4; ++b) atomicAdd(&h[w][(v[i] >> (8 * b)) & 255], 1u);
  }
  for (long long i = m * 16 + g; i < n; i += s) atomicAdd(&h[w][data[i]], 1u);
  __syncthreads();
  for (int j = t; j < 256; j += nt) {
    unsigned c = 0;
    for (int r = 0; r < 8; ++r) c += h[r][j];
    if (c) atomicAdd(&bins[j], c);
  }
}

// B: 32 lane copies laid out [bin][lane]: lane l's counters are all in bank
// l, so a warp's atomics never conflict; warps share the copies (32 KiB).
__global__ void histB(const unsigned char *data, unsigned *bins, long long n) {
  __shared__ unsigned h[256 * 32];
  int t = threadIdx.x, nt = blockDim.x, l = t & 31;
  for (int j = t; j < 256 * 32; j += nt) h[j] = 0;
  __syncthreads();
  long long g = (long long)blockIdx.x * blockDim.x + t, s = (long long)blockDim.x * gridDim.x;
  long long m = n / 16;
  for (long long k = g; k < m; k += s) {
    uint4 q = reinterpret_cast<const uint4 *>(data)[k];
    unsigned v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int b = 0; b < 4; ++b) atomicAdd(&h[((v[i] >> (8 * b)) & 255) * 32 + l], 1u);
  }
  for (long long i = m * 16 + g; i < n; i += s) atomicAdd(&h[data[i] * 32 + l], 1u);
  __syncthreads();
  for (int j = t; j < 256; j += nt) {
    unsigned c = 0;
    for (int r = 0; r < 32; ++r) c += h[j * 32 + ((r + j) & 31)];
    if (c) atomicAdd(&bins[j], c);
  }
}

// C: every lane owns 256 8-bit counters (four to a word, words [group][lane],
// all in its own bank) in its warp's 8 KiB: plain loads and stores, no
// atomics. A warp folds its counters into the block's 32-bit bins every
// FLUSH 16-byte rounds (15 * 16 < 256: no counter overflows).
template <int WARPS>
__global__ void histC(const unsigned char *data, unsigned *bins, long long n) {
  constexpr int FLUSH = 15;
  __shared__ unsigned c8[WARPS][64 * 32];
  __shared__ unsigned hb[256];
  int t = threadIdx.x, nt = blockDim.x, l = t & 31, w = t >> 5;
  unsigned *mine = c8[w];
  for (int j = t; j < WARPS * 64 * 32; j += nt) (&c8[0][0])[j] = 0;
  for (int j = t; j < 256; j += nt) hb[j] = 0;
  __syncthreads();
  auto fold = [&]() {
    __syncwarp();
    for (int gi = 0; gi < 2; ++gi) {
      int grp = l + 32 * gi;
      unsigned lo = 0, hi = 0;
#pragma unroll 8
      for (int r = 0; r < 32; ++r) {
        unsigned x = mine[grp * 32 + ((r + l) & 31)];
        lo += x & 0x00FF00FFu;
        hi += (x >> 8) & 0x00FF00FFu;
      }
      if (lo & 0xFFFF) atomicAdd(&hb[grp * 4 + 0], lo & 0xFFFF);
      if (hi & 0xFFFF) atomicAdd(&hb[grp * 4 + 1], hi & 0xFFFF);
      if (lo >> 16) atomicAdd(&hb[grp * 4 + 2], lo >> 16);
      if (hi >> 16) atomicAdd(&hb[grp * 4 + 3], hi >> 16);
    }
    __syncwarp();
    for (int grp = 0; grp < 64; ++grp) mine[grp * 32 + l] = 0;
    __syncwarp();
  };
  auto count = [&](unsigned v) {
    unsigned *p = &mine[(v >> 2) * 32 + l];
    *p += 1u << ((v & 3) * 8);
  };
  long long gw = ((long long)blockIdx.x * blockDim.x + (t & ~31)), s = (long long)blockDim.x * gridDim.x;
  long long m = n / 16;
  int rounds = 0;
  for (long long base = gw; base < m; base += s) {
    long long k = base + l;
    if (k < m) {
      uint4 q = reinterpret_cast<const uint4 *>(data)[k];
      unsigned v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int b = 0; b < 4; ++b) count((v[i] >> (8 * b)) & 255);
    }
    if (++rounds == FLUSH) { fold(); rounds = 0; }
  }
  for (long long i = m * 16 + gw + l; i < n; i += s) count(data[i]);
  fold();
  __syncthreads();
  for (int j = t; j < 256; j += nt)
    if (hb[j]) atomicAdd(&bins[j], hb[j]);
}

// D: C with 16-bit counters (two to a word, 16 KiB a warp), folded every
// 4095 rounds: fewer folds, twice the shared memory.
template <int WARPS>
__global__ void histD(const unsigned char *data, unsigned *bins, long long n) {
  constexpr int FLUSH = 4095;
  __shared__ unsigned c16[WARPS][128 * 32];
  __shared__ unsigned hb[256];
  int t = threadIdx.x, nt = blockDim.x, l = t & 31, w = t >> 5;
  unsigned *mine = c16[w];
  for (int j = t; j < WARPS * 128 * 32; j += nt) (&c16[0][0])[j] = 0;
  for (int j = t; j < 256; j += nt) hb[j] = 0;
  __syncthreads();
  auto fold = [&]() {
    __syncwarp();
    for (int gi = 0; gi < 4; ++gi) {
      int grp = l + 32 * gi;
      unsigned lo = 0, hi = 0;
      for (int r = 0; r < 32; ++r) {
        unsigned x = mine[grp * 32 + ((r + l) & 31)];
        lo += x & 0xFFFFu;
        hi += x >> 16;
      }
      if (lo) atomicAdd(&hb[grp * 2 + 0], lo);
      if (hi) atomicAdd(&hb[grp * 2 + 1], hi);
    }
    __syncwarp();
    for (int grp = 0; grp < 128; ++grp) mine[grp * 32 + l] = 0;
    __syncwarp();
  };
  auto count = [&](unsigned v) {
    unsigned *p = &mine[(v >> 1) * 32 + l];
    *p += 1u << ((v & 1) * 16);
  };
  long long gw = ((long long)blockIdx.x * blockDim.x + (t & ~31)), s = (long long)blockDim.x * gridDim.x;
  long long m = n / 16;
  int rounds = 0;
  for (long long base = gw; base < m; base += s) {
    long long k = base + l;
    if (k < m) {
      uint4 q = reinterpret_cast<const uint4 *>(data)[k];
      unsigned v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int b = 0; b < 4; ++b) count((v[i] >> (8 * b)) & 255);
    }
    if (++rounds == FLUSH) { fold(); rounds = 0; }
  }
  for (long long i = m * 16 + gw + l; i < n; i += s) count(data[i]);
  fold();
  __syncthreads();
  for (int j = t; j < 256; j += nt)
    if (hb[j]) atomicAdd(&bins[j], hb[j]);
}

typedef void (*Kernel)(const unsigned char *, unsigned *, long long);

int main(int argc, char **argv) {
  int lg = argc > 1 ? std::atoi(argv[1]) : 28;
  long long n = 1LL << lg;
  n += 7; // an odd count: the scalar tail runs
  std::vector<unsigned char> host(n);
  unsigned long long x = 88172645463325252ull;
  for (long long i = 0; i < n; ++i) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; host[i] = (unsigned char)(x >> 24); }
  std::vector<unsigned> ref(256, 0);
  for (long long i = 0; i < n; ++i) ref[host[i]]++;
  unsigned char *d; unsigned *bins;
  CK(cudaMalloc(&d, n)); CK(cudaMalloc(&bins, 256 * 4));
  CK(cudaMemcpy(d, host.data(), n, cudaMemcpyHostToDevice));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct V { const char *name; Kernel k; int block; };
  V vs[] = {{"A 8 copies, atomics", histA, 256},
            {"B [bin][lane], atomics", histB, 256},
            {"B [bin][lane], atomics, 512", histB, 512},
            {"C lane u8, 4 warps", histC<4>, 128},
            {"C lane u8, 5 warps", histC<5>, 160},
            {"D lane u16, 2 warps", histD<2>, 64}};
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::printf("N = %lld bytes, %d SMs; median of 21 launches (events)\n", n, sms);
  for (auto &v : vs) {
    int perSm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, v.k, v.block, 0));
    for (int waves : {1, 2, 4}) {
      int grid = perSm * sms * waves;
      std::vector<float> ts;
      bool ok = true;
      for (int r = 0; r < 22; ++r) {
        CK(cudaMemset(bins, 0, 256 * 4));
        CK(cudaEventRecord(e0));
        v.k<<<grid, v.block>>>(d, bins, n);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r) ts.push_back(ms);
        if (r == 0 || r == 21) {
          std::vector<unsigned> got(256);
          CK(cudaMemcpy(got.data(), bins, 256 * 4, cudaMemcpyDeviceToHost));
          ok = ok && got == ref;
        }
      }
      std::sort(ts.begin(), ts.end());
      float med = ts[ts.size() / 2];
      std::printf("%-30s block %4d  %d/SM  waves %d  %9.1f us  %7.1f GB/s  %s\n", v.name, v.block, perSm,
                  waves, med * 1e3, n / (med * 1e-3) / 1e9, ok ? "exact" : "WRONG");
    }
  }
  return 0;
}
