// Micro-benchmark: a 64-level histogram of an 8-bit pitched image (the
// naive utils/bench/naive/hist_image.cu), to see what histogram-privatize's
// virtual blocks leave on the table (docs/passes/histogram-privatize.md).
// Not a test: a profiling aid, run by hand on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o h2 histogram2d-variants.cu && ./h2 [width height]
// Every variant is checked against a CPU histogram of the same pixels.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

// N: the naive kernel, one global atomic per pixel.
__global__ void histN(const unsigned char *img, int width, int height, size_t pitch, unsigned *levels) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    unsigned char px = img[row * pitch + col];
    atomicAdd(levels + (px >> 2), 1u);
  }
}

// The rule's proposal (lane copies, the body run per virtual block); U
// virtual blocks per loop step.
template <int U>
__global__ void histV(const unsigned char *img, int width, int height, size_t pitch, unsigned *levels) {
  __shared__ unsigned int h[64][32];
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  for (int j = t; j < 32 * 64; j += nt) (&h[0][0])[j] = 0;
  const int w = t % 32;
  __syncthreads();
  auto body = [&](unsigned bx, unsigned by) {
    int col = bx * blockDim.x + threadIdx.x;
    int row = by * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
      unsigned char px = img[row * pitch + col];
      atomicAdd(&h[(px >> 2)][w], 1u);
    }
  };
  const long long bxs = ((long long)width + blockDim.x - 1) / blockDim.x;
  const long long bys = ((long long)height + blockDim.y - 1) / blockDim.y;
  const long long nb = bxs * bys, gb = (long long)gridDim.x * gridDim.y;
  long long v = (long long)blockIdx.x + (long long)gridDim.x * blockIdx.y;
  for (; v + (U - 1) * gb < nb; v += U * gb) {
#pragma unroll
    for (int k = 0; k < U; ++k) body((unsigned)((v + k * gb) % bxs), (unsigned)((v + k * gb) / bxs));
  }
  for (; v < nb; v += gb) body((unsigned)(v % bxs), (unsigned)(v / bxs));
  __syncthreads();
  for (int j = t; j < 64; j += nt) {
    unsigned c = h[j][j % 32];
    for (int r = 1; r < 32; ++r) c += h[j][(j + r) % 32];
    if (c) atomicAdd(&levels[j], c);
  }
}

// R: the ceiling: rows read 16 bytes per thread (the 1D rule's 16-byte path
// per row, with a scalar head and tail per row), lane copies, grid-stride
// over (row, chunk).
__global__ void histR(const unsigned char *img, int width, int height, size_t pitch, unsigned *levels) {
  __shared__ unsigned int h[64][32];
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  for (int j = t; j < 32 * 64; j += nt) (&h[0][0])[j] = 0;
  const int w = t % 32;
  __syncthreads();
  const long long g = (long long)blockIdx.x * nt + t, s = (long long)gridDim.x * nt;
  const long long chunks = (width + 15) / 16 + 1; // a head, then 16-byte chunks
  for (long long c = g; c < chunks * height; c += s) {
    long long row = c / chunks, k = c % chunks;
    const unsigned char *r = img + row * pitch;
    long long head = (long long)((16 - ((unsigned long long)r & 15)) & 15);
    head = head < width ? head : width;
    if (k == 0) {
      for (long long i = 0; i < head; ++i) atomicAdd(&h[r[i] >> 2][w], 1u);
      continue;
    }
    long long at = head + (k - 1) * 16;
    if (at + 16 <= width) {
      uint4 q = *reinterpret_cast<const uint4 *>(r + at);
      unsigned v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int b = 0; b < 4; ++b) atomicAdd(&h[((v[i] >> (8 * b)) & 255) >> 2][w], 1u);
    } else {
      for (long long i = at; i < width; ++i) atomicAdd(&h[r[i] >> 2][w], 1u);
    }
  }
  __syncthreads();
  for (int j = t; j < 64; j += nt) {
    unsigned c = h[j][j % 32];
    for (int r = 1; r < 32; ++r) c += h[j][(j + r) % 32];
    if (c) atomicAdd(&levels[j], c);
  }
}

using Kernel = void (*)(const unsigned char *, int, int, size_t, unsigned *);

int main(int argc, char **argv) {
  int width = argc > 2 ? std::atoi(argv[1]) : 8192, height = argc > 2 ? std::atoi(argv[2]) : 8192;
  size_t pitch = width;
  size_t n = pitch * height;
  std::vector<unsigned char> host(n);
  unsigned long long x = 88172645463325252ull;
  for (size_t i = 0; i < n; ++i) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; host[i] = (unsigned char)(x >> 24); }
  std::vector<unsigned> ref(64, 0);
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) ref[host[r * pitch + c] >> 2]++;
  unsigned char *d; unsigned *bins;
  CK(cudaMalloc(&d, n)); CK(cudaMalloc(&bins, 64 * 4));
  CK(cudaMemcpy(d, host.data(), n, cudaMemcpyHostToDevice));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::printf("%d x %d bytes, %d SMs; median of 21 launches (events)\n", width, height, sms);
  auto time = [&](const char *name, Kernel k, dim3 grid, dim3 block) {
    std::vector<float> ts;
    bool ok = true;
    for (int r = 0; r < 22; ++r) {
      CK(cudaMemset(bins, 0, 64 * 4));
      CK(cudaEventRecord(e0));
      k<<<grid, block>>>(d, width, height, pitch, bins);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r) ts.push_back(ms);
      if (r == 0 || r == 21) {
        std::vector<unsigned> got(64);
        CK(cudaMemcpy(got.data(), bins, 64 * 4, cudaMemcpyDeviceToHost));
        ok = ok && got == ref;
      }
    }
    std::sort(ts.begin(), ts.end());
    float med = ts[ts.size() / 2];
    std::printf("%-34s grid %7u x %4u  %9.1f us  %7.1f GB/s  %s\n", name, grid.x, grid.y, med * 1e3,
                n / (med * 1e-3) / 1e9, ok ? "exact" : "WRONG");
  };
  dim3 b2(32, 8);
  time("N naive", histN, dim3((width + 31) / 32, (height + 7) / 8), b2);
  for (int waves : {1, 2, 4, 8}) {
    unsigned g = sms * 8 * waves;
    char name[64];
    std::snprintf(name, sizeof name, "V1 virtual blocks, %d waves", waves);
    time(name, histV<1>, dim3(g), b2);
    std::snprintf(name, sizeof name, "V4 virtual blocks x4, %d waves", waves);
    time(name, histV<4>, dim3(g), b2);
    std::snprintf(name, sizeof name, "R rows in 16 bytes, %d waves", waves);
    time(name, histR, dim3(g), dim3(256));
  }
  return 0;
}
