//===- Arch/TargetInfo.h - Per-target CUDA limits and features -*- C++ -*-===//
///
/// \file
/// A table of the CUDA targets that CUDA 13.0 can build for, with the per-SM
/// limits the occupancy calculator needs and the features that decide where
/// arch-specific instructions assemble. The facts live in one data table in
/// TargetInfo.cpp so that a new target is one row, not new code.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ARCH_TARGETINFO_H
#define FORGE_ARCH_TARGETINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::arch {

/// The suffix of a target name: sm_90 (None), sm_90a (ArchSpecific: exactly
/// one compute capability), sm_100f (FamilySpecific: the same major version
/// with an equal or later minor version).
enum class ArchVariant { None, ArchSpecific, FamilySpecific };

/// Hardware features that porting rules check before code may use them.
enum class Feature : unsigned {
  CpAsync,    ///< cp.async (sm_80+)
  TMA,        ///< cp.async.bulk / tensor memory accelerator (sm_90+)
  Clusters,   ///< thread-block clusters, distributed shared memory (sm_90+)
  WGMMA,      ///< wgmma.mma_async (sm_90a only)
  TCGen05,    ///< tcgen05.* tensor-memory MMA (sm_100a/f, sm_103a/f, sm_110a/f)
  SetMaxNReg, ///< setmaxnreg (a/f targets of sm_90 and later only)
};
constexpr unsigned NumFeatures = 6;

/// The name used in messages and docs ("cp.async", "wgmma", ...).
const char *featureName(Feature F);

/// Per-SM resources shared by every variant of one compute capability.
struct SmLimits {
  int MaxThreadsPerSM;
  int MaxBlocksPerSM;
  int MaxThreadsPerBlock;
  int RegistersPerSM;
  int RegistersPerBlock;
  int MaxRegistersPerThread;
  /// Registers are handed out per warp in units of this many.
  int RegisterAllocUnit;
  /// Each SM has this many scheduler partitions; the hardware's per-block
  /// register check rounds the warp count up to a multiple of it.
  int RegisterSubPartitions;
  int SharedMemPerSM;
  /// Largest dynamic + static shared memory one block may use after
  /// cudaFuncSetAttribute(MaxDynamicSharedMemorySize).
  int OptInSharedMemPerBlock;
  /// Largest statically declared (__shared__) amount per block.
  int StaticSharedMemPerBlock;
  int SharedMemAllocUnit;
  /// Shared memory the driver keeps per block on sm_80+ (1 KB).
  int ReservedSharedMemPerBlock;
  /// The legal shared-memory carveouts per SM in KB, ascending; the driver
  /// rounds a requested carveout up to one of these.
  llvm::ArrayRef<int> CarveoutsKB;

  int maxWarpsPerSM() const { return MaxThreadsPerSM / 32; }
};

/// One row of the target table.
struct TargetInfo {
  const char *Name; ///< "sm_90a"
  int Major;
  int Minor;
  ArchVariant Variant;
  const SmLimits *Limits;
  unsigned FeatureMask;

  const SmLimits &limits() const { return *Limits; }
  /// 90 for sm_90a, 103 for sm_103f.
  int ccNumber() const { return Major * 10 + Minor; }
  /// The value of __CUDA_ARCH__ when compiling for this target ("900").
  std::string archMacroValue() const;
  /// The virtual architecture for -gencode arch= ("compute_90a").
  std::string gencodeArch() const;
  /// The real architecture for -gencode code= ("sm_90a").
  std::string gencodeCode() const { return Name; }
  /// The value of nvcc's -gencode for this target: SASS
  /// ("arch=compute_90a,code=sm_90a"), or with Ptx the PTX embedded for
  /// JIT compilation ("arch=compute_90a,code=compute_90a"). The only place
  /// that spells a -gencode.
  std::string gencode(bool Ptx = false) const;
  bool hasFeature(Feature F) const {
    return FeatureMask & (1u << static_cast<unsigned>(F));
  }
  /// Whether SASS built for this target loads on Device (only its compute
  /// capability matters): plain and family-specific code runs on the same
  /// major version with an equal or later minor; arch-specific code only on
  /// the exact compute capability.
  bool runsOn(const TargetInfo &Device) const;
};

/// The target a file is read for when nothing names one: sm_80, the oldest
/// target whose features (cp.async) most current code assumes.
const TargetInfo &defaultTarget();

/// All known targets, in ascending compute-capability order.
llvm::ArrayRef<TargetInfo> allTargets();

/// Looks a target up by "sm_90a", "sm90a", "90a" or "compute_90a" (any
/// case). An unknown name is a UsageError that lists the known names.
llvm::Expected<const TargetInfo &> lookupTarget(llvm::StringRef Name);

/// "sm_75", "sm_80", ... in table order.
std::vector<std::string> knownTargetNames();

/// Parses "sm_80,sm_90a" into targets, in order, without duplicates.
llvm::Expected<std::vector<const TargetInfo *>>
parseTargetList(llvm::StringRef CommaSeparated);

} // namespace forge::arch

#endif
