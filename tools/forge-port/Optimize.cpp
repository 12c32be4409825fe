//===- forge-port/Optimize.cpp - `forge-port optimize` --------------------===//
///
/// \file
/// Options, one call of the optimize driver (Agent/OptimizeSession.h),
/// progress and rendering (Report/OptimizeReport.h). See docs/optimize.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "ExpertRule.h"
#include "Progress.h"
#include "SharedOptions.h"
#include "forge/Agent/OptimizeSession.h"
#include "forge/Config.h"
#include "forge/Experience/Experience.h"
#include "forge/Report/OptimizeReport.h"
#include "forge/Search/ArchiveSvg.h"
#include "forge/Support/Date.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <csignal>

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
/// The command line writes the driver's options directly (their defaults
/// are the driver's).
agent::OptimizeSessionOptions Opts;
cl::OptionCategory Cat("forge-port optimize options");
#define SUB cl::cat(Cat), cl::sub(optimizeCommand())
cl::opt<std::string, true> File(cl::Positional, cl::desc("<file.cu>"), cl::location(Opts.File),
                                cl::Required, SUB);
cl::opt<std::string, true> SpecPath("spec", cl::desc("Launch spec of the kernel (JSON)"),
                                    cl::value_desc("spec.json"), cl::location(Opts.SpecPath),
                                    cl::Required, SUB);
cl::opt<uint64_t> TokenBudget("token-budget", cl::desc("Stop asking the model after this many "
                                                       "tokens (0: none)"), cl::init(0), SUB);
cl::opt<std::string, true> ReplayPath("replay", cl::desc("Rerun a transcript: no network, no "
                                                         "GPU; reports any decision that "
                                                         "differs"),
                                      cl::value_desc("transcript.json"),
                                      cl::location(Opts.ReplayPath), SUB);
cl::opt<std::string, true> TranscriptPath("transcript",
                                          cl::desc("Write the transcript (JSON) here"),
                                          cl::value_desc("file"),
                                          cl::location(Opts.TranscriptPath), SUB);
cl::opt<unsigned, true> MaxRounds("rounds", cl::desc("Round limit (10)"),
                                  cl::location(Opts.MaxRounds), SUB);
cl::opt<double, true> Threshold("threshold", cl::desc("Stop when a round gains less (0.05 = 5 "
                                                      "%)"),
                                cl::location(Opts.Threshold), SUB);
cl::opt<std::string> Rules("rules", cl::desc("Expert rules to use (globs, default '*')"),
                           cl::init("*"), SUB);
cl::opt<bool> NoTuner("no-tuner", cl::desc("Do not propose a parameter sweep of the spec's "
                                           "tunables"), SUB);
cl::opt<size_t, true> TuneBudget("tune-budget", cl::desc("Configurations the tuner proposal "
                                                         "may measure (64)"),
                                 cl::location(Opts.TuneBudget), SUB);
cl::opt<std::string, true> TuneDb("db", cl::desc("Tuning database for the tuner proposal "
                                                 "(JSON)"),
                                  cl::value_desc("tuning.json"), cl::location(Opts.TuneDb), SUB);
cl::opt<std::string, true> Scope("scope", cl::desc("Where edits may go: kernel (kernels, device "
                                                   "functions, launch configuration; default) "
                                                   "or file"),
                                 cl::location(Opts.Scope), SUB);
cl::opt<std::string, true> Reference("reference",
                                     cl::desc("What proposals are checked against: auto (float "
                                              "atomic sums in double, else the original; "
                                              "default) or original"),
                                     cl::location(Opts.Reference), SUB);
cl::opt<unsigned, true> PerRound("proposals", cl::desc("Proposals validated per round (8)"),
                                 cl::location(Opts.ProposalsPerRound), SUB);
cl::opt<std::string> ReportPath("report", cl::desc("Write a report (.json, .md or .html)"),
                                cl::value_desc("file"), SUB);
cl::opt<bool> NoGpu("no-gpu", cl::desc("Validate up to the compile stage only; keep nothing"),
                    SUB);
cl::opt<unsigned, true> TimingRounds("timing-rounds", cl::desc("Interleaved timing rounds (5)"),
                                     cl::location(Opts.Job.Rounds), SUB);
cl::opt<std::string> Search("search", cl::desc("The search: greedy (keep the best each round; "
                                              "the default) or evolve (islands and a MAP-Elites "
                                              "archive, docs/evolve.md)"),
                            cl::value_desc("greedy|evolve"), cl::init("greedy"), SUB);
agent::EvolveOptions EvolveDefaults;
cl::opt<unsigned> Islands("islands", cl::desc("--search evolve: islands (4)"),
                          cl::init(EvolveDefaults.Islands), SUB);
cl::opt<unsigned> Population("population", cl::desc("--search evolve: variants each island "
                                                    "holds (8)"),
                             cl::init(EvolveDefaults.Population), SUB);
cl::opt<unsigned> Offspring("offspring", cl::desc("--search evolve: proposals each island "
                                                  "judges a generation (2)"),
                            cl::init(EvolveDefaults.Offspring), SUB);
cl::opt<unsigned> MigrateEvery("migrate-every", cl::desc("--search evolve: generations between "
                                                         "migrations (3)"),
                               cl::init(EvolveDefaults.MigrationInterval), SUB);
cl::opt<std::string> Budget("budget", cl::desc("--search evolve: evaluations (200), or a time "
                                               "(30m, 90s, 2h)"),
                            cl::value_desc("N|time"), SUB);
cl::opt<bool> NoCrossover("no-crossover", cl::desc("--search evolve: no crossover requests"),
                          SUB);
cl::opt<std::string> ExperienceFile("experience",
                                    cl::desc("The experience library (docs/experience.md; "
                                             "default $FORGE_EXPERIENCE or "
                                             "~/.cache/forge/experience.json; 'off': none)"),
                                    cl::value_desc("file"), SUB);
cl::opt<bool> NoExperience("no-experience", cl::desc("Neither read nor write the experience "
                                                     "library"),
                           SUB);
#undef SUB

/// --budget: a count of evaluations, or a time with a unit (s, m, h).
Expected<std::pair<unsigned, double>> parseBudget(StringRef B) {
  unsigned N;
  if (!B.getAsInteger(10, N) && N > 0)
    return std::make_pair(N, 0.0);
  double Scale = B.ends_with("s") ? 1 : B.ends_with("m") ? 60 : B.ends_with("h") ? 3600 : 0;
  double T;
  if (Scale > 0 && !B.drop_back().getAsDouble(T) && T > 0)
    return std::make_pair(~0u, T * Scale);
  return makeUsageError("--budget '{0}': expected a count of evaluations (200) or a time (30m, "
                        "90s, 2h)",
                        B);
}

/// The experience library's file; "" for none (--no-experience,
/// FORGE_EXPERIENCE=off, no cache directory known).
std::string experiencePath() {
  if (NoExperience || ExperienceFile == "off")
    return "";
  if (!ExperienceFile.empty())
    return ExperienceFile;
  auto D = experience::defaultPath();
  if (!D) {
    consumeError(D.takeError());
    return "";
  }
  return *D;
}

std::atomic<bool> Interrupted{false};
extern "C" void onOptimizeInterrupt(int) { Interrupted = true; }
} // namespace

int forge::tool::runOptimize(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port optimize: propose, validate and keep faster versions of a "
                         "kernel\n"))
    return ExitUsage;
  agent::OptimizeSessionOptions &O = Opts;
  auto Output = outputChoice();
  if (!Output)
    return reportError(Output.takeError());
  O.Output = *Output;
  if (!ReportPath.empty() && !report::formatOf(ReportPath))
    return reportError(makeUsageError("--report '{0}': the name must end in .json, .md or .html",
                                      ReportPath));
  if (!O.ReplayPath.empty() && (!LlmUrl.empty() || !ModelName.empty()))
    return reportError(makeUsageError("--replay reruns a transcript; it takes no --llm/--model"));
  auto Target = targetOption(/*Required=*/true);
  if (!Target)
    return reportError(Target.takeError());
  if (Error E = checkKernelFile(O.File, Inv.ExtraArgs))
    return reportError(std::move(E));
  auto Spec = measure::readLaunchSpec(O.SpecPath);
  if (!Spec)
    return reportError(Spec.takeError());
  auto Selected = passes::selectExpertRules(Rules);
  if (!Selected)
    return reportError(Selected.takeError());
  if (O.ReplayPath.empty() && modelRequested()) {
    auto C = modelOption();
    if (!C)
      return reportError(C.takeError());
    C->TokenBudget = TokenBudget;
    O.Model = *C;
  }
  if (Search != "greedy" && Search != "evolve")
    return reportError(makeUsageError("--search '{0}': expected greedy or evolve", Search));
  bool EvolveOnly = Islands.getNumOccurrences() || Population.getNumOccurrences() ||
                    Offspring.getNumOccurrences() || MigrateEvery.getNumOccurrences() ||
                    Budget.getNumOccurrences() || NoCrossover;
  if (Search == "greedy" && EvolveOnly)
    return reportError(makeUsageError("--islands, --population, --offspring, --migrate-every, "
                                      "--budget and --no-crossover go with --search evolve"));
  if (Search == "evolve") {
    agent::EvolveOptions E;
    E.Islands = Islands;
    E.Population = Population;
    E.Offspring = Offspring;
    E.MigrationInterval = MigrateEvery;
    E.Crossover = !NoCrossover;
    if (!Budget.empty()) {
      auto B = parseBudget(Budget);
      if (!B)
        return reportError(B.takeError());
      std::tie(E.Budget, E.Seconds) = *B;
    }
    E.Seed = Seed.getNumOccurrences() ? uint64_t(Seed) : E.Seed;
    O.Evolve = E;
  }
  O.ExperiencePath = experiencePath();
  if (!NoGpu && O.ReplayPath.empty())
    O.Gpu = localGpu(WorkerPath, Inv.Argv0, "proposals are validated up to the compile stage");
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPath);
  O.Spec = &*Spec;
  O.Target = *Target;
  O.Rules = *Selected;
  O.Tuner = !NoTuner;
  O.AssumeNoAlias = AssumeNoAlias;
  applyIfGiven(Seed, O.Job.Seed);
  O.Job.Reps = Reps;
  O.Job.CandidateTimeoutS = TimeoutS;
  if (auto E = applySandboxOption(O.Job.Sandbox))
    return reportError(std::move(E));
  O.JobDir = JobDir;
  O.BuildDir = BuildPath;
  O.ExtraArgs = Inv.ExtraArgs;
  O.CudaPath = CudaPath;
  O.Toolchain = &TC;
  O.ToolVersion = std::string("forge-port ") + FORGE_VERSION;
  O.Date = todayUtc();
  O.Interrupted = &Interrupted;
  bool Tty = sys::Process::StandardErrIsDisplayed();
  O.OnProgress = elapsedProgress();
  O.OnRecord = [&](unsigned Round, const agent::ProposalRecord &P) {
    errs() << (Tty ? "\r\033[K" : "") << "forge-port: " << (O.Evolve ? "generation " : "round ")
           << Round << ": " << P.P.Origin
           << ": " << agent::verdictName(P.Verdict)
           << (P.Reason.empty() ? "" : " (" + P.Reason + ")") << "\n";
  };
  report::renderOptimizeStart(errs(), O, Spec->Kernel);
  agent::OptimizeSession Session(O);
  auto *Old = std::signal(SIGINT, onOptimizeInterrupt);
  auto R = Session.run();
  std::signal(SIGINT, Old);
  if (Tty)
    errs() << "\r\033[K";
  if (!R)
    return reportError(R.takeError());
  report::renderOptimizeEnd(errs(), *R);
  const agent::OptimizeResult &Res = R->Result;
  if (!ReportPath.empty()) {
    report::OptimizeReportInput In{&Res, &Session.loopOptions(), R->Info.Proposer, O.File, R->Diff,
                                   O.Date};
    // Beside a Markdown report, the archive's grid as its own SVG file.
    if (Res.Evolve && *report::formatOf(ReportPath) == report::Format::Markdown) {
      SmallString<256> Svg(ReportPath);
      sys::path::replace_extension(Svg, "archive.svg");
      if (Error E = writeFileAtomically(Svg, search::renderArchiveSvg(Res.Evolve->Archive)))
        return reportError(std::move(E));
      In.ArchiveSvg = sys::path::filename(Svg).str();
    }
    if (Error E = writeFileAtomically(ReportPath,
                                      report::renderOptimizeReport(In, *report::formatOf(ReportPath))))
      return reportError(std::move(E));
  }
  if (O.Output.K == OutputChoice::Kind::Diff)
    outs() << R->Diff;
  else if (O.Output.K == OutputChoice::Kind::Stdout)
    outs() << Res.FinalSource;
  return R->failed() ? ExitFailure : ExitOK;
}
