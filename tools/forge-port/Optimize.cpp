//===- forge-port/Optimize.cpp - `forge-port optimize` --------------------===//
///
/// \file
/// The optimisation loop (lib/Agent/Optimizer.h) on one kernel of a file:
/// the built-in expert rules by default, a language model with --llm, or a
/// recorded transcript with --replay. Writes the optimised source (-o, -i,
/// --diff), a report and a transcript. See docs/optimize.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "forge/Config.h"
#include "ExpertProposer.h"
#include "TunerProposer.h"
#include "forge/Agent/ModelProposer.h"
#include "forge/Agent/Optimizer.h"
#include "forge/Agent/Prompt.h"
#include "forge/Agent/Transcript.h"
#include "forge/Arch/GpuModel.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Patch/PatchSet.h"
#include "forge/Report/OptimizeReport.h"
#include "forge/Report/TuneReport.h"
#include "forge/Support/Date.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <atomic>
#include <csignal>

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::SubCommand OptSub("optimize", "propose, validate and keep faster versions of a kernel");
cl::OptionCategory Cat("forge-port optimize options");
cl::opt<std::string> File(cl::Positional, cl::desc("<file.cu>"), cl::Required, cl::cat(Cat),
                          cl::sub(OptSub));
cl::opt<std::string> SpecPath("spec", cl::desc("Launch spec of the kernel (JSON)"),
                              cl::value_desc("spec.json"), cl::Required, cl::cat(Cat),
                              cl::sub(OptSub));
cl::opt<std::string> To("to", cl::desc("Target to optimise for"), cl::value_desc("sm_XX"),
                        cl::Required, cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> LlmUrl("llm",
                            cl::desc("Model endpoint (OpenAI /v1/chat/completions or Anthropic "
                                     "/v1/messages); default $FORGE_LLM_URL when --model or "
                                     "$FORGE_LLM_MODEL is set, else the built-in expert rules"),
                            cl::value_desc("url"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> ModelName("model", cl::desc("Model name (or $FORGE_LLM_MODEL)"),
                               cl::cat(Cat), cl::sub(OptSub));
cl::opt<double> LlmTimeout("llm-timeout", cl::desc("Seconds per model request (120)"),
                           cl::init(120), cl::cat(Cat), cl::sub(OptSub));
cl::opt<unsigned> LlmRetries("llm-retries", cl::desc("Retries on 429, 5xx and dropped "
                                                     "connections (3)"),
                             cl::init(3), cl::cat(Cat), cl::sub(OptSub));
cl::opt<double> LlmBackoff("llm-backoff", cl::desc("Seconds before the first retry, doubling (1)"),
                           cl::init(1), cl::cat(Cat), cl::sub(OptSub));
cl::opt<uint64_t> TokenBudget("token-budget",
                              cl::desc("Stop asking the model after this many tokens (0: none)"),
                              cl::init(0), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> ReplayPath("replay",
                                cl::desc("Rerun a transcript: no network, no GPU; reports any "
                                         "decision that differs"),
                                cl::value_desc("transcript.json"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> TranscriptPath("transcript", cl::desc("Write the transcript (JSON) here"),
                                    cl::value_desc("file"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<unsigned> MaxRounds("rounds", cl::desc("Round limit (10)"), cl::init(10), cl::cat(Cat),
                            cl::sub(OptSub));
cl::opt<double> Threshold("threshold", cl::desc("Stop when a round gains less (0.05 = 5 %)"),
                          cl::init(0.05), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> Rules("rules", cl::desc("Expert rules to use (globs, default '*')"),
                           cl::init("*"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<bool> NoTuner("no-tuner", cl::desc("Do not propose a parameter sweep of the spec's "
                                           "tunables"),
                      cl::cat(Cat), cl::sub(OptSub));
cl::opt<unsigned> TuneBudget("tune-budget",
                             cl::desc("Configurations the tuner proposal may measure (64)"),
                             cl::init(64), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> TuneDb("db", cl::desc("Tuning database for the tuner proposal (JSON)"),
                            cl::value_desc("tuning.json"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> Scope("scope",
                           cl::desc("Where edits may go: kernel (kernels, device functions, "
                                    "launch configuration; default) or file"),
                           cl::init("kernel"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<unsigned> PerRound("proposals", cl::desc("Proposals validated per round (8)"),
                           cl::init(8), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> Output("o", cl::desc("Write the optimised source here ('-': stdout)"),
                            cl::value_desc("file"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<bool> InPlace("i", cl::desc("Rewrite the file in place (atomically)"), cl::cat(Cat),
                      cl::sub(OptSub));
cl::opt<bool> Diff("diff", cl::desc("Print the change as a unified diff"), cl::cat(Cat),
                   cl::sub(OptSub));
cl::opt<std::string> ReportPath("report", cl::desc("Write a report (.json, .md or .html)"),
                                cl::value_desc("file"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> WorkerOpt("worker", cl::desc("The forge-worker executable"),
                               cl::value_desc("path"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<bool> NoGpu("no-gpu", cl::desc("Validate up to the compile stage only; keep nothing"),
                    cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> JobDirOpt("job-dir", cl::desc("Keep the candidates and jobs here"),
                               cl::value_desc("dir"), cl::cat(Cat), cl::sub(OptSub));
cl::opt<unsigned> TimingRounds("timing-rounds", cl::desc("Interleaved timing rounds (5)"),
                               cl::init(5), cl::cat(Cat), cl::sub(OptSub));
cl::opt<unsigned> Reps("reps", cl::desc("Timed launches per round (10)"), cl::init(10),
                       cl::cat(Cat), cl::sub(OptSub));
cl::opt<double> TimeoutS("timeout", cl::desc("Seconds one candidate may take on the GPU (30)"),
                         cl::init(30), cl::cat(Cat), cl::sub(OptSub));
cl::opt<uint64_t> Seed("seed", cl::desc("Seed of the inputs and the tuner"), cl::init(20261129),
                       cl::cat(Cat), cl::sub(OptSub));
cl::opt<std::string> CudaPathOpt("cuda-path", cl::desc("CUDA toolkit root"), cl::cat(Cat),
                                 cl::sub(OptSub));
cl::opt<std::string> BuildPath("p", cl::desc("Build directory with compile_commands.json"),
                               cl::value_desc("build-dir"), cl::cat(Cat), cl::sub(OptSub));

std::atomic<bool> Interrupted{false};
extern "C" void onOptimizeInterrupt(int) { Interrupted = true; }

/// "http://host:port/v1/messages" without user info or query (never a key).
std::string endpointForTranscript(StringRef Url) {
  StringRef U = Url.split('?').first;
  size_t Scheme = U.find("://");
  if (Scheme != StringRef::npos) {
    StringRef Rest = U.drop_front(Scheme + 3);
    size_t At = Rest.find('@');
    size_t Slash = Rest.find('/');
    if (At != StringRef::npos && (Slash == StringRef::npos || At < Slash))
      return (U.take_front(Scheme + 3) + Rest.drop_front(At + 1)).str();
  }
  return U.str();
}

void printRounds(raw_ostream &OS, const agent::OptimizeResult &R) {
  for (const agent::RoundRecord &RR : R.Rounds) {
    OS << formatv("round {0}:", RR.Number);
    if (RR.Before.MedianNs > 0)
      OS << formatv(" {0:F2} us", RR.Before.MedianNs / 1000);
    if (RR.Accepted >= 0)
      OS << formatv(" -> {0:F2} us ({1:F2}x) with {2}: {3}", RR.After.MedianNs / 1000, RR.Gain,
                    RR.Proposals[RR.Accepted].P.Origin, RR.Proposals[RR.Accepted].P.Summary);
    else
      OS << (RR.Before.MedianNs > 0 ? ";" : "") << " nothing kept of " << RR.Proposals.size()
         << " proposal(s)";
    OS << (RR.Note.empty() ? "" : "; " + RR.Note) << "\n";
  }
}

} // namespace

int forge::tool::runOptimize(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port optimize: propose, validate and keep faster versions of a "
                         "kernel\n"))
    return ExitUsage;
  if (int(!Output.empty()) + int(InPlace) + int(Diff) > 1)
    return reportError(makeUsageError("-o, -i and --diff are alternatives; give one"));
  if (Scope != "kernel" && Scope != "file")
    return reportError(makeUsageError("--scope '{0}': expected kernel or file", Scope));
  if (Threshold < 0 || Threshold >= 1)
    return reportError(makeUsageError("--threshold {0}: expected a fraction in [0, 1)",
                                      Threshold.getValue()));
  if (!ReportPath.empty() && !report::formatOf(ReportPath))
    return reportError(makeUsageError("--report '{0}': the name must end in .json, .md or .html",
                                      ReportPath));
  if (!ReplayPath.empty() && (!LlmUrl.empty() || !ModelName.empty()))
    return reportError(makeUsageError("--replay reruns a transcript; it takes no --llm/--model"));
  if (auto E = frontend::checkCudaInput(File))
    return reportError(std::move(E));
  auto Target = arch::lookupTarget(To);
  if (!Target)
    return reportError(Target.takeError());
  auto Spec = measure::readLaunchSpec(SpecPath);
  if (!Spec)
    return reportError(Spec.takeError());
  auto Selected = passes::selectExpertRules(Rules);
  if (!Selected)
    return reportError(Selected.takeError());

  // The proposer: a transcript, a model, or the expert rules.
  std::unique_ptr<agent::Replay> Replayed;
  std::unique_ptr<agent::Proposer> Prop;
  agent::TranscriptInfo Info;
  Info.Tool = std::string("forge-port ") + FORGE_VERSION;
  Info.Date = todayUtc();
  Info.Spec = SpecPath;
  bool UseModel = !LlmUrl.empty() || !ModelName.empty() ||
                  (ReplayPath.empty() && sys::Process::GetEnv("FORGE_LLM_MODEL"));
  auto PO = frontend::makeParseOptions(File, BuildPath, &*Target, Inv.ExtraArgs);
  if (!PO)
    return reportError(PO.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0);
  if (!ReplayPath.empty()) {
    auto R = agent::Replay::load(ReplayPath);
    if (!R)
      return reportError(R.takeError());
    Replayed = std::move(*R);
    Info.Proposer = "replay of " + ReplayPath;
  } else if (UseModel) {
    auto C = agent::resolveModelConfig(LlmUrl, ModelName);
    if (!C)
      return reportError(C.takeError());
    C->TimeoutS = LlmTimeout;
    C->MaxRetries = LlmRetries;
    C->BackoffS = LlmBackoff;
    C->TokenBudget = TokenBudget;
    Info.Proposer = "model";
    Info.Model = C->Model;
    Info.Endpoint = endpointForTranscript(C->Url);
    Prop = std::make_unique<agent::ModelProposer>(*C);
  } else {
    Info.Proposer = "expert";
    Prop = std::make_unique<passes::ExpertProposer>(TC, *PO, *Selected);
  }

  auto Tools = findNvcc(CudaPathOpt);
  if (!Tools)
    return reportError(Tools.takeError());
  const build::NvccDriver &Driver = *(*Tools)->Driver;

  agent::OptimizeOptions O;
  if (!NoGpu && ReplayPath.empty()) {
    LocalGpu G = findLocalGpu(WorkerOpt, Inv.Argv0,
                              "proposals are validated up to the compile stage");
    O.WorkerPath = G.Worker;
    O.GpuTarget = G.Target;
    O.GpuName = G.Name;
  }
  ScratchDir Scratch;
  auto Root = Scratch.make(JobDirOpt, "forge-optimize");
  if (!Root)
    return reportError(Root.takeError());

  agent::SourceChecker Checker(TC, *PO);
  std::unique_ptr<passes::TunerProposer> Tuner;
  std::unique_ptr<agent::CombinedProposer> Both;
  O.File = File;
  O.Spec = &*Spec;
  O.Target = &*Target;
  O.MaxRounds = MaxRounds;
  O.Threshold = Threshold;
  O.MaxProposalsPerRound = std::max(1u, PerRound.getValue());
  O.Scope = Scope;
  O.JobRoot = *Root;
  O.Job.Seed = Seed;
  O.Job.Rounds = TimingRounds;
  O.Job.Reps = Reps;
  O.Job.CandidateTimeoutS = TimeoutS;
  O.NvccFlags = nvccFlagsFor(Inv.ExtraArgs);
  O.Checker = &Checker;
  O.Driver = &Driver;
  O.TargetFacts = agent::targetFacts(*Target);
  if (const arch::GpuModel *G = arch::referenceGpuFor(*Target))
    O.SmCount = unsigned(G->SMs);
  O.Interrupted = &Interrupted;

  if (Replayed) {
    O.Propose = Replayed.get();
    // The recorded run's options decide, so that the same decisions follow.
    const Json &Opts = Replayed->recorded()["options"];
    O.MaxRounds = Opts.value("rounds", O.MaxRounds);
    O.Threshold = Opts.value("threshold", O.Threshold);
    O.MinGain = Opts.value("min_gain", O.MinGain);
    O.Scope = Opts.value("scope", O.Scope);
    O.MaxProposalsPerRound = Opts.value("proposals_per_round", O.MaxProposalsPerRound);
    if (Replayed->recorded().value("measured", false))
      O.GpuTarget = &*Target;
    O.Measure = [&](const measure::MeasureRequest &Q) { return Replayed->measure(Q); };
  } else {
    O.Propose = Prop.get();
    // The tuner's sweep is a proposal of its own, next to the rules or the
    // model.
    if (!NoTuner && !Spec->Tunables.empty() && O.GpuTarget) {
      passes::TunerOptions TO;
      TO.File = File;
      TO.Sweep.GpuTarget = O.GpuTarget;
      TO.Sweep.GpuName = O.GpuName;
      TO.Sweep.WorkerPath = O.WorkerPath;
      TO.Sweep.Toolkit = Driver.toolkit().Version;
      TO.Sweep.Limit.MaxEvaluations = TuneBudget;
      TO.Sweep.Seed = Seed;
      TO.Sweep.DbPath = TuneDb;
      TO.Sweep.JobRoot = *Root + "/tuner"; // each sweep in its own directory below
      TO.Sweep.Job = O.Job;
      TO.Sweep.NvccFlags = O.NvccFlags;
      TO.Sweep.Driver = &Driver;
      TO.Sweep.Interrupted = &Interrupted;
      TO.Toolchain = &TC;
      TO.Parse = *PO;
      TO.OnProgress = [&](StringRef Msg) {
        if (O.OnProgress)
          O.OnProgress(Msg);
      };
      Tuner = std::make_unique<passes::TunerProposer>(TO);
      Both = std::make_unique<agent::CombinedProposer>(
          std::vector<agent::Proposer *>{Prop.get(), Tuner.get()});
      Both->setName(Prop->name().str() + " + tuner");
      O.Propose = Both.get();
    }
  }
  agent::MeasurementLog Log;
  if (!O.Measure && O.GpuTarget)
    O.Measure = [&](const measure::MeasureRequest &Q) {
      return Log.record(Q, [&](const measure::MeasureRequest &Q2) {
        return measure::runMeasurement(Driver, Q2);
      });
    };
  else if (O.Measure) {
    auto Inner = O.Measure;
    O.Measure = [&Log, Inner](const measure::MeasureRequest &Q) { return Log.record(Q, Inner); };
  }

  bool Tty = sys::Process::StandardErrIsDisplayed();
  auto Start = std::chrono::steady_clock::now();
  O.OnProgress = [&](StringRef Msg) {
    double S = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    errs() << (Tty ? "\r\033[K" : "") << formatv("[{0,5:F0} s] ", S) << Msg << (Tty ? "" : "\n");
  };
  O.OnRecord = [&](unsigned Round, const agent::ProposalRecord &P) {
    errs() << (Tty ? "\r\033[K" : "") << "forge-port: round " << Round << ": " << P.P.Origin
           << ": " << agent::verdictName(P.Verdict)
           << (P.Reason.empty() ? "" : " (" + P.Reason + ")") << "\n";
  };
  if (O.GpuTarget && O.GpuTarget != &*Target)
    WithColor::warning(errs(), "forge-port")
        << "the proposals compile for " << Target->Name << " but are checked and timed on the "
        << (O.GpuName.empty() ? StringRef(O.GpuTarget->Name) : StringRef(O.GpuName)) << " ("
        << O.GpuTarget->Name << "): the speed-ups are " << O.GpuTarget->Name
        << "'s, a prediction for " << Target->Name
        << "\n";
  errs() << "forge-port: optimising " << Spec->Kernel << " for " << Target->Name << " with the "
         << Info.Proposer << " proposer"
         << (!O.GpuTarget ? std::string(", no GPU")
                          : ", measured on " + (O.GpuName.empty() ? std::string(O.GpuTarget->Name)
                                                                  : O.GpuName))
         << "\n";
  auto *Old = std::signal(SIGINT, onOptimizeInterrupt);
  auto R = agent::runOptimization(O);
  std::signal(SIGINT, Old);
  if (Tty)
    errs() << "\r\033[K";
  if (!R)
    return reportError(R.takeError());

  printRounds(errs(), *R);
  if (R->Measured && R->Final.MedianNs > 0)
    errs() << formatv("forge-port: {0:F2} us -> {1:F2} us, {2:F2}x over the original; stopped: "
                      "{3}\n",
                      R->Baseline.MedianNs / 1000, R->Final.MedianNs / 1000, R->speedup(),
                      R->StopReason);
  else
    errs() << "forge-port: stopped: " << R->StopReason << "\n";

  if (!TranscriptPath.empty()) {
    Json T = agent::transcriptToJson(Info, O, *R, Log);
    if (auto E = writeFileAtomically(TranscriptPath, T.dump(2) + "\n"))
      return reportError(std::move(E));
  }
  patch::PatchSet Change;
  std::string DiffText;
  if (R->FinalSource != R->OriginalSource) {
    patch::ContentsProvider Orig = [&](StringRef) -> Expected<std::string> {
      return R->OriginalSource;
    };
    if (auto E = Change.add(patch::makeReplacement(patch::PatchSet::normalizePath(File), 0,
                                                   unsigned(R->OriginalSource.size()),
                                                   R->FinalSource),
                            "optimize"))
      return reportError(std::move(E));
    auto D = Change.diff(Orig);
    if (!D)
      return reportError(D.takeError());
    DiffText = *D;
  }
  if (!ReportPath.empty()) {
    report::OptimizeReportInput In{&*R, &O, Info.Proposer, File, DiffText, todayUtc()};
    if (auto E = writeFileAtomically(ReportPath,
                                     report::renderOptimizeReport(In, *report::formatOf(ReportPath))))
      return reportError(std::move(E));
  }
  int Status = ExitOK;
  if (Replayed) {
    std::vector<std::string> D = Replayed->compare(*R);
    if (D.empty()) {
      errs() << "forge-port: replay: the same decisions in " << R->Rounds.size() << " round(s)\n";
    } else {
      for (const std::string &L : D)
        WithColor::error(errs(), "forge-port") << "replay: " << L << "\n";
      Status = ExitFailure;
    }
  }
  if (R->ProposerFailed)
    Status = ExitFailure;
  if (Diff) {
    outs() << DiffText;
  } else if (InPlace) {
    if (R->FinalSource != R->OriginalSource)
      if (auto E = writeFileAtomically(File, R->FinalSource))
        return reportError(std::move(E));
  } else if (Output == "-") {
    outs() << R->FinalSource;
  } else if (!Output.empty()) {
    if (auto E = writeFileAtomically(Output, R->FinalSource))
      return reportError(std::move(E));
  }
  return Status;
}
