//===- Templates/GatherScatter.cpp - Indexed reads and writes -------------===//
///
/// \file
/// One generator for both kernels: they differ only in which side of the
/// copy the index applies to. Locals are named fg_* so that they cannot
/// hide the parameters.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/GatherScatter.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include <climits>

using namespace llvm;

namespace forge::templates {

namespace {

Expected<Instance> instantiateIndexed(const Request &R, bool Gather) {
  using namespace detail;
  const char *What = Gather ? "gather" : "scatter";
  if (Error E = checkShape(R, 1, Gather ? "a gather" : "a scatter"))
    return std::move(E);
  const ScalarInfo &TI = scalarInfo(R.Type);
  const int64_t N = R.Shape[0];
  if (N > INT_MAX)
    return makeError("the {0} template's indices are 32-bit (int): n must be at most {1}, not "
                     "{2}",
                     What, INT_MAX, N);
  Expected<std::string> NameOr = kernelName(R, What);
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const std::string T = TI.Cuda.str();
  StringRef Header = R.Type == Scalar::F16    ? "#include <cuda_fp16.h>\n"
                     : R.Type == Scalar::BF16 ? "#include <cuda_bf16.h>\n"
                                              : "";

  Instance I = startInstance(What, Name);
  std::vector<std::string> How;
  if (Gather)
    How = {"out[i] = in[idx[i]] for every i < n. A grid-stride loop hands each block BLOCK * "
           "ITEMS consecutive positions per pass, thread t taking positions t, t + BLOCK, ...: "
           "the reads of idx and the writes of out are coalesced. A thread loads its ITEMS "
           "indices, then issues its ITEMS reads of in (through the read-only cache), so ITEMS "
           "random reads are in flight per thread.",
           "Every idx[i] must lie in [0, n): in holds n elements. The grid is WAVES blocks per "
           "SM, or fewer when n is small; any grid is correct."};
  else
    How = {"out[idx[i]] = in[i] for every i < n. A grid-stride loop hands each block BLOCK * "
           "ITEMS consecutive positions per pass, thread t taking positions t, t + BLOCK, ...: "
           "the reads of idx and in are coalesced (through the read-only cache). A thread loads "
           "its ITEMS indices and elements, then issues its ITEMS writes, so ITEMS random "
           "writes are in flight per thread.",
           "Every idx[i] must lie in [0, n), and the result is defined only when no two indices "
           "are equal (idx a permutation, or an injection into [0, n)): with duplicates, which "
           "of the writes lands is unspecified. Elements of out that no index names keep their "
           "contents. The grid is WAVES blocks per SM, or fewer when n is small; any grid is "
           "correct."};
  std::string S = fileComment(R, What, How);
  S += "#include <cuda_runtime.h>\n" + Header.str() + "\n";
  S += formatv(R"(// {2}. BLOCK threads a block, ITEMS
// positions a thread per pass of the grid-stride loop.
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) {1}(
    const {0} *__restrict__ in, const int *__restrict__ idx, {0} *__restrict__ out,
    long long n) {{
  const long long fg_stride = (long long)gridDim.x * BLOCK * ITEMS;
  for (long long fg_base = (long long)blockIdx.x * BLOCK * ITEMS; fg_base < n;
       fg_base += fg_stride) {{
    int fg_j[ITEMS];
    {0} fg_v[ITEMS];
)",
               T, Name,
               Gather ? "out[i] = in[idx[i]] for i < n; every idx[i] in [0, n)"
                      : "out[idx[i]] = in[i] for i < n; the idx[i] distinct, in [0, n)")
           .str();
  if (Gather)
    S += R"(    // The indices, coalesced.
#pragma unroll
    for (int fg_k = 0; fg_k < ITEMS; ++fg_k) {
      const long long fg_i = fg_base + fg_k * BLOCK + threadIdx.x;
      if (fg_i < n)
        fg_j[fg_k] = __ldg(idx + fg_i);
    }
    // The indexed reads, all issued before the first store.
#pragma unroll
    for (int fg_k = 0; fg_k < ITEMS; ++fg_k) {
      const long long fg_i = fg_base + fg_k * BLOCK + threadIdx.x;
      if (fg_i < n)
        fg_v[fg_k] = __ldg(in + fg_j[fg_k]);
    }
    // The coalesced stores.
#pragma unroll
    for (int fg_k = 0; fg_k < ITEMS; ++fg_k) {
      const long long fg_i = fg_base + fg_k * BLOCK + threadIdx.x;
      if (fg_i < n)
        out[fg_i] = fg_v[fg_k];
    }
  }
}
)";
  else
    S += R"(    // The indices and the elements, coalesced.
#pragma unroll
    for (int fg_k = 0; fg_k < ITEMS; ++fg_k) {
      const long long fg_i = fg_base + fg_k * BLOCK + threadIdx.x;
      if (fg_i < n) {
        fg_j[fg_k] = __ldg(idx + fg_i);
        fg_v[fg_k] = __ldg(in + fg_i);
      }
    }
    // The indexed stores.
#pragma unroll
    for (int fg_k = 0; fg_k < ITEMS; ++fg_k) {
      const long long fg_i = fg_base + fg_k * BLOCK + threadIdx.x;
      if (fg_i < n)
        out[fg_j[fg_k]] = fg_v[fg_k];
    }
  }
}
)";
  S += formatv(R"(
// {2} on the current device. in and out hold n elements
// and must not overlap; {3}.
// The grid is WAVES blocks per SM, or one block per BLOCK * ITEMS positions
// when n is smaller.
inline cudaError_t forge_{1}(const {0} *in, const int *idx, {0} *out, long long n,
{4}cudaStream_t stream = 0) {{
  if (n <= 0)
    return cudaSuccess;
{5}
  // The spec's tunables. The grid is computed in the launch, so that values
  // forge-port tune writes here reach it too.
  constexpr int BLOCK = 256, ITEMS = 4, WAVES = 8;
  {1}<BLOCK, ITEMS><<<
      (unsigned)((n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS) < (long long)sms * WAVES
                     ? (n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS)
                     : (long long)sms * WAVES),
      BLOCK, 0, stream>>>(in, idx, out, n);
  return cudaGetLastError();
}
)",
               T, Name, Gather ? "out[i] = in[idx[i]] for i < n" : "out[idx[i]] = in[i] for i < n",
               Gather ? "every idx[i] must lie in [0, n)"
                      : "the idx[i] must be distinct and lie in [0, n)\n// (with duplicates, "
                        "which write lands is unspecified)",
               std::string(("inline cudaError_t forge_" + Name + "(").size(), ' '),
               deviceQueryLines())
           .str();
  I.Source = std::move(S);

  // Gather: indices uniform over the whole table ([0, N - 1], both ends
  // included for integer dtypes). Scatter: the identity permutation, the
  // only one a spec can describe without a file.
  Json Idx = inBuffer("idx", Scalar::I32, "N");
  if (!Gather)
    Idx["init"] = {{"kind", "iota"}};
  else if (N == 1)
    Idx["init"] = {{"kind", "constant"}, {"value", 0}};
  else
    Idx["init"] = {{"kind", "uniform"}, {"min", 0}, {"max", N - 1}};
  I.Spec = {{"kernel", Name},
            {"template_args", {"BLOCK", "ITEMS"}},
            {"sizes", {{"N", N}, {"SMS", R.SMs}}},
            {"buffers", {inBuffer("in", R.Type, "N"), Idx, outBuffer("out", R.Type, "N")}},
            {"scalars", {scalarArg("n", Scalar::I64, "N")}},
            {"args", {"in", "idx", "out", "n"}},
            {"grid", "min(SMS * WAVES, ceil_div(N, BLOCK * ITEMS))"},
            {"block", "BLOCK"},
            {"tunables",
             {tunable("BLOCK", {128, 256, 512, 1024}, 256), tunable("ITEMS", {1, 2, 4, 8, 16}, 4),
              tunable("WAVES", {1, 2, 4, 8, 16, 32}, 8)}},
            // A thread keeps ITEMS indices, elements and addresses in registers.
            {"constraints", {"BLOCK * ITEMS <= 8192"}},
            {"bytes", formatv("(4 + 2 * {0}) * N", TI.Bytes).str()},
            {"flops", "0"},
            {"notes",
             {Gather ? "forge-port new: the gather template; idx uniform over [0, N - 1]; bytes "
                       "count each element once (a random read moves a 32-byte sector)"
                     : "forge-port new: the scatter template; idx is the identity permutation "
                       "(iota), so the writes are coalesced and the timing optimistic: a random "
                       "permutation needs a file init"}}};
  I.Notes.push_back("ITEMS 4 indexed accesses in flight per thread, BLOCK 256, WAVES 8 by "
                    "default; 32-bit indices");
  if (!Gather)
    I.Notes.push_back("defined only for distinct indices (a permutation); the spec's identity "
                      "permutation makes the timing optimistic");
  return I;
}

Request makeSample(OpKind K, StringRef Name, Scalar T, int64_t N) {
  Request R;
  R.Kind = K;
  R.Name = Name.str();
  R.Type = T;
  R.Shape = {N};
  return R;
}

} // namespace

Expected<Instance> instantiateGather(const Request &R) { return instantiateIndexed(R, true); }
Expected<Instance> instantiateScatter(const Request &R) { return instantiateIndexed(R, false); }

std::vector<Request> gatherSamples() {
  return {makeSample(OpKind::Gather, "gather_f32", Scalar::F32, 3000017),
          makeSample(OpKind::Gather, "gather_f64", Scalar::F64, 100003),
          makeSample(OpKind::Gather, "gather_u16", Scalar::U16, 4099),
          makeSample(OpKind::Gather, "gather_i64_one", Scalar::I64, 1)};
}

std::vector<Request> scatterSamples() {
  return {makeSample(OpKind::Scatter, "scatter_f32", Scalar::F32, 3000017),
          makeSample(OpKind::Scatter, "scatter_i64", Scalar::I64, 100003),
          makeSample(OpKind::Scatter, "scatter_f16", Scalar::F16, 4099),
          makeSample(OpKind::Scatter, "scatter_u8", Scalar::U8, 77)};
}

} // namespace forge::templates
