// Transpose with the thread's coordinates computed in __device__ helpers and
// unsigned positions.
__device__ __forceinline__ unsigned gx() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ unsigned gy() { return blockIdx.y * blockDim.y + threadIdx.y; }
__global__ void transpose_gid(const float *in, float *out, unsigned rows, unsigned cols) {
  unsigned x = gx(), y = gy();
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}
void run_transpose_gid(const float *in, float *out, unsigned rows, unsigned cols) {
  transpose_gid<<<dim3((cols + 15) / 16, (rows + 15) / 16), dim3(16, 16)>>>(in, out, rows, cols);
}
