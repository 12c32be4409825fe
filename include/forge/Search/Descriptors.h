//===- Search/Descriptors.h - Behavioural descriptors of a variant -*- C++ -*-===//
///
/// \file
/// The four behavioural descriptors that place a kernel variant in a cell of
/// the MAP-Elites archive (`optimize --search evolve`), each measured from
/// the variant itself rather than from how it was produced:
///
/// - memory strategy: where the kernel reads reused data from. Register
///   tiling (per-thread arrays accumulated over a loop, or several
///   accumulators per thread over one loop) wins over shared-memory staging
///   (a __shared__ array the kernel both writes and reads), which wins over
///   plain global memory: a GEMM with shared tiles and a register tile per
///   thread is "register", the innermost level its inner loop reuses from;
/// - work per thread: the outputs one thread writes, counted in the
///   accessed type (one float4 store is one output; the vector width is the
///   next descriptor), from the trip counts of the loops around the stores.
///   A kernel whose per-thread stores are only per-block or per-grid results
///   (reductions) counts the elements it loads instead. Grid- and
///   block-stride loops are evaluated over the launch in CompileFacts when
///   it is given; otherwise they count once and the descriptor says so;
/// - vector width: the widest global load or store, in scalar lanes
///   (float2 2, float4/int4 4, through a `reinterpret_cast` too);
/// - occupancy band: the Arch database's occupancy for the compile's
///   registers, static and dynamic shared memory and block size.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SEARCH_DESCRIPTORS_H
#define FORGE_SEARCH_DESCRIPTORS_H

#include "forge/Analysis/KernelModel.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forge::search {

enum class MemoryStrategy { Global, Shared, Register };
enum class WorkBand { One, TwoToThree, FourToSeven, EightPlus };
enum class VectorWidth { Scalar, Two, Four };
enum class OccupancyBand { Below25, From25To50, From50To75, AtLeast75 };

inline constexpr unsigned NumMemoryStrategies = 3;
inline constexpr unsigned NumWorkBands = 4;
inline constexpr unsigned NumVectorWidths = 3;
inline constexpr unsigned NumOccupancyBands = 4;
inline constexpr unsigned NumCells =
    NumMemoryStrategies * NumWorkBands * NumVectorWidths * NumOccupancyBands;

/// Report names: "global", "shared", "register"; "1", "2-3", "4-7", "8+";
/// "scalar", "float2", "float4"; "<25 %", "25-50 %", "50-75 %", ">=75 %".
llvm::StringRef memoryStrategyName(MemoryStrategy M);
llvm::StringRef workBandName(WorkBand W);
llvm::StringRef vectorWidthName(VectorWidth V);
llvm::StringRef occupancyBandName(OccupancyBand O);

std::optional<MemoryStrategy> parseMemoryStrategy(llvm::StringRef S);
std::optional<WorkBand> parseWorkBand(llvm::StringRef S);
std::optional<VectorWidth> parseVectorWidth(llvm::StringRef S);
std::optional<OccupancyBand> parseOccupancyBand(llvm::StringRef S);

/// The band a count or a fraction falls in.
WorkBand workBandOf(uint64_t ItemsPerThread);
VectorWidth vectorWidthOf(unsigned Lanes);
OccupancyBand occupancyBandOf(double Occupancy); ///< 0..1

/// What the compile and the measured launch say about a variant.
struct CompileFacts {
  int Registers = 0;     ///< per thread (ptxas)
  int StaticShared = 0;  ///< bytes per block (ptxas)
  int DynamicShared = 0; ///< bytes per block (the launch)
  int BlockThreads = 0;  ///< threads per block of the measured launch
  /// The measured launch, when known: evaluates grid- and block-stride
  /// loops (and loops bounded by parameters) to their trips per thread.
  std::optional<std::array<int64_t, 3>> Block, Grid;
  /// Values of the kernel's scalar parameters and template parameters by
  /// name ("n" -> 16777216).
  std::map<std::string, int64_t> Scalars;
};

/// What the model does not hold and the memory strategy needs, read from
/// the kernel's AST: per-thread arrays that are accumulated or filled
/// inside a loop while declared outside it (register tiles).
struct BodyFacts {
  unsigned RegisterArrays = 0;
  /// Elements of the largest one.
  uint64_t RegisterArrayElements = 0;
  /// Their names, for the reasons.
  std::vector<std::string> Names;
};

BodyFacts bodyFacts(const clang::FunctionDecl &Kernel, clang::ASTContext &Ctx);

/// One variant's cell, with the measurements behind each band.
struct Descriptor {
  MemoryStrategy Memory = MemoryStrategy::Global;
  WorkBand Work = WorkBand::One;
  VectorWidth Vector = VectorWidth::Scalar;
  OccupancyBand Occupancy = OccupancyBand::Below25;

  /// The measurements (informative; the bands are the key).
  uint64_t ItemsPerThread = 1;
  /// False when a loop's trips could not be evaluated (counted once).
  bool ItemsExact = true;
  unsigned VectorLanes = 1;
  double OccupancyFraction = 0;
  /// Why each band was chosen, in words ("__shared__ 'tile' is written and
  /// read", "store C[...] runs 16 times per thread").
  std::string MemoryWhy, WorkWhy, VectorWhy, OccupancyWhy;

  /// The cell key "shared/4-7/float4/50-75 %".
  std::string key() const;
  /// 0 .. NumCells-1, in the order of the enums (memory slowest).
  unsigned cellIndex() const;
  static Descriptor fromCellIndex(unsigned Index);
  bool sameCell(const Descriptor &O) const {
    return Memory == O.Memory && Work == O.Work && Vector == O.Vector && Occupancy == O.Occupancy;
  }
};

/// The descriptor of a modelled kernel. Body, when given, supplies the
/// register arrays the model does not track (without it, register tiling is
/// recognised only from several per-thread accumulators over one loop).
/// Fails when the block cannot launch on T (a LaunchLimitError) or the
/// facts are nonsensical.
llvm::Expected<Descriptor> describe(const analysis::KernelModel &M, const CompileFacts &C,
                                    const arch::TargetInfo &T, const BodyFacts *Body = nullptr);

/// How to parse a variant's source for describeSource.
struct SourceParse {
  frontend::Toolchain TC;
  frontend::ParseOptions Parse;
  /// The name the source is parsed under (diagnostics, #include "..."
  /// relative to its directory).
  std::string File = "variant.cu";
};

/// Parses Source (the device side), analyses Kernel (a unique or qualified
/// name) and describes it. Fails when Clang cannot run or the kernel is not
/// defined in Source.
llvm::Expected<Descriptor> describeSource(llvm::StringRef Source, llvm::StringRef Kernel,
                                          const CompileFacts &C, const arch::TargetInfo &T,
                                          const SourceParse &P);

/// {"memory": "shared", "work": "4-7", "vector": "float4", "occupancy":
/// "50-75 %", "items_per_thread", "items_exact", "vector_lanes",
/// "occupancy_fraction", "why": {...}}.
Json toJson(const Descriptor &D);
/// Strict: the four bands must be present with known names.
llvm::Expected<Descriptor> descriptorFromJson(const Json &J, llvm::StringRef Origin,
                                              llvm::StringRef Path = "$");

} // namespace forge::search

#endif
