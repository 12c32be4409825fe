// grid-fill changes only the launch of a kernel whose grid-stride loop
// makes it correct for any grid. This runs the kernels the rule accepts
// (its proposal checked by the RUN lines) with the grid they were written
// for and with the grids a new launch may have (1 block, odd counts, the
// rule's 4 waves on this GPU, 32 waves), on odd sizes (not multiples of
// the block or of 4) and pointers offset by one element, and compares: the
// histogram exactly, the dot product within float rounding (its per-block
// partials are added in another order). With --bench: the written grid
// against the rule's, at 32 M elements.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/gf_dot_book.cu --kernel gf_dot_book --spec %S/../Inputs/rules/gf_dot_book.json --rules=grid-fill | FileCheck %s --check-prefix=PROPOSE
// RUN: forge-port propose %S/../Inputs/rules/gf_hist256.cu --kernel gf_hist256 --spec %S/../Inputs/rules/gf_hist256.json --rules=grid-fill | FileCheck %s --check-prefix=PROPOSE
// PROPOSE: # spec: grid.x -> {{[0-9]+}} * FORGE_GRID_WAVES * 8
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: gf_dot_book n=1000003 grid=1: ok
// CHECK: gf_dot_book n=1000003 grid=7: ok
// CHECK: gf_dot_book n=1000003 grid=waves4: ok
// CHECK: gf_dot_book n=1000003 a+1 grid=waves32: ok
// CHECK: gf_dot_book n=5 grid=waves4: ok
// CHECK: gf_hist256 n=1000003 grid=1: ok max_abs_err 0
// CHECK: gf_hist256 n=1000003 grid=waves4: ok max_abs_err 0
// CHECK: gf_hist256 n=1000003 d+1 grid=waves32: ok max_abs_err 0
// CHECK: gf_hist256 n=3 grid=waves4: ok max_abs_err 0
// CHECK: PASS
#include "check.h"
#include <string>

#include "gf_dot_book.cu"
#include "gf_hist256.cu"

using namespace check;

int main(int argc, char **argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned block = 256, perSM = 2048 / block;
  auto grids = [&](unsigned written) {
    return std::vector<std::pair<std::string, unsigned>>{
        {"1", 1}, {"7", 7}, {"written", written}, {"waves4", sms * 4 * perSM},
        {"waves32", sms * 32 * perSM}};
  };
  bool ok = true;

  // The dot product: the written grid (32 blocks) is the reference.
  for (auto Cfg : {std::pair<unsigned, unsigned>{1000003, 0}, {1000003, 1}, {5, 0}}) {
    unsigned n = Cfg.first, off = Cfg.second;
    auto a = random<float>(n + off, 1), b = random<float>(n, 2);
    float *da = upload(a), *db = upload(b), *dc = nullptr;
    CK(cudaMalloc(&dc, sizeof(float)));
    auto run = [&](unsigned g) {
      CK(cudaMemset(dc, 0, sizeof(float)));
      gf_dot_book<<<g, block>>>(da + off, db, dc, int(n));
      CK(cudaGetLastError());
      return download(dc, 1);
    };
    auto ref = run(32);
    double mag = 0;
    for (unsigned i = 0; i < n; ++i)
      mag += std::fabs(double(a[i + off]) * b[i]);
    for (const auto &G : grids(32)) {
      const std::string &name = G.first;
      unsigned g = G.second;
      if (name == "written")
        continue;
      if ((off || n < 100) && name != (off ? "waves32" : "waves4"))
        continue;
      std::string what = "gf_dot_book n=" + std::to_string(n) + (off ? " a+1" : "") +
                         " grid=" + name;
      // float partials in another order: within n * eps of the sum of |terms|.
      ok &= compare(what.c_str(), ref, run(g), 1e-6 * mag + 1e-6, 1e-4);
    }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
  }

  // The histogram: exact for every grid.
  for (auto Cfg : {std::pair<unsigned, unsigned>{1000003, 0}, {1000003, 1}, {3, 0}}) {
    unsigned n = Cfg.first, off = Cfg.second;
    std::vector<unsigned char> d(n + off);
    for (unsigned i = 0; i < n + off; ++i)
      d[i] = (unsigned char)((i * 2654435761u) >> 13);
    unsigned char *dd = upload(d);
    unsigned *dh = nullptr;
    CK(cudaMalloc(&dh, 256 * sizeof(unsigned)));
    auto run = [&](unsigned g) {
      CK(cudaMemset(dh, 0, 256 * sizeof(unsigned)));
      gf_hist256<<<g, block>>>(dd + off, dh, int(n));
      CK(cudaGetLastError());
      return download(dh, 256);
    };
    auto ref = run(16);
    for (const auto &G : grids(16)) {
      const std::string &name = G.first;
      unsigned g = G.second;
      if (name == "written" || name == "7")
        continue;
      if ((off || n < 100) && name != (off ? "waves32" : "waves4"))
        continue;
      std::string what = "gf_hist256 n=" + std::to_string(n) + (off ? " d+1" : "") +
                         " grid=" + name;
      ok &= compare(what.c_str(), ref, run(g), 0, 0);
    }
    CK(cudaFree(dd));
    CK(cudaFree(dh));
  }

  if (bench(argc, argv)) {
    const unsigned n = 32u << 20;
    auto a = random<float>(n, 3), b = random<float>(n, 4);
    float *da = upload(a), *db = upload(b), *dc = nullptr;
    CK(cudaMalloc(&dc, sizeof(float)));
    unsigned w4 = sms * 4 * perSM;
    double t0 = time([&] { gf_dot_book<<<32, block>>>(da, db, dc, int(n)); });
    double t1 = time([&] { gf_dot_book<<<w4, block>>>(da, db, dc, int(n)); });
    report("gf_dot_book n=32M grid 32 -> 4 waves", t0, t1);
    std::vector<unsigned char> d(n);
    for (unsigned i = 0; i < n; ++i)
      d[i] = (unsigned char)((i * 2654435761u) >> 13);
    unsigned char *dd = upload(d);
    unsigned *dh = nullptr;
    CK(cudaMalloc(&dh, 256 * sizeof(unsigned)));
    t0 = time([&] { gf_hist256<<<16, block>>>(dd, dh, int(n)); });
    t1 = time([&] { gf_hist256<<<w4, block>>>(dd, dh, int(n)); });
    report("gf_hist256 n=32M grid 16 -> 4 waves", t0, t1);
  }
  std::printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
