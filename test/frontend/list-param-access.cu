// Reads and writes through pointer parameters: "access" in `list --format=json`
// is "read", "write", "readwrite" or "none" for pointers and null otherwise.
// RUN: forge-port list --format=json %s -- %cuda_mock_flags | FileCheck %s

__device__ void store(float *p, int i, float v) { p[i] = v; }
extern __device__ void opaque(float *p);

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// CHECK-LABEL: "name": "saxpy"
// CHECK: "name": "n",
// CHECK-NOT: "name"
// CHECK: "access": null
// CHECK: "name": "a",
// CHECK-NOT: "name"
// CHECK: "access": null
// CHECK: "name": "x",
// CHECK-NOT: "name"
// CHECK: "access": "read"
// CHECK: "name": "y",
// CHECK-NOT: "name"
// CHECK: "access": "readwrite"

__global__ void scatter(const int *idx, float *out, int *hist, float *rows, float *ext,
                        float *unused, int n) {
  int i = threadIdx.x;
  atomicAdd(&hist[idx[i]], 1);
  float *row = rows + blockIdx.x * n;
  store(row, i, 1.0f);
  reinterpret_cast<float4 *>(out)[i] = float4{1, 2, 3, 4};
  opaque(ext);
}
// CHECK-LABEL: "name": "scatter"
// CHECK: "name": "idx",
// CHECK-NOT: "name"
// CHECK: "access": "read"
// CHECK: "name": "out",
// CHECK-NOT: "name"
// CHECK: "access": "write"
// CHECK: "name": "hist",
// CHECK-NOT: "name"
// CHECK: "access": "readwrite"
// CHECK: "name": "rows",
// CHECK-NOT: "name"
// CHECK: "access": "write"
// CHECK: "name": "ext",
// CHECK-NOT: "name"
// CHECK: "access": "readwrite"
// CHECK: "name": "unused",
// CHECK-NOT: "name"
// CHECK: "access": "none"
// CHECK: "name": "n",
// CHECK-NOT: "name"
// CHECK: "access": null

template <typename T, int ITEMS>
__global__ void axpy(T a, const T *x, T *y, int n) {
  for (int k = 0; k < ITEMS; ++k) {
    int j = threadIdx.x * ITEMS + k;
    if (j < n)
      y[j] += a * x[j];
  }
}
template __global__ void axpy<float, 4>(float, const float *, float *, int);
// CHECK-LABEL: "name": "axpy"
// CHECK: "name": "a",
// CHECK-NOT: "name"
// CHECK: "access": null
// CHECK: "name": "x",
// CHECK-NOT: "name"
// CHECK: "access": "read"
// CHECK: "name": "y",
// CHECK-NOT: "name"
// CHECK: "access": "readwrite"
