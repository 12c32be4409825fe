//===- forge-worker/Supervisor.cpp - One child per batch, with timeouts ---===//

#include "Supervisor.h"
#include "Sandbox.h"
#include "forge/Measure/WorkerProtocol.h"
#include "forge/Support/Secrets.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <ftw.h>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace forge::worker {

namespace {

std::string joinPath(const std::string &Dir, const std::string &Name) {
  return Dir.empty() ? Name : Dir + "/" + Name;
}

std::string readWholeFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::string firstToken(const std::string &S) {
  std::istringstream In(S);
  std::string T;
  In >> T;
  return T;
}

std::string join(const std::vector<std::string> &V, const char *Sep) {
  std::string Out;
  for (size_t I = 0; I < V.size(); ++I)
    Out += (I ? Sep : "") + V[I];
  return Out;
}

/// The last "forge-worker: cuda-error: TEXT" in Log.
std::string lastCudaError(const std::string &Log) {
  const std::string Tag = "forge-worker: cuda-error: ";
  size_t P = Log.rfind(Tag);
  if (P == std::string::npos)
    return "";
  size_t E = Log.find('\n', P);
  return Log.substr(P + Tag.size(),
                    E == std::string::npos ? std::string::npos
                                           : E - P - Tag.size());
}

std::string describeExit(int Status) {
  if (WIFSIGNALED(Status)) {
    int Sig = WTERMSIG(Status);
    const char *Name = strsignal(Sig);
    return "the worker died of signal " + std::to_string(Sig) +
           (Name ? std::string(" (") + Name + ")" : std::string());
  }
  if (WIFEXITED(Status))
    return "the worker exited with status " +
           std::to_string(WEXITSTATUS(Status));
  return "the worker stopped";
}

struct ChildOutcome {
  int Status = 0;
  bool TimedOut = false;
  std::string TimedOutId;
  bool StartFailed = false;
};

/// Starts the child with its stderr appended to worker.log and waits for
/// it, killing its process group when one candidate takes longer than
/// TimeoutS (or the start takes longer than StartTimeoutS).
ChildOutcome runChild(const std::vector<std::string> &Argv,
                      const std::string &JobDir, double TimeoutS,
                      double StartTimeoutS, double PollS, bool Scrub) {
  ChildOutcome Out;
  std::string ProgressPath = joinPath(JobDir, "progress");
  std::string LogPath = joinPath(JobDir, "worker.log");
  ::unlink(ProgressPath.c_str());

  std::vector<char *> CArgv;
  for (const std::string &A : Argv)
    CArgv.push_back(const_cast<char *>(A.c_str()));
  CArgv.push_back(nullptr);
  // The child's environment, made before the fork (no allocation after it).
  std::vector<std::string> Env;
  std::vector<char *> CEnv;
  if (Scrub) {
    Env = support::scrubbedEnvironment(environ);
    for (std::string &E : Env)
      CEnv.push_back(E.data());
    CEnv.push_back(nullptr);
  }

  pid_t Pid = ::fork();
  if (Pid < 0) {
    Out.StartFailed = true;
    return Out;
  }
  if (Pid == 0) {
    ::setpgid(0, 0);
    int Fd = ::open(LogPath.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (Fd >= 0) {
      ::dup2(Fd, 2);
      ::close(Fd);
    }
    ::execve(CArgv[0], CArgv.data(), Scrub ? CEnv.data() : environ);
    std::fprintf(stderr, "forge-worker: cannot start %s: %s\n", CArgv[0],
                 std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(Pid, Pid); // both sides, so no kill can race the child's own call

  using Clock = std::chrono::steady_clock;
  std::string Current;
  auto Since = Clock::now();
  for (;;) {
    int Status = 0;
    pid_t R = ::waitpid(Pid, &Status, WNOHANG);
    if (R == Pid) {
      Out.Status = Status;
      return Out;
    }
    if (R < 0 && errno != EINTR) {
      Out.StartFailed = true;
      return Out;
    }
    std::string Now = firstToken(readWholeFile(ProgressPath));
    if (Now != Current) {
      Current = Now;
      Since = Clock::now();
    }
    double Limit = Current.empty() ? StartTimeoutS : TimeoutS;
    double Elapsed =
        std::chrono::duration<double>(Clock::now() - Since).count();
    if (Elapsed > Limit) {
      ::kill(-Pid, SIGKILL);
      ::kill(Pid, SIGKILL);
      int Ignored = 0;
      while (::waitpid(Pid, &Ignored, 0) < 0 && errno == EINTR) {
      }
      Out.Status = Ignored;
      Out.TimedOut = true;
      Out.TimedOutId = Current;
      return Out;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(PollS));
  }
}

std::string fmtSeconds(double S) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%g", S);
  return Buf;
}

} // namespace

std::string stringField(const std::string &Line, const std::string &Key) {
  std::string Needle = "\"" + Key + "\"";
  size_t P = Line.find(Needle);
  while (P != std::string::npos) {
    size_t Q = P + Needle.size();
    while (Q < Line.size() && (Line[Q] == ' ' || Line[Q] == '\t'))
      ++Q;
    if (Q < Line.size() && Line[Q] == ':') {
      ++Q;
      while (Q < Line.size() && (Line[Q] == ' ' || Line[Q] == '\t'))
        ++Q;
      if (Q >= Line.size() || Line[Q] != '"')
        return "";
      std::string Out;
      for (++Q; Q < Line.size() && Line[Q] != '"'; ++Q) {
        if (Line[Q] == '\\' && Q + 1 < Line.size()) {
          char E = Line[++Q];
          Out += E == 'n' ? '\n' : E == 't' ? '\t' : E;
        } else {
          Out += Line[Q];
        }
      }
      return Out;
    }
    P = Line.find(Needle, P + 1);
  }
  return "";
}

std::string jsonQuote(const std::string &S) {
  std::string Out = "\"";
  for (unsigned char C : S) {
    switch (C) {
    case '"': Out += "\\\""; break;
    case '\\': Out += "\\\\"; break;
    case '\n': Out += "\\n"; break;
    case '\t': Out += "\\t"; break;
    case '\r': Out += "\\r"; break;
    default:
      if (C < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof Buf, "\\u%04x", C);
        Out += Buf;
      } else {
        Out += static_cast<char>(C);
      }
    }
  }
  return Out + "\"";
}

bool appendResultLine(const std::string &JobDir, const std::string &Line,
                      bool Annotate) {
  std::string Path = joinPath(JobDir, "results.jsonl");
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (Fd < 0)
    return false;
  std::string Data = Line;
  if (Annotate)
    sandbox::annotateResultLine(Data);
  Data += "\n";
  ssize_t N = ::write(Fd, Data.data(), Data.size());
  ::close(Fd);
  return N == static_cast<ssize_t>(Data.size());
}

bool removeTree(const std::string &Path) {
  struct stat St;
  if (::lstat(Path.c_str(), &St) != 0)
    return errno == ENOENT;
  ::nftw(
      Path.c_str(),
      [](const char *P, const struct stat *, int Flag, struct FTW *) {
        if (Flag == FTW_DP)
          ::rmdir(P);
        else
          ::unlink(P);
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
  return ::lstat(Path.c_str(), &St) != 0;
}

std::vector<std::string> finishedIds(const std::string &JobDir) {
  std::vector<std::string> Ids;
  std::istringstream In(readWholeFile(joinPath(JobDir, "results.jsonl")));
  std::string Line;
  while (std::getline(In, Line)) {
    std::string Type = stringField(Line, "type");
    if (Type != "candidate" && Type != "reference-failed")
      continue;
    std::string Id = stringField(Line, "id");
    if (!Id.empty())
      Ids.push_back(Id);
  }
  return Ids;
}

static bool referenceFailed(const std::string &JobDir) {
  std::istringstream In(readWholeFile(joinPath(JobDir, "results.jsonl")));
  std::string Line;
  while (std::getline(In, Line))
    if (stringField(Line, "type") == "reference-failed")
      return true;
  return false;
}

int supervise(const Plan &P, const SuperviseOptions &Opts) {
  if (P.Candidates.empty() || !P.Candidates.front().Reference) {
    std::fprintf(stderr, "forge-worker: the plan has no reference\n");
    return 2;
  }
  const CandidatePlan &Ref = P.Candidates.front();
  std::vector<std::string> Wanted = Opts.Only;
  if (Wanted.empty())
    for (const CandidatePlan &C : P.Candidates)
      Wanted.push_back(C.Id);
  for (const std::string &Id : Wanted)
    if (!P.findCandidate(Id)) {
      std::fprintf(stderr, "forge-worker: --only names '%s', which the plan "
                           "does not have\n",
                   Id.c_str());
      return 2;
    }
  double Timeout = Opts.CandidateTimeoutS > 0 ? Opts.CandidateTimeoutS
                                              : P.Opts.CandidateTimeoutS;
  // Starting CUDA and measuring the ceilings the first time take a while.
  double StartTimeout = std::max(Timeout, 120.0);
  unsigned MaxChildren =
      Opts.MaxChildren ? Opts.MaxChildren : unsigned(Wanted.size()) + 1;
  std::string LogPath = joinPath(P.JobDir, "worker.log");
  measure::SandboxMode Mode = Opts.Sandbox ? *Opts.Sandbox : P.Opts.Sandbox;
  bool Scrub = Mode != measure::SandboxMode::Off;
  std::string PrivateDir = joinPath(P.JobDir, "sandbox-tmp");

  for (unsigned Process = 1;; ++Process) {
    if (referenceFailed(P.JobDir))
      return 1;
    std::vector<std::string> Done = finishedIds(P.JobDir);
    std::set<std::string> DoneSet(Done.begin(), Done.end());
    std::vector<std::string> Remaining;
    for (const std::string &Id : Wanted)
      if (!DoneSet.count(Id))
        Remaining.push_back(Id);
    if (Remaining.empty())
      return 0;
    if (Process > MaxChildren) {
      std::fprintf(stderr,
                   "forge-worker: %u worker processes ended without "
                   "finishing; %zu candidate(s) have no result\n",
                   MaxChildren, Remaining.size());
      return 1;
    }

    std::vector<std::string> Argv = Opts.ChildArgv;
    Argv.push_back("--only");
    Argv.push_back(join(Remaining, ","));
    Argv.push_back("--process");
    Argv.push_back(std::to_string(Process));
    size_t LogStart = readWholeFile(LogPath).size();
    ChildOutcome O =
        runChild(Argv, P.JobDir, Timeout, StartTimeout, Opts.PollS, Scrub);
    if (!removeTree(PrivateDir))
      std::fprintf(stderr, "forge-worker: warning: cannot remove %s\n",
                   PrivateDir.c_str());
    std::string Log = readWholeFile(LogPath);
    std::string NewLog = Log.size() > LogStart ? Log.substr(LogStart) : "";
    if (!NewLog.empty())
      std::fputs(NewLog.c_str(), stderr);
    if (O.StartFailed) {
      std::fprintf(stderr, "forge-worker: cannot start the worker process: "
                           "%s\n",
                   std::strerror(errno));
      return 1;
    }
    if (!O.TimedOut && WIFEXITED(O.Status) && WEXITSTATUS(O.Status) == 0)
      continue; // the loop re-reads the results and ends when all are there
    if (!O.TimedOut && WIFEXITED(O.Status) && WEXITSTATUS(O.Status) == 2)
      return 2; // a plan or usage error: another child would fail the same way

    std::string InProgress =
        O.TimedOut ? O.TimedOutId
                   : firstToken(readWholeFile(joinPath(P.JobDir, "progress")));
    std::vector<std::string> Now = finishedIds(P.JobDir);
    std::set<std::string> NowSet(Now.begin(), Now.end());
    if (referenceFailed(P.JobDir))
      return 1;
    if (InProgress.empty()) {
      if (O.TimedOut)
        std::fprintf(stderr,
                     "forge-worker: the worker made no progress in %s s "
                     "and was killed\n",
                     fmtSeconds(StartTimeout).c_str());
      else
        std::fprintf(stderr,
                     "forge-worker: %s before it started a candidate\n",
                     describeExit(O.Status).c_str());
      return 1;
    }
    if (NowSet.count(InProgress))
      continue; // the child wrote its own line (a sticky CUDA error)

    std::string Error;
    measure::CandidateStatus Status;
    if (O.TimedOut) {
      Status = measure::CandidateStatus::Timeout;
      Error = "no result after " + fmtSeconds(Timeout) +
              " s; the worker was killed";
    } else {
      Status = measure::CandidateStatus::Crashed;
      Error = lastCudaError(NewLog);
      if (Error.empty())
        Error = describeExit(O.Status);
    }
    if (InProgress == Ref.Id) {
      appendResultLine(P.JobDir,
                       "{\"type\":\"reference-failed\",\"id\":" +
                           jsonQuote(Ref.Id) + ",\"status\":" +
                           jsonQuote(statusName(Status)) + ",\"error\":" +
                           jsonQuote(Error) + ",\"process\":" +
                           std::to_string(Process) + "}");
      std::fprintf(stderr, "forge-worker: the reference %s: %s\n",
                   O.TimedOut ? "timed out" : "crashed",
                   Error.c_str());
      return 1;
    }
    const CandidatePlan *C = P.findCandidate(InProgress);
    appendResultLine(
        P.JobDir,
        "{\"type\":\"candidate\",\"id\":" + jsonQuote(InProgress) +
            ",\"reference\":false,\"label\":" + jsonQuote(C ? C->Label : "") +
            ",\"status\":" + jsonQuote(statusName(Status)) +
            ",\"reasons\":[" + jsonQuote(statusName(Status)) +
            "],\"error\":" + jsonQuote(Error) +
            ",\"process\":" + std::to_string(Process) + "}");
  }
}

} // namespace forge::worker
