// Every launch syntax: <<<>>>, through a variable and a function pointer,
// cudaLaunchKernel, cudaLaunchCooperativeKernel, cudaLaunchKernelEx, and a
// launch inside a host function template resolved per instantiation.
// RUN: forge-port list %s -- %cuda_mock_flags | FileCheck %s
// RUN: forge-port list --format=json %s -- %cuda_mock_flags | FileCheck %s --check-prefix=JSON

__global__ void fill(float *x, float v) { x[blockIdx.x * blockDim.x + threadIdx.x] = v; }
template <int B> __global__ void tiled(float *x) { x[threadIdx.x] = B; }

typedef void (*kernel_t)(float *, float);

template <int B> void launchTiled(float *x, cudaStream_t s) {
  tiled<B><<<64, B, 0, s>>>(x);
}

void run(float *x, cudaStream_t s) {
  fill<<<dim3(128), dim3(256), 0, s>>>(x, 1.0f);
  auto k = fill;
  k<<<4, 32>>>(x, 2.0f);
  kernel_t fp = &fill;
  fp<<<8, 64>>>(x, 3.0f);
  float v = 4.0f;
  void *args[] = {&x, &v};
  cudaLaunchKernel((const void *)fill, dim3(16), dim3(128), args, 0, s);
  cudaLaunchCooperativeKernel(fill, 32, 256, args, 0, s);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(10);
  cfg.blockDim = dim3(512);
  cfg.dynamicSmemBytes = 2048;
  cfg.stream = s;
  cudaLaunchKernelEx(&cfg, fill, x, 5.0f);
  launchTiled<128>(x, s);
  launchTiled<256>(x, s);
}

// CHECK: list-launch-syntax.cu (read for sm_80): 2 kernels, 7 launch sites
// CHECK:      list-launch-syntax.cu:13:3 {{ *}}tiled<B>  [chevron] in launchTiled
// CHECK-NEXT:   grid 64 = (64,1,1); block B; shared 0; stream s
// CHECK-NEXT:   in launchTiled<128>: tiled<128>; block B = (128,1,1)
// CHECK-NEXT:   in launchTiled<256>: tiled<256>; block B = (256,1,1)
// CHECK:      list-launch-syntax.cu:17:3 {{ *}}fill  [chevron] in run
// CHECK-NEXT:   grid dim3(128) = (128,1,1); block dim3(256) = (256,1,1); shared 0; stream s
// CHECK:      list-launch-syntax.cu:19:3 {{ *}}fill  [chevron via 'k'] in run
// CHECK-NEXT:   grid 4 = (4,1,1); block 32 = (32,1,1)
// CHECK:      list-launch-syntax.cu:21:3 {{ *}}fill  [chevron via 'fp'] in run
// CHECK:      list-launch-syntax.cu:24:3 {{ *}}fill  [cudaLaunchKernel] in run
// CHECK-NEXT:   grid dim3(16) = (16,1,1); block dim3(128) = (128,1,1); shared 0; stream s
// CHECK:      list-launch-syntax.cu:25:3 {{ *}}fill  [cudaLaunchCooperativeKernel] in run
// CHECK-NEXT:   grid 32 = (32,1,1); block 256 = (256,1,1); shared 0; stream s
// CHECK:      list-launch-syntax.cu:31:3 {{ *}}fill  [cudaLaunchKernelEx] in run
// CHECK-NEXT:   grid dim3(10) = (10,1,1); block dim3(512) = (512,1,1); shared 2048; stream s

// JSON:      "kernel": "tiled",
// JSON-NEXT: "resolved": true,
// JSON:      "syntax": "chevron",
// JSON-NEXT: "callee": "tiled<B>",
// JSON-NEXT: "template_args": [
// JSON-NEXT:   {
// JSON-NEXT:     "text": "B",
// JSON-NEXT:     "value": null
// JSON:      "in_template": true,
// JSON:      "context": "launchTiled<128>",
// JSON-NEXT: "kernel": "tiled<128>",
// JSON-NEXT: "template_args": [
// JSON-NEXT:   {
// JSON-NEXT:     "text": "128",
// JSON-NEXT:     "value": 128
// JSON:      "kernel": "fill",
// JSON:      "syntax": "chevron",
// JSON:      "grid": {
// JSON-NEXT:   "text": "dim3(128)",
// JSON-NEXT:   "value": [
// JSON-NEXT:     128,
// JSON-NEXT:     1,
// JSON-NEXT:     1
// JSON:      "stream": {
// JSON-NEXT:   "text": "s",
// JSON-NEXT:   "value": null
