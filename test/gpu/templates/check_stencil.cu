// GPU check of a stencil sample against a CPU reference (test/gpu/templates/
// check.py compiles this with the sample's macros). Runs the sample's host
// wrapper on random inputs and weights, twice: with the allocations' own
// (16-byte aligned) pointers, and with the input, weights and output one
// element in (misaligned, so the element loads run everywhere); compares
// every output element, and checks that the element just past (or before)
// the output was not written.
#include FORGE_SAMPLE_FILE
#include "check_common.h"

typedef FORGE_T T;

#if FORGE_BORDER_ZERO
static const bool zeroBorder = true;
#else
static const bool zeroBorder = false;
#endif

// The extents outermost first: depth, height, width (missing ones 1).
static const long long D = FORGE_RANK == 3 ? FORGE_S0 : 1;
static const long long H = FORGE_RANK == 3 ? FORGE_S1 : FORGE_RANK == 2 ? FORGE_S0 : 1;
static const long long W = FORGE_RANK == 3 ? FORGE_S2 : FORGE_RANK == 2 ? FORGE_S1 : FORGE_S0;
static const int FD = FORGE_FILTER_RANK == 3 ? FORGE_F0 : 1;
static const int FH = FORGE_FILTER_RANK == 3 ? FORGE_F1 : FORGE_FILTER_RANK == 2 ? FORGE_F0 : 1;
static const int FW = FORGE_FILTER_RANK == 3 ? FORGE_F2
                      : FORGE_FILTER_RANK == 2 ? FORGE_F1
                                               : FORGE_F0;

// in[z][y][x] under the border, in double.
static double at(const T *in, long long z, long long y, long long x) {
  if (z < 0 || z >= D || y < 0 || y >= H || x < 0 || x >= W) {
    if (zeroBorder)
      return 0.0;
    z = z < 0 ? 0 : z >= D ? D - 1 : z;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
  }
  return (double)in[(z * H + y) * W + x];
}

// The correlation in double; w is FD x FH x FW row-major (for a separable
// filter, wr then wc: w[dy][dx] = wc[dy] * wr[dx]).
static std::vector<T> reference(const T *in, const T *w) {
  std::vector<T> want((size_t)(D * H * W));
  for (long long z = 0; z < D; ++z)
    for (long long y = 0; y < H; ++y)
      for (long long x = 0; x < W; ++x) {
        double acc = 0;
        for (int dz = 0; dz < FD; ++dz)
          for (int dy = 0; dy < FH; ++dy)
            for (int dx = 0; dx < FW; ++dx) {
#if FORGE_SEPARABLE
              const double wt = (double)w[dx] * (double)w[FW + dy];
#else
              const double wt = (double)w[(dz * FH + dy) * FW + dx];
#endif
              acc += wt * at(in, z + dz - FD / 2, y + dy - FH / 2, x + dx - FW / 2);
            }
        want[(size_t)((z * H + y) * W + x)] = (T)acc;
      }
  return want;
}

int main() {
  if (FORGE_FILTER_RANK != FORGE_RANK) {
    std::printf("FAIL %s: a filter of rank %d for a shape of rank %d\n", FORGE_STR(FORGE_WRAPPER),
                FORGE_FILTER_RANK, FORGE_RANK);
    return 1;
  }
  const size_t count = (size_t)(D * H * W);
  const size_t taps = FORGE_SEPARABLE ? (size_t)(FW + FH) : (size_t)(FD * FH * FW);
  std::vector<T> in(count + 1), w(taps + 1);
  forge_check::fill(in, 1);
  forge_check::fill(w, 2);
  // Sums of up to 49 f32 taps in another order than the reference's.
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  for (int offset = 0; offset <= 1; ++offset) {
    std::vector<T> want = reference(in.data() + offset, w.data() + offset);
    forge_check::DeviceBuffer<T> din(in), dw(w), dout(count + 1);
    const T *pin = din.get() + offset, *pw = dw.get() + offset;
    T *pout = dout.get() + offset;
    // Launched twice: nothing of the first launch may leak into the second.
    for (int launch = 0; launch < 2; ++launch) {
#if FORGE_RANK == 1
      FORGE_CHECK_CUDA(FORGE_WRAPPER(pin, pw, pout, (int)W));
#elif FORGE_RANK == 2 && FORGE_SEPARABLE
      FORGE_CHECK_CUDA(FORGE_WRAPPER(pin, pw, pw + FW, pout, (int)H, (int)W));
#elif FORGE_RANK == 2
      FORGE_CHECK_CUDA(FORGE_WRAPPER(pin, pw, pout, (int)H, (int)W));
#else
      FORGE_CHECK_CUDA(FORGE_WRAPPER(pin, pw, pout, (int)D, (int)H, (int)W));
#endif
    }
    FORGE_CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<T> got = dout.read();
    // DeviceBuffer fills with 0xff bytes (a NaN): the element outside the
    // output must still be one.
    const T guard = got[offset ? 0 : count];
    if (!std::isnan((double)guard)) {
      std::printf("FAIL %s: the element %s the output was written (%.9g)\n",
                  FORGE_STR(FORGE_WRAPPER), offset ? "before" : "after", (double)guard);
      return 1;
    }
    got.erase(got.begin(), got.begin() + offset);
    got.resize(count);
    if (!forge_check::close(got, want, tol, offset ? "misaligned" : "aligned"))
      return 1;
  }
  return forge_check::pass();
}
