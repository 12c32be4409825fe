//===- forge-port/Progress.cpp --------------------------------------------===//
#include "Progress.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <chrono>
#include <memory>
#include <mutex>

using namespace llvm;

namespace forge::tool {

namespace {
double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
}
std::string us(double Ns) { return formatv("{0:F2}", Ns / 1000).str(); }
} // namespace

std::function<void(const measure::CandidateResult &, size_t, size_t)> measureProgress() {
  struct State {
    std::mutex M;
    double BestNs = 0;
    std::string Best;
    std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  };
  auto S = std::make_shared<State>();
  return [S](const measure::CandidateResult &C, size_t Done, size_t Total) {
    std::lock_guard<std::mutex> L(S->M);
    if (C.ok() && C.Time && (S->BestNs == 0 || C.Time->Median < S->BestNs)) {
      S->BestNs = C.Time->Median;
      S->Best = C.Label.empty() ? C.Id : C.Label;
    }
    double Elapsed = secondsSince(S->Start);
    double Eta = Done ? Elapsed / Done * (Total - Done) : 0;
    errs() << formatv("[{0}/{1}] {2} {3}{4}; best {5}; ETA {6:F0} s\n", Done, Total, C.Id,
                      measure::statusName(C.Status),
                      C.Time ? " " + us(C.Time->Median) + " us" : "",
                      S->BestNs ? us(S->BestNs) + " us (" + S->Best + ")" : "none yet", Eta);
  };
}

std::function<void(const tune::TuneProgress &)> tuneProgress() {
  bool Tty = sys::Process::StandardErrIsDisplayed();
  return [Tty](const tune::TuneProgress &P) {
    errs() << (Tty ? "\r\033[K" : "")
           << formatv("[{0}/{1}] best {2}; {3:F0} s elapsed, ETA {4:F0} s; last {5}", P.Done,
                      P.Total,
                      P.BestNs ? formatv("{0:F2} us ({1})", *P.BestNs / 1000, P.BestKey).str()
                               : std::string("none yet"),
                      P.ElapsedS, P.EtaS, P.Last)
           << (Tty ? "" : "\n");
  };
}

std::function<void(StringRef)> elapsedProgress() {
  bool Tty = sys::Process::StandardErrIsDisplayed();
  auto Start = std::chrono::steady_clock::now();
  return [Tty, Start](StringRef Msg) {
    errs() << (Tty ? "\r\033[K" : "") << formatv("[{0,5:F0} s] ", secondsSince(Start)) << Msg
           << (Tty ? "" : "\n");
  };
}

std::optional<measure::LocalGpu> localGpu(StringRef WorkerOpt, const char *Argv0,
                                          StringRef Consequence) {
  auto G = measure::findLocalGpu(WorkerOpt, executableDir(Argv0));
  if (G)
    return *G;
  WithColor::warning(errs(), "forge-port") << toString(G.takeError()) << "; " << Consequence
                                           << "\n";
  return std::nullopt;
}

} // namespace forge::tool
