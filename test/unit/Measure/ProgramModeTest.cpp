//===- ProgramModeTest.cpp - program mode's parsing and summaries ---------===//
#include "forge/Build/NvccDriver.h"
#include "forge/Measure/ProgramMode.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::measure;

namespace {

// What libforge-inject.so writes (tools/forge-worker/inject/Inject.cpp).
const char *Report =
    R"JSON({"type":"inject","timer":"cupti","pid":42,"kernels":2,"dropped":0,"incomplete":3}
{"type":"kernel","name":"conv2d_5x5(float const*, float*, int, int)","mangled":"_Z10conv2d_5x5PKfPfii","launches":20,"streams":2,"total_ns":11744000,"median_ns":587200,"min_ns":585000,"max_ns":590000,"mean_ns":587200}
{"type":"kernel","name":"saxpy(int, float, float const*, float*)","mangled":"_Z5saxpyifPKfPf","launches":20,"total_ns":4416000,"median_ns":220800,"min_ns":219000,"max_ns":223000,"mean_ns":220800}
)JSON";

TEST(ProgramMode, ParsesTheInjectionReport) {
  auto R = parseInjectReport(Report, "inject.jsonl");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Timer, "cupti");
  ASSERT_EQ(R->Kernels.size(), 2u);
  const KernelTiming *S = R->find("_Z5saxpyifPKfPf");
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Name, "saxpy(int, float, float const*, float*)");
  EXPECT_EQ(S->Launches, 20u);
  EXPECT_EQ(S->MedianNs, 220800);
  EXPECT_EQ(S->Streams, 0u); // a report of an older library has no count
  EXPECT_EQ(R->find("_Z10conv2d_5x5PKfPfii")->Streams, 2u);
  // Launches still running at the end: left on another stream.
  EXPECT_EQ(R->Incomplete, 3u);
}

// The names are what forge-port measure --run prints and scripts read.
TEST(ProgramMode, StatusNames) {
  EXPECT_EQ(statusName(ProgramStatus::Ok), "ok");
  EXPECT_EQ(statusName(ProgramStatus::BuildFailed), "build-failed");
  EXPECT_EQ(statusName(ProgramStatus::Failed), "failed");
  EXPECT_EQ(statusName(ProgramStatus::OutputDiffers), "output-differs");
  EXPECT_EQ(ProgramVariant().Status, ProgramStatus::Ok);
}

TEST(ProgramMode, BadReportsNameTheLine) {
  auto E = [](const char *T) {
    auto R = parseInjectReport(T, "i.jsonl");
    return R ? std::string("no error") : llvm::toString(R.takeError());
  };
  EXPECT_EQ(E(""), "i.jsonl: no header line from the injection library");
  EXPECT_EQ(E("{\"type\":\"inject\"}\nnot json"), "i.jsonl:2: not a JSON object: not json");
  EXPECT_EQ(E("{\"type\":\"inject\"}\n{\"type\":\"kernel\",\"launches\":1}"),
            "i.jsonl:2: a kernel line without a name");
  // A failed library says why, and the caller reports it.
  auto R = parseInjectReport(
      R"({"type":"inject","timer":"none","error":"CUPTI_ERROR_NOT_INITIALIZED"})",
      "i");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Timer, "none");
  EXPECT_EQ(R->Error, "CUPTI_ERROR_NOT_INITIALIZED");
}

TEST(ProgramMode, SummariesTakeTheMedianOverRuns) {
  std::vector<ProgramRun> Runs(3);
  double Medians[] = {100, 104, 101};
  for (int I = 0; I < 3; ++I) {
    KernelTiming K;
    K.Name = "k";
    K.Launches = 5;
    K.MedianNs = Medians[I];
    K.TotalNs = Medians[I] * 5;
    K.Streams = I == 1 ? 3 : 1;
    Runs[I].Timing.Kernels.push_back(K);
    KernelTiming Big = K;
    Big.Name = "big";
    Big.TotalNs = 1e6;
    Runs[I].Timing.Kernels.push_back(Big);
  }
  auto S = summarizeRuns(Runs);
  ASSERT_EQ(S.size(), 2u);
  EXPECT_EQ(S[0].Name, "big"); // by total time
  EXPECT_EQ(S[1].Name, "k");
  EXPECT_EQ(S[1].MedianNs, 101);
  EXPECT_EQ(S[1].TotalNs, 505);
  EXPECT_NEAR(S[1].RunSpread, 4.0 / 101, 1e-12);
  EXPECT_EQ(S[1].Streams, 3u); // the most streams of one run
}

TEST(ProgramMode, OutputComparisonIgnoresMatchingLines) {
  auto A = comparableOutput("checksum 1.5\ntime 3.2 ms\n", {"^time "});
  auto B = comparableOutput("checksum 1.5\ntime 9.9 ms\n", {"^time "});
  ASSERT_TRUE(bool(A) && bool(B));
  EXPECT_EQ(*A, *B);
  auto C = comparableOutput("checksum 1.6\ntime 3.2 ms\n", {"^time "});
  ASSERT_TRUE(bool(C));
  EXPECT_NE(*A, *C);
  auto Bad = comparableOutput("x", {"("});
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("--ignore-output '('"),
            std::string::npos);
}

} // namespace

// --check: the check command runs after each run, must exit 0, and its
// output is what is compared (not the program's). The "program" here is a
// shell command that writes what libforge-inject.so would.
namespace {
std::string fakeRun(llvm::StringRef Print) {
  return ("printf '%s\\n' '{\"type\":\"inject\",\"timer\":\"cupti\",\"pid\":1,\"kernels\":0,"
          "\"dropped\":0,\"incomplete\":0}' > \"$FORGE_INJECT_OUT\"; " +
          Print)
      .str();
}

ProgramRequest checkRequest(llvm::StringRef Dir, std::string Command, std::string Check) {
  ProgramRequest Req;
  Req.Command = std::move(Command);
  Req.CheckCommand = std::move(Check);
  Req.Runs = 2;
  Req.InjectLibrary = "/nonexistent/libforge-inject.so";
  Req.JobDir = (Dir + "/job").str();
  Req.TimeoutSeconds = 30;
  return Req;
}
} // namespace

TEST(ProgramMode, TheCheckCommandsOutputIsCompared) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-check", Dir));
  build::NvccDriver Driver(build::CudaToolkit{}); // nothing is built
  std::string Counter = (Dir + "/n").str();
  // The program's output changes from run to run; the check's does not:
  // the runs agree.
  auto R = runProgramMode(
      Driver, checkRequest(Dir, fakeRun("date +%s%N"), "echo checked"));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->size(), 1u);
  EXPECT_EQ((*R)[0].Status, ProgramStatus::Ok) << (*R)[0].Detail;
  EXPECT_EQ((*R)[0].Runs.size(), 2u);
  // The program's output is constant; the check's changes: they differ.
  auto D = runProgramMode(
      Driver, checkRequest(Dir, fakeRun("echo same"),
                           "echo x >> " + Counter + "; wc -l < " + Counter));
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_EQ((*D)[0].Status, ProgramStatus::OutputDiffers);
  EXPECT_NE((*D)[0].Detail.find("changes from run to run"), std::string::npos) << (*D)[0].Detail;
  // A check that fails on the original is an error that says so.
  auto F = runProgramMode(Driver,
                          checkRequest(Dir, fakeRun("echo same"), "echo bad >&2; exit 3"));
  ASSERT_FALSE(bool(F));
  std::string Msg = llvm::toString(F.takeError());
  EXPECT_NE(Msg.find("on the original program, the check 'echo bad >&2; exit 3' failed: exit "
                     "status 3: bad"),
            std::string::npos)
      << Msg;
  llvm::sys::fs::remove_directories(Dir);
}
