//===- forge-port/Tune.cpp - `forge-port tune` ----------------------------===//
///
/// \file
/// Sweeps a kernel's tunables on the local GPU (lib/Tune), records every
/// measurement in the tuning database, and writes the best values back into
/// the source: at the launch sites for one target, as a dispatch on the
/// device's compute capability for several. See docs/tune.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Build/CompileCache.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Patch/AtomicApply.h"
#include "forge/Patch/PatchSet.h"
#include "forge/Report/TuneReport.h"
#include "forge/Support/Date.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Tune/Tuner.h"
#include "forge/Tune/WriteBack.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <atomic>
#include <csignal>
#include <set>

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::SubCommand TuneSub("tune", "sweep a kernel's tunables on the GPU and write the best back");
cl::OptionCategory Cat("forge-port tune options");
cl::opt<std::string> File(cl::Positional, cl::desc("<file.cu>"), cl::Required, cl::cat(Cat),
                          cl::sub(TuneSub));
cl::opt<std::string> SpecPath("spec", cl::desc("Launch spec with the tunables (JSON)"),
                              cl::value_desc("spec.json"), cl::Required, cl::cat(Cat),
                              cl::sub(TuneSub));
cl::opt<std::string> To("to", cl::desc("Target(s) to tune for, comma-separated"),
                        cl::value_desc("sm_XX[,sm_YY...]"), cl::Required, cl::cat(Cat),
                        cl::sub(TuneSub));
cl::opt<std::string> StrategyOpt("strategy",
                                 cl::desc("exhaustive (default), random, greedy, annealing, "
                                          "genetic"),
                                 cl::init("exhaustive"), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<std::string> BudgetOpt("budget",
                               cl::desc("Configurations to measure (N), or seconds (Ns, Nm)"),
                               cl::cat(Cat), cl::sub(TuneSub));
cl::opt<uint64_t> Seed("seed", cl::desc("Seed of the strategy and the inputs"), cl::init(1),
                       cl::cat(Cat), cl::sub(TuneSub));
cl::opt<std::string> DbPath("db", cl::desc("Tuning database (JSON), read and extended"),
                            cl::value_desc("tuning.json"), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<std::string> Output("o", cl::desc("Write the tuned source here ('-': stdout)"),
                            cl::value_desc("file"), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<bool> InPlace("i", cl::desc("Rewrite the file in place (atomically)"), cl::cat(Cat),
                      cl::sub(TuneSub));
cl::opt<bool> Diff("diff", cl::desc("Print the write-back as a unified diff"), cl::cat(Cat),
                   cl::sub(TuneSub));
cl::opt<std::string> ReportPath("report", cl::desc("Write a report (.json, .md or .html)"),
                                cl::value_desc("file"), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<unsigned> BatchSize("batch",
                            cl::desc("Configurations measured per job (32); the database is "
                                     "saved after each"),
                            cl::init(32), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<bool> NoBatch("no-batch", cl::desc("One nvcc run per configuration"), cl::cat(Cat),
                      cl::sub(TuneSub));
cl::opt<unsigned> CompileJobs("j", cl::desc("Parallel nvcc runs (default: the CPU count)"),
                              cl::init(0), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<std::string> WorkerOpt("worker", cl::desc("The forge-worker executable"),
                               cl::value_desc("path"), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<std::string> JobDirOpt("job-dir", cl::desc("Keep the job directories here"),
                               cl::value_desc("dir"), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<unsigned> Rounds("rounds", cl::desc("Interleaved timing rounds per batch (5)"),
                         cl::init(5), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<unsigned> Reps("reps", cl::desc("Timed launches per round (10)"), cl::init(10),
                       cl::cat(Cat), cl::sub(TuneSub));
cl::opt<double> TimeoutS("timeout", cl::desc("Seconds one configuration may take (30)"),
                         cl::init(30), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<std::string> CudaPathOpt("cuda-path", cl::desc("CUDA toolkit root"), cl::cat(Cat),
                                 cl::sub(TuneSub));
cl::opt<std::string> ReplayPath("replay",
                               cl::desc("Measure nothing: replay the measurements of this tuning "
                                        "database (compare strategies without a GPU)"),
                               cl::value_desc("tuning.json"), cl::cat(Cat), cl::sub(TuneSub));
cl::opt<bool> NoGpu("no-gpu",
                    cl::desc("Do not measure: take values from the database or predict"),
                    cl::cat(Cat), cl::sub(TuneSub));

std::atomic<bool> Interrupted{false};
extern "C" void onInterrupt(int) { Interrupted = true; }

Expected<tune::Budget> parseBudget(StringRef S) {
  tune::Budget B;
  if (S.empty())
    return B;
  double Scale = 0;
  StringRef Num = S;
  if (Num.consume_back("s"))
    Scale = 1;
  else if (Num.consume_back("m"))
    Scale = 60;
  double V;
  if (Num.getAsDouble(V) || V <= 0)
    return makeUsageError("--budget '{0}': expected a number of configurations (40) or of "
                          "seconds (90s, 5m)",
                          S);
  if (Scale)
    B.MaxSeconds = V * Scale;
  else if (V != double(size_t(V)))
    return makeUsageError("--budget '{0}': a number of configurations is a whole number", S);
  else
    B.MaxEvaluations = size_t(V);
  return B;
}

void printTuneSummary(raw_ostream &OS, const tune::TuneResult &R) {
  std::set<std::string> Keys, OkKeys;
  for (const tune::ConfigResult &C : R.Configs) {
    Keys.insert(C.Key);
    if (C.Status == measure::CandidateStatus::Ok)
      OkKeys.insert(C.Key);
  }
  OS << formatv("forge-port: {0} of {1} valid configuration(s) evaluated ({2} measured now, "
                "{3} measurement(s) from the database), {4} passed the checks",
                Keys.size(), R.ValidConfigs, R.Measured, R.Reused, OkKeys.size());
  if (R.Measured)
    OS << formatv("; {0:F1} configurations per minute (compile {1:F1} s, run {2:F1} s)",
                  R.ConfigsPerMinute, R.CompileSeconds, R.RunSeconds);
  OS << "\n";
  std::map<std::string, size_t> Failed; // by name: the order they are listed in
  for (const tune::ConfigResult &C : R.Configs)
    if (C.Status != measure::CandidateStatus::Ok)
      ++Failed[statusName(C.Status)];
  for (const auto &[Status, N] : Failed)
    OS << "  " << N << " " << Status << "\n";
  for (const tune::TargetResult &T : R.Targets) {
    OS << "  " << T.Target->Name << ": ";
    std::vector<std::string> Parts;
    for (const auto &[K, V] : T.Best)
      Parts.push_back(K + "=" + std::to_string(V));
    OS << join(Parts, " ") << " [" << (T.Measured ? "measured" : "predicted") << "] "
       << T.Basis;
    if (T.Speedup > 0)
      OS << formatv("; {0:F3}x over the original {1} ({2:F2} us -> {3:F2} us, noise ±{4:F1}%)",
                    T.Speedup, R.DefaultKey, T.BaselineNs / 1000, T.BestNs / 1000,
                    T.Noise * 100);
    OS << "\n";
  }
}


Error writeTuneReport(StringRef Path, const tune::TuneResult &R, const measure::LaunchSpec &Spec,
                      StringRef Source, StringRef Diff) {
  report::TuneReportInput In{&R, &Spec, Source.str(), Diff.str(), todayUtc()};
  return writeFileAtomically(Path, report::renderTuneReport(In, *report::formatOf(Path)));
}

/// The KernelIndex of Path, read for Arch with the user's compiler args.
Expected<frontend::FileIndex> indexFile(const Invocation &Inv, StringRef Path,
                                        const arch::TargetInfo &Target,
                                        ArrayRef<std::string> Args) {
  auto PO = frontend::makeParseOptions(Path, "", &Target, Args);
  if (!PO)
    return PO.takeError();
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0);
  frontend::ParseDiagnostics Diags(nullptr);
  return frontend::buildKernelIndex(TC, *PO, Path, Diags);
}

/// The launches of the tuned source must launch what the spec launches for
/// the tuned values, or the program would run the tuned kernel with the old
/// geometry (the harness, which uses the spec's geometry, cannot see that).
/// Launch dimensions the index can evaluate are compared with the spec's
/// for some target's values; the others are reported as not checked.
Error checkLaunchGeometry(const Invocation &Inv, const measure::LaunchSpec &Spec,
                          const tune::TuneResult &R, StringRef TunedPath) {
  std::vector<std::string> Args = Inv.ExtraArgs;
  SmallString<256> Dir(File);
  sys::fs::make_absolute(Dir);
  sys::path::remove_filename(Dir);
  Args.push_back("-I" + Dir.str().str());
  auto Index = indexFile(Inv, TunedPath, *R.Targets.front().Target, Args);
  if (!Index)
    return Index.takeError();
  std::vector<measure::Geometry> Expected;
  for (const tune::TargetResult &T : R.Targets) {
    auto G = Spec.geometry(measure::ValueMap(T.Best.begin(), T.Best.end()));
    if (!G)
      return G.takeError();
    Expected.push_back(*G);
  }
  auto Dims = [](const frontend::ValueText &V) -> std::optional<std::array<int64_t, 3>> {
    if (V.Dim3)
      return *V.Dim3;
    if (V.Value)
      return std::array<int64_t, 3>{*V.Value, 1, 1};
    return std::nullopt;
  };
  auto Text = [](const std::array<int64_t, 3> &D) {
    return formatv("({0}, {1}, {2})", D[0], D[1], D[2]).str();
  };
  unsigned Unchecked = 0;
  for (const frontend::LaunchSiteInfo &L : Index->LaunchSites) {
    if (!L.Active || L.Kernel != Spec.Kernel)
      continue;
    for (auto [Name, Value, Want] :
         {std::tuple{"block", &L.Block, 0}, std::tuple{"grid", &L.Grid, 1}}) {
      auto Have = Dims(*Value);
      if (!Have) {
        ++Unchecked;
        continue;
      }
      bool Match = llvm::any_of(Expected, [&](const measure::Geometry &G) {
        return (Want == 0 ? G.Block : G.Grid) == *Have;
      });
      if (!Match)
        return makeError(
            "{0}:{1}: after the write-back this launch of {2} has the {3} {4} ({5}), "
            "but the spec launches {6} for the tuned values: the launch does not derive "
            "its geometry from the tuned parameters. Write it with the tunables' names "
            "(as the spec does), or tune only what it derives; nothing is written",
            File, L.Loc.Line, Spec.Kernel, Name, Text(*Have), Value->Text,
            Text(Want == 0 ? Expected.front().Block : Expected.front().Grid));
    }
  }
  if (Unchecked)
    WithColor::note(errs(), "forge-port")
        << Unchecked << " launch dimension(s) of " << Spec.Kernel
        << " depend on run-time values and were not checked against the spec\n";
  return Error::success();
}

/// Writes each configuration of the source-only tunables into a copy of the
/// file under JobRoot/variants (the write-back of those tunables alone).
Expected<tune::SourceVariantFn> sourceVariants(const Invocation &Inv,
                                               const measure::LaunchSpec &Spec,
                                               ArrayRef<std::string> Names,
                                               const arch::TargetInfo &Target,
                                               StringRef JobRoot) {
  auto Index = indexFile(Inv, File, Target, Inv.ExtraArgs);
  if (!Index)
    return Index.takeError();
  auto Original = readFile(File);
  if (!Original)
    return Original.takeError();
  return tune::sourceVariants(std::move(*Index), Spec.Kernel, Names, std::move(*Original),
                              (JobRoot + "/variants").str());
}

struct Written {
  std::string Contents; ///< the tuned source
  std::string Diff;     ///< the write-back as a unified diff
  std::string Path;     ///< a copy in the job directory, for the final check
};

/// The tuned values written back into File, checked to compile for every
/// target with nvcc. One target: the values in place. Several: a dispatch
/// on the device's compute capability at each launch.
Expected<Written> writeTunedSource(const Invocation &Inv, const measure::LaunchSpec &Spec,
                                   const tune::TuneResult &R, const build::NvccDriver &Driver,
                                   StringRef JobRoot) {
  auto Index = indexFile(Inv, File, *R.Targets.front().Target, Inv.ExtraArgs);
  if (!Index)
    return Index.takeError();
  if (Index->Errors)
    return makeError("{0} has {1} parse error(s); nothing is written back (see "
                     "forge-port list {0})",
                     File, Index->Errors);
  std::vector<std::string> Names;
  for (const measure::Tunable &T : Spec.Tunables)
    Names.push_back(T.Name);
  auto Bindings = tune::bindTunables(*Index, Spec.Kernel, Names);
  if (!Bindings)
    return Bindings.takeError();
  Expected<patch::PatchSet> Edits = patch::PatchSet();
  bool Same = llvm::all_of(R.Targets, [&](const tune::TargetResult &T) {
    return T.Best == R.Targets.front().Best;
  });
  if (Same && R.Targets.size() > 1)
    errs() << "forge-port: every target has the same values; they are written once, without "
              "a dispatch\n";
  if (Same) {
    Edits = tune::writeBackEdits(*Index, *Bindings, R.Targets.front().Best);
  } else {
    std::vector<tune::TargetValues> Per;
    for (const tune::TargetResult &T : R.Targets)
      Per.push_back({T.Target, T.Best, T.Measured, T.Gpu});
    Edits = tune::dispatchEdits(*Index, Spec.Kernel, *Bindings, Per);
  }
  if (!Edits)
    return Edits.takeError();
  auto Original = readFile(File);
  if (!Original)
    return Original.takeError();
  Written W;
  std::string Key = patch::PatchSet::normalizePath(Index->File);
  auto Patched = Edits->applyTo(Key, *Original);
  if (!Patched)
    return Patched.takeError();
  W.Contents = *Patched;
  auto D = Edits->diff(patch::diskContents());
  if (!D)
    return D.takeError();
  W.Diff = *D;
  // The tuned source must compile for every target before it is written.
  W.Path = (JobRoot + "/tuned-" + sys::path::filename(File)).str();
  if (auto E = writeFileAtomically(W.Path, W.Contents))
    return std::move(E);
  if (auto E = checkLaunchGeometry(Inv, Spec, R, W.Path))
    return std::move(E);
  build::CompileJob J;
  J.Source = W.Path;
  for (const tune::TargetResult &T : R.Targets)
    J.Targets.push_back(*T.Target);
  J.Output = build::OutputKind::Object;
  J.IncludeDirs = {sys::path::parent_path(sys::path::is_absolute(File)
                                              ? std::string(File)
                                              : (Twine(".") + "/" + File).str())
                       .str()};
  J.ExtraFlags = nvccFlagsFor(Inv.ExtraArgs);
  auto C = Driver.compile(J);
  if (!C)
    return C.takeError();
  if (!C->ok()) {
    std::string First;
    for (const build::CompilerDiagnostic &Dg : C->Diagnostics)
      if (Dg.isError()) {
        First = Dg.format();
        break;
      }
    return makeError("the tuned source does not compile for {0}: {1}; nothing is written",
                     To, First.empty() ? C->Log : First);
  }
  return W;
}

} // namespace

int forge::tool::runTune(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port tune: sweep tunables on the GPU and write the best back\n"))
    return ExitUsage;
  if (int(!Output.empty()) + int(InPlace) + int(Diff) > 1)
    return reportError(makeUsageError("-o, -i and --diff are alternatives; give one"));
  if (auto E = frontend::checkCudaInput(File))
    return reportError(std::move(E));
  auto Targets = arch::parseTargetList(To);
  if (!Targets)
    return reportError(Targets.takeError());
  auto Budget = parseBudget(BudgetOpt);
  if (!Budget)
    return reportError(Budget.takeError());
  if (!tune::createStrategy(StrategyOpt)) {
    auto E = tune::createStrategy(StrategyOpt).takeError();
    return reportError(std::move(E));
  }
  if (!ReportPath.empty() && !report::formatOf(ReportPath))
    return reportError(makeUsageError("--report '{0}': the name must end in .json, .md or .html",
                                      ReportPath));
  auto Spec = measure::readLaunchSpec(SpecPath);
  if (!Spec)
    return reportError(Spec.takeError());

  auto Tools = findNvcc(CudaPathOpt);
  if (!Tools)
    return reportError(Tools.takeError());
  const build::NvccDriver &Driver = *(*Tools)->Driver;

  // The GPU, if there is one.
  tune::TuneOptions O;
  if (!NoGpu && ReplayPath.empty()) {
    LocalGpu G = findLocalGpu(WorkerOpt, Inv.Argv0, "nothing is measured, values are predicted");
    O.WorkerPath = G.Worker;
    O.GpuTarget = G.Target;
    O.GpuName = G.Name;
  }
  ScratchDir Scratch;
  auto Root = Scratch.make(JobDirOpt, "forge-tune");
  if (!Root)
    return reportError(Root.takeError());

  O.Source = File;
  O.Spec = &*Spec;
  O.Targets = *Targets;
  O.Strategy = StrategyOpt;
  O.Limit = *Budget;
  O.Seed = Seed;
  O.DbPath = DbPath;
  O.ReplayPath = ReplayPath;
  O.Toolkit = Driver.toolkit().Version;
  O.BatchSize = std::max(1u, BatchSize.getValue());
  O.Batched = !NoBatch;
  O.CompileJobs = CompileJobs;
  O.JobRoot = *Root;
  O.Job.Seed = Seed;
  O.Job.Rounds = Rounds;
  O.Job.Reps = Reps;
  O.Job.CandidateTimeoutS = TimeoutS;
  O.NvccFlags = nvccFlagsFor(Inv.ExtraArgs);
  O.Driver = &Driver;
  O.Interrupted = &Interrupted;
  // Tunables the harness cannot set get a copy of the source per
  // configuration, with its values written in.
  std::vector<std::string> SourceOnly = tune::sourceOnlyTunables(*Spec);
  if (!SourceOnly.empty() && O.GpuTarget && ReplayPath.empty()) {
    auto SF = sourceVariants(Inv, *Spec, SourceOnly, *O.GpuTarget, *Root);
    if (!SF)
      return reportError(SF.takeError());
    O.SourceFor = std::move(*SF);
    SmallString<256> Dir(File);
    sys::fs::make_absolute(Dir);
    sys::path::remove_filename(Dir);
    O.NvccFlags.push_back("-I" + Dir.str().str());
    errs() << "forge-port: " << join(SourceOnly, ", ")
           << " change(s) the source, not the launch: each configuration is compiled from its "
              "own copy\n";
  }
  bool Tty = sys::Process::StandardErrIsDisplayed();
  O.OnProgress = [&](const tune::TuneProgress &P) {
    errs() << (Tty ? "\r\033[K" : "")
           << formatv("[{0}/{1}] best {2}; {3:F0} s elapsed, ETA {4:F0} s; last {5}", P.Done,
                      P.Total,
                      P.BestNs ? formatv("{0:F2} us ({1})", *P.BestNs / 1000, P.BestKey).str()
                               : std::string("none yet"),
                      P.ElapsedS, P.EtaS, P.Last)
           << (Tty ? "" : "\n");
  };
  auto *Old = std::signal(SIGINT, onInterrupt);
  if (O.GpuTarget)
    errs() << "forge-port: tuning " << Spec->Kernel << " on " << O.GpuName << " ("
           << O.GpuTarget->Name << ") with the " << O.Strategy << " strategy\n";
  auto R = tune::runTuning(O);
  std::signal(SIGINT, Old);
  if (Tty && O.GpuTarget)
    errs() << "\n";
  if (!R)
    return reportError(R.takeError());
  if (R->Interrupted)
    WithColor::warning(errs(), "forge-port")
        << "interrupted: " << R->Measured << " configuration(s) measured"
        << (DbPath.empty() ? "" : " and saved in " + DbPath) << "\n";

  printTuneSummary(errs(), *R);
  if (R->Interrupted) {
    errs() << "forge-port: nothing is written back after an interrupt; run the same command "
              "again to continue from the database\n";
    return 130;
  }
  if (R->Replayed && R->OptimumNs > 0 && !R->Targets.empty() && R->Targets[0].BestNs > 0)
    errs() << formatv("forge-port: replay: best {0:F2} us after {1} of {2} configurations; the "
                      "record's optimum is {3:F2} us (ratio {4:F3})\n",
                      R->Targets[0].BestNs / 1000, R->Measured, R->ValidConfigs,
                      R->OptimumNs / 1000, R->Targets[0].BestNs / R->OptimumNs);

  // Write the values back, compile them for every target, and check the
  // tuned source against the original on the GPU before anything is written.
  auto Written = writeTunedSource(Inv, *Spec, *R, Driver, *Root);
  if (!Written)
    return reportError(Written.takeError());
  if (auto E = tune::verifyTuned(O, *R, Written->Path))
    return reportError(std::move(E));
  for (const tune::TargetResult &T : R->Targets)
    if (T.Speedup > 0)
      errs() << formatv("forge-port: {0}: {1:F3}x over the original ({2:F2} us -> {3:F2} us, "
                        "noise ±{4:F1}%)\n",
                        T.Target->Name, T.Speedup, T.BaselineNs / 1000, T.BestNs / 1000,
                        T.Noise * 100);
  if (!ReportPath.empty())
    if (auto E = writeTuneReport(ReportPath, *R, *Spec, File, Written->Diff))
      return reportError(std::move(E));
  if (Diff) {
    outs() << Written->Diff;
  } else if (InPlace) {
    if (auto E = writeFileAtomically(File, Written->Contents))
      return reportError(std::move(E));
  } else if (Output == "-") {
    outs() << Written->Contents;
  } else if (!Output.empty()) {
    if (auto E = writeFileAtomically(Output, Written->Contents))
      return reportError(std::move(E));
  }
  return ExitOK;
}
