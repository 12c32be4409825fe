// Template arguments through constants defined in a project header.
#include "sum-kernel.h"
#include "tune-config.h"

void launch(const float *in, float *out, int n) {
  constexpr int B = SUM_BLOCK;
  constexpr int I = kSumItems;
  hk::blockSum<B, I><<<(n + B * I - 1) / (B * I), B>>>(in, out, n);
}
