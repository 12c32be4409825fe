// A kernel whose spec names its template argument by a typedef ("real"):
// ptxas names the instantiation with the type ("scale<float>"), and the
// file instantiates scale<double> as well, so the harness's kernel cannot be
// told by name in a cubin: the harness is built as a shared library instead
// (measure-build.cu).
typedef float real;

template <class T> __global__ void scale(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= T(2);
}

// The file's own launch instantiates scale<double> too: two kernels of the
// name, neither spelt "real".
void scaleTwice(double *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); }
