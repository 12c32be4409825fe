#include "forge/Support/Subprocess.h"
#include "gtest/gtest.h"

using namespace forge;

TEST(Subprocess, CapturesOutputAndExitCode) {
  auto R = runProgram("/bin/sh", {"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->ExitCode, 3);
  EXPECT_EQ(R->Stdout, "out\n");
  EXPECT_EQ(R->Stderr, "err\n");
  EXPECT_FALSE(R->ok());
}

TEST(Subprocess, TimeoutIsData) {
  SubprocessOptions O;
  O.TimeoutSeconds = 1;
  auto R = runProgram("/bin/sh", {"sh", "-c", "sleep 20"}, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->TimedOut);
  EXPECT_LT(R->Seconds, 10);
}

TEST(Subprocess, CrashIsData) {
  auto R = runProgram("/bin/sh", {"sh", "-c", "kill -SEGV $$"});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Crashed);
  EXPECT_FALSE(R->TimedOut);
}

TEST(Subprocess, StdinAndWorkingDir) {
  SubprocessOptions O;
  O.Stdin = "hello";
  O.WorkingDir = "/tmp";
  auto R = runProgram("/bin/sh", {"sh", "-c", "cat; pwd"}, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Stdout, "hello/tmp\n");
}

TEST(Subprocess, MissingProgramIsAnError) {
  auto R = runProgram("/nonexistent/prog", {"prog"});
  EXPECT_FALSE(bool(R));
  llvm::consumeError(R.takeError());
}

TEST(Subprocess, ShellJoinQuotes) {
  EXPECT_EQ(shellJoin({"nvcc", "-o", "a b", "it's"}), "nvcc -o 'a b' 'it'\\''s'");
}
