// stencil-register-rows' planes (the 3D form: each thread computes R
// consecutive output planes along threadIdx.z from a register window)
// compute bitwise what the originals compute, on the GPU. The three kernels
// of register_planes.cu (a 27-point box over the interior with one early
// return, a clamped weighted 3x3x3 with size_t strides, a zero-padded box
// whose taps test their own neighbour: the interior copy) are rewritten
// with both proposals (p0.cu: 2 planes per thread, p1.cu: 4). Each runs on
// volumes whose sides are multiples of no block side nor of 4 planes
// (67 x 37 x 19, 33 x 17 x 42, 5 x 3 x 4, 40 x 9 x 1), at offset pointers,
// with blocks 32x4x4 (the specs'), 16x8x2, 8x4x8 and 32x8x1, on the grid
// divided by the planes along z (the spec change) and on the original grid
// (its extra planes fail the kernels' guards). The whole output
// allocation, poisoned first, must be bitwise the original's. -fmad=false:
// the test is about the operations and their order, not about where nvcc
// contracts them. `--bench` times the box at the naive benchmark's size
// (512 x 512 x 256, 32 x 4 x 4 blocks: utils/bench/naive/box27.cu).
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../Inputs/rules/register_planes.cu %t.d/a0.cu && cp %S/../Inputs/rules/register_planes.cu %t.d/b0.cu
// RUN: forge-port propose %t.d/a0.cu --spec %S/../Inputs/rules/register_planes/box_interior.json --rules=stencil-register-rows --format=json > %t.d/a0.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a0.json 0 %t.d/a0.cu > %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --spec %S/../Inputs/rules/register_planes/smooth_clamped.json --rules=stencil-register-rows --format=json > %t.d/a1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a1.json 0 %t.d/a1.cu > %t.d/a2.cu
// RUN: forge-port propose %t.d/a2.cu --spec %S/../Inputs/rules/register_planes/box_zero.json --rules=stencil-register-rows --format=json > %t.d/a2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a2.json 0 %t.d/a2.cu > %t.d/p0.cu
// RUN: forge-port propose %t.d/b0.cu --spec %S/../Inputs/rules/register_planes/box_interior.json --rules=stencil-register-rows --format=json > %t.d/b0.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b0.json 1 %t.d/b0.cu > %t.d/b1.cu
// RUN: forge-port propose %t.d/b1.cu --spec %S/../Inputs/rules/register_planes/smooth_clamped.json --rules=stencil-register-rows --format=json > %t.d/b1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b1.json 1 %t.d/b1.cu > %t.d/b2.cu
// RUN: forge-port propose %t.d/b2.cu --spec %S/../Inputs/rules/register_planes/box_zero.json --rules=stencil-register-rows --format=json > %t.d/b2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b2.json 1 %t.d/b2.cu > %t.d/p1.cu
// RUN: grep -c "output planes per thread" %t.d/p0.cu | FileCheck %s --check-prefix=THREE
// RUN: grep -c "output planes per thread" %t.d/p1.cu | FileCheck %s --check-prefix=THREE
// RUN: grep -c "_win\[6\]\[3\]\[3\];" %t.d/p1.cu | FileCheck %s --check-prefix=THREE
// THREE: 3
// RUN: %nvcc -arch=native -O3 -fmad=false -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK-COUNT-192: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

#include <cstring>
#include <string>

namespace orig {
#include "register_planes.cu"
} // namespace orig
namespace p0 {
#include "p0.cu"
} // namespace p0
namespace p1 {
#include "p1.cu"
} // namespace p1

namespace {

using K = void (*)(const float *, float *, int, int, int);
bool ok = true;

/// Orig against its rewrites with 2 (Cand0) and 4 (Cand1) planes per thread.
void cases(const char *name, K Orig, K Cand0, K Cand1) {
  struct Volume {
    int nx, ny, nz;
  };
  for (Volume v : {Volume{67, 37, 19}, Volume{33, 17, 42}, Volume{5, 3, 4}, Volume{40, 9, 1}}) {
    size_t n = size_t(v.nx) * v.ny * v.nz, pad = 5;
    auto a = check::random<float>(n + 1, 13);
    float *dA = check::upload(a), *dOut;
    CK(cudaMalloc(&dOut, (n + 3 + pad) * sizeof(float)));
    auto run = [&](K k, dim3 grid, dim3 block) {
      check::poison(dOut, n + 3 + pad);
      k<<<grid, block>>>(dA + 1, dOut + 3, v.nx, v.ny, v.nz);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return check::download(dOut, n + 3 + pad);
    };
    for (dim3 b : {dim3(32, 4, 4), dim3(16, 8, 2), dim3(8, 4, 8), dim3(32, 8, 1)}) {
      dim3 g(check::ceilDiv(v.nx, b.x), check::ceilDiv(v.ny, b.y), check::ceilDiv(v.nz, b.z));
      auto ref = run(Orig, g, b);
      for (int planes : {2, 4})
        for (unsigned gz : {check::ceilDiv(g.z, planes), g.z}) {
          auto got = run(planes == 2 ? Cand0 : Cand1, dim3(g.x, g.y, gz), b);
          std::string what = std::string(name) + " " + std::to_string(planes) + " planes " +
                             std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" +
                             std::to_string(v.nz) + " block " + std::to_string(b.x) + "x" +
                             std::to_string(b.y) + "x" + std::to_string(b.z) + " grid.z " +
                             std::to_string(gz);
          ok &= check::identical(what.c_str(), ref, got);
        }
    }
    CK(cudaFree(dA));
    CK(cudaFree(dOut));
  }
}

} // namespace

int main(int argc, char **argv) {
  cases("box_interior", orig::box_interior, p0::box_interior, p1::box_interior);
  cases("smooth_clamped", orig::smooth_clamped, p0::smooth_clamped, p1::smooth_clamped);
  cases("box_zero", orig::box_zero, p0::box_zero, p1::box_zero);
  if (check::bench(argc, argv)) {
    const int nx = 512, ny = 512, nz = 256;
    auto h = check::random<float>(size_t(nx) * ny * nz, 5);
    float *dIn = check::upload(h), *dOut;
    CK(cudaMalloc(&dOut, h.size() * sizeof(float)));
    dim3 b(32, 4, 4), g(nx / 32, ny / 4, nz / 4);
    double t0 = check::time([&] { orig::box_interior<<<g, b>>>(dIn, dOut, nx, ny, nz); });
    double t2 = check::time([&] { p0::box_interior<<<dim3(g.x, g.y, g.z / 2), b>>>(dIn, dOut, nx, ny, nz); });
    double t4 = check::time([&] { p1::box_interior<<<dim3(g.x, g.y, g.z / 4), b>>>(dIn, dOut, nx, ny, nz); });
    check::report("box27 512x512x256 32x4x4, 2 planes per thread", t0, t2);
    check::report("box27 512x512x256 32x4x4, 4 planes per thread", t0, t4);
    std::printf("box27: original %.0f GB/s, 2 planes %.0f GB/s, 4 planes %.0f GB/s\n",
                8.0 * nx * ny * nz / t0 / 1e6, 8.0 * nx * ny * nz / t2 / 1e6,
                8.0 * nx * ny * nz / t4 / 1e6);
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
