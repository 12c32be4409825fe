// The spec draft from a KernelIndex built by hand: roles, dtypes, scalars,
// geometry from the launch site, and the errors a user sees.
#include "forge/Measure/LaunchSpec.h"
#include "forge/Measure/SpecDraft.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::frontend;

static ParamInfo ptr(const char *Name, const char *Type, bool Const, bool Read, bool Written) {
  ParamInfo P;
  P.Name = Name;
  P.Type = Type;
  P.Pointer = true;
  P.ConstPointee = Const;
  P.Read = Read;
  P.Written = Written;
  return P;
}

static FileIndex saxpyIndex() {
  FileIndex I;
  I.File = "saxpy.cu";
  KernelInfo K;
  K.Name = K.QualifiedName = "saxpy";
  ParamInfo N;
  N.Name = "n";
  N.Type = "int";
  ParamInfo A;
  A.Name = "a";
  A.Type = "float";
  K.Params = {N, A, ptr("x", "const float *", true, true, false),
              ptr("y", "float *", false, true, true), ptr("z", "float4 *", false, false, true)};
  I.Kernels.push_back(K);
  LaunchSiteInfo L;
  L.Kernel = "saxpy";
  L.Block.Text = "dim3(512)";
  L.Block.Dim3 = std::array<int64_t, 3>{512, 1, 1};
  L.SharedMem.Value = 0;
  I.LaunchSites.push_back(L);
  return I;
}

TEST(SpecDraft, RolesDtypesAndGeometry) {
  auto J = measure::draftLaunchSpec(saxpyIndex(), "saxpy");
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  EXPECT_EQ((*J)["buffers"][0]["role"], "in");
  EXPECT_EQ((*J)["buffers"][1]["role"], "inout");
  EXPECT_EQ((*J)["buffers"][2]["role"], "out");
  EXPECT_FALSE((*J)["buffers"][2].contains("init")) << "outputs are NaN-filled, not initialised";
  EXPECT_EQ((*J)["buffers"][2]["count"], "N * 4") << "a float4 is four f32";
  EXPECT_EQ((*J)["scalars"][0]["value"], "N");
  EXPECT_EQ((*J)["scalars"][1]["dtype"], "f32");
  EXPECT_EQ((*J)["tunables"][0]["default"], 512);
  auto Spec = measure::parseLaunchSpec(*J, "draft");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());
  auto G = Spec->geometry({{"BLOCK", 512}, {"N", 1 << 20}});
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(G->Grid[0], 2048);
  EXPECT_EQ(G->Block[0], 512);
}

TEST(SpecDraft, UnknownKernelListsTheKnownOnes) {
  auto J = measure::draftLaunchSpec(saxpyIndex(), "sapxy");
  ASSERT_FALSE(bool(J));
  EXPECT_EQ(llvm::toString(J.takeError()),
            "no kernel named 'sapxy' in saxpy.cu; kernels: saxpy");
}

TEST(SpecDraft, DtypeOfCType) {
  EXPECT_EQ(measure::dtypeOfCType("const double"), "f64");
  EXPECT_EQ(measure::dtypeOfCType("__nv_bfloat16"), "bf16");
  EXPECT_EQ(measure::dtypeOfCType("unsigned int"), "u32");
  EXPECT_EQ(measure::dtypeOfCType("size_t"), "u64");
  EXPECT_EQ(measure::dtypeOfCType("MyStruct"), "");
}
