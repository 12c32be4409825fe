// REQUIRES: cuda
// Row scans: a running value stored at each element of a per-thread row
// (the model's serial scan over the row loop) gets a warp per row; the
// lanes take 32 consecutive elements a step (4 each as one 16-byte vector
// while the row is aligned), scan their operands with __shfl_up_sync, start
// from the carry and pass the last lane's value on with __shfl_sync.
// Seven spellings are rewritten one after the other into one file, which
// nvcc compiles once.
// RUN: forge-port propose %s --kernel cumsum --block 256 --rules=cooperative-row > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --kernel cumsum --block 256 --rules=cooperative-row --apply -o %t.1.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: forge-port propose %t.1.cu --kernel excl --block 256 --rules=cooperative-row --apply -o %t.2.cu
// RUN: forge-port propose %t.2.cu --kernel run_max --block 256 --rules=cooperative-row --apply -o %t.3.cu
// RUN: forge-port propose %t.3.cu --kernel int_total --block 256 --rules=cooperative-row --apply -o %t.4.cu
// RUN: forge-port propose %t.4.cu --kernel xor_while --block 256 --rules=cooperative-row --apply -o %t.5.cu
// RUN: forge-port propose %t.5.cu --kernel ptr_walk --block 256 --rules=cooperative-row --apply -o %t.6.cu
// RUN: forge-port propose %t.6.cu --kernel prod_size_t --block 256 --rules=cooperative-row --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=SUM --match-full-lines --input-file=%t.cu
// RUN: FileCheck %s --check-prefix=EXCL --match-full-lines --input-file=%t.cu
// RUN: FileCheck %s --check-prefix=MAX --match-full-lines --input-file=%t.cu
// RUN: FileCheck %s --check-prefix=INT --match-full-lines --input-file=%t.cu
// RUN: FileCheck %s --check-prefix=WHILE --match-full-lines --input-file=%t.cu
// RUN: FileCheck %s --check-prefix=PTR --match-full-lines --input-file=%t.cu
// RUN: FileCheck %s --check-prefix=PROD --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

// Inclusive sum, the naive kernel of utils/bench/naive/row_cumsum.cu.
__global__ void cumsum(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float run = 0.f;
  for (int c = 0; c < cols; ++c) {
    run += in[(size_t)r * cols + c];
    out[(size_t)r * cols + c] = run;
  }
}
// NOTE: note: applied expert:cooperative-row: one warp per row for the row scan (inclusive, +) of 'run' (lanes take consecutive elements, warp scans with shuffles)
// WHY: # expert:cooperative-row: one warp per row for the row scan (inclusive, +) of 'run'
// WHY: The floating-point scan is re-associated
// WHY-SAME: the spec's tolerance judges it.
// WHY-SAME: launch it with gridDim.x = 32 x the original.
// WHY-NOT: one block per row
// SUM-LABEL: __global__ void cumsum(const float *in, float *out, int rows, int cols) {
// SUM:      for (int c = 4 * lane; c + 3 + 4 * (31 - lane) < cols; c += 128) {
// SUM-NEXT:   const float4 in_v = *reinterpret_cast<const float4 *>(&in[(size_t)r * cols + c]);
// SUM-NEXT:   float4 out_v;
// SUM:        float run_x0 = 0;
// SUM-NEXT:   run_x0 += in_v.x;
// SUM:        float run_scan = run_x0;
// SUM-NEXT:   run_scan += run_x1;
// SUM-NEXT:   run_scan += run_x2;
// SUM-NEXT:   run_scan += run_x3;
// SUM-NEXT:   #pragma unroll
// SUM-NEXT:   for (int offset = 1; offset < 32; offset *= 2) {
// SUM-NEXT:     const float run_up = __shfl_up_sync(0xffffffff, run_scan, offset);
// SUM-NEXT:     if (lane >= offset)
// SUM-NEXT:       run_scan = run_up + run_scan;
// SUM-NEXT:   }
// SUM-NEXT:   const float run_before = __shfl_up_sync(0xffffffff, run_scan, 1);
// SUM-NEXT:   if (lane != 0)
// SUM-NEXT:     run += run_before;
// SUM-NEXT:   {
// SUM-NEXT:     run += run_x0;
// SUM-NEXT:     out_v.x = run;
// SUM-NEXT:   }
// SUM:        *reinterpret_cast<float4 *>(&out[(size_t)r * cols + c]) = out_v;
// SUM-NEXT:   run = __shfl_sync(0xffffffff, run, 31); // the carry: lane 31's value
// SUM-NEXT: }
// SUM-NEXT: c_rest = cols > 0 ? cols / 128 * 128 : 0;
// SUM:      for (int c = c_rest + lane; c < cols; c += 32) {
// SUM:        const int run_lanes = cols - (c - lane) < 32 ? (int)(cols - (c - lane)) : 32;
// SUM-NEXT:   const unsigned int run_mask = run_lanes == 32 ? 0xffffffffu : (1u << run_lanes) - 1u;
// SUM-NEXT:   float run_x = 0;
// SUM-NEXT:   run_x += in[(size_t)r * cols + c];
// SUM:          const float run_up = __shfl_up_sync(run_mask, run_scan, offset);
// SUM:        run += run_x;
// SUM-NEXT:   out[(size_t)r * cols + c] = run;
// SUM-NEXT:   run = __shfl_sync(run_mask, run, run_lanes - 1); // the carry: the last lane's value
// SUM-NEXT: }
// SUM-NEXT: }
// SUM-NEXT: __syncwarp();
// SUM-NEXT: run = __shfl_sync(0xffffffff, run, 0); // the value after the row, in every lane

// Exclusive: the store reads the value before the update; the element is
// loaded into a local first (the scalar loop only: the update reads a local
// of the body).
__global__ void excl(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float run = 0.0f;
    for (int c = 0; c < cols; ++c) {
      float x = in[(size_t)r * cols + c];
      out[(size_t)r * cols + c] = run;
      run += x;
    }
  }
}
// EXCL-LABEL: __global__ void excl(const float *in, float *out, int rows, int cols) {
// EXCL:      for (int c = lane; c < cols; c += 32) {
// EXCL-NEXT:   float x = in[(size_t)r * cols + c];
// EXCL:        float run_x = 0;
// EXCL-NEXT:   run_x += x;
// EXCL:        if (lane != 0)
// EXCL-NEXT:     run += run_before;
// EXCL-NEXT:   out[(size_t)r * cols + c] = run;
// EXCL-NEXT:   run += run_x;
// EXCL-NEXT:   run = __shfl_sync(run_mask, run, run_lanes - 1); // the carry: the last lane's value

// A running maximum (fmaxf), its start not the identity.
__global__ void run_max(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float m = -1e30f;
  for (int c = 0; c < cols; ++c) {
    m = fmaxf(m, in[(size_t)r * cols + c]);
    out[(size_t)r * cols + c] = m;
  }
}
// MAX-LABEL: __global__ void run_max(const float *in, float *out, int rows, int cols) {
// MAX:        float m_x0 = __int_as_float(0xff800000);
// MAX-NEXT:   m_x0 = fmaxf(m_x0, in_v.x);
// MAX:        m_scan = fmaxf(m_scan, m_x3);
// MAX:            m_scan = fmaxf(m_up, m_scan);
// MAX:          m = fmaxf(m, m_before);

// Integers with the row's total kept after the loop (lane 0 writes it).
__global__ void int_total(const int *in, int *out, int *total, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int run = 0;
  for (int c = 0; c < cols; c++) {
    run = run + in[r * cols + c];
    out[r * cols + c] = run;
  }
  total[r] = run;
}
// INT-LABEL: __global__ void int_total(const int *in, int *out, int *total, int rows, int cols) {
// INT:        const int4 in_v = *reinterpret_cast<const int4 *>(&in[r * cols + c]);
// INT:        int run_x0 = 0;
// INT-NEXT:   run_x0 = run_x0 + in_v.x;
// INT:        run = __shfl_sync(0xffffffff, run, 0); // the value after the row, in every lane
// INT-NEXT:   if (lane == 0)
// INT-NEXT:     total[r] = run;

// A while loop, xor over unsigned values.
__global__ void xor_while(const unsigned *in, unsigned *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  unsigned run = 0;
  int c = 0;
  while (c < cols) {
    run ^= in[r * cols + c];
    out[r * cols + c] = run;
    c++;
  }
}
// WHILE-LABEL: __global__ void xor_while(const unsigned *in, unsigned *out, int rows, int cols) {
// WHILE:      int c = lane;
// WHILE-NEXT: __syncwarp();
// WHILE-NEXT: #pragma unroll 4
// WHILE-NEXT: while (c < cols) {
// WHILE:        unsigned int run_x = 0;
// WHILE-NEXT:   run_x ^= in[r * cols + c];
// WHILE:            run_scan = run_up ^ run_scan;
// WHILE:        run ^= run_x;
// WHILE-NEXT:   out[r * cols + c] = run;
// WHILE-NEXT:   c += 32;
// WHILE-NEXT:   run = __shfl_sync(run_mask, run, run_lanes - 1); // the carry: the last lane's value
// WHILE-NEXT: }

// Row pointers, a running minimum written as a ternary of ints.
__global__ void ptr_walk(const int *in, int *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const int *p = in + r * cols;
  int *q = out + r * cols;
  int lo = 2147483647;
  for (int c = 0; c < cols; ++c) {
    lo = p[c] < lo ? p[c] : lo;
    q[c] = lo;
  }
}
// PTR-LABEL: __global__ void ptr_walk(const int *in, int *out, int rows, int cols) {
// PTR:        if ((((unsigned long long)(&p[0]) | (unsigned long long)(&q[0])) & 15) == 0) {
// PTR:          int lo_x0 = 2147483647;
// PTR-NEXT:     lo_x0 = p_v.x < lo_x0 ? p_v.x : lo_x0;
// PTR:              lo_scan = (lo_scan < lo_up ? lo_scan : lo_up);

// size_t indices, a running product of doubles (2 per lane as double2).
__global__ void prod_size_t(const double *in, double *out, size_t rows, size_t cols) {
  size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  double run = 1.0;
  for (size_t c = 0; c < cols; ++c) {
    run *= in[r * cols + c];
    out[r * cols + c] = run;
  }
}
// PROD-LABEL: __global__ void prod_size_t(const double *in, double *out, size_t rows, size_t cols) {
// PROD:        for (size_t c = 2 * lane; c + 1 + 2 * (31 - lane) < cols; c += 64) {
// PROD:          double run_x1 = 1;
// PROD-NEXT:     run_x1 *= in_v.y;
// PROD:        c_rest = cols > 0 ? cols / 64 * 64 : 0;

// PTX: shfl.sync.up.b32
// PTX: shfl.sync.idx.b32
