//===- ExecutorTest.cpp - the executors' option parsing and the local one ---===//
#include "forge/Measure/SlurmExecutor.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::measure;

namespace {

TEST(SlurmOptions, PartitionMapPairsTargetsWithPartitions) {
  auto M = parsePartitionMap("sm_80=a100, sm_90=h100,sm_100=b200");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_EQ(M->size(), 3u);
  EXPECT_EQ(M->at("sm_80"), "a100");
  EXPECT_EQ(M->at("sm_90"), "h100");
  EXPECT_EQ(M->at("sm_100"), "b200");
}

TEST(SlurmOptions, MalformedPartitionMapsAreUsageErrors) {
  struct Case {
    const char *Text, *Says;
  } Cases[] = {
      {"", "--partition is empty"},
      {"sm_90", "expected TARGET=PARTITION"},
      {"sm_90=", "expected TARGET=PARTITION"},
      {"=h100", "expected TARGET=PARTITION"},
      {"sm_91=h100", "'sm_91' is not a target this tool knows"},
      {"sm_90=h100,sm_90=gh200", "names sm_90 twice"},
  };
  for (const Case &C : Cases) {
    auto M = parsePartitionMap(C.Text);
    ASSERT_FALSE(bool(M)) << C.Text;
    std::string Msg = llvm::toString(M.takeError());
    EXPECT_NE(Msg.find(C.Says), std::string::npos) << C.Text << ": " << Msg;
  }
}

TEST(SlurmOptions, GpuRequests) {
  EXPECT_EQ(*parseSlurmGpuRequest("gres"), SlurmGpuRequest::Gres);
  EXPECT_EQ(*parseSlurmGpuRequest("gpus"), SlurmGpuRequest::Gpus);
  EXPECT_EQ(*parseSlurmGpuRequest("none"), SlurmGpuRequest::None);
  auto Bad = parseSlurmGpuRequest("gpu:1");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("expected gres"), std::string::npos);
}

// Configuration errors come before anything is run: here, where no Slurm
// command is on the BinDir given.
TEST(SlurmOptions, CreateChecksTheConfigurationFirst) {
  SlurmOptions O;
  O.Workdir = "/tmp";
  auto E = SlurmExecutor::create(O);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(llvm::toString(E.takeError()).find("needs a partition"), std::string::npos);
  O.Partition = "h100";
  O.Workdir = "";
  E = SlurmExecutor::create(O);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(llvm::toString(E.takeError()).find("needs --workdir"), std::string::npos);
  O.Workdir = "/tmp";
  O.BinDir = "/nonexistent-slurm";
  E = SlurmExecutor::create(O);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(llvm::toString(E.takeError()).find("'sbatch' is not in /nonexistent-slurm"),
            std::string::npos);
}

// The local executor runs the worker on each directory with argv (no
// shell), reports its exit status and stderr, and passes result lines on as
// they appear.
TEST(LocalExecutor, RunsTheWorkerOnEachDirectory) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-exec", Dir));
  std::string Worker = (Dir + "/worker.sh").str();
  ASSERT_FALSE(bool(writeFileAtomically(
      Worker, "#!/bin/sh\n"
              "# forge-worker run DIR\n"
              "[ \"$1\" = run ] || exit 9\n"
              "echo '{\"type\":\"candidate\",\"id\":\"ref\",\"reference\":true,"
              "\"status\":\"ok\"}' > \"$2/results.jsonl\"\n"
              "echo \"ran $2\" >&2\n"
              "case \"$2\" in *bad) exit 3;; esac\n")));
  llvm::sys::fs::setPermissions(Worker, llvm::sys::fs::perms(0755));
  std::string Good = (Dir + "/good").str(), Bad = (Dir + "/bad").str();
  ASSERT_FALSE(llvm::sys::fs::create_directories(Good));
  ASSERT_FALSE(llvm::sys::fs::create_directories(Bad));
  LocalExecutor L(Worker, 0);
  unsigned Seen = 0;
  ExecutorHooks H;
  H.OnResult = [&](llvm::StringRef, const CandidateResult &C) { Seen += C.Reference; };
  auto Runs = L.run({Good, Bad}, H);
  ASSERT_TRUE(bool(Runs)) << llvm::toString(Runs.takeError());
  ASSERT_EQ(Runs->size(), 2u);
  EXPECT_TRUE((*Runs)[0].Finished);
  EXPECT_EQ((*Runs)[0].ExitCode, 0);
  EXPECT_EQ((*Runs)[0].Log, "ran " + Good + "\n");
  EXPECT_TRUE((*Runs)[1].Finished);
  EXPECT_EQ((*Runs)[1].ExitCode, 3);
  EXPECT_EQ(Seen, 2u);
  // Interrupted: nothing more is started.
  std::atomic<bool> Stop{true};
  H.Interrupted = &Stop;
  Runs = L.run({Good}, H);
  ASSERT_TRUE(bool(Runs));
  EXPECT_FALSE((*Runs)[0].Finished);
  EXPECT_TRUE((*Runs)[0].Interrupted);
  llvm::sys::fs::remove_directories(Dir);
}

// With a wrapper (spec --check's compute-sanitizer), the wrapper's program
// runs, with the worker's command after its own arguments and {dir} the
// job directory.
TEST(LocalExecutor, RunsTheWorkerUnderAWrapper) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-exec", Dir));
  std::string Wrapper = (Dir + "/wrap.sh").str();
  ASSERT_FALSE(bool(writeFileAtomically(
      Wrapper, "#!/bin/sh\n"
               "# wrap.sh --log-file FILE WORKER run DIR\n"
               "[ \"$1\" = --log-file ] || exit 8\n"
               "echo \"wrapped: $4 $5\" > \"$2\"\n"
               "shift 2\n"
               "exec \"$@\"\n")));
  std::string Worker = (Dir + "/worker.sh").str();
  ASSERT_FALSE(bool(writeFileAtomically(
      Worker, "#!/bin/sh\n[ \"$1\" = run ] || exit 9\necho \"worker in $2\" >&2\n")));
  llvm::sys::fs::setPermissions(Wrapper, llvm::sys::fs::perms(0755));
  llvm::sys::fs::setPermissions(Worker, llvm::sys::fs::perms(0755));
  std::string Job = (Dir + "/job").str();
  ASSERT_FALSE(llvm::sys::fs::create_directories(Job));
  LocalExecutor L(Worker, 0, {Wrapper, "--log-file", "{dir}/wrapper.log"});
  auto Runs = L.run({Job}, {});
  ASSERT_TRUE(bool(Runs)) << llvm::toString(Runs.takeError());
  ASSERT_EQ(Runs->size(), 1u);
  EXPECT_EQ((*Runs)[0].ExitCode, 0);
  EXPECT_EQ((*Runs)[0].Log, "worker in " + Job + "\n");
  auto Log = llvm::MemoryBuffer::getFile(Job + "/wrapper.log");
  ASSERT_TRUE(bool(Log));
  EXPECT_EQ((*Log)->getBuffer(), "wrapped: run " + Job + "\n");
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
