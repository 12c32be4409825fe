//===- CommandTest.cpp - nvcc command construction ------------------------===//
#include "BuildTestUtil.h"
#include "forge/Support/Error.h"

using namespace forge::build;
using namespace forge::build::testing;
using Args = std::vector<std::string>;

namespace {

NvccDriver makeDriver() {
  CudaToolkit TK;
  TK.Root = "/opt/cuda";
  TK.NvccPath = "/opt/cuda/bin/nvcc";
  TK.Version = "13.0.88";
  TK.Major = 13;
  return NvccDriver(TK);
}

Args command(const CompileJob &Job) {
  auto Cmd = makeDriver().buildCommand(Job);
  if (!Cmd) {
    ADD_FAILURE() << llvm::toString(Cmd.takeError());
    return {};
  }
  return *Cmd;
}

std::string commandError(const CompileJob &Job) {
  auto Cmd = makeDriver().buildCommand(Job);
  if (Cmd)
    return "";
  std::string Msg;
  llvm::handleAllErrors(Cmd.takeError(), [&](const llvm::ErrorInfoBase &E) {
    Msg = (E.isA<forge::UsageError>() ? "usage: " : "") + E.message();
  });
  return Msg;
}

TEST(NvccCommand, ObjectForSm80) {
  CompileJob Job;
  Job.Source = "k.cu";
  Job.Targets = {sm("sm_80")};
  Job.OutputPath = "k.o";
  EXPECT_EQ(command(Job), (Args{"/opt/cuda/bin/nvcc", "-gencode",
                                "arch=compute_80,code=sm_80", "-c", "-o", "k.o",
                                "k.cu"}));
}

TEST(NvccCommand, CubinForSm90aWithEverything) {
  CompileJob Job;
  Job.Source = "k.cu";
  Job.Targets = {sm("sm_90a")};
  Job.Output = OutputKind::Cubin;
  Job.OutputPath = "k.cubin";
  Job.ResourceUsage = true;
  Job.LineInfo = true;
  Job.Std = "c++17";
  Job.IncludeDirs = {"inc", "/abs/inc"};
  Job.Defines = {"BLOCK=128", "USE_TMA"};
  Job.ExtraFlags = {"--use_fast_math", "-maxrregcount=64"};
  EXPECT_EQ(command(Job),
            (Args{"/opt/cuda/bin/nvcc", "-gencode",
                  "arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
                  "-lineinfo", "-std=c++17", "-Iinc", "-I/abs/inc",
                  "-DBLOCK=128", "-DUSE_TMA", "--use_fast_math",
                  "-maxrregcount=64", "-o", "k.cubin", "k.cu"}));
}

TEST(NvccCommand, FamilyTargetPtx) {
  CompileJob Job;
  Job.Source = "k.cu";
  Job.Targets = {sm("sm_100f")};
  Job.Output = OutputKind::Ptx;
  Job.OutputPath = "k.ptx";
  EXPECT_EQ(command(Job), (Args{"/opt/cuda/bin/nvcc", "-gencode",
                                "arch=compute_100f,code=sm_100f", "-ptx", "-o",
                                "k.ptx", "k.cu"}));
}

TEST(NvccCommand, SeveralTargets) {
  CompileJob Job;
  Job.Source = "k.cu";
  Job.Targets = {sm("sm_80"), sm("sm_90a"), sm("sm_100f"), sm("sm_90", /*Ptx=*/true)};
  Job.OutputPath = "k.o";
  EXPECT_EQ(command(Job),
            (Args{"/opt/cuda/bin/nvcc", "-gencode",
                  "arch=compute_80,code=sm_80", "-gencode",
                  "arch=compute_90a,code=sm_90a", "-gencode",
                  "arch=compute_100f,code=sm_100f", "-gencode",
                  "arch=compute_90,code=compute_90", "-c", "-o", "k.o",
                  "k.cu"}));
}

TEST(NvccCommand, ResourceCheckAndExecutable) {
  CompileJob Job;
  Job.Source = "k.cu";
  Job.Targets = {sm("sm_90")};
  Job.Output = OutputKind::ResourceCheck;
  Job.OutputPath = "k.cubin";
  EXPECT_EQ(command(Job), (Args{"/opt/cuda/bin/nvcc", "-gencode",
                                "arch=compute_90,code=sm_90", "-cubin",
                                "-Xptxas", "-v", "-o", "k.cubin", "k.cu"}));
  // nvcc refuses -cubin for several targets; a resource check uses -c.
  Job.Targets = {sm("sm_80"), sm("sm_90")};
  Job.OutputPath = "k.o";
  EXPECT_EQ(command(Job),
            (Args{"/opt/cuda/bin/nvcc", "-gencode",
                  "arch=compute_80,code=sm_80", "-gencode",
                  "arch=compute_90,code=sm_90", "-c", "-Xptxas", "-v", "-o",
                  "k.o", "k.cu"}));
  Job.Output = OutputKind::Executable;
  Job.Targets = {sm("sm_90")};
  Job.OutputPath = "k";
  EXPECT_EQ(command(Job), (Args{"/opt/cuda/bin/nvcc", "-gencode",
                                "arch=compute_90,code=sm_90", "-o", "k",
                                "k.cu"}));
  Job.Targets.clear();
  Job.OutputPath.clear();
  EXPECT_EQ(command(Job), (Args{"/opt/cuda/bin/nvcc", "k.cu"}));
  // A harness library for the worker.
  Job.Output = OutputKind::SharedLibrary;
  Job.Targets = {sm("sm_90")};
  Job.OutputPath = "h.so";
  EXPECT_EQ(command(Job), (Args{"/opt/cuda/bin/nvcc", "-gencode",
                                "arch=compute_90,code=sm_90", "-shared",
                                "-cudart", "shared", "-Xcompiler", "-fPIC", "-o", "h.so", "k.cu"}));
}

TEST(NvccCommand, InvalidJobsAreUsageErrors) {
  CompileJob Job;
  Job.Source = "k.cu";
  // Target names are checked once, by the Arch table (TargetInfoTest); a
  // job holds only known targets. What stays invalid is a kind that takes
  // one target given several.
  Job.Targets = {sm("sm_80"), sm("sm_90")};
  Job.Output = OutputKind::Cubin;
  EXPECT_EQ(commandError(Job),
            "usage: cubin output takes one target; got 2 (sm_80, sm_90)");
}

TEST(CudaToolkitVersion, ParsesNvccVersionOutput) {
  EXPECT_EQ(parseNvccVersion(
                "nvcc: NVIDIA (R) Cuda compiler driver\n"
                "Copyright (c) 2005-2025 NVIDIA Corporation\n"
                "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
                "Cuda compilation tools, release 13.0, V13.0.88\n"
                "Build cuda_13.0.r13.0/compiler.36424714_0\n"),
            "13.0.88");
  EXPECT_EQ(parseNvccVersion("Cuda compilation tools, release 12.4\n"), "12.4");
  EXPECT_EQ(parseNvccVersion("garbage"), "");
}

TEST(CudaToolkitVersion, FindsAnExplicitToolkit) {
  FakeNvcc Fake("12.8.93");
  auto TK = CudaToolkit::find(Fake.root());
  ASSERT_TRUE(static_cast<bool>(TK)) << llvm::toString(TK.takeError());
  EXPECT_EQ(TK->NvccPath, Fake.nvcc());
  EXPECT_EQ(TK->Root, Fake.root());
  EXPECT_EQ(TK->Version, "12.8.93");
  EXPECT_EQ(TK->Major, 12u);
  EXPECT_EQ(TK->Minor, 8u);
  EXPECT_EQ(TK->versionTag(), "nvcc 12.8.93");
  // The nvcc binary itself works as well.
  auto ByBinary = CudaToolkit::find(Fake.nvcc());
  ASSERT_TRUE(static_cast<bool>(ByBinary));
  EXPECT_EQ(ByBinary->Root, Fake.root());
  auto Missing = CudaToolkit::find("/nonexistent/cuda");
  EXPECT_FALSE(static_cast<bool>(Missing));
  llvm::consumeError(Missing.takeError());
}

} // namespace
