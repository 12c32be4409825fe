// shared-padding on the GPU: padding a __shared__ tile's rows changes no
// value. The kernels (test/gpu/Inputs/rules/shared_padding.cu): the NVIDIA
// blog's transposeCoalesced before its padding (utils/bench/naive/
// transpose_smem.cu; 32 x 8 blocks only), row sums of doubles read down a
// column of a staged 32 x 32 tile (any 32 x Y block), a transpose through a
// 64 x 64 tile whose extent is a constexpr (any block), and a flat thread
// index split into a row and a column of an int tile (256 threads; padded
// by 4). Each is run original and rewritten on sizes that are not
// multiples of the tile or the block, with input and output pointers 0,
// 1/3 and 5/2 elements past cudaMalloc's 256-byte boundary, for every
// block shape listed below; the whole output allocation (poisoned first) is
// compared exactly, and each original is checked once against the host.
// `check --bench` times transposeCoalesced, original and padded, at
// 8192 x 8192 floats (out of place: nothing to restore between launches).
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../Inputs/rules/shared_padding.cu %t.d/s0.cu
// RUN: forge-port propose %t.d/s0.cu --kernel transposeCoalesced --block 32,8 --rules=shared-padding --apply -o %t.d/s1.cu
// RUN: forge-port propose %t.d/s1.cu --kernel row_sums_f64 --block 32,8 --rules=shared-padding --apply -o %t.d/s2.cu
// RUN: forge-port propose %t.d/s2.cu --kernel transpose_cexpr --block 32,8 --rules=shared-padding --apply -o %t.d/s3.cu
// RUN: forge-port propose %t.d/s3.cu --kernel flat_split --block 256 --rules=shared-padding --apply -o %t.d/shared_padding.pad.cu
// Each tile is padded, and nothing but the four declarations changed.
// RUN: FileCheck %s --check-prefix=PAD --match-full-lines --input-file=%t.d/shared_padding.pad.cu
// PAD: __shared__ float tile[TILE][TILE + 1];
// PAD: __shared__ double t[32][32 + 1];
// PAD: __shared__ float tile[kTile][kTile + 1];
// PAD: __shared__ int t[8][32 + 4];
// RUN: not diff %t.d/s0.cu %t.d/shared_padding.pad.cu > %t.d/pad.diff
// RUN: grep -c "^[<>]" %t.d/pad.diff | FileCheck %s --check-prefix=LINES
// LINES: 8
// The padded tiles are free of conflicts: the rule has nothing more to do.
// RUN: not forge-port propose %t.d/shared_padding.pad.cu --kernel transposeCoalesced --block 32,8 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: not forge-port propose %t.d/shared_padding.pad.cu --kernel row_sums_f64 --block 32,8 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: not forge-port propose %t.d/shared_padding.pad.cu --kernel transpose_cexpr --block 32,8 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: not forge-port propose %t.d/shared_padding.pad.cu --kernel flat_split --block 256 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=FREE
// FREE: shared-padding: not applicable: the accesses of '{{tile|t}}' are free of bank conflicts
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: transposeCoalesced 1031x777 +0/+0 reference: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transposeCoalesced 1031x777 +0/+0 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: transposeCoalesced 5x3 +5/+2 32x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 reference: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 32x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 32x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 32x3: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 32x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: row_sums_f64 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK: row_sums_f64 1x1 +5/+2 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 reference: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 32x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 16x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 1x64: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 48x5: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 1024x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 64x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_cexpr 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK: transpose_cexpr 5x3 +5/+2 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flat_split 1000003 +0/+0 reference: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flat_split 1000003 +0/+0 256: ok max_abs_err 0 rel_l2 0
// CHECK: flat_split 13 +5/+2 256: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: comparisons 240
// CHECK-NEXT: PASS
#include "check.h"

#include <cstring>

namespace orig {
#include "shared_padding.cu"
} // namespace orig
namespace cand {
#include "shared_padding.pad.cu"
} // namespace cand

namespace {

/// Elements past the data in each allocation: room for the offsets below.
const size_t Slack = 8;

/// A random input and an output of Elems + Slack elements each; the kernel
/// gets In + Off and Out + Off, and the whole output allocation is compared.
template <typename T> struct Buffers {
  std::vector<T> Host;
  T *In = nullptr, *Out = nullptr;
  size_t N;
  Buffers(size_t Elems, unsigned Seed, double Lo, double Hi) : N(Elems + Slack) {
    Host = check::random<T>(N, Seed, Lo, Hi);
    In = check::upload(Host);
    CK(cudaMalloc(&Out, N * sizeof(T)));
  }
  ~Buffers() {
    CK(cudaFree(In));
    CK(cudaFree(Out));
  }
  /// The poisoned output after Launch (0xFF bytes where nothing was written).
  template <typename L> std::vector<T> run(L Launch) {
    check::poison(Out, N);
    Launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return check::download(Out, N);
  }
  /// What run() gives when nothing is written: the host's expected output
  /// starts from this.
  std::vector<T> poisoned() const {
    std::vector<T> V(N);
    std::memset(V.data(), 0xFF, N * sizeof(T));
    return V;
  }
};

struct Offsets {
  unsigned In, Out;
};
// Pointers at cudaMalloc's 256-byte boundary and a few elements past it.
const Offsets Offs[] = {{0, 0}, {1, 3}, {5, 2}};

struct Block {
  const char *Name;
  dim3 Dim;
};

bool Ok = true;
int Comparisons = 0;

template <typename T>
void same(const char *Kernel, const char *Size, Offsets O, const char *Shape,
          const std::vector<T> &Ref, const std::vector<T> &Got) {
  char What[200];
  std::snprintf(What, sizeof What, "%s %s +%u/+%u %s", Kernel, Size, O.In, O.Out, Shape);
  Ok &= check::compare(What, Ref, Got, 0, 0);
  ++Comparisons;
}

/// transposeCoalesced(odata, idata, width, height): idata is height x width;
/// its loops step by ROWS, so only 32 x 8 blocks cover the tile.
void checkBlog(unsigned Height, unsigned Width) {
  char Size[64];
  std::snprintf(Size, sizeof Size, "%ux%u", Height, Width);
  for (Offsets O : Offs) {
    Buffers<float> B(size_t(Height) * Width, Height + Width, -1, 1);
    const float *In = B.In + O.In;
    float *Out = B.Out + O.Out;
    dim3 Grid(check::ceilDiv(Width, 32), check::ceilDiv(Height, 32)), Dim(32, 8);
    auto Orig = B.run([&] { orig::transposeCoalesced<<<Grid, Dim>>>(Out, In, Width, Height); });
    std::vector<float> Want = B.poisoned();
    for (size_t R = 0; R < Height; ++R)
      for (size_t C = 0; C < Width; ++C)
        Want[O.Out + C * Height + R] = B.Host[O.In + R * Width + C];
    same("transposeCoalesced", Size, O, "reference", Want, Orig);
    same("transposeCoalesced", Size, O, "32x8", Orig,
         B.run([&] { cand::transposeCoalesced<<<Grid, Dim>>>(Out, In, Width, Height); }));
  }
}

/// row_sums_f64: any 32 x Y block (rows staged in steps of blockDim.y).
void checkRowSums(unsigned Rows, unsigned Cols) {
  const Block Blocks[] = {{"32x1", dim3(32, 1)},  {"32x2", dim3(32, 2)},   {"32x3", dim3(32, 3)},
                          {"32x4", dim3(32, 4)},  {"32x8", dim3(32, 8)},   {"32x16", dim3(32, 16)},
                          {"32x32", dim3(32, 32)}};
  char Size[64];
  std::snprintf(Size, sizeof Size, "%ux%u", Rows, Cols);
  for (Offsets O : Offs) {
    Buffers<double> B(size_t(Rows) * Cols, Rows * 3 + Cols, -1, 1);
    const double *In = B.In + O.In;
    double *Out = B.Out + O.Out;
    dim3 Grid(check::ceilDiv(Rows, 32));
    std::vector<double> Want = B.poisoned();
    for (size_t R = 0; R < Rows; ++R) {
      double Acc = 0.0; // the kernel's order: column by column
      for (size_t C = 0; C < Cols; ++C)
        Acc += B.Host[O.In + R * Cols + C];
      Want[O.Out + R] = Acc;
    }
    same("row_sums_f64", Size, O, "reference", Want,
         B.run([&] { orig::row_sums_f64<<<Grid, dim3(32, 8)>>>(In, Out, Rows, Cols); }));
    for (const Block &S : Blocks) {
      auto Orig = B.run([&] { orig::row_sums_f64<<<Grid, S.Dim>>>(In, Out, Rows, Cols); });
      same("row_sums_f64", Size, O, S.Name, Orig,
           B.run([&] { cand::row_sums_f64<<<Grid, S.Dim>>>(In, Out, Rows, Cols); }));
    }
  }
}

/// transpose_cexpr (in: rows x cols): any block; a z extent repeats the
/// same writes.
void checkCexpr(unsigned Rows, unsigned Cols) {
  const Block Blocks[] = {{"32x8", dim3(32, 8)},     {"64x4", dim3(64, 4)},
                          {"16x16", dim3(16, 16)},   {"32x32", dim3(32, 32)},
                          {"8x8", dim3(8, 8)},       {"128x1", dim3(128, 1)},
                          {"1x64", dim3(1, 64)},     {"48x5", dim3(48, 5)},
                          {"1024x1", dim3(1024, 1)}, {"64x16", dim3(64, 16)},
                          {"32x8x2", dim3(32, 8, 2)}};
  char Size[64];
  std::snprintf(Size, sizeof Size, "%ux%u", Rows, Cols);
  for (Offsets O : Offs) {
    Buffers<float> B(size_t(Rows) * Cols, Rows + 2 * Cols, -1, 1);
    const float *In = B.In + O.In;
    float *Out = B.Out + O.Out;
    dim3 Grid(check::ceilDiv(Cols, 64), check::ceilDiv(Rows, 64));
    std::vector<float> Want = B.poisoned();
    for (size_t R = 0; R < Rows; ++R)
      for (size_t C = 0; C < Cols; ++C)
        Want[O.Out + C * Rows + R] = B.Host[O.In + R * Cols + C];
    same("transpose_cexpr", Size, O, "reference", Want,
         B.run([&] { orig::transpose_cexpr<<<Grid, dim3(32, 8)>>>(In, Out, Rows, Cols); }));
    for (const Block &S : Blocks) {
      auto Orig = B.run([&] { orig::transpose_cexpr<<<Grid, S.Dim>>>(In, Out, Rows, Cols); });
      same("transpose_cexpr", Size, O, S.Name, Orig,
           B.run([&] { cand::transpose_cexpr<<<Grid, S.Dim>>>(In, Out, Rows, Cols); }));
    }
  }
}

/// flat_split: 256 threads (its tile is 8 x 32 of them).
void checkFlat(unsigned N) {
  char Size[64];
  std::snprintf(Size, sizeof Size, "%u", N);
  for (Offsets O : Offs) {
    Buffers<int> B(N, N % 1000 + 11, -1000000, 1000000);
    const int *In = B.In + O.In;
    int *Out = B.Out + O.Out;
    unsigned Grid = check::ceilDiv(N, 256);
    std::vector<int> Want = B.poisoned();
    for (size_t I = 0; I < N; ++I) {
      // Thread T of a block reads t[T / 32][T % 32], which thread
      // 8 * (T % 32) + T / 32 wrote (-1 past the end).
      size_t T = I % 256, From = I - T + 8 * (T % 32) + T / 32;
      Want[O.Out + I] = From < N ? B.Host[O.In + From] : -1;
    }
    auto Orig = B.run([&] { orig::flat_split<<<Grid, 256>>>(In, Out, N); });
    same("flat_split", Size, O, "reference", Want, Orig);
    same("flat_split", Size, O, "256", Orig,
         B.run([&] { cand::flat_split<<<Grid, 256>>>(In, Out, N); }));
  }
}

/// transposeCoalesced at 8192 x 8192 floats, original and padded: 32 x 8
/// blocks, median of 20 launches after a warm-up (check::time), each out of
/// place from the same input.
void bench() {
  const unsigned N = 8192;
  Buffers<float> B(size_t(N) * N, 1, -1, 1);
  dim3 Grid(N / 32, N / 32), Dim(32, 8);
  auto Orig = [&] { orig::transposeCoalesced<<<Grid, Dim>>>(B.Out, B.In, N, N); };
  auto Cand = [&] { cand::transposeCoalesced<<<Grid, Dim>>>(B.Out, B.In, N, N); };
  same("transposeCoalesced", "8192x8192", Offsets{0, 0}, "32x8 (bench)", B.run(Orig), B.run(Cand));
  double T0 = check::time(Orig), T1 = check::time(Cand);
  double Bytes = 2.0 * N * N * sizeof(float);
  std::printf("bench transposeCoalesced 8192x8192 f32 original: %.4f ms (%.0f GB/s)\n", T0,
              Bytes / T0 / 1e6);
  std::printf("bench transposeCoalesced 8192x8192 f32 padded: %.4f ms (%.0f GB/s)\n", T1,
              Bytes / T1 / 1e6);
  check::report("transposeCoalesced 8192x8192 f32, 32 x 8 blocks", T0, T1);
}

} // namespace

int main(int argc, char **argv) {
  // Sizes that are not multiples of the tiles (32, 64) or the blocks, and
  // ones smaller than a tile.
  const unsigned Transposes[][2] = {{1031, 777}, {33, 65}, {5, 3}};
  for (auto [H, W] : Transposes)
    checkBlog(H, W);
  const unsigned Sums[][2] = {{1031, 777}, {33, 65}, {5, 3}, {1, 1}};
  for (auto [R, C] : Sums)
    checkRowSums(R, C);
  for (auto [R, C] : Transposes)
    checkCexpr(R, C);
  for (unsigned N : {1000003u, 4099u, 13u})
    checkFlat(N);
  if (check::bench(argc, argv))
    bench();
  std::printf("comparisons %d\n", Comparisons);
  std::printf("%s\n", Ok ? "PASS" : "FAIL");
  return Ok ? 0 : 1;
}
