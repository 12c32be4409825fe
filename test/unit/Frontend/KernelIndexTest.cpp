// Pieces of the KernelIndex that the command line cannot isolate.
#include "forge/Frontend/KernelIndex.h"
#include "gtest/gtest.h"

using namespace forge::frontend;

TEST(FeaturesInAsm, NamesThePtx) {
  auto F = featuresInAsm("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 ...");
  EXPECT_TRUE(F.count("wgmma"));
  F = featuresInAsm("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes");
  EXPECT_TRUE(F.count("tma"));
  EXPECT_TRUE(F.count("cp.async.bulk"));
  EXPECT_TRUE(F.count("mbarrier"));
  EXPECT_FALSE(F.count("cp.async")); // the bulk form is not plain cp.async
  F = featuresInAsm("cp.async.ca.shared.global [%0], [%1], 16;");
  EXPECT_TRUE(F.count("cp.async"));
  EXPECT_FALSE(F.count("tma"));
  F = featuresInAsm("setmaxnreg.inc.sync.aligned.u32 240;");
  EXPECT_EQ(F, std::set<std::string>{"setmaxnreg"});
  EXPECT_TRUE(featuresInAsm("mov.u32 %0, %%cluster_ctarank;").count("cluster"));
  EXPECT_TRUE(featuresInAsm("add.f32 %0, %1, %2;").empty());
}

TEST(DefaultCandidates, PerRole) {
  auto B = defaultCandidates("block", 200);
  EXPECT_EQ(B.front(), 32);
  EXPECT_EQ(B.back(), 1024);
  EXPECT_TRUE(std::find(B.begin(), B.end(), 200) != B.end()) << "the current value is kept";
  for (int64_t V : B)
    EXPECT_TRUE(V % 32 == 0 || V == 200);
  EXPECT_EQ(defaultCandidates("block-dim", 16), (std::vector<int64_t>{4, 8, 16, 32}));
  EXPECT_EQ(defaultCandidates("unroll", 4), (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(defaultCandidates("template-arg", 8), (std::vector<int64_t>{2, 4, 8, 16, 32}));
  EXPECT_EQ(defaultCandidates("template-arg", std::nullopt), (std::vector<int64_t>{1, 2, 4, 8, 16}));
}

TEST(NamesWarpSize, SpellingsOfTheWarpSize) {
  for (const char *N : {"WARP_SIZE", "WARPSIZE", "kWarpSize", "warp_size", "WarpSize", "WARP_SZ",
                        "CUDA_WARP_SIZE", "WARP_THREADS", "kThreadsPerWarp", "ns::kWarpSize",
                        "reduce::WARP_SIZE"})
    EXPECT_TRUE(namesWarpSize(N)) << N;
  for (const char *N : {"BLOCK", "WARPS_PER_BLOCK", "kWarps", "NUM_WARPS", "TILE",
                        "warpSizeKernel.block@12", "kernel.launch_bounds"})
    EXPECT_FALSE(namesWarpSize(N)) << N;
}
