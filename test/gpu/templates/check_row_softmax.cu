// GPU check of a row-softmax sample against a CPU reference (test/gpu/
// templates/check.py compiles this with the sample's macros; see README.md
// there).
//
// For the sample's rows x cols and a few other shapes (chosen to reach the
// three paths of the kernel: a warp per row, a block per row in registers,
// a block per row in two passes), with both pointers at their allocation
// (16-byte aligned rows when cols allows it) and one element in (every row
// misaligned): the wrapper, then the kernel launched directly with other
// BLOCK / WARP_ITEMS / ITEMS (and one grid smaller than the rows, for the
// rows' grid-stride loop). Inputs are uniform in [-8, 8), and the first
// rows are special: masked columns (-inf), equal values, a value of 80
// (exp overflows without the maximum subtracted), a row of only -inf
// (NaN: 0 / 0). Every element is compared with a double-precision
// reference: within 2e-5 relative for f32, the output's rounding for f16
// and bf16; NaN where the reference is NaN.
#include FORGE_SAMPLE_FILE
#include "check_common.h"
#include <algorithm>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <string>

typedef FORGE_T T;

namespace check_row_softmax {

double toD(__half x) { return (double)__half2float(x); }
double toD(__nv_bfloat16 x) { return (double)__bfloat162float(x); }
double toD(float x) { return (double)x; }

template <typename V> V fromDT(double d) { return (V)d; }
template <> __half fromDT<__half>(double d) { return __float2half_rn((float)d); }
template <> __nv_bfloat16 fromDT<__nv_bfloat16>(double d) { return __float2bfloat16_rn((float)d); }
T fromD(double d) { return fromDT<T>(d); }

constexpr int Vec = 16 / sizeof(T);

/// Relative tolerance and the absolute floor (f16's subnormal step).
double relTol() {
  if (std::is_same<T, __half>::value)
    return 2.0 / 2048;
  if (std::is_same<T, __nv_bfloat16>::value)
    return 2.0 / 256;
  return 2e-5;
}
double absTol() { return std::is_same<T, __half>::value ? 1.2e-7 : 1e-37; }

std::vector<T> makeInput(long long rows, long long cols, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-8, 8);
  std::vector<T> x((size_t)(rows * cols) + 1);
  for (auto &v : x)
    v = fromD(u(g));
  const double inf = std::numeric_limits<double>::infinity();
  for (long long c = 0; c < cols; ++c) {
    if (rows > 0 && c % 3 == 1)
      x[c] = fromD(-inf); // masked columns
    if (rows > 1)
      x[cols + c] = fromD(1.5); // all equal
    if (rows > 2 && c == cols / 2)
      x[2 * cols + c] = fromD(80); // exp(80) overflows float
    if (rows > 3)
      x[3 * cols + c] = fromD(-inf); // 0 / 0
  }
  return x;
}

std::vector<double> reference(const T *x, long long rows, long long cols) {
  std::vector<double> y((size_t)(rows * cols));
  for (long long r = 0; r < rows; ++r) {
    const T *row = x + r * cols;
    double m = -std::numeric_limits<double>::infinity();
    for (long long c = 0; c < cols; ++c)
      m = std::fmax(m, toD(row[c]));
    double s = 0;
    for (long long c = 0; c < cols; ++c)
      s += std::exp(toD(row[c]) - m);
    for (long long c = 0; c < cols; ++c)
      y[r * cols + c] = std::exp(toD(row[c]) - m) / s;
  }
  return y;
}

/// Launches one configuration (-1: the wrapper) with the grid the kernel
/// wants (a warp or a block per row), or 3 blocks for config 4.
template <int B, int W, int I> void launch(const T *in, T *out, int rows, int cols, bool few) {
  long long grid = cols <= 32 * W ? (rows + B / 32 - 1) / (B / 32) : rows;
  if (few)
    grid = 3;
  FORGE_NAME<B, W, I><<<(unsigned int)grid, B>>>(in, out, rows, cols);
}

void run(int config, const T *in, T *out, int rows, int cols) {
  switch (config) {
  case -1: FORGE_CHECK_CUDA(FORGE_WRAPPER(in, out, rows, cols)); break;
  case 0: launch<32, Vec, Vec>(in, out, rows, cols, false); break;     // online beyond 32 * Vec
  case 1: launch<64, Vec, 2 * Vec>(in, out, rows, cols, false); break; // registers up to 128 * Vec
  case 2: launch<1024, 32, 32>(in, out, rows, cols, false); break;     // warp to 1024, block to 32K
  case 3: launch<128, 16, Vec>(in, out, rows, cols, false); break;
  default: launch<256, Vec, Vec>(in, out, rows, cols, true); break; // 3 blocks, many rows each
  }
  FORGE_CHECK_CUDA(cudaGetLastError());
  FORGE_CHECK_CUDA(cudaDeviceSynchronize());
}

bool compare(const std::vector<T> &got, const std::vector<double> &want, const char *what) {
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = toD(got[i]), w = want[i];
    bool ok = std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= relTol() * std::fabs(w) + absTol();
    if (!ok && bad++ < 5)
      std::printf("  %s: [%zu] = %.9g, want %.9g\n", what, i, g, w);
  }
  if (bad) {
    std::printf("FAIL %s (%s): %zu of %zu elements differ\n", FORGE_STR(FORGE_WRAPPER), what, bad,
                want.size());
    return false;
  }
  return true;
}

} // namespace check_row_softmax

using namespace check_row_softmax;

int main() {
  // The sample's shape, then shapes for each path of each configuration.
  std::vector<std::pair<long long, long long>> shapes = {
      {FORGE_S0, FORGE_S1}, {5, 1},  {9, 33},    {6, 257},  {5, 1000},
      {4, 1025},            {4, 4099}, {3, 9001}, {2, 33000}};
  int checks = 0;
  unsigned seed = 1;
  for (size_t si = 0; si < shapes.size(); ++si) {
    const long long rows = shapes[si].first, cols = shapes[si].second;
    if (si > 0 && rows == FORGE_S0 && cols == FORGE_S1)
      continue;
    std::vector<T> x = makeInput(rows, cols, ++seed);
    forge_check::DeviceBuffer<T> din(x), dout(x.size());
    for (int offset = 0; offset <= 1; ++offset) {
      std::vector<double> want = reference(x.data() + offset, rows, cols);
      for (int config = -1; config < 5; ++config) {
        FORGE_CHECK_CUDA(cudaMemset(dout.get(), 0xff, x.size() * sizeof(T))); // NaN
        run(config, din.get() + offset, dout.get() + offset, (int)rows, (int)cols);
        std::vector<T> got = dout.read();
        got.erase(got.begin(), got.begin() + offset);
        got.resize(want.size());
        char what[160];
        std::snprintf(what, sizeof what, "%lld x %lld, offset %d, %s %d", rows, cols, offset,
                      config < 0 ? "the wrapper" : "kernel config", config);
        if (!compare(got, want, what))
          return 1;
        ++checks;
      }
    }
  }
  std::printf("%d comparisons\n", checks);
  return forge_check::pass();
}
