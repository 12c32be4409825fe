//===- Templates/Scan.cpp - A single-pass scan with decoupled look-back ---===//
///
/// \file
/// The generated text is ordinary CUDA with comments, so that a user can
/// read and keep it. Every local is named fs_* so that it cannot hide one
/// of the kernel's parameters (the caller checks that none is named so).
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/Scan.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace forge::templates {

StringRef scanOpName(ScanOp Op) {
  switch (Op) {
  case ScanOp::Add:
    return "+";
  case ScanOp::Max:
    return "max";
  case ScanOp::Min:
    return "min";
  }
  return "?";
}

StringRef scanOrderName(ScanOrder Order) {
  return Order == ScanOrder::Inclusive ? "inclusive" : "exclusive";
}

namespace {

/// How the template spells one element type's operations.
struct ElementOps {
  std::string Identity;
  std::string Combine; ///< with @A and @B
  std::string ToBits;  ///< @V -> unsigned
  std::string FromBits; ///< @U -> the type
};

ElementOps opsFor(const ScanParams &P) {
  ElementOps O;
  if (P.FloatingPoint) {
    O.ToBits = "__float_as_uint(@V)";
    O.FromBits = "__uint_as_float(@U)";
  } else {
    O.ToBits = "(unsigned)(@V)";
    O.FromBits = "(fs_T)(@U)";
  }
  switch (P.Op) {
  case ScanOp::Add:
    O.Identity = "(fs_T)0";
    O.Combine = "(@A) + (@B)";
    break;
  case ScanOp::Max:
    O.Identity = P.FloatingPoint ? "-__int_as_float(0x7f800000)"
                 : P.Signed      ? "(fs_T)(-2147483647 - 1)"
                                 : "(fs_T)0u";
    O.Combine = P.FloatingPoint ? "fmaxf(@A, @B)" : "max(@A, @B)";
    break;
  case ScanOp::Min:
    O.Identity = P.FloatingPoint ? "__int_as_float(0x7f800000)"
                 : P.Signed      ? "(fs_T)2147483647"
                                 : "(fs_T)0xffffffffu";
    O.Combine = P.FloatingPoint ? "fminf(@A, @B)" : "min(@A, @B)";
    break;
  }
  return O;
}

std::string combine(const ElementOps &O, StringRef A, StringRef B) {
  return detail::replaceAll(detail::replaceAll(O.Combine, "@A", A), "@B", B);
}

/// Text with its placeholders filled: @IN (the input), @ID (the identity),
/// the More pairs, and @C(a, b) (the operator applied to a and b; the arguments may hold
/// parentheses and brackets).
std::string expand(StringRef Text, const ElementOps &O, StringRef In, StringRef Id,
                   ArrayRef<std::pair<StringRef, std::string>> More = {}) {
  std::string S = detail::replaceAll(detail::replaceAll(Text.str(), "@IN", In), "@ID", Id);
  for (const auto &[Key, Value] : More)
    S = detail::replaceAll(S, Key, Value);
  for (size_t At; (At = S.find("@C(")) != std::string::npos;) {
    size_t I = At + 3, Comma = std::string::npos;
    int Depth = 0;
    for (; I < S.size(); ++I) {
      char Ch = S[I];
      if (Ch == '(' || Ch == '[')
        ++Depth;
      else if ((Ch == ')' || Ch == ']') && Depth > 0)
        --Depth;
      else if (Ch == ')')
        break;
      else if (Ch == ',' && Depth == 0 && Comma == std::string::npos)
        Comma = I;
    }
    assert(Comma != std::string::npos && I < S.size() && "malformed @C(a, b)");
    std::string A = StringRef(S).slice(At + 3, Comma).trim().str();
    std::string B = StringRef(S).slice(Comma + 1, I).trim().str();
    S.replace(At, I + 1 - At, combine(O, A, B));
  }
  return S;
}

std::string globalName(const ScanParams &P, StringRef What) {
  return ("forge_scan_" + What + "_" + P.Tag).str();
}

} // namespace

Error checkScanParams(const ScanParams &P) {
  if (P.Items < 4 || P.Items > 32 || P.Items % 4 != 0)
    return makeError("the scan template takes 4, 8, ..., 32 items per thread, not {0}", P.Items);
  if (!isPowerOf2_32(P.MaxTiles) || P.MaxTiles > (1u << 24))
    return makeError("the scan template's tile capacity must be a power of two up to 2^24");
  if (P.Head.empty() || P.In.empty() || P.Out.empty() || P.Count.empty() || P.ElementType.empty())
    return makeError("the scan template needs the kernel's head, input, output, count and type");
  if (P.Tag.empty() || !all_of(P.Tag, [](char C) { return isAlnum(C) || C == '_'; }))
    return makeError("the scan template's tag '{0}' is not an identifier", P.Tag);
  return Error::success();
}

std::string scanPreamble(const ScanParams &P) {
  return formatv("// Look-back state of the scan kernel below (forge-port's scan template):\n"
                 "// one status word per tile, the tile ticket, the blocks finished and\n"
                 "// the launch epoch. The last block of a launch resets the ticket and\n"
                 "// advances the epoch, so statuses of earlier launches never look ready.\n"
                 "__device__ unsigned long long {0}[{1}u];\n"
                 "__device__ unsigned int {2}, {3}, {4};\n",
                 globalName(P, "status"), P.MaxTiles, globalName(P, "ticket"),
                 globalName(P, "done"), globalName(P, "epoch"))
      .str();
}

std::string scanKernel(const ScanParams &P) {
  ElementOps O = opsFor(P);
  const std::string Id = O.Identity;
  auto C = [&](StringRef A, StringRef B) { return combine(O, A, B); };
  std::string Status = globalName(P, "status"), Ticket = globalName(P, "ticket"),
              Done = globalName(P, "done"), Epoch = globalName(P, "epoch");
  std::string In = "(" + P.In + ")", Out = "(" + P.Out + ")";
  bool Exclusive = P.Order == ScanOrder::Exclusive;
  // The 16-byte vector of four elements.
  std::string Vec = P.FloatingPoint ? "float4" : P.Signed ? "int4" : "uint4";
  std::string Lane = P.FloatingPoint ? "float" : P.Signed ? "int" : "unsigned";
  auto Publish = [&](StringRef Kind, StringRef Value) {
    return formatv("((volatile unsigned long long *){0})[fs_tile] =\n"
                   "              ((unsigned long long)(((fs_epoch & 0x3fffffffu) << 2) | {1}u) "
                   "<< 32) |\n"
                   "              {2};",
                   Status, Kind, detail::replaceAll(O.ToBits, "@V", Value))
        .str();
  };

  std::string S;
  raw_string_ostream OS(S);
  OS << P.Head << " {\n";
  OS << formatv("  // forge-port scan template: the {0} scan ({1}) of {2} into {3}, {4} elements,\n"
                "  // in one pass with a decoupled look-back over tiles of blockDim * {5}.\n",
                scanOrderName(P.Order), scanOpName(P.Op), P.In, P.Out, P.Count, P.Items);
  OS << "  typedef " << P.ElementType << " fs_T;\n";
  OS << "  constexpr int fs_items = " << P.Items << ";\n";
  OS << R"(  __shared__ fs_T fs_warp_total[32];
  __shared__ fs_T fs_prefix_s;
  __shared__ unsigned fs_tile_s;
  const unsigned fs_threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned fs_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned fs_lane = fs_tid & 31u, fs_warp = fs_tid >> 5;
  const unsigned fs_warps = (fs_threads + 31u) >> 5;
  // The lanes of this thread's warp that exist (the last warp may be partial).
  const unsigned fs_width = min(32u, fs_threads - (fs_warp << 5));
  const unsigned fs_mask = fs_width == 32u ? 0xffffffffu : ((1u << fs_width) - 1u);
)";
  OS << "  const long long fs_signed_count = (long long)(" << P.Count << ");\n";
  OS << "  const unsigned long long fs_count = fs_signed_count > 0 ? (unsigned long long)fs_signed_count : 0ull;\n";
  OS << R"(  const unsigned long long fs_tile_elems = (unsigned long long)fs_threads * fs_items;
  const unsigned long long fs_tiles = (fs_count + fs_tile_elems - 1) / fs_tile_elems;
)";
  OS << "  if (fs_tiles > " << P.MaxTiles << "ull)\n    __trap(); // more tiles than statuses\n";
  OS << "  const unsigned fs_epoch = *(volatile unsigned *)&" << Epoch << ";\n";
  OS << "  // 16-byte loads and stores when both pointers are 16-byte aligned.\n"
       << "  const bool fs_vector = ((((unsigned long long)" << In << ") | ((unsigned long long)"
       << Out << ")) & 15ull) == 0;\n";
  OS << "  for (;;) {\n";
  OS << "    if (fs_tid == 0)\n      fs_tile_s = atomicAdd(&" << Ticket << ", 1u);\n";
  OS << R"(    __syncthreads();
    const unsigned fs_tile = fs_tile_s;
    if (fs_tile >= fs_tiles)
      break;
)";
  OS << expand(R"(    // Warp-striped: a warp's fs_width * fs_items elements are read in rounds
    // of 4 * fs_width, lane l taking elements 4l .. 4l + 3 of each round, so
    // every load and store of the warp covers consecutive addresses.
    // fs_v[4r + e] is element fs_wbase + 4 * fs_width * r + 4 * fs_lane + e.
    const unsigned long long fs_wbase = (unsigned long long)fs_tile * fs_tile_elems +
                                        (unsigned long long)fs_warp * (32ull * fs_items);
    const bool fs_whole = (unsigned long long)(fs_tile + 1) * fs_tile_elems <= fs_count;
    fs_T fs_v[fs_items];
@GROUPDECL    if (fs_vector && fs_whole) {
#pragma unroll
      for (int fs_r = 0; fs_r < fs_items / 4; ++fs_r) {
        const @VEC fs_q = *reinterpret_cast<const @VEC *>(
            &@IN[fs_wbase + 4ull * (fs_width * fs_r + fs_lane)]);
        fs_v[4 * fs_r] = (fs_T)fs_q.x;
        fs_v[4 * fs_r + 1] = (fs_T)fs_q.y;
        fs_v[4 * fs_r + 2] = (fs_T)fs_q.z;
        fs_v[4 * fs_r + 3] = (fs_T)fs_q.w;
      }
    } else {
#pragma unroll
      for (int fs_r = 0; fs_r < fs_items / 4; ++fs_r)
#pragma unroll
        for (int fs_e = 0; fs_e < 4; ++fs_e) {
          const unsigned long long fs_i = fs_wbase + 4ull * (fs_width * fs_r + fs_lane) + fs_e;
          fs_v[4 * fs_r + fs_e] = fs_i < fs_count ? @IN[fs_i] : @ID;
        }
    }
    // Each group of 4 scanned in registers, the groups of a round across the
    // warp with shuffles, the rounds chained by the warp's running total.
    fs_T fs_carry = @ID;
#pragma unroll
    for (int fs_r = 0; fs_r < fs_items / 4; ++fs_r) {
#pragma unroll
      for (int fs_e = 1; fs_e < 4; ++fs_e)
        fs_v[4 * fs_r + fs_e] = @C(fs_v[4 * fs_r + fs_e - 1], fs_v[4 * fs_r + fs_e]);
      fs_T fs_ws = fs_v[4 * fs_r + 3];
#pragma unroll
      for (unsigned fs_d = 1; fs_d < 32u; fs_d <<= 1) {
        const fs_T fs_o = __shfl_up_sync(fs_mask, fs_ws, fs_d);
        if (fs_lane >= fs_d)
          fs_ws = @C(fs_o, fs_ws);
      }
      fs_T fs_ex = __shfl_up_sync(fs_mask, fs_ws, 1);
      fs_ex = fs_lane == 0 ? fs_carry : @C(fs_carry, fs_ex);
@GROUPSET#pragma unroll
      for (int fs_e = 0; fs_e < 4; ++fs_e)
        fs_v[4 * fs_r + fs_e] = @C(fs_ex, fs_v[4 * fs_r + fs_e]);
      fs_carry = @C(fs_carry, __shfl_sync(fs_mask, fs_ws, fs_width - 1));
    }
    if (fs_lane == 0)
      fs_warp_total[fs_warp] = fs_carry;
    __syncthreads();
    if (fs_warp == 0) {
      fs_T fs_t = fs_lane < fs_warps ? fs_warp_total[fs_lane] : @ID;
#pragma unroll
      for (unsigned fs_d = 1; fs_d < 32u; fs_d <<= 1) {
        const fs_T fs_o = __shfl_up_sync(fs_mask, fs_t, fs_d);
        if (fs_lane >= fs_d)
          fs_t = @C(fs_o, fs_t);
      }
      fs_warp_total[fs_lane] = fs_t;
    }
    __syncthreads();
    const fs_T fs_aggregate = fs_warp_total[fs_warps - 1];
    // What precedes this warp's elements in the tile.
    const fs_T fs_excl = fs_warp > 0 ? fs_warp_total[fs_warp - 1] : @ID;
)", O, In, Id,
                {{"@VEC", Vec},
                 {"@GROUPDECL", Exclusive ? "    fs_T fs_group_excl[fs_items / 4]; // what precedes "
                                            "each group of 4 in the warp\n"
                                          : ""},
                 {"@GROUPSET", Exclusive ? "      fs_group_excl[fs_r] = fs_ex;\n" : ""}});
  OS << "    // Decoupled look-back: the first warp publishes the tile's aggregate (its\n"
        "    // inclusive prefix for tile 0), then reads 4 * fs_width predecessors at a\n"
        "    // time back to the nearest inclusive prefix, then publishes its own.\n";
  OS << "    if (fs_warp == 0) {\n";
  OS << "      fs_T fs_prefix = " << Id << ";\n";
  OS << "      if (fs_tile == 0) {\n        if (fs_lane == 0)\n          "
     << Publish("2", "fs_aggregate") << "\n      } else {\n";
  OS << "        if (fs_lane == 0)\n          " << Publish("1", "fs_aggregate") << "\n";
  OS << expand(R"(        long long fs_j0 = (long long)fs_tile - 1;
        for (;;) {
          // The window: 4 rings of fs_width statuses, ring q at distances
          // q * fs_width + lane (so each ring is one coalesced read).
          unsigned fs_kind[4];
          fs_T fs_val[4];
#pragma unroll
          for (int fs_q = 0; fs_q < 4; ++fs_q) {
            const long long fs_j = fs_j0 - (long long)(fs_q * fs_width + fs_lane);
            fs_kind[fs_q] = 2u; // before tile 0: a prefix of the identity
            fs_val[fs_q] = @ID;
            if (fs_j >= 0) {
              const unsigned long long fs_w = ((volatile unsigned long long *)@STATUS)[fs_j];
              const unsigned fs_hi = (unsigned)(fs_w >> 32);
              fs_kind[fs_q] = (fs_hi >> 2) == (fs_epoch & 0x3fffffffu) ? (fs_hi & 3u) : 0u;
              fs_val[fs_q] = @FROMBITS;
            }
          }
          // The nearest inclusive prefix; every status nearer than it must be
          // published, or the window is read again.
          int fs_stop_ring = 4;
          unsigned fs_stop_lane = 0;
#pragma unroll
          for (int fs_q = 3; fs_q >= 0; --fs_q) {
            const unsigned fs_p = __ballot_sync(fs_mask, fs_kind[fs_q] == 2u);
            if (fs_p) {
              fs_stop_ring = fs_q;
              fs_stop_lane = (unsigned)(__ffs(fs_p) - 1);
            }
          }
          fs_T fs_c = @ID;
          bool fs_unready = false;
#pragma unroll
          for (int fs_q = 0; fs_q < 4; ++fs_q)
            if (fs_q < fs_stop_ring || (fs_q == fs_stop_ring && fs_lane <= fs_stop_lane)) {
              fs_unready |= fs_kind[fs_q] == 0u;
              fs_c = @C(fs_val[fs_q], fs_c);
            }
          if (__any_sync(fs_mask, fs_unready)) {
#if __CUDA_ARCH__ >= 700
            __nanosleep(32);
#endif
            continue;
          }
          for (unsigned fs_d = 1; fs_d < fs_width; fs_d <<= 1) {
            const fs_T fs_o = __shfl_down_sync(fs_mask, fs_c, fs_d);
            if (fs_lane + fs_d < fs_width)
              fs_c = @C(fs_c, fs_o);
          }
          fs_prefix = @C(__shfl_sync(fs_mask, fs_c, 0), fs_prefix);
          if (fs_stop_ring < 4)
            break;
          fs_j0 -= 4ll * fs_width;
        }
)", O, In, Id, {{"@STATUS", Status}, {"@FROMBITS", detail::replaceAll(O.FromBits, "@U", "(unsigned)fs_w")}});
  OS << "        if (fs_lane == 0)\n          " << Publish("2", C("fs_prefix", "fs_aggregate"))
     << "\n";
  OS << "      }\n";
  OS << "      if (fs_lane == 0)\n        fs_prefix_s = fs_prefix;\n";
  OS << "    }\n";
  OS << "    __syncthreads();\n";
  OS << "    const fs_T fs_run = " << C("fs_prefix_s", "fs_excl") << ";\n";
  if (P.Order == ScanOrder::Inclusive) {
    OS << "#pragma unroll\n    for (int fs_k = 0; fs_k < fs_items; ++fs_k)\n"
       << "      fs_v[fs_k] = " << C("fs_run", "fs_v[fs_k]") << ";\n";
  } else {
    OS << "    // Exclusive: each element takes what precedes it.\n"
       << "#pragma unroll\n    for (int fs_r = 0; fs_r < fs_items / 4; ++fs_r) {\n"
       << "#pragma unroll\n      for (int fs_e = 3; fs_e > 0; --fs_e)\n"
       << "        fs_v[4 * fs_r + fs_e] = " << C("fs_run", "fs_v[4 * fs_r + fs_e - 1]") << ";\n"
       << "      fs_v[4 * fs_r] = " << C("fs_run", "fs_group_excl[fs_r]") << ";\n"
       << "    }\n";
  }
  OS << "    if (fs_vector && fs_whole) {\n#pragma unroll\n"
     << "      for (int fs_r = 0; fs_r < fs_items / 4; ++fs_r) {\n"
     << "        // __stwb: a store the compiler keeps whole (a plain one it splits).\n"
     << "        __stwb(reinterpret_cast<" << Vec << " *>(&" << Out
     << "[fs_wbase + 4ull * (fs_width * fs_r + fs_lane)]),\n"
     << "               make_" << Vec << "((" << Lane << ")fs_v[4 * fs_r], (" << Lane
     << ")fs_v[4 * fs_r + 1], (" << Lane << ")fs_v[4 * fs_r + 2],\n"
     << "                       (" << Lane << ")fs_v[4 * fs_r + 3]));\n"
     << "      }\n    } else {\n#pragma unroll\n"
     << "      for (int fs_r = 0; fs_r < fs_items / 4; ++fs_r)\n#pragma unroll\n"
     << "        for (int fs_e = 0; fs_e < 4; ++fs_e) {\n"
     << "          const unsigned long long fs_i = fs_wbase + 4ull * (fs_width * fs_r + fs_lane) + fs_e;\n"
     << "          if (fs_i < fs_count)\n            " << Out << "[fs_i] = fs_v[4 * fs_r + fs_e];\n"
     << "        }\n    }\n";
  OS << "    __syncthreads(); // the shared words are reused by the next tile\n";
  OS << "  }\n";
  OS << "  // The last block to finish resets the ticket and advances the epoch.\n";
  OS << "  if (fs_tid == 0) {\n";
  OS << "    __threadfence();\n";
  OS << "    if (atomicAdd(&" << Done << ", 1u) == gridDim.x * gridDim.y * gridDim.z - 1) {\n";
  OS << "      *(volatile unsigned *)&" << Ticket << " = 0u;\n";
  OS << "      *(volatile unsigned *)&" << Done << " = 0u;\n";
  OS << "      __threadfence();\n";
  OS << "      *(volatile unsigned *)&" << Epoch << " = fs_epoch + 1u;\n";
  OS << "    }\n";
  OS << "  }\n";
  OS << "}\n";
  return S;
}

} // namespace forge::templates

//===----------------------------------------------------------------------===//
// The scan as a kernel of its own (forge-port new)
//===----------------------------------------------------------------------===//

namespace forge::templates {

Expected<Instance> instantiateScan(const Request &R) {
  using namespace detail;
  if (Error E = checkShape(R, 1, "a scan"))
    return std::move(E);
  const ScalarInfo &T = scalarInfo(R.Type);
  if (T.Bytes != 4)
    return makeError("the scan template takes 4-byte elements (f32, i32, u32), not {0}", T.Dtype);
  ScanParams P;
  if (R.Operator == "+")
    P.Op = ScanOp::Add;
  else if (R.Operator == "max")
    P.Op = ScanOp::Max;
  else if (R.Operator == "min")
    P.Op = ScanOp::Min;
  else
    return makeError("the scan template scans with +, max or min, not '{0}'", R.Operator);
  P.Order = R.Inclusive ? ScanOrder::Inclusive : ScanOrder::Exclusive;
  P.ElementType = T.Cuda.str();
  P.FloatingPoint = T.Floating;
  P.Signed = T.Signed;
  Expected<std::string> NameOr = kernelName(R, "scan");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  P.Tag = Name;
  P.In = "in";
  P.Out = "out";
  P.Count = "n";
  P.Items = 16;
  P.Head = formatv("__global__ void {1}(const {0} *__restrict__ in, {0} *__restrict__ out, "
                   "long long n)",
                   T.Cuda, Name)
               .str();
  if (Error E = checkScanParams(P))
    return std::move(E);
  // The most tiles one launch may have, at the smallest block of the spec.
  const int64_t N = R.Shape[0];
  if (N > (int64_t)P.MaxTiles * 128 * P.Items)
    return makeError("the scan template scans at most {0} elements in one launch, not {1}",
                     (int64_t)P.MaxTiles * 128 * P.Items, N);

  Instance I = startInstance("scan", Name);
  std::string S = fileComment(
      R, "scan",
      {"One pass with a decoupled look-back (Merrill and Garland, 2016): blocks take tiles of "
       "blockDim * 16 elements from a ticket counter, scan them with coalesced 16-byte loads, "
       "warp shuffles and shared memory, and find their tile's prefix by looking back at the "
       "published aggregates of their predecessors. Any grid and block work; a few waves of "
       "resident blocks is fastest.",
       "The look-back state is __device__ variables of this file, reset by the last block of "
       "every launch: launches of this kernel must not overlap in time (use one stream)."});
  S += "#include <cuda_runtime.h>\n\n";
  S += scanPreamble(P) + "\n";
  S += scanKernel(P) + "\n";
  S += formatv(R"(
// Scans in[0, n) into out[0, n) on the current device. The grid is a few
// waves of the device's SMs (the tiles come from a ticket, so any grid
// scans everything once).
inline cudaError_t forge_{1}(const {0} *in, {0} *out, long long n,
                              cudaStream_t stream = 0) {
{2}
  // The spec's tunables, by name (forge-port tune writes its choice here).
  const int BLOCK = 512;
  const int WAVES = 4;
  {1}<<<sms * WAVES, BLOCK, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}
)",
               T.Cuda, Name, deviceQueryLines())
           .str();
  I.Source = std::move(S);
  I.Spec = {{"kernel", Name},
            {"sizes", {{"N", N}, {"SMS", R.SMs}}},
            {"buffers",
             {inBuffer("in", R.Type, "N"), outBuffer("out", R.Type, "N", T.Floating ? 1e-5 : 0)}},
            {"scalars", {scalarArg("n", Scalar::I64, "N")}},
            {"args", {"in", "out", "n"}},
            {"grid", "SMS * WAVES"},
            {"block", "BLOCK"},
            {"tunables", {tunable("BLOCK", {128, 256, 512, 1024}, 512),
                          tunable("WAVES", {1, 2, 4, 8}, 4)}},
            {"bytes", formatv("2 * {0} * N", T.Bytes).str()},
            {"flops", P.Op == ScanOp::Add && T.Floating ? "N" : "0"},
            {"notes",
             {"forge-port new: the scan template, 16 elements a thread; the grid is WAVES waves "
              "of the SMs (SMS, the target's)"}}};
  I.Notes.push_back("16 elements per thread; 4-byte elements only (a status word packs the "
                    "value with its kind and launch epoch)");
  return I;
}

std::vector<Request> scanSamples() {
  auto Make = [](StringRef Name, Scalar T, StringRef Op, bool Inclusive, int64_t N) {
    Request R;
    R.Kind = OpKind::Scan;
    R.Name = Name.str();
    R.Type = T;
    R.Operator = Op.str();
    R.Inclusive = Inclusive;
    R.Shape = {N};
    return R;
  };
  return {Make("scan_sum_f32", Scalar::F32, "+", true, 1000003),
          Make("scan_max_i32", Scalar::I32, "max", true, 77777),
          Make("scan_min_u32_exclusive", Scalar::U32, "min", false, 4099),
          Make("scan_sum_i32_exclusive", Scalar::I32, "+", false, 1)};
}

} // namespace forge::templates
