// The column-split rule's rewrites compute what the originals compute, on
// the GPU, on the grid their SpecChange asks for (blockDim.x / 32 times the
// original's blocks along x) for every block the spec's constraint allows
// (1D multiples of 32: 32, a single slice; 64, 128, 256, 1024), and for a
// block of 100 threads, where the rewrite's device check falls back to the
// original body on the original share of the grid. Odd column counts (not
// a multiple of 32, so a block's last lanes return early), odd and short
// row counts (fewer rows than slices), pointers offset by one element.
// Four kernels: a float column sum scaled after the loop (sums within
// rounding: the slices re-associate), a float column max through a walking
// pointer with a clamp after the loop (exact), batched double column sums
// along a 2D grid with a bias counted once and a count of positives (the
// count exact), and an unsigned xor and min walked by a while loop (exact).
// Each configuration runs twice on the same inputs and must give the same
// bits (the slices combine in a fixed order). With --bench: times at
// 16384 x 4096.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/col_sum.cu --kernel col_sum --rules=column-split --format=json > %t.d/col_sum.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_sum.json 0 %S/../Inputs/rules/col_sum.cu > %t.d/col_sum.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/col_max_ptr.cu --kernel col_max_ptr --rules=column-split --format=json > %t.d/col_max_ptr.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_max_ptr.json 0 %S/../Inputs/rules/col_max_ptr.cu > %t.d/col_max_ptr.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/col_batched.cu --kernel col_batched --rules=column-split --format=json > %t.d/col_batched.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_batched.json 0 %S/../Inputs/rules/col_batched.cu > %t.d/col_batched.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/col_while_int.cu --kernel col_while_int --rules=column-split --format=json > %t.d/col_while_int.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/col_while_int.json 0 %S/../Inputs/rules/col_while_int.cu > %t.d/col_while_int.v1.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: col_sum rows=16384 cols=4096 block=256: ok
// CHECK: col_sum rows=16384 cols=4096 block=256 (again): ok max_abs_err 0 rel_l2 0
// CHECK: col_sum rows=1001 cols=1027 block=32: ok
// CHECK: col_sum rows=1001 cols=1027 block=100: ok max_abs_err 0 rel_l2 0
// CHECK: col_sum rows=1001 cols=1027 a+1 block=1024: ok
// CHECK: col_sum rows=3 cols=1027 block=1024: ok
// CHECK: col_sum rows=1 cols=33 block=64: ok
// CHECK: col_max_ptr rows=1001 cols=1027 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: col_max_ptr rows=5 cols=77 a+1 block=1024: ok max_abs_err 0 rel_l2 0
// CHECK: col_batched rows=999 cols=1027 sum block=128: ok
// CHECK: col_batched rows=999 cols=1027 count block=128: ok max_abs_err 0 rel_l2 0
// CHECK: col_batched rows=2 cols=1027 count block=1024: ok max_abs_err 0 rel_l2 0
// CHECK: col_while_int rows=1001 cols=1027 xor block=1024: ok max_abs_err 0 rel_l2 0
// CHECK: col_while_int rows=1001 cols=1027 min block=64: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"
#include <tuple>

namespace orig {
#include "col_sum.cu"
#include "col_max_ptr.cu"
#include "col_batched.cu"
#include "col_while_int.cu"
} // namespace orig
namespace v1 {
#include "col_sum.v1.cu"
#include "col_max_ptr.v1.cu"
#include "col_batched.v1.cu"
#include "col_while_int.v1.cu"
} // namespace v1

namespace {

/// Every block the rewrite's constraint allows, and one it does not (100:
/// the device check runs the original body).
const unsigned Blocks[] = {256, 128, 1024, 64, 32, 100};

/// The grid the SpecChange asks for: the original's times blockDim.x / 32
/// (at least 1 for blocks below a warp, as the device check assumes).
unsigned splitGrid(unsigned origGrid, unsigned block) {
  return origGrid * (block >= 32 ? block / 32 : 1);
}

/// Runs the original on its grid and the rewrite on the split grid for
/// every block; Outs are the outputs (pointer, elements) compared, Tol
/// their bounds (max_abs, rel_l2).
template <typename Launch>
bool checkAll(const char *what, unsigned cols, unsigned gridY, Launch launch,
              std::vector<std::pair<float *, size_t>> fOuts,
              std::vector<std::pair<double *, size_t>> dOuts,
              std::vector<std::pair<unsigned *, size_t>> uOuts,
              std::vector<std::pair<int *, size_t>> iOuts,
              std::vector<std::tuple<const char *, double, double>> tol) {
  bool ok = true;
  for (unsigned block : Blocks) {
    unsigned grid = check::ceilDiv(cols, block);
    // Downloads of every output after one launch.
    auto run = [&](bool rewritten) {
      std::vector<std::vector<double>> got;
      for (auto &o : fOuts) check::poison(o.first, o.second);
      for (auto &o : dOuts) check::poison(o.first, o.second);
      for (auto &o : uOuts) check::poison(o.first, o.second);
      for (auto &o : iOuts) check::poison(o.first, o.second);
      launch(rewritten, dim3(rewritten ? splitGrid(grid, block) : grid, gridY), block);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      auto add = [&](auto &outs) {
        for (auto &o : outs) {
          auto h = check::download(o.first, o.second);
          got.emplace_back(h.begin(), h.end());
        }
      };
      add(fOuts);
      add(dOuts);
      add(uOuts);
      add(iOuts);
      return got;
    };
    auto ref = run(false);
    auto a = run(true);
    auto b = run(true);
    for (size_t i = 0; i < ref.size(); ++i) {
      const char *label = std::get<0>(tol[i]);
      char name[256];
      std::snprintf(name, sizeof name, "%s%s%s block=%u", what, *label ? " " : "", label, block);
      ok &= check::compare(name, ref[i], a[i], std::get<1>(tol[i]), std::get<2>(tol[i]));
      std::snprintf(name, sizeof name, "%s%s%s block=%u (again)", what, *label ? " " : "", label,
                    block);
      ok &= check::compare(name, a[i], b[i], 0, 0);
    }
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;

  // Float column sums, scaled after the loop.
  {
    struct Case {
      int rows, cols, off;
    };
    const Case Cases[] = {{16384, 4096, 0}, {1001, 1027, 0}, {1001, 1027, 1}, {3, 1027, 0}, {1, 33, 0}};
    for (const Case &C : Cases) {
      auto ha = check::random<float>(size_t(C.rows) * C.cols + 1, 10 + C.rows);
      float *da = check::upload(ha), *dout;
      CK(cudaMalloc(&dout, C.cols * sizeof(float)));
      const float *a = da + C.off;
      char what[128];
      std::snprintf(what, sizeof what, "col_sum rows=%d cols=%d%s", C.rows, C.cols, C.off ? " a+1" : "");
      ok &= checkAll(
          what, C.cols, 1,
          [&](bool v, dim3 g, unsigned b) {
            if (v)
              v1::col_sum<<<g, b>>>(a, dout, C.rows, C.cols, 0.5f);
            else
              orig::col_sum<<<g, b>>>(a, dout, C.rows, C.cols, 0.5f);
          },
          {{dout, size_t(C.cols)}}, {}, {}, {}, {{"", 1e-3, 1e-5}});
      CK(cudaFree(da));
      CK(cudaFree(dout));
    }
  }
  // Float column max through a walking pointer: exact.
  {
    struct Case {
      int rows, cols, off;
    };
    const Case Cases[] = {{1001, 1027, 0}, {5, 77, 1}, {4096, 64, 0}};
    for (const Case &C : Cases) {
      auto ha = check::random<float>(size_t(C.rows) * C.cols + 1, 20 + C.rows, -4, 3);
      float *da = check::upload(ha), *dout;
      CK(cudaMalloc(&dout, C.cols * sizeof(float)));
      const float *a = da + C.off;
      char what[128];
      std::snprintf(what, sizeof what, "col_max_ptr rows=%d cols=%d%s", C.rows, C.cols,
                    C.off ? " a+1" : "");
      ok &= checkAll(
          what, C.cols, 1,
          [&](bool v, dim3 g, unsigned b) {
            if (v)
              v1::col_max_ptr<<<g, b>>>(a, dout, C.rows, C.cols);
            else
              orig::col_max_ptr<<<g, b>>>(a, dout, C.rows, C.cols);
          },
          {{dout, size_t(C.cols)}}, {}, {}, {}, {{"", 0, 0}});
      CK(cudaFree(da));
      CK(cudaFree(dout));
    }
  }
  // Batched double column sums with a bias, and a count of positives.
  {
    const size_t batches = 3;
    for (size_t rows : {size_t(999), size_t(2)}) {
      const size_t cols = 1027;
      auto ha = check::random<double>(batches * rows * cols, 30 + unsigned(rows));
      auto hb = check::random<double>(cols, 31);
      double *da = check::upload(ha), *dbias = check::upload(hb), *dout;
      int *dpos;
      CK(cudaMalloc(&dout, batches * cols * sizeof(double)));
      CK(cudaMalloc(&dpos, batches * cols * sizeof(int)));
      char what[128];
      std::snprintf(what, sizeof what, "col_batched rows=%zu cols=%zu", rows, cols);
      ok &= checkAll(
          what, unsigned(cols), unsigned(batches),
          [&](bool v, dim3 g, unsigned b) {
            if (v)
              v1::col_batched<<<g, b>>>(da, dbias, dout, dpos, rows, cols);
            else
              orig::col_batched<<<g, b>>>(da, dbias, dout, dpos, rows, cols);
          },
          {}, {{dout, batches * cols}}, {}, {{dpos, batches * cols}}, {{"sum", 1e-10, 1e-12}, {"count", 0, 0}});
      CK(cudaFree(da));
      CK(cudaFree(dbias));
      CK(cudaFree(dout));
      CK(cudaFree(dpos));
    }
  }
  // Unsigned xor and min by a while loop: exact.
  for (int rows : {1001, 31}) {
    const int cols = 1027;
    auto hf = check::random<double>(size_t(rows) * cols, 40 + rows, 0, 4.0e9);
    std::vector<unsigned> ha(hf.begin(), hf.end());
    unsigned *da = check::upload(ha), *dx, *dm;
    CK(cudaMalloc(&dx, cols * sizeof(unsigned)));
    CK(cudaMalloc(&dm, cols * sizeof(unsigned)));
    char what[128];
    std::snprintf(what, sizeof what, "col_while_int rows=%d cols=%d", rows, cols);
    ok &= checkAll(
        what, cols, 1,
        [&](bool v, dim3 g, unsigned b) {
          if (v)
            v1::col_while_int<<<g, b>>>(da, dx, dm, rows, cols);
          else
            orig::col_while_int<<<g, b>>>(da, dx, dm, rows, cols);
        },
        {}, {}, {{dx, size_t(cols)}, {dm, size_t(cols)}}, {}, {{"xor", 0, 0}, {"min", 0, 0}});
    CK(cudaFree(da));
    CK(cudaFree(dx));
    CK(cudaFree(dm));
  }

  if (Bench) {
    const int rows = 16384, cols = 4096;
    auto ha = check::random<float>(size_t(rows) * cols, 7);
    float *da = check::upload(ha), *dout;
    CK(cudaMalloc(&dout, cols * sizeof(float)));
    for (unsigned block : {256u, 1024u}) {
      unsigned grid = check::ceilDiv(cols, block);
      double t0 = check::time([&] { orig::col_sum<<<grid, block>>>(da, dout, rows, cols, 1.f); });
      double t1 = check::time(
          [&] { v1::col_sum<<<splitGrid(grid, block), block>>>(da, dout, rows, cols, 1.f); });
      char what[64];
      std::snprintf(what, sizeof what, "col_sum 16384x4096 block=%u", block);
      check::report(what, t0, t1);
    }
    CK(cudaFree(da));
    CK(cudaFree(dout));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
