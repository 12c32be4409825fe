// REQUIRES: cuda
// Row scans the rule declines, each with its reason.
// RUN: not forge-port propose %s --kernel other_column --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=COLUMN
// RUN: not forge-port propose %s --kernel decay --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=DECAY
// RUN: not forge-port propose %s --kernel two_carried --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not forge-port propose %s --kernel every_other --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not forge-port propose %s --kernel late_operand --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=LATE

// The running value is stored at its element, and something else at another
// column of the row.
__global__ void other_column(const float *in, float *out, float *rev, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float run = 0.0f;
  for (int c = 0; c < cols; ++c) {
    run += in[(size_t)r * cols + c];
    out[(size_t)r * cols + c] = run;
    rev[(size_t)r * cols + cols - 1 - c] = in[(size_t)r * cols + c];
  }
}
// COLUMN: forge-port: note: cooperative-row: not applicable: the scan of 'run' over the row loop 'c' at line {{[0-9]+}} writes 'rev[(size_t)r * cols + cols - 1 - c]', which is not the element 'out[(size_t)r * cols + c]' where the running value is stored at that step; each lane stores only at its own element of the row

// Not associative: a decayed sum.
__global__ void decay(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float run = 0.0f;
  for (int c = 0; c < cols; ++c) {
    run = run * 0.5f + in[(size_t)r * cols + c];
    out[(size_t)r * cols + c] = run;
  }
}
// DECAY: not applicable: the row loop over 'c' at line {{[0-9]+}} carries 'run' from one iteration to the next, and it is not a reduction over this loop with an associative operator (+, *, min, max, &, |, ^), nor a running value stored at each element (a scan)

// A second carried value that is not a reduction (the last element).
__global__ void two_carried(const float *in, float *out, float *tail, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float run = 0.0f, last = 0.0f;
  for (int c = 0; c < cols; ++c) {
    run += in[(size_t)r * cols + c];
    out[(size_t)r * cols + c] = run;
    last = in[(size_t)r * cols + c];
  }
  tail[r] = last;
}
// TWO: not applicable: the row loop over 'c' at line {{[0-9]+}} carries 'last' from one iteration to the next, and it is not a reduction over this loop with an associative operator (+, *, min, max, &, |, ^), nor a running value stored at each element (a scan) other than 'run'

// Every other element: the lanes could not take 32 consecutive ones.
__global__ void every_other(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float run = 0.0f;
  for (int c = 0; c < cols; c += 2) {
    run += in[(size_t)r * cols + c];
    out[(size_t)r * cols + c] = run;
  }
}
// STEP: not applicable: the scan of 'run' over the row loop 'c' at line {{[0-9]+}}: the lanes of a warp walk a scanned row together, 32 consecutive elements a step, so the loop must count up by one to a '<' bound; it runs while 'c < cols' stepping by 2

// Exclusive, with the operand loaded after the store of the running value:
// the lanes' scan needs the operands before the first read.
__global__ void late_operand(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float run = 0.0f;
  for (int c = 0; c < cols; ++c) {
    out[(size_t)r * cols + c] = run;
    float x = in[(size_t)r * cols + c];
    run += x;
  }
}
// LATE: not applicable: the scan of 'run' over the row loop 'c' at line {{[0-9]+}}: its update (line {{[0-9]+}}) reads 'x', which line {{[0-9]+}} before it declares, after 'run' is first read; the lanes' scan needs the operands there
