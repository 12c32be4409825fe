// REQUIRES: cuda
// A row reduction that starts from the output element itself (`float acc =
// y[r];`, what accumulator-promotion leaves of `y[r] += ...` in the loop):
// every lane reads y[r] before anything writes it, so the read is the
// same in every lane and lane 0 alone adds it. A read of the output after
// the write is still declined: only lane 0 would see the new value.
// RUN: forge-port propose %s --kernel matvec_acc --block 256 --rules=cooperative-row --apply -o %t.acc.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=ACC --input-file=%t.acc.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.acc.cu -o /dev/null
// RUN: not forge-port propose %s --kernel reads_back --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=BACK
// RUN: not forge-port propose %s --kernel other_element --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=OTHER

__global__ void matvec_acc(const float *A, const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    size_t base = (size_t)r * cols;
    float acc = y[r];
    for (int k = 0; k < cols; ++k)
      acc += A[base + k] * x[k];
    y[r] = acc;
  }
}
// NOTE: applied expert:cooperative-row
// ACC: float acc = y[r];
// ACC: acc = 0;
// ACC: acc += __shfl_xor_sync(0xffffffff, acc, offset);
// ACC: y[r] = acc;

__global__ void reads_back(const float *A, float *y, float *z, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.f;
    for (int k = 0; k < cols; ++k)
      acc += A[(size_t)r * cols + k];
    y[r] = acc;
    float back = y[r];
    z[r] = 2.f * back;
  }
}
// BACK: cooperative-row: not applicable: 'y' is written outside the row loops (by one lane of the warp) and read by 'y[r]', which every lane runs

// The first read is of another element than the one written.
__global__ void other_element(const float *A, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r + 1 < rows) {
    float acc = y[r + 1];
    for (int k = 0; k < cols; ++k)
      acc += A[(size_t)r * cols + k];
    y[r] = acc;
  }
}
// OTHER: cooperative-row: not applicable: 'y' is written outside the row loops (by one lane of the warp) and read by 'y[r + 1]', which every lane runs
