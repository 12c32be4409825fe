// A row loop: one thread per row of a rows x cols matrix. The matrix is
// rows * cols, x is cols and y is rows; the grid covers the rows.
// RUN: forge-port spec %s --kernel matvec -- %cuda_mock_flags > %t.json
// RUN: FileCheck %s --input-file=%t.json
__global__ void matvec(const float *A, const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c)
      acc += A[row * cols + c] * x[c];
    y[row] = acc;
  }
}
// CHECK:      "sizes": {
// CHECK-NEXT:   "cols": 4096,
// CHECK-NEXT:   "rows": 4096
// CHECK:        "name": "A",
// CHECK:        "count": "cols * rows",
// CHECK:        "name": "x",
// CHECK:        "count": "cols",
// CHECK:        "name": "y",
// CHECK:        "count": "rows",
// CHECK:        "value": "rows"
// CHECK:        "value": "cols"
// CHECK:      "grid": "ceil_div(rows, BLOCK)",
// CHECK-NEXT: "block": "BLOCK",
// CHECK:      "notes": [
// CHECK:        "grid.x covers rows threads, from 'row < rows' (line 7)",
