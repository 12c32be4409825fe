//===- ConcurrentTest.cpp - Runs that record into one file at once --------===//
#include "ExperienceTestUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace forge;
using namespace forge::experience;
using namespace forge::experience::test;

namespace {

/// Writer W's I-th entry: its kernel names both, so each can be found.
Entry nth(unsigned W, unsigned I) {
  Entry E = entry("expert:w" + std::to_string(W), "p", "sm_90", Verdict::Kept, 1 + I);
  E.Kernel = std::to_string(W) + "/" + std::to_string(I);
  return E;
}

/// Every writer's entries are there exactly once, the file parses, and no
/// temporary file is left beside it.
void checkAll(const TempDir &D, unsigned Writers, unsigned PerWriter) {
  auto X = Experience::load(D.path("x.json"));
  ASSERT_TRUE(bool(X)) << llvm::toString(X.takeError());
  EXPECT_EQ(X->entries().size(), Writers * PerWriter);
  std::set<std::string> Seen;
  for (const Entry &E : X->entries())
    EXPECT_TRUE(Seen.insert(E.Kernel).second) << "twice: " << E.Kernel;
  for (unsigned W = 0; W < Writers; ++W)
    for (unsigned I = 0; I < PerWriter; ++I)
      EXPECT_TRUE(Seen.count(std::to_string(W) + "/" + std::to_string(I)))
          << "lost: " << W << "/" << I;
  std::error_code EC;
  std::set<std::string> Files;
  for (llvm::sys::fs::directory_iterator It(D.Path, EC), End; It != End && !EC; It.increment(EC))
    Files.insert(llvm::sys::path::filename(It->path()).str());
  EXPECT_EQ(Files, (std::set<std::string>{"x.json", "x.json.lock"}));
}

TEST(Concurrent, ProcessesRecordingAtOnceLoseNothing) {
  TempDir D;
  const unsigned Writers = 8, PerWriter = 25;
  // The children wait on a pipe, so that they all start together.
  int Go[2];
  ASSERT_EQ(pipe(Go), 0);
  std::vector<pid_t> Kids;
  for (unsigned W = 0; W < Writers; ++W) {
    pid_t Pid = fork();
    ASSERT_GE(Pid, 0);
    if (Pid == 0) {
      close(Go[1]);
      char C;
      if (read(Go[0], &C, 1) != 0)
        _exit(3);
      auto X = Experience::load(D.path("x.json"));
      if (!X) {
        llvm::consumeError(X.takeError());
        _exit(1);
      }
      for (unsigned I = 0; I < PerWriter; ++I)
        if (llvm::Error E = X->record({nth(W, I)})) {
          llvm::errs() << llvm::toString(std::move(E)) << "\n";
          _exit(2);
        }
      _exit(0);
    }
    Kids.push_back(Pid);
  }
  close(Go[0]);
  close(Go[1]); // every child reads end-of-file at once
  for (pid_t Pid : Kids) {
    int Status = 0;
    ASSERT_EQ(waitpid(Pid, &Status, 0), Pid);
    EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0) << "status " << Status;
  }
  checkAll(D, Writers, PerWriter);
}

TEST(Concurrent, ThreadsRecordingAtOnceLoseNothing) {
  TempDir D;
  const unsigned Writers = 6, PerWriter = 20;
  std::vector<std::thread> Ts;
  std::vector<std::string> Errors(Writers);
  for (unsigned W = 0; W < Writers; ++W)
    Ts.emplace_back([&, W] {
      auto X = Experience::load(D.path("x.json"));
      if (!X) {
        Errors[W] = llvm::toString(X.takeError());
        return;
      }
      // Several entries per call, too.
      for (unsigned I = 0; I < PerWriter; I += 2)
        if (llvm::Error E = X->record({nth(W, I), nth(W, I + 1)})) {
          Errors[W] = llvm::toString(std::move(E));
          return;
        }
    });
  for (std::thread &T : Ts)
    T.join();
  for (const std::string &E : Errors)
    EXPECT_EQ(E, "");
  checkAll(D, Writers, PerWriter);
}

} // namespace
