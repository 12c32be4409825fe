// CUDA by Example's vector add (ch. 5): a grid-stride while loop, the count a
// macro, launched as add<<<128, 128>>>.
#define N (33 * 1024 * 1024)
__global__ void add(int *a, int *b, int *c) {
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  while (tid < N) {
    c[tid] = a[tid] + b[tid];
    tid += blockDim.x * gridDim.x;
  }
}
