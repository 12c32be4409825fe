//===- Templates/Reduction.cpp - A single-pass, deterministic reduction ---===//
///
/// \file
/// The generated text is ordinary CUDA with comments. It is written below as
/// raw text with %KEY% placeholders (the instance's name, types, operator),
/// filled by subst(); every file-scope name starts with the instance's name
/// so that several instances live in one translation unit.
///
/// The partials are __device__ arrays sized for the largest grid
/// (ReductionMaxBlocks) rather than a scratch argument: the wrapper keeps
/// the signature a user expects (in, out, n), the spec needs no scratch
/// buffer, and 4096 blocks is 31 waves of 132 SMs, more than a reduction
/// ever wants. The cost: launches of one instance must not overlap in time.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/Reduction.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace llvm;

namespace forge::templates {

namespace {

enum class RedOp { Add, Mul, Max, Min, ArgMax, ArgMin };

/// How the text spells the instance's types and operator.
struct RedText {
  std::string Name, T, Acc, ToAcc, FromAcc, Identity, Combine, OpDesc, IdDesc, NanDesc;
  int Vec = 4;
  bool Arg = false;
};

std::string subst(std::string S, const RedText &X) {
  using detail::replaceAll;
  S = replaceAll(S, "%N%", X.Name);
  S = replaceAll(S, "%T%", X.T);
  S = replaceAll(S, "%ACC%", X.Acc);
  S = replaceAll(S, "%TOACC%", X.ToAcc);
  S = replaceAll(S, "%FROMACC%", X.FromAcc);
  S = replaceAll(S, "%ID%", X.Identity);
  S = replaceAll(S, "%COMBINE%", X.Combine);
  S = replaceAll(S, "%OPDESC%", X.OpDesc);
  S = replaceAll(S, "%IDDESC%", X.IdDesc);
  S = replaceAll(S, "%VEC%", std::to_string(X.Vec));
  return S;
}

/// The largest and smallest values of an integer type, as CUDA literals.
std::pair<std::string, std::string> integerRange(Scalar T) {
  switch (T) {
  case Scalar::I32:
    return {"(-2147483647 - 1)", "2147483647"};
  case Scalar::U32:
    return {"0u", "0xffffffffu"};
  case Scalar::I64:
    return {"(-9223372036854775807LL - 1)", "9223372036854775807LL"};
  default:
    return {"0ull", "0xffffffffffffffffull"};
  }
}

/// The spec's tolerance for the output: the reference of a measurement is
/// the same template, so only a different association (another grid or
/// block) moves the result; a sum's rounding grows with sqrt(n).
double tolerance(Scalar T, RedOp Op, int64_t N) {
  const ScalarInfo &I = scalarInfo(T);
  if (!I.Floating || (Op != RedOp::Add && Op != RedOp::Mul))
    return 0; // exact (integers, max, min, arg*): the dtype's default
  double Eps = T == Scalar::F64 ? 1.1e-16 : 6e-8; // f16/bf16 accumulate in float
  double Tol = std::max(T == Scalar::F64 ? 1e-12 : 1e-5,
                        (Op == RedOp::Add ? 4 : 8) * Eps * std::sqrt((double)N));
  if (T == Scalar::F16 || T == Scalar::BF16)
    Tol = std::max(Tol, 1e-2); // the final rounding to 11 or 8 bits
  return Tol;
}

const char *const Helpers = R"(
// The largest grid the kernel takes: one partial result per block.
constexpr unsigned int %N%_max_blocks = 4096u;

// The operator, %OPDESC%, on the accumulator type.
__device__ __forceinline__ %ACC% %N%_op(%ACC% a, %ACC% b) { return %COMBINE%; }

// Each block's partial result, and the ticket that tells the last block to
// finish that every other partial is written. The last block resets the
// ticket, so the next launch starts from zero without a clearing kernel.
__device__ %ACC% %N%_partial[%N%_max_blocks];
__device__ unsigned int %N%_ticket;

// Folds the %VEC% elements of the 16-byte vector q into acc, in order.
__device__ __forceinline__ void %N%_fold(%ACC% &acc, const uint4 &q) {
  %T% e[%VEC%];
  memcpy(e, &q, sizeof q);
#pragma unroll
  for (int k = 0; k < %VEC%; ++k)
    acc = %N%_op(acc, %TOACC%(e[k]));
}

// The warp's 32 values combined into lane 0 by a shuffle tree. The tree is
// fixed, so the result does not change from run to run.
__device__ __forceinline__ %ACC% %N%_warp_reduce(%ACC% v) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    v = %N%_op(v, __shfl_down_sync(0xffffffffu, v, d));
  return v;
}

// The block's values combined into thread 0: each warp's tree, then the
// first warp over the warps' results in shared memory.
template <int BLOCK>
__device__ __forceinline__ %ACC% %N%_block_reduce(%ACC% v) {
  __shared__ %ACC% warp_total[BLOCK / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = %N%_warp_reduce(v);
  if (lane == 0)
    warp_total[warp] = v;
  __syncthreads();
  if (warp == 0)
    v = %N%_warp_reduce(lane < BLOCK / 32 ? warp_total[lane] : %ID%);
  return v;
}
)";

const char *const ArgHelpers = R"(
// The largest grid the kernel takes: one partial result per block.
constexpr unsigned int %N%_max_blocks = 4096u;

// Does (bv, bi) come before (av, ai)? %OPDESC%
__device__ __forceinline__ bool %N%_first(%ACC% bv, long long bi, %ACC% av, long long ai) {
%FIRST%}

// (v, i) becomes (bv, bi) when that comes first.
__device__ __forceinline__ void %N%_take(%ACC% &v, long long &i, %ACC% bv, long long bi) {
  if (%N%_first(bv, bi, v, i)) {
    v = bv;
    i = bi;
  }
}

// Each block's partial (value, index), and the ticket that tells the last
// block to finish that every other partial is written. The last block
// resets the ticket, so the next launch starts from zero.
__device__ %ACC% %N%_partial[%N%_max_blocks];
__device__ long long %N%_partial_index[%N%_max_blocks];
__device__ unsigned int %N%_ticket;

// Folds the %VEC% elements of the 16-byte vector q, the first at index
// first, into (v, i).
__device__ __forceinline__ void %N%_fold(%ACC% &v, long long &i, const uint4 &q, long long first) {
  %T% e[%VEC%];
  memcpy(e, &q, sizeof q);
#pragma unroll
  for (int k = 0; k < %VEC%; ++k)
    %N%_take(v, i, %TOACC%(e[k]), first + k);
}

// The warp's 32 pairs combined into lane 0 by a shuffle tree.
__device__ __forceinline__ void %N%_warp_reduce(%ACC% &v, long long &i) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    const %ACC% ov = __shfl_down_sync(0xffffffffu, v, d);
    const long long oi = __shfl_down_sync(0xffffffffu, i, d);
    %N%_take(v, i, ov, oi);
  }
}

// The block's pairs combined into thread 0: each warp's tree, then the
// first warp over the warps' results in shared memory.
template <int BLOCK>
__device__ __forceinline__ void %N%_block_reduce(%ACC% &v, long long &i) {
  __shared__ %ACC% warp_value[BLOCK / 32];
  __shared__ long long warp_index[BLOCK / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  %N%_warp_reduce(v, i);
  if (lane == 0) {
    warp_value[warp] = v;
    warp_index[warp] = i;
  }
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? warp_value[lane] : %ID%;
    i = lane < BLOCK / 32 ? warp_index[lane] : %N%_none;
    %N%_warp_reduce(v, i);
  }
}
)";

/// The kernel; @ARG lines are kept for argmax/argmin, @VAL lines for the
/// others (the marker and the space after it are removed).
const char *const Kernel = R"(
// One launch computes the whole reduction. Each thread folds a grid-stride
// share of in[0, n): the elements before in's first 16-byte boundary, then
// 16-byte vectors (ITEMS at a time, a warp's loads consecutive), then the
// tail; then the block combines its threads and writes one partial. The
// last block to finish (the ticket) folds the partials in block order and
// writes the result. Any grid up to %N%_max_blocks and any BLOCK that is a
// multiple of 32 work.
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) %N%(
@VAL     const %T% *__restrict__ in, %T% *__restrict__ out, long long n) {
@ARG     const %T% *__restrict__ in, %T% *__restrict__ value, long long *__restrict__ index,
@ARG     long long n) {
  static_assert(BLOCK % 32 == 0 && BLOCK >= 32 && BLOCK <= 1024, "BLOCK: whole warps, up to 1024");
  static_assert(ITEMS >= 1 && ITEMS <= 16, "ITEMS: 1 to 16 vectors in flight per thread");
  constexpr int VEC = %VEC%; // elements per 16-byte vector
  if (gridDim.x > %N%_max_blocks)
    __trap(); // more blocks than partials
  const long long count = n > 0 ? n : 0;
  const long long thread = (long long)blockIdx.x * BLOCK + threadIdx.x;
  const long long threads = (long long)gridDim.x * BLOCK;
@VAL   %ACC% acc = %ID%;
@ARG   %ACC% acc = %ID%;
@ARG   long long acc_index = %N%_none;

  // The head: elements before the first 16-byte boundary (every element
  // when in is not even aligned to its type), one per thread.
  const unsigned long long address = (unsigned long long)in;
  long long head = address % sizeof(%T%) != 0
                       ? count
                       : (long long)(((16u - (address & 15u)) & 15u) / sizeof(%T%));
  head = head < count ? head : count;
  for (long long i = thread; i < head; i += threads)
@VAL     acc = %N%_op(acc, %TOACC%(in[i]));
@ARG     %N%_take(acc, acc_index, %TOACC%(in[i]), i);

  // The body: 16-byte vectors. Block b takes chunks of BLOCK * ITEMS
  // vectors, b, b + gridDim.x, ...; thread t loads vectors t, t + BLOCK,
  // ... of a chunk, all ITEMS before folding any.
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
@VAL       %N%_fold(acc, q[k]);
@ARG       %N%_fold(acc, acc_index, q[k], head + (v + k * BLOCK) * VEC);
  }
  // The last, partial chunk (when this thread has one).
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (v + k * BLOCK < vectors)
@VAL       %N%_fold(acc, __ldg(body + v + k * BLOCK));
@ARG       %N%_fold(acc, acc_index, __ldg(body + v + k * BLOCK), head + (v + k * BLOCK) * VEC);
  // The tail: fewer than VEC elements after the last whole vector.
  for (long long i = head + vectors * VEC + thread; i < count; i += threads)
@VAL     acc = %N%_op(acc, %TOACC%(in[i]));
@ARG     %N%_take(acc, acc_index, %TOACC%(in[i]), i);

  // The block's partial; the fence makes it visible before the ticket.
@VAL   acc = %N%_block_reduce<BLOCK>(acc);
@ARG   %N%_block_reduce<BLOCK>(acc, acc_index);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    %N%_partial[blockIdx.x] = acc;
@ARG     %N%_partial_index[blockIdx.x] = acc_index;
    __threadfence();
    last = atomicAdd(&%N%_ticket, 1u) == gridDim.x - 1;
    if (last)
      __threadfence(); // the others' partials are read after their ticket
  }
  __syncthreads();
  if (!last)
    return;

  // The last block: every partial in block order (read from L2, where the
  // other blocks' writes are), then the same tree.
@VAL   %ACC% total = %ID%;
@ARG   %ACC% total = %ID%;
@ARG   long long total_index = %N%_none;
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += BLOCK)
@VAL     total = %N%_op(total, __ldcg(&%N%_partial[b]));
@ARG     %N%_take(total, total_index, __ldcg(&%N%_partial[b]), __ldcg(&%N%_partial_index[b]));
@VAL   total = %N%_block_reduce<BLOCK>(total);
@ARG   %N%_block_reduce<BLOCK>(total, total_index);
  if (threadIdx.x == 0) {
@VAL     out[0] = %FROMACC%(total);
@ARG     value[0] = %FROMACC%(total);
@ARG     index[0] = total_index == %N%_none ? -1 : total_index;
    %N%_ticket = 0u; // every block has taken its ticket: ready for the next launch
  }
}
)";

const char *const Wrapper = R"(
// %TITLE% of in[0, n) into %WHERE% (n <= 0 gives %IDDESC%).
// One launch of %N% on the current device: WAVES blocks per SM (no more
// than one block per 2048 elements, at most %N%_max_blocks), 256 threads,
// 4 vectors in flight per thread. in may have any alignment. The grid
// depends only on n and the device, so the result is the same every run.
// The partials and the ticket are __device__ variables of this file:
// launches of this function must not overlap in time (use one stream).
inline cudaError_t forge_%N%(
@VAL     const %T% *in, %T% *out, long long n, cudaStream_t stream = 0) {
@ARG     const %T% *in, %T% *value, long long *index, long long n, cudaStream_t stream = 0) {
%DEVICE_QUERY%
  const int WAVES = %WAVES%; // the spec's tunable WAVES: blocks per SM
  long long blocks = (long long)sms * WAVES;
  const long long enough = (n + 2047) / 2048;
  blocks = blocks < enough ? blocks : enough;
  blocks = blocks < 1 ? 1 : blocks > %N%_max_blocks ? %N%_max_blocks : blocks;
@VAL   %N%<%BLOCK%, %ITEMS%><<<(unsigned int)blocks, %BLOCK%, 0, stream>>>(in, out, n);
@ARG   %N%<%BLOCK%, %ITEMS%><<<(unsigned int)blocks, %BLOCK%, 0, stream>>>(in, value, index, n);
  return cudaGetLastError();
}
)";

} // namespace

Expected<Instance> instantiateReduction(const Request &R) {
  using namespace detail;
  if (Error E = checkShape(R, 1, "a reduction"))
    return std::move(E);
  const ScalarInfo &TI = scalarInfo(R.Type);
  static const Scalar Types[] = {Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64,
                                 Scalar::I32, Scalar::U32,  Scalar::I64, Scalar::U64};
  if (!is_contained(Types, R.Type))
    return makeError("the reduction template takes f16, bf16, f32, f64, i32, u32, i64 or u64 "
                     "elements, not {0}",
                     TI.Dtype);
  RedOp Op;
  if (R.Operator == "+")
    Op = RedOp::Add;
  else if (R.Operator == "*")
    Op = RedOp::Mul;
  else if (R.Operator == "max")
    Op = RedOp::Max;
  else if (R.Operator == "min")
    Op = RedOp::Min;
  else if (R.Operator == "argmax")
    Op = RedOp::ArgMax;
  else if (R.Operator == "argmin")
    Op = RedOp::ArgMin;
  else
    return makeError("the reduction template reduces with +, *, max, min, argmax or argmin, not "
                     "'{0}'",
                     R.Operator);
  Expected<std::string> NameOr = kernelName(R, "reduction");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  if (R.SMs < 1 || R.SMs > ReductionMaxBlocks)
    return makeError("the reduction template needs 1 to {0} SMs, not {1}", ReductionMaxBlocks,
                     R.SMs);

  RedText X;
  X.Name = Name;
  X.T = TI.Cuda.str();
  X.Vec = 16 / TI.Bytes;
  X.Arg = Op == RedOp::ArgMax || Op == RedOp::ArgMin;
  const bool Half = R.Type == Scalar::F16 || R.Type == Scalar::BF16;
  X.Acc = Half ? "float" : X.T;
  X.ToAcc = R.Type == Scalar::F16 ? "__half2float" : R.Type == Scalar::BF16 ? "__bfloat162float" : "";
  X.FromAcc = R.Type == Scalar::F16    ? "__float2half_rn"
              : R.Type == Scalar::BF16 ? "__float2bfloat16_rn"
                                       : "";
  const bool Float = TI.Floating;
  const bool Double = R.Type == Scalar::F64;
  const std::string Nan = Double ? "__longlong_as_double(0x7ff8000000000000LL)"
                                 : "__int_as_float(0x7fc00000)";
  auto [Lowest, Highest] = Float ? std::pair<std::string, std::string>{"", ""}
                                 : integerRange(R.Type);
  // Signed integers wrap through their unsigned type (signed overflow is
  // undefined in C++).
  const std::string Unsigned = R.Type == Scalar::I32 ? "unsigned int" : "unsigned long long";
  auto Wrapping = [&](StringRef Sym) {
    if (!Float && TI.Signed)
      return formatv("({0})(({1})a {2} ({1})b)", X.T, Unsigned, Sym).str();
    return ("a " + Sym + " b").str();
  };
  std::string Nans;  // what the comment says about NaN
  std::string Title; // the wrapper's first words
  switch (Op) {
  case RedOp::Add:
    X.Identity = "(" + X.Acc + ")0";
    X.Combine = Wrapping("+");
    X.OpDesc = Float ? "+" : TI.Signed ? "+ (wrapping, through the unsigned type)" : "+ (wrapping)";
    Title = "The sum";
    X.IdDesc = "0";
    Nans = Float ? "A NaN makes the sum NaN." : "Integers wrap around.";
    break;
  case RedOp::Mul:
    X.Identity = "(" + X.Acc + ")1";
    X.Combine = Wrapping("*");
    X.OpDesc = Float ? "*" : TI.Signed ? "* (wrapping, through the unsigned type)" : "* (wrapping)";
    Title = "The product";
    X.IdDesc = "1";
    Nans = Float ? "A NaN makes the product NaN." : "Integers wrap around.";
    break;
  case RedOp::Max:
  case RedOp::Min: {
    bool Max = Op == RedOp::Max;
    X.OpDesc = Max ? "max" : "min";
    Title = Max ? "The maximum" : "The minimum";
    if (Float) {
      // fmax/fmin ignore a NaN operand, so NaN is the identity: the result
      // is NaN only when every element is.
      X.Identity = Nan;
      X.Combine = (Max ? "fmax" : "fmin") + std::string(Double ? "" : "f") + "(a, b)";
      X.IdDesc = "NaN";
      Nans = "NaNs are ignored (fmax/fmin): the result is NaN only when every element is NaN.";
    } else {
      X.Identity = Max ? Lowest : Highest;
      X.Combine = Max ? "a > b ? a : b" : "a < b ? a : b";
      X.IdDesc = Max ? "the type's lowest value" : "the type's highest value";
    }
    break;
  }
  case RedOp::ArgMax:
  case RedOp::ArgMin: {
    bool Max = Op == RedOp::ArgMax;
    X.OpDesc = std::string(Max ? "The larger" : "The smaller") +
               " value; of equal values, the lower index" +
               (Float ? "; a NaN loses to every number, and of two NaNs the lower index wins "
                        "(NaNs are ignored unless every element is NaN)."
                      : ".");
    Title = Max ? "The maximum and its first index" : "The minimum and its first index";
    X.Identity = Float ? Nan : Max ? Lowest : Highest;
    X.IdDesc = Float ? "(NaN, -1)" : Max ? "(the lowest value, -1)" : "(the highest value, -1)";
    Nans = Float ? "NaNs lose to every number: the result is (NaN, index of the first NaN) only "
                   "when every element is NaN."
                 : "";
    break;
  }
  }

  Instance I = startInstance("reduction", Name);
  std::vector<std::string> How = {
      "One launch, one pass over the input. Each thread folds a grid-stride share: the elements "
      "before the input's first 16-byte boundary (the address is checked at run time), then "
      "16-byte vectors, ITEMS of them in flight at a time, then the tail. A warp shuffle tree and "
      "the block's warps through shared memory give one partial per block; the last block to "
      "finish (a __device__ ticket) folds the partials in block order, writes the result and "
      "resets the ticket for the next launch.",
      "No floating-point atomics: for one grid the result is the same run to run. The partials "
      "are __device__ arrays of this file, sized for the largest grid (4096 blocks), so launches "
      "of this instance must not overlap in time (one stream)."};
  if (Half)
    How.push_back("The 16-bit elements are accumulated in float and the result rounded once.");
  if (!Nans.empty())
    How.push_back(Nans);
  std::string S = fileComment(R, "reduction", How);
  S += "#include <cuda_runtime.h>\n";
  if (R.Type == Scalar::F16)
    S += "#include <cuda_fp16.h>\n";
  if (R.Type == Scalar::BF16)
    S += "#include <cuda_bf16.h>\n";
  S += "#include <cstring>\n";
  if (X.Arg) {
    std::string First;
    std::string Cmp = Op == RedOp::ArgMax ? ">" : "<";
    if (Float)
      First = formatv("  const bool bnan = bv != bv, anan = av != av;\n"
                      "  if (bnan != anan)\n"
                      "    return anan; // a number beats NaN\n"
                      "  if (bnan || bv == av)\n"
                      "    return bi < ai; // equal (or both NaN): the lower index\n"
                      "  return bv {0} av;\n",
                      Cmp);
    else
      First = formatv("  if (bv != av)\n    return bv {0} av;\n  return bi < ai;\n", Cmp);
    std::string H = detail::replaceAll(ArgHelpers, "%FIRST%", First);
    // The index of "no element yet": above every real index, so it loses ties.
    S += subst("\n// The index of no element: above every real one, so it loses every tie.\n"
               "constexpr long long %N%_none = 9223372036854775807LL;\n",
               X);
    S += subst(H, X);
  } else {
    S += subst(Helpers, X);
  }
  // The argmin/argmax lines (@ARG) or the value-only ones (@VAL).
  auto Pick = [&](StringRef Text) {
    return detail::keepMarkedLines(detail::keepMarkedLines(Text, "@ARG ", X.Arg), "@VAL ", !X.Arg);
  };
  S += subst(Pick(Kernel), X);
  const int Block = 256, Items = 4, Waves = 8;
  std::string W = Pick(Wrapper);
  W = detail::replaceAll(W, "%WHERE%", X.Arg ? "value[0] and index[0]" : "out[0]");
  W = detail::replaceAll(W, "%BLOCK%", std::to_string(Block));
  W = detail::replaceAll(W, "%ITEMS%", std::to_string(Items));
  W = detail::replaceAll(W, "%WAVES%", std::to_string(Waves));
  W = detail::replaceAll(W, "%DEVICE_QUERY%", detail::deviceQueryLines());
  W = detail::replaceAll(W, "%TITLE%", Title);
  S += subst(W, X);
  I.Source = std::move(S);

  const int64_t N = R.Shape[0];
  const double Tol = tolerance(R.Type, Op, N);
  Json Buffers = Json::array();
  // A product of many uniform [-1, 1) values is 0: the spec's inputs stay near 1.
  if (Op == RedOp::Mul && Float)
    Buffers.push_back(inBuffer("in", R.Type, "N", 0.999, 1.001));
  else if (Op == RedOp::Mul)
    Buffers.push_back(inBuffer("in", R.Type, "N", 1, 4));
  else
    Buffers.push_back(inBuffer("in", R.Type, "N"));
  Json Args = {"in"};
  if (X.Arg) {
    Buffers.push_back(outBuffer("value", R.Type, "1"));
    Buffers.push_back(outBuffer("index", Scalar::I64, "1"));
    Args.push_back("value");
    Args.push_back("index");
  } else {
    Buffers.push_back(outBuffer("out", R.Type, "1", Tol));
    Args.push_back("out");
  }
  Args.push_back("n");
  I.Spec = {{"kernel", Name},
            {"template_args", {"BLOCK", "ITEMS"}},
            {"sizes", {{"N", N}, {"SMS", R.SMs}}},
            {"buffers", std::move(Buffers)},
            {"scalars", {scalarArg("n", Scalar::I64, "N")}},
            {"args", std::move(Args)},
            {"grid", "SMS * WAVES"},
            {"block", "BLOCK"},
            {"tunables", {tunable("BLOCK", {128, 256, 512, 1024}, Block),
                          tunable("ITEMS", {1, 2, 4, 8}, Items),
                          tunable("WAVES", {1, 2, 4, 8, 16}, Waves)}},
            {"constraints", {formatv("SMS * WAVES <= {0}", ReductionMaxBlocks).str()}},
            {"bytes", formatv("{0} * N + {1}", TI.Bytes, X.Arg ? TI.Bytes + 8 : TI.Bytes).str()},
            {"flops", Float && (Op == RedOp::Add || Op == RedOp::Mul) ? "N" : "0"},
            {"notes",
             {"forge-port new: the reduction template; the grid is WAVES blocks per SM (SMS, the "
              "target's); the wrapper launches at most one block per 2048 elements",
              "the result is written by the last block: one launch computes it whole"}}};
  I.Notes.push_back(formatv("{0} threads, {1} 16-byte vectors in flight per thread, {2} blocks "
                            "per SM; partials for up to {3} blocks",
                            Block, Items, Waves, ReductionMaxBlocks));
  if (Tol > 0)
    I.Notes.push_back(formatv("the output's tolerance is rel_l2 {0:e2}: another grid or block "
                              "reassociates the floating-point {1}",
                              Tol, Op == RedOp::Add ? "sum" : "product"));
  if (!Nans.empty())
    I.Notes.push_back(Nans);
  return I;
}

std::vector<Request> reductionSamples() {
  auto Make = [](StringRef Name, Scalar T, StringRef Op, int64_t N) {
    Request R;
    R.Kind = OpKind::Reduce;
    R.Name = Name.str();
    R.Type = T;
    R.Operator = Op.str();
    R.Shape = {N};
    return R;
  };
  return {Make("reduction_sum_f32", Scalar::F32, "+", (1 << 22) + 3),
          Make("reduction_argmax_f32", Scalar::F32, "argmax", 1000003),
          Make("reduction_max_i32", Scalar::I32, "max", 77777),
          Make("reduction_argmin_i64", Scalar::I64, "argmin", 4099),
          Make("reduction_prod_f64", Scalar::F64, "*", 12345),
          Make("reduction_min_f16", Scalar::F16, "min", 333331),
          Make("reduction_sum_bf16", Scalar::BF16, "+", 100003),
          Make("reduction_prod_u32", Scalar::U32, "*", 1001),
          Make("reduction_sum_u64", Scalar::U64, "+", 1)};
}

} // namespace forge::templates
