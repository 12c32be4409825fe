//===- Templates/MergeSort.cpp - A merge sort with merge-path partitions --===//
///
/// \file
/// The generated text is ordinary CUDA with comments. Its file-scope names
/// all carry the instance's name (@N below), so that several instances
/// live in one translation unit.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/MergeSort.h"
#include "SortCommon.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace forge::templates {

namespace {

// The defaults the wrapper launches (and the spec's tunables default to).
// An odd ITEMS keeps a thread's ITEMS consecutive shared words in distinct
// banks across the warp.
constexpr int DefaultBlock = 256;
constexpr int DefaultItems = 15;
constexpr int DefaultWaves = 4;

const char *MergeState = R"(// The ticket chain's state: the next work item, the work items finished and
// the blocks that found no more work. The last block of a launch zeroes
// them, so the next launch starts clean: launches of this kernel must not
// overlap in time (one stream, or ordered by events).
__device__ unsigned int @N_ticket, @N_done, @N_exited;

// The ITEMS elements from output position diag on of the stable merge of
// A = s_keys[a, a + la) and B = s_keys[b, b + lb) (shared memory): the
// merge path (how many of the first diag outputs come from A: the first i
// whose A[i] goes after B[diag - 1 - i], A first on ties), then a serial
// merge. Outputs past the end of both are left undefined.
template <int ITEMS>
__device__ __forceinline__ void @N_merge(const unsigned int *s_keys, unsigned int a,
                                         unsigned int la, unsigned int b, unsigned int lb,
                                         unsigned int diag, unsigned int (&key)[ITEMS]@VPARAMS) {
  unsigned int lo = diag > lb ? diag - lb : 0u, hi = min(diag, la);
  while (lo < hi) {
    const unsigned int m = (lo + hi) / 2;
    if (s_keys[a + m] <= s_keys[b + diag - 1 - m])
      lo = m + 1;
    else
      hi = m;
  }
  const unsigned int a_end = a + la, b_end = b + lb;
  unsigned int i = a + lo, j = b + (diag - lo);
  unsigned int ka = i < a_end ? s_keys[i] : 0u, kb = j < b_end ? s_keys[j] : 0u;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const bool take_a = j >= b_end || (i < a_end && ka <= kb);
    key[k] = take_a ? ka : kb;
@V    const unsigned int at = take_a ? i : j;
@V    value[k] = at < (take_a ? a_end : b_end) ? s_values[at] : 0u;
    if (take_a) {
      ++i;
      ka = i < a_end ? s_keys[i] : 0u;
    } else {
      ++j;
      kb = j < b_end ? s_keys[j] : 0u;
    }
  }
}

)";

const char *MergeKernel = R"(// Work items, in ticket order: phase 0 sorts each of the T = ceil(n / TILE)
// tiles (TILE = BLOCK * ITEMS); phase q = 1..P merges runs of TILE << (q-1)
// pairwise, one tile of output per item, where P is the least p with
// TILE << p >= n. Blocks loop taking tickets; an item of phase q first
// waits until q * T items have finished (all of the earlier phases: they
// hold lower tickets, so their blocks are running or done). So any grid
// sorts correctly; a grid of the resident blocks is fastest. Phase q
// writes keys when P - q is even, else keys_tmp, so the last writes keys.
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) @N(@PARAMS, long long n) {
  constexpr int TILE = BLOCK * ITEMS;
  constexpr unsigned int HALF = BLOCK / 2; // searchers per split point
  static_assert(BLOCK >= 64 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                "the block merges runs of ITEMS << k up to the tile: BLOCK is a power of two");
  static_assert(ITEMS >= 1 && ITEMS <= 32, "ITEMS keys a thread, in registers");
  __shared__ unsigned int s_keys[TILE];
@V  __shared__ unsigned int s_values[TILE];
  __shared__ unsigned int s_item;
  __shared__ unsigned int s_lo[2], s_hi[2]; // the two split points' search ranges
  __shared__ bool s_last;

  const unsigned int tid = threadIdx.x;
  if (blockDim.x != BLOCK || blockDim.y != 1 || blockDim.z != 1 || n > 2147483647ll)
    __trap(); // another block than the instantiation's, or more keys than 32-bit positions
  const unsigned int count = n > 0 ? (unsigned int)n : 0u;
  const unsigned int tiles = (count + TILE - 1) / TILE;
  unsigned int passes = 0;
  while (((unsigned long long)TILE << passes) < count)
    ++passes;
  const unsigned int items = tiles * (passes + 1);

  for (;;) {
    if (tid == 0)
      s_item = atomicAdd(&@N_ticket, 1u);
    __syncthreads();
    const unsigned int item = s_item;
    if (item >= items)
      break;
    const unsigned int phase = item / tiles, tile = item % tiles;
    if (tid == 0 && phase > 0) {
      while (*(volatile unsigned int *)&@N_done < phase * tiles)
        __nanosleep(64);
      __threadfence();
    }
    __syncthreads();

    const bool to_keys = (passes - phase) % 2 == 0, last = phase == passes;
    const bool from_keys = phase == 0 || !to_keys;
    const unsigned int *src_keys = (const unsigned int *)(from_keys ? keys : keys_tmp);
    unsigned int *dst_keys = (unsigned int *)(to_keys ? keys : keys_tmp);
@V    const unsigned int *src_values = (const unsigned int *)(from_keys ? values : values_tmp);
@V    unsigned int *dst_values = (unsigned int *)(to_keys ? values : values_tmp);
    const unsigned int first = tile * TILE;
    const unsigned int valid = min((unsigned int)TILE, count - first);
    unsigned int key[ITEMS];
@V    unsigned int value[ITEMS];

    if (phase == 0) {
      // ---- Phase 0: sort the tile. Coalesced loads into shared memory
      // (keys past the end are the largest bits, after every real key),
      // then ITEMS consecutive keys a thread.
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned int p = i * BLOCK + tid;
        s_keys[p] = p < valid ? @N_to_bits(__ldcg(src_keys + first + p)) : 0xffffffffu;
@V        s_values[p] = p < valid ? __ldcg(src_values + first + p) : 0u;
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        key[i] = s_keys[tid * ITEMS + i];
@V        value[i] = s_values[tid * ITEMS + i];
      }
      // Odd-even transposition sort in registers: only adjacent keys out of
      // order are swapped, so it is stable.
#pragma unroll
      for (int r = 0; r < ITEMS; ++r)
#pragma unroll
        for (int i = r % 2; i + 1 < ITEMS; i += 2)
          if (key[i + 1] < key[i]) {
            const unsigned int k = key[i];
            key[i] = key[i + 1];
            key[i + 1] = k;
@V            const unsigned int v = value[i];
@V            value[i] = value[i + 1];
@V            value[i + 1] = v;
          }
      // The block merges runs of w = ITEMS, 2 * ITEMS, ... in shared memory:
      // thread t writes outputs [t * ITEMS, (t + 1) * ITEMS) of its pair of runs.
      for (unsigned int w = ITEMS; w < TILE; w *= 2) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          s_keys[tid * ITEMS + i] = key[i];
@V          s_values[tid * ITEMS + i] = value[i];
        }
        __syncthreads();
        const unsigned int out = tid * ITEMS, base = out / (2 * w) * (2 * w);
        @N_merge<ITEMS>(s_keys, base, w, base + w, w, out - base, key@VARGS);
      }
    } else {
      // ---- Phase q: this tile of the merge of two runs of `width`.
      const unsigned long long width = (unsigned long long)TILE << (phase - 1);
      const unsigned long long base = first / (2 * width) * (2 * width);
      const unsigned int a_begin = (unsigned int)base;
      const unsigned int a_end = (unsigned int)min(base + width, (unsigned long long)count);
      const unsigned int b_end = (unsigned int)min(base + 2 * width, (unsigned long long)count);
      const unsigned int la = a_end - a_begin, lb = b_end - a_end;
      const unsigned int d0 = first - a_begin, d1 = first + valid - a_begin;
      // The split points of diagonals d0 and d1 (how many of the first d
      // outputs come from run A), each searched by half of the block: HALF
      // probes spread over the range narrow it about HALF-fold a round.
      if (tid < 2) {
        const unsigned int d = tid ? d1 : d0;
        s_lo[tid] = d > lb ? d - lb : 0u;
        s_hi[tid] = min(d, la);
      }
      __syncthreads();
      const unsigned int half = tid / HALF, r = tid % HALF;
      const unsigned int diag = half ? d1 : d0;
      for (;;) {
        const unsigned int lo = s_lo[half], hi = s_hi[half];
        const bool open = s_lo[0] < s_hi[0] || s_lo[1] < s_hi[1];
        __syncthreads();
        if (!open)
          break;
        if (lo < hi) {
          const unsigned int m = lo + (unsigned int)((unsigned long long)(hi - lo) * r / HALF);
          if (__ldcg(src_keys + a_begin + m) <= __ldcg(src_keys + a_end + diag - 1 - m))
            atomicMax(&s_lo[half], m + 1); // A[m] is among the first diag outputs
          else
            atomicMin(&s_hi[half], m);
        }
        __syncthreads();
      }
      const unsigned int i0 = s_lo[0], i1 = s_lo[1];
      const unsigned int na = i1 - i0, a0 = a_begin + i0, b0 = a_end + (d0 - i0);
      // The tile's parts of A and B, one after the other, into shared memory.
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned int p = i * BLOCK + tid;
        if (p < valid) {
          const unsigned int at = p < na ? a0 + p : b0 + (p - na);
          s_keys[p] = __ldcg(src_keys + at);
@V          s_values[p] = __ldcg(src_values + at);
        }
      }
      __syncthreads();
      @N_merge<ITEMS>(s_keys, 0u, na, na, valid - na, min(tid * ITEMS, valid), key@VARGS);
    }

    // The tile's outputs, blocked in registers, go out through shared
    // memory in block-striped order (coalesced stores).
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      s_keys[tid * ITEMS + i] = key[i];
@V      s_values[tid * ITEMS + i] = value[i];
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const unsigned int p = i * BLOCK + tid;
      if (p < valid) {
        const unsigned int b = s_keys[p];
        dst_keys[first + p] = last ? @N_from_bits(b) : b;
@V        dst_values[first + p] = s_values[p];
      }
    }

    // This item is done: its writes are visible before the count says so.
    __syncthreads();
    if (tid == 0) {
      __threadfence();
      atomicAdd(&@N_done, 1u);
    }
  }

  // The last block to run out of work resets the state for the next launch.
  if (tid == 0)
    s_last = atomicAdd(&@N_exited, 1u) == gridDim.x * gridDim.y * gridDim.z - 1u;
  __syncthreads();
  if (s_last && tid == 0) {
    *(volatile unsigned int *)&@N_ticket = 0u;
    *(volatile unsigned int *)&@N_done = 0u;
    __threadfence();
    *(volatile unsigned int *)&@N_exited = 0u;
  }
}
)";

const char *MergeWrapper = R"(
// Bytes of scratch forge_@N needs: none (the signature is the radix sort's).
inline size_t forge_@N_scratch_bytes(long long) { return 0; }

// Sorts keys[0, n) (with values[0, n)) on the current device, stably; the
// result ends in keys (and values). keys_tmp (and values_tmp) hold n
// elements; scratch is unused (may be null). Any alignment. One launch;
// cudaErrorInvalidValue for a negative n or more than @MAX keys.
inline cudaError_t forge_@N(@PARAMS, void *scratch, size_t scratch_bytes,
                            long long n, cudaStream_t stream = 0) {
  (void)scratch;
  (void)scratch_bytes;
  if (n < 0 || n > @MAXll)
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
@DEVICE_QUERY
  // WAVES blocks per SM, the spec's tunable (forge-port tune writes its
  // choice here); the default is what an SM holds at once. Each block
  // loops over work items, so any grid is correct.
  const int WAVES = @WAVES;
  @N<@B, @I><<<sms * WAVES, @B, 0, stream>>>(@ARGS, n);
  return cudaGetLastError();
}
)";

} // namespace

Expected<Instance> instantiateMergeSort(const Request &R) {
  using namespace detail;
  if (Error E = checkSortRequest(R, "the merge sort", "merge", MergeSortMaxKeys))
    return std::move(E);
  Expected<std::string> NameOr = kernelName(R, "merge_sort");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const ScalarInfo &K = scalarInfo(R.Type);
  const bool Values = R.ValueType.has_value();
  const int64_t N = R.Shape[0];

  auto Fill = [&](StringRef Text) {
    std::string S = replaceAll(
        Text.str(), "@VPARAMS",
        Values ? ",\n    const unsigned int *s_values, unsigned int (&value)[ITEMS]" : "");
    S = replaceAll(S, "@VARGS", Values ? ", s_values, value" : "");
    return fillSortText(S, R, Name, MergeSortMaxKeys, DefaultBlock, DefaultItems, DefaultWaves);
  };

  Instance I = startInstance("merge-sort", Name);
  std::string S = fileComment(
      R, "merge-sort",
      {"A stable merge sort in ONE launch. Phase 0 sorts tiles of BLOCK * ITEMS keys inside the "
       "block: each thread sorts its ITEMS keys in registers (odd-even transposition), then the "
       "block merges runs of ITEMS, 2 * ITEMS, ... through shared memory, each thread finding "
       "its outputs by a merge-path search. Then merge passes of runs TILE, 2 * TILE, ... write "
       "one tile of output per work item: the block finds the tile's split points in the two "
       "runs with a parallel diagonal search in global memory (BLOCK / 2 probes a round), loads "
       "the parts into shared memory and merges them the same way. The phases ping-pong between "
       "keys and keys_tmp so that the last writes keys" +
           std::string(Values ? " (and values)" : "") + ".",
       "The phases are chained by tickets: blocks loop taking work items from a counter, and an "
       "item of phase q waits until every item of the earlier phases has finished. Any grid "
       "sorts correctly; the wrapper launches the resident blocks.",
       "Keys are compared as order-preserving bits (" +
           std::string(K.Floating ? "-0.0 before +0.0, NaNs with the sign bit clear last, those "
                                    "with it set first"
                       : K.Signed ? "the sign bit flipped"
                                  : "unsigned keys as they are") +
           (R.Descending ? "; descending compares their complement, keeping equal keys in "
                           "input order)."
                         : ").") +
           " The ticket state is __device__ variables of this file, reset by the last block "
           "of every launch: launches must not overlap in time."});
  S += "#include <cuda_runtime.h>\n#include <cstddef>\n\n";
  S += sortBitFunctions(R, Name) + "\n";
  S += Fill(MergeState);
  S += Fill(MergeKernel);
  S += Fill(MergeWrapper);
  I.Source = std::move(S);

  const unsigned VBytes = Values ? scalarInfo(*R.ValueType).Bytes : 0;
  Json Args = sortArgNames(R);
  Args.push_back("n");
  I.Spec = {
      {"kernel", Name},
      {"template_args", {"BLOCK", "ITEMS"}},
      {"sizes", {{"N", N}, {"SMS", R.SMs}}},
      {"buffers", sortBuffers(R)},
      {"scalars", {scalarArg("n", Scalar::I64, "N")}},
      {"args", Args},
      {"grid", "SMS * WAVES"},
      {"block", "BLOCK"},
      {"tunables",
       {tunable("BLOCK", {128, 256, 512, 1024}, DefaultBlock),
        tunable("ITEMS", {7, 8, 11, 15, 16, 19, 23}, DefaultItems),
        tunable("WAVES", {1, 2, 3, 4, 6, 8}, DefaultWaves)}},
      {"constraints",
       {// The tile's keys (and values) in static shared memory, under 48 KiB.
        formatv("{0} * BLOCK * ITEMS + 64 <= 49152", Values ? 8 : 4).str(),
        "BLOCK * ITEMS <= 16384"}},
      {"bytes", formatv("2 * {0} * N", K.Bytes + VBytes).str()},
      {"flops", "0"},
      {"notes",
       {"forge-port new: the merge-sort template. The kernel loops over work items taken by "
        "tickets (T = ceil_div(N, BLOCK * ITEMS) tile sorts, then T tiles of each of the "
        "ceil(log2(T)) merge passes), so any grid is correct; the grid is WAVES blocks per SM "
        "(SMS, the target's), the resident blocks at best",
        formatv("bytes is the floor (read and write every key{0} once); each phase reads and "
                "writes them all",
                Values ? " and value" : "")
            .str()}}};
  I.Notes.push_back(formatv("{0} threads x {1} keys a tile by default; {2} phases for these "
                            "{3} keys; at most {4} keys (32-bit positions)",
                            DefaultBlock, DefaultItems,
                            [&] {
                              int64_t Tile = DefaultBlock * DefaultItems, P = 0;
                              while ((Tile << P) < N)
                                ++P;
                              return P + 1;
                            }(),
                            N, MergeSortMaxKeys)
                        .str());
  return I;
}

std::vector<Request> mergeSortSamples() {
  using detail::sortSample;
  return {sortSample("merge_sort_u32", "merge", Scalar::U32, 1000003),
          sortSample("merge_sort_f32_pairs", "merge", Scalar::F32, 65537, false, Scalar::F32),
          sortSample("merge_sort_i32_descending_pairs", "merge", Scalar::I32, 77777, true,
                     Scalar::U32)};
}

} // namespace forge::templates
