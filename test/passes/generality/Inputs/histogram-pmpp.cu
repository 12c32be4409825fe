// PMPP-style histogram: the bin address as a pointer sum, one atomic per
// element.
__global__ void hist_basic(int *A, int *H, int N) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < N) {
    int bin_id = A[id];
    atomicAdd(H + bin_id, 1);
  }
}
void run_hist_basic(int *A, int *H, int N) { hist_basic<<<(N + 255) / 256, 256>>>(A, H, N); }
