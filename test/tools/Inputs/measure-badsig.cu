// The saxpy of measure-build.cu with y as double: the spec says f32.
namespace ns {
template <typename T, int BLOCK>
__global__ void saxpy(int n, T a, const T *x, double *y) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
} // namespace ns
