// REQUIRES: cuda
// A CSR sparse matrix-vector product (rows start at loaded offsets; the
// warp's lanes share one row, and the bounds are the same for all of them
// because the warp runs one original thread), and the second proposal, a
// block per row, for long rows.

// RUN: forge-port propose %s --kernel spmv_csr --block 256 --rules=cooperative-row --apply -o %t.csr.cu \
// RUN:   2>&1 | FileCheck %s --check-prefix=CSRNOTE
// RUN: FileCheck %s --check-prefix=CSR --match-full-lines --input-file=%t.csr.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.csr.cu -o /dev/null
// CSRNOTE: forge-port: note: applied expert:cooperative-row: one warp per row for the sparse row loop over 'jj' (rows start at loaded offsets, CSR-like) (lanes stride over the row, shuffle reductions)
__global__ void spmv_csr(const int *rowptr, const int *col, const float *val, const float *x,
                         float *y, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float dot = 0;
    for (int jj = rowptr[row]; jj < rowptr[row + 1]; jj++)
      dot += val[jj] * x[col[jj]];
    y[row] = dot;
  }
}
// CSR:          int jj_rest = rowptr[row];
// CSR-NEXT:     if ((((unsigned long long)(&val[rowptr[row]]) | (unsigned long long)(&col[rowptr[row]])) & 15) == 0) {
// CSR-NEXT:       #pragma unroll 4
// CSR-NEXT:       for (int jj = rowptr[row] + 4 * lane; jj + 3 < rowptr[row + 1]; jj += 128) {
// CSR-NEXT:         const float4 val_v = *reinterpret_cast<const float4 *>(&val[jj]);
// CSR-NEXT:         const int4 col_v = *reinterpret_cast<const int4 *>(&col[jj]);
// CSR-NEXT:         dot += val_v.x * x[col_v.x];
// CSR:            jj_rest = rowptr[row] + (rowptr[row + 1] > rowptr[row] ? (rowptr[row + 1] - rowptr[row]) / 4 * 4 : 0);
// CSR-NEXT:     }
// CSR-NEXT:     #pragma unroll 4
// CSR-NEXT:     for (int jj = jj_rest + lane; jj < rowptr[row + 1]; jj += 32)
// CSR-NEXT:       dot += val[jj] * x[col[jj]];
// CSR-NEXT:   }
// CSR:          dot += __shfl_xor_sync(0xffffffff, dot, offset);
// CSR-NEXT:   if (lane == 0)
// CSR-NEXT:     y[row] = dot;

// The block variant: shown second (the first proposal is a warp per row).
// RUN: forge-port propose %s --kernel row_sum --block 256 --rules=cooperative-row > %t.props
// RUN: FileCheck %s --check-prefix=BLK --input-file=%t.props
// RUN: forge-port propose %s --kernel row_sum --block 256 --rules=cooperative-row --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.blk.cu
// RUN: FileCheck %s --check-prefix=BLKFIX --match-full-lines --input-file=%t.blk.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.blk.cu -o - | FileCheck %s --check-prefix=BLKPTX
// BLK: # expert:cooperative-row: one warp per row for the row reduction (+) into 's' (lanes stride over the row, shuffle reductions)
// BLK: # expert:cooperative-row: one block per row for the row reduction (+) into 's' (a block reduction)
// BLK: # {{.*}}blockDim.x must be a multiple of 32 and the block 1D, else the original code runs (checked on the device). No spec geometry is known: launch it with gridDim.x = blockDim.x x the original.
// BLKPTX: bar.sync
__global__ void row_sum(const float *in, float *out, int rows, int cols) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < rows) {
    float s = 0;
    for (int c = 0; c < cols; ++c)
      s += in[tid * cols + c];
    out[tid] = s;
  }
}
// BLKFIX:      if (blockDim.x % 32 != 0 || blockDim.y != 1 || blockDim.z != 1) {
// BLKFIX:        if (blockIdx.x >= gridDim.x / blockDim.x)
// BLKFIX:        const int lane = threadIdx.x;
// BLKFIX-NEXT:   const int lanes = blockDim.x;
// BLKFIX-NEXT:   // The original thread this block runs: its threadIdx.x, blockIdx.x and gridDim.x.
// BLKFIX-NEXT:   const unsigned int orig_tid = blockIdx.x % blockDim.x;
// BLKFIX-NEXT:   const unsigned int orig_bid = blockIdx.x / blockDim.x;
// BLKFIX-NEXT:   const unsigned int orig_grid = gridDim.x / blockDim.x;
// BLKFIX-NEXT:   __shared__ float s_part[32];
// BLKFIX:            for (int c = 4 * lane; c + 3 < cols; c += 4 * lanes) {
// BLKFIX:          for (int c = c_rest + lane; c < cols; c += lanes)
// BLKFIX:          for (int offset = 16; offset > 0; offset /= 2)
// BLKFIX-NEXT:       s += __shfl_xor_sync(0xffffffff, s, offset);
// BLKFIX-NEXT:     if (lane % 32 == 0) {
// BLKFIX-NEXT:       s_part[lane / 32] = s;
// BLKFIX-NEXT:     }
// BLKFIX-NEXT:     __syncthreads();
// BLKFIX-NEXT:     s = s_part[0];
// BLKFIX-NEXT:     for (int w = 1; w < lanes / 32; ++w)
// BLKFIX-NEXT:       s += s_part[w];
// BLKFIX-NEXT:     __syncthreads();
// BLKFIX-NEXT:     if (lane == 0)
// BLKFIX-NEXT:       out[tid] = s;
