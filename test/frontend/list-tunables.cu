// Tunables: a macro and a constexpr that flow into launch configurations,
// a literal block size, template arguments, '#pragma unroll N', launch
// bounds and annotations. A macro that only changes what the kernel
// computes (RADIUS) and a problem size (N) are not tunable.
// RUN: forge-port list %s -- %cuda_mock_flags | FileCheck %s --implicit-check-not=RADIUS --implicit-check-not="{{^ *N }}"

#define N (1 << 22)
#define RADIUS 3
#define BLOCK_X 16
#define BLOCK_Y 8
#define THREADS 256
constexpr int kItems = 4;

template <int ITEMS>
__global__ void __launch_bounds__(THREADS) stencil(const float *in, float *out) {
  int i = (blockIdx.x * THREADS + threadIdx.x) * ITEMS;
#pragma unroll 2
  for (int k = 0; k < ITEMS; ++k)
    for (int r = -RADIUS; r <= RADIUS; ++r)
      out[i + k] += in[i + k + r];
}

__global__ void __launch_bounds__(512, 2) tile2d(float *out) {
  out[threadIdx.y * BLOCK_X + threadIdx.x] = RADIUS;
}

// forge: tune VEC = 1, 2, 4
#define VEC 2

void run(const float *in, float *out) {
  stencil<kItems><<<N / (THREADS * kItems), THREADS>>>(in, out);
  dim3 block(BLOCK_X, BLOCK_Y);
  tile2d<<<N / (BLOCK_X * BLOCK_Y), block>>>(out);
  stencil<8><<<N / 2048, 256>>>(in, out);
}

// CHECK: Tunables
// CHECK-DAG: BLOCK_X {{ *}}macro {{ *}}16 {{ *}}{{.*}}list-tunables.cu:9:9  (block-dim of tile2d)
// CHECK-DAG: BLOCK_Y {{ *}}macro {{ *}}8 {{ *}}{{.*}}list-tunables.cu:10:9  (block-dim of tile2d)
// CHECK-DAG: THREADS {{ *}}macro {{ *}}256 {{ *}}{{.*}}list-tunables.cu:11:9
// CHECK-DAG: kItems {{ *}}constexpr {{ *}}4 {{ *}}{{.*}}list-tunables.cu:12:24  (template-arg of stencil)
// CHECK-DAG: stencil.unroll@17 {{ *}}unroll {{ *}}2 {{ *}}{{.*}}list-tunables.cu:17:9
// CHECK-DAG: tile2d.launch_bounds {{ *}}launch_bounds {{ *}}512 {{ *}}{{.*}}list-tunables.cu:23:35
// CHECK-DAG: stencil::ITEMS {{ *}}template {{ *}}8 {{ *}}{{.*}}list-tunables.cu:34:11  (template-arg of stencil)
// CHECK-DAG: stencil.block@34 {{ *}}launch {{ *}}256 {{ *}}{{.*}}list-tunables.cu:34:26  (block of stencil)
// CHECK-DAG: VEC {{ *}}annotation {{ *}}2 {{ *}}{{.*}}list-tunables.cu:27:4
// CHECK-DAG: {{^      }}candidates: 1, 2, 4{{$}}
