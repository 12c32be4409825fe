//===- Arch/Occupancy.h - CUDA occupancy calculator ------------*- C++ -*-===//
///
/// \file
/// Predicts what cudaOccupancyMaxActiveBlocksPerMultiprocessor would return
/// on a target, so that retuning can rank configurations without a GPU of
/// that target (DESIGN.md, porting rule 7). It follows the rules of the
/// toolkit's cuda_occupancy.h: registers are allocated per warp in units of
/// 256 and checked per block over the SM's four sub-partitions, warps are
/// allocated whole, shared memory is allocated in 128 B units (256 B on
/// sm_75) plus 1 KB reserved per block on sm_80 and later, and the per-SM
/// shared memory is the preferred carveout rounded up to a legal size.
///
/// The kernel is assumed to have opted in (cudaFuncSetAttribute) to the
/// dynamic shared memory it uses. Barrier and virtual-resource limits are
/// left out: with one barrier per block they never bind before the block
/// limit does.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ARCH_OCCUPANCY_H
#define FORGE_ARCH_OCCUPANCY_H

#include "forge/Arch/TargetInfo.h"
#include "llvm/Support/Error.h"
#include <string>

namespace forge::arch {

/// What one block of a kernel asks for.
struct KernelResources {
  int ThreadsPerBlock = 0;
  int RegistersPerThread = 0;
  int StaticSharedBytes = 0;
  int DynamicSharedBytes = 0;
  /// cudaFuncAttributePreferredSharedMemoryCarveout: -1 is the default
  /// (cudaSharedmemCarveoutDefault), otherwise a percentage 0-100 of the
  /// SM's shared memory.
  int CarveoutPercent = -1;
};

/// The resource that stops one more block from fitting.
enum class OccupancyLimiter {
  None,        ///< Every warp slot is filled.
  Warps,       ///< Warp (thread) slots per SM.
  Blocks,      ///< Resident blocks per SM.
  Registers,   ///< The register file.
  SharedMemory ///< Shared memory in the carveout.
};

const char *limiterName(OccupancyLimiter L);

struct OccupancyResult {
  int ActiveBlocksPerSM = 0;
  int ActiveWarpsPerSM = 0;
  int MaxWarpsPerSM = 0;
  /// ActiveWarpsPerSM / MaxWarpsPerSM.
  double Occupancy = 0;
  OccupancyLimiter Limiter = OccupancyLimiter::None;
  /// Blocks per SM each resource alone would allow; INT_MAX when the
  /// kernel does not use the resource.
  int BlocksByWarps = 0;
  int BlocksByBlockSlots = 0;
  int BlocksByRegisters = 0;
  int BlocksBySharedMemory = 0;
  int RegistersPerBlock = 0;     ///< As allocated (rounded per warp).
  int SharedBytesPerBlock = 0;   ///< As allocated, reserved 1 KB included.
  int SharedBytesPerSM = 0;      ///< The carveout the SM runs with.

  /// "4 blocks/SM, 32 of 64 warps (50%); limited by registers".
  std::string describe() const;
};

/// Why a block cannot launch at all.
enum class LaunchLimit {
  ThreadsPerBlock,
  RegistersPerThread,
  RegistersPerBlock,
  StaticSharedMemory,
  SharedMemory,
};

/// A configuration that can never launch on the target. The tuner records
/// it as a failed configuration rather than stopping, so it gets its own
/// kind.
class LaunchLimitError : public llvm::ErrorInfo<LaunchLimitError> {
public:
  static char ID;
  LaunchLimitError(LaunchLimit Limit, std::string Msg)
      : Limit(Limit), Msg(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  LaunchLimit limit() const { return Limit; }

private:
  LaunchLimit Limit;
  std::string Msg;
};

/// Active blocks per SM for K on T. Returns a LaunchLimitError when the block
/// cannot launch, and a UsageError for nonsensical input (no threads,
/// negative sizes, a carveout outside -1..100).
llvm::Expected<OccupancyResult> computeOccupancy(const TargetInfo &T,
                                                 const KernelResources &K);

} // namespace forge::arch

#endif
