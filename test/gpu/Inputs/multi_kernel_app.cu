// A small but real CUDA program for checking Kernel Forge's program mode
// (libforge-inject.so, see tools/forge-worker/inject/Inject.cpp and
// utils/gpu/program-mode-check.sh).
//
// It runs three kernels of different lengths, each well above 100 us on an
// H100/H200, R times (argv[1], default 20), flushing the L2 cache before
// every launch, and times each launch with CUDA events:
//   saxpy          y = a*x + y on 64M floats (in place)
//   conv2d_5x5     naive 5x5 convolution of an 8192x8192 image
//   reduce_partial shared-memory tree reduction of 256M floats to one
//                  partial sum per block; reduce_final (a short single-block
//                  kernel, not timed) then adds up the partial sums.
//
// stdout: one deterministic "checksum <kernel> <value>" line per kernel (same
// inputs, fixed launch shapes, no atomics, sums taken in a fixed order), so
// two runs with the same R print the same lines.
// FORGE_APP_EVENTS_OUT=<file>: per-kernel event timings as JSON lines,
//   {"type":"events","name":"saxpy(int, float, float const*, float*)",
//    "launches":N,"median_ns":..,"total_ns":..}
// with the name CUPTI reports for the kernel, demangled.
// Exit status 0 on success, 1 with a message on any CUDA error.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "multi_kernel_app: %s:%d: %s: %s\n", __FILE__,       \
                   __LINE__, #call, cudaGetErrorString(err_));                   \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

namespace {

constexpr int kSaxpyN = 1 << 26;          // 64M floats, 256 MiB per vector
constexpr int kConvSize = 8192;           // 8192 x 8192 image, 256 MiB
constexpr int kReduceN = 1 << 28;         // 256M floats, 1 GiB
constexpr int kThreads = 256;
constexpr int kReduceBlocks = 4096;       // fixed, so the sum order is fixed
constexpr int kStreamBlocks = 8192;       // grid-stride kernels

} // namespace

__constant__ float c_filter[25];

// Deterministic pseudo-random values in [-1, 1).
__global__ void fill_pattern(int n, unsigned seed, float *out) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < size_t(n);
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u + seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    out[i] = float(h & 0xFFFFu) / 32768.0f - 1.0f;
  }
}

__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < size_t(n);
       i += size_t(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// Naive: every output reads its 25 inputs from global memory; zero padding.
__global__ void conv2d_5x5(int width, int height, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  float sum = 0.0f;
  for (int dy = -2; dy <= 2; ++dy) {
    int yy = y + dy;
    if (yy < 0 || yy >= height)
      continue;
    for (int dx = -2; dx <= 2; ++dx) {
      int xx = x + dx;
      if (xx < 0 || xx >= width)
        continue;
      sum += c_filter[(dy + 2) * 5 + (dx + 2)] * in[size_t(yy) * width + xx];
    }
  }
  out[size_t(y) * width + x] = sum;
}

// Tree reduction in shared memory over blockDim.x (a power of two) values.
__device__ float block_sum(float value) {
  __shared__ float partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  return partial[0];
}

__global__ void reduce_partial(int n, const float *in, float *partials) {
  float sum = 0.0f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < size_t(n);
       i += size_t(gridDim.x) * blockDim.x)
    sum += in[i];
  float total = block_sum(sum);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = total;
}

__global__ void reduce_final(int n, const float *partials, float *out) {
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    sum += partials[i];
  float total = block_sum(sum);
  if (threadIdx.x == 0)
    out[0] = total;
}

namespace {

struct Timing {
  std::string name; // as CUPTI reports it, demangled
  std::vector<double> ns;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double hostSum(const float *device, size_t n) {
  std::vector<float> host(n);
  CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (float v : host)
    sum += v;
  return sum;
}

// Runs `launch` reps times, each after an L2 flush, between two events.
// `after` (not timed) runs after each timed launch.
template <typename Launch, typename After>
Timing timeKernel(const char *name, int reps, void *flush, size_t flushBytes,
                  Launch launch, After after) {
  std::vector<cudaEvent_t> starts(reps), stops(reps);
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventCreate(&starts[r]));
    CHECK(cudaEventCreate(&stops[r]));
  }
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaMemsetAsync(flush, r & 0xFF, flushBytes));
    CHECK(cudaEventRecord(starts[r]));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stops[r]));
    after();
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  Timing timing{name, {}};
  for (int r = 0; r < reps; ++r) {
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, starts[r], stops[r]));
    timing.ns.push_back(double(ms) * 1.0e6);
    CHECK(cudaEventDestroy(starts[r]));
    CHECK(cudaEventDestroy(stops[r]));
  }
  return timing;
}

} // namespace

int main(int argc, char **argv) {
  int reps = 20;
  if (argc > 1) {
    char *end = nullptr;
    long value = std::strtol(argv[1], &end, 10);
    if (!end || *end || value < 1 || value > 100000) {
      std::fprintf(stderr, "usage: %s [repetitions >= 1, default 20]\n", argv[0]);
      return 2;
    }
    reps = int(value);
  }

  int device = 0, l2Bytes = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&l2Bytes, cudaDevAttrL2CacheSize, device));
  size_t flushBytes = std::max<size_t>(2 * size_t(l2Bytes), size_t(8) << 20);
  void *flush = nullptr;
  CHECK(cudaMalloc(&flush, flushBytes));

  const size_t convElems = size_t(kConvSize) * kConvSize;
  float *x, *y, *image, *convOut, *reduceIn, *partials, *reduceOut;
  CHECK(cudaMalloc(&x, kSaxpyN * sizeof(float)));
  CHECK(cudaMalloc(&y, kSaxpyN * sizeof(float)));
  CHECK(cudaMalloc(&image, convElems * sizeof(float)));
  CHECK(cudaMalloc(&convOut, convElems * sizeof(float)));
  CHECK(cudaMalloc(&reduceIn, size_t(kReduceN) * sizeof(float)));
  CHECK(cudaMalloc(&partials, kReduceBlocks * sizeof(float)));
  CHECK(cudaMalloc(&reduceOut, sizeof(float)));

  fill_pattern<<<kStreamBlocks, kThreads>>>(kSaxpyN, 1u, x);
  fill_pattern<<<kStreamBlocks, kThreads>>>(kSaxpyN, 2u, y);
  fill_pattern<<<kStreamBlocks, kThreads>>>(int(convElems), 3u, image);
  fill_pattern<<<kStreamBlocks, kThreads>>>(kReduceN, 4u, reduceIn);
  CHECK(cudaGetLastError());
  float filter[25];
  for (int i = 0; i < 25; ++i)
    filter[i] = float((i * 7) % 11 - 5) / 16.0f;
  CHECK(cudaMemcpyToSymbol(c_filter, filter, sizeof filter));
  CHECK(cudaDeviceSynchronize());

  auto nothing = [] {};
  std::vector<Timing> timings;
  timings.push_back(timeKernel(
      "saxpy(int, float, float const*, float*)", reps, flush, flushBytes,
      [&] { saxpy<<<kStreamBlocks, kThreads>>>(kSaxpyN, 0.5f, x, y); }, nothing));
  timings.push_back(timeKernel(
      "conv2d_5x5(int, int, float const*, float*)", reps, flush, flushBytes,
      [&] {
        dim3 block(32, 8);
        dim3 grid(kConvSize / block.x, kConvSize / block.y);
        conv2d_5x5<<<grid, block>>>(kConvSize, kConvSize, image, convOut);
      },
      nothing));
  timings.push_back(timeKernel(
      "reduce_partial(int, float const*, float*)", reps, flush, flushBytes,
      [&] { reduce_partial<<<kReduceBlocks, kThreads>>>(kReduceN, reduceIn, partials); },
      [&] { reduce_final<<<1, kThreads>>>(kReduceBlocks, partials, reduceOut); }));

  float reduced = 0.0f;
  CHECK(cudaMemcpy(&reduced, reduceOut, sizeof reduced, cudaMemcpyDeviceToHost));
  std::printf("checksum saxpy %.6f\n", hostSum(y, kSaxpyN));
  std::printf("checksum conv2d_5x5 %.6f\n", hostSum(convOut, convElems));
  std::printf("checksum reduce %.6f\n", double(reduced));

  FILE *events = nullptr;
  if (const char *path = std::getenv("FORGE_APP_EVENTS_OUT"); path && *path) {
    events = std::fopen(path, "w");
    if (!events) {
      std::perror(path);
      return 1;
    }
  }
  for (const Timing &t : timings) {
    double total = 0.0;
    for (double ns : t.ns)
      total += ns;
    double med = median(t.ns);
    std::fprintf(stderr, "events: %-45s %4zu launches, median %9.1f us\n", t.name.c_str(),
                 t.ns.size(), med / 1000.0);
    if (events)
      std::fprintf(events,
                   "{\"type\":\"events\",\"name\":\"%s\",\"launches\":%zu,"
                   "\"median_ns\":%.1f,\"total_ns\":%.1f}\n",
                   t.name.c_str(), t.ns.size(), med, total);
  }
  if (events && std::fclose(events) != 0) {
    std::perror("FORGE_APP_EVENTS_OUT");
    return 1;
  }

  for (void *p : {(void *)x, (void *)y, (void *)image, (void *)convOut, (void *)reduceIn,
                  (void *)partials, (void *)reduceOut, flush})
    CHECK(cudaFree(p));
  return 0;
}
