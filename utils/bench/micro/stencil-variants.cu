// Micro-benchmark: register windows for 2D zero-padded convolutions on one
// GPU, to choose what stencil-register-rows proposes (docs/passes/
// stencil-register-rows.md). Not a test: a profiling aid, run by hand on
// the GPU machine:
//   nvcc -O3 -arch=sm_90 -o sv stencil-variants.cu && ./sv
// Each thread computes R rows x C columns of outputs from a register window
// of (R + 2r) x (C + 2r) inputs; interior threads load without tests. Every
// variant is compared with the naive kernel (one output per thread).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

template <int K>
__global__ void naive(const float *in, const float *filt, float *out, int h, int w) {
  constexpr int RAD = K / 2;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -RAD; i <= RAD; ++i)
      for (int j = -RAD; j <= RAD; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += filt[(i + RAD) * K + (j + RAD)] * in[(size_t)yy * w + xx];
      }
    out[(size_t)y * w + x] = acc;
  }
}

// R x C outputs per thread; the window row by row (R + K - 1 rows of C + K - 1).
template <int K, int R, int C>
__global__ void tile(const float *__restrict__ in, const float *__restrict__ filt,
                     float *__restrict__ out, int h, int w) {
  constexpr int RAD = K / 2, WC = C + K - 1;
  float f[K * K];
#pragma unroll
  for (int k = 0; k < K * K; ++k) f[k] = filt[k];
  int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
  if (x0 >= w || y0 >= h) return;
  float acc[R][C];
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[o][c] = 0.0f;
  bool interior = x0 - RAD >= 0 && x0 + C - 1 + RAD < w && y0 - RAD >= 0 && y0 + R - 1 + RAD < h;
#pragma unroll
  for (int r = 0; r < R + K - 1; ++r) {
    int yy = y0 - RAD + r;
    float win[WC];
    if (interior) {
      const float *p = in + (size_t)yy * w + x0 - RAD;
#pragma unroll
      for (int c = 0; c < WC; ++c) win[c] = p[c];
    } else {
#pragma unroll
      for (int c = 0; c < WC; ++c) {
        int xx = x0 - RAD + c;
        win[c] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? in[(size_t)yy * w + xx] : 0.0f;
      }
    }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      int i = r - o;
      if (i >= 0 && i < K) {
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
          for (int j = 0; j < K; ++j) acc[o][c] += f[i * K + j] * win[c + j];
      }
    }
  }
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (y0 + o < h && x0 + c < w) out[(size_t)(y0 + o) * w + x0 + c] = acc[o][c];
}

// The same outputs in the shape stencil-register-rows writes: the whole
// window loaded first, then the naive body once per output, reading it.
template <int K, int R, int C>
__global__ void whole(const float *__restrict__ in, const float *__restrict__ filt,
                      float *__restrict__ out, int h, int w) {
  constexpr int RAD = K / 2;
  float f[K * K];
#pragma unroll
  for (int k = 0; k < K * K; ++k) f[k] = filt[k];
  int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
  float win[R + K - 1][C + K - 1];
  bool interior = x0 - RAD >= 0 && x0 + C - 1 + RAD < w && y0 - RAD >= 0 && y0 + R - 1 + RAD < h;
  if (interior) {
#pragma unroll
    for (int i = 0; i < R + K - 1; ++i)
#pragma unroll
      for (int j = 0; j < C + K - 1; ++j) win[i][j] = in[(size_t)(y0 - RAD + i) * w + x0 - RAD + j];
  } else {
#pragma unroll
    for (int i = 0; i < R + K - 1; ++i)
#pragma unroll
      for (int j = 0; j < C + K - 1; ++j) {
        int yy = y0 - RAD + i, xx = x0 - RAD + j;
        win[i][j] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? in[(size_t)yy * w + xx] : 0.0f;
      }
  }
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int c = 0; c < C; ++c) {
      int x = x0 + c, y = y0 + r;
      if (x < w && y < h) {
        float acc = 0.0f;
#pragma unroll
        for (int i = 0; i < K; ++i)
#pragma unroll
          for (int j = 0; j < K; ++j) acc += f[i * K + j] * win[r + i][c + j];
        out[(size_t)y * w + x] = acc;
      }
    }
}

// Separable 7 + 7 taps, naive: each output recomputes its 7 row sums.
__global__ void sep_naive(const float *in, const float *fx, const float *fy, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -3; i <= 3; ++i) {
      int yy = y + i;
      if (yy < 0 || yy >= h) continue;
      float row = 0.0f;
      for (int j = -3; j <= 3; ++j) {
        int xx = x + j;
        if (xx >= 0 && xx < w) row += fx[j + 3] * in[(size_t)yy * w + xx];
      }
      acc += fy[i + 3] * row;
    }
    out[(size_t)y * w + x] = acc;
  }
}

// Separable, R x C per thread; SHARE: each input row's sums are computed
// once and used by every output row that needs them.
template <int R, int C, bool SHARE>
__global__ void sep_tile(const float *__restrict__ in, const float *__restrict__ fx,
                         const float *__restrict__ fy, float *__restrict__ out, int h, int w) {
  constexpr int WC = C + 6;
  float gx[7], gy[7];
#pragma unroll
  for (int k = 0; k < 7; ++k) gx[k] = fx[k], gy[k] = fy[k];
  int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
  if (x0 >= w || y0 >= h) return;
  float acc[R][C];
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[o][c] = 0.0f;
  bool interior = x0 - 3 >= 0 && x0 + C + 2 < w && y0 - 3 >= 0 && y0 + R + 2 < h;
#pragma unroll
  for (int r = 0; r < R + 6; ++r) {
    int yy = y0 - 3 + r;
    float win[WC];
    if (interior) {
      const float *p = in + (size_t)yy * w + x0 - 3;
#pragma unroll
      for (int c = 0; c < WC; ++c) win[c] = p[c];
    } else {
#pragma unroll
      for (int c = 0; c < WC; ++c) {
        int xx = x0 - 3 + c;
        win[c] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? in[(size_t)yy * w + xx] : 0.0f;
      }
    }
    float rs[C];
    if (SHARE) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < 7; ++j) s += gx[j] * win[c + j];
        rs[c] = s;
      }
    }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      int i = r - o;
      if (i >= 0 && i < 7) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
          float s;
          if (SHARE) s = rs[c];
          else {
            s = 0.0f;
#pragma unroll
            for (int j = 0; j < 7; ++j) s += gx[j] * win[c + j];
          }
          acc[o][c] += gy[i] * s;
        }
      }
    }
  }
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (y0 + o < h && x0 + c < w) out[(size_t)(y0 + o) * w + x0 + c] = acc[o][c];
}


// tile<> with the window rows read in 16-byte loads: C is a multiple of 4, so
// that every lane's first column x0 is; interior threads of a row whose start
// is 16-byte aligned (w % 4 == 0 and in aligned) load the aligned span
// [x0 - ceil4(RAD), ...) as float4s and take the window from it; every other
// thread loads as tile<> does. The span may reach up to 3 columns past the
// window on either side, so the interior test covers the whole span.
template <int K, int R, int C>
__global__ void tilev(const float *__restrict__ in, const float *__restrict__ filt,
                      float *__restrict__ out, int h, int w) {
  static_assert(C % 4 == 0, "C must be a multiple of 4");
  constexpr int RAD = K / 2, WC = C + K - 1, LO4 = (RAD + 3) / 4 * 4, OFF = LO4 - RAD,
                NV = (OFF + WC + 3) / 4;
  float f[K * K];
#pragma unroll
  for (int k = 0; k < K * K; ++k) f[k] = filt[k];
  int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
  if (x0 >= w || y0 >= h) return;
  float acc[R][C];
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[o][c] = 0.0f;
  const bool vec = (w & 3) == 0 && (reinterpret_cast<unsigned long long>(in) & 15) == 0;
  bool interior = vec && x0 - LO4 >= 0 && x0 - LO4 + 4 * NV - 1 < w && y0 - RAD >= 0 && y0 + R - 1 + RAD < h;
#pragma unroll
  for (int r = 0; r < R + K - 1; ++r) {
    int yy = y0 - RAD + r;
    float win[4 * NV];
    if (interior) {
      const float4 *p = reinterpret_cast<const float4 *>(in + (size_t)yy * w + x0 - LO4);
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        float4 q = p[v];
        win[4 * v] = q.x; win[4 * v + 1] = q.y; win[4 * v + 2] = q.z; win[4 * v + 3] = q.w;
      }
    } else {
#pragma unroll
      for (int c = 0; c < WC; ++c) {
        int xx = x0 - RAD + c;
        win[OFF + c] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? in[(size_t)yy * w + xx] : 0.0f;
      }
    }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      int i = r - o;
      if (i >= 0 && i < K) {
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
          for (int j = 0; j < K; ++j) acc[o][c] += f[i * K + j] * win[OFF + c + j];
      }
    }
  }
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (y0 + o < h && x0 + c < w) out[(size_t)(y0 + o) * w + x0 + c] = acc[o][c];
}

// The same with the outputs written as float4 where the row is aligned.
template <int K, int R, int C>
__global__ void tilevs(const float *__restrict__ in, const float *__restrict__ filt,
                       float *__restrict__ out, int h, int w) {
  static_assert(C % 4 == 0, "C must be a multiple of 4");
  constexpr int RAD = K / 2, WC = C + K - 1, LO4 = (RAD + 3) / 4 * 4, OFF = LO4 - RAD,
                NV = (OFF + WC + 3) / 4;
  float f[K * K];
#pragma unroll
  for (int k = 0; k < K * K; ++k) f[k] = filt[k];
  int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
  if (x0 >= w || y0 >= h) return;
  float acc[R][C];
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[o][c] = 0.0f;
  const bool vec = (w & 3) == 0 && (reinterpret_cast<unsigned long long>(in) & 15) == 0 &&
                   (reinterpret_cast<unsigned long long>(out) & 15) == 0;
  bool interior = vec && x0 - LO4 >= 0 && x0 - LO4 + 4 * NV - 1 < w && y0 - RAD >= 0 && y0 + R - 1 + RAD < h;
#pragma unroll
  for (int r = 0; r < R + K - 1; ++r) {
    int yy = y0 - RAD + r;
    float win[4 * NV];
    if (interior) {
      const float4 *p = reinterpret_cast<const float4 *>(in + (size_t)yy * w + x0 - LO4);
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        float4 q = p[v];
        win[4 * v] = q.x; win[4 * v + 1] = q.y; win[4 * v + 2] = q.z; win[4 * v + 3] = q.w;
      }
    } else {
#pragma unroll
      for (int c = 0; c < WC; ++c) {
        int xx = x0 - RAD + c;
        win[OFF + c] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? in[(size_t)yy * w + xx] : 0.0f;
      }
    }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      int i = r - o;
      if (i >= 0 && i < K) {
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
          for (int j = 0; j < K; ++j) acc[o][c] += f[i * K + j] * win[OFF + c + j];
      }
    }
  }
  if (interior) {
#pragma unroll
    for (int o = 0; o < R; ++o)
#pragma unroll
      for (int c = 0; c < C; c += 4)
        *reinterpret_cast<float4 *>(out + (size_t)(y0 + o) * w + x0 + c) =
            make_float4(acc[o][c], acc[o][c + 1], acc[o][c + 2], acc[o][c + 3]);
  } else {
#pragma unroll
    for (int o = 0; o < R; ++o)
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (y0 + o < h && x0 + c < w) out[(size_t)(y0 + o) * w + x0 + c] = acc[o][c];
  }
}

// Separable with the window rows read in 16-byte loads (as tilev).
template <int R, int C>
__global__ void sep_tilev(const float *__restrict__ in, const float *__restrict__ fx,
                          const float *__restrict__ fy, float *__restrict__ out, int h, int w) {
  constexpr int WC = C + 6, OFF = 1, NV = (OFF + WC + 3) / 4;
  float gx[7], gy[7];
#pragma unroll
  for (int k = 0; k < 7; ++k) gx[k] = fx[k], gy[k] = fy[k];
  int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
  if (x0 >= w || y0 >= h) return;
  float acc[R][C];
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[o][c] = 0.0f;
  const bool vec = (w & 3) == 0 && (reinterpret_cast<unsigned long long>(in) & 15) == 0;
  bool interior = vec && x0 - 4 >= 0 && x0 - 4 + 4 * NV - 1 < w && y0 - 3 >= 0 && y0 + R + 2 < h;
#pragma unroll
  for (int r = 0; r < R + 6; ++r) {
    int yy = y0 - 3 + r;
    float win[4 * NV];
    if (interior) {
      const float4 *p = reinterpret_cast<const float4 *>(in + (size_t)yy * w + x0 - 4);
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        float4 q = p[v];
        win[4 * v] = q.x; win[4 * v + 1] = q.y; win[4 * v + 2] = q.z; win[4 * v + 3] = q.w;
      }
    } else {
#pragma unroll
      for (int c = 0; c < WC; ++c) {
        int xx = x0 - 3 + c;
        win[OFF + c] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? in[(size_t)yy * w + xx] : 0.0f;
      }
    }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      int i = r - o;
      if (i >= 0 && i < 7) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
          float s = 0.0f;
#pragma unroll
          for (int j = 0; j < 7; ++j) s += gx[j] * win[OFF + c + j];
          acc[o][c] += gy[i] * s;
        }
      }
    }
  }
#pragma unroll
  for (int o = 0; o < R; ++o)
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (y0 + o < h && x0 + c < w) out[(size_t)(y0 + o) * w + x0 + c] = acc[o][c];
}

static unsigned cdiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

int main() {
  const int h = 4096, w = 4096;
  size_t n = (size_t)h * w;
  std::vector<float> hin(n), hf(49), hfx(7), hfy(7);
  unsigned long long s = 12345;
  auto rnd = [&]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return ((s >> 40) & 0xFFFFFF) / float(0x1000000) * 2 - 1; };
  for (auto &v : hin) v = rnd();
  for (auto &v : hf) v = rnd();
  for (auto &v : hfx) v = rnd();
  for (auto &v : hfy) v = rnd();
  float *in, *f, *fx, *fy, *ref, *out;
  CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&ref, n * 4)); CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&f, 49 * 4)); CK(cudaMalloc(&fx, 28)); CK(cudaMalloc(&fy, 28));
  CK(cudaMemcpy(in, hin.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(f, hf.data(), 49 * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(fx, hfx.data(), 28, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(fy, hfy.data(), 28, cudaMemcpyHostToDevice));
  char *flush; CK(cudaMalloc(&flush, 128 << 20));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<float> a(n), b(n);
  auto timeit = [&](auto launch) {
    std::vector<float> ts;
    for (int r = 0; r < 21; ++r) {
      CK(cudaMemset(flush, r, 128 << 20));
      CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r) ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2] * 1e3f;
  };
  auto compare = [&]() {
    CK(cudaMemcpy(a.data(), ref, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost));
    double num = 0, den = 0, mx = 0; size_t bits = 0;
    for (size_t i = 0; i < n; ++i) {
      double d = double(a[i]) - b[i]; num += d * d; den += double(a[i]) * a[i];
      mx = std::max(mx, std::fabs(d)); bits += a[i] != b[i];
    }
    static char buf[128];
    std::snprintf(buf, sizeof buf, "rel_l2 %.1e max %.1e differ %zu", std::sqrt(num / den), mx, bits);
    return buf;
  };
  const double bound = 8.0 * n / 4.0e12 * 1e6; // us at 4.0 TB/s: read in, write out
  std::printf("4096^2 fp32, median of 20 events (L2 flushed); bandwidth bound %.1f us\n", bound);
  dim3 nb(16, 16);
  float tn = timeit([&] { naive<7><<<dim3(cdiv(w, 16), cdiv(h, 16)), nb>>>(in, f, ref, h, w); });
  std::printf("%-24s %8.1f us  %5.1f %% of bound\n", "7x7 naive 16x16", tn, 100 * bound / tn);
#define T7(R, C, BX, BY)                                                                               \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    CK(cudaMemset(out, 0, n * 4));                                                                 \
    float t = timeit([&] { tile<7, R, C><<<g, bl>>>(in, f, out, h, w); });                         \
    std::printf("7x7 R%d C%d %3dx%-3d       %8.1f us  %5.1f %% of bound  %s\n", R, C, BX, BY, t,    \
                100 * bound / t, compare());                                                       \
  }
  T7(8, 1, 32, 8) T7(4, 1, 32, 8) T7(8, 2, 32, 4) T7(4, 2, 32, 8) T7(4, 4, 32, 4) T7(8, 4, 32, 2)
  T7(2, 4, 32, 8) T7(2, 8, 32, 8) T7(4, 8, 32, 2)
#define W7(R, C, BX, BY)                                                                               \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    CK(cudaMemset(out, 0, n * 4));                                                                 \
    float t = timeit([&] { whole<7, R, C><<<g, bl>>>(in, f, out, h, w); });                        \
    std::printf("7x7 whole R%d C%d %3dx%-3d %8.1f us  %5.1f %% of bound  %s\n", R, C, BX, BY, t,    \
                100 * bound / t, compare());                                                       \
  }
  W7(4, 1, 32, 8) W7(8, 1, 32, 8) W7(4, 2, 32, 8) W7(8, 2, 32, 4) W7(2, 2, 32, 8) W7(2, 4, 32, 8) W7(4, 4, 32, 4)
#define V7(KER, R, C, BX, BY)                                                                          \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    CK(cudaMemset(out, 0, n * 4));                                                                 \
    float t = timeit([&] { KER<7, R, C><<<g, bl>>>(in, f, out, h, w); });                          \
    std::printf("7x7 %-6s R%d C%d %3dx%-3d %8.1f us  %5.1f %% of bound  %s\n", #KER, R, C, BX, BY, t, \
                100 * bound / t, compare());                                                       \
  }
  V7(tilev, 8, 4, 32, 2) V7(tilev, 8, 4, 32, 4) V7(tilev, 4, 4, 32, 4) V7(tilev, 4, 4, 32, 8)
  V7(tilev, 8, 4, 16, 8) V7(tilev, 4, 8, 32, 4) V7(tilev, 8, 8, 32, 2) V7(tilev, 16, 4, 32, 2)
  V7(tilevs, 8, 4, 32, 2) V7(tilevs, 8, 4, 32, 4) V7(tilevs, 4, 4, 32, 4) V7(tilevs, 4, 8, 32, 4)
  float t5 = timeit([&] { naive<5><<<dim3(cdiv(w, 16), cdiv(h, 16)), nb>>>(in, f, ref, h, w); });
  std::printf("%-24s %8.1f us  %5.1f %% of bound\n", "5x5 naive 16x16", t5, 100 * bound / t5);
#define T5(R, C, BX, BY)                                                                               \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    float t = timeit([&] { tile<5, R, C><<<g, bl>>>(in, f, out, h, w); });                         \
    std::printf("5x5 R%d C%d %3dx%-3d       %8.1f us  %5.1f %% of bound  %s\n", R, C, BX, BY, t,    \
                100 * bound / t, compare());                                                       \
  }
  T5(8, 1, 32, 8) T5(8, 2, 32, 4) T5(4, 4, 32, 4) T5(4, 2, 32, 8) T5(8, 4, 32, 2)
#define W5(R, C, BX, BY)                                                                               \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    float t = timeit([&] { whole<5, R, C><<<g, bl>>>(in, f, out, h, w); });                        \
    std::printf("5x5 whole R%d C%d %3dx%-3d %8.1f us  %5.1f %% of bound  %s\n", R, C, BX, BY, t,    \
                100 * bound / t, compare());                                                       \
  }
  W5(4, 1, 32, 8) W5(8, 1, 32, 8) W5(4, 2, 32, 8) W5(8, 2, 32, 4) W5(4, 4, 32, 4)
#define V5(KER, R, C, BX, BY)                                                                          \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    float t = timeit([&] { KER<5, R, C><<<g, bl>>>(in, f, out, h, w); });                          \
    std::printf("5x5 %-6s R%d C%d %3dx%-3d %8.1f us  %5.1f %% of bound  %s\n", #KER, R, C, BX, BY, t, \
                100 * bound / t, compare());                                                       \
  }
  V5(tilev, 8, 4, 32, 2) V5(tilev, 8, 4, 32, 4) V5(tilev, 4, 4, 32, 4) V5(tilev, 4, 4, 32, 8)
  V5(tilev, 4, 8, 32, 4) V5(tilev, 8, 8, 32, 2) V5(tilevs, 8, 4, 32, 4) V5(tilevs, 4, 4, 32, 8)
  {
    float t3 = timeit([&] { naive<3><<<dim3(cdiv(w, 16), cdiv(h, 16)), nb>>>(in, f, ref, h, w); });
    std::printf("%-24s %8.1f us  %5.1f %% of bound\n", "3x3 naive 16x16", t3, 100 * bound / t3);
#define V3(KER, R, C, BX, BY)                                                                          \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    float t = timeit([&] { KER<3, R, C><<<g, bl>>>(in, f, out, h, w); });                          \
    std::printf("3x3 %-6s R%d C%d %3dx%-3d %8.1f us  %5.1f %% of bound  %s\n", #KER, R, C, BX, BY, t, \
                100 * bound / t, compare());                                                       \
  }
    V3(tile, 8, 1, 32, 8) V3(tile, 8, 2, 32, 4) V3(tilev, 8, 4, 32, 4) V3(tilev, 4, 4, 32, 8) V3(tilevs, 4, 4, 32, 8)
    V3(tilevs, 8, 4, 32, 4)
    std::printf("restore 5x5 reference\n");
    naive<5><<<dim3(cdiv(w, 16), cdiv(h, 16)), nb>>>(in, f, ref, h, w);
  }
  float ts = timeit([&] { sep_naive<<<dim3(cdiv(w, 16), cdiv(h, 16)), nb>>>(in, fx, fy, ref, h, w); });
  std::printf("%-24s %8.1f us  %5.1f %% of bound\n", "sep naive 16x16", ts, 100 * bound / ts);
#define TS(R, C, SH, BX, BY)                                                                           \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    float t = timeit([&] { sep_tile<R, C, SH><<<g, bl>>>(in, fx, fy, out, h, w); });               \
    std::printf("sep R%d C%d share %d %3dx%-3d %8.1f us  %5.1f %% of bound  %s\n", R, C, SH, BX, BY, \
                t, 100 * bound / t, compare());                                                    \
  }
  TS(8, 1, false, 32, 8) TS(8, 1, true, 32, 8) TS(8, 2, false, 32, 4) TS(8, 2, true, 32, 4)
  TS(4, 4, true, 32, 4) TS(8, 4, true, 32, 2) TS(16, 1, true, 32, 4) TS(16, 2, true, 32, 4)
#define VS(R, C, BX, BY)                                                                               \
  {                                                                                                \
    dim3 bl(BX, BY), g(cdiv(w, BX * C), cdiv(h, BY * R));                                          \
    float t = timeit([&] { sep_tilev<R, C><<<g, bl>>>(in, fx, fy, out, h, w); });                  \
    std::printf("sep tilev R%d C%d %3dx%-3d %8.1f us  %5.1f %% of bound  %s\n", R, C, BX, BY,       \
                t, 100 * bound / t, compare());                                                    \
  }
  VS(8, 4, 32, 2) VS(8, 4, 32, 4) VS(4, 4, 32, 4) VS(4, 4, 32, 8) VS(4, 8, 32, 4) VS(8, 8, 32, 2)
  return 0;
}
