// The block size is chosen at run time: nothing can be written there.
#include "sum-kernel.h"

void launch(const float *in, float *out, int n) {
  int threads = 256;
  if (n < 4096)
    threads = 128;
  if (threads == 256)
    hk::blockSum<256, 4><<<(n + 1023) / 1024, threads>>>(in, out, n);
}
