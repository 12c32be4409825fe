// Benchmark op: sum reduction (first-round kernel).
// *out += sum of x[0..n). Each thread sums its elements in a grid-stride
// loop (the spec's grid gives every thread about 256 of them), then adds
// its partial sum to *out with one atomicAdd. No shared memory, no warp
// shuffles. *out must hold 0 before the launch (the spec's init).
//
// Float atomics make the result depend on the order in which the partial
// sums arrive, so two runs can differ in the last bits: the spec's
// tolerance is a relative error of 1e-4 (with inputs in [0, 1) the spread
// between runs is about 1e-5; see README.md).
// Spec size: N = 2^24 (16M floats); the second size is 2^26 (64M).
__global__ void reduce_sum(const float *x, float *out, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    acc += x[i];
  atomicAdd(out, acc);
}

void launch_reduce_sum(const float *x, float *out, int n) {
  const int block = 256, items = 256;
  int grid = (n + block * items - 1) / (block * items);
  reduce_sum<<<grid, block>>>(x, out, n);
}
