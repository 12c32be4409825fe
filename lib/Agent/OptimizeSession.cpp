//===- Agent/OptimizeSession.cpp - The optimize driver --------------------===//
#include "forge/Agent/OptimizeSession.h"
#include "forge/Agent/ExpertProposer.h"
#include "forge/Agent/MetaPrompt.h"
#include "forge/Agent/ModelProposer.h"
#include "forge/Agent/PrecisionReference.h"
#include "forge/Agent/Prompt.h"
#include "forge/Agent/TunerProposer.h"
#include "forge/Arch/GpuModel.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Patch/PatchSet.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace forge::agent {

namespace {
/// The model's instruction pool (MetaPrompt.h) as the evolutionary search
/// uses it: picks and credits, and once every RecombineEvery generations
/// the instructions that never helped dropped and the two best combined
/// by the model (its token budget shared with the proposals).
class ModelInstructions : public InstructionPool {
public:
  ModelInstructions(uint64_t Seed, ModelProposer &Model) : Pool(Seed), Model(Model) {}
  std::pair<unsigned, std::string> pick() override {
    const Instruction &I = Pool.pick();
    return {I.Id, I.Text};
  }
  void credit(unsigned Id, Verdict V, double Gain) override { Pool.credit(Id, V, Gain); }
  void evolve() override {
    Pool.drop();
    if (++Generations % RecombineEvery != 0)
      return;
    if (auto Pair = Pool.recombinationPair()) {
      auto Added = Pool.recombine(Model.client(), Pair->first, Pair->second);
      if (!Added)
        Failures.push_back(toString(Added.takeError()));
    }
  }
  Json toJson() const override {
    Json J = Pool.toJson();
    if (!Failures.empty())
      J["recombination_failures"] = Failures;
    return J;
  }

private:
  static constexpr unsigned RecombineEvery = 3;
  MetaPrompts Pool;
  ModelProposer &Model;
  unsigned Generations = 0;
  std::vector<std::string> Failures;
};
} // namespace

OptimizeSession::OptimizeSession(OptimizeSessionOptions O) : O(std::move(O)) {}
OptimizeSession::~OptimizeSession() = default;

StringRef OptimizeSession::proposerName() const { return Name; }

Expected<OptimizeSessionResult> OptimizeSession::run() {
  if (!O.Spec || !O.Target || !O.Toolchain)
    return makeError("OptimizeSession: the spec, the target and the toolchain are required");
  if (O.Scope != "kernel" && O.Scope != "file")
    return makeUsageError("--scope '{0}': expected kernel or file", O.Scope);
  if (O.Reference != "auto" && O.Reference != "original")
    return makeUsageError("--reference '{0}': expected auto or original", O.Reference);
  if (O.Threshold < 0 || O.Threshold >= 1)
    return makeUsageError("--threshold {0}: expected a fraction in [0, 1)", O.Threshold);
  if (!O.ReplayPath.empty() && O.Model)
    return makeUsageError("--replay reruns a transcript; it takes no --llm/--model");
  if (!O.ReplayPath.empty() && O.Evolve)
    return makeUsageError("--replay reruns a transcript of the greedy loop; it takes no "
                          "--search evolve");
  if (O.Evolve && (O.Evolve->Islands == 0 || O.Evolve->Offspring == 0 ||
                   O.Evolve->Population == 0 || O.Evolve->Budget == 0))
    return makeUsageError("--search evolve: --islands, --population, --offspring and --budget "
                          "must be at least 1");
  if (Error E = frontend::checkCudaInput(O.File))
    return std::move(E);
  // A replay neither reads nor writes the experience library: the
  // transcript fixes the proposals' order (its recorded timings follow that
  // order), and it measures nothing new to learn from.
  if (!O.ExperiencePath.empty() && O.ReplayPath.empty()) {
    // Read first: a malformed library stops the run before anything else.
    auto Lib = experience::Experience::load(O.ExperiencePath);
    if (!Lib)
      return Lib.takeError();
    Library = std::move(*Lib);
  }
  auto PO = frontend::makeParseOptions(O.File, O.BuildDir, O.Target, O.ExtraArgs);
  if (!PO)
    return PO.takeError();

  OptimizeSessionResult Out;
  Out.Info.Tool = O.ToolVersion;
  Out.Info.Date = O.Date;
  Out.Info.Spec = O.SpecPath;
  // The proposer: a transcript, a model, or the expert rules.
  Proposer *Main = nullptr;
  ModelProposer *TheModel = nullptr;
  if (!O.ReplayPath.empty()) {
    auto R = Replay::load(O.ReplayPath);
    if (!R)
      return R.takeError();
    Replayed = std::move(*R);
    // The rules run again so that their own edits keep their trust.
    Proposers.push_back(std::make_unique<ExpertProposer>(*O.Toolchain, *PO, O.Rules));
    Replayed->rederiveWith(Proposers.back().get());
    Main = Replayed.get();
    Out.Info.Proposer = "replay of " + O.ReplayPath;
    Out.Replayed = true;
  } else if (O.Model) {
    Out.Info.Proposer = "model";
    Out.Info.Model = O.Model->Model;
    Out.Info.Endpoint = redactedEndpoint(O.Model->Url);
    auto M = std::make_unique<ModelProposer>(*O.Model);
    TheModel = M.get();
    Proposers.push_back(std::move(M));
    Main = Proposers.back().get();
  } else {
    Out.Info.Proposer = "expert";
    Proposers.push_back(std::make_unique<ExpertProposer>(*O.Toolchain, *PO, O.Rules));
    Main = Proposers.back().get();
  }
  Name = Out.Info.Proposer;

  auto N = build::findNvcc(O.CudaPath);
  if (!N)
    return N.takeError();
  Tools = std::move(*N);
  const build::NvccDriver &Driver = *Tools->Driver;
  ScratchDir Work; // the candidates and jobs, for this run only
  auto Root = Work.make(O.JobDir, "forge-optimize");
  if (!Root)
    return Root.takeError();

  Checker = std::make_unique<SourceChecker>(*O.Toolchain, *PO);
  OptimizeOptions &L = Loop;
  L.File = O.File;
  L.Spec = O.Spec;
  L.Target = O.Target;
  L.MaxRounds = O.MaxRounds;
  L.Threshold = O.Threshold;
  L.MaxProposalsPerRound = std::max(1u, O.ProposalsPerRound);
  L.Scope = O.Scope;
  L.AssumeNoAlias = O.AssumeNoAlias;
  L.JobRoot = *Root;
  L.Job = O.Job;
  L.NvccFlags = frontend::nvccFlagsFromClangArgs(O.ExtraArgs);
  L.Checker = Checker.get();
  L.Driver = &Driver;
  L.TargetFacts = targetFacts(*O.Target);
  if (const arch::GpuModel *G = arch::referenceGpuFor(*O.Target))
    L.SmCount = unsigned(G->SMs);
  L.Interrupted = O.Interrupted;
  L.OnProgress = O.OnProgress;
  L.OnRecord = O.OnRecord;
  if (O.Gpu && !Replayed) {
    L.WorkerPath = O.Gpu->Worker;
    L.GpuTarget = O.Gpu->Target;
    L.GpuName = O.Gpu->Name;
  }
  L.Propose = Main;
  if (Library)
    L.Experience = &*Library;
  if (O.Evolve) {
    L.Evolve = O.Evolve;
    if (TheModel && !L.Evolve->Meta) {
      Meta = std::make_unique<ModelInstructions>(O.Evolve->Seed, *TheModel);
      L.Evolve->Meta = Meta.get();
    }
  }
  if (O.Reference == "auto") {
    auto Text = readFile(O.File);
    if (!Text)
      return Text.takeError();
    auto P = buildPrecisionReference(*O.Toolchain, *PO, O.File, *Text, *O.Spec);
    if (!P)
      return P.takeError();
    L.Precise = std::move(P->Reference);
    Out.NoPrecisionReference = P->WhyNot;
  }

  MeasurementLog Log;
  if (Replayed) {
    // The recorded run's options decide, so that the same decisions follow.
    const RecordedOptions &R = Replayed->options();
    L.MaxRounds = R.Rounds.value_or(L.MaxRounds);
    L.Threshold = R.Threshold.value_or(L.Threshold);
    L.MinGain = R.MinGain.value_or(L.MinGain);
    // A replay trusts only the proposals the rules make again
    // (Replay::rederiveWith); the scope is the wider of the recorded and
    // the given one.
    if (O.Scope != "file")
      L.Scope = R.Scope.value_or(L.Scope);
    L.MaxProposalsPerRound = R.ProposalsPerRound.value_or(L.MaxProposalsPerRound);
    if (R.Measured)
      L.GpuTarget = O.Target;
    Replay *Rep = Replayed.get();
    L.Measure = [&Log, Rep](const measure::MeasureRequest &Q) {
      return Log.record(Q, [Rep](const measure::MeasureRequest &Q2) { return Rep->measure(Q2); });
    };
  } else {
    // The tuner's sweep is a proposal of its own, next to the rules or the
    // model; also when the spec has no tunables yet, since a kept rewrite
    // may add some (a capped grid's waves).
    if (O.Tuner && L.GpuTarget) {
      TunerOptions TO;
      TO.File = O.File;
      TO.Sweep.GpuTarget = L.GpuTarget;
      TO.Sweep.GpuName = L.GpuName;
      TO.Sweep.WorkerPath = L.WorkerPath;
      TO.Sweep.Toolkit = Driver.toolkit().Version;
      TO.Sweep.Limit.MaxEvaluations = O.TuneBudget;
      TO.Sweep.Seed = O.Job.Seed;
      TO.Sweep.DbPath = O.TuneDb;
      TO.Sweep.JobRoot = *Root + "/tuner"; // each sweep in its own directory below
      TO.Sweep.Job = L.Job;
      TO.Sweep.NvccFlags = L.NvccFlags;
      TO.Sweep.Driver = &Driver;
      TO.Sweep.Interrupted = O.Interrupted;
      TO.Toolchain = O.Toolchain;
      TO.Parse = *PO;
      TO.OnProgress = O.OnProgress;
      Proposers.push_back(std::make_unique<TunerProposer>(TO));
      auto Both = std::make_unique<CombinedProposer>(
          std::vector<Proposer *>{Main, Proposers.back().get()});
      Both->setName(Main->name().str() + " + tuner");
      Name = Out.Info.Proposer + " + tuner";
      L.Propose = Both.get();
      Proposers.push_back(std::move(Both));
    }
    if (L.GpuTarget)
      L.Measure = [&Log, &Driver](const measure::MeasureRequest &Q) {
        return Log.record(Q, [&Driver](const measure::MeasureRequest &Q2) {
          return measure::runMeasurement(Driver, Q2);
        });
      };
  }

  auto R = runOptimization(L);
  if (!R)
    return R.takeError();
  Out.Result = std::move(*R);
  if (!Out.NoPrecisionReference.empty())
    Out.Result.Reference += " (no precision reference: " + Out.NoPrecisionReference + ")";
  const OptimizeResult &Res = Out.Result;
  if (Library && !Res.Experience.empty()) {
    if (Error E = Library->record(Res.Experience))
      Out.ExperienceNote = "nothing recorded in the experience library: " + toString(std::move(E));
    else
      Out.ExperienceNote = formatv("{0} entr{1} merged into {2}", Res.Experience.size(),
                                   Res.Experience.size() == 1 ? "y" : "ies", O.ExperiencePath)
                               .str();
  } else if (Library) {
    Out.ExperienceNote = "nothing to record in the experience library (no proposal was judged "
                         "to the end)";
  }

  if (!O.TranscriptPath.empty()) {
    Json T = transcriptToJson(Out.Info, L, Res, Log);
    if (Error E = writeFileAtomically(O.TranscriptPath, T.dump(2) + "\n"))
      return std::move(E);
  }
  if (Res.FinalSource != Res.OriginalSource) {
    patch::PatchSet Change;
    patch::ContentsProvider Orig = [&](StringRef) -> Expected<std::string> {
      return Res.OriginalSource;
    };
    if (Error E = Change.add(patch::makeReplacement(patch::PatchSet::normalizePath(O.File), 0,
                                                    unsigned(Res.OriginalSource.size()),
                                                    Res.FinalSource),
                             "optimize"))
      return std::move(E);
    auto D = Change.diff(Orig);
    if (!D)
      return D.takeError();
    Out.Diff = *D;
  }
  if (Replayed)
    Out.ReplayDifferences = Replayed->compare(Res);
  if (Error E = O.Output.write(O.File, Res.FinalSource,
                               Res.FinalSource != Res.OriginalSource))
    return std::move(E);
  // The loop's options keep pointing at what the session owns; the job
  // directory goes with the run.
  Loop.Measure = nullptr;
  return Out;
}

} // namespace forge::agent
