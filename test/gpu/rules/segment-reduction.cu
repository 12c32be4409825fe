// The segment-reduction rule's rewrites compute what the originals compute,
// on the GPU, on the grid their SpecChange asks for (ceil_div(the original
// grid, blockDim.x / 32)), for every block the rewrite takes (power-of-two
// multiples of 32: 32, 64, 128, 256, 512, 1024) and for blocks it does not
// take (96: whole warps but not a power of two; 100: not whole warps), where
// the device check runs the original body for the original blocks each
// block stands for (for the halving trees: the interleaved ones read past
// such blocks in the original already, so they get power-of-two blocks). Odd sizes (not multiples of the block, of 2 x the
// block or of 4; a single element; fewer elements than one block), and
// inputs offset by one element (misaligned for 16-byte loads). Five
// kernels: reduce0 (interleaved, float sum), reduce3 (the first add during
// the load, two elements per thread, float sum), reduce1's strided index
// over doubles (sum of squares), an int max written as a select with two
// elements per thread (exact), and fmaxf of fabsf over a constant block of
// 256 (exact). Float sums are re-associated (each lane adds its values in
// order, then the lanes pairwise): compared within a tolerance; int, max
// and min must match bitwise. Each configuration runs twice and must give
// the same bits. With --bench: times at 64M elements.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: for k in seg_sum seg_first_add seg_sumsq seg_imax seg_maxabs; do \
// RUN:   forge-port propose %S/../Inputs/rules/$k.cu --kernel $k --block 256 --rules=segment-reduction --format=json > %t.d/$k.json && \
// RUN:   %python %S/../../Inputs/apply_proposal.py %t.d/$k.json 0 %S/../Inputs/rules/$k.cu > %t.d/$k.v1.cu || exit 1; done
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: seg_sum n=1000003 block=256: ok
// CHECK: seg_first_add n=1000003 block=32: ok
// CHECK: seg_first_add n=1000003 block=96: ok max_abs_err 0 rel_l2 0
// CHECK: seg_first_add n=1000003 block=100: ok max_abs_err 0 rel_l2 0
// CHECK: seg_sum n=1000003 in+1 block=1024: ok
// CHECK: seg_maxabs n=1000003 in+1 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: seg_first_add n=1 block=256: ok
// CHECK: seg_sumsq n=777777 block=512: ok
// CHECK: seg_imax n=1000003 block=64: ok max_abs_err 0 rel_l2 0
// CHECK: seg_imax n=1000003 in+1 block=96: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "seg_sum.cu"
#include "seg_first_add.cu"
#include "seg_sumsq.cu"
#include "seg_imax.cu"
#include "seg_maxabs.cu"
} // namespace orig
namespace v1 {
#include "seg_sum.v1.cu"
#include "seg_first_add.v1.cu"
#include "seg_sumsq.v1.cu"
#include "seg_imax.v1.cu"
#include "seg_maxabs.v1.cu"
} // namespace v1

namespace {

/// The grid the SpecChange asks for: the original's divided by blockDim.x /
/// 32 (by 1 for blocks below a warp, as the device check assumes).
unsigned segGrid(unsigned origGrid, unsigned block) {
  return check::ceilDiv(origGrid, block >= 32 ? block / 32 : 1);
}

/// Runs the original on its grid (ceil_div(n, E * block)) and the rewrite
/// on the smaller grid for each block; compares the per-block outputs
/// (poisoned before each launch, one more element than the grid checks that
/// nothing past the outputs is written).
template <typename T, typename In, typename Launch>
bool checkAll(const char *kernel, const std::vector<In> &hin, size_t n, int off, unsigned E,
              std::initializer_list<unsigned> blocks, Launch launch, double maxAbs,
              double relL2) {
  bool ok = true;
  In *din = check::upload(hin);
  const In *in = din + off;
  for (unsigned block : blocks) {
    unsigned grid = check::ceilDiv(unsigned(n), E * block);
    if (grid == 0)
      grid = 1;
    T *dout;
    CK(cudaMalloc(&dout, (grid + 1) * sizeof(T)));
    auto run = [&](bool rewritten) {
      check::poison(dout, grid + 1);
      launch(rewritten, rewritten ? segGrid(grid, block) : grid, block, in, dout);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return check::download(dout, grid + 1);
    };
    auto ref = run(false), a = run(true), b = run(true);
    char name[160];
    std::snprintf(name, sizeof name, "%s n=%zu%s block=%u", kernel, n, off ? " in+1" : "", block);
    bool exact = block % 32 != 0 || (block & (block - 1)) != 0;
    ok &= check::compare(name, ref, a, exact ? 0 : maxAbs, exact ? 0 : relL2);
    std::snprintf(name, sizeof name, "%s n=%zu%s block=%u (again)", kernel, n, off ? " in+1" : "",
                  block);
    ok &= check::compare(name, a, b, 0, 0);
    CK(cudaFree(dout));
  }
  CK(cudaFree(din));
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  const auto AllBlocks = {256u, 1024u, 512u, 128u, 64u, 32u, 96u, 100u};
  // The interleaved trees (reduce0's 'tid % (2 * s)', reduce2's 'index = 2 * s
  // * tid') read past a block of 96 or 100 (sdata[64 + 32]): the originals
  // are defined for power-of-two blocks only, so they are checked on those.
  const auto Pow2Blocks = {256u, 1024u, 512u, 128u, 64u, 32u};

  for (size_t n : {size_t(1000003), size_t(4097), size_t(33), size_t(1)})
    for (int off : {0, 1}) {
      auto h = check::random<float>(n + 1, 11 + unsigned(n));
      auto sum = [&](bool v, unsigned g, unsigned b, const float *in, float *out) {
        if (v)
          v1::seg_sum<<<g, b, b * sizeof(float)>>>(in, out, unsigned(n));
        else
          orig::seg_sum<<<g, b, b * sizeof(float)>>>(in, out, unsigned(n));
      };
      ok &= checkAll<float>("seg_sum", h, n, off, 1, Pow2Blocks, sum, 1e-4, 1e-5);
      auto first = [&](bool v, unsigned g, unsigned b, const float *in, float *out) {
        if (v)
          v1::seg_first_add<<<g, b, b * sizeof(float)>>>(in, out, unsigned(n));
        else
          orig::seg_first_add<<<g, b, b * sizeof(float)>>>(in, out, unsigned(n));
      };
      ok &= checkAll<float>("seg_first_add", h, n, off, 2, AllBlocks, first, 1e-4, 1e-5);
      auto hm = check::random<float>(n + 1, 21 + unsigned(n), -8, 3);
      auto maxabs = [&](bool v, unsigned g, unsigned b, const float *in, float *out) {
        if (v)
          v1::seg_maxabs<<<g, b>>>(in, out, int(n));
        else
          orig::seg_maxabs<<<g, b>>>(in, out, int(n));
      };
      ok &= checkAll<float>("seg_maxabs", hm, n, off, 1, {256u}, maxabs, 0, 0);
    }
  for (size_t n : {size_t(777777), size_t(1000), size_t(3)})
    for (int off : {0, 1}) {
      auto h = check::random<double>(n + 1, 31 + unsigned(n));
      auto sumsq = [&](bool v, unsigned g, unsigned b, const double *in, double *out) {
        if (v)
          v1::seg_sumsq<<<g, b>>>(in, out, long(n));
        else
          orig::seg_sumsq<<<g, b>>>(in, out, long(n));
      };
      ok &= checkAll<double>("seg_sumsq", h, n, off, 1, Pow2Blocks, sumsq, 1e-12, 1e-14);
    }
  for (size_t n : {size_t(1000003), size_t(5000), size_t(7)})
    for (int off : {0, 1}) {
      auto hf = check::random<double>(n + 1, 41 + unsigned(n), -2.0e9, 2.0e9);
      std::vector<int> h(hf.begin(), hf.end());
      auto imax = [&](bool v, unsigned g, unsigned b, const int *in, int *out) {
        if (v)
          v1::seg_imax<<<g, b, b * sizeof(int)>>>(in, out, int(n));
        else
          orig::seg_imax<<<g, b, b * sizeof(int)>>>(in, out, int(n));
      };
      ok &= checkAll<int>("seg_imax", h, n, off, 2, AllBlocks, imax, 0, 0);
    }

  if (Bench) {
    const size_t n = size_t(64) << 20;
    auto h = check::random<float>(n, 7);
    float *din = check::upload(h), *dout;
    CK(cudaMalloc(&dout, (n / 32 + 1) * sizeof(float)));
    for (unsigned block : {256u, 512u, 1024u}) {
      unsigned g1 = check::ceilDiv(unsigned(n), block), g2 = check::ceilDiv(unsigned(n), 2 * block);
      char what[96];
      double t0 = check::time(
          [&] { orig::seg_sum<<<g1, block, block * sizeof(float)>>>(din, dout, unsigned(n)); });
      double t1 = check::time([&] {
        v1::seg_sum<<<segGrid(g1, block), block, block * sizeof(float)>>>(din, dout, unsigned(n));
      });
      std::snprintf(what, sizeof what, "seg_sum (reduce0) 64M floats block=%u", block);
      check::report(what, t0, t1);
      t0 = check::time([&] {
        orig::seg_first_add<<<g2, block, block * sizeof(float)>>>(din, dout, unsigned(n));
      });
      t1 = check::time([&] {
        v1::seg_first_add<<<segGrid(g2, block), block, block * sizeof(float)>>>(din, dout,
                                                                                 unsigned(n));
      });
      std::snprintf(what, sizeof what, "seg_first_add (reduce3) 64M floats block=%u", block);
      check::report(what, t0, t1);
    }
    double t0 = check::time([&] { orig::seg_maxabs<<<check::ceilDiv(unsigned(n), 256), 256>>>(din, dout, int(n)); });
    double t1 = check::time([&] {
      v1::seg_maxabs<<<segGrid(check::ceilDiv(unsigned(n), 256), 256), 256>>>(din, dout, int(n));
    });
    check::report("seg_maxabs 64M floats block=256", t0, t1);
    // Bytes moved by the rewrite of reduce0 at block 256, for the bandwidth.
    double t = check::time([&] {
      v1::seg_sum<<<segGrid(check::ceilDiv(unsigned(n), 256), 256), 256, 256 * sizeof(float)>>>(
          din, dout, unsigned(n));
    });
    std::printf("seg_sum rewritten block=256: %.1f GB/s\n", double(n) * 4 / (t * 1e-3) / 1e9);
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
