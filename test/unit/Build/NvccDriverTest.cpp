//===- NvccDriverTest.cpp - Running (fake and real) nvcc ------------------===//
#include "BuildTestUtil.h"
#include "forge/Build/DiagnosticParser.h"
#include "forge/Build/ResourceUsage.h"
#include <chrono>

using namespace forge::build;
using namespace forge::build::testing;

namespace {

CompileJob job(llvm::StringRef Source, llvm::StringRef Output = "") {
  CompileJob J;
  J.Source = Source.str();
  J.Targets = {sm("sm_90")};
  J.OutputPath = Output.str();
  return J;
}

TEST(NvccDriver, ResourcesFromTheLogGetTheJobsTarget) {
  TempDir Work;
  FakeNvcc Fake;
  NvccDriver Driver(Fake.toolkit());
  CompileJob J = job(Work.write("k.cu", "USAGE\n"));
  J.Output = OutputKind::ResourceCheck;
  auto R = Driver.compile(J);
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Status, CompileStatus::Success);
  EXPECT_TRUE(R->OutputPath.empty()) << "a resource check keeps no output";
  ASSERT_EQ(R->Resources.size(), 1u);
  EXPECT_EQ(R->Resources[0].Registers, 12u);
  EXPECT_EQ(R->Resources[0].Arch, "sm_90");
  const KernelResources *K = R->findKernel("k(float*)", "sm_90");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->MangledName, "_Z1kPf");
  EXPECT_EQ(R->findKernel("_Z1kPf", "sm_80"), nullptr);
  EXPECT_TRUE(R->Diagnostics.empty());
  EXPECT_NE(Fake.args().find("-cubin -Xptxas -v -o "), std::string::npos);
}

TEST(NvccDriver, PtxasErrorIsMappedByARecompileWithKeep) {
  TempDir Work;
  FakeNvcc Fake;
  NvccDriver Driver(Fake.toolkit());
  auto R = Driver.compile(job(Work.write("k.cu", "PTXERR\n"), Work.path("k.o")));
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Status, CompileStatus::Failed);
  EXPECT_EQ(R->ExitCode, 255);
  EXPECT_EQ(Fake.runs(), 2u);
  EXPECT_NE(Fake.args().find("-lineinfo"), std::string::npos);
  EXPECT_NE(Fake.args().find("-keep -keep-dir"), std::string::npos);
  ASSERT_EQ(R->Diagnostics.size(), 2u);
  const CompilerDiagnostic &D = R->Diagnostics[0];
  EXPECT_EQ(D.Tool, "ptxas");
  // Where the original run said the error was, and where it is in the source
  // according to the recorded PTX (Inputs/wgmma.ptx).
  EXPECT_EQ(D.PtxFile, "/tmp/tmpxft_0000dead_00000000-6_gone.ptx");
  EXPECT_EQ(D.PtxLine, 31u);
  EXPECT_EQ(D.File, "/tmp/rec/wgmma.cu");
  EXPECT_EQ(D.Line, 3u);
  EXPECT_EQ(D.Column, 3u);

  CompileJob NoMap = job(Work.write("k2.cu", "PTXERR\n"));
  NoMap.MapPtxLines = false;
  auto R2 = Driver.compile(NoMap);
  ASSERT_TRUE(static_cast<bool>(R2));
  EXPECT_EQ(Fake.runs(), 3u);
  EXPECT_EQ(R2->Diagnostics[0].File, "");
}

TEST(NvccDriver, CrashIsAStatus) {
  TempDir Work;
  FakeNvcc Fake;
  NvccDriver Driver(Fake.toolkit());
  auto R = Driver.compile(job(Work.write("k.cu", "CRASH\n")));
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Status, CompileStatus::Crashed);
  ASSERT_FALSE(R->Diagnostics.empty());
  EXPECT_EQ(R->Diagnostics.back().Severity, DiagSeverity::Fatal);
}

TEST(NvccDriver, ErrorsOnlyWhenNvccCannotRunOrTheJobIsInvalid) {
  TempDir Work;
  CudaToolkit Gone;
  Gone.NvccPath = Work.path("no/such/nvcc");
  Gone.Version = "13.0.88";
  auto R = NvccDriver(Gone).compile(job(Work.write("k.cu", "x\n")));
  EXPECT_FALSE(static_cast<bool>(R));
  llvm::consumeError(R.takeError());

  FakeNvcc Fake;
  CompileJob Bad = job(Work.path("k.cu"));
  Bad.Targets = {sm("sm_80"), sm("sm_90")};
  Bad.Output = OutputKind::Cubin; // one target only: refused before nvcc runs
  auto R2 = NvccDriver(Fake.toolkit()).compile(Bad);
  EXPECT_FALSE(static_cast<bool>(R2));
  llvm::consumeError(R2.takeError());
  EXPECT_EQ(Fake.runs(), 0u);
}

TEST(NvccDriver, CompileAllKeepsTheOrderOfTheJobs) {
  TempDir Work;
  FakeNvcc Fake;
  NvccDriver Driver(Fake.toolkit());
  std::vector<CompileJob> Jobs;
  for (int I = 0; I < 6; ++I) {
    std::string Name = "k" + std::to_string(I);
    Jobs.push_back(job(Work.write(Name + ".cu", "// " + Name + "\n"),
                       Work.path(Name + ".o")));
  }
  Jobs[2].Source = Work.write("bad.cu", "BROKEN\n");
  Jobs[4].Targets = {sm("sm_80"), sm("sm_90")};
  Jobs[4].Output = OutputKind::Ptx; // one target only: an invalid job
  auto Results = Driver.compileAll(Jobs, 3);
  ASSERT_EQ(Results.size(), Jobs.size());
  for (size_t I = 0; I < Jobs.size(); ++I) {
    if (I == 4) {
      EXPECT_FALSE(static_cast<bool>(Results[I]));
      llvm::consumeError(Results[I].takeError());
      continue;
    }
    ASSERT_TRUE(static_cast<bool>(Results[I]))
        << llvm::toString(Results[I].takeError());
    EXPECT_EQ(Results[I]->Command.back(), Jobs[I].Source);
    if (I == 2) {
      EXPECT_EQ(Results[I]->Status, CompileStatus::Failed);
      continue;
    }
    EXPECT_EQ(Results[I]->Status, CompileStatus::Success);
    auto Out = forge::readFile(Jobs[I].OutputPath);
    ASSERT_TRUE(static_cast<bool>(Out));
    EXPECT_EQ(*Out, "object of\n// k" + std::to_string(I) + "\n");
  }
  EXPECT_EQ(Fake.runs(), 5u);
}

TEST(NvccDriver, CompileResultJsonRoundTrip) {
  CompileResult R;
  R.Status = CompileStatus::Failed;
  R.Diagnostics = parseDiagnostics(fixture("nvcc-overload-notes.txt"));
  R.Diagnostics.push_back(parseDiagnostics(fixture("ptxas-wgmma.txt"))[0]);
  R.Resources = parseResourceUsage(fixture("resource-multi-arch.txt"));
  R.Log = "log\n";
  R.Command = {"nvcc", "-c", "k.cu"};
  R.ExitCode = 2;
  R.Seconds = 1.5;
  auto Back = compileResultFromJson(toJson(R));
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Status, R.Status);
  EXPECT_EQ(Back->Diagnostics, R.Diagnostics);
  EXPECT_EQ(Back->Resources, R.Resources);
  EXPECT_EQ(Back->Command, R.Command);
  EXPECT_EQ(Back->ExitCode, 2);
  auto Bad = compileResultFromJson(forge::Json{{"status", "exploded"}});
  EXPECT_FALSE(static_cast<bool>(Bad));
  llvm::consumeError(Bad.takeError());
}

// The only test that runs the real nvcc: two small compiles in parallel
// (about 3 s on two cores).
TEST(NvccDriverReal, ResourceUsageAndAnErrorLine) {
  const char *RealNvcc = "/usr/local/cuda/bin/nvcc";
  if (!llvm::sys::fs::can_execute(RealNvcc))
    GTEST_SKIP() << "no nvcc at " << RealNvcc;
  auto TK = CudaToolkit::find("/usr/local/cuda");
  ASSERT_TRUE(static_cast<bool>(TK)) << llvm::toString(TK.takeError());
  EXPECT_GE(TK->Major, 12u);

  TempDir Work;
  CompileCache Cache(Work.path("cache"));
  NvccDriver Driver(*TK, DriverOptions{300, &Cache});
  CompileJob Good = job(Work.write("good.cu",
                                   "__global__ void axpy(float *y, const float "
                                   "*x, float a, int n) {\n"
                                   "  int i = blockIdx.x * blockDim.x + "
                                   "threadIdx.x;\n"
                                   "  if (i < n) y[i] += a * x[i];\n"
                                   "}\n"));
  Good.Output = OutputKind::ResourceCheck;
  CompileJob Bad = job(Work.write("bad.cu", "__global__ void k(float *p) {\n"
                                            "  int i = threadIdx.x;\n"
                                            "  p[i] = missing_value;\n"
                                            "}\n"),
                       Work.path("bad.o"));
  auto Results = Driver.compileAll({Good, Bad}, 2);
  ASSERT_EQ(Results.size(), 2u);
  ASSERT_TRUE(static_cast<bool>(Results[0]))
      << llvm::toString(Results[0].takeError());
  ASSERT_TRUE(static_cast<bool>(Results[1]))
      << llvm::toString(Results[1].takeError());

  const CompileResult &G = *Results[0];
  EXPECT_EQ(G.Status, CompileStatus::Success) << G.Log;
  const KernelResources *K = G.findKernel("_Z4axpyPfPKffi", "sm_90");
  ASSERT_NE(K, nullptr) << G.Log;
  EXPECT_EQ(K->DemangledName, "axpy(float*, float const*, float, int)");
  EXPECT_TRUE(K->IsEntry);
  EXPECT_GT(K->Registers, 0u);
  EXPECT_EQ(K->SpillStoreBytes, 0u);

  const CompileResult &B = *Results[1];
  EXPECT_EQ(B.Status, CompileStatus::Failed);
  ASSERT_EQ(B.errorCount(), 1u) << B.Log;
  EXPECT_EQ(B.Diagnostics[0].File, Bad.Source);
  EXPECT_EQ(B.Diagnostics[0].Line, 3u);
  EXPECT_EQ(B.Diagnostics[0].Message,
            "identifier \"missing_value\" is undefined");
  EXPECT_EQ(B.Diagnostics[0].Tool, "nvcc");

  // Both are cached now: a second round costs no compile.
  auto Again = Driver.compile(Bad);
  ASSERT_TRUE(static_cast<bool>(Again));
  EXPECT_TRUE(Again->CacheHit);
  EXPECT_EQ(Again->Diagnostics, B.Diagnostics);
  EXPECT_LT(Again->Seconds, 1.0);
}

} // namespace
