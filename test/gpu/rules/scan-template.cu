// The scan-template rule's replacements compute the scans the originals
// compute, on the GPU: seven naive scans written in different styles
// (test/gpu/Inputs/rules/scan.cu: serial inclusive float, exclusive int with
// a size_t count, a running max of unsigned keys, in place, a one-block
// Hillis-Steele scan in shared memory, and the O(n^2) per-thread prefix sum,
// inclusive float and exclusive int) and the suite's chained scan
// (utils/bench/kernels/scan_inclusive.cu), each replaced with 16 (the first
// proposal) and 8 elements per thread. Every replacement runs on sizes that are not multiples of a tile, of the block or of 4, with
// pointers offset by 0 (16-byte loads), 1 and 3 elements (scalar path), for
// grids and blocks of every kind (one block, three blocks, more blocks than
// tiles, 32, 48 and 96 threads, 1024 threads, a 64 x 2 x 2 block), twice in
// a row (the second launch must not see the first's statuses). The whole
// output allocation is compared with a CPU scan (exactly for integers, in
// double for floats), so a stray write shows; each original is checked
// against the same CPU scan where it is defined (the one-block scan up to
// 1024 elements). `--bench` times the suite's scan at 2^24 floats.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d && cp %S/../Inputs/rules/scan.cu %t.d/a0.cu && cp %S/../Inputs/rules/scan.cu %t.d/b0.cu
// RUN: forge-port propose %t.d/a0.cu --kernel scan_serial --rules=scan-template --apply -o %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --kernel scan_exclusive_int --rules=scan-template --apply -o %t.d/a2.cu
// RUN: forge-port propose %t.d/a2.cu --kernel running_max --rules=scan-template --apply -o %t.d/a3.cu
// RUN: forge-port propose %t.d/a3.cu --kernel scan_in_place --rules=scan-template --apply -o %t.d/a4.cu
// RUN: forge-port propose %t.d/a4.cu --kernel scan_block --rules=scan-template --apply -o %t.d/a5.cu
// RUN: forge-port propose %t.d/a5.cu --kernel scan_triangle --rules=scan-template --apply -o %t.d/a6.cu
// RUN: forge-port propose %t.d/a6.cu --kernel scan_triangle_excl --rules=scan-template --apply -o %t.d/c16.cu
// RUN: forge-port propose %t.d/b0.cu --kernel scan_serial --rules=scan-template --format=json > %t.d/b1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b1.json 1 %t.d/b0.cu > %t.d/b1.cu
// RUN: forge-port propose %t.d/b1.cu --kernel scan_exclusive_int --rules=scan-template --format=json > %t.d/b2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b2.json 1 %t.d/b1.cu > %t.d/b2.cu
// RUN: forge-port propose %t.d/b2.cu --kernel running_max --rules=scan-template --format=json > %t.d/b3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b3.json 1 %t.d/b2.cu > %t.d/b3.cu
// RUN: forge-port propose %t.d/b3.cu --kernel scan_in_place --rules=scan-template --format=json > %t.d/b4.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b4.json 1 %t.d/b3.cu > %t.d/b4.cu
// RUN: forge-port propose %t.d/b4.cu --kernel scan_block --rules=scan-template --format=json > %t.d/b5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b5.json 1 %t.d/b4.cu > %t.d/b5.cu
// RUN: forge-port propose %t.d/b5.cu --kernel scan_triangle --rules=scan-template --format=json > %t.d/b6.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b6.json 1 %t.d/b5.cu > %t.d/b6.cu
// RUN: forge-port propose %t.d/b6.cu --kernel scan_triangle_excl --rules=scan-template --format=json > %t.d/b7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b7.json 1 %t.d/b6.cu > %t.d/c8.cu
// RUN: cp %S/../../../utils/bench/kernels/scan_inclusive.cu %t.d/suite.cu
// RUN: forge-port propose %t.d/suite.cu --kernel scan_inclusive --rules=scan-template --apply -o %t.d/suite16.cu
// RUN: forge-port propose %t.d/suite.cu --kernel scan_inclusive --rules=scan-template --format=json > %t.d/s8.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s8.json 2 %t.d/suite.cu > %t.d/suite8.cu
// RUN: grep -q "fs_items = 16" %t.d/c16.cu && grep -q "fs_items = 8" %t.d/c8.cu && grep -q "fs_items = 8" %t.d/suite8.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: scan_serial original: {{[0-9]+}} cases ok
// CHECK: scan_serial 8 items: {{[0-9]+}} cases ok
// CHECK: scan_serial 16 items: {{[0-9]+}} cases ok
// CHECK: scan_exclusive_int original: {{[0-9]+}} cases ok
// CHECK: scan_exclusive_int 8 items: {{[0-9]+}} cases ok
// CHECK: scan_exclusive_int 16 items: {{[0-9]+}} cases ok
// CHECK: running_max original: {{[0-9]+}} cases ok
// CHECK: running_max 8 items: {{[0-9]+}} cases ok
// CHECK: running_max 16 items: {{[0-9]+}} cases ok
// CHECK: scan_in_place original: {{[0-9]+}} cases ok
// CHECK: scan_in_place 8 items: {{[0-9]+}} cases ok
// CHECK: scan_in_place 16 items: {{[0-9]+}} cases ok
// CHECK: scan_block original: {{[0-9]+}} cases ok
// CHECK: scan_block 8 items: {{[0-9]+}} cases ok
// CHECK: scan_block 16 items: {{[0-9]+}} cases ok
// CHECK: scan_triangle original: {{[0-9]+}} cases ok
// CHECK: scan_triangle 8 items: {{[0-9]+}} cases ok
// CHECK: scan_triangle 16 items: {{[0-9]+}} cases ok
// CHECK: scan_triangle_excl original: {{[0-9]+}} cases ok
// CHECK: scan_triangle_excl 8 items: {{[0-9]+}} cases ok
// CHECK: scan_triangle_excl 16 items: {{[0-9]+}} cases ok
// CHECK: scan_inclusive original: {{[0-9]+}} cases ok
// CHECK: scan_inclusive 8 items: {{[0-9]+}} cases ok
// CHECK: scan_inclusive 16 items: {{[0-9]+}} cases ok
// CHECK: PASS
#include "check.h"

#include <climits>
#include <cstdint>

namespace orig {
#include "scan.cu"
} // namespace orig
namespace c8 {
#include "c8.cu"
} // namespace c8
namespace c16 {
#include "c16.cu"
} // namespace c16
namespace suite {
#include "suite.cu"
} // namespace suite
#undef SCAN_ITEMS
namespace suite8 {
#include "suite8.cu"
} // namespace suite8
#undef SCAN_ITEMS
namespace suite16 {
#include "suite16.cu"
} // namespace suite16

namespace {

bool ok = true;

struct Shape {
  const char *Name;
  dim3 Grid, Block;
};

// Launches for a kernel that must be correct for any grid and block.
std::vector<Shape> anyShapes(size_t n) {
  unsigned t256 = unsigned(std::max<size_t>(1, (n + 2047) / 2048));
  return {{"256 x one block per 2048", dim3(t256), dim3(256)},
          {"1024 threads", dim3(unsigned(std::max<size_t>(1, (n + 8191) / 8192))), dim3(1024)},
          {"one block of 256", dim3(1), dim3(256)},
          {"3 blocks of 128", dim3(3), dim3(128)},
          {"4096 blocks of 64", dim3(4096), dim3(64)},
          {"32 threads", dim3(7), dim3(32)},
          {"48 threads", dim3(5), dim3(48)},
          {"96 threads", dim3(9), dim3(96)},
          {"64 x 2 x 2 block", dim3(6, 2), dim3(64, 2, 2)}};
}

const size_t Pad = 8;
const size_t Sizes[] = {1, 5, 1000, 4097, 100003, (1u << 20) + 3};
const unsigned Offsets[] = {0, 1, 3};

// The scan of Host[Off, Off + N) into a copy of Poison, the rest untouched.
template <typename T, typename Acc, typename Op>
std::vector<T> cpuScan(const std::vector<T> &Host, const std::vector<T> &Poison, size_t Off,
                       size_t N, bool Inclusive, Acc Identity, Op Combine) {
  std::vector<T> R = Poison;
  Acc A = Identity;
  for (size_t I = 0; I < N; ++I) {
    if (!Inclusive)
      R[Off + I] = T(A);
    A = Combine(A, Acc(Host[Off + I]));
    if (Inclusive)
      R[Off + I] = T(A);
  }
  return R;
}

template <typename T> std::vector<T> poisonPattern(size_t N) {
  std::vector<T> P(N);
  std::memset(P.data(), 0xFF, N * sizeof(T));
  return P;
}

// The largest error relative to max(1, |reference|), element by element
// (NaN against a number counts as infinite): one wrong element shows,
// which a relative L2 norm over a million sums would hide.
template <typename T>
bool compareScan(const char *What, const std::vector<T> &Ref, const std::vector<T> &Got,
                 double Tol) {
  double Worst = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    double A = double(Ref[I]), B = double(Got[I]);
    double D = std::isnan(A) != std::isnan(B) ? INFINITY
               : std::isnan(A)                ? 0
                                              : std::fabs(A - B) / std::max(1.0, std::fabs(A));
    Worst = std::max(Worst, D);
  }
  bool Ok = Worst <= Tol;
  std::printf("%s: %s max_rel_err %.3g (%zu elements)\n", What, Ok ? "ok" : "MISMATCH", Worst,
              Ref.size());
  return Ok;
}

// Runs Launch(in, out, n, grid, block) for every size, offset and shape
// (twice per shape) and compares with the CPU scan. InPlace: out == in.
template <typename T, typename Acc, typename Op, typename L>
void checkScan(const char *What, L Launch, bool Inclusive, bool InPlace, Acc Identity, Op Combine,
               double Lo, double Hi, double Tol, bool AnyShape, size_t MaxN = SIZE_MAX) {
  unsigned Cases = 0;
  bool All = true;
  for (size_t N : Sizes) {
    if (N > MaxN)
      continue;
    for (unsigned Off : Offsets) {
      size_t Total = N + Pad;
      std::vector<T> Host = check::random<T>(Total, unsigned(N + Off), Lo, Hi);
      std::vector<T> Poison = poisonPattern<T>(Total);
      std::vector<T> Ref = cpuScan(Host, InPlace ? Host : Poison, Off, N, Inclusive, Identity,
                                   Combine);
      T *In = check::upload(Host), *Out = nullptr;
      if (!InPlace)
        CK(cudaMalloc(&Out, Total * sizeof(T)));
      std::vector<Shape> Shapes =
          AnyShape ? anyShapes(N)
                   : std::vector<Shape>{{"one block of 1024", dim3(1), dim3(1024)}};
      for (const Shape &S : Shapes)
        for (int Rep = 0; Rep < 2; ++Rep) {
          if (InPlace)
            CK(cudaMemcpy(In, Host.data(), Total * sizeof(T), cudaMemcpyHostToDevice));
          else
            check::poison(Out, Total);
          Launch(In + Off, (InPlace ? In : Out) + Off, N, S.Grid, S.Block);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          char Line[200];
          std::snprintf(Line, sizeof Line, "%s n=%zu +%u %s launch %d", What, N, Off, S.Name,
                        Rep + 1);
          All &= compareScan(Line, Ref, check::download(InPlace ? In : Out, Total), Tol);
          ++Cases;
        }
      CK(cudaFree(In));
      if (Out)
        CK(cudaFree(Out));
    }
  }
  std::printf("%s: %u cases %s\n", What, Cases, All ? "ok" : "MISMATCH");
  ok &= All;
}

auto addD = [](double A, double B) { return A + B; };
auto addI = [](int64_t A, int64_t B) { return int64_t(int32_t(uint32_t(A) + uint32_t(B))); };
auto maxU = [](uint64_t A, uint64_t B) { return std::max(A, B); };

// Relative tolerances of float sums of elements of [0, 1) against a double
// sum: the replacements add blockwise (a chain of a few hundred tile
// prefixes), the serial originals one element after another in float.
const double FloatTol = 1e-5, OrigTol = 1e-3;

void runAll() {
  // Each original, with its own launch (one thread or one block).
  checkScan<float>("scan_serial original", [](const float *I, float *O, size_t N, dim3, dim3) {
    orig::scan_serial<<<1, 32>>>(I, O, int(N));
  }, true, false, 0.0, addD, 0, 1, OrigTol, false, 100003);
#define BOTH(NAME, KERNEL, ARGS, ...)                                                              \
  checkScan<__VA_ARGS__>(NAME " 8 items", [](auto I, auto O, size_t N, dim3 G, dim3 B) {           \
    c8::KERNEL<<<G, B>>> ARGS;                                                                     \
  }, OPTS);                                                                                        \
  checkScan<__VA_ARGS__>(NAME " 16 items", [](auto I, auto O, size_t N, dim3 G, dim3 B) {          \
    c16::KERNEL<<<G, B>>> ARGS;                                                                    \
  }, OPTS);
#define OPTS true, false, 0.0, addD, 0, 1, FloatTol, true
  BOTH("scan_serial", scan_serial, (I, O, int(N)), float)
#undef OPTS
  checkScan<int>("scan_exclusive_int original", [](const int *I, int *O, size_t N, dim3, dim3) {
    orig::scan_exclusive_int<<<1, 1>>>(I, O, N);
  }, false, false, int64_t(0), addI, -1000, 1000, 0, false, 100003);
#define OPTS false, false, int64_t(0), addI, -1000, 1000, 0, true
  BOTH("scan_exclusive_int", scan_exclusive_int, (I, O, N), int)
#undef OPTS
  checkScan<unsigned>("running_max original", [](const unsigned *I, unsigned *O, size_t N, dim3,
                                                 dim3) {
    orig::running_max<<<1, 64>>>(I, O, unsigned(N));
  }, true, false, uint64_t(0), maxU, 0, 4294967295.0, 0, false, 100003);
#define OPTS true, false, uint64_t(0), maxU, 0, 4294967295.0, 0, true
  BOTH("running_max", running_max, (I, O, unsigned(N)), unsigned)
#undef OPTS
  checkScan<float>("scan_in_place original", [](float *I, float *, size_t N, dim3, dim3) {
    orig::scan_in_place<<<1, 1>>>(I, int(N));
  }, true, true, 0.0, addD, 0, 1, OrigTol, false, 100003);
#define OPTS true, true, 0.0, addD, 0, 1, FloatTol, true
  BOTH("scan_in_place", scan_in_place, (I, int(N)), float)
#undef OPTS
  checkScan<float>("scan_block original", [](const float *I, float *O, size_t N, dim3 G, dim3 B) {
    orig::scan_block<<<G, B>>>(I, O, int(N));
  }, true, false, 0.0, addD, 0, 1, OrigTol, false, 1024);
#define OPTS true, false, 0.0, addD, 0, 1, FloatTol, true
  BOTH("scan_block", scan_block, (I, O, int(N)), float)
#undef OPTS
  // The naive O(n^2) prefix sums: one thread per element.
  checkScan<float>("scan_triangle original", [](const float *I, float *O, size_t N, dim3, dim3) {
    orig::scan_triangle<<<unsigned((N + 255) / 256), 256>>>(I, O, int(N));
  }, true, false, 0.0, addD, 0, 1, OrigTol, false, 100003);
#define OPTS true, false, 0.0, addD, 0, 1, FloatTol, true
  BOTH("scan_triangle", scan_triangle, (I, O, int(N)), float)
#undef OPTS
  checkScan<int>("scan_triangle_excl original", [](const int *I, int *O, size_t N, dim3, dim3) {
    orig::scan_triangle_excl<<<unsigned((N + 127) / 128), 128>>>(I, O, int(N));
  }, false, false, int64_t(0), addI, -1000, 1000, 0, false, 100003);
#define OPTS false, false, int64_t(0), addI, -1000, 1000, 0, true
  BOTH("scan_triangle_excl", scan_triangle_excl, (I, O, int(N)), int)
#undef OPTS
  // The suite's chained scan needs zeroed scratch for its ticket and flags;
  // its replacements ignore them.
  unsigned *Ticket = nullptr;
  unsigned long long *Flags = nullptr;
  CK(cudaMalloc(&Ticket, sizeof(unsigned)));
  CK(cudaMalloc(&Flags, sizeof(unsigned long long) * (1u << 16)));
  static unsigned *T = Ticket;
  static unsigned long long *Fl = Flags;
  checkScan<float>("scan_inclusive original", [](const float *I, float *O, size_t N, dim3, dim3) {
    CK(cudaMemset(T, 0, sizeof(unsigned)));
    CK(cudaMemset(Fl, 0, sizeof(unsigned long long) * (1u << 16)));
    suite::launch_scan_inclusive(I, O, T, Fl, int(N));
  }, true, false, 0.0, addD, 0, 1, OrigTol, false);
  checkScan<float>("scan_inclusive 8 items", [](const float *I, float *O, size_t N, dim3 G,
                                                dim3 B) {
    suite8::scan_inclusive<<<G, B>>>(I, O, T, Fl, int(N));
  }, true, false, 0.0, addD, 0, 1, FloatTol, true);
  checkScan<float>("scan_inclusive 16 items", [](const float *I, float *O, size_t N, dim3 G,
                                                 dim3 B) {
    suite16::scan_inclusive<<<G, B>>>(I, O, T, Fl, int(N));
  }, true, false, 0.0, addD, 0, 1, FloatTol, true);
}

void bench() {
  const int N = 1 << 24;
  std::vector<float> Host = check::random<float>(N, 1, 0, 1);
  float *X = check::upload(Host), *Y = nullptr;
  CK(cudaMalloc(&Y, N * sizeof(float)));
  unsigned *Ticket = nullptr;
  unsigned long long *Flags = nullptr;
  CK(cudaMalloc(&Ticket, sizeof(unsigned)));
  CK(cudaMalloc(&Flags, sizeof(unsigned long long) * (N / 512)));
  auto Orig = [&] {
    CK(cudaMemsetAsync(Ticket, 0, sizeof(unsigned)));
    CK(cudaMemsetAsync(Flags, 0, sizeof(unsigned long long) * (N / 512)));
    suite::launch_scan_inclusive(X, Y, Ticket, Flags, N);
  };
  double T0 = check::time(Orig);
  check::report("scan_inclusive 2^24 f32, 8 items, 256 threads", T0, check::time([&] {
    suite8::scan_inclusive<<<N / 2048, 256>>>(X, Y, Ticket, Flags, N);
  }));
  check::report("scan_inclusive 2^24 f32, 16 items, 256 threads", T0, check::time([&] {
    suite16::scan_inclusive<<<N / 4096, 256>>>(X, Y, Ticket, Flags, N);
  }));
  check::report("scan_inclusive 2^24 f32, 16 items, 512 threads", T0, check::time([&] {
    suite16::scan_inclusive<<<N / 8192, 512>>>(X, Y, Ticket, Flags, N);
  }));
  check::report("scan_inclusive 2^24 f32, 16 items, 256 threads, 132 x 8 blocks", T0,
                check::time([&] { suite16::scan_inclusive<<<132 * 8, 256>>>(X, Y, Ticket, Flags, N); }));
}

} // namespace

int main(int argc, char **argv) {
  runAll();
  if (check::bench(argc, argv))
    bench();
  std::printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
