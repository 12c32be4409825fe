//===- Templates/Gemm.cpp - A tiled GEMM (FMA units; tf32, f16, bf16 mma) ===//
///
/// \file
/// The generated text is ordinary CUDA with comments. Every local is named
/// fg_* and the tile sizes are the kernel's template parameters, so the
/// only file-scope names are the kernel and its wrapper (both carry the
/// request's Name).
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/Gemm.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <climits>
#include <cmath>

using namespace llvm;

namespace forge::templates {

namespace {

/// The element type's spellings in the generated text.
struct Elem {
  std::string T;    ///< "float"
  std::string V;    ///< the 16-byte vector, "float4"
  std::string Fma;  ///< "fmaf"
  int VW;           ///< elements per 16 bytes
  int Bytes;
  StringRef Dtype;
};

Elem elemFor(Scalar S) {
  if (S == Scalar::F64)
    return {"double", "double2", "fma", 2, 8, "f64"};
  return {"float", "float4", "fmaf", 4, 4, "f32"};
}

const char *const Xyzw[] = {"x", "y", "z", "w"};

/// Dst (with @E for the element's index) = the VW components of Src, one
/// statement a line.
std::string unpack(StringRef Dst, StringRef Src, const Elem &E, StringRef Indent) {
  std::string S;
  for (int I = 0; I < E.VW; ++I)
    S += formatv("{0}{1} = {2}.{3};\n", Indent, detail::replaceAll(Dst.str(), "@E", std::to_string(I)),
                 Src, Xyzw[I])
             .str();
  return S;
}

/// make_float4(Elem(0), ..., Elem(3)) with @E in Elem.
std::string pack(StringRef Elem_, const Elem &E) {
  std::vector<std::string> Parts;
  for (int I = 0; I < E.VW; ++I)
    Parts.push_back(detail::replaceAll(Elem_.str(), "@E", std::to_string(I)));
  return "make_" + E.V + "(" + join(Parts, ", ") + ")";
}

/// One operand's slab loads (global -> registers) and stores (registers
/// -> shared), for op(X) of a tile whose outer extent is Extent (M for A,
/// N for B) at offset Origin.
///
/// KContiguous: X's rows run along k (A, or B transposed): each thread
/// loads VW consecutive k of one row and stores them transposed, one
/// element to each of VW k-rows of the shared slab. Otherwise X's rows run
/// along the outer dimension (A transposed, or B): VW consecutive m (n) of
/// one k, stored as one vector.
struct Operand {
  StringRef Name;   ///< "A" or "B"
  StringRef Ptr;    ///< the batch's matrix, "fg_A"
  StringRef Regs;   ///< "fg_ra"
  StringRef Shared; ///< "fg_as"
  StringRef Vecs;   ///< "A_VECS"
  StringRef Tile;   ///< "BM"
  StringRef Extent; ///< "M"
  StringRef Origin; ///< "fg_m0"
  StringRef Vec;    ///< the 16-byte path's flag, "fg_avec"
  bool KContiguous;
};

/// Text with every line but the #pragma ones indented by two more columns.
std::string indented(StringRef Text) {
  std::string S;
  SmallVector<StringRef, 64> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (!Lines[I].empty() && !Lines[I].starts_with("#"))
      S += "  ";
    S += Lines[I].str();
    if (I + 1 < Lines.size())
      S += "\n";
  }
  return S;
}

//===--- Pieces all three kernels share ----------------------------------===//

/// The spellings of op(A) and op(B) in comments ("A" or "A^T") and the
/// shapes of the matrices as stored.
struct OpNames {
  const char *A, *AShape, *B, *BShape;
};

OpNames opNames(const Request &R) {
  return {R.TransA ? "A^T" : "A", R.TransA ? "K x M" : "M x K", R.TransB ? "B^T" : "B",
          R.TransB ? "N x K" : "K x N"};
}

/// The kernels' template parameters, as the wrapper's launch names them,
/// and their block sizes: the FMA kernel's and the tensor-core kernels'.
const char *const FmaArgs = "BM, BN, BK, WM, WN, TM, TN, MINB";
const char *const FmaThreads = "(BM / TM) * (BN / TN)";
const char *const MmaArgs = "BM, BN, BK, WM, WN, MINB";
const char *const MmaThreads = "(BM / WM) * (BN / WN) * 32";

/// The kernel's template head and signature: template parameters Args,
/// Threads threads a block, matrices of T, alpha and beta of ST.
std::string kernelSignature(StringRef Args, StringRef Threads, StringRef Name, StringRef T,
                            StringRef ST) {
  return formatv(R"(template <int {0}>
__global__ void __launch_bounds__({1}, MINB) {2}(
    const {3} *__restrict__ A, const {3} *__restrict__ B, {3} *__restrict__ C, int M, int N,
    int K, int batch, {4} alpha, {4} beta) {{
)",
                 detail::replaceAll(Args.str(), ", ", ", int "), Threads, Name, T, ST)
      .str();
}

/// The check of the launch's block, after the shared slabs.
const char *const BlockCheckText =
    "  if (blockDim.x != THREADS || blockDim.y != 1 || blockDim.z != 1)\n"
    "    __trap(); // launched with a block other than the template's\n";

/// The thread's index and its warp's, and (after the kernel's own
/// coordinates) the tile and slab counts.
const char *const ThreadIdText = "  const int fg_tid = threadIdx.x;\n"
                                 "  const int fg_warp = fg_tid / 32, fg_lane = fg_tid % 32;\n";
const char *const TileCountText =
    "  const int fg_mtiles = (M + BM - 1) / BM, fg_ntiles = (N + BN - 1) / BN;\n"
    "  const int fg_slabs = (K + BK - 1) / BK;\n";

/// The flags of the vector paths: fg_avec and fg_bvec, op(A)'s and
/// op(B)'s rows whole vectors of VecMul elements at a 16-byte aligned
/// pointer; fg_cvec, C's rows in accesses of CMul elements and CBytes
/// bytes.
std::string vecFlagsText(const Request &R, StringRef VecMul, StringRef CMul, int CBytes) {
  auto Aligned = [](StringRef P, int Bytes) {
    return ("(((unsigned long long)" + P + ") & " + std::to_string(Bytes - 1) + "ull) == 0").str();
  };
  return formatv("  const bool fg_avec = {0} % {1} == 0 && {2};\n"
                 "  const bool fg_bvec = {3} % {1} == 0 && {4};\n"
                 "  const bool fg_cvec = N % {5} == 0 && {6};\n",
                 R.TransA ? "M" : "K", VecMul, Aligned("A", 16), R.TransB ? "K" : "N",
                 Aligned("B", 16), CMul, Aligned("C", CBytes))
      .str();
}

/// A product's matrices: fg_A and fg_B (AB, when given, declares them
/// instead) and fg_C, of T.
std::string batchPointers(StringRef T, StringRef AB = "") {
  std::string S = AB.str();
  if (AB.empty())
    S = formatv("    const {0} *fg_A = A + (long long)fg_b * M * K;\n"
                "    const {0} *fg_B = B + (long long)fg_b * K * N;\n",
                T)
            .str();
  return S + formatv("    {0} *fg_C = C + (long long)fg_b * M * N;\n", T).str();
}

/// The loops over the products (Pointers: batchPointers) and over the
/// tiles the grid does not cover, up to the tile's origin fg_m0, fg_n0.
std::string loopsOpenText(StringRef Pointers) {
  return "  for (int fg_b = blockIdx.z; fg_b < batch; fg_b += gridDim.z) {\n" + Pointers.str() +
         R"(    for (int fg_mt = blockIdx.y; fg_mt < fg_mtiles; fg_mt += gridDim.y)
      for (int fg_nt = blockIdx.x; fg_nt < fg_ntiles; fg_nt += gridDim.x) {
        const int fg_m0 = fg_mt * BM, fg_n0 = fg_nt * BN;
)";
}

/// A tile's register-staged, double-buffered slab loop up to the
/// multiplication: fg_ra and fg_rb of RegType (RegDims after each name)
/// take the slab in flight, fg_load (Loads, the body) fills them from slab
/// fg_k0; per slab, Stores copies them to buffer fg_buf of shared memory,
/// then the barrier and the next slab's loads. The caller goes on with the
/// multiplication of buffer fg_buf and closes the loop.
std::string slabLoopText(StringRef RegType, StringRef RegDims, StringRef Loads,
                         StringRef Stores) {
  std::string S = R"(        // The slab in flight: global loads land here while the previous
        // slab is multiplied.
)";
  S += formatv("        {0} fg_ra[A_VECS]{1}, fg_rb[B_VECS]{1};\n", RegType, RegDims).str();
  S += R"(        int fg_k0 = 0;
        // Loads slab fg_k0 into fg_ra and fg_rb: a 16-byte load where the
        // vector is whole and aligned, guarded elements (zero outside) else.
        auto fg_load = [&]() {
)";
  S += Loads;
  S += R"(        };
        fg_load();
        for (int fg_s = 0; fg_s < fg_slabs; ++fg_s, ++fg_phase) {
          const int fg_buf = fg_phase & 1;
)";
  S += Stores;
  S += R"(          // The only barrier of a slab: the stores above are seen by all,
          // and every warp has finished the slab before last, whose buffer
          // the next iteration overwrites.
          __syncthreads();
          if (fg_s + 1 < fg_slabs) {
            fg_k0 += BK;
            fg_load(); // in flight during the multiplication below
          }
)";
  return S;
}

std::string loadText(const Operand &O, const Elem &E) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "#pragma unroll\n";
  OS << "        for (int fg_i = 0; fg_i < " << O.Vecs << "; ++fg_i) {\n";
  OS << "          const int fg_c = fg_tid + fg_i * THREADS;\n";
  if (O.KContiguous) {
    OS << "          // Row fg_r of the tile, k from fg_kc: " << O.Name << "[o][k] at o * K + k.\n";
    OS << "          const int fg_r = fg_c / (BK / VW), fg_kc = (fg_c % (BK / VW)) * VW;\n";
    OS << "          const int fg_o = " << O.Origin << " + fg_r, fg_k = fg_k0 + fg_kc;\n";
    OS << "          const fg_T *fg_p = " << O.Ptr << " + (long long)fg_o * K + fg_k;\n";
    OS << "          if (" << O.Vec << " && fg_o < " << O.Extent << " && fg_k + VW <= K) {\n";
  } else {
    OS << "          // k-row fg_kr of the slab, from fg_oc: " << O.Name << "[k][o] at k * "
       << O.Extent << " + o.\n";
    OS << "          const int fg_kr = fg_c / (" << O.Tile << " / VW), fg_oc = (fg_c % (" << O.Tile
       << " / VW)) * VW;\n";
    OS << "          const int fg_k = fg_k0 + fg_kr, fg_o = " << O.Origin << " + fg_oc;\n";
    OS << "          const fg_T *fg_p = " << O.Ptr << " + (long long)fg_k * " << O.Extent
       << " + fg_o;\n";
    OS << "          if (" << O.Vec << " && fg_k < K && fg_o + VW <= " << O.Extent << ") {\n";
  }
  OS << "            const fg_V fg_q = *reinterpret_cast<const fg_V *>(fg_p);\n";
  OS << unpack((O.Regs + "[fg_i][@E]").str(), "fg_q", E, "            ");
  OS << "          } else {\n";
  OS << "#pragma unroll\n";
  OS << "            for (int fg_e = 0; fg_e < VW; ++fg_e)\n";
  if (O.KContiguous)
    OS << "              " << O.Regs << "[fg_i][fg_e] = fg_o < " << O.Extent
       << " && fg_k + fg_e < K ? fg_p[fg_e] : (fg_T)0;\n";
  else
    OS << "              " << O.Regs << "[fg_i][fg_e] = fg_k < K && fg_o + fg_e < " << O.Extent
       << " ? fg_p[fg_e] : (fg_T)0;\n";
  OS << "          }\n";
  OS << "        }\n";
  return S;
}

std::string storeText(const Operand &O, const Elem &E) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "#pragma unroll\n";
  OS << "        for (int fg_i = 0; fg_i < " << O.Vecs << "; ++fg_i) {\n";
  OS << "          const int fg_c = fg_tid + fg_i * THREADS;\n";
  if (O.KContiguous) {
    OS << "          // Transposed: one element to each of VW k-rows (the row pad keeps\n"
          "          // the warp's stores on distinct banks).\n";
    OS << "          const int fg_r = fg_c / (BK / VW), fg_kc = (fg_c % (BK / VW)) * VW;\n";
    OS << "#pragma unroll\n";
    OS << "          for (int fg_e = 0; fg_e < VW; ++fg_e)\n";
    OS << "            " << O.Shared << "[fg_buf][fg_kc + fg_e][fg_r] = " << O.Regs
       << "[fg_i][fg_e];\n";
  } else {
    OS << "          const int fg_kr = fg_c / (" << O.Tile << " / VW), fg_oc = (fg_c % (" << O.Tile
       << " / VW)) * VW;\n";
    OS << "          *reinterpret_cast<fg_V *>(&" << O.Shared << "[fg_buf][fg_kr][fg_oc]) =\n"
       << "              " << pack((O.Regs + "[fg_i][@E]").str(), E) << ";\n";
  }
  OS << "        }\n";
  return S;
}

std::string kernelText(const Request &R, StringRef Name, const Elem &E) {
  Operand A{"A", "fg_A", "fg_ra", "fg_as", "A_VECS", "BM", "M", "fg_m0", "fg_avec", !R.TransA};
  Operand B{"B", "fg_B", "fg_rb", "fg_bs", "B_VECS", "BN", "N", "fg_n0", "fg_bvec", R.TransB};
  std::string S;
  raw_string_ostream OS(S);
  const OpNames Op = opNames(R);
  OS << formatv(R"(// C = alpha * op(A) * op(B) + beta * C, row-major, for `batch` products:
// op(A) = {0} (A is {1}), op(B) = {2} (B is {3}), C is M x N; product b
// reads A + b * M * K, B + b * K * N and writes C + b * M * N. C is not read
// when beta == 0. The tile sizes are template parameters (see the spec's
// tunables): a block computes BM x BN of C, a warp WM x WN, a thread TM x TN;
// MINB blocks of an SM at least share its registers (__launch_bounds__).
// Launch it with (BM / TM) * (BN / TN) threads; any grid is correct (blocks
// loop over the tiles and products their grid does not cover).
)",
                Op.A, Op.AShape, Op.B, Op.BShape);
  OS << kernelSignature(FmaArgs, FmaThreads, Name, E.T, E.T);
  OS << "  typedef " << E.T << " fg_T;\n";
  OS << "  typedef " << E.V << " fg_V; // 16 bytes: VW elements\n";
  OS << "  constexpr int VW = " << E.VW << ";\n";
  OS << R"(  constexpr int THREADS = (BM / TM) * (BN / TN);
  // A warp's lanes: LANES_M x LANES_N, each with TM x TN elements of C in
  // groups of VW x VW; a thread's groups are SUB_M rows (SUB_N columns)
  // apart, so that lanes next to each other read adjacent 16-byte vectors.
  constexpr int LANES_M = WM / TM, LANES_N = WN / TN;
  constexpr int WARPS_N = BN / WN;
  constexpr int SUB_M = LANES_M * VW, SUB_N = LANES_N * VW;
  // 16-byte vectors of each operand's slab a thread loads.
  constexpr int A_VECS = BM * BK / (VW * THREADS);
  constexpr int B_VECS = BN * BK / (VW * THREADS);
  static_assert(BM % WM == 0 && BN % WN == 0, "the warps must tile the block");
  static_assert(WM % TM == 0 && WN % TN == 0 && LANES_M * LANES_N == 32,
                "a warp's 32 lanes must tile its WM x WN");
  static_assert(TM % VW == 0 && TN % VW == 0 && BK % VW == 0,
                "thread tiles and the slab come in 16-byte vectors");
  static_assert(THREADS <= 1024, "at most 1024 threads");
  static_assert(A_VECS * VW * THREADS == BM * BK && B_VECS * VW * THREADS == BN * BK,
                "every thread loads the same number of vectors of a slab");
  static_assert(2 * BK * (BM + BN + 2 * VW) * sizeof(fg_T) <= 49152,
                "the two slabs must fit in 48 KiB of static shared memory");
  // Two slabs of op(A) (k-major, fg_as[k][m]) and op(B) (fg_bs[k][n]). A
  // row is padded by one vector: the transposed stores of a warp then fall
  // on distinct banks, and rows stay 16-byte aligned.
  __shared__ __align__(16) fg_T fg_as[2][BK][BM + VW];
  __shared__ __align__(16) fg_T fg_bs[2][BK][BN + VW];
)";
  OS << BlockCheckText << "\n" << ThreadIdText;
  OS << R"(  const int fg_lm = fg_lane / LANES_N, fg_ln = fg_lane % LANES_N;
  // The first row and column of this thread's elements in the tile.
  const int fg_tm = (fg_warp / WARPS_N) * WM + fg_lm * VW;
  const int fg_tn = (fg_warp % WARPS_N) * WN + fg_ln * VW;
)";
  OS << TileCountText;
  OS << R"(  // 16-byte accesses need 16-byte aligned rows: an aligned pointer and a
  // leading dimension that is a multiple of VW (which keeps every
  // product's matrix aligned too).
)";
  OS << vecFlagsText(R, "VW", "VW", 16);
  OS << R"(  const bool fg_beta0 = beta == (fg_T)0;
  // Slabs this block has multiplied over all its tiles: the buffer of the
  // next one alternates across tiles too, so a new tile's first stores never
  // hit the buffer a slower warp may still be reading.
  unsigned fg_phase = 0;

)";
  OS << loopsOpenText(batchPointers("fg_T"));
  OS << R"(        fg_T fg_acc[TM][TN];
#pragma unroll
        for (int fg_i = 0; fg_i < TM; ++fg_i)
#pragma unroll
          for (int fg_j = 0; fg_j < TN; ++fg_j)
            fg_acc[fg_i][fg_j] = (fg_T)0;
)";
  OS << slabLoopText("fg_T", "[VW]", indented(loadText(A, E)) + indented(loadText(B, E)),
                     indented(storeText(A, E)) + indented(storeText(B, E)));
  OS << R"(#pragma unroll
          for (int fg_k = 0; fg_k < BK; ++fg_k) {
            fg_T fg_a[TM], fg_b[TN];
#pragma unroll
            for (int fg_g = 0; fg_g < TM / VW; ++fg_g) {
              const fg_V fg_q =
                  *reinterpret_cast<const fg_V *>(&fg_as[fg_buf][fg_k][fg_tm + fg_g * SUB_M]);
)";
  OS << unpack("fg_a[fg_g * VW + @E]", "fg_q", E, "              ");
  OS << R"(            }
#pragma unroll
            for (int fg_g = 0; fg_g < TN / VW; ++fg_g) {
              const fg_V fg_q =
                  *reinterpret_cast<const fg_V *>(&fg_bs[fg_buf][fg_k][fg_tn + fg_g * SUB_N]);
)";
  OS << unpack("fg_b[fg_g * VW + @E]", "fg_q", E, "              ");
  OS << R"(            }
#pragma unroll
            for (int fg_i = 0; fg_i < TM; ++fg_i)
#pragma unroll
              for (int fg_j = 0; fg_j < TN; ++fg_j)
)";
  OS << "                fg_acc[fg_i][fg_j] = " << E.Fma
     << "(fg_a[fg_i], fg_b[fg_j], fg_acc[fg_i][fg_j]);\n";
  OS << R"(          }
        }

        // C = alpha * acc + beta * C: one 16-byte access per group of VW
        // columns where it is whole and aligned, guarded elements else.
        // (alpha first: fewer registers live across the reads of C.)
#pragma unroll
        for (int fg_i = 0; fg_i < TM; ++fg_i)
#pragma unroll
          for (int fg_j = 0; fg_j < TN; ++fg_j)
            fg_acc[fg_i][fg_j] *= alpha;
#pragma unroll
        for (int fg_i = 0; fg_i < TM; ++fg_i) {
          const int fg_m = fg_m0 + fg_tm + (fg_i / VW) * SUB_M + fg_i % VW;
          if (fg_m >= M)
            continue;
          fg_T *fg_row = fg_C + (long long)fg_m * N;
#pragma unroll
          for (int fg_g = 0; fg_g < TN / VW; ++fg_g) {
            const int fg_n = fg_n0 + fg_tn + fg_g * SUB_N;
            fg_T *fg_p = fg_row + fg_n;
            if (fg_cvec && fg_n + VW <= N) {
)";
  OS << "              fg_V fg_q = " << pack("fg_acc[fg_i][fg_g * VW + @E]", E) << ";\n";
  OS << "              if (!fg_beta0) {\n";
  OS << "                const fg_V fg_o = *reinterpret_cast<const fg_V *>(fg_p);\n";
  for (int I = 0; I < E.VW; ++I)
    OS << formatv("                fg_q.{0} = {1}(beta, fg_o.{0}, fg_q.{0});\n", Xyzw[I], E.Fma);
  OS << "              }\n";
  OS << "              *reinterpret_cast<fg_V *>(fg_p) = fg_q;\n";
  OS << R"(            } else {
#pragma unroll
              for (int fg_e = 0; fg_e < VW; ++fg_e)
                if (fg_n + fg_e < N) {
                  const fg_T fg_v = fg_acc[fg_i][fg_g * VW + fg_e];
)";
  OS << "                  fg_p[fg_e] = fg_beta0 ? fg_v : " << E.Fma << "(beta, fg_p[fg_e], fg_v);\n";
  OS << R"(                }
            }
          }
        }
      }
  }
}
)";
  return S;
}

/// The refusals all kernels share; the kernel's name.
Expected<std::string> checkGemmRequest(const Request &R) {
  using namespace detail;
  if (R.Kind != OpKind::Gemm)
    return makeError("the gemm template computes a gemm, not a {0}", opKindName(R.Kind));
  if (Error Err = checkShape(R, 3, "a gemm"))
    return std::move(Err);
  if (R.Type != Scalar::F32 && R.Type != Scalar::F64 && R.Type != Scalar::F16 &&
      R.Type != Scalar::BF16)
    return makeError("the gemm template takes f32, f64, f16 or bf16 elements, not {0}",
                     scalarInfo(R.Type).Dtype);
  const int64_t M = R.Shape[0], N = R.Shape[1], K = R.Shape[2];
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX)
    return makeError("the gemm template takes extents up to {0} (int), not {1} x {2} x {3}", INT_MAX,
                     M, N, K);
  if (R.Batch < 1 || R.Batch > INT_MAX)
    return makeError("the gemm template takes 1 to {0} products, not {1}", INT_MAX, R.Batch);
  return kernelName(R, "gemm");
}

/// One kernel's refusals, in this order: checkGemmRequest's, an element
/// type the kernel does not take (unless TypeOk; TypeMsg names the type as
/// {0}), then CheckConfig's. The kernel's name.
Expected<std::string> checkKernelRequest(const Request &R, bool TypeOk, const char *TypeMsg,
                                         function_ref<Error()> CheckConfig) {
  Expected<std::string> NameOr = checkGemmRequest(R);
  if (!NameOr)
    return NameOr.takeError();
  if (!TypeOk)
    return makeError(TypeMsg, scalarInfo(R.Type).Dtype);
  if (Error Err = CheckConfig())
    return std::move(Err);
  return NameOr;
}

/// The host wrapper forge_<Name> of all kernels: argument checks, then one
/// launch of Name<Args> on a grid of BM x BN tiles (at most 65535 along y
/// and z) with Threads threads a block. T is the matrices' element, ST
/// alpha's and beta's; How is a comment line on the arithmetic ("" for the
/// FMA units); Constants defines the tile sizes the launch names (the
/// spec's defaults, which tune rewrites).
std::string wrapperText(const Request &R, const std::string &Name, StringRef T, StringRef ST,
                        int VW, StringRef How, StringRef Constants, StringRef Args,
                        StringRef Threads) {
  const bool Batched = R.Batch > 1;
  const std::string Batch = Batched ? "int batch, " : "";
  const OpNames Op = opNames(R);
  std::string S = formatv(R"(
// C = alpha * op(A) * op(B) + beta * C{8} on the current
// device, op(A) = {2}, op(B) = {3} (row-major; A is {4}, B is {5}, C is
// M x N{9}). C is not read when beta == 0. Any pointers (16-byte
// aligned ones with a multiple of {6} as leading dimension take the vector
// path). The configuration below is the spec's default; forge-port tune
// writes tuned values there.{11}
inline cudaError_t forge_{1}(const {0} *A, const {0} *B, {0} *C, int M, int N, int K,
{10}{7}{12} alpha, {12} beta, cudaStream_t stream = 0) {{
)",
                          T, Name, Op.A, Op.B, Op.AShape, Op.BShape, VW, Batch,
                          Batched ? " for each of the `batch`\n// products" : "",
                          Batched ? "; product b at A + b * M * K, B + b * K * N, C + b * M * N"
                                  : "",
                          // The continuation line under the first parameter.
                          std::string(("inline cudaError_t forge_" + Name + "(").size(), ' '),
                          How, ST)
                      .str();
  if (!Batched)
    S += "  const int batch = 1;\n";
  S += formatv(R"(  if (M < 0 || N < 0 || K < 0 || batch < 0)
    return cudaErrorInvalidValue;
  if (M == 0 || N == 0 || batch == 0)
    return cudaSuccess;
  constexpr int {0};
  // One block per BM x BN tile of C and one z-slice per product, at most
  // 65535 along y and z (the blocks loop over the rest). The grid is
  // written in the launch so that tuned tile sizes reach it too.
  {1}<{2}><<<
      dim3((N + BN - 1) / BN, (M + BM - 1) / BM < 65535 ? (M + BM - 1) / BM : 65535,
           batch < 65535 ? batch : 65535),
      {3}, 0, stream>>>(A, B, C, M, N, K, batch, alpha, beta);
  return cudaGetLastError();
}
)",
               Constants, Name, Args, Threads)
           .str();
  return S;
}

/// The spec's parts all kernels share, up to the block: the kernel, its
/// template arguments (Args, as the launch names them), the sizes, the
/// buffers (C's is CBuf), the scalars (alpha 1 and beta 0.5 of AlphaType),
/// the arguments, the grid and the block (Threads).
Json gemmSpecHead(const Request &R, const std::string &Name, StringRef Args, Json CBuf,
                  Scalar AlphaType, StringRef Threads) {
  using namespace detail;
  SmallVector<StringRef, 8> TemplateArgs;
  Args.split(TemplateArgs, ", ");
  std::vector<std::string> ArgNames(TemplateArgs.begin(), TemplateArgs.end());
  return {
      {"kernel", Name},
      {"template_args", ArgNames},
      {"sizes", {{"M", R.Shape[0]}, {"N", R.Shape[1]}, {"K", R.Shape[2]}, {"BATCH", R.Batch}}},
      {"buffers",
       {inBuffer("A", R.Type, "BATCH * M * K"), inBuffer("B", R.Type, "BATCH * K * N"), CBuf}},
      {"scalars",
       {scalarArg("M", Scalar::I32, "M"), scalarArg("N", Scalar::I32, "N"),
        scalarArg("K", Scalar::I32, "K"), scalarArg("batch", Scalar::I32, "BATCH"),
        scalarArg("alpha", AlphaType, 1.0), scalarArg("beta", AlphaType, 0.5)}},
      {"args", {"A", "B", "C", "M", "N", "K", "batch", "alpha", "beta"}},
      {"grid", {"ceil_div(N, BN)", "min(ceil_div(M, BM), 65535)", "min(BATCH, 65535)"}},
      {"block", Threads.str()}};
}

/// The spec's bytes (of Bytes-byte elements) and flops.
void addGemmCost(Json &Spec, int Bytes) {
  Spec["bytes"] = std::to_string(Bytes) + " * BATCH * (M * K + K * N + 2 * M * N)";
  Spec["flops"] = "2 * BATCH * M * N * K";
}

/// The spec's notes on the grid and on beta.
const char *const GridNote = "the grid is one block per BM x BN tile of C and one z-slice per "
                             "product, at most 65535 along y and z (blocks loop over the rest)";
const char *const BetaNote =
    "beta is 0.5 so that the check covers the read of C; with beta 0, C is not read";

} // namespace

GemmConfig defaultGemmConfig(Scalar T) {
  GemmConfig C;
  if (T == Scalar::F64) {
    C.BM = 128, C.BN = 64, C.BK = 8;
    C.WM = 32, C.WN = 32;
    C.TM = 8, C.TN = 4;
    // 140 registers: capped at 128 for two blocks it spills.
    C.MinBlocks = 1;
  }
  return C;
}

Error checkGemmConfig(const GemmConfig &C, Scalar T) {
  const Elem E = elemFor(T);
  for (int V : {C.BM, C.BN, C.BK, C.WM, C.WN, C.TM, C.TN})
    if (V <= 0)
      return makeError("the gemm template's tile sizes must be positive");
  if (C.BM % C.WM || C.BN % C.WN)
    return makeError("the gemm template's warp tile {0} x {1} must divide the block tile {2} x {3}",
                     C.WM, C.WN, C.BM, C.BN);
  if (C.WM % C.TM || C.WN % C.TN || (C.WM / C.TM) * (C.WN / C.TN) != 32)
    return makeError("the gemm template's warp tile {0} x {1} must be 32 thread tiles of {2} x {3}",
                     C.WM, C.WN, C.TM, C.TN);
  if (C.TM % E.VW || C.TN % E.VW || C.BK % E.VW)
    return makeError("the gemm template's {0} thread tiles and slab come in vectors of {1}: "
                     "TM, TN and BK must be multiples of {1}",
                     E.Dtype, E.VW);
  if (C.threads() > 1024)
    return makeError("the gemm template's block would have {0} threads, more than 1024",
                     C.threads());
  if ((C.BM * C.BK) % (E.VW * C.threads()) || (C.BN * C.BK) % (E.VW * C.threads()))
    return makeError("the gemm template's {0} threads cannot share the loads of a {1} x {2} and a "
                     "{2} x {3} slab evenly (16-byte vectors)",
                     C.threads(), C.BM, C.BK, C.BN);
  if (C.MinBlocks < 1 || C.threads() * C.MinBlocks > 2048)
    return makeError("the gemm template's {0} blocks of {1} threads cannot be resident on one SM "
                     "(2048 threads)",
                     C.MinBlocks, C.threads());
  int64_t Shared = 2LL * C.BK * (C.BM + C.BN + 2 * E.VW) * E.Bytes;
  if (Shared > 49152)
    return makeError("the gemm template's two slabs need {0} bytes of shared memory, more than "
                     "49152",
                     Shared);
  return Error::success();
}

GemmConfig defaultGemmConfigFor(const Request &R) {
  GemmConfig C = defaultGemmConfig(R.Type);
  if (R.Type != Scalar::F32 || R.Shape.size() != 3 || R.Batch > 1)
    return C;
  // 128 x 256 tiles, warps 128 x 32, threads 8 x 16, one block an SM: at
  // 4096^3 on an H100, 3055 us against 3237 us for 128 x 128 (87.0 % and
  // 82.1 % of cublasSgemm's 2657 us; utils/gpu/gemm-sweep.sh's exhaustive
  // sweep of the 138 large-tile configurations, 2026-12-07). Taken only
  // for one product whose tiles still fill two waves of the SMs, one block
  // each (batches keep the measured 128 x 128: 93 % of cuBLAS).
  const int64_t M = R.Shape[0], N = R.Shape[1];
  const int64_t Tiles = ((M + 127) / 128) * ((N + 255) / 256);
  if (Tiles >= 2 * int64_t(R.SMs > 0 ? R.SMs : 132)) {
    C.BM = 128, C.BN = 256, C.BK = 8;
    C.WM = 128, C.WN = 32;
    C.TM = 8, C.TN = 16;
    C.MinBlocks = 1;
  }
  return C;
}

Expected<Instance> instantiateGemm(const Request &R) {
  if (R.Type == Scalar::F16 || R.Type == Scalar::BF16)
    return instantiateGemmHalf(R, defaultGemmHalfConfig());
  if (R.AllowLowerPrecision && R.Type == Scalar::F32)
    return instantiateGemmTf32(R, defaultGemmTf32Config());
  return instantiateGemm(R, defaultGemmConfigFor(R));
}

Expected<Instance> instantiateGemm(const Request &R, const GemmConfig &Cfg) {
  using namespace detail;
  Expected<std::string> NameOr = checkKernelRequest(
      R, R.Type == Scalar::F32 || R.Type == Scalar::F64,
      "the gemm template's FMA kernel takes f32 or f64 elements, not {0} (f16 and bf16 run on "
      "the tensor cores)",
      [&] { return checkGemmConfig(Cfg, R.Type); });
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const Elem E = elemFor(R.Type);

  Instance I = startInstance("gemm", Name);
  std::string S = fileComment(
      R, "gemm",
      {formatv("Tiled on the FMA units (no tensor cores): a block computes a BM x BN tile of C, "
               "a warp a WM x WN part of it, a thread TM x TN elements in registers. op(A) and "
               "op(B) pass through shared memory in slabs of BK along K, op(A) stored k-major "
               "so that the inner loop reads 16-byte vectors ({0} {1}s) of both; two buffers, "
               "the next slab's global loads in flight during the current slab's "
               "multiplication, one barrier per slab.",
               E.VW, E.T)
           .str(),
       "Edges: 16-byte global loads and stores where the leading dimension and the pointer "
       "allow and the vector is inside the matrix, guarded element accesses (zeros loaded) "
       "elsewhere, so any M, N, K and any pointer work. Blocks loop over the tiles and "
       "products the grid does not cover (65535 at most along y and z)."});
  S += "#include <cuda_runtime.h>\n\n";
  S += kernelText(R, Name, E);
  S += wrapperText(R, Name, E.T, E.T, E.VW, "",
                   formatv("BM = {0}, BN = {1}, BK = {2}, WM = {3}, WN = {4}, TM = {5}, TN = {6}, "
                           "MINB = {7}",
                           Cfg.BM, Cfg.BN, Cfg.BK, Cfg.WM, Cfg.WN, Cfg.TM, Cfg.TN, Cfg.MinBlocks)
                       .str(),
                   FmaArgs, FmaThreads);
  I.Source = std::move(S);

  // The spec at the request's sizes; the tunables are the template
  // parameters, the constraints checkGemmConfig's.
  const std::string VW = std::to_string(E.VW), Bytes = std::to_string(E.Bytes);
  std::vector<int64_t> ThreadTiles =
      E.VW == 4 ? std::vector<int64_t>{4, 8, 16} : std::vector<int64_t>{2, 4, 8};
  I.Spec = gemmSpecHead(R, Name, FmaArgs,
                        inoutBuffer("C", R.Type, "BATCH * M * N", -1, 1, E.VW == 4 ? 1e-5 : 1e-12),
                        R.Type, FmaThreads);
  I.Spec["tunables"] = {
      tunable("BM", {32, 64, 128, 256}, Cfg.BM), tunable("BN", {32, 64, 128, 256}, Cfg.BN),
      tunable("BK", {8, 16, 32}, Cfg.BK),        tunable("WM", {16, 32, 64, 128}, Cfg.WM),
      tunable("WN", {16, 32, 64, 128}, Cfg.WN),  tunable("TM", ThreadTiles, Cfg.TM),
      tunable("TN", ThreadTiles, Cfg.TN),        tunable("MINB", {1, 2, 3, 4}, Cfg.MinBlocks)};
  I.Spec["constraints"] = {
       "BM % WM == 0", "BN % WN == 0", "WM % TM == 0", "WN % TN == 0",
        "(WM / TM) * (WN / TN) == 32", "TM % " + VW + " == 0", "TN % " + VW + " == 0",
        "BK % " + VW + " == 0", "(BM / TM) * (BN / TN) <= 1024",
        "BM * BK % (" + VW + " * (BM / TM) * (BN / TN)) == 0",
        "BN * BK % (" + VW + " * (BM / TM) * (BN / TN)) == 0",
        "2 * BK * (BM + BN + 2 * " + VW + ") * " + Bytes + " <= 49152",
        // Accumulators: at most 128 registers' worth.
        "TM * TN * " + Bytes + " <= 512",
        "(BM / TM) * (BN / TN) * MINB <= 2048",
        // MINB blocks' registers: a thread needs about its accumulators,
        // one row and column of operands and 24 more.
        "(BM / TM) * (BN / TN) * MINB * ((TM * TN + TM + TN) * " + std::to_string(E.Bytes / 4) +
            " + 24) <= 65536"};
  addGemmCost(I.Spec, E.Bytes);
  I.Spec["notes"] = {
      std::string("forge-port new: the gemm template (FMA units, no tensor cores); ") + GridNote,
      BetaNote};
  I.Notes.push_back(formatv("block tile {0} x {1} x {2}, warp tile {3} x {4}, thread tile {5} x "
                            "{6}, {7} threads, at least {8} block(s) an SM; FMA units, no tensor "
                            "cores",
                            Cfg.BM, Cfg.BN, Cfg.BK, Cfg.WM, Cfg.WN, Cfg.TM, Cfg.TN, Cfg.threads(),
                            Cfg.MinBlocks)
                        .str());
  if (R.AllowLowerPrecision && R.Type == Scalar::F64)
    I.Notes.push_back("lower precision was allowed, but there is no tf32 for doubles: the kernel "
                      "computes in full f64 on the FMA units");
  else if (R.AllowLowerPrecision)
    I.Notes.push_back("lower precision was allowed, but an FMA configuration was asked for: the "
                      "kernel computes in full f32 (the template's own choice is the tf32 "
                      "tensor-core kernel)");
  return I;
}

//===----------------------------------------------------------------------===//
// The tf32 tensor-core kernel
//===----------------------------------------------------------------------===//

namespace {

/// How one operand of the tensor-core kernels is staged (below in the tf32
/// kernel's words; the f16/bf16 kernel pads every row by 8 elements, its
/// comments say why). Its slab is stored in shared memory as it lies in
/// global memory (rows of the global matrix stay rows), so the stores are
/// whole 16-byte vectors and no operand is transposed on the way in; the
/// fragment reads index it by (k, m) or (k, n) accordingly. The row pad keeps
/// those reads conflict-free: a fragment read has the mma's groupID (8
/// values) along one axis and its threadID_in_group (4 values) along the
/// other. With k along the rows (KRows: A^T, B) the 4 k are 4 rows apart, and
/// a row of Cols + 8 words (Cols a multiple of 16: 8 mod 16 words) puts them
/// 8 or 24 banks apart; with k along the columns (A, B^T) the 8 m (n) are 8
/// rows apart, and a row of Cols + 4 words (Cols a multiple of 8: 4 mod 8)
/// puts them on distinct groups of 4 banks.
struct MmaOperand {
  StringRef Name;   ///< "A" or "B"
  StringRef Lower;  ///< "a" or "b"
  bool KRows;       ///< k runs along the global rows (A^T, or B)
  StringRef Outer;  ///< "BM" or "BN": the tile's other extent
  StringRef OuterN; ///< "M" or "N"
  StringRef Origin; ///< "fg_m0" or "fg_n0"
  /// The slab's rows and columns, the global row and column extents and
  /// origins, and the leading dimension.
  std::string Rows() const { return KRows ? "BK" : Outer.str(); }
  std::string Cols() const { return KRows ? Outer.str() : "BK"; }
  std::string Pad() const { return KRows ? "8" : "4"; }
  std::string RowExt() const { return KRows ? "K" : OuterN.str(); }
  std::string ColExt() const { return KRows ? OuterN.str() : "K"; }
  std::string RowOrg() const { return KRows ? "fg_k0" : Origin.str(); }
  std::string ColOrg() const { return KRows ? Origin.str() : "fg_k0"; }
  /// The shared element at k-index K and outer index O of buffer fg_buf.
  std::string at(StringRef K, StringRef O) const {
    return KRows ? formatv("fg_{0}s[fg_buf][{1}][{2}]", Lower, K, O).str()
                 : formatv("fg_{0}s[fg_buf][{1}][{2}]", Lower, O, K).str();
  }
};

/// op(A) and op(B) of R: k runs along the global rows of A^T and B.
MmaOperand mmaOperandA(const Request &R) { return {"A", "a", R.TransA, "BM", "M", "fg_m0"}; }
MmaOperand mmaOperandB(const Request &R) { return {"B", "b", !R.TransB, "BN", "N", "fg_n0"}; }

/// One operand's slab text (loads or stores, in 16-byte vectors of VW
/// elements) with O's names and extents in place of the @ keys: @X and
/// @x (the operand), @X_VECS, @X_COLS, @ROWORG, @COLORG, @ROWEXT, @COLEXT
/// (its slab), @VW, @LAST (VW - 1), @ELEM (the type global loads read).
std::string mmaOperandText(const MmaOperand &O, std::string T, int VW, StringRef Elem = "") {
  T = detail::replaceAll(T, "@X_VECS", (O.Name + "_VECS").str());
  T = detail::replaceAll(T, "@X_COLS", (O.Name + "_COLS").str());
  T = detail::replaceAll(T, "@ROWORG", O.RowOrg());
  T = detail::replaceAll(T, "@COLORG", O.ColOrg());
  T = detail::replaceAll(T, "@ROWEXT", O.RowExt());
  T = detail::replaceAll(T, "@COLEXT", O.ColExt());
  T = detail::replaceAll(T, "@VW", std::to_string(VW));
  T = detail::replaceAll(T, "@LAST", std::to_string(VW - 1));
  T = detail::replaceAll(T, "@ELEM", Elem);
  T = detail::replaceAll(T, "@X", O.Name);
  T = detail::replaceAll(T, "@x", O.Lower);
  return T;
}

/// One operand's slab loads into fg_r@x[fg_i]: the vector's coordinates,
/// then Whole where it is whole and aligned, Guarded else (both with the
/// keys of mmaOperandText).
std::string mmaLoadText(const MmaOperand &O, int VW, StringRef Elem, StringRef Whole,
                        StringRef Guarded) {
  std::string T = R"(#pragma unroll
        for (int fg_i = 0; fg_i < @X_VECS; ++fg_i) {
          // Vector fg_c of the slab: row fg_r, columns fg_cc .. fg_cc + @LAST.
          const int fg_c = fg_tid + fg_i * THREADS;
          const int fg_r = fg_c / (@X_COLS / @VW), fg_cc = (fg_c % (@X_COLS / @VW)) * @VW;
          const int fg_gr = @ROWORG + fg_r, fg_gc = @COLORG + fg_cc;
          const @ELEM *fg_p = fg_@X + (long long)fg_gr * @COLEXT + fg_gc;
          if (fg_@xvec && fg_gr < @ROWEXT && fg_gc + @VW <= @COLEXT) {
)";
  T += Whole;
  T += "          } else {\n";
  T += Guarded;
  T += "          }\n        }\n";
  return mmaOperandText(O, T, VW, Elem);
}

/// One operand's slab stores: fg_r@x[fg_i] as Value (with the keys of
/// mmaOperandText), one 16-byte vector each.
std::string mmaStoreText(const MmaOperand &O, int VW, StringRef Value) {
  std::string T = R"(#pragma unroll
          for (int fg_i = 0; fg_i < @X_VECS; ++fg_i) {
            const int fg_c = fg_tid + fg_i * THREADS;
            const int fg_r = fg_c / (@X_COLS / @VW), fg_cc = (fg_c % (@X_COLS / @VW)) * @VW;
            *reinterpret_cast<uint4 *>(&fg_@xs[fg_buf][fg_r][fg_cc]) =)";
  T += Value;
  T += "\n          }\n";
  return mmaOperandText(O, T, VW);
}

/// The tensor-core kernels' opening comment from the target on, and their
/// signature (matrices of T, alpha and beta float).
std::string mmaKernelHead(StringRef Name, StringRef T) {
  return R"(// Needs sm_80 or newer: compiled for an older target the kernel traps.
// The tile sizes are template parameters (see the spec's tunables): a block
// computes BM x BN of C with (BM / WM) * (BN / WN) warps, a warp WM x WN as
// (WM / 16) x (WN / 8) mma tiles; MINB blocks of an SM at least share its
// registers (__launch_bounds__). Launch it with (BM / WM) * (BN / WN) * 32
// threads; any grid is correct (blocks loop over the tiles and products
// their grid does not cover).
)" + kernelSignature(MmaArgs, MmaThreads, Name, T, "float");
}

/// The block's threads, the warp's mma tiles and the slabs' layouts
/// (PadNote: how their rows are padded).
std::string mmaLayoutText(const MmaOperand &A, const MmaOperand &B, StringRef PadNote) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "  constexpr int THREADS = " << MmaThreads << ";\n";
  OS << "  // The mma tiles of a warp: MT along m (16 rows each), NT along n (8).\n";
  OS << "  constexpr int MT = WM / 16, NT = WN / 8, WARPS_N = BN / WN;\n";
  OS << "  // The shared slabs keep the global layout: op(A)'s is " << A.Rows() << " x "
     << A.Cols() << " (" << (A.KRows ? "k" : "m") << " along the rows),\n  // op(B)'s "
     << B.Rows() << " x " << B.Cols() << " (" << (B.KRows ? "k" : "n") << " along the rows); "
     << PadNote << ".\n";
  return S;
}

/// The thread's index, its warp's and its mma fragment coordinates.
std::string mmaThreadIdText() {
  return std::string(ThreadIdText) +
         "  // The mma's fragment coordinates: groupID and threadID_in_group.\n"
         "  const int fg_g = fg_lane / 4, fg_t = fg_lane % 4;\n";
}

/// From the warp's part of the tile to the loops' opening (Pointers:
/// batchPointers): the vector paths' flags (16-byte loads of VW elements,
/// C in pairs of CBytes), beta == 0 and the buffer phase.
std::string mmaIndexText(const Request &R, int VW, int CBytes, StringRef Pointers) {
  std::string S = R"(  // This warp's part of the tile.
  const int fg_wm = (fg_warp / WARPS_N) * WM, fg_wn = (fg_warp % WARPS_N) * WN;
)";
  S += TileCountText;
  S += formatv("  // 16-byte loads need 16-byte aligned rows: an aligned pointer and a\n"
               "  // leading dimension that is a multiple of {0}; C's pairs need {1} bytes.\n",
               VW, CBytes)
           .str();
  S += vecFlagsText(R, std::to_string(VW), "2", CBytes);
  S += R"(  const bool fg_beta0 = beta == 0.0f;
  // Slabs this block has multiplied over all its tiles: the buffer parity
  // runs on across tiles, so a new tile's first stores never hit the
  // buffer a slower warp may still be reading.
  unsigned fg_phase = 0;

)";
  S += loopsOpenText(Pointers);
  S += R"(        // The warp's accumulators: mma tile (i, j) holds rows fg_g and
        // fg_g + 8, columns 2 fg_t and 2 fg_t + 1 of its 16 x 8.
        float fg_acc[MT][NT][4];
#pragma unroll
        for (int fg_i = 0; fg_i < MT; ++fg_i)
#pragma unroll
          for (int fg_j = 0; fg_j < NT; ++fg_j)
#pragma unroll
            for (int fg_e = 0; fg_e < 4; ++fg_e)
              fg_acc[fg_i][fg_j][fg_e] = 0.0f;
)";
  return S;
}

/// The NT mmas of m tile fg_i (mma.sync.aligned.Shape with In inputs and
/// f32 sums), and the end of the k step's, the slab's and the slab loop's
/// bodies.
std::string mmaAsmText(StringRef Shape, StringRef In) {
  std::string S = "#pragma unroll\n"
                  "              for (int fg_j = 0; fg_j < NT; ++fg_j)\n";
  S += formatv("                asm(\"mma.sync.aligned.{0}.row.col.f32.{1}.{1}.f32 \"\n", Shape,
               In)
           .str();
  S += R"(                    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                    : "+f"(fg_acc[fg_i][fg_j][0]), "+f"(fg_acc[fg_i][fg_j][1]),
                      "+f"(fg_acc[fg_i][fg_j][2]), "+f"(fg_acc[fg_i][fg_j][3])
                    : "r"(fg_a[0]), "r"(fg_a[1]), "r"(fg_a[2]), "r"(fg_a[3]),
                      "r"(fg_b[fg_j][0]), "r"(fg_b[fg_j][1]));
            }
          }
        }

)";
  return S;
}

/// The tensor-core kernels' epilogue, C = alpha * acc + beta * C in f32,
/// to the kernel's end: Comment (its lines) first; C's elements are T, its
/// pairs T2, read as float2 by ToF2 (a function's name, "" for none),
/// written by FromF2 (two floats to a pair); one element goes to float by
/// ToF and back by FromF ("" for none).
std::string mmaEpilogueText(StringRef Comment, StringRef T, StringRef T2, StringRef ToF2,
                            StringRef FromF2, StringRef ToF, StringRef FromF) {
  auto Call = [](StringRef F, const std::string &X) {
    return F.empty() ? X : (F + "(" + X + ")").str();
  };
  auto Store = [&](StringRef E) {
    return Call(FromF, ("fg_beta0 ? fg_v" + E + " : fmaf(beta, " +
                        Call(ToF, ("fg_p[" + E + "]").str()) + ", fg_v" + E + ")")
                           .str());
  };
  std::string S = Comment.str() + R"(#pragma unroll
        for (int fg_i = 0; fg_i < MT; ++fg_i)
#pragma unroll
          for (int fg_h = 0; fg_h < 2; ++fg_h) {
            const int fg_m = fg_m0 + fg_wm + fg_i * 16 + fg_g + fg_h * 8;
            if (fg_m >= M)
              continue;
            @T *fg_row = fg_C + (long long)fg_m * N;
#pragma unroll
            for (int fg_j = 0; fg_j < NT; ++fg_j) {
              const int fg_n = fg_n0 + fg_wn + fg_j * 8 + 2 * fg_t;
              @T *fg_p = fg_row + fg_n;
              float fg_v0 = alpha * fg_acc[fg_i][fg_j][2 * fg_h];
              float fg_v1 = alpha * fg_acc[fg_i][fg_j][2 * fg_h + 1];
              if (fg_cvec && fg_n + 2 <= N) {
                if (!fg_beta0) {
                  const float2 fg_o = @LOAD2;
                  fg_v0 = fmaf(beta, fg_o.x, fg_v0);
                  fg_v1 = fmaf(beta, fg_o.y, fg_v1);
                }
                *reinterpret_cast<@T2 *>(fg_p) = @FROMF2(fg_v0, fg_v1);
              } else {
                if (fg_n < N)
                  fg_p[0] = @STORE0;
                if (fg_n + 1 < N)
                  fg_p[1] = @STORE1;
              }
            }
          }
      }
  }
#endif
}
)";
  S = detail::replaceAll(S, "@LOAD2",
                         Call(ToF2, ("*reinterpret_cast<const " + T2 + " *>(fg_p)").str()));
  S = detail::replaceAll(S, "@FROMF2", FromF2);
  S = detail::replaceAll(S, "@STORE0", Store("0"));
  S = detail::replaceAll(S, "@STORE1", Store("1"));
  S = detail::replaceAll(S, "@T2", T2);
  S = detail::replaceAll(S, "@T", T);
  return S;
}

std::string tf32LoadText(const MmaOperand &O) {
  return mmaLoadText(O, 4, "float",
                     "            const float4 fg_q = "
                     "*reinterpret_cast<const float4 *>(fg_p);\n"
                     R"(            fg_r@x[fg_i][0] = fg_q.x;
            fg_r@x[fg_i][1] = fg_q.y;
            fg_r@x[fg_i][2] = fg_q.z;
            fg_r@x[fg_i][3] = fg_q.w;
)",
                     R"(#pragma unroll
            for (int fg_e = 0; fg_e < 4; ++fg_e)
              fg_r@x[fg_i][fg_e] = fg_gr < @ROWEXT && fg_gc + fg_e < @COLEXT ? fg_p[fg_e] : 0.0f;
)");
}

std::string tf32StoreText(const MmaOperand &O) {
  return mmaStoreText(O, 4, R"(
                make_uint4(fg_tf32(fg_r@x[fg_i][0]), fg_tf32(fg_r@x[fg_i][1]),
                           fg_tf32(fg_r@x[fg_i][2]), fg_tf32(fg_r@x[fg_i][3]));)");
}

std::string tf32KernelText(const Request &R, StringRef Name) {
  const MmaOperand A = mmaOperandA(R), B = mmaOperandB(R);
  const OpNames Op = opNames(R);
  std::string S;
  raw_string_ostream OS(S);
  OS << formatv(R"(// C = alpha * op(A) * op(B) + beta * C, row-major, for `batch` products, on
// the tensor cores in tf32: op(A) = {0} (A is {1}), op(B) = {2} (B is {3}),
// C is M x N; product b reads A + b * M * K, B + b * K * N and writes
// C + b * M * N. C is not read when beta == 0. The inputs are rounded to
// tf32 (cvt.rna: 10 explicit mantissa bits, round to nearest, ties away)
// and multiplied by mma.sync.m16n8k8; the products are summed in f32.
)",
                Op.A, Op.AShape, Op.B, Op.BShape);
  OS << mmaKernelHead(Name, "float");
  OS << mmaLayoutText(A, B, "rows padded against bank conflicts");
  OS << "  constexpr int A_ROWS = " << A.Rows() << ", A_COLS = " << A.Cols()
     << ", A_PAD = " << A.Pad() << ";\n";
  OS << "  constexpr int B_ROWS = " << B.Rows() << ", B_COLS = " << B.Cols()
     << ", B_PAD = " << B.Pad() << ";\n";
  OS << R"(  // 16-byte vectors of each operand's slab a thread loads.
  constexpr int A_VECS = BM * BK / (4 * THREADS);
  constexpr int B_VECS = BN * BK / (4 * THREADS);
  static_assert(BM % WM == 0 && BN % WN == 0, "the warps must tile the block");
  static_assert(WM % 16 == 0 && WN % 16 == 0,
                "a warp tile is made of m16n8k8 tiles; WM and WN are multiples of 16");
  static_assert(MT >= 1 && NT >= 2 && WARPS_N >= 1, "a warp tile is at least 16 x 16");
  static_assert(BK % 8 == 0, "the slab is a multiple of the mma's k, 8");
  static_assert(THREADS <= 1024, "at most 1024 threads");
  static_assert(A_VECS * 4 * THREADS == BM * BK && B_VECS * 4 * THREADS == BN * BK,
                "every thread loads the same number of vectors of a slab");
  static_assert(2 * (A_ROWS * (A_COLS + A_PAD) + B_ROWS * (B_COLS + B_PAD)) * 4 <= 49152,
                "the two slabs must fit in 48 KiB of static shared memory");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap(); // mma.sync with tf32 needs sm_80 or newer
#else
  // Two slabs of each operand, already rounded to tf32 (the bits of a float
  // whose low 13 mantissa bits are zero).
  __shared__ __align__(16) unsigned fg_as[2][A_ROWS][A_COLS + A_PAD];
  __shared__ __align__(16) unsigned fg_bs[2][B_ROWS][B_COLS + B_PAD];
)";
  OS << BlockCheckText;
  OS << R"(  auto fg_tf32 = [](float fg_x) {
    unsigned fg_u;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fg_u) : "f"(fg_x));
    return fg_u;
  };

)";
  OS << mmaThreadIdText();
  OS << mmaIndexText(R, 4, 8, batchPointers("float"));
  OS << slabLoopText("float", "[4]", indented(tf32LoadText(A)) + indented(tf32LoadText(B)),
                     "          // Rounded to tf32 once, on the way into shared memory.\n" +
                         tf32StoreText(A) + tf32StoreText(B));
  OS << R"(#pragma unroll
          for (int fg_kk = 0; fg_kk < BK; fg_kk += 8) {
            // Fragments (PTX ISA, mma.m16n8k8 .tf32): b0 (t, g), b1 (t + 4, g)
            // of the 8 x 8 of op(B), every n tile's first; then per m tile
            // a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4) of
            // its 16 x 8 of op(A), used by NT mmas (one m tile's fragment
            // live at a time: 12 registers fewer than all of them).
            unsigned fg_b[NT][2];
#pragma unroll
            for (int fg_j = 0; fg_j < NT; ++fg_j) {
              const int fg_n = fg_wn + fg_j * 8 + fg_g, fg_k = fg_kk + fg_t;
)";
  OS << "              fg_b[fg_j][0] = " << B.at("fg_k", "fg_n") << ";\n";
  OS << "              fg_b[fg_j][1] = " << B.at("fg_k + 4", "fg_n") << ";\n";
  OS << R"(            }
#pragma unroll
            for (int fg_i = 0; fg_i < MT; ++fg_i) {
              const int fg_m = fg_wm + fg_i * 16 + fg_g, fg_k = fg_kk + fg_t;
              unsigned fg_a[4];
)";
  OS << "              fg_a[0] = " << A.at("fg_k", "fg_m") << ";\n";
  OS << "              fg_a[1] = " << A.at("fg_k", "fg_m + 8") << ";\n";
  OS << "              fg_a[2] = " << A.at("fg_k + 4", "fg_m") << ";\n";
  OS << "              fg_a[3] = " << A.at("fg_k + 4", "fg_m + 8") << ";\n";
  OS << mmaAsmText("m16n8k8", "tf32");
  OS << mmaEpilogueText("        // C = alpha * acc + beta * C: the accumulators come in pairs of\n"
                        "        // adjacent columns, one 8-byte access per pair where it is whole "
                        "and\n"
                        "        // aligned, guarded elements else.\n",
                        "float", "float2", "", "make_float2", "", "");
  return S;
}

/// What tells the two tensor-core kernels apart in their configuration's
/// checks and the spec's constraints.
struct MmaKind {
  StringRef What;     ///< the kernel in messages, "tf32 gemm"
  StringRef TileNote; ///< how a warp tile is made, "is made of m16n8k8 tiles"
  int MmaK;           ///< the mma's k
  int VW;             ///< elements a 16-byte vector
  int Bytes;          ///< an element's bytes in shared memory
  int KColPad;        ///< the row pad of a slab with k along its columns
  int PerReg;         ///< elements of the slab in flight a register holds
};

// A slab with k along its rows is padded by 8 words (tf32) or 8 elements
// (f16/bf16): see MmaOperand.
const MmaKind Tf32Kind{"tf32 gemm", "is made of m16n8k8 tiles", 8, 4, 4, 4, 1};
const MmaKind HalfKind{"f16/bf16 gemm", "is read in 16 x 16 fragments", 16, 8, 2, 8, 2};

/// The slabs' shared bytes for C (both buffers), as checkMmaConfig and
/// the spec's constraint count them.
template <class Config>
int64_t mmaSharedBytes(const Config &C, bool TransA, bool TransB, const MmaKind &K) {
  int64_t A = TransA ? int64_t(C.BK) * (C.BM + 8) : int64_t(C.BM) * (C.BK + K.KColPad);
  int64_t B = TransB ? int64_t(C.BN) * (C.BK + K.KColPad) : int64_t(C.BK) * (C.BN + 8);
  return 2 * (A + B) * K.Bytes;
}

/// Registers a thread needs, roughly: the accumulators, one k step's B
/// fragments and one A fragment, the slab in flight (K.PerReg elements a
/// register) and 24 more (addresses, loop counters).
template <class Config> int64_t mmaRegisterEstimate(const Config &C, const MmaKind &K) {
  const int64_t T = C.threads();
  return int64_t(C.WM) * C.WN / 32 + C.WN / 4 + 4 +
         (int64_t(C.BM) * C.BK + int64_t(C.BN) * C.BK) / (K.PerReg * T) + 24;
}

/// checkGemmTf32Config and checkGemmHalfConfig.
template <class Config>
Error checkMmaConfig(const Config &C, bool TransA, bool TransB, const MmaKind &K) {
  for (int V : {C.BM, C.BN, C.BK, C.WM, C.WN})
    if (V <= 0)
      return makeError("the {0}'s tile sizes must be positive", K.What);
  if (C.WM % 16 || C.WN % 16)
    return makeError("the {0}'s warp tile {1} x {2} {3}: WM and WN must be multiples of 16",
                     K.What, C.WM, C.WN, K.TileNote);
  if (C.BM % C.WM || C.BN % C.WN)
    return makeError("the {0}'s warp tile {1} x {2} must divide the block tile {3} x {4}", K.What,
                     C.WM, C.WN, C.BM, C.BN);
  if (C.BK % K.MmaK)
    return makeError("the {0}'s slab BK = {1} must be a multiple of the mma's k ({2})", K.What,
                     C.BK, K.MmaK);
  if (C.threads() > 1024)
    return makeError("the {0}'s block would have {1} threads, more than 1024", K.What,
                     C.threads());
  if ((C.BM * C.BK) % (K.VW * C.threads()) || (C.BN * C.BK) % (K.VW * C.threads()))
    return makeError("the {0}'s {1} threads cannot share the loads of a {2} x {3} and a {3} x {4} "
                     "slab evenly (16-byte vectors)",
                     K.What, C.threads(), C.BM, C.BK, C.BN);
  if (C.WM * C.WN / 32 > 128)
    return makeError("the {0}'s warp tile {1} x {2} needs {3} accumulators a thread, more than "
                     "128",
                     K.What, C.WM, C.WN, C.WM * C.WN / 32);
  if (C.MinBlocks < 1 || C.threads() * C.MinBlocks > 2048)
    return makeError("the {0}'s {1} blocks of {2} threads cannot be resident on one SM (2048 "
                     "threads)",
                     K.What, C.MinBlocks, C.threads());
  if (int64_t(C.threads()) * C.MinBlocks * mmaRegisterEstimate(C, K) > 65536)
    return makeError("the {0}'s {1} blocks of {2} threads need about {3} registers a thread, more "
                     "than 65536 an SM",
                     K.What, C.MinBlocks, C.threads(), mmaRegisterEstimate(C, K));
  int64_t Shared = mmaSharedBytes(C, TransA, TransB, K);
  if (Shared > 49152)
    return makeError("the {0}'s two slabs need {1} bytes of shared memory, more than 49152",
                     K.What, Shared);
  return Error::success();
}

/// The spec's tunables (BK from BKs) and constraints (checkMmaConfig's).
template <class Config> Json mmaTunables(const Config &Cfg, ArrayRef<int64_t> BKs) {
  using namespace detail;
  return {tunable("BM", {32, 64, 128, 256}, Cfg.BM), tunable("BN", {32, 64, 128, 256}, Cfg.BN),
          tunable("BK", BKs, Cfg.BK),
          tunable("WM", {16, 32, 64, 128}, Cfg.WM), tunable("WN", {16, 32, 64, 128}, Cfg.WN),
          tunable("MINB", {1, 2, 3, 4}, Cfg.MinBlocks)};
}

Json mmaConstraints(const Request &R, const MmaKind &K) {
  const std::string Threads = MmaThreads, VW = std::to_string(K.VW),
                    Pad = std::to_string(K.KColPad);
  const std::string ASh = R.TransA ? "BK * (BM + 8)" : "BM * (BK + " + Pad + ")";
  const std::string BSh = R.TransB ? "BN * (BK + " + Pad + ")" : "BK * (BN + 8)";
  const std::string InFlight =
      K.PerReg == 1 ? Threads : std::to_string(K.PerReg) + " * " + Threads;
  return {"WM % 16 == 0", "WN % 16 == 0", "BM % WM == 0", "BN % WN == 0",
          "BK % " + std::to_string(K.MmaK) + " == 0", Threads + " <= 1024",
          "BM * BK % (" + VW + " * " + Threads + ") == 0",
          "BN * BK % (" + VW + " * " + Threads + ") == 0",
          // Accumulators: at most 128 registers' worth.
          "WM * WN / 32 <= 128", Threads + " * MINB <= 2048",
          // MINB blocks' registers (mmaRegisterEstimate).
          Threads + " * MINB * (WM * WN / 32 + WN / 4 + 4 + (BM + BN) * BK / (" + InFlight +
              ") + 24) <= 65536",
          "2 * (" + ASh + " + " + BSh + ") * " + std::to_string(K.Bytes) + " <= 49152"};
}

/// The wrapper's constants: the configuration's tile sizes.
template <class Config> std::string mmaConstants(const Config &Cfg) {
  return formatv("BM = {0}, BN = {1}, BK = {2}, WM = {3}, WN = {4}, MINB = {5}", Cfg.BM, Cfg.BN,
                 Cfg.BK, Cfg.WM, Cfg.WN, Cfg.MinBlocks)
      .str();
}

/// The file comment's paragraphs on the tiling (Staging: how the slabs
/// are stored, in the parenthesis) and on the edges (C in pairs of CBytes).
std::string mmaTilingNote(StringRef Staging) {
  return ("A block computes a BM x BN tile of C with (BM / WM) * (BN / WN) warps, a warp a WM x "
          "WN part as 16 x 8 mma tiles, its accumulators in registers. op(A) and op(B) pass "
          "through shared memory in slabs of BK along K, stored as they lie in global memory (" +
          Staging +
          "); two buffers, the next slab's global loads in flight during the current slab's "
          "multiplication, one barrier per slab.")
      .str();
}

std::string mmaEdgesNote(int CBytes) {
  return formatv("Edges: 16-byte global loads where the leading dimension and the pointer allow "
                 "and the vector is inside the matrix, guarded element loads (zeros) elsewhere; "
                 "C in {0}-byte pairs or guarded elements, so any M, N, K and any pointer work. "
                 "Blocks loop over the tiles and products the grid does not cover (65535 at "
                 "most along y and z).",
                 CBytes)
      .str();
}

} // namespace

GemmTf32Config defaultGemmTf32Config() { return GemmTf32Config(); }

Error checkGemmTf32Config(const GemmTf32Config &C, bool TransA, bool TransB) {
  return checkMmaConfig(C, TransA, TransB, Tf32Kind);
}

Expected<Instance> instantiateGemmTf32(const Request &R, const GemmTf32Config &Cfg) {
  using namespace detail;
  Expected<std::string> NameOr =
      checkKernelRequest(R, R.Type == Scalar::F32, "the tf32 gemm takes f32 elements, not {0}",
                         [&] { return checkGemmTf32Config(Cfg, R.TransA, R.TransB); });
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const int64_t K = R.Shape[2];

  Instance I = startInstance("gemm", Name);
  std::string S = fileComment(
      R, "gemm",
      {"Tensor cores in tf32 (lower precision was allowed): the inputs are rounded to tf32 "
       "(10 explicit mantissa bits) and multiplied by mma.sync.m16n8k8, the products summed in "
       "f32, so an element's error is about 2^-11 * sqrt(K) times its terms' size, where the "
       "FMA kernel's is about 2^-24 * sqrt(K). Needs sm_80 or newer.",
       mmaTilingNote("rounded to tf32 on the way in, rows padded so that the fragment reads are "
                     "conflict-free"),
       mmaEdgesNote(8)});
  S += "#include <cuda_runtime.h>\n\n";
  S += tf32KernelText(R, Name);
  S += wrapperText(R, Name, "float", "float", 4,
                   "\n// The products run in tf32 on the tensor cores (sm_80 or newer).",
                   mmaConstants(Cfg), MmaArgs, MmaThreads);
  I.Source = std::move(S);

  // The tolerance. A product's inputs are rounded to tf32 (relative error
  // at most u = 2^-11 each, round to nearest), so a term a_k b_k is off by
  // about a_k b_k (d_a + d_b), the d independent with |d| <= u and mean
  // square at most u^2 / 3: the error of an element is a sum of K such
  // terms, with standard deviation at most sqrt(2/3) u sqrt(sum_k (a_k
  // b_k)^2); the f32 sums add little (2^-24 per step). The spec's inputs
  // are uniform in [-1, 1] (E[(a b)^2] = 1/9), so sigma <= 0.27 u sqrt(K),
  // and the result's own size is sqrt(sum_k (a_k b_k)^2) (plus beta C):
  // the relative L2 error is at most about sqrt(2/3) u = 4.0e-4 whatever K
  // (2.6e-4 in a CPU model of the kernel at K = 51 to 4096: a mantissa's
  // rounding error is u at most, u / 1.5 on average). rel_l2 2e-3 (5 to 8
  // times that) still catches one missing term up to K ~ 250000 (its
  // relative error is about 1/sqrt(K)); max_abs 3 u sqrt(K) = 1.46e-3
  // sqrt(K) is 11 sigma, for these inputs at this K (the model's largest
  // error was 0.26 of it).
  const double Tf32U = 1.0 / 2048;
  const double MaxAbs = 3 * Tf32U * std::sqrt(double(K));
  Json CBuf = inoutBuffer("C", Scalar::F32, "BATCH * M * N");
  CBuf["tolerance"] = {{"rel_l2", 2e-3}, {"max_abs", MaxAbs}};
  I.Spec = gemmSpecHead(R, Name, MmaArgs, CBuf, Scalar::F32, MmaThreads);
  I.Spec["tunables"] = mmaTunables(Cfg, {8, 16, 32});
  I.Spec["constraints"] = mmaConstraints(R, Tf32Kind);
  addGemmCost(I.Spec, 4);
  I.Spec["allow_lower_precision"] = true;
  I.Spec["notes"] = {
      std::string("forge-port new: the gemm template's tf32 tensor-core kernel (mma.sync.m16n8k8, "
                  "sm_80 or newer), chosen because the request allows lower precision; ") +
          GridNote,
      formatv("C's tolerance is tf32's: rel_l2 2e-3 (the expected error is 3e-4 to 4e-4 for "
                "these inputs) and max_abs {0} (3 * 2^-11 * sqrt(K), K = {1}); a larger K or "
                "inputs larger than [-1, 1] need a larger max_abs",
                MaxAbs, K)
          .str(),
      BetaNote};
  I.Notes.push_back(formatv("tf32 tensor cores (lower precision allowed): block tile {0} x {1} x "
                            "{2}, warp tile {3} x {4} ({5} x {6} mma.sync.m16n8k8 tiles), {7} "
                            "threads, at least {8} block(s) an SM; sm_80 or newer",
                            Cfg.BM, Cfg.BN, Cfg.BK, Cfg.WM, Cfg.WN, Cfg.WM / 16, Cfg.WN / 8,
                            Cfg.threads(), Cfg.MinBlocks)
                        .str());
  I.Notes.push_back(formatv("tf32 rounds the inputs to 10 mantissa bits: expect relative "
                            "errors of 3e-4 to 4e-4 where full f32 gives about 1e-7; the spec's "
                            "tolerance is rel_l2 2e-3, max_abs {0}",
                            MaxAbs)
                        .str());
  return I;
}

//===----------------------------------------------------------------------===//
// The f16 / bf16 tensor-core kernel
//===----------------------------------------------------------------------===//

namespace {

/// The 16-bit element type's spellings in the generated text.
struct HalfElem {
  StringRef T;      ///< "__half"
  StringRef T2;     ///< the pair, "__half2"
  StringRef Ptx;    ///< the mma's input type, "f16"
  StringRef ToF;    ///< one element to float, "__half2float"
  StringRef FromF;  ///< float to one element, round to nearest even
  StringRef ToF2;   ///< a pair to float2
  StringRef FromF2; ///< two floats to a pair
  StringRef Header; ///< "cuda_fp16.h"
  /// The unit roundoff of the type: 2^-11 (f16, 11 significant bits),
  /// 2^-8 (bf16, 8).
  double U;
};

HalfElem halfElemFor(Scalar S) {
  if (S == Scalar::BF16)
    return {"__nv_bfloat16",         "__nv_bfloat162",       "bf16",
            "__bfloat162float",      "__float2bfloat16_rn",  "__bfloat1622float2",
            "__floats2bfloat162_rn", "cuda_bf16.h",          1.0 / 256};
  return {"__half",           "__half2",           "f16",         "__half2float", "__float2half_rn",
          "__half22float2",   "__floats2half2_rn", "cuda_fp16.h", 1.0 / 2048};
}

/// One operand's slab loads for the f16/bf16 kernel: as the tf32 kernel's
/// (the slab keeps the global layout, MmaOperand says how), in 16-byte
/// vectors of 8 elements kept as their bits.
std::string halfLoadText(const MmaOperand &O) {
  return mmaLoadText(O, 8, "unsigned short",
                     "            fg_r@x[fg_i] = *reinterpret_cast<const uint4 *>(fg_p);\n",
                     R"(            // Element by element, zeros (the bits of +0) outside.
            unsigned fg_h[8];
#pragma unroll
            for (int fg_e = 0; fg_e < 8; ++fg_e)
              fg_h[fg_e] = fg_gr < @ROWEXT && fg_gc + fg_e < @COLEXT ? fg_p[fg_e] : 0u;
            fg_r@x[fg_i] = make_uint4(fg_h[0] | fg_h[1] << 16, fg_h[2] | fg_h[3] << 16,
                                     fg_h[4] | fg_h[5] << 16, fg_h[6] | fg_h[7] << 16);
)");
}

std::string halfStoreText(const MmaOperand &O) {
  return mmaStoreText(O, 8, " fg_r@x[fg_i];");
}

std::string halfKernelText(const Request &R, StringRef Name, const HalfElem &E) {
  const MmaOperand A = mmaOperandA(R), B = mmaOperandB(R);
  const OpNames Op = opNames(R);
  std::string S;
  raw_string_ostream OS(S);
  OS << formatv(R"(// C = alpha * op(A) * op(B) + beta * C, row-major, for `batch` products, on
// the tensor cores: A, B and C are {4}, alpha and beta float. op(A) = {0}
// (A is {1}), op(B) = {2} (B is {3}), C is M x N; product b reads
// A + b * M * K, B + b * K * N and writes C + b * M * N. C is not read when
// beta == 0. mma.sync.m16n8k16 multiplies the {5} inputs (exactly) and sums
// the products in f32; the epilogue computes alpha * acc + beta * C in f32
// and rounds once to {5} (to nearest even).
)",
                Op.A, Op.AShape, Op.B, Op.BShape, E.T, E.Ptx);
  OS << mmaKernelHead(Name, E.T);
  OS << "  typedef " << E.T << " fg_T;\n";
  OS << "  typedef " << E.T2 << " fg_T2;\n";
  OS << mmaLayoutText(A, B, "every row padded by 8 elements (16 bytes)");
  OS << "  constexpr int A_ROWS = " << A.Rows() << ", A_COLS = " << A.Cols() << ";\n";
  OS << "  constexpr int B_ROWS = " << B.Rows() << ", B_COLS = " << B.Cols() << ";\n";
  OS << R"(  constexpr int PAD = 8;
  // 16-byte vectors (8 elements) of each operand's slab a thread loads.
  constexpr int A_VECS = BM * BK / (8 * THREADS);
  constexpr int B_VECS = BN * BK / (8 * THREADS);
  static_assert(BM % WM == 0 && BN % WN == 0, "the warps must tile the block");
  static_assert(WM % 16 == 0 && WN % 16 == 0,
                "a warp tile is made of m16n8k16 tiles, read in 16 x 16 pieces; WM and WN "
                "are multiples of 16");
  static_assert(BK % 16 == 0, "the slab is a multiple of the mma's k, 16");
  static_assert(THREADS <= 1024, "at most 1024 threads");
  static_assert(A_VECS * 8 * THREADS == BM * BK && B_VECS * 8 * THREADS == BN * BK,
                "every thread loads the same number of vectors of a slab");
  static_assert(2 * (A_ROWS * (A_COLS + PAD) + B_ROWS * (B_COLS + PAD)) * 2 <= 49152,
                "the two slabs must fit in 48 KiB of static shared memory");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap(); // mma.sync.m16n8k16 with f32 accumulators needs sm_80 or newer
#else
  // Two slabs of each operand, the elements' bits. A row of COLS + 8
  // elements is 16 bytes more than a multiple of 32 bytes (COLS is a
  // multiple of 16), so the 8 rows an ldmatrix phase reads (16 bytes each,
  // same column) fall on distinct groups of 4 banks.
  __shared__ __align__(16) unsigned short fg_as[2][A_ROWS][A_COLS + PAD];
  __shared__ __align__(16) unsigned short fg_bs[2][B_ROWS][B_COLS + PAD];
)";
  OS << BlockCheckText;
  OS << R"(  // ldmatrix.x4: four 8 x 8 matrices of 16-bit elements; lane l gives the
  // address of row l % 8 of matrix l / 8 (16 bytes, 16-byte aligned), and
  // fg_r[q] receives the lane's pair of matrix q: row l / 4, columns
  // 2 (l % 4) and 2 (l % 4) + 1 of it (with .trans, of its transpose).
  auto fg_ldsm = [](const unsigned short *fg_p, unsigned *fg_r) {
    const unsigned fg_s = (unsigned)__cvta_generic_to_shared(fg_p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(fg_r[0]), "=r"(fg_r[1]), "=r"(fg_r[2]), "=r"(fg_r[3])
                 : "r"(fg_s));
  };
  auto fg_ldsm_t = [](const unsigned short *fg_p, unsigned *fg_r) {
    const unsigned fg_s = (unsigned)__cvta_generic_to_shared(fg_p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(fg_r[0]), "=r"(fg_r[1]), "=r"(fg_r[2]), "=r"(fg_r[3])
                 : "r"(fg_s));
  };

)";
  OS << mmaThreadIdText();
  OS << R"(  // The row this lane addresses for ldmatrix: row fg_lr of matrix fg_lq.
  const int fg_lq = fg_lane / 8, fg_lr = fg_lane % 8;
)";
  // The A fragment (16 x 16 of op(A)): its registers are (m 0-7, k 0-7),
  // (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15), each a lane's
  // (m g, k 2t and 2t + 1): matrix q at m + (q & 1) * 8, k + (q >> 1) * 8.
  // With k along the columns the matrices are read as they lie (rows m),
  // with k along the rows (A^T) transposed (rows k).
  OS << "  // op(A)'s 16 x 16 fragment: matrix q is (m + (q & 1) * 8, k + (q >> 1) * 8),\n"
     << "  // read " << (A.KRows ? "transposed (its rows are k)" : "as it lies (its rows are m)")
     << "; the lane's row and column offsets.\n";
  if (A.KRows)
    OS << "  const int fg_am = (fg_lq & 1) * 8, fg_ak = (fg_lq >> 1) * 8 + fg_lr;\n";
  else
    OS << "  const int fg_am = (fg_lq & 1) * 8 + fg_lr, fg_ak = (fg_lq >> 1) * 8;\n";
  // Two B fragments (16 x 8 of op(B) each: (k 0-7, n g) and (k 8-15, n g)
  // pairs): matrix q at k + (q & 1) * 8, n + (q >> 1) * 8.
  OS << "  // Two n tiles of op(B) (16 x 8 each): matrix q is (k + (q & 1) * 8, n + (q >> 1) * 8),\n"
     << "  // read " << (B.KRows ? "transposed (its rows are k)" : "as it lies (its rows are n)")
     << ".\n";
  if (B.KRows)
    OS << "  const int fg_bn = (fg_lq >> 1) * 8, fg_bk = (fg_lq & 1) * 8 + fg_lr;\n";
  else
    OS << "  const int fg_bn = (fg_lq >> 1) * 8 + fg_lr, fg_bk = (fg_lq & 1) * 8;\n";
  const char *const AB = R"(    // A and B as the bits of their elements (loaded and staged, never
    // computed with).
    const unsigned short *fg_A = reinterpret_cast<const unsigned short *>(A) + (long long)fg_b * M * K;
    const unsigned short *fg_B = reinterpret_cast<const unsigned short *>(B) + (long long)fg_b * K * N;
)";
  OS << mmaIndexText(R, 8, 4, batchPointers("fg_T", AB));
  OS << slabLoopText("uint4", "", indented(halfLoadText(A)) + indented(halfLoadText(B)),
                     "          // Whole 16-byte vectors, as they were loaded.\n" +
                         halfStoreText(A) + halfStoreText(B));
  OS << R"(#pragma unroll
          for (int fg_kk = 0; fg_kk < BK; fg_kk += 16) {
            // Fragments (PTX ISA, mma.m16n8k16 .f16/.bf16): B's b0 (k 2t,
            // 2t + 1; n g) and b1 (k 2t + 8, 2t + 9; n g) of every n tile,
            // two tiles an ldmatrix.x4; then per m tile A's a0 (m g; k 2t,
            // 2t + 1), a1 (m g + 8), a2 (m g; k 2t + 8, 2t + 9), a3 (m g + 8),
            // one ldmatrix.x4, used by NT mmas (one m tile's fragment live at
            // a time).
            unsigned fg_b[NT][2];
#pragma unroll
            for (int fg_j = 0; fg_j < NT; fg_j += 2) {
              unsigned fg_q[4];
)";
  OS << "              " << (B.KRows ? "fg_ldsm_t" : "fg_ldsm") << "(&"
     << B.at("fg_kk + fg_bk", "fg_wn + fg_j * 8 + fg_bn") << ", fg_q);\n";
  OS << R"(              fg_b[fg_j][0] = fg_q[0];
              fg_b[fg_j][1] = fg_q[1];
              fg_b[fg_j + 1][0] = fg_q[2];
              fg_b[fg_j + 1][1] = fg_q[3];
            }
#pragma unroll
            for (int fg_i = 0; fg_i < MT; ++fg_i) {
              unsigned fg_a[4];
)";
  OS << "              " << (A.KRows ? "fg_ldsm_t" : "fg_ldsm") << "(&"
     << A.at("fg_kk + fg_ak", "fg_wm + fg_i * 16 + fg_am") << ", fg_a);\n";
  OS << mmaAsmText("m16n8k16", E.Ptx);
  OS << mmaEpilogueText("        // C = alpha * acc + beta * C in f32, rounded once: the "
                        "accumulators\n"
                        "        // come in pairs of adjacent columns, one 4-byte access per pair\n"
                        "        // where it is whole and aligned, guarded elements else.\n",
                        "fg_T", "fg_T2", E.ToF2, E.FromF2, E.ToF, E.FromF);
  return S;
}

} // namespace

GemmHalfConfig defaultGemmHalfConfig() { return GemmHalfConfig(); }

Error checkGemmHalfConfig(const GemmHalfConfig &C, bool TransA, bool TransB) {
  return checkMmaConfig(C, TransA, TransB, HalfKind);
}

Expected<Instance> instantiateGemmHalf(const Request &R, const GemmHalfConfig &Cfg) {
  using namespace detail;
  Expected<std::string> NameOr = checkKernelRequest(
      R, R.Type == Scalar::F16 || R.Type == Scalar::BF16,
      "the f16/bf16 gemm takes f16 or bf16 elements, not {0}",
      [&] { return checkGemmHalfConfig(Cfg, R.TransA, R.TransB); });
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const int64_t K = R.Shape[2];
  const HalfElem E = halfElemFor(R.Type);
  const StringRef Dtype = scalarInfo(R.Type).Dtype;

  Instance I = startInstance("gemm", Name);
  std::string S = fileComment(
      R, "gemm",
      {formatv("Tensor cores in {0}: A, B and C are {1}, alpha and beta float. "
               "mma.sync.m16n8k16 multiplies the inputs exactly and sums the products in f32; "
               "the epilogue computes alpha * acc + beta * C in f32 and rounds once to {0}, so "
               "an element's error is about its rounding ({2} of its size) plus the f32 sums' "
               "(2^-24 * sqrt(K) times its terms' size). Needs sm_80 or newer.",
               Dtype, E.T, R.Type == Scalar::BF16 ? "2^-8" : "2^-11")
           .str(),
       mmaTilingNote("rows padded by 16 bytes so that ldmatrix reads them without bank "
                     "conflicts; ldmatrix.trans turns the operands whose rows run along k into "
                     "fragments"),
       mmaEdgesNote(4)});
  S += "#include <cuda_runtime.h>\n";
  S += "#include <" + E.Header.str() + ">\n\n";
  S += halfKernelText(R, Name, E);
  S += wrapperText(R, Name, E.T, "float", 8,
                   formatv("\n// The products run on the tensor cores (sm_80 or newer), summed in "
                           "f32; alpha and beta\n// are float, C is rounded once to {0}.",
                           Dtype)
                       .str(),
                   mmaConstants(Cfg), MmaArgs, MmaThreads);
  I.Source = std::move(S);

  // The tolerance. The inputs are f16 (bf16) already and the mma's
  // products of two of them are exact in f32 (22 or 16 significant bits);
  // the f32 sums are off by about 2^-24 sqrt(K) times the terms' size.
  // What dominates is the rounding of each element of C to the element
  // type: relative error at most u (2^-11 for f16, 2^-8 for bf16; round to
  // nearest), uniform in [-u, u] of the value's size on average, so the
  // relative L2 error is about u / sqrt(3) (1 / sqrt(3) of a unit
  // roundoff, whatever K). A reference that rounds C too (another
  // configuration, another kernel of this type) differs by two roundings:
  // about u sqrt(2/3). rel_l2 is 4 u (f16 1.95e-3, bf16 1.56e-2): about
  // 5 times that, and it still catches one missing k term where 1 /
  // sqrt(K) exceeds it (K up to about 260000 for f16, 4000 for bf16). An
  // element's error is at most u |c| from each rounding; for the spec's
  // inputs (uniform in [-1, 1], alpha 1, beta 0.5 over C in [-1, 1]) |c|
  // has standard deviation sqrt(K / 9 + 1 / 12), and 6 of them bound it:
  // max_abs = 2 u (2 sqrt(K) + 1) (two roundings of the largest |c|; at
  // K = 4096: 0.126 for f16, 1.01 for bf16, whose spacing at 64..128 is
  // 0.5).
  const double MaxAbs = 2 * E.U * (2 * std::sqrt(double(K)) + 1);
  const double RelL2 = 4 * E.U;
  Json CBuf = inoutBuffer("C", R.Type, "BATCH * M * N");
  CBuf["tolerance"] = {{"rel_l2", RelL2}, {"max_abs", MaxAbs}};
  I.Spec = gemmSpecHead(R, Name, MmaArgs, CBuf, Scalar::F32, MmaThreads);
  I.Spec["tunables"] = mmaTunables(Cfg, {16, 32, 64});
  I.Spec["constraints"] = mmaConstraints(R, HalfKind);
  addGemmCost(I.Spec, 2);
  I.Spec["notes"] = {
      formatv("forge-port new: the gemm template's {0} tensor-core kernel (mma.sync.m16n8k16, f32 "
              "accumulators, sm_80 or newer); A, B and C are {0}, alpha and beta f32; {1}",
              Dtype, GridNote)
          .str(),
        formatv("C's tolerance is the rounding of C to {0}: rel_l2 {1:e2} (4 u, u = {2}; the "
                "expected error is about u / sqrt(3)) and max_abs {3:f4} (2 u (2 sqrt(K) + 1), "
                "K = {4}); a larger K or inputs larger than [-1, 1] need a larger max_abs",
                Dtype, RelL2, R.Type == Scalar::BF16 ? "2^-8" : "2^-11", MaxAbs, K)
            .str(),
      BetaNote};
  I.Notes.push_back(formatv("{0} tensor cores: block tile {1} x {2} x {3}, warp tile {4} x {5} "
                            "({6} x {7} mma.sync.m16n8k16 tiles), {8} threads, at least {9} "
                            "block(s) an SM; sm_80 or newer",
                            Dtype, Cfg.BM, Cfg.BN, Cfg.BK, Cfg.WM, Cfg.WN, Cfg.WM / 16,
                            Cfg.WN / 8, Cfg.threads(), Cfg.MinBlocks)
                        .str());
  I.Notes.push_back(formatv("A, B and C are {0}, alpha and beta float; the products are summed in "
                            "f32 and C rounded once to {0}: the spec's tolerance is rel_l2 "
                            "{1:e2}, max_abs {2:f4}",
                            Dtype, RelL2, MaxAbs)
                        .str());
  if (R.AllowLowerPrecision)
    I.Notes.push_back(formatv("lower precision was allowed; the {0} kernel computes at the "
                              "request's own precision ({0} inputs, f32 sums)",
                              Dtype)
                          .str());
  return I;
}

std::vector<Request> gemmSamples() {
  auto Make = [](StringRef Name, Scalar T, int64_t M, int64_t N, int64_t K, int64_t Batch = 1,
                 bool TransA = false, bool TransB = false, bool LowP = false) {
    Request R;
    R.AllowLowerPrecision = LowP;
    R.Kind = OpKind::Gemm;
    R.Name = Name.str();
    R.Type = T;
    R.Shape = {M, N, K};
    R.Batch = Batch;
    R.TransA = TransA;
    R.TransB = TransB;
    return R;
  };
  return {
      // Odd everywhere: partial tiles along M and N, a partial last slab,
      // no 16-byte path for A or C (K and N not multiples of 4).
      Make("gemm_f32_odd", Scalar::F32, 513, 257, 129),
      // Many blocks and waves, every tile whole: the fast path.
      Make("gemm_f32_2048", Scalar::F32, 2048, 2048, 2048),
      // A^T: M a multiple of 4 (its 16-byte path), N odd.
      Make("gemm_f32_ta", Scalar::F32, 260, 333, 200, 1, true, false),
      // B^T: K a multiple of 4 (its 16-byte path), M odd.
      Make("gemm_f32_tb", Scalar::F32, 129, 200, 260, 1, false, true),
      // Both transposed, nothing a multiple of 4.
      Make("gemm_f32_tatb", Scalar::F32, 101, 70, 51, 1, true, true),
      Make("gemm_f64", Scalar::F64, 300, 200, 100),
      // 17 products of 64 x 48 x 80.
      Make("gemm_f32_batched", Scalar::F32, 64, 48, 80, 17),
      // The tf32 tensor-core kernel (lower precision allowed). Odd
      // everywhere: one partial tile, a partial last slab, no 16-byte path
      // for A and no 8-byte path for C.
      Make("gemm_tf32_odd", Scalar::F32, 67, 45, 130, 1, false, false, true),
      // Whole tiles and slabs, 16-byte loads everywhere (64 blocks).
      Make("gemm_tf32_1024", Scalar::F32, 1024, 1024, 1024, 1, false, false, true),
      // A^T (M a multiple of 4: its 16-byte path), N odd.
      Make("gemm_tf32_ta", Scalar::F32, 260, 333, 200, 1, true, false, true),
      // B^T (K a multiple of 4), M odd.
      Make("gemm_tf32_tb", Scalar::F32, 129, 200, 260, 1, false, true, true),
      // Both transposed, nothing a multiple of 4.
      Make("gemm_tf32_tatb", Scalar::F32, 101, 70, 51, 1, true, true, true),
      // 17 products of 67 x 45 x 130.
      Make("gemm_tf32_batched", Scalar::F32, 67, 45, 130, 17, false, false, true),
      // The f16 and bf16 tensor-core kernel. Odd everywhere: one partial
      // tile, a partial last slab, no 16-byte path for A (K not a multiple
      // of 8) and no 4-byte path for C (N odd).
      Make("gemm_f16_odd", Scalar::F16, 67, 45, 130),
      // Whole tiles and slabs, 16-byte loads everywhere (64 blocks).
      Make("gemm_f16_1024", Scalar::F16, 1024, 1024, 1024),
      // A^T (M a multiple of 8: its 16-byte path), N odd.
      Make("gemm_f16_ta", Scalar::F16, 264, 333, 200, 1, true, false),
      // B^T (K a multiple of 8), M odd.
      Make("gemm_f16_tb", Scalar::F16, 129, 200, 264, 1, false, true),
      // Both transposed, nothing a multiple of 8 (K a multiple of 16 plus 3).
      Make("gemm_f16_tatb", Scalar::F16, 101, 70, 51, 1, true, true),
      // 17 products of 67 x 45 x 130.
      Make("gemm_f16_batched", Scalar::F16, 67, 45, 130, 17),
      Make("gemm_bf16_odd", Scalar::BF16, 67, 45, 130),
      Make("gemm_bf16_1024", Scalar::BF16, 1024, 1024, 1024),
      Make("gemm_bf16_ta", Scalar::BF16, 264, 333, 200, 1, true, false),
      Make("gemm_bf16_tb", Scalar::BF16, 129, 200, 264, 1, false, true),
      Make("gemm_bf16_tatb", Scalar::BF16, 101, 70, 51, 1, true, true),
      // 5 products of 200 x 136 x 96 (whole 16-byte rows, partial tiles).
      Make("gemm_bf16_batched", Scalar::BF16, 200, 136, 96, 5),
  };
}

} // namespace forge::templates
