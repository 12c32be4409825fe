// The block size comes from a system header (found through -isystem).
#include <tune_sys.h>
#include "sum-kernel.h"
#define THREADS SUM_SYS_THREADS
constexpr int I = 4;

void launch(const float *in, float *out, int n) {
  hk::blockSum<THREADS, I><<<(n + THREADS * I - 1) / (THREADS * I), THREADS>>>(in, out, n);
}
