// column-split across blocks: with a spec whose launch leaves the GPU short
// of threads even after the split within blocks, the rewrite lets the
// gridDim.y blocks along y share each column too (the spec's new tunable
// FORGE_COLUMN_BLOCKS is grid.y); each block's partial goes to a __device__
// array and the last block of a column to arrive combines them in block
// order and resets the column's counter. The rewrites must compute what the
// originals compute for every grid.y (1, 3, 32, 64) and every block the
// spec's constraint allows (64, 128, 256, 1024) plus one it does not (100:
// the device check runs the original body, blocks along y beyond the first
// return), on odd column counts, fewer rows than slices, a pointer offset
// by one element, and a launch whose partials do not fit the arrays (40000
// columns x 32 blocks > 2^20: one share). Every configuration runs twice on
// the same inputs and must give the same bits: the combine order is fixed
// and the counters are back at zero after each launch. Four kernels: a
// float sum scaled after the loop (within rounding), a float max through a
// walking pointer (exact), an unsigned xor and min by a while loop (exact,
// two partials), a double mean that starts from a bias (counted once).
// With --bench: times at 16384 x 4096.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/col_sum.cu --spec %S/../Inputs/rules/col_sum.json --rules=column-split --format=json > %t.d/col_sum.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_sum.json 0 %S/../Inputs/rules/col_sum.cu > %t.d/col_sum.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/col_max_ptr.cu --spec %S/../Inputs/rules/col_max_ptr.json --rules=column-split --format=json > %t.d/col_max_ptr.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_max_ptr.json 0 %S/../Inputs/rules/col_max_ptr.cu > %t.d/col_max_ptr.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/col_while_int.cu --spec %S/../Inputs/rules/col_while_int.json --rules=column-split --format=json > %t.d/col_while_int.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_while_int.json 0 %S/../Inputs/rules/col_while_int.cu > %t.d/col_while_int.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/col_mean_bias.cu --spec %S/../Inputs/rules/col_mean_bias.json --rules=column-split --format=json > %t.d/col_mean_bias.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_mean_bias.json 0 %S/../Inputs/rules/col_mean_bias.cu > %t.d/col_mean_bias.v1.cu
// RUN: grep -c FORGE_COLUMN_BLOCKS %t.d/col_sum.json %t.d/col_max_ptr.json %t.d/col_while_int.json %t.d/col_mean_bias.json
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: col_sum rows=16384 cols=4096 block=256 gy=32: ok
// CHECK: col_sum rows=1001 cols=1027 block=100 gy=3: ok
// CHECK: col_max_ptr rows=1001 cols=1027 block=64 gy=3: ok max_abs_err 0 rel_l2 0
// CHECK: col_while_int rows=1001 cols=1027 block=1024 gy=32 min: ok max_abs_err 0 rel_l2 0
// CHECK: col_sum rows=3 cols=77 a+1 block=1024 gy=64: ok
// CHECK: col_sum rows=40 cols=40000 block=1024 gy=32: ok
// CHECK: col_mean_bias rows=999 cols=1027 block=128 gy=32: ok
// CHECK: col_mean_bias rows=2 cols=33 block=256 gy=64: ok
// CHECK: PASS
#include "check.h"
#include <functional>

namespace orig {
#include "col_sum.cu"
#include "col_max_ptr.cu"
#include "col_while_int.cu"
#include "col_mean_bias.cu"
} // namespace orig
namespace v1 {
#include "col_sum.v1.cu"
#include "col_max_ptr.v1.cu"
#include "col_while_int.v1.cu"
#include "col_mean_bias.v1.cu"
} // namespace v1

namespace {

/// For the bench only: the other layout the split across blocks could take,
/// written by hand. Each block keeps the original's columns (blockDim.x
/// consecutive ones, so a block reads a contiguous row segment per step)
/// and only the blocks along y share a column; the partials are combined as
/// the rule's rewrite combines them.
__device__ float alt_blocks[1 << 20];
__device__ unsigned alt_arrivals[1 << 18];
__global__ void col_sum_blocks_only(const float *a, float *out, int rows, int cols, float scale) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  float s = 0.f;
  for (int r = blockIdx.y; r < rows; r += gridDim.y)
    s += a[(size_t)r * cols + j];
  if (gridDim.y > 1) {
    const unsigned long long slot = (unsigned long long)j * gridDim.y;
    alt_blocks[slot + blockIdx.y] = s;
    __threadfence();
    if (atomicAdd(&alt_arrivals[j], 1u) != gridDim.y - 1u)
      return;
    __threadfence();
    s = *(volatile float *)&alt_blocks[slot];
    for (unsigned k = 1; k < gridDim.y; ++k)
      s += *(volatile float *)&alt_blocks[slot + k];
    alt_arrivals[j] = 0u;
  }
  out[j] = s * scale;
}

const unsigned Blocks[] = {256, 128, 1024, 64, 100};
const unsigned GridYs[] = {1, 3, 32, 64};

struct Case {
  int rows, cols, off;
};
const Case Cases[] = {{16384, 4096, 0}, {1001, 1027, 0}, {3, 77, 1}, {40, 40000, 0}, {999, 1027, 0}, {2, 33, 0}};

/// One output to compare: its download and its bounds (max_abs, rel_l2).
struct Out {
  const char *label;
  std::function<void()> poison;
  std::function<std::vector<double>()> get;
  double maxAbs, relL2;
};

template <typename T> Out out(const char *label, T *d, size_t n, double maxAbs, double relL2) {
  return {label, [=] { check::poison(d, n); },
          [=] {
            auto h = check::download(d, n);
            return std::vector<double>(h.begin(), h.end());
          },
          maxAbs, relL2};
}

/// The original on its own grid, the rewrite on grid.x * (block / 32) x gy,
/// twice, for every block and grid.y.
template <typename Launch>
bool checkAll(const char *what, unsigned cols, Launch launch, std::vector<Out> outs) {
  bool ok = true;
  for (unsigned block : Blocks)
    for (unsigned gy : GridYs) {
      unsigned grid = check::ceilDiv(cols, block);
      auto run = [&](bool rewritten) {
        for (Out &o : outs)
          o.poison();
        launch(rewritten, rewritten ? dim3(grid * (block >= 32 ? block / 32 : 1), gy) : dim3(grid), block);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<std::vector<double>> got;
        for (Out &o : outs)
          got.push_back(o.get());
        return got;
      };
      auto ref = run(false);
      auto a = run(true);
      auto b = run(true);
      for (size_t i = 0; i < outs.size(); ++i) {
        char name[256];
        std::snprintf(name, sizeof name, "%s block=%u gy=%u%s%s", what, block, gy,
                      *outs[i].label ? " " : "", outs[i].label);
        ok &= check::compare(name, ref[i], a[i], outs[i].maxAbs, outs[i].relL2);
        std::snprintf(name, sizeof name, "%s block=%u gy=%u%s%s (again)", what, block, gy,
                      *outs[i].label ? " " : "", outs[i].label);
        ok &= check::compare(name, a[i], b[i], 0, 0);
      }
    }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  for (const Case &C : Cases) {
    size_t elems = size_t(C.rows) * C.cols + 1;
    char tag[96];
    std::snprintf(tag, sizeof tag, "rows=%d cols=%d%s", C.rows, C.cols, C.off ? " a+1" : "");
    char what[160];
    // Float sums and maxima.
    {
      auto ha = check::random<float>(elems, 10 + C.rows, -4, 3);
      float *da = check::upload(ha), *dout;
      CK(cudaMalloc(&dout, C.cols * sizeof(float)));
      const float *a = da + C.off;
      std::snprintf(what, sizeof what, "col_sum %s", tag);
      ok &= checkAll(what, C.cols, [&](bool v, dim3 g, unsigned b) {
        if (v) v1::col_sum<<<g, b>>>(a, dout, C.rows, C.cols, 0.5f);
        else orig::col_sum<<<g, b>>>(a, dout, C.rows, C.cols, 0.5f);
      }, {out("", dout, C.cols, 1e-5 * C.rows + 1e-4, 1e-5)}); // sums of up to |0.5 * rows|
      std::snprintf(what, sizeof what, "col_max_ptr %s", tag);
      ok &= checkAll(what, C.cols, [&](bool v, dim3 g, unsigned b) {
        if (v) v1::col_max_ptr<<<g, b>>>(a, dout, C.rows, C.cols);
        else orig::col_max_ptr<<<g, b>>>(a, dout, C.rows, C.cols);
      }, {out("", dout, C.cols, 0, 0)});
      CK(cudaFree(da));
      CK(cudaFree(dout));
    }
    // Unsigned xor and min (the kernel indexes with int: skip the largest).
    {
      auto hf = check::random<double>(elems, 40 + C.rows, 0, 4.0e9);
      std::vector<unsigned> ha(hf.begin(), hf.end());
      unsigned *da = check::upload(ha), *dx, *dm;
      CK(cudaMalloc(&dx, C.cols * sizeof(unsigned)));
      CK(cudaMalloc(&dm, C.cols * sizeof(unsigned)));
      const unsigned *a = da + C.off;
      std::snprintf(what, sizeof what, "col_while_int %s", tag);
      ok &= checkAll(what, C.cols, [&](bool v, dim3 g, unsigned b) {
        if (v) v1::col_while_int<<<g, b>>>(a, dx, dm, C.rows, C.cols);
        else orig::col_while_int<<<g, b>>>(a, dx, dm, C.rows, C.cols);
      }, {out("xor", dx, C.cols, 0, 0), out("min", dm, C.cols, 0, 0)});
      CK(cudaFree(da));
      CK(cudaFree(dx));
      CK(cudaFree(dm));
    }
    // Double means from a bias.
    {
      auto ha = check::random<double>(elems, 50 + C.rows);
      auto hb = check::random<double>(C.cols, 51);
      double *da = check::upload(ha), *db = check::upload(hb), *dout;
      CK(cudaMalloc(&dout, C.cols * sizeof(double)));
      const double *a = da + C.off;
      std::snprintf(what, sizeof what, "col_mean_bias %s", tag);
      ok &= checkAll(what, C.cols, [&](bool v, dim3 g, unsigned b) {
        if (v) v1::col_mean_bias<<<g, b>>>(a, db, dout, C.rows, C.cols);
        else orig::col_mean_bias<<<g, b>>>(a, db, dout, C.rows, C.cols);
      }, {out("", dout, C.cols, 1e-10, 1e-12)});
      CK(cudaFree(da));
      CK(cudaFree(db));
      CK(cudaFree(dout));
    }
  }

  if (Bench) {
    const int rows = 16384, cols = 4096;
    auto ha = check::random<float>(size_t(rows) * cols, 7);
    float *da = check::upload(ha), *dout;
    CK(cudaMalloc(&dout, cols * sizeof(float)));
    for (unsigned block : {128u, 256u}) {
      unsigned grid = check::ceilDiv(cols, block);
      double t0 = check::time([&] { orig::col_sum<<<grid, block>>>(da, dout, rows, cols, 1.f); });
      for (unsigned gy : {1u, 8u, 16u, 32u, 64u}) {
        double t1 = check::time([&] {
          v1::col_sum<<<dim3(grid * (block / 32), gy), block>>>(da, dout, rows, cols, 1.f);
        });
        char what[96];
        std::snprintf(what, sizeof what, "col_sum 16384x4096 block=%u gy=%u", block, gy);
        check::report(what, t0, t1);
        if (size_t(cols) * gy * (block / 32) > (size_t(1) << 20))
          continue; // beyond the hand-written kernel's arrays
        double t2 = check::time([&] {
          col_sum_blocks_only<<<dim3(grid, gy * (block / 32)), block>>>(da, dout, rows, cols, 1.f);
        });
        std::snprintf(what, sizeof what, "col_sum 16384x4096 block=%u gy=%u (blocks only, by hand)",
                      block, gy * (block / 32));
        check::report(what, t0, t2);
      }
    }
    CK(cudaFree(da));
    CK(cudaFree(dout));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
