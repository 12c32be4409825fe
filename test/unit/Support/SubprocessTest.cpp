#include "forge/Support/Secrets.h"
#include "forge/Support/Subprocess.h"
#include "gtest/gtest.h"
#include "llvm/Support/FileSystem.h"
#include <cstdlib>

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

// No process that compiles or runs candidate code sees a secret: the
// child's own environment, printed by env, has none of them, and keeps the
// rest.
TEST(Subprocess, ScrubSecretsTakesThemOutOfTheChildsEnvironment) {
  ::setenv("FORGE_LLM_API_KEY", "sk-forge-probe", 1);
  ::setenv("MY_github_Token", "t0k", 1);
  ::setenv("AWS_REGION", "eu", 1);
  ::setenv("HTTPS_PROXY", "http://bob:hunter2@proxy:3128", 1);
  ::setenv("FORGE_PROBE_PLAIN", "kept", 1);
  SubprocessOptions O;
  O.ScrubSecrets = true;
  auto R = runProgram("/usr/bin/env", {"env"}, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Stdout.find("sk-forge-probe"), std::string::npos) << R->Stdout;
  EXPECT_EQ(R->Stdout.find("t0k"), std::string::npos);
  EXPECT_EQ(R->Stdout.find("AWS_REGION"), std::string::npos);
  EXPECT_EQ(R->Stdout.find("hunter2"), std::string::npos);
  EXPECT_NE(R->Stdout.find("FORGE_PROBE_PLAIN=kept"), std::string::npos);
  EXPECT_NE(R->Stdout.find("PATH="), std::string::npos);

  // An explicit environment is scrubbed too.
  O.Env = std::vector<std::string>{"A=1", "DB_PASSWORD=x", "api_key=y"};
  R = runProgram("/usr/bin/env", {"env"}, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Stdout, "A=1\n");

  // Without the option the variable is passed on (the check above can fail).
  SubprocessOptions Plain;
  R = runProgram("/usr/bin/env", {"env"}, Plain);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_NE(R->Stdout.find("sk-forge-probe"), std::string::npos);
  ::unsetenv("FORGE_LLM_API_KEY");
  ::unsetenv("MY_github_Token");
  ::unsetenv("AWS_REGION");
  ::unsetenv("HTTPS_PROXY");
  ::unsetenv("FORGE_PROBE_PLAIN");
}

TEST(Secrets, TheRule) {
  using namespace forge::support;
  for (const char *N : {"FORGE_LLM_API_KEY", "OPENAI_API_KEY", "api_token",
                        "Client_Secret", "PGPASSWORD", "AWS_PROFILE",
                        "GOOGLE_APPLICATION_CREDENTIALS", "SSH_AUTH_SOCK",
                        "FORGE_LLM_URL", "HF_HOME"})
    EXPECT_TRUE(isSecretName(N)) << N;
  for (const char *N : {"PATH", "HOME", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                        "TMPDIR", "LANG", "CUDA_CACHE_PATH", "FORGE_WORKER"})
    EXPECT_FALSE(isSecretName(N)) << N;
  EXPECT_TRUE(isSecretEntry("http_proxy=http://u:p@h:1/"));
  EXPECT_FALSE(isSecretEntry("http_proxy=http://h:1/"));
  EXPECT_FALSE(isSecretEntry("NOTE=a://b/c:d@e"));
}

// NoNetwork runs the program in another network namespace where unshare
// may make one (this machine and CI can; the test says so where not).
TEST(Subprocess, NoNetworkRunsInAnotherNetworkNamespace) {
  auto Outside = runProgram("/bin/readlink", {"readlink", "/proc/self/ns/net"});
  ASSERT_TRUE(bool(Outside)) << llvm::toString(Outside.takeError());
  SubprocessOptions O;
  O.NoNetwork = true;
  O.WorkingDir = "/";
  auto Inside = runProgram("/bin/readlink", {"readlink", "/proc/self/ns/net"}, O);
  ASSERT_TRUE(bool(Inside)) << llvm::toString(Inside.takeError());
  EXPECT_EQ(Inside->ExitCode, 0) << Inside->Stderr;
  if (!networkIsolationAvailable())
    GTEST_SKIP() << "unshare cannot make a network namespace here";
  EXPECT_NE(Inside->Stdout, Outside->Stdout);
  EXPECT_NE(Inside->Stdout.find("net:["), std::string::npos);
}

TEST(Subprocess, LeavesNoTemporaryFileOnAnyPath) {
  // The captured output, error and input go through temporary files; every
  // return (a normal exit, a timeout, a program that cannot run, with or
  // without the network namespace) removes them.
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("subprocess-tmp", Dir));
  const char *Old = std::getenv("TMPDIR");
  std::string Saved = Old ? Old : "";
  setenv("TMPDIR", Dir.c_str(), 1);
  SubprocessOptions O;
  O.Stdin = "x";
  (void)runProgram("/bin/sh", {"sh", "-c", "cat"}, O);
  O.TimeoutSeconds = 1;
  (void)runProgram("/bin/sh", {"sh", "-c", "sleep 20"}, O);
  llvm::consumeError(runProgram("/nonexistent/prog", {"prog"}, O).takeError());
  O.NoNetwork = true;
  llvm::consumeError(runProgram("/nonexistent/prog", {"prog"}, O).takeError());
  if (Old)
    setenv("TMPDIR", Saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  std::error_code EC;
  std::vector<std::string> Left;
  for (llvm::sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    Left.push_back(I->path());
  EXPECT_TRUE(Left.empty()) << Left.size() << " left, first " << Left.front();
  llvm::sys::fs::remove_directories(Dir);
}
