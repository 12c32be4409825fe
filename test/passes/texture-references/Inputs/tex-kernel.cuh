// The kernel file of a legacy program, #included by the host file (as
// Rodinia's *_kernel.cu are).
texture<float, 1, cudaReadModeElementType> coeffs;

__device__ float coeff(int i) { return tex1Dfetch(coeffs, i); }

__global__ void weigh(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= coeff(i);
}
