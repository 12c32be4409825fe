//===- forge-port/Measure.cpp - `forge-port measure` ----------------------===//
///
/// \file
/// Options, one call of the measure driver (Measure/MeasureSession.h),
/// progress and rendering (Report/MeasureReport.h). See docs/measure.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "Progress.h"
#include "SharedOptions.h"
#include "forge/Measure/MeasureSession.h"
#include "forge/Report/MeasureReport.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

using namespace llvm;
using namespace forge;
using namespace forge::measure;
using namespace forge::tool;

namespace {
cl::OptionCategory Cat("forge-port measure options");
#define SUB cl::cat(Cat), cl::sub(measureCommand())
cl::list<std::string> Files(cl::Positional, cl::desc("<original.cu> [variant.cu...]"), SUB);
cl::opt<std::string> SpecPath("spec", cl::desc("Launch spec (JSON, docs/spec-format.md)"),
                              cl::value_desc("spec.json"), SUB);
cl::list<std::string> SpecOf("spec-of",
                            cl::desc("Measure FILE with its own spec (a transformation that "
                                     "changed the launch: same kernel and buffers, another "
                                     "grid or tunables), at that spec's defaults"),
                            cl::value_desc("file.cu=spec.json"), SUB);
cl::list<std::string> ConfigOpt("config",
                                cl::desc("A configuration to measure, NAME=VALUE[,NAME=VALUE]; "
                                         "repeatable (default: the spec's defaults)"),
                                cl::value_desc("assignments"), SUB);
cl::opt<bool> AllConfigs("all-configs", cl::desc("Measure every valid combination of the "
                                                 "tunables"), SUB);
cl::opt<unsigned> MaxConfigs("max-configs", cl::desc("Limit for --all-configs (default 64)"),
                             cl::init(64), SUB);
cl::opt<std::string> ArchOpt("arch", cl::desc("Target to compile for (default: the GPU's, from "
                                              "forge-worker info)"),
                             cl::value_desc("sm_XX"), SUB);
cl::opt<bool> NoRun("no-run", cl::desc("Build the job (harnesses, plan) and stop; needs --arch "
                                       "and --job-dir"), SUB);
cl::opt<unsigned> InputSets("input-sets", cl::desc("Random input sets per candidate (>= 2)"),
                            cl::init(2), SUB);
cl::opt<unsigned> Rounds("rounds", cl::desc("Interleaved timing rounds"), cl::init(5), SUB);
cl::opt<unsigned> Warmup("warmup", cl::desc("Untimed launches first"), cl::init(3), SUB);
cl::opt<double> MinTimeMs("min-time-ms", cl::desc("Raise --reps so a round of a candidate "
                                                  "lasts this long"), cl::init(0), SUB);
cl::opt<std::string> TimerOpt("timer", cl::desc("cupti (default) or events"),
                              cl::init("cupti"), SUB);
cl::opt<bool> NoFlush("no-flush", cl::desc("Do not flush L2 between launches"), SUB);
cl::opt<double> FloorFactor("floor-factor", cl::desc("Reject a run faster than this fraction "
                                                     "of the roofline floor as no-work (0.5)"),
                            cl::init(0.5), SUB);
cl::opt<std::string> Format("format", cl::desc("text or json"), cl::init("text"), SUB);
cl::opt<unsigned> CompileJobs("j", cl::desc("Parallel compiles (default: the CPU count)"),
                              cl::init(0), SUB);
cl::opt<std::string> RunCmd("run", cl::desc("Program mode: the command to run; {exe} stands "
                                            "for the program built from each file"),
                            cl::value_desc("command"), SUB);
cl::opt<unsigned> Runs("runs", cl::desc("Program mode: runs per variant (3)"), cl::init(3), SUB);
cl::opt<std::string> CheckCmd("check",
                              cl::desc("Program mode: run after each run ({exe} stands for the "
                                       "program); it must exit 0, and its output is compared "
                                       "with the original's instead of the program's"),
                              cl::value_desc("command"), SUB);
cl::list<std::string> IgnoreOutput("ignore-output",
                                   cl::desc("Program mode: output lines matching this regex "
                                            "are not compared; repeatable"),
                                   cl::value_desc("regex"), SUB);
#undef SUB
} // namespace

int forge::tool::runMeasure(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port measure: verify and time kernels on the local GPU\n\n"
                         "  forge-port measure orig.cu [variant.cu...] --spec spec.json "
                         "[--config N=V]...\n"
                         "  forge-port measure app.cu [variant.cu...] --run \"{exe} args\" "
                         "[--runs N]\n"))
    return ExitUsage;
  if (Format != "text" && Format != "json")
    return reportError(makeUsageError("--format: expected text or json, got '{0}'", Format));
  if (TimerOpt != "cupti" && TimerOpt != "events")
    return reportError(makeUsageError("--timer: expected cupti or events, got '{0}'", TimerOpt));
  MeasureSessionOptions O;
  auto Target = optionalTarget(ArchOpt);
  if (!Target)
    return reportError(Target.takeError());
  O.Target = *Target;
  if (!SpecPath.empty() && !RunCmd.empty())
    return reportError(makeUsageError("--spec and --run are two modes; give one"));
  // The harness launches the spec's kernel from the file; a program (--run)
  // is built as nvcc builds it, C or not.
  if (RunCmd.empty())
    for (const std::string &F : Files)
      if (Error E = checkKernelFile(F, Inv.ExtraArgs))
        return reportError(std::move(E));
  std::optional<LaunchSpec> Spec;
  if (!SpecPath.empty() && !Files.empty()) {
    auto S = readLaunchSpec(SpecPath);
    if (!S)
      return reportError(S.takeError());
    Spec = std::move(*S);
    for (const std::string &C : ConfigOpt) {
      auto V = parseAssignments(C, *Spec);
      if (!V)
        return reportError(V.takeError());
      O.Configs.push_back(*V);
    }
    for (StringRef S : SpecOf) {
      auto [F, P] = S.split('=');
      if (F.empty() || P.empty() || !is_contained(Files, F.str()))
        return reportError(makeUsageError(
            "--spec-of '{0}': expected FILE=SPEC with FILE one of the files measured", S));
      auto Own = readLaunchSpec(P);
      if (!Own)
        return reportError(Own.takeError());
      O.OwnSpecs[F.str()] = std::move(*Own);
    }
  }
  O.Files.assign(Files.begin(), Files.end());
  O.Spec = Spec ? &*Spec : nullptr;
  O.AllConfigs = AllConfigs;
  O.MaxConfigs = MaxConfigs;
  O.RunCommand = RunCmd;
  O.Runs = Runs;
  O.IgnoreOutput.assign(IgnoreOutput.begin(), IgnoreOutput.end());
  O.CheckCommand = CheckCmd;
  O.ProgramTimeoutS = TimeoutS * 20;
  O.WorkerPath = WorkerPath;
  O.ToolDir = executableDir(Inv.Argv0);
  O.JobDir = JobDir;
  O.BuildOnly = NoRun;
  applyIfGiven(Seed, O.Job.Seed);
  O.Job.InputSets = InputSets;
  O.Job.Warmup = Warmup;
  O.Job.Rounds = Rounds;
  O.Job.Reps = Reps;
  O.Job.MinTimeMs = MinTimeMs;
  O.Job.FlushL2 = !NoFlush;
  O.Job.Cupti = TimerOpt == "cupti";
  O.Job.FloorFactor = FloorFactor;
  O.Job.CandidateTimeoutS = TimeoutS;
  if (auto E = applySandboxOption(O.Job.Sandbox))
    return reportError(std::move(E));
  O.CompileJobs = CompileJobs;
  O.NvccFlags = Inv.ExtraArgs;
  O.CudaPath = CudaPath;

  bool Tty = sys::Process::StandardErrIsDisplayed();
  O.OnPhase = [&](StringRef Phase, const MeasureSessionOptions::JobShape &S) {
    if (Phase == "compile")
      errs() << "forge-port: compiling " << S.Files << " harness(es) with " << S.Configs
             << " configuration(s) each for " << S.Target->Name << "\n";
    else if (!NoRun)
      errs() << "forge-port: measuring " << S.Candidates << " candidate(s) on the GPU\n";
  };
  O.OnResult = measureProgress();
  O.OnRun = [&](StringRef Label, unsigned Run, unsigned N) {
    errs() << (Tty ? "\r" : "") << "forge-port: running " << Label << " (" << Run << "/" << N
           << ")" << (Tty ? "   " : "\n");
  };
  auto R = MeasureSession(O).run();
  if (Tty && !RunCmd.empty())
    errs() << "\n";
  if (!R)
    return reportError(R.takeError());
  if (NoRun) {
    report::renderBuildOnly(outs(), *R);
    errs() << "forge-port: job written to " << R->JobDir
           << " (run it with: forge-worker run " << R->JobDir << ")\n";
  } else if (!RunCmd.empty()) {
    if (Format == "json")
      outs() << report::programJson(*R).dump(2) << "\n";
    else
      report::renderProgramText(outs(), *R, RunCmd, Runs);
  } else if (Format == "json") {
    outs() << report::measureJson(*R).dump(2) << "\n";
  } else {
    report::renderMeasureText(outs(), *R, O.Job);
  }
  return R->AllOk ? ExitOK : ExitFailure;
}
