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
// The same shape in the kernel model: `forge-port analyze` prints it.
// RUN: forge-port analyze %s --kernel matvec -- %cuda_mock_flags | FileCheck %s --check-prefix=MODEL
// RUN: forge-port analyze %s --kernel matvec --format=json -- %cuda_mock_flags | FileCheck %s --check-prefix=JSON
// MODEL:      problem:
// MODEL-NEXT:   grid.x: rows threads, from 'row < rows' (line 7)
// MODEL-NEXT:   A: cols * rows elements, from 'A[row * cols + c]' (line 10)
// MODEL-NEXT:   x: cols elements, from 'x[c]' (line 10)
// MODEL-NEXT:   y: rows elements, from 'y[row]' (line 11)
// JSON:      "problem": {
// JSON:        "count": "cols * rows",
