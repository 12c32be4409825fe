// 2D texture references: one over pitched linear memory (cudaBindTexture2D)
// read as normalized floats, one bound to a cudaArray. The filter mode,
// normalized coordinates and address modes the code set on each become the
// texture object's descriptor, and the settings are removed.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

// FIX: cudaTextureObject_t image = 0;
texture<unsigned char, 2, cudaReadModeNormalizedFloat> image;
// DIAG: [[@LINE-1]]:56: error: texture reference 'image': texture references were removed in CUDA 12
// FIX: cudaTextureObject_t field = 0;
texture<float4, 2> field;
// DIAG: [[@LINE-1]]:20: error: texture reference 'field': texture references were removed in CUDA 12

// Normalized-float reads of 8-bit data return float.
__global__ void blur(float *out, int w, int h) {
  // FIX: __global__ void blur(float *out, int w, int h, cudaTextureObject_t image) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = 0.5f * (tex2D(image, (x + 0.5f) / w, (y + 0.5f) / h) +
                             tex2D(image, (x + 1.5f) / w, (y + 0.5f) / h));
  // FIX: out[y * w + x] = 0.5f * (tex2D<float>(image, (x + 0.5f) / w, (y + 0.5f) / h) +
  // FIX-NEXT: tex2D<float>(image, (x + 1.5f) / w, (y + 0.5f) / h));
}

__global__ void advect(float4 *out, int w, int h) {
  // FIX: __global__ void advect(float4 *out, int w, int h, cudaTextureObject_t field) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tex2D(field, x - 0.5f, y + 0.25f);
  // FIX: out[y * w + x] = tex2D<float4>(field, x - 0.5f, y + 0.25f);
}

// The four settings of 'image' go, with their lines.
// FIX: void run(unsigned char *pixels, size_t pitch, cudaArray *velocity, float *out, float4 *out4,
// FIX-NEXT: int w, int h) {
// FIX-NEXT: cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned char>();
// FIX-NEXT: forgeBindTexture2D(&image, pixels, desc, w, h, pitch, forgeTextureDesc(cudaReadModeNormalizedFloat, cudaFilterModeLinear, 1, cudaAddressModeWrap, cudaAddressModeWrap));
void run(unsigned char *pixels, size_t pitch, cudaArray *velocity, float *out, float4 *out4,
         int w, int h) {
  image.filterMode = cudaFilterModeLinear;
  image.normalized = true;
  image.addressMode[0] = cudaAddressModeWrap;
  image.addressMode[1] = cudaAddressModeWrap;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned char>();
  cudaBindTexture2D(0, image, pixels, desc, w, h, pitch);
  // FIX: forgeBindTextureToArray(&field, velocity, forgeTextureDesc(cudaReadModeElementType, cudaFilterModeLinear, 0, cudaAddressModeClamp, cudaAddressModeBorder));
  field.filterMode = cudaFilterModeLinear;
  field.addressMode[1] = cudaAddressModeBorder;
  cudaBindTextureToArray(field, velocity);
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  blur<<<grid, block>>>(out, w, h);
  // FIX: blur<<<grid, block>>>(out, w, h, image);
  advect<<<grid, block>>>(out4, w, h);
  // FIX: advect<<<grid, block>>>(out4, w, h, field);
  cudaUnbindTexture(image);
  // FIX: forgeUnbindTexture(&image);
  cudaUnbindTexture(field);
  // FIX: forgeUnbindTexture(&field);
}

// The C forms: pointers to the reference, the descriptor and the array.
texture<short2, 2, cudaReadModeNormalizedFloat> motion;
// DIAG: [[@LINE-1]]:49: error: texture reference 'motion'
// DIAG: 3 error(s), 0 warning(s) for sm_90; 3 fixed
// FIX: cudaTextureObject_t motion = 0;
__global__ void track(float2 *out) { out[threadIdx.x] = tex2D(motion, threadIdx.x, 0); }
// FIX: __global__ void track(float2 *out, cudaTextureObject_t motion) { out[threadIdx.x] = tex2D<float2>(motion, threadIdx.x, 0); }
void runTrack(short2 *p, const cudaChannelFormatDesc *d, cudaArray_t a, float2 *out) {
  cudaBindTexture2D(NULL, &motion, p, d, 64, 64, 256);
  // FIX: forgeBindTexture2D(&motion, p, *(d), 64, 64, 256, forgeTextureDesc(cudaReadModeNormalizedFloat));
  cudaBindTextureToArray(&motion, a, d);
  // FIX: forgeBindTextureToArray(&motion, a, forgeTextureDesc(cudaReadModeNormalizedFloat));
  track<<<1, 64>>>(out);
  // FIX: track<<<1, 64>>>(out, motion);
}
