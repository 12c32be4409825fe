//===- check_sorts.cu - Ground truth for the first-round sorts -------------===//
///
/// \file
/// `forge-port measure` compares a candidate with the first-round kernel,
/// so a wrong first-round kernel would pass unnoticed. The sorts chain
/// their phases across blocks with tickets and atomics (radix_sort.cu), so
/// they get a check against std::sort on the GPU, at the spec's size and
/// at odd sizes, with block sizes 64, 256 and 1024, launched twice on the
/// same scratch (the second launch must not depend on the first, and each
/// launch must leave its ticket counters at zero). The driver
/// (utils/bench/run-suite) runs it before the sorting category.
///
///   check-sorts [--quick]
///
/// Prints one line per case and a JSON summary line; exit status 0 when
/// every case passed.
///
//===----------------------------------------------------------------------===//
#include "../kernels/merge_sort.cu"
#include "../kernels/radix_sort.cu"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int Failed = 0, Cases = 0;

bool ck(cudaError_t E, const char *What) {
  if (E == cudaSuccess)
    return true;
  std::printf("  CUDA error in %s: %s\n", What, cudaGetErrorString(E));
  return false;
}

unsigned long long Rng = 0x2545F4914F6CDD1Dull;
unsigned next() {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return (unsigned)(Rng >> 17);
}

/// Sorts n random keys with the kernel twice on the same scratch; returns
/// the time of the second launch in ms, or a negative number on failure.
float runCase(const char *Op, int N, int Block, unsigned Range) {
  ++Cases;
  size_t CountWords = 16 * ((size_t)(N + 255) / 256 + 1024);
  unsigned *Keys = nullptr, *Tmp = nullptr, *Counts = nullptr, *Sync = nullptr;
  cudaEvent_t E0, E1;
  bool Ok = ck(cudaMalloc(&Keys, N * sizeof(unsigned)), "cudaMalloc") &&
            ck(cudaMalloc(&Tmp, N * sizeof(unsigned)), "cudaMalloc") &&
            ck(cudaMalloc(&Counts, CountWords * sizeof(unsigned)), "cudaMalloc") &&
            ck(cudaMalloc(&Sync, 2 * sizeof(unsigned)), "cudaMalloc") &&
            ck(cudaMemset(Sync, 0, 2 * sizeof(unsigned)), "cudaMemset") &&
            ck(cudaEventCreate(&E0), "cudaEventCreate") &&
            ck(cudaEventCreate(&E1), "cudaEventCreate");
  float Ms = -1;
  bool Radix = std::strcmp(Op, "radix_sort") == 0;
  for (int Launch = 0; Ok && Launch < 2; ++Launch) {
    std::vector<unsigned> H(N);
    for (unsigned &K : H)
      K = Range ? next() % Range : next();
    Ok = ck(cudaMemcpy(Keys, H.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice),
            "cudaMemcpy");
    cudaEventRecord(E0);
    if (Radix)
      radix_sort<<<RADIX_PASSES * (2 * radix_blocks(N, Block) + 1), Block>>>(
          Keys, Tmp, Counts, Sync, N);
    else
      merge_sort<<<merge_phases(N) * merge_blocks(N, Block), Block>>>(Keys, Tmp,
                                                                    Sync, N);
    cudaEventRecord(E1);
    Ok = Ok && ck(cudaGetLastError(), "launch") &&
         ck(cudaEventSynchronize(E1), "kernel");
    if (!Ok)
      break;
    cudaEventElapsedTime(&Ms, E0, E1);
    std::vector<unsigned> Got(N);
    unsigned S[2];
    Ok = ck(cudaMemcpy(Got.data(), Keys, N * sizeof(unsigned), cudaMemcpyDeviceToHost),
            "cudaMemcpy") &&
         ck(cudaMemcpy(S, Sync, sizeof S, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::sort(H.begin(), H.end());
    if (Ok && Got != H) {
      size_t At = std::mismatch(Got.begin(), Got.end(), H.begin()).first - Got.begin();
      std::printf("  launch %d: keys differ from std::sort's, first at %zu\n",
                  Launch + 1, At);
      Ok = false;
    }
    if (Ok && (S[0] || S[1])) {
      std::printf("  launch %d: ticket counters left at %u, %u\n", Launch + 1,
                  S[0], S[1]);
      Ok = false;
    }
  }
  std::printf("%s n=%d block=%d keys%s: %s", Op, N, Block,
              Range ? (" < " + std::to_string(Range)).c_str() : "",
              Ok ? "ok" : "FAILED");
  if (Ok)
    std::printf(" (%.3f ms)", Ms);
  std::printf("\n");
  std::fflush(stdout);
  cudaFree(Keys);
  cudaFree(Tmp);
  cudaFree(Counts);
  cudaFree(Sync);
  if (!Ok)
    ++Failed;
  return Ok ? Ms : -1;
}

} // namespace

int main(int Argc, char **Argv) {
  bool Quick = Argc > 1 && std::strcmp(Argv[1], "--quick") == 0;
  if (Argc > 1 && !Quick) {
    std::fprintf(stderr, "usage: check-sorts [--quick]\n");
    return 2;
  }
  int Count = 0;
  if (cudaGetDeviceCount(&Count) != cudaSuccess || Count == 0) {
    std::fprintf(stderr, "check-sorts: no CUDA device\n");
    return 1;
  }
  const int Big = 1 << 24;
  float RadixMs = 0, MergeMs = 0;
  for (const char *Op : {"radix_sort", "merge_sort"}) {
    for (int N : {1, 3, 1025, 65539, 1000003})
      for (int Block : {64, 256, 1024})
        for (unsigned Range : {0u, 7u})
          if (!Quick || Block == 256)
            runCase(Op, N, Block, Range);
    float Ms = runCase(Op, Big, 256, 0);
    if (!Quick)
      for (int Block : {64, 1024})
        runCase(Op, Big, Block, 0);
    (Op[0] == 'r' ? RadixMs : MergeMs) = Ms;
  }
  std::printf("{\"type\": \"check_sorts\", \"cases\": %d, \"failed\": %d, "
              "\"radix_sort_16M_ms\": %.3f, \"merge_sort_16M_ms\": %.3f}\n",
              Cases, Failed, RadixMs, MergeMs);
  return Failed ? 1 : 0;
}
