// Runs the benchmark suite's first-round sorts (utils/bench/kernels) on the
// CPU: every block of the launch in ticket order, every thread of a phase in
// turn, through the same __host__ __device__ helpers the kernels call. It
// checks the phase layout (each ticket waits for exactly the blocks of the
// earlier phases), that the scratch fits the spec's counts, and the result
// against std::sort, on sizes and block sizes that exercise the edges.
// What it cannot check is the GPU side of the chaining (atomics, fences);
// utils/bench/reference/check_sorts.cu does that on the GPU.
#include "merge_sort.cu"
#include "radix_sort.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

unsigned long long Rng = 88172645463325252ull;
unsigned next() {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return (unsigned)(Rng >> 11);
}

int Failures = 0;

void fail(const char *Op, int N, int Block, const char *What) {
  std::printf("FAIL %s n=%d block=%d: %s\n", Op, N, Block, What);
  ++Failures;
}

bool emulateRadix(std::vector<unsigned> &Keys, int Block) {
  int N = (int)Keys.size();
  int B = radix_blocks(N, Block);
  unsigned Grid = RADIX_PASSES * (2u * B + 1u);
  long long T = (long long)B * Block;
  long long SpecCounts = 16LL * ((N + 255) / 256 + 1024);
  if (RADIX_DIGITS * T > SpecCounts) {
    fail("radix", N, Block, "counts needs more words than the spec gives");
    return false;
  }
  std::vector<unsigned> Tmp(N ? N : 1, 0xDEADBEEFu),
      Counts(SpecCounts, 0xDEADBEEFu), Partial(Block);
  unsigned *K = Keys.data(), *Tp = Tmp.data();
  for (unsigned Ticket = 0; Ticket < Grid; ++Ticket) {
    RadixWork W = radix_work(Ticket, B);
    // Blocks finished so far == Ticket; the block must wait for exactly the
    // blocks of the earlier phases: its need is its phase's first ticket.
    if (W.need != Ticket - (unsigned)W.chunk || W.need > Ticket) {
      fail("radix", N, Block, "a ticket waits for the wrong number of blocks");
      return false;
    }
    const unsigned *Src = (W.pass % 2 == 0) ? K : Tp;
    unsigned *Dst = (W.pass % 2 == 0) ? Tp : K;
    int Shift = W.pass * RADIX_BITS;
    if (W.kind == 0) {
      for (int Tid = 0; Tid < Block; ++Tid)
        radix_count(Src, Counts.data(), T, (long long)W.chunk * Block + Tid, N,
                    Shift);
    } else if (W.kind == 1) {
      long long All = RADIX_DIGITS * T;
      for (int S = 0; S < Block; ++S)
        Partial[S] = radix_slice_sum(Counts.data(), All, S, Block);
      unsigned Run = 0;
      for (int S = 0; S < Block; ++S) {
        unsigned V = Partial[S];
        Partial[S] = Run;
        Run += V;
      }
      if (Run != (unsigned)N) {
        fail("radix", N, Block, "the digit counts do not add up to n");
        return false;
      }
      for (int S = 0; S < Block; ++S)
        radix_slice_scan(Counts.data(), All, S, Block, Partial[S]);
    } else {
      for (int Tid = 0; Tid < Block; ++Tid)
        radix_scatter(Src, Dst, Counts.data(), T,
                      (long long)W.chunk * Block + Tid, N, Shift);
      // The pass is done: poison its source, the next pass's destination,
      // so a key the next pass fails to place shows up.
      if (W.chunk == B - 1 && W.pass + 1 < RADIX_PASSES)
        std::fill(const_cast<unsigned *>(Src), const_cast<unsigned *>(Src) + N,
                  0xDEADBEEFu);
    }
  }
  return true;
}

bool emulateMerge(std::vector<unsigned> &Keys, int Block) {
  int N = (int)Keys.size();
  int Passes = merge_passes(N), B = merge_blocks(N, Block);
  unsigned Grid = (unsigned)merge_phases(N) * B;
  std::vector<unsigned> Tmp(N, 0xDEADBEEFu);
  unsigned *K = Keys.data(), *Tp = Tmp.data();
  for (unsigned Ticket = 0; Ticket < Grid; ++Ticket) {
    int Phase = Ticket / B, Chunk = Ticket % B;
    long long First = (long long)Chunk * Block * MERGE_ITEMS;
    for (int Tid = 0; Tid < Block; ++Tid)
      for (int I = 0; I < MERGE_ITEMS; ++I) {
        long long Idx = First + (long long)I * Block + Tid;
        if (Idx >= N)
          continue;
        if (Phase < Passes)
          merge_place((Phase % 2 == 0) ? K : Tp, (Phase % 2 == 0) ? Tp : K, N,
                      1LL << Phase, Idx);
        else
          K[Idx] = Tp[Idx];
      }
    // Poison the source of the pass just finished where it is about to be
    // overwritten, so an element left out of the next pass shows up.
    if (Chunk == B - 1 && Phase + 1 < Passes)
      std::fill(Phase % 2 == 0 ? Keys.begin() : Tmp.begin(),
                Phase % 2 == 0 ? Keys.end() : Tmp.end(), 0xDEADBEEFu);
  }
  return true;
}

void check(const char *Op, int N, int Block, unsigned Range) {
  std::vector<unsigned> Keys(N);
  for (unsigned &K : Keys)
    K = Range ? next() % Range : next();
  std::vector<unsigned> Want = Keys;
  std::sort(Want.begin(), Want.end());
  bool Ran = Op[0] == 'r' ? emulateRadix(Keys, Block) : emulateMerge(Keys, Block);
  if (!Ran)
    return;
  if (Keys != Want)
    fail(Op, N, Block, "not sorted, or not a permutation of the input");
}

} // namespace

int main() {
  const int Sizes[] = {1, 2, 3, 255, 256, 257, 1000, 4097, 65537, 1000003};
  const int Blocks[] = {64, 256, 1024};
  int Cases = 0;
  for (const char *Op : {"radix", "merge"})
    for (int N : Sizes)
      for (int Block : Blocks)
        for (unsigned Range : {0u, 16u}) {
          if (N > 100000 && Block != 256)
            continue;
          check(Op, N, Block, Range);
          ++Cases;
        }
  std::printf("%d cases, %d failed\n", Cases, Failures);
  return Failures ? 1 : 0;
}
