//===- Templates/RadixSort.cpp - An onesweep-style LSD radix sort ---------===//
///
/// \file
/// The generated text is ordinary CUDA with comments. Its file-scope names
/// all carry the instance's name (@N below), so that several instances
/// live in one translation unit.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/RadixSort.h"
#include "SortCommon.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace forge::templates {

namespace {

// The defaults the wrapper launches (and the spec's tunables default to):
// 2 blocks an SM of 384 threads for keys (80 registers on sm_90), of 256
// for pairs (the values take about 40 more).
int defaultBlock(bool Values) { return Values ? 256 : 384; }
constexpr int DefaultItems = 16;
constexpr int DefaultWaves = 2;

/// The kernel's state and its bit functions. @N: the name.
const char *RadixState = R"(// The ticket chain's state: the next work item, the work items finished,
// the blocks that found no more work, and the digit counts of the 4 passes
// (filled by the histogram phase). The last block of a launch zeroes them,
// so the next launch starts clean: launches of this kernel must not overlap
// in time (one stream, or ordered by events).
__device__ unsigned int @N_ticket, @N_done, @N_exited;
__device__ unsigned int @N_digits[4 * 256];

)";

/// The kernel. @N the name, @PARAMS the arrays; @V... lines only with
/// values (the generator drops the @V marker or the whole line).
const char *RadixKernel = R"(// Work items, in ticket order: H histogram items (8 tiles of keys each),
// then 4 passes of T tiles (T = ceil(n / (BLOCK * ITEMS))). Blocks loop
// taking tickets; an item of pass p first waits until H + p * T items have
// finished (all of the earlier phases: they hold lower tickets, so their
// blocks are running or done, and no later item finishes before them). So
// any grid sorts correctly; a grid of the resident blocks is fastest.
//
// scratch: 2 * 256 * T words of look-back statuses, one per (tile, digit)
// for even and for odd passes; any contents (each array is zeroed by the
// phase before the pass that uses it).
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    @N(@PARAMS, unsigned int *scratch, long long n) {
  constexpr int RADIX = 256; // 8-bit digits
  constexpr int PASSES = 4;  // 32-bit keys
  constexpr int WARPS = BLOCK / 32;
  constexpr int TILE = BLOCK * ITEMS;
  constexpr unsigned int HIST_TILES = 8; // tiles of keys per histogram item
  // A status word: a flag in the top 2 bits and a count in the other 30.
  constexpr unsigned int AGGREGATE = 1u << 30; // the tile's own count
  constexpr unsigned int PREFIX = 2u << 30;    // the count of tiles 0..t
  constexpr unsigned int COUNT = AGGREGATE - 1u;
  static_assert(BLOCK % 32 == 0 && BLOCK >= RADIX && BLOCK <= 1024,
                "whole warps, and a thread for each digit");
  static_assert(ITEMS >= 8, "the warps' digit counters share the tile's shared memory");
  // The tile's keys (then values) in digit order share their space with
  // the warps' digit counters (while ranking) and the histogram phase's.
  __shared__ union {
    unsigned int tile[TILE];
    unsigned int warp_digits[WARPS][RADIX];
    unsigned int digits[PASSES][RADIX];
  } s;
  __shared__ unsigned int s_start[RADIX];  // a digit's first position in the sorted tile
  __shared__ unsigned int s_offset[RADIX]; // its first global position, minus s_start
  __shared__ unsigned int s_sums[2][RADIX / 32];
@V  __shared__ unsigned char s_digit[TILE]; // the digit of each position of the sorted tile
  __shared__ unsigned int s_item;
  __shared__ bool s_last;

  const unsigned int tid = threadIdx.x, lane = tid % 32u, warp = tid / 32u;
  if (blockDim.x != BLOCK || blockDim.y != 1 || blockDim.z != 1 ||
      n > (1ll << 30) - TILE)
    __trap(); // another block than the instantiation's, or more keys than 30-bit counts
  const unsigned int count = n > 0 ? (unsigned int)n : 0u;
  const unsigned int tiles = (count + TILE - 1) / TILE;
  const unsigned int hist_items = (tiles + HIST_TILES - 1) / HIST_TILES;
  const unsigned int items = hist_items + PASSES * tiles;
  const unsigned int lanes_below = (1u << lane) - 1u;

  for (;;) {
    if (tid == 0)
      s_item = atomicAdd(&@N_ticket, 1u);
    __syncthreads();
    const unsigned int item = s_item;
    if (item >= items)
      break;
    const bool histogram = item < hist_items;
    const unsigned int pass = histogram ? 0u : (item - hist_items) / tiles;
    const unsigned int tile = histogram ? item : (item - hist_items) % tiles;
    if (tid == 0 && !histogram) {
      const unsigned int need = hist_items + pass * tiles;
      while (*(volatile unsigned int *)&@N_done < need)
        __nanosleep(64);
      __threadfence();
    }
    __syncthreads();

    if (histogram) {
      // ---- Histogram: the digits of all 4 passes of 8 tiles of keys, in
      // shared counters, then added to the global ones. Also zeroes pass
      // 0's statuses of these tiles.
      const unsigned int t0 = tile * HIST_TILES, t1 = min(t0 + HIST_TILES, tiles);
      for (unsigned int i = t0 * RADIX + tid; i < t1 * RADIX; i += BLOCK)
        scratch[i] = 0u;
      for (unsigned int i = tid; i < PASSES * RADIX; i += BLOCK)
        s.digits[i / RADIX][i % RADIX] = 0u;
      __syncthreads();
      const unsigned int *in = (const unsigned int *)keys;
      const unsigned int k1 = min(t1 * TILE, count);
      for (unsigned int k0 = t0 * TILE; k0 < k1; k0 += 8 * BLOCK) {
        unsigned int b[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          const unsigned int at = k0 + u * BLOCK + tid;
          b[u] = at < k1 ? @N_to_bits(__ldcg(in + at)) : 0u;
        }
#pragma unroll
        for (int u = 0; u < 8; ++u)
          if (k0 + u * BLOCK + tid < k1) {
#pragma unroll
            for (int p = 0; p < PASSES; ++p)
              atomicAdd(&s.digits[p][(b[u] >> (8 * p)) & 255u], 1u);
          }
      }
      __syncthreads();
      for (unsigned int i = tid; i < PASSES * RADIX; i += BLOCK) {
        const unsigned int c = s.digits[i / RADIX][i % RADIX];
        if (c)
          atomicAdd(&@N_digits[i], c);
      }
    } else {
      // ---- Pass `pass` over tile `tile`: digit bits [8 * pass, 8 * pass + 8).
      const unsigned int shift = 8u * pass;
      const bool even = pass % 2 == 0, last = pass == PASSES - 1;
      const unsigned int *src_keys = (const unsigned int *)(even ? keys : keys_tmp);
      unsigned int *dst_keys = (unsigned int *)(even ? keys_tmp : keys);
@V      const unsigned int *src_values = (const unsigned int *)(even ? values : values_tmp);
@V      unsigned int *dst_values = (unsigned int *)(even ? values_tmp : values);
      unsigned int *status = scratch + (pass % 2) * tiles * RADIX; // [tile][digit]
      // The next pass's statuses of this tile (the previous pass used them,
      // and it is finished).
      if (pass + 1 < PASSES)
        for (unsigned int d = tid; d < RADIX; d += BLOCK)
          scratch[((pass + 1) % 2) * tiles * RADIX + tile * RADIX + d] = 0u;
      for (unsigned int i = tid; i < WARPS * RADIX; i += BLOCK)
        s.warp_digits[i / RADIX][i % RADIX] = 0u;
      __syncthreads();

      // Warp-striped loads: a warp takes 32 * ITEMS consecutive keys, item i
      // of lane l being key 32 * i + l of them, so that every load is
      // coalesced and (item, lane) order is the input order. Keys past the
      // end get the largest digit: they rank after every real key.
      const unsigned int first = tile * TILE;
      const unsigned int valid = min((unsigned int)TILE, count - first);
      const unsigned int warp_first = first + warp * 32u * ITEMS;
      unsigned int key[ITEMS], pos[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned int at = warp_first + 32u * i + lane;
        key[i] = 0xffffffffu;
        if (at < count) {
          key[i] = __ldcg(src_keys + at);
          if (pass == 0)
            key[i] = @N_to_bits(key[i]);
        }
      }

      // Warp multi-split: the lanes holding the same digit (8 ballots), the
      // highest of them adds their number to the warp's counter of the
      // digit; a key's rank in its warp is the counter before that plus its
      // peers in lower lanes. Items in order, so equal digits keep input
      // order (stability).
      unsigned int *counter = s.warp_digits[warp];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned int d = (key[i] >> shift) & 255u;
        unsigned int peers = 0xffffffffu;
#pragma unroll
        for (int b = 0; b < 8; ++b) {
          const bool bit = (d >> b) & 1u;
          const unsigned int vote = __ballot_sync(0xffffffffu, bit);
          peers &= bit ? vote : ~vote;
        }
        const unsigned int leader = 31u - __clz(peers);
        unsigned int before = 0;
        if (lane == leader) {
          before = counter[d];
          counter[d] = before + __popc(peers);
        }
        pos[i] = __shfl_sync(0xffffffffu, before, leader) + __popc(peers & lanes_below);
        __syncwarp();
      }
      __syncthreads();
@V      // The values (loaded only now, to spare registers while ranking; the
@V      // loads overlap the scans and the look-back).
@V      unsigned int value[ITEMS];
@V#pragma unroll
@V      for (int i = 0; i < ITEMS; ++i) {
@V        const unsigned int at = warp_first + 32u * i + lane;
@V        value[i] = at < count ? __ldcg(src_values + at) : 0u;
@V      }

      // Thread d < 256 owns digit d: the warps' counts become exclusive
      // offsets, the tile's count is published at once (tile 0's as its
      // inclusive prefix), and two block scans give the digit's start in
      // the sorted tile and in the pass's output.
      unsigned int total = 0, local_start = 0, global_start = 0;
      if (tid < RADIX) {
        for (int w = 0; w < WARPS; ++w) {
          const unsigned int c = s.warp_digits[w][tid];
          s.warp_digits[w][tid] = total;
          total += c;
        }
        *(volatile unsigned int *)&status[tile * RADIX + tid] =
            (tile == 0 ? PREFIX : AGGREGATE) | total;
        const unsigned int pass_total = __ldcg(&@N_digits[pass * RADIX + tid]);
        unsigned int a = total, g = pass_total;
#pragma unroll
        for (unsigned int o = 1; o < 32u; o *= 2) {
          const unsigned int x = __shfl_up_sync(0xffffffffu, a, o);
          const unsigned int y = __shfl_up_sync(0xffffffffu, g, o);
          if (lane >= o) {
            a += x;
            g += y;
          }
        }
        if (lane == 31u) {
          s_sums[0][warp] = a;
          s_sums[1][warp] = g;
        }
        local_start = a - total;
        global_start = g - pass_total;
      }
      __syncthreads();
      if (tid < RADIX) {
        for (unsigned int w = 0; w < warp; ++w) {
          local_start += s_sums[0][w];
          global_start += s_sums[1][w];
        }
        s_start[tid] = local_start;
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned int d = (key[i] >> shift) & 255u;
        pos[i] += s_start[d] + s.warp_digits[warp][d];
      }
      __syncthreads(); // the counters are read: the union holds the tile now
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        s.tile[pos[i]] = key[i];

      // Decoupled look-back, thread d for digit d: add the predecessors'
      // counts, nearest first, waiting for each to be published, until one
      // is an inclusive prefix; then publish this tile's inclusive prefix.
      // Predecessors hold lower tickets of this pass: their blocks run.
      if (tid < RADIX) {
        unsigned int before = 0;
        if (tile > 0) {
          for (unsigned int j = tile - 1;; --j) {
            unsigned int w;
            while (((w = *(volatile unsigned int *)&status[j * RADIX + tid]) & ~COUNT) == 0u)
              ;
            before += w & COUNT;
            if (w & PREFIX)
              break;
          }
          *(volatile unsigned int *)&status[tile * RADIX + tid] = PREFIX | (before + total);
        }
        s_offset[tid] = global_start + before - local_start;
      }
      __syncthreads();

      // The sorted tile goes out in block-striped order: consecutive threads
      // write consecutive addresses within each digit's run.
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned int p = i * BLOCK + tid;
        if (p < valid) {
          const unsigned int b = s.tile[p];
@V          s_digit[p] = (unsigned char)(b >> shift);
          dst_keys[s_offset[(b >> shift) & 255u] + p] = last ? @N_from_bits(b) : b;
        }
      }
@V      // The values follow their keys through the same shared positions
@V      // (s_digit keeps each position's digit).
@V      __syncthreads();
@V#pragma unroll
@V      for (int i = 0; i < ITEMS; ++i)
@V        s.tile[pos[i]] = value[i];
@V      __syncthreads();
@V#pragma unroll
@V      for (int i = 0; i < ITEMS; ++i) {
@V        const unsigned int p = i * BLOCK + tid;
@V        if (p < valid)
@V          dst_values[s_offset[s_digit[p]] + p] = s.tile[p];
@V      }
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
  if (s_last) {
    for (unsigned int i = tid; i < PASSES * RADIX; i += BLOCK)
      @N_digits[i] = 0u;
    __syncthreads();
    if (tid == 0) {
      *(volatile unsigned int *)&@N_ticket = 0u;
      *(volatile unsigned int *)&@N_done = 0u;
      __threadfence();
      *(volatile unsigned int *)&@N_exited = 0u;
    }
  }
}
)";

/// The host side. @B and @I the default block and items.
const char *RadixWrapper = R"(
// Bytes of scratch forge_@N needs for n keys: the look-back statuses.
inline size_t forge_@N_scratch_bytes(long long n) {
  const long long tile = @B * @I;
  const long long tiles = n > 0 ? (n + tile - 1) / tile : 0;
  return (size_t)(2 * 256 * tiles) * sizeof(unsigned int);
}

// Sorts keys[0, n) (with values[0, n)) on the current device, stably; the
// result ends in keys (and values). keys_tmp (and values_tmp) hold n
// elements; scratch holds forge_@N_scratch_bytes(n) bytes, any contents.
// Any alignment. One launch; cudaErrorInvalidValue for a negative n, more
// than @MAX keys or too little scratch.
inline cudaError_t forge_@N(@PARAMS, void *scratch, size_t scratch_bytes,
                            long long n, cudaStream_t stream = 0) {
  if (n < 0 || n > @MAXll || scratch_bytes < forge_@N_scratch_bytes(n) ||
      (n > 0 && scratch == nullptr))
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
@DEVICE_QUERY
  // WAVES blocks per SM, the spec's tunable (forge-port tune writes its
  // choice here); the default is what an SM holds at once. Each block
  // loops over work items, so any grid is correct.
  const int WAVES = @WAVES;
  @N<@B, @I><<<sms * WAVES, @B, 0, stream>>>(@ARGS, (unsigned int *)scratch, n);
  return cudaGetLastError();
}
)";

} // namespace

Expected<Instance> instantiateRadixSort(const Request &R) {
  using namespace detail;
  if (Error E = checkSortRequest(R, "the radix sort", "radix", RadixSortMaxKeys))
    return std::move(E);
  Expected<std::string> NameOr = kernelName(R, "radix_sort");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const ScalarInfo &K = scalarInfo(R.Type);
  const bool Values = R.ValueType.has_value();
  const int64_t N = R.Shape[0];

  auto Fill = [&](StringRef Text) {
    return fillSortText(Text, R, Name, RadixSortMaxKeys, defaultBlock(Values), DefaultItems,
                        DefaultWaves);
  };

  Instance I = startInstance("radix-sort", Name);
  std::string S = fileComment(
      R, "radix-sort",
      {"A stable LSD radix sort in the style of Onesweep (Adinets and Merrill, 2022), in ONE "
       "launch: 8-bit digits, 4 passes ping-ponging keys -> keys_tmp -> keys (the result ends in "
       "keys" +
           std::string(Values ? " and values" : "") +
           "). A histogram phase counts the digits of all 4 passes in one read of the keys. Each "
           "pass ranks tiles of BLOCK * ITEMS keys inside the block (a warp multi-split with "
           "ballots and per-warp digit counters in shared memory), publishes the tile's count "
           "of every digit with a decoupled look-back (one 32-bit status word per (tile, "
           "digit): a 2-bit flag and a 30-bit count) and scatters the keys through shared "
           "memory, so that each digit's keys go out in runs of consecutive addresses.",
       "The phases are chained by tickets: blocks loop taking work items from a counter, and "
       "an item of pass p waits until every item of the earlier phases has finished; tiles of a "
       "pass are taken in tile order, so a look-back only waits on running blocks. Any grid "
       "sorts correctly; the wrapper launches the resident blocks.",
       "Keys are sorted by order-preserving bits: " +
           std::string(K.Floating ? "-0.0 before +0.0, NaNs with the sign bit clear last "
                                    "(those with it set first)"
                       : K.Signed ? "the sign bit flipped"
                                  : "unsigned keys as they are") +
           (R.Descending ? "; descending sorts their complement, keeping equal keys in input "
                           "order."
                         : ".") +
           " The ticket state is __device__ variables of this file, reset by the last block "
           "of every launch: launches must not overlap in time."});
  S += "#include <cuda_runtime.h>\n#include <cstddef>\n\n";
  S += Fill(RadixState);
  S += sortBitFunctions(R, Name) + "\n";
  S += Fill(RadixKernel);
  S += Fill(RadixWrapper);
  I.Source = std::move(S);

  const unsigned VBytes = Values ? scalarInfo(*R.ValueType).Bytes : 0;
  Json Buffers = sortBuffers(R);
  // Sized for the smallest tile the tunables allow (256 x 8): a buffer's
  // count must not depend on the tunables (outputs of every configuration
  // are compared with the reference's).
  Buffers.push_back(scratchBuffer("scratch", Scalar::U32, "512 * ceil_div(N, 256 * 8)"));
  Json Args = sortArgNames(R);
  Args.push_back("scratch");
  Args.push_back("n");
  I.Spec = {
      {"kernel", Name},
      {"template_args", {"BLOCK", "ITEMS"}},
      {"sizes", {{"N", N}, {"SMS", R.SMs}}},
      {"buffers", Buffers},
      {"scalars", {scalarArg("n", Scalar::I64, "N")}},
      {"args", Args},
      {"grid", "SMS * WAVES"},
      {"block", "BLOCK"},
      {"tunables",
       {tunable("BLOCK", {256, 384, 512, 768, 1024}, defaultBlock(Values)),
        tunable("ITEMS", {8, 12, 16, 20, 24}, DefaultItems),
        tunable("WAVES", {1, 2, 3, 4, 6, 8}, DefaultWaves)}},
      {"constraints",
       {"BLOCK % 32 == 0 && BLOCK >= 256", "ITEMS >= 8",
        // The tile (shared with the warps' counters; with values, a digit
        // byte a key too) and 2 KiB more of static shared memory, under the
        // 48 KiB static limit.
        formatv("{0} * BLOCK * ITEMS + 2176 <= 49152", Values ? 5 : 4).str(),
        "N <= 1073741824 - BLOCK * ITEMS"}},
      {"bytes", formatv("2 * {0} * N", K.Bytes + VBytes).str()},
      {"flops", "0"},
      {"notes",
       {"forge-port new: the radix-sort template. The kernel loops over work items taken by "
        "tickets (ceil(T / 8) histogram items, then 4 passes of T = ceil_div(N, BLOCK * "
        "ITEMS) tiles), so any grid is correct; the grid is WAVES blocks per SM (SMS, the "
        "target's), the resident blocks at best",
        formatv("bytes is the floor (read and write every key{0} once); the sort moves about "
                "{1} * N bytes: the histogram reads the keys, each of 4 passes reads and writes "
                "them{2}",
                Values ? " and value" : "", 9 * K.Bytes + 8 * VBytes,
                Values ? " and the values" : "")
            .str()}}};
  I.Notes.push_back(formatv("{0} threads x {1} keys a tile by default; 8-bit digits, 4 passes; "
                            "at most {2} keys (30-bit counts in the status words)",
                            defaultBlock(Values), DefaultItems, RadixSortMaxKeys)
                        .str());
  I.Notes.push_back("scratch: forge_" + Name +
                    "_scratch_bytes(n) bytes (2 * 256 status words a tile), any contents");
  return I;
}

std::vector<Request> radixSortSamples() {
  using detail::sortSample;
  return {sortSample("radix_sort_u32", "", Scalar::U32, 1000003),
          sortSample("radix_sort_i32_descending", "", Scalar::I32, 77777, true),
          sortSample("radix_sort_f32", "", Scalar::F32, 300001),
          sortSample("radix_sort_u32_pairs", "", Scalar::U32, 123457, false, Scalar::U32),
          sortSample("radix_sort_u32_large", "", Scalar::U32, 4000037)};
}

} // namespace forge::templates
