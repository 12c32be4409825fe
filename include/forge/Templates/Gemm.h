//===- Templates/Gemm.h - A tiled GEMM (f32, f64; tf32, f16, bf16 tensor cores) -*- C++ -*-===//
///
/// \file
/// The template "gemm": C = alpha * op(A) * op(B) + beta * C over row-major
/// matrices (A is M x K, K x M when transposed; B is K x N, N x K when
/// transposed; C is M x N), for `batch` independent products strided by
/// each matrix's size, in one launch of one kernel. Two kernels:
///
/// - the default, on the FMA units (f32 and f64), below;
/// - for f32 when the request allows lower precision
///   (Request::AllowLowerPrecision), a tf32 tensor-core kernel
///   (instantiateGemmTf32, sm_80 and newer): the same signature, wrapper
///   and launch contract, inputs rounded to tf32 (10-bit mantissa) and
///   products accumulated in f32 by `mma.sync.m16n8k8`; its spec carries a
///   tf32 tolerance. f64 requests ignore the flag (a note says so);
/// - for f16 and bf16 (A, B and C of that type, alpha and beta f32), a
///   tensor-core kernel (instantiateGemmHalf, sm_80 and newer):
///   `mma.sync.m16n8k16` with f32 accumulation, fragments read by
///   `ldmatrix`, the epilogue in f32 rounded once to C's type.
///
/// The FMA kernel:
///
/// - a block computes a BM x BN tile of C, a warp a WM x WN part of it,
///   a thread TM x TN elements in registers, in groups of VW columns and
///   rows (VW: the elements of 16 bytes, 4 floats or 2 doubles) spread
///   over the warp so that its shared-memory reads are conflict-free
///   16-byte loads;
/// - op(A) and op(B) are staged through shared memory in slabs of BK,
///   op(A) stored k-major (transposed when A is row-major) so that the
///   inner loop reads VW-vectors of both; 16-byte global loads where the
///   leading dimension and the pointer allow, guarded scalar loads (zero
///   fill) at the edges;
/// - two shared buffers: the next slab's global loads are in flight in
///   registers while the current slab is multiplied, one __syncthreads per
///   slab;
/// - the block loops over the tiles and products its grid does not cover,
///   so any grid is correct (the wrapper launches one block per tile, at
///   most 65535 along y and z).
///
/// The tile sizes are the kernel's template parameters, the spec's
/// tunables, with constraints for invalid combinations.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_GEMM_H
#define FORGE_TEMPLATES_GEMM_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// One configuration of the kernel's template parameters.
struct GemmConfig {
  int BM = 128, BN = 128, BK = 8; ///< the block's tile of C and the K slab
  int WM = 32, WN = 64;           ///< a warp's part of the tile
  int TM = 8, TN = 8;             ///< a thread's part
  /// Blocks an SM must hold at once (__launch_bounds__'s second
  /// argument): it caps the registers at 65536 / (threads * MinBlocks).
  int MinBlocks = 2;
  /// Threads of a block: (BM / TM) * (BN / TN).
  int threads() const { return (BM / TM) * (BN / TN); }
};

/// The wrapper's configuration for element type T (f32: 128 x 128 x 8,
/// warps 32 x 64, threads 8 x 8, 2 blocks an SM (128 registers); f64:
/// 128 x 64 x 8, warps 32 x 32, threads 8 x 4, 1 block an SM).
GemmConfig defaultGemmConfig(Scalar T);
/// The configuration instantiateGemm(R) takes for an FMA request: the
/// type's default, or for one f32 product large enough that 128 x 256 tiles
/// fill two waves of R.SMs, 128 x 256 x 8 with warps 128 x 32, threads
/// 8 x 16 and one block an SM (the fastest of an exhaustive sweep at 4096^3).
GemmConfig defaultGemmConfigFor(const Request &R);

/// What is wrong with C for element type T, in words (the spec's
/// constraints, also static_asserts of the kernel), or success.
llvm::Error checkGemmConfig(const GemmConfig &C, Scalar T);

/// The tf32 tensor-core kernel's template parameters: a block computes a
/// BM x BN tile of C with (BM / WM) * (BN / WN) warps, a warp a WM x WN part
/// of it as (WM / 16) x (WN / 8) tiles of `mma.sync.m16n8k8`, its
/// accumulators in registers; op(A) and op(B) pass through shared memory in
/// slabs of BK (a multiple of the mma's k of 8).
struct GemmTf32Config {
  int BM = 128, BN = 128, BK = 8; ///< the block's tile of C and the K slab
  int WM = 64, WN = 32;            ///< a warp's part of the tile
  int MinBlocks = 2;               ///< __launch_bounds__'s second argument
  /// Threads of a block: 32 per warp.
  int threads() const { return (BM / WM) * (BN / WN) * 32; }
};

/// 128 x 128 x 8, warps 64 x 32 (8 warps, 64 accumulators a thread), 2
/// blocks an SM (128 registers; with BK = 16 ptxas spilled 8 bytes for B^T).
GemmTf32Config defaultGemmTf32Config();

/// What is wrong with C for the tf32 kernel, in words (the spec's
/// constraints, also static_asserts of the kernel), or success. The shared
/// slabs' layout follows A's and B's (TransA, TransB), and so does their size.
llvm::Error checkGemmTf32Config(const GemmTf32Config &C, bool TransA, bool TransB);

/// The GEMM of R (kind gemm, Shape {M, N, K}, Batch, TransA, TransB; f32
/// or f64: f16 and bf16 are refused, instantiateGemmHalf takes them) on
/// the FMA units: kernel R.Name (default "gemm") with its host
/// wrapper forge_<Name> launching Config, and its spec. With
/// R.AllowLowerPrecision it still computes in full precision (a note says
/// so): the explicit FMA configuration wins.
llvm::Expected<Instance> instantiateGemm(const Request &R, const GemmConfig &Config);
/// The tf32 tensor-core GEMM of R (f32 only; sm_80 and newer, the kernel
/// traps when compiled for older targets), launching Config. Whether or not
/// R.AllowLowerPrecision is set: calling it is the permission.
llvm::Expected<Instance> instantiateGemmTf32(const Request &R, const GemmTf32Config &Config);
/// The f16/bf16 tensor-core kernel's template parameters, as the tf32
/// kernel's: a block computes BM x BN of C with (BM / WM) * (BN / WN) warps,
/// a warp WM x WN as (WM / 16) x (WN / 8) tiles of `mma.sync.m16n8k16`;
/// op(A) and op(B) pass through shared memory in slabs of BK (a multiple of
/// the mma's k of 16).
struct GemmHalfConfig {
  int BM = 128, BN = 128, BK = 16; ///< the block's tile of C and the K slab
  int WM = 64, WN = 32;            ///< a warp's part of the tile
  int MinBlocks = 2;               ///< __launch_bounds__'s second argument
  /// Threads of a block: 32 per warp.
  int threads() const { return (BM / WM) * (BN / WN) * 32; }
};

/// 128 x 128 x 16, warps 64 x 32 (8 warps, 64 accumulators a thread), 2
/// blocks an SM (128 registers; with BK = 32 ptxas spilled 4 to 16 bytes
/// for A^T on sm_80 and for both transposed on sm_90).
GemmHalfConfig defaultGemmHalfConfig();

/// What is wrong with C for the f16/bf16 kernel, in words (the spec's
/// constraints, also static_asserts of the kernel), or success. The shared
/// slabs keep A's and B's layouts (TransA, TransB), and so does their size.
llvm::Error checkGemmHalfConfig(const GemmHalfConfig &C, bool TransA, bool TransB);

/// The tensor-core GEMM of an f16 or bf16 request R (sm_80 and newer, the
/// kernel traps when compiled for older targets), launching Config: A, B
/// and C of R.Type, alpha and beta f32, products summed in f32.
llvm::Expected<Instance> instantiateGemmHalf(const Request &R, const GemmHalfConfig &Config);

/// The template's choice: the f16/bf16 tensor-core kernel at
/// defaultGemmHalfConfig() for an f16 or bf16 request; the tf32 kernel at
/// defaultGemmTf32Config() for an f32 request that allows lower precision;
/// else the FMA kernel at defaultGemmConfig(R.Type).
llvm::Expected<Instance> instantiateGemm(const Request &R);
std::vector<Request> gemmSamples();

} // namespace forge::templates

#endif
