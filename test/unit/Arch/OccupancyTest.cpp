#include "forge/Arch/Occupancy.h"
#include "forge/Support/Error.h"
#include "gtest/gtest.h"
#include <climits>

using namespace forge;
using namespace forge::arch;

namespace {

const TargetInfo &target(llvm::StringRef Name) {
  llvm::Expected<const TargetInfo &> T = lookupTarget(Name);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return allTargets().front();
  }
  return *T;
}

/// Active blocks per SM, or 0 when the block cannot launch (what the CUDA
/// API reports in that case).
int blocks(llvm::StringRef Target, int Threads, int Regs, int Static, int Dyn,
           int Carveout = -1) {
  llvm::Expected<OccupancyResult> R = computeOccupancy(
      target(Target), KernelResources{Threads, Regs, Static, Dyn, Carveout});
  if (!R) {
    llvm::handleAllErrors(R.takeError(), [](const LaunchLimitError &) {});
    return 0;
  }
  return R->ActiveBlocksPerSM;
}

OccupancyResult occupancy(llvm::StringRef Target, int Threads, int Regs,
                          int Static, int Dyn) {
  llvm::Expected<OccupancyResult> R = computeOccupancy(
      target(Target), KernelResources{Threads, Regs, Static, Dyn});
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return {};
  }
  return *R;
}

/// The kind of the LaunchLimitError, with a failure for anything else.
LaunchLimit launchLimit(llvm::StringRef Target, int Threads, int Regs,
                        int Static, int Dyn, std::string *Msg = nullptr) {
  llvm::Expected<OccupancyResult> R = computeOccupancy(
      target(Target), KernelResources{Threads, Regs, Static, Dyn});
  LaunchLimit Kind = LaunchLimit::ThreadsPerBlock;
  if (R) {
    ADD_FAILURE() << "launched: " << R->describe();
    return Kind;
  }
  bool Seen = false;
  llvm::handleAllErrors(
      R.takeError(),
      [&](const LaunchLimitError &E) {
        Seen = true;
        Kind = E.limit();
        if (Msg)
          *Msg = E.message();
      },
      [&](const llvm::ErrorInfoBase &E) {
        ADD_FAILURE() << "not a launch limit: " << E.message();
      });
  EXPECT_TRUE(Seen);
  return Kind;
}

struct Case {
  const char *Target;
  int Threads, Regs, StaticSmem, DynamicSmem;
  int Blocks;
};

// Expected values came from the CUDA 13.0 toolkit's cuda_occupancy.h:
// cudaOccMaxActiveBlocksPerMultiprocessor with a cudaOccDeviceProp filled
// for the target (warp size 32, 1024 threads/block, 64K registers, 48 KB
// per block, the opt-in and reserved shared memory of the target), the
// function opted in to its dynamic shared memory (FUNC_SHMEM_LIMIT_OPTIN),
// one block barrier and the default carveout and cache config. 0 means the
// block cannot launch.
const Case OccHeaderCases[] = {
    {"sm_80", 128, 32, 0, 0, 16},
    {"sm_80", 256, 64, 0, 0, 4},
    {"sm_80", 1024, 32, 0, 0, 2},
    {"sm_80", 128, 128, 0, 0, 4},
    {"sm_80", 128, 255, 0, 0, 2},
    {"sm_80", 256, 32, 49152, 0, 3},
    {"sm_80", 256, 32, 0, 102400, 1},
    {"sm_80", 128, 64, 0, 163840, 1},
    {"sm_80", 1024, 64, 0, 0, 1},
    {"sm_80", 256, 128, 16384, 32768, 2},
    {"sm_80", 96, 40, 0, 0, 16},
    {"sm_80", 256, 255, 0, 0, 1},
    {"sm_80", 768, 16, 0, 0, 2},
    {"sm_80", 32, 16, 0, 0, 32},
    {"sm_80", 128, 32, 0, 166912, 1},
    {"sm_80", 128, 32, 0, 166913, 0},
    {"sm_90", 128, 32, 0, 0, 16},
    {"sm_90", 256, 64, 0, 0, 4},
    {"sm_90", 1024, 32, 0, 0, 2},
    {"sm_90", 128, 128, 0, 0, 4},
    {"sm_90", 128, 255, 0, 0, 2},
    {"sm_90", 256, 32, 49152, 0, 4},
    {"sm_90", 256, 32, 0, 102400, 2},
    {"sm_90", 128, 64, 0, 204800, 1},
    {"sm_90", 1024, 64, 0, 0, 1},
    {"sm_90", 384, 168, 0, 0, 1},
    {"sm_90", 128, 32, 0, 232448, 1},
    {"sm_90", 128, 32, 0, 232449, 0},
    {"sm_90", 640, 48, 0, 0, 2},
    {"sm_90", 320, 200, 0, 0, 0},
    {"sm_90", 1024, 255, 0, 0, 0},
    {"sm_90", 1024, 65, 0, 0, 0},
    {"sm_86", 256, 64, 0, 0, 4},
    {"sm_86", 128, 32, 0, 101376, 1},
    {"sm_86", 128, 32, 0, 101377, 0},
    {"sm_89", 128, 32, 0, 0, 12},
    {"sm_75", 256, 32, 0, 0, 4},
    {"sm_75", 128, 32, 32768, 0, 2},
    {"sm_120", 128, 32, 0, 0, 12},
    {"sm_100", 256, 128, 0, 102400, 2},
};

TEST(Occupancy, MatchesCudaOccupancyHeader) {
  for (const Case &C : OccHeaderCases)
    EXPECT_EQ(blocks(C.Target, C.Threads, C.Regs, C.StaticSmem, C.DynamicSmem),
              C.Blocks)
        << C.Target << " threads=" << C.Threads << " regs=" << C.Regs
        << " static=" << C.StaticSmem << " dynamic=" << C.DynamicSmem;
}

// cudaOccupancyMaxActiveBlocksPerMultiprocessor on an H200 (CUDA 13
// runtime, 2026-11-29), for kernels whose register counts ptxas chose.
const Case H200RuntimeCases[] = {
    {"sm_90", 128, 21, 0, 0, 16},       {"sm_90", 128, 40, 0, 0, 12},
    {"sm_90", 128, 72, 0, 0, 7},        {"sm_90", 128, 64, 0, 0, 8},
    {"sm_90", 128, 21, 0, 49152, 4},    {"sm_90", 128, 72, 0, 102400, 2},
    {"sm_90", 128, 21, 0, 204800, 1},   {"sm_90", 256, 21, 0, 0, 8},
    {"sm_90", 256, 40, 0, 0, 6},        {"sm_90", 256, 72, 0, 0, 3},
    {"sm_90", 256, 72, 0, 49152, 3},    {"sm_90", 1024, 21, 0, 0, 2},
    {"sm_90", 1024, 40, 0, 0, 1},       {"sm_90", 1024, 72, 0, 0, 0},
    {"sm_90", 1024, 21, 0, 102400, 2},  {"sm_90", 1024, 40, 0, 204800, 1},
    {"sm_90", 640, 72, 0, 0, 1},        {"sm_90", 384, 64, 0, 0, 2},
    {"sm_90", 128, 21, 0, 232448, 1},   {"sm_90", 128, 21, 0, 232449, 0},
};

TEST(Occupancy, MatchesH200Runtime) {
  for (const Case &C : H200RuntimeCases)
    EXPECT_EQ(blocks(C.Target, C.Threads, C.Regs, C.StaticSmem, C.DynamicSmem),
              C.Blocks)
        << "threads=" << C.Threads << " regs=" << C.Regs
        << " dynamic=" << C.DynamicSmem;
}

// Worked by hand from the rules in Occupancy.h.
TEST(Occupancy, HandWorkedDetails) {
  // 64 regs x 32 lanes = 2048 per warp; 16384 per sub-partition holds 8
  // warps, 32 per SM; a 256-thread block has 8 warps: 4 blocks, 50%.
  OccupancyResult R = occupancy("sm_80", 256, 64, 0, 0);
  EXPECT_EQ(R.ActiveBlocksPerSM, 4);
  EXPECT_EQ(R.ActiveWarpsPerSM, 32);
  EXPECT_EQ(R.MaxWarpsPerSM, 64);
  EXPECT_DOUBLE_EQ(R.Occupancy, 0.5);
  EXPECT_EQ(R.Limiter, OccupancyLimiter::Registers);
  EXPECT_EQ(R.RegistersPerBlock, 16384);
  EXPECT_EQ(R.BlocksByRegisters, 4);
  EXPECT_EQ(R.BlocksByWarps, 8);
  EXPECT_EQ(R.BlocksByBlockSlots, 32);
  EXPECT_EQ(R.describe(),
            "4 blocks/SM, 32 of 64 warps (50%); limited by registers");

  // 48 KB static + 1 KB reserved = 50176 B; 228 KB / 50176 = 4.
  R = occupancy("sm_90", 256, 32, 49152, 0);
  EXPECT_EQ(R.SharedBytesPerBlock, 50176);
  EXPECT_EQ(R.SharedBytesPerSM, 233472);
  EXPECT_EQ(R.BlocksBySharedMemory, 4);
  EXPECT_EQ(R.Limiter, OccupancyLimiter::SharedMemory);

  // 100 bytes round up to one 128 B unit (plus 1 KB reserved).
  EXPECT_EQ(occupancy("sm_90", 128, 32, 100, 0).SharedBytesPerBlock, 1152);
  // Turing: 256 B units and no reservation; no shared memory is unlimited.
  EXPECT_EQ(occupancy("sm_75", 128, 32, 100, 0).SharedBytesPerBlock, 256);
  EXPECT_EQ(occupancy("sm_75", 128, 32, 0, 0).BlocksBySharedMemory, INT_MAX);
  EXPECT_EQ(occupancy("sm_90", 128, 0, 0, 0).BlocksByRegisters, INT_MAX);

  // Warps are allocated whole: 33 threads take 2 warp slots, 65 take 3.
  EXPECT_EQ(occupancy("sm_90", 33, 32, 0, 0).BlocksByWarps, 32);
  EXPECT_EQ(occupancy("sm_90", 33, 32, 0, 0).ActiveWarpsPerSM, 64);
  EXPECT_EQ(occupancy("sm_90", 65, 32, 0, 0).BlocksByWarps, 21);
}

TEST(Occupancy, LimiterKinds) {
  OccupancyResult Full = occupancy("sm_90", 128, 32, 0, 0);
  EXPECT_EQ(Full.Limiter, OccupancyLimiter::None);
  EXPECT_DOUBLE_EQ(Full.Occupancy, 1.0);
  EXPECT_EQ(Full.describe(),
            "16 blocks/SM, 64 of 64 warps (100%); full occupancy");
  // 24-warp blocks: two fit in 64 warp slots.
  OccupancyResult Warps = occupancy("sm_80", 768, 16, 0, 0);
  EXPECT_EQ(Warps.Limiter, OccupancyLimiter::Warps);
  EXPECT_DOUBLE_EQ(Warps.Occupancy, 0.75);
  // One-warp blocks run out of the 32 block slots first.
  OccupancyResult Blocks = occupancy("sm_80", 32, 16, 0, 0);
  EXPECT_EQ(Blocks.Limiter, OccupancyLimiter::Blocks);
  EXPECT_EQ(Blocks.ActiveBlocksPerSM, 32);
  EXPECT_STREQ(limiterName(OccupancyLimiter::SharedMemory), "shared memory");
}

// Carveout preferences; expected values from cuda_occupancy.h with
// cudaOccDeviceState::carveoutConfig set to the percentage.
TEST(Occupancy, CarveoutPreference) {
  // 0% (max L1): the driver still grows the carveout to fit one block,
  // here 1 KB reserved -> the 8 KB carveout -> 8 blocks.
  EXPECT_EQ(blocks("sm_90", 256, 32, 0, 0, 0), 8);
  // 50% of 164 KB rounds up to the 100 KB carveout: 2 x 50176 B.
  EXPECT_EQ(blocks("sm_80", 256, 32, 49152, 0, 50), 2);
  EXPECT_EQ(blocks("sm_80", 128, 32, 0, 0, 50), 16);
  // 25% of 228 KB rounds up to 64 KB: 3 x 17408 B.
  EXPECT_EQ(blocks("sm_90", 128, 32, 16384, 0, 25), 3);
  // Turing's smallest carveout is 32 KB.
  EXPECT_EQ(blocks("sm_75", 128, 32, 0, 0, 0), 8);
}

TEST(Occupancy, LaunchFailures) {
  std::string Msg;
  EXPECT_EQ(launchLimit("sm_90", 1025, 32, 0, 0, &Msg),
            LaunchLimit::ThreadsPerBlock);
  EXPECT_EQ(Msg, "1025 threads per block exceeds the limit of 1024 on sm_90");
  EXPECT_EQ(launchLimit("sm_90", 128, 256, 0, 0),
            LaunchLimit::RegistersPerThread);
  EXPECT_EQ(launchLimit("sm_90", 1024, 65, 0, 0, &Msg),
            LaunchLimit::RegistersPerBlock);
  EXPECT_EQ(Msg, "a block of 1024 threads at 65 registers per thread needs "
                 "73728 registers, more than the 65536 per block on sm_90; "
                 "use fewer threads or cap registers with __launch_bounds__");
  // 10 warps of 6400 registers fit in 64K, but the hardware rounds the
  // check up to 12 warps.
  EXPECT_EQ(launchLimit("sm_90", 320, 200, 0, 0),
            LaunchLimit::RegistersPerBlock);
  EXPECT_EQ(launchLimit("sm_90", 128, 32, 49153, 0),
            LaunchLimit::StaticSharedMemory);
  EXPECT_EQ(launchLimit("sm_90", 128, 32, 0, 232449, &Msg),
            LaunchLimit::SharedMemory);
  EXPECT_EQ(Msg, "232449 bytes of shared memory per block (0 static + 232449 "
                 "dynamic) exceeds the opt-in maximum of 232448 bytes on sm_90");
  EXPECT_EQ(launchLimit("sm_80", 128, 32, 49152, 117761),
            LaunchLimit::SharedMemory);
  EXPECT_EQ(blocks("sm_80", 128, 32, 49152, 117760), 1);
}

TEST(Occupancy, InvalidInputIsUsageError) {
  for (KernelResources K :
       {KernelResources{0, 32, 0, 0}, KernelResources{128, -1, 0, 0},
        KernelResources{128, 32, -1, 0}, KernelResources{128, 32, 0, -5},
        KernelResources{128, 32, 0, 0, 101}}) {
    llvm::Expected<OccupancyResult> R = computeOccupancy(target("sm_90"), K);
    ASSERT_FALSE(R);
    EXPECT_TRUE(R.errorIsA<UsageError>());
    llvm::consumeError(R.takeError());
  }
}

} // namespace
