// Occupancy predicted by lib/Arch against what the CUDA runtime said on a
// real H200 (utils/gpu/occupancy_check.cu, run on the device 2026-11-29;
// the output is recorded in Inputs/h200-occupancy.jsonl and in
// docs/occupancy-h200.md). Registers and static shared memory are the ones
// cudaFuncGetAttributes reported for the compiled kernels.
#include "forge/Arch/Occupancy.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Json.h"
#include "gtest/gtest.h"

using namespace forge;

TEST(H200Recorded, CalculatorMatchesCudaOccupancyApi) {
  auto Text = readFile(FORGE_SOURCE_DIR "/test/unit/Arch/Inputs/h200-occupancy.jsonl");
  ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
  auto Target = arch::lookupTarget("sm_90");
  ASSERT_TRUE(bool(Target));
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  llvm::StringRef(*Text).split(Lines, '\n', -1, false);
  int Compared = 0;
  std::set<std::string> Kernels;
  for (llvm::StringRef L : Lines) {
    auto J = parseJson(L, "h200-occupancy.jsonl");
    ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
    if (!J->contains("kernel")) {
      EXPECT_EQ((*J)["device"], "NVIDIA H200");
      EXPECT_EQ((*J)["smem_optin"], Target->limits().OptInSharedMemPerBlock);
      continue;
    }
    arch::KernelResources K;
    K.ThreadsPerBlock = (*J)["block"];
    K.RegistersPerThread = (*J)["registers"];
    K.StaticSharedBytes = (*J)["static_shared"];
    K.DynamicSharedBytes = (*J)["dynamic_shared"];
    auto O = arch::computeOccupancy(*Target, K);
    ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
    EXPECT_EQ(O->ActiveBlocksPerSM, int((*J)["blocks_per_sm"])) << L.str();
    Kernels.insert((*J)["kernel"].get<std::string>());
    ++Compared;
  }
  EXPECT_EQ(Compared, 15);
  EXPECT_GE(Kernels.size(), 5u);
}
