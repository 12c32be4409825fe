// A local const (template arguments) and a local variable initialised
// from a literal (the block); the grid is computed in a statement before.
#include "sum-kernel.h"

void launch(const float *in, float *out, int n) {
  const int items = 4;
  int threads = 256;
  int blocks = (n + threads * items - 1) / (threads * items);
  hk::blockSum<256, items><<<blocks, threads>>>(in, out, n);
}
