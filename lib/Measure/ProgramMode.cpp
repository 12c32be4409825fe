//===- ProgramMode.cpp - Measuring whole programs -------------------------===//
#include "forge/Measure/ProgramMode.h"
#include "forge/Support/Error.h"
#include "forge/Support/Json.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <algorithm>
#include <map>

extern char **environ;

using namespace forge;
using namespace forge::measure;

const KernelTiming *InjectReport::find(llvm::StringRef Name) const {
  for (const KernelTiming &K : Kernels)
    if (K.Name == Name || K.Mangled == Name)
      return &K;
  return nullptr;
}

llvm::Expected<InjectReport>
forge::measure::parseInjectReport(llvm::StringRef Text, llvm::StringRef Origin) {
  InjectReport R;
  bool SawHeader = false;
  auto Err = forEachJsonLine(Text, Origin, [&](const Json &J, unsigned N) -> llvm::Error {
    try {
      std::string Type = J.value("type", "");
      if (Type == "inject") {
        SawHeader = true;
        R.Timer = J.value("timer", "");
        R.Dropped = J.value("dropped", uint64_t(0));
        R.Incomplete = J.value("incomplete", uint64_t(0));
        R.Error = J.value("error", "");
      } else if (Type == "kernel") {
        KernelTiming K;
        K.Name = J.value("name", "");
        K.Mangled = J.value("mangled", "");
        K.Launches = J.value("launches", uint64_t(0));
        K.Streams = J.value("streams", uint64_t(0));
        K.TotalNs = J.value("total_ns", 0.0);
        K.MedianNs = J.value("median_ns", 0.0);
        K.MinNs = J.value("min_ns", 0.0);
        K.MaxNs = J.value("max_ns", 0.0);
        if (K.Name.empty())
          return makeError("{0}:{1}: a kernel line without a name", Origin, N);
        R.Kernels.push_back(std::move(K));
      }
    } catch (const std::exception &E) {
      return makeError("{0}:{1}: {2}", Origin, N, E.what());
    }
    return llvm::Error::success();
  });
  if (Err)
    return std::move(Err);
  if (!SawHeader)
    return makeError("{0}: no header line from the injection library",
                     Origin);
  return R;
}

llvm::Expected<std::string>
forge::measure::comparableOutput(llvm::StringRef Stdout,
                                 llvm::ArrayRef<std::string> Patterns) {
  std::vector<llvm::Regex> Res;
  for (const std::string &P : Patterns) {
    llvm::Regex Re(P);
    std::string Why;
    if (!Re.isValid(Why))
      return makeUsageError("--ignore-output '{0}': {1}", P, Why);
    Res.push_back(std::move(Re));
  }
  std::string Out;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Stdout.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    if (llvm::any_of(Res, [&](const llvm::Regex &Re) { return Re.match(L); }))
      continue;
    Out += L.str() + "\n";
  }
  return Out;
}

static double medianOf(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

std::vector<KernelSummary>
forge::measure::summarizeRuns(llvm::ArrayRef<ProgramRun> Runs) {
  std::map<std::string, std::vector<const KernelTiming *>> ByName;
  std::vector<std::string> Order;
  for (const ProgramRun &R : Runs)
    for (const KernelTiming &K : R.Timing.Kernels) {
      auto &V = ByName[K.Name];
      if (V.empty())
        Order.push_back(K.Name);
      V.push_back(&K);
    }
  std::vector<KernelSummary> Out;
  for (const std::string &Name : Order) {
    const auto &V = ByName[Name];
    KernelSummary S;
    S.Name = Name;
    S.Launches = V.front()->Launches;
    std::vector<double> Medians, Totals;
    for (const KernelTiming *K : V) {
      Medians.push_back(K->MedianNs);
      Totals.push_back(K->TotalNs);
      S.Streams = std::max(S.Streams, K->Streams);
    }
    S.MedianNs = medianOf(Medians);
    S.TotalNs = medianOf(Totals);
    auto [Lo, Hi] = std::minmax_element(Medians.begin(), Medians.end());
    S.RunSpread = S.MedianNs > 0 ? (*Hi - *Lo) / S.MedianNs : 0;
    Out.push_back(S);
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [](const KernelSummary &A, const KernelSummary &B) {
                     return A.TotalNs > B.TotalNs;
                   });
  return Out;
}

/// The environment of this process plus Extra (which wins).
static std::vector<std::string>
environmentWith(llvm::ArrayRef<std::pair<std::string, std::string>> Extra) {
  std::vector<std::string> Env;
  for (char **E = environ; E && *E; ++E) {
    llvm::StringRef KV(*E);
    llvm::StringRef Key = KV.split('=').first;
    if (llvm::any_of(Extra, [&](const auto &P) { return P.first == Key; }))
      continue;
    Env.push_back(KV.str());
  }
  for (const auto &[K, V] : Extra)
    Env.push_back(K + "=" + V);
  return Env;
}

llvm::StringRef forge::measure::statusName(ProgramStatus S) {
  switch (S) {
  case ProgramStatus::Ok:
    return "ok";
  case ProgramStatus::BuildFailed:
    return "build-failed";
  case ProgramStatus::Failed:
    return "failed";
  case ProgramStatus::OutputDiffers:
    return "output-differs";
  }
  llvm_unreachable("unknown program status");
}

static std::string describeRunFailure(const ProgramRun &R) {
  if (R.TimedOut)
    return "timed out";
  std::string S = R.Crashed ? "crashed" + (R.Signal.empty() ? "" : " (" + R.Signal + ")")
                            : "exit status " + std::to_string(R.ExitCode);
  llvm::StringRef Err = llvm::StringRef(R.Stderr).trim();
  if (!Err.empty())
    S += ": " + Err.take_back(300).str();
  return S;
}

llvm::Expected<std::vector<ProgramVariant>>
forge::measure::runProgramMode(const build::NvccDriver &Driver,
                               const ProgramRequest &Req) {
  bool Build = !Req.Sources.empty();
  if (Build && Req.Command.find("{exe}") == std::string::npos)
    return makeUsageError(
        "--run \"{0}\" has no {exe}: with source files, {exe} stands for the "
        "program built from each of them",
        Req.Command);
  if (Req.Runs == 0)
    return makeUsageError("--runs must be at least 1");
  if (auto E = comparableOutput("", Req.IgnoreLines); !E)
    return E.takeError();
  if (auto EC = llvm::sys::fs::create_directories(Req.JobDir))
    return makeError("cannot create {0}: {1}", Req.JobDir, EC.message());

  std::vector<ProgramVariant> Vs;
  if (!Build) {
    ProgramVariant V;
    V.Label = Req.Command;
    Vs.push_back(V);
  }
  std::vector<build::CompileJob> Jobs;
  for (size_t I = 0; I < Req.Sources.size(); ++I) {
    ProgramVariant V;
    V.Source = Req.Sources[I];
    V.Label = llvm::sys::path::filename(V.Source).str();
    V.Executable = Req.JobDir + "/program-" + std::to_string(I);
    build::CompileJob J;
    J.Source = V.Source;
    J.Targets = {*Req.Target};
    J.Output = build::OutputKind::Executable;
    J.OutputPath = V.Executable;
    J.LineInfo = true;
    J.ExtraFlags = Req.NvccFlags;
    Jobs.push_back(J);
    Vs.push_back(V);
  }
  auto Compiled = Driver.compileAll(Jobs);
  for (size_t I = 0; I < Compiled.size(); ++I) {
    std::string Why;
    if (!Compiled[I]) {
      Why = llvm::toString(Compiled[I].takeError());
    } else if (!Compiled[I]->ok()) {
      for (const build::CompilerDiagnostic &D : Compiled[I]->Diagnostics)
        if (D.isError()) {
          Why = D.format();
          break;
        }
      if (Why.empty())
        Why = llvm::StringRef(Compiled[I]->Log).trim().take_back(300).str();
    }
    if (Why.empty())
      continue;
    if (I == 0)
      return makeError("the original ({0}) does not build: {1}",
                       Req.Sources[0], Why);
    Vs[I].Status = ProgramStatus::BuildFailed;
    Vs[I].Detail = Why;
  }
  if (Req.OnBuilt)
    Req.OnBuilt();

  std::string Reference;
  for (size_t I = 0; I < Vs.size(); ++I) {
    ProgramVariant &V = Vs[I];
    if (V.Status != ProgramStatus::Ok)
      continue;
    std::string Cmd = Req.Command;
    for (size_t P; Build && (P = Cmd.find("{exe}")) != std::string::npos;)
      Cmd.replace(P, 5, V.Executable);
    for (unsigned Run = 1; Run <= Req.Runs; ++Run) {
      if (Req.OnRun)
        Req.OnRun(V.Label, Run, Req.Runs);
      std::string Out = Req.JobDir + "/inject-" + std::to_string(I) + "-" +
                        std::to_string(Run) + ".jsonl";
      llvm::sys::fs::remove(Out);
      SubprocessOptions SO;
      SO.TimeoutSeconds = Req.TimeoutSeconds;
      SO.Env = environmentWith({{"CUDA_INJECTION64_PATH", Req.InjectLibrary},
                                {"FORGE_INJECT_OUT", Out}});
      SO.ScrubSecrets = true; // a variant runs candidate code
      auto R = runProgram("/bin/sh", {"sh", "-c", Cmd}, SO);
      if (!R)
        return R.takeError();
      ProgramRun PR;
      PR.ExitCode = R->ExitCode;
      PR.TimedOut = R->TimedOut;
      PR.Crashed = R->Crashed;
      PR.Stdout = R->Stdout;
      PR.Stderr = R->Stderr;
      PR.Seconds = R->Seconds;
      PR.Signal = R->ErrorMessage;
      if (!R->ok()) {
        V.Status = ProgramStatus::Failed;
        V.Detail = describeRunFailure(PR);
        V.Runs.push_back(std::move(PR));
        break;
      }
      auto Text = llvm::MemoryBuffer::getFile(Out, /*IsText=*/true);
      if (!Text)
        return makeError("the injection library wrote no kernel times for "
                         "'{0}' ({1}); is {2} the libforge-inject.so built "
                         "for this CUDA?",
                         Cmd, Out, Req.InjectLibrary);
      auto T = parseInjectReport((*Text)->getBuffer(), Out);
      if (!T)
        return T.takeError();
      if (T->Timer != "cupti")
        return makeError("the injection library could not time kernels in "
                         "'{0}': {1}",
                         Cmd, T->Error.empty() ? "CUPTI did not start"
                                               : T->Error);
      PR.Timing = std::move(*T);
      // What is compared: the program's output, or the check command's.
      std::string Compared = PR.Stdout;
      if (!Req.CheckCommand.empty()) {
        std::string Check = Req.CheckCommand;
        for (size_t P; Build && (P = Check.find("{exe}")) != std::string::npos;)
          Check.replace(P, 5, V.Executable);
        SubprocessOptions CO;
        CO.TimeoutSeconds = Req.TimeoutSeconds;
        CO.ScrubSecrets = true;
        auto C = runProgram("/bin/sh", {"sh", "-c", Check}, CO);
        if (!C)
          return C.takeError();
        if (!C->ok()) {
          ProgramRun CR;
          CR.ExitCode = C->ExitCode;
          CR.TimedOut = C->TimedOut;
          CR.Crashed = C->Crashed;
          CR.Stderr = C->Stderr;
          CR.Signal = C->ErrorMessage;
          V.Status = ProgramStatus::OutputDiffers;
          V.Detail = "the check '" + Check + "' failed: " + describeRunFailure(CR);
          V.Runs.push_back(std::move(PR));
          break;
        }
        Compared = C->Stdout;
      }
      auto Cmp = comparableOutput(Compared, Req.IgnoreLines);
      if (!Cmp)
        return Cmp.takeError();
      if (I == 0 && Run == 1) {
        Reference = *Cmp;
      } else if (*Cmp != Reference && V.Status == ProgramStatus::Ok) {
        V.Status = ProgramStatus::OutputDiffers;
        V.Detail = I == 0 ? "the original's output changes from run to run; "
                            "use --ignore-output for lines that may differ"
                          : Req.CheckCommand.empty() ? "its output differs from the original's"
                                     : "the check's output differs from the original's";
      }
      V.Runs.push_back(std::move(PR));
    }
    if (I == 0 && V.Status == ProgramStatus::Failed)
      return makeError("the original program failed: {0}", V.Detail);
    if (I == 0 && V.Status == ProgramStatus::OutputDiffers &&
        llvm::StringRef(V.Detail).starts_with("the check '"))
      return makeError("on the original program, {0}", V.Detail);
    V.Kernels = summarizeRuns(V.Runs);
    for (const ProgramRun &PR : V.Runs)
      V.LeftRunning = std::max(V.LeftRunning, PR.Timing.Incomplete);
  }
  return Vs;
}
