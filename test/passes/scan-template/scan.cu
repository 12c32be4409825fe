// REQUIRES: cuda
// A serial inclusive scan becomes the one-pass look-back scan template: the
// declaration stays as written, the look-back state goes before it, 16
// elements per thread first (with a spec, on a grid of a few resident waves:
// the serial original launched one block), then
// 16 and 8 with the grid as it is. Each result compiles for sm_90 with
// whole 16-byte loads and stores.
// RUN: forge-port propose %s --kernel prefix_sum --spec %S/Inputs/prefix_sum.json --rules=scan-template > %t.props 2> %t.notes
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --kernel prefix_sum --rules=scan-template --apply -o %t.cu
// RUN: grep -v "^// " %t.cu | FileCheck %s --check-prefix=FIX
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel prefix_sum --rules=scan-template --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.8.cu
// RUN: grep -q "constexpr int fs_items = 8;" %t.8.cu
// RUN: %nvcc -arch=sm_90 -c %t.8.cu -o %t.8.o
// RUN: forge-port propose %s --kernel running_min --rules=scan-template > %t.min 2>&1
// RUN: FileCheck %s --check-prefix=MIN --input-file=%t.min

extern "C" __global__ void prefix_sum(const float *__restrict__ in, float *out, unsigned n) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  float total = 0;
  for (unsigned i = 0; i < n; ++i) {
    total += in[i];
    out[i] = total;
  }
}

// An exclusive running minimum of ints: the store before the update.
__global__ void running_min(const int *v, int *lo, int count) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int m = 2147483647;
    for (int i = 0; i < count; ++i) {
      lo[i] = m;
      m = min(m, v[i]);
    }
  }
}

// WHY: # expert:scan-template: inclusive scan (+) of in into out as one pass with a decoupled look-back, 16 elements per thread, a grid of resident waves
// WHY: # The kernel computes a prefix scan (serial inclusive scan (+) of 'total' into out over i).
// WHY: # spec: grid.x -> 132 * FORGE_GRID_WAVES * 8
// WHY: # spec: new tunable FORGE_GRID_WAVES in {1, 2, 4, 8}
// WHY: # expert:scan-template: inclusive scan (+) of in into out as one pass with a decoupled look-back, 16 elements per thread
// WHY: # expert:scan-template: inclusive scan (+) of in into out as one pass with a decoupled look-back, 8 elements per thread

// FIX: __device__ unsigned long long forge_scan_status_prefix_sum[1048576u];
// FIX-NEXT: __device__ unsigned int forge_scan_ticket_prefix_sum, forge_scan_done_prefix_sum, forge_scan_epoch_prefix_sum;
// FIX-NEXT: extern "C" __global__ void prefix_sum(const float *__restrict__ in, float *out, unsigned n) {
// FIX-NEXT:   // forge-port scan template: the inclusive scan (+) of in into out, n elements,
// FIX: constexpr int fs_items = 16;
// FIX: const long long fs_signed_count = (long long)(n);
// FIX: fs_tile_s = atomicAdd(&forge_scan_ticket_prefix_sum, 1u);
// FIX: __stwb(reinterpret_cast<float4 *>(&(out)[fs_wbase + 4ull * (fs_width * fs_r + fs_lane)]),
// FIX: *(volatile unsigned *)&forge_scan_epoch_prefix_sum = fs_epoch + 1u;
// FIX-NOT: total

// PTX: .visible .entry prefix_sum(
// PTX: ld.global.v4.f32
// PTX: st.global.wb.v4.f32

// MIN: # expert:scan-template: exclusive scan (min) of v into lo as one pass with a decoupled look-back, 16 elements per thread
