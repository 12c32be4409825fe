// GPU check of a transpose sample (out[c * rows + r] = in[r * cols + c])
// against a CPU reference (test/gpu/templates/check.py compiles this with
// the sample's macros; see README.md there). The sample's rows x cols, its
// transpose's shape and a few edge shapes (one row, one column, a tile and
// one more, less than a tile), each with the allocations' own pointers and
// with both pointers one element in; every element compared bit for bit,
// and the elements around the output must stay untouched.
#include FORGE_SAMPLE_FILE
#include "check_move.h"

typedef FORGE_T T;

static bool run(int rows, int cols, int offset, unsigned seed) {
  const long long n = (long long)rows * cols;
  std::vector<T> in(n + 1);
  forge_check::fillBits(in, seed);
  std::vector<T> want(n);
  for (long long r = 0; r < rows; ++r)
    for (long long c = 0; c < cols; ++c)
      want[c * rows + r] = in[offset + r * cols + c];
  forge_check::DeviceBuffer<T> din(in), dout(n + 2);
  FORGE_CHECK_CUDA(FORGE_WRAPPER(din.get() + offset, dout.get() + offset, rows, cols));
  FORGE_CHECK_CUDA(cudaDeviceSynchronize());
  char what[80];
  std::snprintf(what, sizeof what, "%d x %d, offset %d", rows, cols, offset);
  return forge_check::sameAll(dout.read(), offset, want, what);
}

int main() {
  const int shapes[][2] = {{FORGE_S0, FORGE_S1}, {FORGE_S1, FORGE_S0}, {1, 1}, {1, 65},
                           {65, 1},   {63, 65},  {64, 64},   {129, 31}, {7, 300}};
  unsigned seed = 1;
  for (const auto &s : shapes)
    for (int offset = 0; offset <= 1; ++offset)
      if (!run(s[0], s[1], offset, seed++))
        return 1;
  return forge_check::pass();
}
