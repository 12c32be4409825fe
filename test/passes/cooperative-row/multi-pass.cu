// REQUIRES: cuda
// Multi-pass rows: a 3-pass softmax (max, sum of exp, normalised write) and
// an in-place 2-pass scaling. Every pass is shared by the lanes; the
// butterfly leaves each reduction in every lane for the next pass, and the
// per-element writes are made by every lane, after a __syncwarp so that an
// in-place row is read before it is written.

// RUN: forge-port propose %s --kernel softmax --block 256 --rules=cooperative-row > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// WHY: # expert:cooperative-row: one warp per row for the multi-pass row (3 passes over a row of 'x') (lanes stride over the row, shuffle reductions)
// WHY: # {{.*}}the loop-carried reductions 'mx' (max), 'sum' (+) are combined with an __shfl_xor_sync butterfly{{.*}}
// RUN: forge-port propose %s --kernel softmax --block 256 --rules=cooperative-row --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// PTX-LABEL: .entry {{.*}}softmax
// PTX-COUNT-10: shfl.sync.bfly.b32
// PTX: st.global.v4.f32
__global__ void softmax(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float *yr = y + (size_t)row * cols;
  float mx = -INFINITY;
  for (int j = 0; j < cols; ++j)
    mx = fmaxf(mx, xr[j]);
  float sum = 0.f;
  for (int j = 0; j < cols; ++j)
    sum += expf(xr[j] - mx);
  for (int j = 0; j < cols; ++j)
    yr[j] = expf(xr[j] - mx) / sum;
}
// FIX:        int row = orig_bid * blockDim.x + orig_tid;
// FIX-NEXT:   if (row >= rows) return;
// FIX-NEXT:   const float *xr = x + (size_t)row * cols;
// FIX-NEXT:   float *yr = y + (size_t)row * cols;
// FIX-NEXT:   float mx = -INFINITY;
// FIX:            mx = fmaxf(mx, xr_v.w);
// FIX:          for (int j = j_rest + lane; j < cols; j += 32)
// FIX-NEXT:       mx = fmaxf(mx, xr[j]);
// FIX-NEXT:   }
// FIX-NEXT:   // cooperative-row: the lanes' partial 'mx' combined; every lane gets the result.
// FIX-NEXT:   for (int offset = 16; offset > 0; offset /= 2)
// FIX-NEXT:     mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, offset));
// FIX-NEXT:   float sum = 0.f;
// FIX:            sum += expf(xr_v2.w - mx);
// FIX:          for (int j = j_rest2 + lane; j < cols; j += 32)
// FIX-NEXT:       sum += expf(xr[j] - mx);
// FIX-NEXT:   }
// FIX-NEXT:   // cooperative-row: the lanes' partial 'sum' combined; every lane gets the result.
// FIX-NEXT:   for (int offset = 16; offset > 0; offset /= 2)
// FIX-NEXT:     sum += __shfl_xor_sync(0xffffffff, sum, offset);
// FIX-NEXT:   __syncwarp();
// FIX-NEXT:   {
// FIX:          if ((((unsigned long long)(&yr[0]) | (unsigned long long)(&xr[0])) & 15) == 0) {
// FIX-NEXT:       #pragma unroll 4
// FIX-NEXT:       for (int j = 4 * lane; j + 3 < cols; j += 128) {
// FIX-NEXT:         float4 yr_v;
// FIX-NEXT:         const float4 xr_v3 = *reinterpret_cast<const float4 *>(&xr[j]);
// FIX-NEXT:         yr_v.x = expf(xr_v3.x - mx) / sum;
// FIX-NEXT:         yr_v.y = expf(xr_v3.y - mx) / sum;
// FIX-NEXT:         yr_v.z = expf(xr_v3.z - mx) / sum;
// FIX-NEXT:         yr_v.w = expf(xr_v3.w - mx) / sum;
// FIX-NEXT:         *reinterpret_cast<float4 *>(&yr[j]) = yr_v;
// FIX-NEXT:       }
// FIX:          for (int j = j_rest3 + lane; j < cols; j += 32)
// FIX-NEXT:       yr[j] = expf(xr[j] - mx) / sum;
// FIX-NEXT:   }
// FIX-NEXT:   __syncwarp();
// FIX-NEXT: }

// In place: the max of |A| over the row, then the row divided by it.
// RUN: forge-port propose %s --kernel rowscale --block 128 --rules=cooperative-row --apply -o %t.scale.cu
// RUN: FileCheck %s --check-prefix=SCALE --match-full-lines --input-file=%t.scale.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.scale.cu -o /dev/null
__global__ void rowscale(float *A, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float mx = 0;
    for (int k = 0; k < n; ++k)
      mx = fmaxf(mx, fabsf(A[row * n + k]));
    for (int k = 0; k < n; ++k)
      A[row * n + k] /= mx;
  }
}
// SCALE:          mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, offset));
// SCALE-NEXT:     __syncwarp();
// SCALE:              float4 A_v2 = *reinterpret_cast<const float4 *>(&A[row * n + k]);
// SCALE-NEXT:         A_v2.x /= mx;
// SCALE:              *reinterpret_cast<float4 *>(&A[row * n + k]) = A_v2;
// SCALE:          for (int k = k_rest2 + lane; k < n; k += 32)
// SCALE-NEXT:       A[row * n + k] /= mx;
// SCALE-NEXT:   }
// SCALE-NEXT:   __syncwarp();

// A 2-pass row with the mean subtracted (double, size_t, `i >= n` guard).
// RUN: forge-port propose %s --kernel center --block 64 --rules=cooperative-row --apply -o %t.ctr.cu
// RUN: FileCheck %s --check-prefix=CTR --match-full-lines --input-file=%t.ctr.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.ctr.cu -o /dev/null
__global__ void center(const double *in, double *out, size_t rows, size_t cols) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows)
    return;
  double mean = 0.0;
  for (size_t c = 0; c < cols; ++c)
    mean += in[i * cols + c];
  mean /= cols;
  for (size_t c = 0; c < cols; ++c)
    out[i * cols + c] = in[i * cols + c] - mean;
}
// CTR:          mean += __shfl_xor_sync(0xffffffff, mean, offset);
// CTR-NEXT:   mean /= cols;
// CTR-NEXT:   __syncwarp();
// CTR:        for (size_t c = c_rest2 + lane; c < cols; c += 32)
// CTR-NEXT:     out[i * cols + c] = in[i * cols + c] - mean;

// Layer normalisation: mean, variance, then the normalised row with
// per-column weights (read coalesced now, broadcast before).
// RUN: forge-port propose %s --kernel layernorm --block 128 --rules=cooperative-row --apply -o %t.ln.cu
// RUN: FileCheck %s --check-prefix=LN --match-full-lines --input-file=%t.ln.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.ln.cu -o /dev/null
__global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int rows, int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float mean = 0.f;
  for (int c = 0; c < cols; ++c)
    mean += x[r * cols + c];
  mean /= cols;
  float var = 0.f;
  for (int c = 0; c < cols; ++c) {
    float d = x[r * cols + c] - mean;
    var += d * d;
  }
  var /= cols;
  float inv = rsqrtf(var + eps);
  for (int c = 0; c < cols; ++c)
    y[r * cols + c] = (x[r * cols + c] - mean) * inv * gamma[c] + beta[c];
}
// LN:          mean += __shfl_xor_sync(0xffffffff, mean, offset);
// LN-NEXT:   mean /= cols;
// LN:          var += __shfl_xor_sync(0xffffffff, var, offset);
// LN-NEXT:   var /= cols;
// LN-NEXT:   float inv = rsqrtf(var + eps);
// LN-NEXT:   __syncwarp();
// LN:            const float4 gamma_v = *reinterpret_cast<const float4 *>(&gamma[c]);
// LN-NEXT:       const float4 beta_v = *reinterpret_cast<const float4 *>(&beta[c]);
// LN-NEXT:       y_v.x = (x_v3.x - mean) * inv * gamma_v.x + beta_v.x;
// LN:          for (int c = c_rest3 + lane; c < cols; c += 32)
// LN-NEXT:       y[r * cols + c] = (x[r * cols + c] - mean) * inv * gamma[c] + beta[c];
