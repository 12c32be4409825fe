// "CUDA by Example" (ch. 9) histogram with shared-memory atomics: each
// block zeroes one bin per thread (blocks of 256), walks the buffer with a
// grid-stride while loop over a 'long' size and adds its bins to the
// global histogram; launched, as in the book, with twice as many blocks as
// the GPU has SMs.
__global__ void hist_book(unsigned char *buffer, long size, unsigned int *histo) {
  __shared__ unsigned int temp[256];
  temp[threadIdx.x] = 0;
  __syncthreads();
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int offset = blockDim.x * gridDim.x;
  while (i < size) {
    atomicAdd(&temp[buffer[i]], 1);
    i += offset;
  }
  __syncthreads();
  atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);
}
