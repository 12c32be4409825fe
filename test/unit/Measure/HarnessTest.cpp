//===- HarnessTest.cpp - harness sources and job plans --------------------===//
#include "forge/Measure/Harness.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::measure;

namespace {

LaunchSpec parse(const char *Text) {
  auto J = parseJson(Text, "test.json");
  EXPECT_TRUE(bool(J));
  auto S = parseLaunchSpec(*J, "/specs/test.json");
  if (!S) {
    ADD_FAILURE() << llvm::toString(S.takeError());
    return LaunchSpec();
  }
  return *S;
}

const char *Templated = R"JSON({
  "kernel": "ns::scale",
  "template_args": ["float", "BLOCK", "ITEMS * 2"],
  "sizes": {"N": 4096},
  "buffers": [
    {"name": "x", "dtype": "f32", "count": "N", "role": "in",
     "init": {"kind": "file", "path": "x.bin"}},
    {"name": "y", "dtype": "f32", "count": "N", "role": "out",
     "tolerance": {"max_abs": 0.001}}
  ],
  "scalars": [{"name": "n", "dtype": "i32", "value": "N"},
              {"name": "a", "dtype": "f64", "value": 0.5}],
  "args": ["x", "y", "n", "a"],
  "grid": "ceil_div(N, BLOCK * ITEMS)",
  "block": "BLOCK",
  "shared_mem": "BLOCK * 4",
  "tunables": [{"name": "BLOCK", "values": [128, 256], "default": 256},
               {"name": "ITEMS", "values": [1, 2, 4]}],
  "constraints": ["BLOCK * ITEMS <= 512"]
})JSON";

TEST(Harness, SubstitutesWholeWordsOnly) {
  ValueMap V{{"BLOCK", 256}, {"N", 7}};
  EXPECT_EQ(substituteIdentifiers("BLOCK, BLOCKS, N*2, ns::BLOCK, 0x1BLOCK", V),
            "256, BLOCKS, 7*2, ns::BLOCK, 0x1BLOCK");
}

TEST(Harness, KernelExpressionUsesTheConfiguration) {
  LaunchSpec S = parse(Templated);
  auto E = kernelExpression(S, {{"BLOCK", 128}, {"ITEMS", 4}});
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(*E, "ns::scale<float, 128, 4 * 2>");
  // Defaults where a tunable is not given.
  E = kernelExpression(S, {});
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(*E, "ns::scale<float, 256, 1 * 2>");
}

TEST(Harness, SourceIncludesTheFileAndChecksTheSignature) {
  LaunchSpec S = parse(Templated);
  auto H = generateHarness(S, "/src/k.cu",
                           {HarnessConfig{"forge_entry_0", {{"ITEMS", 2}}},
                            HarnessConfig{"forge_entry_1", {{"BLOCK", 128}}}});
  ASSERT_TRUE(bool(H)) << llvm::toString(H.takeError());
  const std::string &T = *H;
  auto Has = [&](const std::string &Part) {
    EXPECT_NE(T.find(Part), std::string::npos) << "missing: " << Part;
  };
  Has("#define main forge_user_main_renamed_by_harness\n#include \"/src/k.cu\"\n"
      "#undef main");
  Has("// forge_entry_0: BLOCK=256 ITEMS=2");
  Has("const void *forge_entry_0(void) {\n  return reinterpret_cast<const "
      "void *>(&ns::scale<float, 256, 2 * 2>);");
  Has("&ns::scale<float, 128, 1 * 2>");
  Has("::count == 4, \"the spec gives 4 argument(s)");
  Has("std::is_pointer<typename forge_harness::Params<decltype(&ns::scale<"
      "float, 256, 2 * 2>)>::template at<1>>::value");
  Has("sizeof(typename forge_harness::Params<decltype(&ns::scale<float, 256, "
      "2 * 2>)>::template at<2>) == 4");
  Has("argument 4 ('a') is f64 in the spec, but parameter 4 of the kernel is "
      "not floating point");
  Has("argument 3 ('n') is i32 in the spec, but parameter 3 of the kernel is "
      "not an integer");
  Has("int forge_harness_abi(void) { return 1; }");
  EXPECT_FALSE(bool(generateHarness(S, "/src/k.cu", {})));
}

TEST(Harness, PlanEvaluatesEverything) {
  LaunchSpec S = parse(Templated);
  JobEntry Ref{"ref", "harness-0.so", "forge_entry_0", "k.cu BLOCK=256 ITEMS=1",
               {}};
  JobEntry C1{"c1", "harness-1.so", "forge_entry_1", "k2.cu BLOCK=128 ITEMS=4",
              {{"BLOCK", 128}, {"ITEMS", 4}}};
  JobOptions O;
  O.Seed = 7;
  O.Reps = 20;
  auto P = renderPlan(S, Ref, {C1}, O);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const std::string &T = *P;
  auto Has = [&](const std::string &Part) {
    EXPECT_NE(T.find(Part), std::string::npos) << "missing: " << Part << "\n"
                                               << T;
  };
  EXPECT_EQ(T.rfind("forge-job 1\n", 0), 0u);
  Has("option seed 7\n");
  Has("option reps 20\n");
  Has("option timer cupti\n");
  // No bytes in the spec: every buffer once (4096 * 4 * 2).
  Has("work bytes 32768 flops 0 dtype f32\n");
  Has("buffer x f32 4096 in file /specs/x.bin\n");
  Has("buffer y f32 4096 out none tol 1.0000000000000001e-05 "
      "0.001\n");
  Has("reference ref harness-0.so forge_entry_0\n  label k.cu BLOCK=256 "
      "ITEMS=1\n  grid 16 1 1\n  block 256 1 1\n  shared 1024\n"
      "  arg buffer x\n  arg buffer y\n  arg scalar i32 4096\n"
      "  arg scalar f64 0.5\nend\n");
  Has("candidate c1 harness-1.so forge_entry_1\n  label k2.cu BLOCK=128 "
      "ITEMS=4\n  grid 8 1 1\n  block 128 1 1\n  shared 512\n");
}

TEST(Harness, PlanUsesAnEntrysOwnSpecForItsGeometry) {
  // A transformation that made the kernel grid-independent (a grid-stride
  // loop) runs with a capped grid; the reference keeps the spec's.
  LaunchSpec S = parse(Templated);
  LaunchSpec Capped = S;
  Tunable Waves;
  Waves.Name = "WAVES";
  Waves.Values = {4, 8};
  Capped.Tunables.push_back(Waves);
  auto G = IntExpr::parse("min(ceil_div(N, BLOCK), WAVES)");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  Capped.Grid = {*G};
  JobEntry Ref{"ref", "h0.so", "forge_entry_0", "ref", {}};
  JobEntry C{"c1", "h1.so", "forge_entry_0", "capped", {{"WAVES", 4}}, &Capped};
  auto P = renderPlan(S, Ref, {C}, JobOptions());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_NE(P->find("reference ref h0.so forge_entry_0\n  label ref\n  grid 16 1 1\n"),
            std::string::npos) << *P;
  EXPECT_NE(P->find("candidate c1 h1.so forge_entry_0\n  label capped\n  grid 4 1 1\n"),
            std::string::npos) << *P;
}

TEST(Harness, PlanRejectsCountsThatDependOnTunables) {
  LaunchSpec S = parse(R"JSON({
    "kernel": "partial", "sizes": {"N": 1024},
    "buffers": [{"name": "p", "dtype": "f32", "count": "ceil_div(N, BLOCK)",
                 "role": "out"}],
    "args": ["p"], "grid": "ceil_div(N, BLOCK)", "block": "BLOCK",
    "tunables": [{"name": "BLOCK", "values": [128, 256]}]})JSON");
  JobEntry Ref{"ref", "h.so", "forge_entry_0", "BLOCK=128", {}};
  JobEntry C{"c1", "h.so", "forge_entry_1", "BLOCK=256", {{"BLOCK", 256}}};
  auto P = renderPlan(S, Ref, {C}, JobOptions());
  ASSERT_FALSE(bool(P));
  EXPECT_EQ(llvm::toString(P.takeError()),
            "buffer 'p' has 4 elements for BLOCK=256 but 8 for the reference "
            "(BLOCK=128); outputs of different sizes cannot be compared, so a "
            "buffer's count must not depend on the tunables");
}

TEST(Harness, PlanReportsAnUnlaunchableCandidate) {
  LaunchSpec S = parse(Templated);
  JobEntry Ref{"ref", "h.so", "forge_entry_0", "default", {}};
  JobEntry C{"c9", "h.so", "forge_entry_1", "BLOCK=2048", {{"BLOCK", 2048}}};
  auto P = renderPlan(S, Ref, {C}, JobOptions());
  ASSERT_FALSE(bool(P));
  std::string E = llvm::toString(P.takeError());
  EXPECT_NE(E.find("c9 (BLOCK=2048): "), std::string::npos) << E;
  EXPECT_NE(E.find("1024"), std::string::npos) << E;
}

TEST(Harness, EnumeratesValidConfigurations) {
  LaunchSpec S = parse(Templated);
  auto C = enumerateConfigs(S);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  // 128x{1,2,4} and 256x{1,2}; 256x4 breaks the constraint.
  ASSERT_EQ(C->size(), 5u);
  EXPECT_EQ(configLabel(S, C->front()), "BLOCK=128 ITEMS=1");
  EXPECT_EQ(configLabel(S, C->back()), "BLOCK=256 ITEMS=2");
  auto Two = enumerateConfigs(S, 2);
  ASSERT_TRUE(bool(Two));
  EXPECT_EQ(Two->size(), 2u);
}

TEST(Harness, WorkFromTheSpecOrTheBuffers) {
  LaunchSpec S = parse(R"JSON({
    "kernel": "axpy", "sizes": {"N": 1000},
    "buffers": [{"name": "x", "dtype": "f64", "count": "N", "role": "in",
                 "init": {"kind": "iota"}},
                {"name": "y", "dtype": "f64", "count": "N", "role": "inout",
                 "init": {"kind": "iota"}}],
    "args": ["x", "y"], "grid": "1", "block": "1", "flops": "2 * N"})JSON");
  auto W = estimateWork(S, {});
  ASSERT_TRUE(bool(W));
  EXPECT_TRUE(W->Derived);
  EXPECT_EQ(W->Bytes, 8000.0 + 2 * 8000.0);
  EXPECT_EQ(W->Flops, 2000.0);
  EXPECT_EQ(W->Type, DType::F64);
}

} // namespace
