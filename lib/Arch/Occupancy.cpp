//===- Arch/Occupancy.cpp - CUDA occupancy calculator ---------------------===//

#include "forge/Arch/Occupancy.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <climits>
#include <cstdint>

using namespace llvm;

namespace forge::arch {

char LaunchLimitError::ID;

namespace {

constexpr int WarpSize = 32;

int64_t divideCeil(int64_t X, int64_t Y) { return (X + Y - 1) / Y; }
int64_t roundUp(int64_t X, int64_t Y) { return divideCeil(X, Y) * Y; }

/// The smallest legal carveout of at least Bytes; the largest one if none
/// is (cannot happen for a block that passed the opt-in check).
int64_t alignToCarveout(const SmLimits &L, int64_t Bytes) {
  for (int KB : L.CarveoutsKB)
    if (int64_t(KB) * 1024 >= Bytes)
      return int64_t(KB) * 1024;
  return int64_t(L.CarveoutsKB.back()) * 1024;
}

Error launchError(LaunchLimit Limit, std::string Msg) {
  return make_error<LaunchLimitError>(Limit, std::move(Msg));
}

} // namespace

const char *limiterName(OccupancyLimiter L) {
  switch (L) {
  case OccupancyLimiter::None:
    return "none";
  case OccupancyLimiter::Warps:
    return "warps";
  case OccupancyLimiter::Blocks:
    return "blocks";
  case OccupancyLimiter::Registers:
    return "registers";
  case OccupancyLimiter::SharedMemory:
    return "shared memory";
  }
  llvm_unreachable("unknown limiter");
}

std::string OccupancyResult::describe() const {
  std::string Limit = Limiter == OccupancyLimiter::None
                          ? std::string("full occupancy")
                          : std::string("limited by ") + limiterName(Limiter);
  return formatv("{0} blocks/SM, {1} of {2} warps ({3:P0}); {4}",
                 ActiveBlocksPerSM, ActiveWarpsPerSM, MaxWarpsPerSM, Occupancy,
                 Limit)
      .str();
}

Expected<OccupancyResult> computeOccupancy(const TargetInfo &T,
                                           const KernelResources &K) {
  const SmLimits &L = T.limits();
  if (K.ThreadsPerBlock <= 0 || K.RegistersPerThread < 0 ||
      K.StaticSharedBytes < 0 || K.DynamicSharedBytes < 0 ||
      K.CarveoutPercent < -1 || K.CarveoutPercent > 100)
    return makeUsageError(
        "invalid kernel resources (threads {0}, registers {1}, static shared "
        "{2}, dynamic shared {3}, carveout {4})",
        K.ThreadsPerBlock, K.RegistersPerThread, K.StaticSharedBytes,
        K.DynamicSharedBytes, K.CarveoutPercent);

  // Limits that make the launch fail outright.
  if (K.ThreadsPerBlock > L.MaxThreadsPerBlock)
    return launchError(
        LaunchLimit::ThreadsPerBlock,
        formatv("{0} threads per block exceeds the limit of {1} on {2}",
                K.ThreadsPerBlock, L.MaxThreadsPerBlock, T.Name));
  if (K.RegistersPerThread > L.MaxRegistersPerThread)
    return launchError(
        LaunchLimit::RegistersPerThread,
        formatv("{0} registers per thread exceeds the limit of {1} on {2}",
                K.RegistersPerThread, L.MaxRegistersPerThread, T.Name));

  int64_t WarpsPerBlock = divideCeil(K.ThreadsPerBlock, WarpSize);
  int64_t RegsPerWarp =
      roundUp(int64_t(K.RegistersPerThread) * WarpSize, L.RegisterAllocUnit);
  int64_t RegsPerBlock = RegsPerWarp * WarpsPerBlock;
  // The hardware checks a block as if its warps were spread evenly over all
  // sub-partitions, so a 5-warp block is charged like an 8-warp one.
  int64_t RegsChecked =
      RegsPerWarp * roundUp(WarpsPerBlock, L.RegisterSubPartitions);
  if (std::max(RegsPerBlock, RegsChecked) > L.RegistersPerBlock)
    return launchError(
        LaunchLimit::RegistersPerBlock,
        formatv("a block of {0} threads at {1} registers per thread needs {2} "
                "registers, more than the {3} per block on {4}; use fewer "
                "threads or cap registers with __launch_bounds__",
                K.ThreadsPerBlock, K.RegistersPerThread,
                std::max(RegsPerBlock, RegsChecked), L.RegistersPerBlock,
                T.Name));

  if (K.StaticSharedBytes > L.StaticSharedMemPerBlock)
    return launchError(
        LaunchLimit::StaticSharedMemory,
        formatv("{0} bytes of static shared memory exceeds the limit of {1} "
                "bytes on {2}; use dynamic shared memory",
                K.StaticSharedBytes, L.StaticSharedMemPerBlock, T.Name));
  int64_t SharedPerBlock =
      roundUp(int64_t(K.StaticSharedBytes) + K.DynamicSharedBytes +
                  L.ReservedSharedMemPerBlock,
              L.SharedMemAllocUnit);
  if (SharedPerBlock > int64_t(L.OptInSharedMemPerBlock) +
                           L.ReservedSharedMemPerBlock)
    return launchError(
        LaunchLimit::SharedMemory,
        formatv("{0} bytes of shared memory per block ({1} static + {2} "
                "dynamic) exceeds the opt-in maximum of {3} bytes on {4}",
                int64_t(K.StaticSharedBytes) + K.DynamicSharedBytes,
                K.StaticSharedBytes, K.DynamicSharedBytes,
                L.OptInSharedMemPerBlock, T.Name));

  OccupancyResult R;
  R.MaxWarpsPerSM = L.maxWarpsPerSM();
  R.RegistersPerBlock = int(RegsPerBlock);
  R.SharedBytesPerBlock = int(SharedPerBlock);
  R.BlocksByWarps = int(R.MaxWarpsPerSM / WarpsPerBlock);
  R.BlocksByBlockSlots = L.MaxBlocksPerSM;

  // Registers: each sub-partition holds whole warps.
  if (RegsPerWarp == 0) {
    R.BlocksByRegisters = INT_MAX;
  } else {
    int64_t WarpsPerPartition =
        (L.RegistersPerSM / L.RegisterSubPartitions) / RegsPerWarp;
    R.BlocksByRegisters =
        int(WarpsPerPartition * L.RegisterSubPartitions / WarpsPerBlock);
  }

  // Shared memory: the preferred carveout is a hint; the driver grows it
  // when a single block would not fit.
  int64_t Carveout =
      K.CarveoutPercent < 0
          ? alignToCarveout(L, L.SharedMemPerSM)
          : alignToCarveout(L, int64_t(K.CarveoutPercent) * L.SharedMemPerSM /
                                   100);
  if (Carveout < SharedPerBlock)
    Carveout = alignToCarveout(L, SharedPerBlock);
  R.SharedBytesPerSM = int(Carveout);
  R.BlocksBySharedMemory =
      SharedPerBlock == 0 ? INT_MAX : int(Carveout / SharedPerBlock);

  R.ActiveBlocksPerSM = std::min({R.BlocksByWarps, R.BlocksByBlockSlots,
                                  R.BlocksByRegisters, R.BlocksBySharedMemory});
  R.ActiveWarpsPerSM = int(R.ActiveBlocksPerSM * WarpsPerBlock);
  R.Occupancy = double(R.ActiveWarpsPerSM) / R.MaxWarpsPerSM;

  // Name the resource a user can act on first when several bind at once.
  if (R.ActiveWarpsPerSM == R.MaxWarpsPerSM)
    R.Limiter = OccupancyLimiter::None;
  else if (R.ActiveBlocksPerSM == R.BlocksByRegisters)
    R.Limiter = OccupancyLimiter::Registers;
  else if (R.ActiveBlocksPerSM == R.BlocksBySharedMemory)
    R.Limiter = OccupancyLimiter::SharedMemory;
  else if (R.ActiveBlocksPerSM == R.BlocksByBlockSlots)
    R.Limiter = OccupancyLimiter::Blocks;
  else
    R.Limiter = OccupancyLimiter::Warps;
  return R;
}

} // namespace forge::arch
