__device__ void f(int *a) {}
__device__ void f(int *a, int b) {}

template <typename T> __device__ void g(T v) { f(v); }
template <typename T> __device__ void h(T v) { g(v); }

__global__ void k(float x) {
  h(x);
}
