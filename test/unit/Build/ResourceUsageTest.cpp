//===- ResourceUsageTest.cpp - `ptxas -v` parsing on recorded logs --------===//
#include "BuildTestUtil.h"
#include "forge/Build/ResourceUsage.h"

using namespace forge::build;
using namespace forge::build::testing;

namespace {

TEST(ResourceUsage, KernelsAndDeviceFunctionForTwoTargets) {
  // Inputs/src/ok.cu for sm_90 and sm_80 with -c -Xptxas -v.
  auto Res = parseResourceUsage(fixture("resource-multi-arch.txt"));
  ASSERT_EQ(Res.size(), 6u);

  const KernelResources &Tmpl90 = Res[0];
  EXPECT_EQ(Tmpl90.MangledName, "_Z4tmplILi4EEvPi");
  EXPECT_EQ(Tmpl90.DemangledName, "void tmpl<4>(int*)");
  EXPECT_EQ(Tmpl90.Arch, "sm_90");
  EXPECT_TRUE(Tmpl90.IsEntry);
  EXPECT_TRUE(Tmpl90.HasUsage);
  EXPECT_EQ(Tmpl90.Registers, 10u);
  EXPECT_EQ(Tmpl90.Barriers, 0u);
  EXPECT_EQ(Tmpl90.SharedMemBytes, 0u);
  EXPECT_EQ(Tmpl90.ConstantMemBytes, 0u); // CUDA 13 prints no cmem for sm_90.
  EXPECT_DOUBLE_EQ(Tmpl90.CompileMillis, 18.346);

  const KernelResources &Scale90 = Res[1];
  EXPECT_EQ(Scale90.MangledName, "_Z5scalePfPKffi");
  EXPECT_EQ(Scale90.DemangledName, "scale(float*, float const*, float, int)");
  EXPECT_EQ(Scale90.Arch, "sm_90");
  EXPECT_EQ(Scale90.Registers, 27u);
  EXPECT_EQ(Scale90.Barriers, 1u);
  EXPECT_EQ(Scale90.SharedMemBytes, 4096u);
  EXPECT_EQ(Scale90.StackFrameBytes, 128u);
  EXPECT_EQ(Scale90.CumulativeStackBytes, 128u);
  EXPECT_EQ(Scale90.SpillStoreBytes, 0u);
  EXPECT_EQ(Scale90.SpillLoadBytes, 0u);
  EXPECT_FALSE(Scale90.hasSpills());

  // A non-inlined device function: properties only, no "Used" line.
  const KernelResources &Helper90 = Res[2];
  EXPECT_EQ(Helper90.MangledName, "_Z6helperf");
  EXPECT_EQ(Helper90.DemangledName, "helper(float)");
  EXPECT_EQ(Helper90.Arch, "sm_90");
  EXPECT_FALSE(Helper90.IsEntry);
  EXPECT_FALSE(Helper90.HasUsage);
  EXPECT_EQ(Helper90.Registers, 0u);

  EXPECT_EQ(Res[3].MangledName, "_Z4tmplILi4EEvPi");
  EXPECT_EQ(Res[3].Arch, "sm_80");
  EXPECT_EQ(Res[3].Registers, 8u);
  EXPECT_EQ(Res[3].ConstantMemBytes, 360u);
  EXPECT_EQ(Res[3].ConstantBanks, (std::map<unsigned, uint64_t>{{0, 360}}));

  EXPECT_EQ(Res[4].MangledName, "_Z5scalePfPKffi");
  EXPECT_EQ(Res[4].Arch, "sm_80");
  EXPECT_EQ(Res[4].Registers, 28u);
  EXPECT_EQ(Res[4].Barriers, 1u);
  EXPECT_EQ(Res[4].SharedMemBytes, 4096u);
  EXPECT_EQ(Res[4].CumulativeStackBytes, 128u);
  EXPECT_EQ(Res[4].ConstantMemBytes, 376u);
  EXPECT_DOUBLE_EQ(Res[4].CompileMillis, 3.445);

  EXPECT_EQ(Res[5].MangledName, "_Z6helperf");
  EXPECT_EQ(Res[5].Arch, "sm_80");
  EXPECT_FALSE(Res[5].IsEntry);
}

TEST(ResourceUsage, SpillsOnArchSpecificTarget) {
  auto Res = parseResourceUsage(fixture("resource-spill-sm90a.txt"));
  ASSERT_EQ(Res.size(), 1u);
  EXPECT_EQ(Res[0].MangledName, "_Z5heavyPfi");
  EXPECT_EQ(Res[0].DemangledName, "heavy(float*, int)");
  EXPECT_EQ(Res[0].Arch, "sm_90a");
  EXPECT_EQ(Res[0].Registers, 32u);
  EXPECT_EQ(Res[0].StackFrameBytes, 496u);
  EXPECT_EQ(Res[0].SpillStoreBytes, 704u);
  EXPECT_EQ(Res[0].SpillLoadBytes, 812u);
  EXPECT_EQ(Res[0].CumulativeStackBytes, 496u);
  EXPECT_TRUE(Res[0].hasSpills());
}

TEST(ResourceUsage, RelocatableDeviceFunctionOnFamilyTarget) {
  // -rdc=true for sm_100f: dev() is compiled on its own, with spills.
  auto Res = parseResourceUsage(fixture("resource-rdc-sm100f.txt"));
  ASSERT_EQ(Res.size(), 2u);
  EXPECT_EQ(Res[0].MangledName, "_Z5heavyPfi");
  EXPECT_EQ(Res[0].Arch, "sm_100f");
  EXPECT_EQ(Res[0].Registers, 180u);
  EXPECT_TRUE(Res[0].IsEntry);
  EXPECT_EQ(Res[1].MangledName, "_Z3devPfi");
  EXPECT_EQ(Res[1].DemangledName, "dev(float*, int)");
  EXPECT_EQ(Res[1].Arch, "sm_100f"); // Taken from the entry before it.
  EXPECT_FALSE(Res[1].IsEntry);
  EXPECT_EQ(Res[1].StackFrameBytes, 592u);
  EXPECT_EQ(Res[1].SpillStoreBytes, 696u);
  EXPECT_EQ(Res[1].SpillLoadBytes, 760u);
  EXPECT_DOUBLE_EQ(Res[1].CompileMillis, 27.113);
}

TEST(ResourceUsage, ReportedEvenWhenPtxasRejectsTheKernel) {
  auto Res = parseResourceUsage(fixture("ptxas-too-much-smem.txt"));
  ASSERT_EQ(Res.size(), 1u);
  EXPECT_EQ(Res[0].MangledName, "_Z3bigPf");
  EXPECT_EQ(Res[0].Registers, 10u);
  EXPECT_EQ(Res[0].Barriers, 1u);
  EXPECT_EQ(Res[0].SharedMemBytes, 73728u);
}

TEST(ResourceUsage, DefaultArchAndOtherBanks) {
  std::string Log =
      "ptxas info    : Function properties for kernel_c\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 2 barriers, 8 bytes cumulative "
      "stack size, 1024 bytes smem, 400 bytes cmem[0], 16 bytes cmem[2], 1 "
      "textures\n";
  auto Res = parseResourceUsage(Log, "sm_120a");
  ASSERT_EQ(Res.size(), 1u);
  EXPECT_EQ(Res[0].MangledName, "kernel_c");
  EXPECT_EQ(Res[0].DemangledName, "kernel_c"); // extern "C": not mangled.
  EXPECT_EQ(Res[0].Arch, "sm_120a");
  EXPECT_EQ(Res[0].Registers, 40u);
  EXPECT_EQ(Res[0].Barriers, 2u);
  EXPECT_EQ(Res[0].SharedMemBytes, 1024u);
  EXPECT_EQ(Res[0].ConstantMemBytes, 400u);
  EXPECT_EQ(Res[0].ConstantBanks,
            (std::map<unsigned, uint64_t>{{0, 400}, {2, 16}}));
  EXPECT_EQ(Res[0].SpillStoreBytes, 4u);
  EXPECT_TRUE(parseResourceUsage("no ptxas here\n").empty());
}

TEST(ResourceUsage, JsonRoundTrip) {
  auto Res = parseResourceUsage(fixture("resource-multi-arch.txt"));
  for (const KernelResources &K : Res) {
    auto Back = resourcesFromJson(toJson(K));
    ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
    EXPECT_EQ(*Back, K);
  }
  auto Bad = resourcesFromJson(forge::Json{{"registers", "many"}});
  EXPECT_FALSE(static_cast<bool>(Bad));
  llvm::consumeError(Bad.takeError());
}

} // namespace
