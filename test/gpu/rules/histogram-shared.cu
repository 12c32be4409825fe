// histogram-privatize on bins a kernel already keeps in a __shared__ array
// (test/gpu/Inputs/rules/hist_shared.cu: utils/bench/naive/hist_gs.cu, the
// book's while loop, guarded zeroing, 64 bins of int keys '% 64', 1024
// bins, char keys, one key per thread, a histogram per block): the first
// proposals (16-byte loads and lane copies summed into the kernel's bins;
// lane copies alone for the per-block histogram) and the second (16-byte
// loads into the kernel's own bins) count exactly what the originals count.
// Counts are odd, the keys start 0 to 3 elements past the allocation (and
// 16-byte boundary), blocks of 96, 256 and 1024 threads where the kernel
// allows them, the grid as written, a capped grid and one block.
// Comparisons are exact. `check --bench` times hist_gs at 64M bytes: the
// original at 16 blocks and at the grid-fill rule's 4 waves, the rewrites
// at 1, 2 and 4 waves of their occupancy.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../Inputs/rules/hist_shared.cu %t.d/s0.cu
// RUN: forge-port propose %t.d/s0.cu --kernel sh_gs --block 256 --rules=histogram-privatize --apply -o %t.d/s1.cu
// RUN: forge-port propose %t.d/s1.cu --kernel sh_book --block 256 --rules=histogram-privatize --apply -o %t.d/s2.cu
// RUN: forge-port propose %t.d/s2.cu --kernel sh_guarded --block 256 --rules=histogram-privatize --apply -o %t.d/s3.cu
// RUN: forge-port propose %t.d/s3.cu --kernel sh_mod64 --block 256 --rules=histogram-privatize --apply -o %t.d/s4.cu
// RUN: forge-port propose %t.d/s4.cu --kernel sh_1024 --block 256 --rules=histogram-privatize --apply -o %t.d/s5.cu
// RUN: forge-port propose %t.d/s5.cu --kernel sh_char --block 256 --rules=histogram-privatize --apply -o %t.d/s6.cu
// RUN: forge-port propose %t.d/s6.cu --kernel sh_one --block 256 --rules=histogram-privatize --apply -o %t.d/s7.cu
// RUN: forge-port propose %t.d/s7.cu --kernel sh_perblock --block 256 --rules=histogram-privatize --apply -o %t.d/hist_shared.priv.cu
// Every kernel counts into lane copies; all but the per-block one in
// 16-byte loads.
// RUN: grep -c "\]\[forge_w\]" %t.d/hist_shared.priv.cu | FileCheck %s --check-prefix=LANES
// LANES: 8
// RUN: grep -c "reinterpret_cast<const uint4 \*>(.* + forge_h)" %t.d/hist_shared.priv.cu | FileCheck %s --check-prefix=VEC
// VEC: 7
// The second proposals: 16-byte loads into the kernel's own bins.
// RUN: cp %S/../Inputs/rules/hist_shared.cu %t.d/w0.cu
// RUN: for k in sh_gs sh_book sh_guarded sh_mod64 sh_1024 sh_char sh_one; do forge-port propose %t.d/w0.cu --kernel $k --block 256 --rules=histogram-privatize --format=json > %t.d/$k.json && %python %S/../Inputs/rules/apply_proposal.py %t.d/$k.json 1 %t.d/w0.cu %t.d/w1.cu && mv %t.d/w1.cu %t.d/w0.cu || exit 1; done
// RUN: mv %t.d/w0.cu %t.d/hist_shared.second.cu
// RUN: not grep -q "forge_w" %t.d/hist_shared.second.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: sh_gs lanes offset 0 count 3000017 block 256 written grid: ok max_abs_err 0 rel_l2 0
// CHECK: sh_perblock lanes offset 3 count 1 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"
#include <random>

namespace orig {
#include "hist_shared.cu"
} // namespace orig
namespace cand {
#include "hist_shared.priv.cu"
} // namespace cand
namespace second {
#include "hist_shared.second.cu"
} // namespace second

namespace {

template <typename T> std::vector<T> randomInts(size_t n, unsigned seed, long long lo, long long hi) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<long long> d(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = T(d(g));
  return v;
}

/// An allocation with Pad elements before the data: the kernel gets D + Pad.
template <typename T> T *uploadOffset(const std::vector<T> &h, size_t Pad) {
  T *d;
  CK(cudaMalloc(&d, (h.size() + Pad + 1) * sizeof(T)));
  CK(cudaMemcpy(d + Pad, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d + Pad;
}

/// One launch shape: the block, the grid, and their names.
struct Shape {
  unsigned Block, Grid;
  const char *GridName;
};

/// Runs Orig and Cand (each `void(const K *keys, C *out, int n, Shape)`)
/// on the same keys into bins that start from the same random counts, and
/// compares the Out counts exactly.
template <typename K, typename C, typename F, typename G>
bool compareOne(const char *What, const std::vector<K> &Keys, size_t Pad, size_t Out, F Orig,
                G Cand, Shape S) {
  K *D = uploadOffset(Keys, Pad);
  std::vector<C> Init = randomInts<C>(Out, unsigned(Out + Pad), 0, 5);
  C *A, *B;
  CK(cudaMalloc(&A, Out * sizeof(C)));
  CK(cudaMalloc(&B, Out * sizeof(C)));
  CK(cudaMemcpy(A, Init.data(), Out * sizeof(C), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, Init.data(), Out * sizeof(C), cudaMemcpyHostToDevice));
  Orig(D, A, int(Keys.size()), S);
  Cand(D, B, int(Keys.size()), S);
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  char Name[256];
  std::snprintf(Name, sizeof Name, "%s offset %zu count %zu block %u %s", What, Pad, Keys.size(),
                S.Block, S.GridName);
  bool Ok = check::compare(Name, check::download(A, Out), check::download(B, Out), 0, 0);
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(D - Pad));
  return Ok;
}

/// The shapes of a kernel for N keys: the grid as written (one thread per
/// key, at most 4096 blocks), a capped grid and one block, for each block
/// size it allows; a kernel that needs the threads to cover N (OneKey)
/// gets the covering grid and one block more.
std::vector<Shape> shapes(size_t N, std::vector<unsigned> Blocks, bool OneKey) {
  std::vector<Shape> Out;
  for (unsigned B : Blocks) {
    unsigned Cover = check::ceilDiv(unsigned(N), B);
    if (OneKey) {
      Out.push_back({B, Cover, "written grid"});
      Out.push_back({B, Cover + 1, "one more block"});
      continue;
    }
    Out.push_back({B, std::min(Cover, 4096u), "written grid"});
    Out.push_back({B, 132 * 2, "capped grid"});
    Out.push_back({B, 1, "one block"});
  }
  return Out;
}

/// Every count, offset and shape of one kernel, for the first and the
/// second proposals (Second false: the kernel has none).
template <typename K, typename C, typename F, typename G, typename H>
bool checkKernel(const char *Name, std::vector<K> All, size_t OutPerBlock, bool PerBlock,
                 std::vector<unsigned> Blocks, bool OneKey, F Orig, G Cand, H Second,
                 bool HasSecond) {
  bool Ok = true;
  for (size_t Count : {size_t(3000017), size_t(20011), size_t(13), size_t(1)})
    for (size_t Pad : {0, 1, 2, 3}) {
      std::vector<K> Keys(All.begin(), All.begin() + Count);
      for (const Shape &S : shapes(Count, Blocks, OneKey)) {
        size_t Out = PerBlock ? OutPerBlock * S.Grid : OutPerBlock;
        std::string What = std::string(Name) + " lanes";
        Ok &= compareOne<K, C>(What.c_str(), Keys, Pad, Out, Orig, Cand, S);
        if (HasSecond) {
          What = std::string(Name) + " one copy";
          Ok &= compareOne<K, C>(What.c_str(), Keys, Pad, Out, Orig, Second, S);
        }
      }
    }
  return Ok;
}

#define LAUNCH(NS, KERNEL, ...)                                                                  \
  [](auto *D, auto *H, int N, Shape S) { NS::KERNEL<<<S.Grid, S.Block>>>(__VA_ARGS__); }

/// Times hist_gs at 64M bytes: the original at its 16 blocks and at the
/// grid-fill rule's 4 waves, the rewrites at 1, 2 and 4 waves.
void bench() {
  const int N = 1 << 26;
  auto Keys = randomInts<unsigned char>(N, 7, 0, 255);
  unsigned char *D = check::upload(Keys);
  unsigned int *H;
  CK(cudaMalloc(&H, 256 * sizeof(unsigned)));
  int SMs = 0, Per = 0, PerLanes = 0, PerOne = 0;
  CK(cudaDeviceGetAttribute(&SMs, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&Per, orig::sh_gs, 256, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerLanes, cand::sh_gs, 256, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerOne, second::sh_gs, 256, 0));
  auto Orig = [&](unsigned G) {
    return check::time([&] { orig::sh_gs<<<G, 256>>>(D, H, N); });
  };
  double O16 = Orig(16), O4 = Orig(SMs * 4 * Per);
  std::printf("bench sh_gs original 16 blocks: %.1f us (%.0f GB/s)\n", O16 * 1e3, N / O16 / 1e6);
  std::printf("bench sh_gs original 4 waves (%d blocks): %.1f us (%.0f GB/s)\n", SMs * 4 * Per,
              O4 * 1e3, N / O4 / 1e6);
  for (int Waves : {1, 2, 4}) {
    unsigned GL = SMs * Waves * PerLanes, GO = SMs * Waves * PerOne;
    double L = check::time([&] { cand::sh_gs<<<GL, 256>>>(D, H, N); });
    double S = check::time([&] { second::sh_gs<<<GO, 256>>>(D, H, N); });
    std::printf("bench sh_gs lanes %d wave(s) (%u blocks): %.1f us (%.0f GB/s), %.2fx the "
                "original at 4 waves\n",
                Waves, GL, L * 1e3, N / L / 1e6, O4 / L);
    std::printf("bench sh_gs one copy %d wave(s) (%u blocks): %.1f us (%.0f GB/s), %.2fx\n", Waves,
                GO, S * 1e3, N / S / 1e6, O4 / S);
  }
  CK(cudaFree(D));
  CK(cudaFree(H));
}

} // namespace

int main(int argc, char **argv) {
  bool Ok = true;
  const size_t Max = 3000017;
  auto Bytes = randomInts<unsigned char>(Max, 1, 0, 255);
  // A hot bin: a third of the bytes are 7.
  for (size_t I = 0; I < Max; I += 3)
    Bytes[I] = 7;
  std::vector<unsigned> Any{96, 256, 1024}, Only256{256}, AtLeast256{256, 1024};
  Ok &= checkKernel<unsigned char, unsigned>(
      "sh_gs", Bytes, 256, false, Any, false, LAUNCH(orig, sh_gs, D, H, N),
      LAUNCH(cand, sh_gs, D, H, N), LAUNCH(second, sh_gs, D, H, N), true);
  Ok &= checkKernel<unsigned char, unsigned>(
      "sh_book", Bytes, 256, false, Only256, false,
      LAUNCH(orig, sh_book, const_cast<unsigned char *>(D), long(N), H),
      LAUNCH(cand, sh_book, const_cast<unsigned char *>(D), long(N), H),
      LAUNCH(second, sh_book, const_cast<unsigned char *>(D), long(N), H), true);
  Ok &= checkKernel<unsigned char, unsigned>(
      "sh_guarded", Bytes, 256, false, AtLeast256, false, LAUNCH(orig, sh_guarded, D, H, N),
      LAUNCH(cand, sh_guarded, D, H, N), LAUNCH(second, sh_guarded, D, H, N), true);
  Ok &= checkKernel<int, int>("sh_mod64", randomInts<int>(Max, 2, -100000, 100000), 64, false, Any,
                              false, LAUNCH(orig, sh_mod64, D, H, N),
                              LAUNCH(cand, sh_mod64, D, H, N), LAUNCH(second, sh_mod64, D, H, N),
                              true);
  Ok &= checkKernel<unsigned short, unsigned>(
      "sh_1024", randomInts<unsigned short>(Max, 3, 0, 65535), 1024, false, Any, false,
      LAUNCH(orig, sh_1024, D, H, N), LAUNCH(cand, sh_1024, D, H, N),
      LAUNCH(second, sh_1024, D, H, N), true);
  Ok &= checkKernel<char, unsigned>("sh_char", randomInts<char>(Max, 4, -128, 127), 256, false,
                                    Any, false, LAUNCH(orig, sh_char, D, H, N),
                                    LAUNCH(cand, sh_char, D, H, N),
                                    LAUNCH(second, sh_char, D, H, N), true);
  Ok &= checkKernel<unsigned char, unsigned>(
      "sh_one", Bytes, 256, false, Only256, true, LAUNCH(orig, sh_one, D, H, N),
      LAUNCH(cand, sh_one, D, H, N), LAUNCH(second, sh_one, D, H, N), true);
  Ok &= checkKernel<unsigned char, unsigned>(
      "sh_perblock", Bytes, 256, true, Any, false, LAUNCH(orig, sh_perblock, D, H, N),
      LAUNCH(cand, sh_perblock, D, H, N), LAUNCH(cand, sh_perblock, D, H, N), false);
  if (check::bench(argc, argv))
    bench();
  std::printf("%s\n", Ok ? "PASS" : "FAIL");
  return Ok ? 0 : 1;
}
