//===- Executor.cpp - The local executor ----------------------------------===//
#include "forge/Measure/Executor.h"
#include "forge/Support/Subprocess.h"
#include "llvm/Support/MemoryBuffer.h"
#include <chrono>
#include <thread>

using namespace forge;
using namespace forge::measure;

Executor::~Executor() = default;

std::vector<CandidateResult> ResultTail::poll() {
  std::vector<CandidateResult> Out;
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return Out;
  llvm::StringRef Text = (*Buf)->getBuffer();
  if (Text.size() <= Offset)
    return Out;
  llvm::StringRef New = Text.substr(Offset);
  size_t LastNl = New.rfind('\n');
  if (LastNl == llvm::StringRef::npos)
    return Out;
  New = New.take_front(LastNl + 1);
  Offset += New.size();
  auto R = parseResults(New, Path);
  if (!R) {
    llvm::consumeError(R.takeError());
    return Out;
  }
  return R->Candidates;
}

llvm::Expected<std::vector<JobRun>>
LocalExecutor::run(const std::vector<std::string> &Dirs, const ExecutorHooks &H) {
  std::vector<JobRun> Runs;
  for (const std::string &Dir : Dirs) {
    JobRun J;
    J.Dir = Dir;
    if (H.Interrupted && *H.Interrupted) {
      J.Interrupted = true;
      J.ErrorMessage = "not started: the run was interrupted";
      Runs.push_back(std::move(J));
      continue;
    }
    std::vector<std::string> Args; // argv[0] first
    for (const std::string &W : Wrapper) {
      std::string A = W;
      for (size_t P; (P = A.find("{dir}")) != std::string::npos;)
        A.replace(P, 5, Dir);
      Args.push_back(std::move(A));
    }
    Args.insert(Args.end(), {WorkerPath, "run", Dir});
    if (TimeoutS > 0) {
      Args.push_back("--timeout-s");
      Args.push_back(std::to_string(TimeoutS));
    }
    std::atomic<bool> Running{true};
    std::thread Watcher([&] {
      ResultTail Tail(Dir + "/results.jsonl");
      auto Drain = [&] {
        for (const CandidateResult &C : Tail.poll())
          if (H.OnResult)
            H.OnResult(Dir, C);
      };
      while (Running) {
        Drain();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      Drain();
    });
    SubprocessOptions O;
    O.ScrubSecrets = true; // the worker loads candidates (docs/sandbox.md)
    auto R = runProgram(Args.front(), Args, O);
    Running = false;
    Watcher.join();
    if (!R)
      return R.takeError();
    J.Attempts = 1;
    J.Finished = !R->Crashed && !R->TimedOut && R->ExitCode >= 0;
    J.ExitCode = R->ExitCode;
    J.ErrorMessage = R->ErrorMessage;
    J.Log = std::move(R->Stderr);
    Runs.push_back(std::move(J));
  }
  return Runs;
}
