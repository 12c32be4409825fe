#include "forge/Arch/GpuModel.h"
#include "forge/Support/Error.h"
#include "gtest/gtest.h"
#include <map>

using namespace forge;
using namespace forge::arch;

namespace {

const TargetInfo &target(llvm::StringRef Name) {
  llvm::Expected<const TargetInfo &> T = lookupTarget(Name);
  EXPECT_TRUE(bool(T)) << Name.str();
  if (!T) {
    llvm::consumeError(T.takeError());
    return allTargets().front();
  }
  return *T;
}

std::string shortNameOf(llvm::StringRef Name) {
  llvm::Expected<const GpuModel &> G = lookupGpuModel(Name);
  if (!G)
    return "error: " + llvm::toString(G.takeError());
  return G->ShortName;
}

TEST(GpuModel, LookupByDeviceNameIgnoresCase) {
  EXPECT_EQ(shortNameOf("NVIDIA H200"), "H200");
  EXPECT_EQ(shortNameOf("nvidia h200"), "H200");
  EXPECT_EQ(shortNameOf("  NVIDIA H200 "), "H200");
  EXPECT_EQ(shortNameOf("NVIDIA H100 80GB HBM3"), "H100-SXM");
  EXPECT_EQ(shortNameOf("NVIDIA A100-SXM4-80GB"), "A100");
  EXPECT_EQ(shortNameOf("NVIDIA B200"), "B200");
  EXPECT_EQ(shortNameOf("Tesla T4"), "T4");
  EXPECT_EQ(shortNameOf("NVIDIA GeForce RTX 5090"), "RTX5090");
  EXPECT_EQ(shortNameOf("h100-sxm"), "H100-SXM");
  // A prefix of another name must not match it.
  EXPECT_EQ(shortNameOf("NVIDIA A10"), "A10");
}

TEST(GpuModel, UnknownNameIsUsageError) {
  llvm::Expected<const GpuModel &> G = lookupGpuModel("NVIDIA H300");
  ASSERT_FALSE(G);
  bool IsUsage = false;
  std::string Msg;
  llvm::handleAllErrors(G.takeError(), [&](const UsageError &U) {
    IsUsage = true;
    Msg = U.message();
  });
  EXPECT_TRUE(IsUsage);
  EXPECT_EQ(Msg.rfind("unknown GPU 'NVIDIA H300'; known GPUs: T4 ('Tesla T4')",
                      0),
            0u)
      << Msg;
  EXPECT_NE(Msg.find("H200 ('NVIDIA H200')"), std::string::npos) << Msg;
}

TEST(GpuModel, ReferenceGpuPerCapability) {
  std::map<std::string, std::string> Want = {
      {"sm_75", "T4"},      {"sm_80", "A100"},     {"sm_86", "A10"},
      {"sm_89", "L40S"},    {"sm_90", "H200"},     {"sm_90a", "H200"},
      {"sm_100", "B200"},   {"sm_100a", "B200"},   {"sm_100f", "B200"},
      {"sm_120", "RTX5090"}, {"sm_120a", "RTX5090"}, {"sm_120f", "RTX5090"}};
  for (const TargetInfo &T : allTargets()) {
    const GpuModel *G = referenceGpuFor(T);
    auto It = Want.find(T.Name);
    if (It == Want.end()) {
      EXPECT_EQ(G, nullptr) << T.Name;
      continue;
    }
    ASSERT_NE(G, nullptr) << T.Name;
    EXPECT_EQ(G->ShortName, It->second) << T.Name;
  }
}

TEST(GpuModel, TableIsConsistent) {
  std::map<int, int> ReferencesPerCC;
  for (const GpuModel &G : allGpuModels()) {
    std::string Plain = "sm_" + std::to_string(G.CC);
    EXPECT_EQ(target(Plain).ccNumber(), G.CC) << G.ShortName;
    EXPECT_GT(G.SMs, 0);
    EXPECT_GT(G.BandwidthGBs, 0);
    EXPECT_GT(G.Fp32Tflops, G.Fp64Tflops) << G.ShortName;
    if (G.IsReference)
      ++ReferencesPerCC[G.CC];
  }
  for (const auto &[CC, N] : ReferencesPerCC)
    EXPECT_EQ(N, 1) << "sm_" << CC;
}

// DESIGN.md: SM counts behind porting rule 5 and the measured H200 numbers.
TEST(GpuModel, DesignNumbers) {
  const GpuModel &H200 = *lookupGpuModel("H200");
  EXPECT_EQ(H200.SMs, 132);
  EXPECT_EQ(H200.L2MB, 60);
  EXPECT_EQ(H200.BandwidthGBs, 4800);
  EXPECT_EQ(H200.effectiveBandwidthGBs(), 4254);
  EXPECT_EQ(lookupGpuModel("A100")->SMs, 108);
  EXPECT_EQ(lookupGpuModel("H100-SXM")->SMs, 132);
  EXPECT_EQ(lookupGpuModel("B200")->SMs, 148);
  // No measurement: the datasheet figure is what we have.
  EXPECT_EQ(lookupGpuModel("A100")->effectiveBandwidthGBs(), 2039);
}

} // namespace
