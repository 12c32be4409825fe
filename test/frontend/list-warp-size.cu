// The warp width is the hardware's, not a tunable: a constant named like the
// warp size, or used as the warp width (a '% W' lane, a 'threadIdx.x / W'
// warp index or '& (W - 1)' with W == 32, a shuffle's width, a 32 that a
// shuffle's offsets come from) is not offered, even where it flows into a
// block size. A block-size constant still is, and so is a 32 used only as a
// block size or a tile that is not the warp.
// RUN: forge-port list %s -- %cuda_mock_flags | FileCheck %s --implicit-check-not='{{^  (WARP_SIZE|kLanes|kSegment|OFFSET_BASE|LANES_PER_ROW) }}'
// RUN: forge-port list %s --format=json -- %cuda_mock_flags | FileCheck %s --check-prefix=JSON

#define WARP_SIZE 32
#define BLOCK 256
#define LANES_PER_ROW 32
#define OFFSET_BASE 32
#define TILE 16
#define ROW_THREADS 32
constexpr int kLanes = 32;
constexpr int kSegment = 16;

__global__ void __launch_bounds__(BLOCK) reduce(const float *in, float *out) {
  __shared__ float partial[BLOCK / WARP_SIZE];
  int lane = threadIdx.x % WARP_SIZE;
  float v = in[blockIdx.x * BLOCK + threadIdx.x];
  for (int o = OFFSET_BASE / 2; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffff, v, o);
  if (lane == 0)
    partial[threadIdx.x / LANES_PER_ROW] = v;
}

__global__ void rows(float *x) {
  int lane = threadIdx.x & (kLanes - 1);
  float v = x[threadIdx.x];
  v += __shfl_xor_sync(0xffffffff, v, 1, kSegment);
  x[lane] = v;
}

__global__ void tiles(float *x) { x[threadIdx.x % TILE] = 0.0f; }
__global__ void plain(float *x) { x[threadIdx.x] = 1.0f; }

void run(const float *in, float *out) {
  reduce<<<64, BLOCK>>>(in, out);
  rows<<<1, 4 * WARP_SIZE>>>(out);
  rows<<<1, dim3(kLanes, kSegment)>>>(out);
  rows<<<1, LANES_PER_ROW * 4>>>(out);
  tiles<<<1, dim3(TILE, TILE)>>>(out);
  plain<<<1, ROW_THREADS>>>(out);
}

// LANES_PER_ROW is named like a row, but 'threadIdx.x / LANES_PER_ROW' makes
// it the warp width.
// CHECK:     3 tunables
// CHECK:     Tunables
// CHECK-DAG: BLOCK {{ *}}macro {{ *}}256
// CHECK-DAG: TILE {{ *}}macro {{ *}}16 {{.*}}(block-dim of tiles)
// CHECK-DAG: ROW_THREADS {{ *}}macro {{ *}}32 {{.*}}(block of plain)

// JSON:     "tunables": [
// JSON-NOT: "name": "{{WARP_SIZE|kLanes|kSegment|OFFSET_BASE|LANES_PER_ROW}}"
// JSON:     "name": "BLOCK",
// JSON-NOT: "name": "{{WARP_SIZE|kLanes|kSegment|OFFSET_BASE|LANES_PER_ROW}}"
