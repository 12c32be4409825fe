// A first-round shared-memory tree reduction (the Programming Guide's
// "reduce0" shape): one element per thread, a tree in shared memory halving
// the active threads with a __syncthreads() per step, and one atomicAdd of
// the block's sum. *out must hold 0 before the launch (the spec's init).
// The optimize demonstration's "shared-memory tree reduction" (issue #6).
__global__ void reduce_tree(const float *x, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sdata[0]);
}

void launch_reduce_tree(const float *x, float *out, int n) {
  reduce_tree<<<(n + 255) / 256, 256>>>(x, out, n);
}
