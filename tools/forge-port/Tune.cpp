//===- forge-port/Tune.cpp - `forge-port tune` ----------------------------===//
///
/// \file
/// Options, the tune driver's two steps (Tune/TuneSession.h), progress and
/// rendering (Report/TuneReport.h). See docs/tune.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "Progress.h"
#include "SharedOptions.h"
#include "forge/Measure/SlurmExecutor.h"
#include "forge/Measure/SubmissionGroup.h"
#include "forge/Report/TuneReport.h"
#include "forge/Support/Date.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Tune/ProgressMerge.h"
#include "forge/Tune/SpecFromCode.h"
#include "forge/Tune/TuneSession.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory Cat("forge-port tune options");
#define SUB cl::cat(Cat), cl::sub(tuneCommand())
cl::list<std::string> Files(cl::Positional, cl::desc("<file.cu>..."), cl::OneOrMore, SUB);
cl::opt<std::string> SpecPath("spec", cl::desc("Launch spec with the tunables (JSON)"),
                              cl::value_desc("spec.json"), SUB);
cl::opt<std::string> KernelOpt("kernel",
                              cl::desc("Program mode without a spec: the kernel to tune; its "
                                       "tunables are those the code holds for it (forge-port "
                                       "list) that the write-back can write"),
                              cl::value_desc("name"), SUB);
cl::opt<std::string> SpecDir("spec-dir",
                             cl::desc("Several files: each one's spec is DIR/<stem>.json"),
                             cl::value_desc("dir"), SUB);
cl::opt<std::string> StrategyOpt("strategy", cl::desc("exhaustive (default), random, greedy, "
                                                      "annealing, genetic"),
                                 cl::init("exhaustive"), SUB);
cl::opt<std::string> BudgetOpt("budget", cl::desc("Configurations to measure (N), or seconds "
                                                  "(Ns, Nm)"), SUB);
cl::opt<std::string> DbPath("db", cl::desc("Tuning database (JSON), read and extended"),
                            cl::value_desc("tuning.json"), SUB);
cl::opt<std::string> ReportPath("report", cl::desc("Write a report (.json, .md or .html)"),
                                cl::value_desc("file"), SUB);
cl::opt<unsigned> BatchSize("batch", cl::desc("Configurations measured per job (32); the "
                                              "database is saved after each"),
                            cl::init(32), SUB);
cl::opt<bool> NoBatch("no-batch", cl::desc("One nvcc run per configuration"), SUB);
cl::opt<unsigned> CompileJobs("j", cl::desc("Parallel nvcc runs (default: the CPU count)"),
                              cl::init(0), SUB);
cl::opt<unsigned> Rounds("rounds", cl::desc("Interleaved timing rounds per batch (5)"),
                         cl::init(5), SUB);
cl::opt<std::string> ReplayPath("replay",
                               cl::desc("Measure nothing: replay the measurements of this tuning "
                                        "database (compare strategies without a GPU)"),
                               cl::value_desc("tuning.json"), SUB);
cl::opt<bool> NoGpu("no-gpu", cl::desc("Do not measure: take values from the database or "
                                       "predict"), SUB);
cl::opt<std::string> RunCmd("run",
                            cl::desc("Program mode: measure each configuration inside this "
                                     "program ({exe} stands for it, built from the file with "
                                     "the configuration's values written in)"),
                            cl::value_desc("command"), SUB);
cl::opt<std::string> CheckCmd("check",
                              cl::desc("Program mode: run after each run ({exe} stands for the "
                                       "program); it must exit 0, and its output is compared "
                                       "with the original's instead of the program's"),
                              cl::value_desc("command"), SUB);
cl::opt<unsigned> Runs("runs", cl::desc("Program mode: runs per configuration (3)"),
                       cl::init(3), SUB);
cl::list<std::string> IgnoreOutput("ignore-output",
                                   cl::desc("Program mode: output lines matching this regex "
                                            "are not compared; repeatable"),
                                   cl::value_desc("regex"), SUB);
enum class RetuneChoice { Resume, Auto, Always, Off };
cl::opt<RetuneChoice> RetuneOpt(
    "retune", cl::desc("How the tuning database's entry for this kernel on this GPU is used"),
    cl::values(clEnumValN(RetuneChoice::Resume, "resume",
                          "measure what the entry lacks (default)"),
               clEnumValN(RetuneChoice::Auto, "auto",
                          "a complete entry: its values, nothing measured; else resume"),
               clEnumValN(RetuneChoice::Always, "always", "measure everything again"),
               clEnumValN(RetuneChoice::Off, "off", "measure nothing, as --no-gpu")),
    cl::init(RetuneChoice::Resume), SUB);
cl::opt<std::string> IdentityOf("identity-of",
                                cl::desc("Key the tuning database on this file (the user's "
                                         "source, when <file.cu> is a generated copy of it)"),
                                cl::value_desc("file.cu"), SUB);
cl::opt<std::string> IdentityDepfile(
    "identity-depfile",
    cl::desc("Key the tuning database on the files this depfile lists as well (port "
             "--depfile's headers, found through -I and <...>)"),
    cl::value_desc("file.d"), SUB);
cl::opt<std::string> LaunchOpt("launch", cl::desc("Write the tuned values into this launch of "
                                                  "the kernel only (default: every launch "
                                                  "that holds the spec's defaults)"),
                               cl::value_desc("FILE:LINE"), SUB);
cl::opt<std::string> ExecutorOpt("executor",
                                  cl::desc("Where configurations are measured: local (this "
                                           "machine's GPU, the default) or slurm (a cluster; "
                                           "docs/cluster.md)"),
                                  cl::init("local"), SUB);
cl::opt<std::string> PartitionOpt("partition",
                                  cl::desc("slurm: the partition of each target, as "
                                           "sm_80=a100,sm_90=h100"),
                                  cl::value_desc("TARGET=PARTITION,..."), SUB);
cl::opt<std::string> WorkdirOpt("workdir",
                                cl::desc("slurm: the shared directory for job directories "
                                         "and task logs (every node must see it)"),
                                cl::value_desc("dir"), SUB);
cl::opt<std::string> AccountOpt("account", cl::desc("slurm: the account to charge"), SUB);
cl::opt<std::string> TimeOpt("time", cl::desc("slurm: the time limit of each task"),
                             cl::value_desc("HH:MM:SS"), SUB);
cl::opt<unsigned> MaxJobsOpt("max-jobs", cl::desc("slurm: array tasks running at once (32)"),
                             cl::init(32), SUB);
cl::opt<unsigned> TaskSizeOpt("task-size",
                              cl::desc("slurm: configurations per array task (8)"),
                              cl::init(8), SUB);
cl::opt<unsigned> AttemptsOpt("max-attempts",
                              cl::desc("slurm: how often a task that did not finish is "
                                       "started before its configurations are lost (3)"),
                              cl::init(3), SUB);
cl::opt<std::string> SlurmGpuOpt("slurm-gpu",
                                 cl::desc("slurm: how a task asks for its GPU: gres "
                                          "(--gres=gpu:1, default), gpus (--gpus=1) or none"),
                                 cl::init("gres"), SUB);
cl::list<std::string> SbatchArgs("sbatch-arg",
                                 cl::desc("slurm: one more sbatch argument; repeatable"),
                                 cl::value_desc("arg"), SUB);
cl::opt<std::string> CompilePartitionOpt(
    "compile-partition",
    cl::desc("slurm: compile on this CPU partition, one array task per nvcc run (default: "
             "here); its nodes must see the sources and nvcc at the same paths"),
    cl::value_desc("partition"), SUB);
cl::opt<double> PollOpt("poll", cl::desc("slurm: seconds between queue polls (2)"),
                        cl::init(2), cl::Hidden, SUB);
cl::opt<double> GatherOpt("gather",
                          cl::desc("slurm, several files: seconds a round waits for a file "
                                   "that is not measuring yet (30)"),
                          cl::init(30), cl::Hidden, SUB);
cl::opt<unsigned> CampaignWidth("campaign-files",
                                cl::desc("slurm, several files: files tuned at once (8)"),
                                cl::init(8), SUB);
#undef SUB

std::atomic<bool> Interrupted{false};
extern "C" void onInterrupt(int) { Interrupted = true; }
} // namespace

/// The options every Slurm submission of this run shares.
static Expected<measure::SlurmOptions> slurmOptions(const char *Argv0) {
  auto Gpu = measure::parseSlurmGpuRequest(SlurmGpuOpt);
  if (!Gpu)
    return Gpu.takeError();
  auto Worker = measure::findWorker(WorkerPath, executableDir(Argv0));
  if (!Worker)
    return Worker.takeError();
  measure::SlurmOptions Common;
  Common.Account = AccountOpt;
  Common.TimeLimit = TimeOpt;
  Common.MaxJobs = MaxJobsOpt;
  Common.Workdir = WorkdirOpt;
  Common.WorkerPath = *Worker;
  Common.CandidatesPerTask = TaskSizeOpt;
  Common.Gpu = *Gpu;
  Common.MaxAttempts = AttemptsOpt;
  Common.PollSeconds = PollOpt;
  Common.ExtraSbatchArgs.assign(SbatchArgs.begin(), SbatchArgs.end());
  return Common;
}

/// `--executor slurm`: an executor per target of --to, each partition
/// checked and its GPU asked before anything is compiled.
static Expected<std::vector<measure::PartitionGpu>>
openCluster(ArrayRef<const arch::TargetInfo *> Targets, const measure::SlurmOptions &Common) {
  if (!RunCmd.empty())
    return makeUsageError("--executor slurm measures with the spec's harness; program mode "
                          "(--run) runs the program on this machine");
  if (NoGpu || RetuneOpt == RetuneChoice::Off || !ReplayPath.empty())
    return makeUsageError("--executor slurm measures; it does not go with --no-gpu, "
                          "--retune=off or --replay");
  if (PartitionOpt.empty())
    return makeUsageError("--executor slurm needs --partition TARGET=PARTITION[,...]");
  auto Map = measure::parsePartitionMap(PartitionOpt);
  if (!Map)
    return Map.takeError();
  errs() << "forge-port: asking each partition for its GPU (kept in " << WorkdirOpt
         << "/partitions)\n";
  return measure::openPartitions(Targets, *Map, Common);
}

namespace {
/// Where a run measures, found once for all its files: the local GPU, or
/// the cluster's partitions.
struct MeasureOn {
  std::vector<measure::PartitionGpu> Partitions;
  std::unique_ptr<measure::SlurmCompileRunner> Compiler; ///< --compile-partition
  std::string ScratchParent; ///< the shared directory the compile nodes see
  std::string WorkerPath, GpuName;
  const arch::TargetInfo *GpuTarget = nullptr;
};
} // namespace

namespace {
/// How one file of the run reports and measures: alone, on stderr and
/// stdout and the run's executors; in a campaign of files tuned at once, in
/// buffers printed when it ends, through its members of the partitions'
/// submission groups.
struct FileRun {
  raw_ostream &Log, &Out;
  /// The executor of each of Where.Partitions for this file, and its
  /// compile runner (--compile-partition; null: here).
  std::vector<measure::Executor *> Execs;
  build::CompileRunner *Compiler = nullptr;
  std::function<void(const tune::TuneProgress &)> OnProgress;
  bool Alone = true; ///< its progress line is the only one
};
} // namespace

/// One file of the run: its sweep, write-back and report; the exit status.
static int tuneFile(const Invocation &Inv, const std::string &File, const std::string &SpecFile,
                    const OutputChoice &Output, ArrayRef<const arch::TargetInfo *> Targets,
                    const tune::Budget &Limit, const MeasureOn &Where, const FileRun &Run) {
  raw_ostream &Log = Run.Log, &Out = Run.Out;
  tune::TuneSessionOptions O;
  O.Output = Output;
  // No spec: the tunables come from the code (program mode only).
  Expected<measure::LaunchSpec> Spec = [&]() -> Expected<measure::LaunchSpec> {
    if (!SpecFile.empty())
      return measure::readLaunchSpec(SpecFile);
    auto PO = frontend::makeParseOptions(File, BuildPath, Targets.front(), Inv.ExtraArgs);
    if (!PO)
      return PO.takeError();
    frontend::ParseDiagnostics Diags(&Log);
    auto C = tune::programSpecFromCode(frontend::Toolchain::detect(Inv.Argv0, CudaPath), *PO,
                                       File, KernelOpt, Diags);
    if (!C)
      return C.takeError();
    for (const std::string &N : C->Notes)
      Log << "forge-port: " << N << "\n";
    return std::move(C->Spec);
  }();
  if (!Spec)
    return reportError(Log, Spec.takeError());
  tune::TuneOptions &S = O.Sweep;
  const std::vector<measure::PartitionGpu> &Partitions = Where.Partitions;
  for (size_t I = 0; I < Partitions.size(); ++I)
    O.Cluster.push_back({Partitions[I].Target, Partitions[I].GpuName, Run.Execs[I]});
  O.CompileRunner = Run.Compiler;
  O.ScratchParent = Where.ScratchParent;
  S.WorkerPath = Where.WorkerPath;
  S.GpuTarget = Where.GpuTarget;
  S.GpuName = Where.GpuName;
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPath);
  S.Source = File;
  S.IdentitySource = IdentityOf;
  if (!IdentityDepfile.empty()) {
    auto Text = readFile(IdentityDepfile);
    if (!Text)
      return reportError(Log, Text.takeError());
    auto Deps = parseDepfile(*Text, IdentityDepfile);
    if (!Deps)
      return reportError(Log, Deps.takeError());
    S.IdentityFiles = std::move(*Deps);
  }
  S.Program.Command = RunCmd;
  S.Program.Runs = Runs;
  S.Program.IgnoreLines.assign(IgnoreOutput.begin(), IgnoreOutput.end());
  S.Program.CheckCommand = CheckCmd;
  S.Program.TimeoutSeconds = unsigned(std::max(1.0, TimeoutS * 20));
  S.Mode = RetuneOpt == RetuneChoice::Auto     ? tune::Retune::Auto
           : RetuneOpt == RetuneChoice::Always ? tune::Retune::Always
                                               : tune::Retune::Resume;
  S.Spec = &*Spec;
  S.Targets.assign(Targets.begin(), Targets.end());
  S.Strategy = StrategyOpt;
  S.Limit = Limit;
  applyIfGiven(Seed, S.Seed);
  S.DbPath = DbPath;
  S.ReplayPath = ReplayPath;
  S.BatchSize = std::max(1u, BatchSize.getValue());
  S.Batched = !NoBatch;
  S.CompileJobs = CompileJobs;
  S.JobRoot = JobDir;
  S.Job.Seed = S.Seed;
  S.Job.Rounds = Rounds;
  S.Job.Reps = Reps;
  S.Job.CandidateTimeoutS = TimeoutS;
  if (auto E = applySandboxOption(S.Job.Sandbox))
    return reportError(Log, std::move(E));
  S.Interrupted = &Interrupted;
  if (!LaunchOpt.empty()) {
    StringRef L(LaunchOpt);
    auto [FilePart, LinePart] = L.rsplit(':');
    if (LinePart.empty() && !L.contains(':'))
      LinePart = FilePart, FilePart = "";
    unsigned Line = 0;
    if (LinePart.getAsInteger(10, Line) || Line == 0)
      return reportError(Log, makeUsageError("--launch '{0}': expected FILE:LINE (or "
                                             "LINE), as in app.cu:42",
                                             LaunchOpt));
    O.LaunchFile = FilePart.str();
    O.LaunchLine = Line;
  }
  O.ExtraArgs = Inv.ExtraArgs;
  O.CudaPath = CudaPath;
  O.Toolchain = &TC;
  O.OnNote = [&Log](StringRef Note, bool Caveat) {
    (Caveat ? WithColor::note(Log, "forge-port") : Log << "forge-port: ") << Note << "\n";
  };
  bool Tty = Run.Alone && sys::Process::StandardErrIsDisplayed();
  S.OnProgress = Run.OnProgress;
  tune::TuneSession Session(O);
  if (Error E = Session.prepare())
    return reportError(Log, std::move(E));
  if (!Partitions.empty())
    for (const measure::PartitionGpu &P : Partitions)
      Log << "forge-port: tuning " << Spec->Kernel << " for " << P.Target->Name
          << " on partition " << P.Partition << " (" << P.GpuName << ") with the "
          << S.Strategy << " strategy\n";
  else if (S.GpuTarget)
    Log << "forge-port: tuning " << Spec->Kernel << " on " << S.GpuName << " ("
        << S.GpuTarget->Name << ") with the " << S.Strategy << " strategy\n";

  auto R = Session.tune();
  if (Tty && S.GpuTarget)
    Log << "\n";
  if (!R)
    return reportError(Log, R.takeError());
  if (R->Stale)
    WithColor::warning(Log, "forge-port") << R->StaleNote << "\n";
  if (R->Interrupted)
    WithColor::warning(Log, "forge-port")
        << "interrupted: " << R->Measured << " configuration(s) measured"
        << (DbPath.empty() ? "" : " and saved in " + DbPath) << "\n";
  report::renderTuneSummary(Log, *R);
  if (R->Interrupted) {
    Log << "forge-port: nothing is written back after an interrupt; run the same command "
           "again to continue from the database\n";
    return 130;
  }
  if (R->Replayed && R->OptimumNs > 0 && !R->Targets.empty() && R->Targets[0].BestNs > 0)
    Log << formatv("forge-port: replay: best {0:F2} us after {1} of {2} configurations; the "
                   "record's optimum is {3:F2} us (ratio {4:F3})\n",
                   R->Targets[0].BestNs / 1000, R->Measured, R->ValidConfigs,
                   R->OptimumNs / 1000, R->Targets[0].BestNs / R->OptimumNs);
  auto Written = Session.writeBack(*R);
  if (!Written)
    return reportError(Log, Written.takeError());
  for (const tune::TargetResult &T : R->Targets)
    if (T.Speedup > 0)
      Log << formatv("forge-port: {0}: {1:F3}x over the original ({2:F2} us -> {3:F2} us, "
                     "noise ±{4:F1}%{5})\n",
                     T.Target->Name, T.Speedup, T.BaselineNs / 1000, T.BestNs / 1000,
                     T.Noise * 100,
                     T.CheckedOn.empty() ? "" : "; measured on " + T.CheckedOn);
  if (!ReportPath.empty()) {
    report::TuneReportInput In{&*R, &*Spec, File, Written->Diff, todayUtc()};
    if (Error E = writeFileAtomically(ReportPath,
                                      report::renderTuneReport(In, *report::formatOf(ReportPath))))
      return reportError(Log, std::move(E));
  }
  if (O.Output.K == OutputChoice::Kind::Diff)
    Out << Written->Diff;
  else if (O.Output.K == OutputChoice::Kind::Stdout)
    Out << Written->Contents;
  return ExitOK;
}

/// The files one after another, each with its own summary; a file that
/// fails does not stop the others.
static int tuneInTurn(const Invocation &Inv, ArrayRef<std::string> Specs,
                      const OutputChoice &Output, ArrayRef<const arch::TargetInfo *> Targets,
                      const tune::Budget &Limit, const MeasureOn &Where) {
  FileRun Run{errs(), outs(), {}, Where.Compiler.get(), tuneProgress()};
  for (const measure::PartitionGpu &P : Where.Partitions)
    Run.Execs.push_back(P.Exec.get());
  int Worst = ExitOK;
  unsigned Failed = 0;
  for (size_t I = 0; I < Files.size(); ++I) {
    if (Files.size() > 1)
      errs() << "forge-port: [file " << I + 1 << "/" << Files.size() << "] " << Files[I] << "\n";
    int Rc = tuneFile(Inv, Files[I], Specs[I], Output, Targets, Limit, Where, Run);
    if (Rc != ExitOK) {
      ++Failed;
      Worst = std::max(Worst, Rc);
    }
    if (Rc == 130 || Interrupted)
      break;
  }
  if (Files.size() > 1)
    errs() << "forge-port: " << Files.size() - Failed << " of " << Files.size()
           << " file(s) tuned\n";
  return Worst;
}

/// A campaign on the cluster: the files are tuned at once (at most
/// CampaignWidth at a time), and each partition's measurements of every
/// file go out together, one `sbatch --array` a round
/// (measure::SubmissionGroup). Each file's messages are kept and printed
/// when it ends, in the files' order; one progress line covers them all.
static int tuneCampaign(const Invocation &Inv, ArrayRef<std::string> Specs,
                        const OutputChoice &Output, ArrayRef<const arch::TargetInfo *> Targets,
                        const tune::Budget &Limit, const MeasureOn &Where) {
  size_t N = Files.size();
  if (CampaignWidth == 0)
    return reportError(makeUsageError("--campaign-files: at least 1"));
  std::vector<std::unique_ptr<measure::SubmissionGroup>> Groups;
  for (const measure::PartitionGpu &P : Where.Partitions)
    Groups.push_back(std::make_unique<measure::SubmissionGroup>(*P.Exec, GatherOpt));
  std::vector<std::string> Names;
  for (const std::string &F : Files)
    Names.push_back(sys::path::filename(F).str());
  bool Tty = sys::Process::StandardErrIsDisplayed();
  tune::ProgressMerge Progress(Names, tuneProgress());
  errs() << formatv("forge-port: a campaign of {0} files, {1} at a time; each partition's "
                    "measurements of all of them go out as one array a round\n",
                    N, std::min<size_t>(N, CampaignWidth));

  std::vector<std::string> Logs(N), Outs(N);
  std::vector<int> Rcs(N, -1);
  std::mutex Mu;
  size_t Printed = 0;
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I; (I = Next++) < N;) {
      raw_string_ostream Log(Logs[I]), Out(Outs[I]);
      int Rc = 130;
      if (!Interrupted) {
        std::vector<std::unique_ptr<measure::Executor>> Members;
        std::unique_ptr<build::CompileRunner> Compiler =
            Where.Compiler ? Where.Compiler->join(GatherOpt) : nullptr;
        FileRun Run{Log, Out, {}, Compiler.get(), Progress.sweep(I), /*Alone=*/false};
        for (auto &G : Groups) {
          Members.push_back(G->join());
          Run.Execs.push_back(Members.back().get());
        }
        Rc = tuneFile(Inv, Files[I], Specs[I], Output, Targets, Limit, Where, Run);
      } // its members leave the groups: no round waits for this file now
      Log.flush();
      Out.flush();
      std::lock_guard<std::mutex> L(Mu);
      Rcs[I] = Rc;
      for (; Printed < N && Rcs[Printed] >= 0; ++Printed) {
        errs() << (Tty ? "\r\033[K" : "") << "forge-port: [file " << Printed + 1 << "/" << N
               << "] " << Files[Printed] << "\n"
               << Logs[Printed];
        outs() << Outs[Printed];
        outs().flush();
      }
    }
  };
  std::vector<std::thread> Threads;
  for (size_t T = 0; T < std::min<size_t>(N, CampaignWidth); ++T)
    Threads.emplace_back(Work);
  for (std::thread &T : Threads)
    T.join();

  int Worst = ExitOK;
  unsigned Failed = 0;
  for (int Rc : Rcs)
    if (Rc != ExitOK) {
      ++Failed;
      Worst = std::max(Worst, Rc);
    }
  unsigned Rounds = 0;
  for (auto &G : Groups)
    Rounds += G->rounds();
  errs() << formatv("forge-port: {0} of {1} file(s) tuned; {2} submission(s) to {3} "
                    "partition(s) for them all{4}\n",
                    N - Failed, N, Rounds, Groups.size(),
                    Where.Compiler ? formatv(", {0} compile array(s) on {1}",
                                             Where.Compiler->arrays(), CompilePartitionOpt)
                                         .str()
                                   : std::string());
  return Worst;
}

int forge::tool::runTune(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port tune: sweep tunables on the GPU and write the best back\n"))
    return ExitUsage;
  auto Output = outputChoice();
  if (!Output)
    return reportError(Output.takeError());
  if (To.empty())
    return reportError(targetOption(/*Required=*/true).takeError());
  auto Targets = arch::parseTargetList(To);
  if (!Targets)
    return reportError(Targets.takeError());
  auto Budget = tune::parseBudget(BudgetOpt);
  if (!Budget)
    return reportError(Budget.takeError());
  if (!ReportPath.empty() && !report::formatOf(ReportPath))
    return reportError(makeUsageError("--report '{0}': the name must end in .json, .md or .html",
                                      ReportPath));
  // One spec for one file, or a directory of specs for several; or, inside
  // the program, a kernel whose tunables the code holds.
  if (!KernelOpt.empty()) {
    if (!SpecPath.empty() || !SpecDir.empty())
      return reportError(makeUsageError("--kernel takes the tunables from the code; the spec "
                                        "names its kernel: give one or the other"));
    if (RunCmd.empty())
      return reportError(makeUsageError(
          "--kernel without a spec tunes inside the program: give --run \"{{exe} ...\"; to "
          "tune with the harness, draft a spec (forge-port spec {0} --kernel {1} > k.json), "
          "check it and pass --spec k.json",
          Files.front(), KernelOpt));
    if (Files.size() > 1)
      return reportError(makeUsageError("--kernel takes one file"));
  } else if (SpecPath.empty() == SpecDir.empty()) {
    return reportError(makeUsageError("give --spec (one file), --spec-dir (a spec "
                                      "<stem>.json per file), or --kernel with --run"));
  }
  if (!SpecPath.empty() && Files.size() > 1)
    return reportError(makeUsageError("--spec names one file's spec; for {0} files give "
                                      "--spec-dir",
                                      Files.size()));
  if (Files.size() > 1) {
    if (Output->K == OutputChoice::Kind::File || Output->K == OutputChoice::Kind::Stdout)
      return reportError(makeUsageError("several files are written back with -i, or shown "
                                        "with --diff, not with -o"));
    if (!ReportPath.empty() || !LaunchOpt.empty() || !IdentityOf.empty())
      return reportError(makeUsageError("--report, --launch and --identity-of take one file"));
  }
  std::vector<std::string> Specs;
  for (const std::string &F : Files) {
    if (!SpecPath.empty() || !KernelOpt.empty()) {
      Specs.push_back(SpecPath);
      continue;
    }
    SmallString<256> P(SpecDir);
    sys::path::append(P, sys::path::stem(F) + ".json");
    if (!sys::fs::exists(P))
      return reportError(makeUsageError("{0}: no spec {1} in --spec-dir", F, P));
    Specs.push_back(P.str().str());
  }
  for (const std::string &F : Files)
    if (Error E = checkKernelFile(F, Inv.ExtraArgs))
      return reportError(std::move(E));

  MeasureOn Where;
  if (!CompilePartitionOpt.empty() && ExecutorOpt != "slurm")
    return reportError(makeUsageError("--compile-partition is for --executor slurm"));
  if (ExecutorOpt == "slurm") {
    auto Common = slurmOptions(Inv.Argv0);
    if (!Common)
      return reportError(Common.takeError());
    auto Opened = openCluster(*Targets, *Common);
    if (!Opened)
      return reportError(Opened.takeError());
    if (!CompilePartitionOpt.empty()) {
      measure::SlurmOptions C = *Common;
      C.Partition = CompilePartitionOpt;
      auto R = measure::SlurmCompileRunner::create(std::move(C), &Interrupted);
      if (!R)
        return reportError(R.takeError());
      Where.Compiler = std::move(*R);
      // The job directories (harnesses, variants, libraries) are written
      // where the compile nodes see them.
      Where.ScratchParent =
          Opened->front().Exec->options().Workdir + "/runs";
      errs() << "forge-port: compiling on " << Where.Compiler->where() << "\n";
    }
    Where.Partitions = std::move(*Opened);
    Where.WorkerPath = Where.Partitions.front().Exec->options().WorkerPath;
    Where.GpuTarget = Where.Partitions.front().Target;
    Where.GpuName = Where.Partitions.front().GpuName;
  } else if (ExecutorOpt != "local") {
    return reportError(makeUsageError("--executor '{0}': expected local or slurm", ExecutorOpt));
  } else if (!PartitionOpt.empty() || !WorkdirOpt.empty()) {
    return reportError(makeUsageError("--partition and --workdir are for --executor slurm"));
  } else if (!NoGpu && RetuneOpt != RetuneChoice::Off && ReplayPath.empty()) {
    if (auto G = localGpu(WorkerPath, Inv.Argv0, "nothing is measured, values are predicted")) {
      Where.WorkerPath = G->Worker;
      Where.GpuTarget = G->Target;
      Where.GpuName = G->Name;
    }
  }
  if (RetuneOpt == RetuneChoice::Always && !Where.GpuTarget)
    return reportError(makeError("--retune=always measures every configuration again, and "
                                 "there is no GPU to measure on"));

  auto *OldHandler = std::signal(SIGINT, onInterrupt);
  int Rc = Files.size() > 1 && !Where.Partitions.empty()
               ? tuneCampaign(Inv, Specs, *Output, *Targets, *Budget, Where)
               : tuneInTurn(Inv, Specs, *Output, *Targets, *Budget, Where);
  std::signal(SIGINT, OldHandler);
  // What the run took of the cluster: for sizing (docs/cluster.md).
  for (const measure::PartitionGpu &P : Where.Partitions) {
    measure::SlurmExecutor::Usage U = P.Exec->usage();
    errs() << formatv("forge-port: partition {0} ({1}): {2} task(s), {3:F1} GPU-second(s)\n",
                      P.Partition, P.Target->Name, U.Tasks, U.Seconds);
  }
  if (Where.Compiler) {
    measure::SlurmExecutor::Usage U = Where.Compiler->usage();
    errs() << formatv("forge-port: compile partition {0}: {1} task(s), {2:F1} second(s)\n",
                      CompilePartitionOpt, U.Tasks, U.Seconds);
  }
  return Rc;
}
