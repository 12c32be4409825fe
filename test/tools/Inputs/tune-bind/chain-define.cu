// Template arguments through macros defined as other macros.
#include "sum-kernel.h"
#define DEFAULT_THREADS 256
#define DEFAULT_ITEMS 4
#define THREADS DEFAULT_THREADS
#define PER_THREAD (DEFAULT_ITEMS)

void launch(const float *in, float *out, int n) {
  hk::blockSum<THREADS, PER_THREAD>
      <<<(n + THREADS * PER_THREAD - 1) / (THREADS * PER_THREAD), THREADS>>>(in, out, n);
}
