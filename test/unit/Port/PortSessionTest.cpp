//===- PortSessionTest.cpp - The port driver without the command line -----===//
//
// The driver the CLI, the CMake integration and the cluster executor share:
// findings, the patch and its re-parse, where the result goes, and what a
// file that cannot be ported gives. Real Clang parses against the mock CUDA
// headers; nvcc is not run here (the lit tests validate with it).
//
//===----------------------------------------------------------------------===//
#include "PassRegistry.h"
#include "forge/Config.h"
#include "forge/Port/PortSession.h"
#include "forge/Report/PortReport.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace forge;

namespace {

const char *Legacy = R"CU(__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  return v;
}
__global__ void k(float *x) { x[threadIdx.x] = warpSum(x[threadIdx.x]); }
)CU";

class PortSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-port-session", Dir));
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
    O.Target = &llvm::cantFail(arch::lookupTarget("sm_100"));
    O.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                   "-include", "cuda_runtime.h"};
    auto All = passes::selectPasses("*");
    ASSERT_TRUE(bool(All)) << llvm::toString(All.takeError());
    O.Passes = *All;
    O.Validate = false; // nvcc is the lit tests' business
    O.Toolchain = &TC;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string write(llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    EXPECT_FALSE(bool(writeFileAtomically(P, Text)));
    return P.str().str();
  }

  llvm::SmallString<128> Dir;
  frontend::Toolchain TC;
  port::PortSessionOptions O;
};

TEST_F(PortSessionTest, FindsFixesAndRewritesInPlace) {
  std::string File = write("legacy.cu", Legacy);
  O.Files = {File};
  O.Output.K = OutputChoice::Kind::InPlace;
  auto R = port::PortSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Files.size(), 1u);
  const port::FilePortResult &F = R->Files[0];
  EXPECT_TRUE(F.Completed);
  EXPECT_TRUE(F.Failure.empty());
  EXPECT_STREQ(F.Source->Name, "sm_80"); // nothing in the flags
  ASSERT_EQ(F.Findings.size(), 1u);
  EXPECT_EQ(F.Findings[0].Pass, "warp-sync-intrinsics");
  EXPECT_EQ(F.Findings[0].Loc.Line, 3u);
  EXPECT_EQ(F.Fixed, 1u);
  EXPECT_TRUE(F.Patched);
  EXPECT_NE(F.Result.find("__shfl_down_sync(0xffffffff, v, offset)"), std::string::npos)
      << F.Result;
  EXPECT_FALSE(F.Failed) << "a fixed warning is no error";
  EXPECT_FALSE(R->failed());
  auto OnDisk = readFile(File);
  ASSERT_TRUE(bool(OnDisk));
  EXPECT_EQ(*OnDisk, F.Result);
  // The JSON of docs/port.md.
  Json J = report::portFileJson(F, 256);
  EXPECT_EQ(J["target"], "sm_100");
  EXPECT_EQ(J["source"], "sm_80");
  EXPECT_EQ(J["patched"], true);
  EXPECT_EQ(J["findings"][0]["pass"], "warp-sync-intrinsics");
  EXPECT_TRUE(J["validation"].is_null());
}

TEST_F(PortSessionTest, ReportOnlyLeavesTheFileAlone) {
  std::string File = write("legacy.cu", Legacy);
  O.Files = {File};
  std::vector<std::string> Seen;
  auto R = port::PortSession(O).run([&](const port::FilePortResult &F) { Seen.push_back(F.File); });
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(Seen, std::vector<std::string>{File});
  EXPECT_TRUE(R->Files[0].Patched); // the result is there for the caller
  EXPECT_TRUE(R->Files[0].DiffText.empty());
  EXPECT_EQ(*readFile(File), Legacy);
  // Diff output: the patch as text, nothing written.
  O.Output.K = OutputChoice::Kind::Diff;
  auto D = port::PortSession(O).run();
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_NE(D->Files[0].DiffText.find("+    v += __shfl_down_sync(0xffffffff, v, offset);"),
            std::string::npos)
      << D->Files[0].DiffText;
  EXPECT_EQ(*readFile(File), Legacy);
}

TEST_F(PortSessionTest, AFileThatCannotBePortedIsAResultNotAnError) {
  std::string Good = write("legacy.cu", Legacy);
  O.Files = {(Dir + "/missing.cu").str(), Good};
  auto R = port::PortSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Files.size(), 2u);
  EXPECT_TRUE(R->Files[0].Failed);
  EXPECT_FALSE(R->Files[0].Completed);
  EXPECT_NE(R->Files[0].Failure.find("missing.cu"), std::string::npos) << R->Files[0].Failure;
  EXPECT_TRUE(R->Files[1].Completed);
  EXPECT_TRUE(R->failed());
}

TEST_F(PortSessionTest, UsageErrorsStopTheRun) {
  O.Files = {write("a.cu", Legacy), write("b.cu", Legacy)};
  O.Output.K = OutputChoice::Kind::File;
  O.Output.Path = (Dir + "/out.cu").str();
  auto R = port::PortSession(O).run();
  ASSERT_FALSE(bool(R));
  llvm::Error E = R.takeError();
  EXPECT_TRUE(E.isA<UsageError>());
  EXPECT_NE(llvm::toString(std::move(E)).find("-o FILE takes one input file"), std::string::npos);
  // An arch in the user's flags that the Arch database does not know.
  O.Files = {write("c.cu", Legacy)};
  O.Output = OutputChoice();
  O.ExtraArgs.push_back("--cuda-gpu-arch=sm_42");
  auto R2 = port::PortSession(O).run();
  ASSERT_FALSE(bool(R2));
  EXPECT_NE(llvm::toString(R2.takeError()).find("unknown target 'sm_42'"), std::string::npos);
}

TEST_F(PortSessionTest, ErrorsFailTheFileAndSarifListsEveryPass) {
  // Static shared memory over 48 KB is an error on every target.
  std::string File = write("big.cu", "__global__ void big(float *x) {\n"
                                     "  __shared__ float tile[16384];\n"
                                     "  tile[threadIdx.x] = x[threadIdx.x];\n"
                                     "  x[threadIdx.x] = tile[threadIdx.x];\n"
                                     "}\n");
  O.Files = {File};
  auto R = port::PortSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const port::FilePortResult &F = R->Files[0];
  EXPECT_GE(F.Errors, 1u);
  EXPECT_TRUE(F.Failed);
  Json S = report::portSarif(*R, passes::allPasses());
  EXPECT_EQ(S["version"], "2.1.0");
  EXPECT_EQ(S["runs"][0]["tool"]["driver"]["rules"].size(), passes::allPasses().size());
  ASSERT_GE(S["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(S["runs"][0]["results"][0]["ruleId"], "shared-memory-limits");
  EXPECT_EQ(S["runs"][0]["results"][0]["level"], "error");
}

TEST_F(PortSessionTest, ARemovedCallIsOneErrorOfThePassNotAlsoClangs) {
  // The mock headers, like CUDA 13's, do not declare cudaThreadSynchronize:
  // Clang's "undeclared identifier" is the pass's finding, counted once.
  std::string File = write("sync.cu", "void wait() { cudaThreadSynchronize(); }\n");
  O.Files = {File};
  auto R = port::PortSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const port::FilePortResult &F = R->Files[0];
  ASSERT_EQ(F.Findings.size(), 1u);
  EXPECT_EQ(F.Findings[0].Pass, "cuda13-removed-api");
  EXPECT_EQ(F.Findings[0].Level, port::Severity::Error);
  EXPECT_TRUE(F.ParseErrors.empty()) << F.ParseErrors[0];
  EXPECT_EQ(F.totalErrors(), 1u);
  EXPECT_TRUE(F.Failed) << "the file as it is still has the error";
  EXPECT_NE(F.Result.find("cudaDeviceSynchronize();"), std::string::npos) << F.Result;
  // Written, the fixed error is gone: the run succeeds.
  O.Output.K = OutputChoice::Kind::InPlace;
  auto W = port::PortSession(O).run();
  ASSERT_TRUE(bool(W)) << llvm::toString(W.takeError());
  EXPECT_FALSE(W->Files[0].Failed);
  EXPECT_EQ(W->Files[0].RemainingParseErrors, 0u);
  EXPECT_NE(readFile(File)->find("cudaDeviceSynchronize();"), std::string::npos);
}

TEST_F(PortSessionTest, ClangErrorsWithoutValidationCountAndFail) {
  // No pass explains this error and nvcc does not run: it counts.
  std::string File = write("bad.cu", "void f() { int x = undeclared_thing; }\n");
  O.Files = {File};
  auto R = port::PortSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const port::FilePortResult &F = R->Files[0];
  EXPECT_EQ(F.Errors, 0u);
  EXPECT_EQ(F.ParseErrorsCounted, 1u);
  EXPECT_EQ(F.totalErrors(), 1u);
  EXPECT_TRUE(F.Failed);
  bool Noted = llvm::any_of(F.Messages, [](const port::SessionMessage &M) {
    return llvm::StringRef(M.Text).starts_with("1 error(s) in code Clang could not parse;");
  });
  EXPECT_TRUE(Noted);
}

TEST_F(PortSessionTest, ReadOnlyAndMissingDirectoryAreRefusedBeforeAnyWork) {
  std::string File = write("legacy.cu", Legacy);
  O.Files = {File};
  O.Output.K = OutputChoice::Kind::File;
  O.Output.Path = (Dir + "/missing/out.cu").str();
  unsigned Ported = 0;
  auto R = port::PortSession(O).run([&](const port::FilePortResult &) { ++Ported; });
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("does not exist"), std::string::npos);
  EXPECT_EQ(Ported, 0u);
  // -i on a file without write permission (the bits, not access(2)).
  ASSERT_FALSE(llvm::sys::fs::setPermissions(File, llvm::sys::fs::all_read));
  O.Output = OutputChoice();
  O.Output.K = OutputChoice::Kind::InPlace;
  auto I = port::PortSession(O).run([&](const port::FilePortResult &) { ++Ported; });
  ASSERT_FALSE(bool(I));
  EXPECT_NE(llvm::toString(I.takeError()).find("is read-only"), std::string::npos);
  EXPECT_EQ(Ported, 0u);
  EXPECT_EQ(*readFile(File), Legacy);
  O.Force = true;
  auto F = port::PortSession(O).run();
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_NE(readFile(File)->find("__shfl_down_sync"), std::string::npos);
}

TEST_F(PortSessionTest, AHeaderFixIsAppliedOnceForTheProjectAndOnlyWhereItIsWritten) {
  std::string Legacy1(Legacy);
  std::string Header =
      write("warp.cuh", "#pragma once\n" + Legacy1.substr(0, Legacy1.find("__global__")));
  std::string HeaderText = *readFile(Header);
  std::string A = write("a.cu", "#include \"warp.cuh\"\n__global__ void ka(float *x) { "
                                "x[threadIdx.x] = warpSum(x[threadIdx.x]); }\n");
  std::string B = write("b.cu", "#include \"warp.cuh\"\n__global__ void kb(float *x) { "
                                "x[0] = warpSum(x[threadIdx.x]); }\n");
  O.Files = {A, B};
  O.Jobs = 2;
  O.Output.K = OutputChoice::Kind::InPlace;
  auto R = port::PortSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->ProjectFiles.size(), 1u);
  const port::ProjectFileResult &P = R->ProjectFiles[0];
  EXPECT_EQ(P.File, Header);
  EXPECT_EQ(P.From, (std::vector<std::string>{A, B}));
  EXPECT_TRUE(P.Written);
  EXPECT_TRUE(P.Rejected.empty()) << P.Rejected;
  std::string Patched = *readFile(Header);
  EXPECT_NE(Patched.find("__shfl_down_sync(0xffffffff, v, offset)"), std::string::npos);
  EXPECT_EQ(Patched.find("__shfl_down_sync(0xffffffff, 0xffffffff"), std::string::npos)
      << "one edit, however many files include the header";
  for (const port::FilePortResult &F : R->Files) {
    EXPECT_EQ(F.Fixed, 1u) << F.File;
    EXPECT_EQ(F.ProjectFixFiles, (std::vector<std::string>{Header}));
  }
  // -o FILE writes only the input's result: the header's fix is not
  // applied, and the finding does not claim it is (JSON "fixed": false).
  ASSERT_FALSE(bool(writeFileAtomically(Header, HeaderText)));
  O.Files = {A};
  O.Output = OutputChoice();
  O.Output.K = OutputChoice::Kind::File;
  O.Output.Path = (Dir + "/out.cu").str();
  auto One = port::PortSession(O).run();
  ASSERT_TRUE(bool(One)) << llvm::toString(One.takeError());
  EXPECT_TRUE(One->ProjectFiles.empty());
  const port::FilePortResult &F = One->Files[0];
  ASSERT_EQ(F.Findings.size(), 1u);
  EXPECT_FALSE(F.Findings[0].Fixed);
  EXPECT_EQ(F.Fixed, 0u);
  EXPECT_EQ(report::portFileJson(F, 256)["findings"][0]["fixed"], false);
  EXPECT_EQ(*readFile(Header), HeaderText);
}

} // namespace
