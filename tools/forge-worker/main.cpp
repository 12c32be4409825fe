//===- forge-worker/main.cpp - The GPU measurement worker ---------------===//
///
/// forge-worker run JOB [--timeout-s S] [--only ID,...] [--sandbox M]  supervise a job
/// forge-worker exec JOB [--only ID,...] [--process N] [--sandbox M]   the child (debugging)
/// forge-worker sandbox-check JOB [--only ID,...] [--sandbox M]  the sandbox, no GPU
/// forge-worker ceilings [--refresh]                      the GPU's ceilings
/// forge-worker info                                      the device line
///
/// See docs/worker-protocol.md and docs/sandbox.md.
//===----------------------------------------------------------------------===//

#include "Exec.h"
#include "Plan.h"
#include "Sandbox.h"
#include "Supervisor.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace forge::worker;
namespace measure = forge::measure;

namespace {

const char *Usage =
    "usage: forge-worker run JOB [--timeout-s S] [--only ID,...] [--sandbox M]\n"
    "       forge-worker exec JOB [--only ID,...] [--process N] [--sandbox M]\n"
    "       forge-worker sandbox-check JOB [--only ID,...] [--sandbox M]\n"
    "       forge-worker ceilings [--refresh]\n"
    "       forge-worker info\n"
    "JOB is a job directory with a job.plan (docs/worker-protocol.md).\n"
    "M is on, strict or off (default: the plan's 'option sandbox'); the\n"
    "environment variable FORGE_SANDBOX_SKIP=LAYER,... switches layers off\n"
    "(docs/sandbox.md).\n";

int usageError(const std::string &Msg) {
  std::fprintf(stderr, "forge-worker: %s\n%s", Msg.c_str(), Usage);
  return 2;
}

std::vector<std::string> splitList(const std::string &S) {
  std::vector<std::string> Out;
  size_t Start = 0;
  while (Start <= S.size()) {
    size_t E = S.find(',', Start);
    if (E == std::string::npos)
      E = S.size();
    if (E > Start)
      Out.push_back(S.substr(Start, E - Start));
    Start = E + 1;
  }
  return Out;
}

std::string selfPath(const char *Argv0) {
  char Buf[PATH_MAX];
  ssize_t N = ::readlink("/proc/self/exe", Buf, sizeof Buf - 1);
  if (N > 0)
    return std::string(Buf, size_t(N));
  return Argv0;
}

bool parseNumber(const std::string &S, double &Out) {
  char *End = nullptr;
  Out = std::strtod(S.c_str(), &End);
  return !S.empty() && End && *End == '\0' && Out > 0;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  if (Args.empty())
    return usageError("missing command");
  std::string Cmd = Args[0];
  if (Cmd == "--help" || Cmd == "-h") {
    std::fputs(Usage, stdout);
    return 0;
  }
  if (Cmd == "info")
    return Args.size() == 1 ? runInfo() : usageError("info takes no options");
  if (Cmd == "ceilings") {
    bool Refresh = false;
    for (size_t I = 1; I < Args.size(); ++I) {
      if (Args[I] == "--refresh")
        Refresh = true;
      else
        return usageError("unknown option '" + Args[I] + "'");
    }
    return runCeilings(Refresh);
  }
  if (Cmd != "run" && Cmd != "exec" && Cmd != "sandbox-check")
    return usageError("unknown command '" + Cmd + "'");

  std::string JobDir;
  std::vector<std::string> Only;
  double TimeoutS = 0;
  unsigned Process = 1;
  std::optional<measure::SandboxMode> Sandbox;
  for (size_t I = 1; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    auto Value = [&](std::string &Out) {
      if (I + 1 >= Args.size())
        return false;
      Out = Args[++I];
      return true;
    };
    std::string V;
    if (A == "--only") {
      if (!Value(V))
        return usageError("--only needs a list of ids");
      Only = splitList(V);
    } else if (A == "--timeout-s" && Cmd == "run") {
      if (!Value(V) || !parseNumber(V, TimeoutS))
        return usageError("--timeout-s needs a positive number of seconds");
    } else if (A == "--process" && Cmd == "exec") {
      double N = 0;
      if (!Value(V) || !parseNumber(V, N))
        return usageError("--process needs a positive number");
      Process = unsigned(N);
    } else if (A == "--sandbox" || A.rfind("--sandbox=", 0) == 0) {
      if (A == "--sandbox" && !Value(V))
        return usageError("--sandbox needs on, strict or off");
      if (A != "--sandbox")
        V = A.substr(10);
      Sandbox = measure::parseSandboxMode(V);
      if (!Sandbox)
        return usageError("--sandbox: unknown mode '" + V +
                          "' (expected on, strict or off)");
    } else if (!A.empty() && A[0] == '-') {
      return usageError("unknown option '" + A + "'");
    } else if (JobDir.empty()) {
      JobDir = A;
    } else {
      return usageError("more than one job directory");
    }
  }
  if (JobDir.empty())
    return usageError("missing job directory");

  Plan P;
  std::string Error;
  if (!readPlan(JobDir, P, Error)) {
    std::fprintf(stderr, "forge-worker: %s\n", Error.c_str());
    return 2;
  }
  if (Cmd == "exec" || Cmd == "sandbox-check") {
    sandbox::Options SB;
    SB.Mode = Sandbox ? *Sandbox : P.Opts.Sandbox;
    SB.JobDir = P.JobDir;
    SB.Process = Process;
    for (const BufferPlan &B : P.Buffers)
      if (B.Init == InitKind::File)
        SB.Paths.push_back(B.Path);
    std::vector<std::pair<std::string, std::string>> Libraries;
    std::vector<std::string> Wanted = Only;
    for (const CandidatePlan &C : P.Candidates) {
      SB.Paths.push_back(C.Library);
      bool Selected = Only.empty();
      for (const std::string &Id : Only)
        Selected |= Id == C.Id;
      if (Selected)
        Libraries.push_back({C.Id, C.Library});
    }
    if (const char *Skip = std::getenv("FORGE_SANDBOX_SKIP"))
      if (!sandbox::parseSkip(Skip, SB.Skip, Error)) {
        std::fprintf(stderr, "forge-worker: %s\n", Error.c_str());
        return 2;
      }
    if (Cmd == "sandbox-check")
      return sandbox::runCheck(P.JobDir, Libraries, SB);
    // The namespaces need a process of one thread: before CUDA starts.
    if (!sandbox::prepare(SB)) {
      std::fprintf(stderr, "forge-worker: sandbox: %s\n",
                   sandbox::report().Error.c_str());
      return 2;
    }
    ExecOptions EO;
    EO.Only = Only;
    EO.Process = Process;
    return runExec(P, EO);
  }
  SuperviseOptions SO;
  SO.ChildArgv = {selfPath(Argv[0]), "exec", JobDir};
  if (Sandbox) {
    SO.ChildArgv.push_back("--sandbox");
    SO.ChildArgv.push_back(measure::sandboxModeName(*Sandbox));
  }
  SO.Sandbox = Sandbox;
  SO.Only = Only;
  SO.CandidateTimeoutS = TimeoutS;
  return supervise(P, SO);
}
