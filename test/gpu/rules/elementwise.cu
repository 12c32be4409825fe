// vectorize and grid-stride rewrite elementwise maps into loops that are
// correct for any grid and block: on the GPU, each rewrite (grid-stride,
// vectorize, and vectorize applied to grid-stride's output) computes
// bitwise what the original computes, for sizes that are not multiples of
// the block or of 4 (1, 5, 1003, 1000003), pointers offset by 1 element
// (misaligned: the scalar loop) and by 4 (aligned), two block sizes, and
// the grids the rewrites allow: the original one, a quarter of it
// (vectorize's spec), and capped grids of 3 blocks and 1 block (the
// FORGE_GRID_WAVES cap, small). In-out buffers start from the same random
// values; outputs the original writes everywhere start as NaN, so that an
// element the rewrite skips shows.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel triad --rules=grid-stride --apply -o %t.d/triad.gs.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel triad --rules=vectorize --apply -o %t.d/triad.vec.cu
// RUN: forge-port propose %t.d/triad.gs.cu --kernel triad --rules=vectorize --apply -o %t.d/triad.gsvec.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel axpy_exit --rules=grid-stride --apply -o %t.d/axpy_exit.gs.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel axpy_exit --rules=vectorize --apply -o %t.d/axpy_exit.vec.cu
// RUN: forge-port propose %t.d/axpy_exit.gs.cu --kernel axpy_exit --rules=vectorize --apply -o %t.d/axpy_exit.gsvec.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel masked_copy --rules=grid-stride --apply -o %t.d/masked_copy.gs.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel masked_copy --rules=vectorize --apply -o %t.d/masked_copy.vec.cu
// RUN: forge-port propose %t.d/masked_copy.gs.cu --kernel masked_copy --rules=vectorize --apply -o %t.d/masked_copy.gsvec.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel relu_pos --rules=grid-stride --apply -o %t.d/relu_pos.gs.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel relu_pos --rules=vectorize --apply -o %t.d/relu_pos.vec.cu
// RUN: forge-port propose %t.d/relu_pos.gs.cu --kernel relu_pos --rules=vectorize --apply -o %t.d/relu_pos.gsvec.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel scale_double --rules=grid-stride --apply -o %t.d/scale_double.gs.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel scale_double --rules=vectorize --apply -o %t.d/scale_double.vec.cu
// RUN: forge-port propose %t.d/scale_double.gs.cu --kernel scale_double --rules=vectorize --apply -o %t.d/scale_double.gsvec.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel hash_index --rules=grid-stride --apply -o %t.d/hash_index.gs.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel hash_index --rules=vectorize --apply -o %t.d/hash_index.vec.cu
// RUN: forge-port propose %t.d/hash_index.gs.cu --kernel hash_index --rules=vectorize --apply -o %t.d/hash_index.gsvec.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel add_one --rules=grid-stride --apply -o %t.d/add_one.gs.cu
// RUN: forge-port propose %S/../Inputs/rules/elementwise_maps.cu --kernel add_one --rules=vectorize --apply -o %t.d/add_one.vec.cu
// RUN: forge-port propose %t.d/add_one.gs.cu --kernel add_one --rules=vectorize --apply -o %t.d/add_one.gsvec.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: gs triad: ok
// CHECK: gs axpy_exit: ok
// CHECK: gs masked_copy: ok
// CHECK: gs relu_pos: ok
// CHECK: gs scale_double: ok
// CHECK: gs hash_index: ok
// CHECK: gs add_one: ok
// CHECK: vec triad: ok
// CHECK: vec axpy_exit: ok
// CHECK: vec masked_copy: ok
// CHECK: vec relu_pos: ok
// CHECK: vec scale_double: ok
// CHECK: vec hash_index: ok
// CHECK: vec add_one: ok
// CHECK: gsvec triad: ok
// CHECK: gsvec axpy_exit: ok
// CHECK: gsvec masked_copy: ok
// CHECK: gsvec relu_pos: ok
// CHECK: gsvec scale_double: ok
// CHECK: gsvec hash_index: ok
// CHECK: gsvec add_one: ok
// CHECK: PASS
#include "check.h"

namespace orig {
#include "elementwise_maps.cu"
} // namespace orig
namespace gs_triad {
#include "triad.gs.cu"
} // namespace gs_triad
namespace gs_axpy_exit {
#include "axpy_exit.gs.cu"
} // namespace gs_axpy_exit
namespace gs_masked_copy {
#include "masked_copy.gs.cu"
} // namespace gs_masked_copy
namespace gs_relu_pos {
#include "relu_pos.gs.cu"
} // namespace gs_relu_pos
namespace gs_scale_double {
#include "scale_double.gs.cu"
} // namespace gs_scale_double
namespace gs_hash_index {
#include "hash_index.gs.cu"
} // namespace gs_hash_index
namespace gs_add_one {
#include "add_one.gs.cu"
} // namespace gs_add_one
namespace vec_triad {
#include "triad.vec.cu"
} // namespace vec_triad
namespace vec_axpy_exit {
#include "axpy_exit.vec.cu"
} // namespace vec_axpy_exit
namespace vec_masked_copy {
#include "masked_copy.vec.cu"
} // namespace vec_masked_copy
namespace vec_relu_pos {
#include "relu_pos.vec.cu"
} // namespace vec_relu_pos
namespace vec_scale_double {
#include "scale_double.vec.cu"
} // namespace vec_scale_double
namespace vec_hash_index {
#include "hash_index.vec.cu"
} // namespace vec_hash_index
namespace vec_add_one {
#include "add_one.vec.cu"
} // namespace vec_add_one
namespace gsvec_triad {
#include "triad.gsvec.cu"
} // namespace gsvec_triad
namespace gsvec_axpy_exit {
#include "axpy_exit.gsvec.cu"
} // namespace gsvec_axpy_exit
namespace gsvec_masked_copy {
#include "masked_copy.gsvec.cu"
} // namespace gsvec_masked_copy
namespace gsvec_relu_pos {
#include "relu_pos.gsvec.cu"
} // namespace gsvec_relu_pos
namespace gsvec_scale_double {
#include "scale_double.gsvec.cu"
} // namespace gsvec_scale_double
namespace gsvec_hash_index {
#include "hash_index.gsvec.cu"
} // namespace gsvec_hash_index
namespace gsvec_add_one {
#include "add_one.gsvec.cu"
} // namespace gsvec_add_one

namespace {

const size_t Sizes[] = {1, 5, 1003, 1000003};
const size_t Offsets[] = {0, 1, 4};
const unsigned Blocks[] = {256, 96};

/// The grids a rewrite may be launched with, for the original's grid g.
std::vector<unsigned> gridsFor(unsigned g) {
  std::vector<unsigned> v = {g, check::ceilDiv(g, 4), 3, 1};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// One buffer of a check: its elements (count + the largest offset) and
/// the values every run starts from; Poison: start from NaN instead (an
/// output the original writes everywhere).
template <typename T> struct Buffer {
  std::vector<T> init;
  bool poison = false;
  T *base = nullptr;
  Buffer(size_t n, unsigned seed, bool poison, double lo = -1, double hi = 1)
      : init(check::random<T>(n + 8, seed, lo, hi)), poison(poison) {
    base = check::upload(init);
  }
  ~Buffer() { cudaFree(base); }
  void reset() {
    if (poison)
      check::poison(base, init.size());
    else
      CK(cudaMemcpy(base, init.data(), init.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> get() { return check::download(base, init.size()); }
};

struct Tally {
  int launches = 0, bad = 0;
};

/// Runs Orig(grid, block) and Cand(grid', block) on the same inputs for
/// every grid' the rewrite allows, and compares Out bitwise.
template <typename T, typename R, typename O, typename C>
void compareRuns(const char *what, Tally &t, Buffer<T> &out, R resetInputs, unsigned g,
                 unsigned block, O orig, C cand) {
  resetInputs();
  out.reset();
  orig(g, block);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<T> ref = out.get();
  for (unsigned cg : gridsFor(g)) {
    resetInputs();
    out.reset();
    cand(cg, block);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<T> got = out.get();
    ++t.launches;
    bool same = true;
    for (size_t i = 0; i < ref.size() && same; ++i)
      same = std::memcmp(&ref[i], &got[i], sizeof(T)) == 0;
    if (!same && t.bad++ < 3) {
      std::printf("%s: grid %u block %u: ", what, cg, block);
      check::compare(what, ref, got, 0, 0);
    }
  }
}

void report(const char *what, const Tally &t) {
  std::printf("%s: %s (%d launches, %d mismatches)\n", what, t.bad ? "MISMATCH" : "ok",
              t.launches, t.bad);
}

} // namespace

// One check per kernel and variant: V is the namespace prefix (gs, vec,
// gsvec).
#define CHECK_TRIAD(V)                                                                  \
  {                                                                                     \
    Tally t;                                                                            \
    for (size_t n : Sizes)                                                              \
      for (size_t off : Offsets)                                                        \
        for (unsigned b : Blocks) {                                                     \
          Buffer<float> a(n, 1, true), x(n, 2, false), y(n, 3, false);                  \
          unsigned g = check::ceilDiv(n, b);                                            \
          compareRuns(#V " triad", t, a, [] {}, g, b,                                   \
                      [&](unsigned gg, unsigned bb) {                                   \
                        orig::triad<<<gg, bb>>>(a.base + off, x.base + off, y.base + off, \
                                                3.f, int(n));                           \
                      },                                                                \
                      [&](unsigned gg, unsigned bb) {                                   \
                        V##_triad::triad<<<gg, bb>>>(a.base + off, x.base + off,        \
                                                     y.base + off, 3.f, int(n));        \
                      });                                                               \
        }                                                                               \
    report(#V " triad", t);                                                             \
    ok &= !t.bad;                                                                       \
  }

// A kernel with inputs In... (const) and one output Out, all of n elements.
#define CHECK_MAP(V, K, OUT_T, POISON, SETUP, ARGS)                                     \
  {                                                                                     \
    Tally t;                                                                            \
    for (size_t n : Sizes)                                                              \
      for (size_t off : Offsets)                                                        \
        for (unsigned b : Blocks) {                                                     \
          Buffer<OUT_T> out(n, 7, POISON);                                              \
          SETUP                                                                         \
          unsigned g = check::ceilDiv(n, b);                                            \
          compareRuns(#V " " #K, t, out, [] {}, g, b,                                   \
                      [&](unsigned gg, unsigned bb) { orig::K<<<gg, bb>>> ARGS; },      \
                      [&](unsigned gg, unsigned bb) { V##_##K::K<<<gg, bb>>> ARGS; });  \
        }                                                                               \
    report(#V " " #K, t);                                                               \
    ok &= !t.bad;                                                                       \
  }

#define CHECK_ALL(V)                                                                    \
  CHECK_TRIAD(V)                                                                        \
  CHECK_MAP(V, axpy_exit, float, false, Buffer<float> x(n, 2, false);,                  \
            (x.base + off, out.base + off, 0.5f, int(n)))                               \
  CHECK_MAP(V, masked_copy, float, false,                                               \
            Buffer<float> x(n, 2, false); Buffer<int> m(n, 4, false, 0, 2);,            \
            (x.base + off, out.base + off, m.base + off, int(n)))                       \
  CHECK_MAP(V, relu_pos, float, false, Buffer<float> x(n, 2, false);,                   \
            (x.base + off, out.base + off, int(n)))                                     \
  CHECK_MAP(V, scale_double, double, true, Buffer<double> x(n, 2, false);,              \
            (x.base + off, out.base + off, 1.25, int(n)))                               \
  CHECK_MAP(V, hash_index, unsigned, true, , (out.base + off, int(n)))                  \
  CHECK_MAP(V, add_one, int, true, Buffer<int> x(n, 2, false, -1000, 1000);,            \
            (x.base + off, out.base + off, n))

int main() {
  bool ok = true;
  CHECK_ALL(gs)
  CHECK_ALL(vec)
  CHECK_ALL(gsvec)
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
