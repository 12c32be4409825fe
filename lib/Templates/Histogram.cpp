//===- Templates/Histogram.cpp - A shared-memory privatised histogram -----===//
///
/// \file
/// The generated text is ordinary CUDA with comments, written below as raw
/// text with %KEY% placeholders; every file-scope name starts with the
/// instance's name so that several instances live in one translation unit.
///
/// The kernel adds to the bins (the spec's bins are "inout", zeroed), so
/// the host wrapper takes `zero_first` (a cudaMemsetAsync before the
/// launch) rather than always clearing: a histogram may be accumulated over
/// several inputs.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/Histogram.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace llvm;

namespace forge::templates {

namespace {

const char *const Common = R"(
// The bins, and the most copies of them a block may keep in its 48 KiB of
// static shared memory (1 when the bins are counted in global memory).
constexpr unsigned int %N%_bins = %BINS%u;
constexpr int %N%_max_copies = %MAXCOPIES%;

// Counts the sample x into hist[0, %BINS%); a sample outside that range
// (%RANGE%) is ignored.
__device__ __forceinline__ void %N%_count(unsigned int *hist, %T% x) {
  const %UT% b = (%UT%)x;
  if (b < %N%_bins)
    atomicAdd(&hist[b], 1u);
}

// Counts the %VEC% samples of the 16-byte vector q.
__device__ __forceinline__ void %N%_count_vector(unsigned int *hist, const uint4 &q) {
  %T% e[%VEC%];
  memcpy(e, &q, sizeof q);
#pragma unroll
  for (int k = 0; k < %VEC%; ++k)
    %N%_count(hist, e[k]);
}
)";

/// @SH lines for the shared-memory kernel, @GL lines for the global one.
const char *const Kernel = R"(
// One launch counts in[0, n) and adds the counts to bins. Each thread reads
// a grid-stride share: the samples before in's first 16-byte boundary, then
// 16-byte vectors (ITEMS at a time, a warp's loads consecutive), then the
// tail.
@SH // Each block counts into COPIES copies of the bins in shared memory (warp
@SH // w into copy w % COPIES, so that fewer lanes contend for one counter),
@SH // then adds each non-zero bin to the global bins with one atomicAdd.
@GL // The bins do not fit shared memory: every sample is counted with an
@GL // atomicAdd on the global bins (COPIES must be 1).
// Any grid and any BLOCK that is a multiple of 32 work.
template <int BLOCK, int ITEMS, int COPIES>
__global__ void __launch_bounds__(BLOCK) %N%(
    const %T% *__restrict__ in, unsigned int *__restrict__ bins, long long n) {
  static_assert(BLOCK % 32 == 0 && BLOCK >= 32 && BLOCK <= 1024, "BLOCK: whole warps, up to 1024");
  static_assert(ITEMS >= 1 && ITEMS <= 16, "ITEMS: 1 to 16 vectors in flight per thread");
  static_assert(COPIES >= 1 && COPIES <= %N%_max_copies && COPIES * 32 <= BLOCK,
                "COPIES: 1 to one per warp, within 48 KiB of shared memory");
  constexpr int VEC = %VEC%; // samples per 16-byte vector
@SH   __shared__ unsigned int counts[COPIES * %N%_bins];
@SH   for (unsigned int i = threadIdx.x; i < COPIES * %N%_bins; i += BLOCK)
@SH     counts[i] = 0u;
@SH   __syncthreads();
@SH   unsigned int *hist = counts + (threadIdx.x / 32 % COPIES) * %N%_bins;
@GL   unsigned int *hist = bins;
  const long long count = n > 0 ? n : 0;
  const long long thread = (long long)blockIdx.x * BLOCK + threadIdx.x;
  const long long threads = (long long)gridDim.x * BLOCK;

  // The head: samples before the first 16-byte boundary (every sample when
  // in is not even aligned to its type), one per thread.
  const unsigned long long address = (unsigned long long)in;
  long long head = address % sizeof(%T%) != 0
                       ? count
                       : (long long)(((16u - (address & 15u)) & 15u) / sizeof(%T%));
  head = head < count ? head : count;
  for (long long i = thread; i < head; i += threads)
    %N%_count(hist, in[i]);

  // The body: 16-byte vectors. Block b takes chunks of BLOCK * ITEMS
  // vectors, b, b + gridDim.x, ...; thread t loads vectors t, t + BLOCK,
  // ... of a chunk, all ITEMS before counting any.
  const uint4 *body = reinterpret_cast<const uint4 *>(in + head);
  const long long vectors = (count - head) / VEC;
  const long long stride = (long long)gridDim.x * BLOCK * ITEMS;
  long long v = (long long)blockIdx.x * BLOCK * ITEMS + threadIdx.x;
  for (; v + (long long)(ITEMS - 1) * BLOCK < vectors; v += stride) {
    uint4 q[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      q[k] = __ldg(body + v + k * BLOCK);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      %N%_count_vector(hist, q[k]);
  }
  // The last, partial chunk (when this thread has one).
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (v + k * BLOCK < vectors)
      %N%_count_vector(hist, __ldg(body + v + k * BLOCK));
  // The tail: fewer than VEC samples after the last whole vector.
  for (long long i = head + vectors * VEC + thread; i < count; i += threads)
    %N%_count(hist, in[i]);
@SH
@SH   // The block's counts, its copies summed, added to the global bins.
@SH   __syncthreads();
@SH   for (unsigned int b = threadIdx.x; b < %N%_bins; b += BLOCK) {
@SH     unsigned int c = 0u;
@SH #pragma unroll
@SH     for (int k = 0; k < COPIES; ++k)
@SH       c += counts[k * %N%_bins + b];
@SH     if (c != 0u)
@SH       atomicAdd(&bins[b], c);
@SH   }
}

// Adds the counts of in[0, n) to bins[0, %BINS%) (samples outside that range
// are ignored). The kernel ADDS: for a fresh histogram pass zero_first =
// true (a cudaMemsetAsync of the bins on the stream before the launch) or
// zero the bins yourself. One launch on the current device: WAVES blocks
// per SM (no more than one block per 8192 samples), %BLOCK% threads, %ITEMS% vectors in
// flight per thread%COPIESDESC%. in may have any alignment.
inline cudaError_t forge_%N%(
    const %T% *in, unsigned int *bins, long long n, cudaStream_t stream = 0,
    bool zero_first = false) {
  cudaError_t err = cudaSuccess;
  if (zero_first)
    err = cudaMemsetAsync(bins, 0, %N%_bins * sizeof(unsigned int), stream);
  if (err != cudaSuccess || n <= 0)
    return err;
%DEVICE_QUERY%
  const int WAVES = %WAVES%; // the spec's tunable WAVES: blocks per SM
  long long blocks = (long long)sms * WAVES;
  const long long enough = (n + 8191) / 8192;
  blocks = blocks < enough ? blocks : enough;
  blocks = blocks < 1 ? 1 : blocks;
  %N%<%BLOCK%, %ITEMS%, %COPIES%><<<(unsigned int)blocks, %BLOCK%, 0, stream>>>(in, bins, n);
  return cudaGetLastError();
}
)";

} // namespace

Expected<Instance> instantiateHistogram(const Request &R) {
  using namespace detail;
  if (Error E = checkShape(R, 1, "a histogram"))
    return std::move(E);
  const ScalarInfo &TI = scalarInfo(R.Type);
  if (TI.Floating)
    return makeError("the histogram template counts integer samples (i8, u8, i16, u16, i32, u32, "
                     "i64, u64), not {0}: map floating-point samples to bin indices first",
                     TI.Dtype);
  if (R.Bins < 1)
    return makeError("a histogram needs at least 1 bin, not {0}", R.Bins);
  Expected<std::string> NameOr = kernelName(R, "histogram");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;

  const int64_t Bins = R.Bins;
  const bool Shared = Bins <= HistogramMaxSharedBins;
  // Copies: up to one per warp of the largest block, within 48 KiB; the
  // default keeps a block's counts within 16 KiB (8 blocks of an SM fit).
  int MaxCopies = 1;
  while (Shared && MaxCopies < 32 && 2 * MaxCopies * Bins <= HistogramMaxSharedBins)
    MaxCopies *= 2;
  const int Block = 256, Items = 2, Waves = 4;
  int Copies = 1;
  while (Shared && Copies < 8 && 2 * Copies * Bins <= 4096)
    Copies *= 2;
  std::vector<int64_t> CopyValues;
  for (int64_t C = 1; C <= MaxCopies; C *= 2)
    CopyValues.push_back(C);

  const std::string UT = TI.Bytes == 8 ? "unsigned long long" : "unsigned int";
  std::string Range = TI.Signed ? "a negative sample converts to a huge unsigned value" : "";
  if (TI.Signed)
    Range += ", like one of " + std::to_string(Bins) + " or more";
  else
    Range = "one of " + std::to_string(Bins) + " or more";

  Instance I = startInstance("histogram", Name);
  std::vector<std::string> How;
  if (Shared)
    How.push_back("Shared-memory privatisation: each block counts into COPIES copies of the bins "
                  "in shared memory (warp w into copy w % COPIES, so that fewer lanes contend for "
                  "one counter when the bins are few), then adds each non-zero bin to the "
                  "global bins with one atomicAdd.");
  else
    How.push_back(formatv("{0} bins do not fit 48 KiB of shared memory ({1} at most): every "
                          "sample is counted with an atomicAdd on the global bins.",
                          Bins, HistogramMaxSharedBins));
  How.push_back("Samples are read as 16-byte vectors when the address allows it (checked at run "
                "time; the head before the first 16-byte boundary and the tail one at a time). "
                "Samples outside [0, bins) are ignored. The kernel ADDS to the bins: zero them "
                "first for a fresh histogram.");
  std::string S = fileComment(R, "histogram", How);
  S += "#include <cuda_runtime.h>\n#include <cstring>\n";
  // The shared-memory lines (@SH) or the global-atomics ones (@GL).
  std::string Text =
      Common + keepMarkedLines(keepMarkedLines(Kernel, "@SH ", Shared), "@GL ", !Shared);
  auto Put = [&](StringRef Key, StringRef Value) { Text = replaceAll(Text, Key, Value); };
  Put("%COPIESDESC%", Shared ? formatv(", {0} copies of the bins per block", Copies).str()
                             : std::string(", global atomics"));
  Put("%DEVICE_QUERY%", deviceQueryLines("", /*ErrDeclared=*/true));
  Put("%MAXCOPIES%", std::to_string(MaxCopies));
  Put("%RANGE%", Range);
  Put("%UT%", UT);
  Put("%BINS%", std::to_string(Bins));
  Put("%VEC%", std::to_string(16 / TI.Bytes));
  Put("%BLOCK%", std::to_string(Block));
  Put("%ITEMS%", std::to_string(Items));
  Put("%COPIES%", std::to_string(Copies));
  Put("%WAVES%", std::to_string(Waves));
  Put("%T%", TI.Cuda);
  Put("%N%", Name);
  S += Text;
  I.Source = std::move(S);

  // Inputs: an eighth of the bins' range below 0 (signed types) and above
  // the last bin, so that ignored samples are exercised; within the type.
  int64_t Lo = TI.Signed ? -(Bins / 8) - 1 : 0;
  int64_t Hi = Bins + Bins / 8; // inclusive (the worker draws integers in [min, max])
  if (TI.Bytes < 8) {
    int64_t TypeMax = TI.Signed ? (int64_t(1) << (8 * TI.Bytes - 1)) - 1
                                : (int64_t(1) << (8 * TI.Bytes)) - 1;
    int64_t TypeMin = TI.Signed ? -TypeMax - 1 : 0;
    Hi = std::min(Hi, TypeMax);
    Lo = std::max(Lo, TypeMin);
  }
  Json In = inBuffer("in", R.Type, "N", (double)Lo, (double)Hi);
  Json Out = {{"name", "bins"},
              {"dtype", "u32"},
              {"count", "BINS"},
              {"init", {{"kind", "constant"}, {"value", 0}}},
              {"role", "inout"}};
  Json Constraints = {"COPIES * 32 <= BLOCK"};
  if (Shared)
    Constraints.push_back(formatv("COPIES * BINS <= {0}", HistogramMaxSharedBins).str());
  I.Spec = {{"kernel", Name},
            {"template_args", {"BLOCK", "ITEMS", "COPIES"}},
            {"sizes", {{"N", R.Shape[0]}, {"BINS", Bins}, {"SMS", R.SMs}}},
            {"buffers", {std::move(In), std::move(Out)}},
            {"scalars", {scalarArg("n", Scalar::I64, "N")}},
            {"args", {"in", "bins", "n"}},
            {"grid", "SMS * WAVES"},
            {"block", "BLOCK"},
            {"tunables", {tunable("BLOCK", {128, 256, 512, 1024}, Block),
                          tunable("ITEMS", {1, 2, 4}, Items),
                          tunable("COPIES", CopyValues, Copies),
                          tunable("WAVES", {1, 2, 4, 8}, Waves)}},
            {"constraints", std::move(Constraints)},
            {"bytes", formatv("{0} * N + 8 * BINS", TI.Bytes).str()},
            {"flops", "0"},
            {"notes",
             {"forge-port new: the histogram template; the grid is WAVES blocks per SM (SMS, the "
              "target's); the kernel adds to bins, which the spec zeroes"}}};
  if (Shared)
    I.Notes.push_back(formatv("{0} copies of the {1} bins per block in shared memory ({2} bytes); "
                              "at most {3} copies fit 48 KiB",
                              Copies, Bins, Copies * Bins * 4, MaxCopies));
  else
    I.Notes.push_back(formatv("{0} bins are above the {1} that fit 48 KiB of shared memory: "
                              "global atomics, one per sample",
                              Bins, HistogramMaxSharedBins));
  I.Notes.push_back("samples outside [0, bins) are ignored; the kernel adds to the bins (the "
                    "wrapper's zero_first clears them first)");
  return I;
}

std::vector<Request> histogramSamples() {
  auto Make = [](StringRef Name, Scalar T, int Bins, int64_t N) {
    Request R;
    R.Kind = OpKind::Histogram;
    R.Name = Name.str();
    R.Type = T;
    R.Bins = Bins;
    R.Shape = {N};
    return R;
  };
  return {Make("histogram_u8_256", Scalar::U8, 256, 3000017),
          Make("histogram_i32_1000", Scalar::I32, 1000, 1000003),
          Make("histogram_u32_7", Scalar::U32, 7, 77777),
          Make("histogram_u8_100", Scalar::U8, 100, 4099),
          Make("histogram_i16_12288", Scalar::I16, 12288, 65537),
          Make("histogram_i32_global", Scalar::I32, 20000, 200003)};
}

} // namespace forge::templates
