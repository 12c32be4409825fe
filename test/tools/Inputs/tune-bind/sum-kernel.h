// The block reduction the tune-bind tests launch: BLOCK_THREADS threads
// (a power of two), each summing ITEMS_PER_THREAD elements a block apart.
namespace hk {
template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void blockSum(const float *__restrict__ in, float *out, int n) {
  __shared__ float partial[BLOCK_THREADS];
  int base = blockIdx.x * BLOCK_THREADS * ITEMS_PER_THREAD + threadIdx.x;
  float v = 0.0f;
#pragma unroll
  for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
    int i = base + k * BLOCK_THREADS;
    if (i < n)
      v += in[i];
  }
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = BLOCK_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}
} // namespace hk
