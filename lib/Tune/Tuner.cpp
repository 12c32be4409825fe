//===- Tuner.cpp - A tuning run -------------------------------------------===//
#include "forge/Tune/Tuner.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Measure/ProgramMode.h"
#include "forge/Support/Date.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

using namespace forge;
using namespace forge::tune;
using measure::CandidateStatus;
using measure::LaunchSpec;
using measure::ValueMap;

llvm::Expected<SearchSpace>
forge::tune::buildSearchSpace(const LaunchSpec &Spec,
                              llvm::ArrayRef<const arch::TargetInfo *> Targets) {
  if (Spec.Tunables.empty())
    return makeUsageError(
        "the spec has no tunables to sweep; add some under \"tunables\" "
        "(forge-port spec drafts a BLOCK tunable from the launch)");
  std::vector<Parameter> Params;
  for (const measure::Tunable &T : Spec.Tunables) {
    Parameter P{T.Name, T.Values, "spec"};
    Params.push_back(std::move(P));
  }
  std::vector<const arch::TargetInfo *> Infos(Targets.begin(), Targets.end());
  const LaunchSpec *S = &Spec;
  auto Valid = [S, Infos](const std::map<std::string, int64_t> &V) {
    ValueMap Values(V.begin(), V.end());
    auto Ok = S->satisfiesConstraints(Values);
    if (!Ok) {
      llvm::consumeError(Ok.takeError());
      return false;
    }
    if (!*Ok)
      return false;
    auto G = S->geometry(Values);
    if (!G) {
      llvm::consumeError(G.takeError());
      return false;
    }
    int64_t Threads = G->Block[0] * G->Block[1] * G->Block[2];
    for (const arch::TargetInfo *T : Infos) {
      const arch::SmLimits &L = T->limits();
      if (Threads > L.MaxThreadsPerBlock ||
          G->SharedMemBytes > L.OptInSharedMemPerBlock)
        return false;
    }
    return true;
  };
  return SearchSpace(std::move(Params), Valid);
}

namespace {

std::string targetNames(llvm::ArrayRef<const arch::TargetInfo *> Targets) {
  std::vector<std::string> Names;
  for (const arch::TargetInfo *T : Targets)
    Names.push_back(T->Name);
  return llvm::join(Names, ", ");
}

/// The measurement side of a tuning run: each batch is one job (the
/// original at its defaults as the reference, then the batch), compiled in
/// harnesses of BatchSize configurations. Costs are normalised to the
/// first batch's reference, so drift between batches cancels.
/// Kernel's time in a program-mode variant: the median over the runs of
/// the sum of its launches (every instantiation of it); Spread, the runs'
/// spread.
double programKernelNs(const measure::ProgramVariant &V, llvm::StringRef Kernel,
                       double &Spread) {
  double Ns = 0;
  Spread = 0;
  for (const measure::KernelSummary &K : V.Kernels)
    if (namesKernel(K.Name, Kernel)) {
      Ns += K.TotalNs;
      Spread = std::max(Spread, K.RunSpread);
    }
  return Ns;
}

class Measurer {
public:
  Measurer(const TuneOptions &O, const SearchSpace &Space, TuneResult &R)
      : O(O), Space(Space), R(R) {}

  /// Measures Batch in chunks of BatchSize configurations, one job each,
  /// calling AfterChunk after each (the database is saved there), so an
  /// interrupt loses at most the chunk in flight.
  std::vector<Evaluation> measure(const std::vector<Config> &Batch) {
    std::vector<Evaluation> Out;
    size_t Chunk = std::max(1u, O.BatchSize);
    for (size_t I = 0; I < Batch.size(); I += Chunk) {
      std::vector<Config> Part(Batch.begin() + I,
                               Batch.begin() + std::min(Batch.size(), I + Chunk));
      size_t Base = Progress.Done;
      auto R = measureChunk(Part);
      Out.insert(Out.end(), R.begin(), R.end());
      // Each result was counted as it came; the chunk's end counts the
      // configurations that never ran (unbuildable, a failed job) too.
      Progress.Done = Base + Part.size();
      if (AfterChunk)
        AfterChunk(Part.size());
    }
    return Out;
  }

  std::function<void(size_t)> AfterChunk;

  /// TuneOptions::BeforeFirstRun; after a refusal every later job stops
  /// here too.
  llvm::Error beforeRun() {
    if (!Aborted && O.BeforeFirstRun)
      if (llvm::Error E = O.BeforeFirstRun())
        Aborted = llvm::toString(std::move(E));
    if (Aborted)
      return makeError("{0}", *Aborted);
    return llvm::Error::success();
  }
  std::optional<std::string> Aborted;

  std::vector<Evaluation> measureChunk(const std::vector<Config> &Batch) {
    std::vector<Evaluation> Out(Batch.size());
    if (Aborted || (O.Interrupted && *O.Interrupted)) {
      for (Evaluation &E : Out)
        E.Status = CandidateStatus::Interrupted;
      return Out;
    }
    if (!O.Program.Command.empty())
      return measureProgram(Batch);
    measure::MeasureRequest Req;
    Req.Spec = O.Spec;
    Req.Reference = {"ref", O.Source, defaults(), "original " + R.DefaultKey};
    std::set<size_t> Unbuildable;
    std::vector<size_t> PlannedIndex; // candidate -> index in Batch
    for (size_t I = 0; I < Batch.size(); ++I) {
      auto V = Space.values(Batch[I]);
      std::string Source = O.Source;
      if (O.SourceFor) {
        // Tunables the harness cannot set (an unroll count, a macro in the
        // kernel body) are written into a copy of the source per
        // configuration.
        auto Variant = O.SourceFor(V);
        if (!Variant) {
          Out[I].Status = CandidateStatus::CompileFailed;
          Out[I].Detail = llvm::toString(Variant.takeError());
          Unbuildable.insert(I);
          continue;
        }
        Source = *Variant;
      }
      Req.Candidates.push_back({"t" + std::to_string(Next + I), Source,
                                ValueMap(V.begin(), V.end()),
                                Space.key(Batch[I])});
      PlannedIndex.push_back(I);
    }
    Next += Batch.size();
    Req.Target = O.GpuTarget;
    Req.NvccFlags = O.NvccFlags;
    Req.Job = O.Job;
    Req.JobDir = O.JobRoot + "/batch-" + std::to_string(++Batches);
    Req.WorkerPath = O.WorkerPath;
    Req.Exec = O.Exec;
    Req.Interrupted = O.Interrupted;
    Req.BeforeRun = [&]() -> llvm::Error { return beforeRun(); };
    Req.OnStatus = [&](llvm::StringRef S) {
      if (!O.OnProgress)
        return;
      Progress.Last = S.str();
      O.OnProgress(Progress);
    };
    // Batched: the configurations split evenly over the compile threads,
    // each thread compiling its share in one nvcc run (headers parsed once
    // per thread, every core busy).
    unsigned Threads = O.CompileJobs ? O.CompileJobs
                                     : std::max(1u, std::thread::hardware_concurrency());
    Req.CompileJobs = Threads;
    // The reference shares a harness with the configurations of its
    // source: counted too, or 20 configurations on 2 threads would make a
    // third harness (compiled after the other two, for the reference alone).
    size_t Entries = Req.Candidates.size() + 1;
    Req.MaxEntriesPerHarness = O.Batched ? unsigned((Entries + Threads - 1) / Threads) : 1;
    Req.OnResult = [&](const measure::CandidateResult &C, size_t, size_t) {
      if (C.Reference || !O.OnProgress)
        return;
      Progress.Last = C.Label + ": " + statusName(C.Status) +
                      (C.Time ? llvm::formatv(" {0:F2} us", C.Time->Median / 1000)
                                    .str()
                              : "");
      // The live median stands in for the cost until the chunk is recorded.
      if (C.ok() && C.Time)
        counted(C.Label, C.Time->Median);
      else
        counted();
    };
    for (size_t I : Unbuildable)
      record(Batch[I], Out[I], 0, 0);
    if (Req.Candidates.empty())
      return Out;
    auto Rep = measure::runMeasurement(*O.Driver, Req);
    if (!Rep) {
      jobFailed(Rep.takeError(), PlannedIndex, Out);
      return Out;
    }
    R.CompileSeconds += Rep->CompileSeconds;
    R.RunSeconds += Rep->RunSeconds;
    const measure::CandidateOutcome &Ref = Rep->Outcomes.front();
    double RefNs = Ref.Result.Time ? Ref.Result.Time->Median : 0;
    if (RefNs > 0) {
      RefMedians.push_back(RefNs);
      if (FirstRefNs == 0)
        FirstRefNs = RefNs;
    }
    for (size_t P = 0; P < PlannedIndex.size(); ++P) {
      size_t I = PlannedIndex[P];
      const measure::CandidateOutcome &C = Rep->Outcomes[P + 1];
      Evaluation &E = Out[I];
      E.Status = C.Result.Status;
      E.Ok = C.Result.ok() && C.Result.Time && RefNs > 0;
      double Median = C.Result.Time ? C.Result.Time->Median : 0;
      E.Cost = E.Ok ? Median * FirstRefNs / RefNs : 0;
      E.Detail = C.Result.ok() ? ""
                               : measure::describeRejection(C.Result,
                                                            O.Job.FloorFactor);
      ConfigResult &CR = record(Batch[I], E, Median, C.Result.Noise.value_or(0));
      if (C.Resources) {
        CR.Registers = C.Resources->Registers;
        CR.StaticShared = C.Resources->SharedMemBytes;
      }
    }
    return Out;
  }

  /// Program mode (TuneOptions::ProgramOptions): the original and each
  /// configuration's copy of the source built into the program and run.
  std::vector<Evaluation> measureProgram(const std::vector<Config> &Batch) {
    std::vector<Evaluation> Out(Batch.size());
    measure::ProgramRequest Req;
    Req.Sources.push_back(O.Source);
    std::vector<size_t> PlannedIndex;
    for (size_t I = 0; I < Batch.size(); ++I) {
      auto Variant = O.SourceFor(Space.values(Batch[I]));
      if (!Variant) {
        Out[I].Status = CandidateStatus::CompileFailed;
        Out[I].Detail = llvm::toString(Variant.takeError());
        record(Batch[I], Out[I], 0, 0);
        continue;
      }
      Req.Sources.push_back(*Variant);
      PlannedIndex.push_back(I);
    }
    if (PlannedIndex.empty())
      return Out;
    if (llvm::Error E = beforeRun()) {
      jobFailed(std::move(E), PlannedIndex, Out);
      return Out;
    }
    Req.Command = O.Program.Command;
    Req.Runs = std::max(1u, O.Program.Runs);
    Req.Target = O.GpuTarget;
    Req.NvccFlags = O.NvccFlags;
    Req.InjectLibrary = O.Program.InjectLibrary;
    Req.JobDir = O.JobRoot + "/batch-" + std::to_string(++Batches);
    Req.TimeoutSeconds = O.Program.TimeoutSeconds;
    Req.IgnoreLines = O.Program.IgnoreLines;
    Req.CheckCommand = O.Program.CheckCommand;
    auto RunStart = std::chrono::steady_clock::now();
    // The programs run one after another, the original first: a variant
    // counts as done once its last run starts the next one, and the
    // estimate follows the runs (results are read only at the end).
    size_t DoneBefore = Progress.Done, RunsStarted = 0;
    size_t TotalRuns = Req.Sources.size() * Req.Runs;
    if (O.OnProgress)
      Req.OnRun = [&](llvm::StringRef Label, unsigned Run, unsigned Runs) {
        ++RunsStarted;
        size_t Finished = (RunsStarted - 1) / Runs; // programs whose runs are over
        Progress.Done = DoneBefore + (Finished ? Finished - 1 : 0);
        Progress.Last = llvm::formatv("{0}: run {1} of {2}", Label, Run, Runs).str();
        Progress.ElapsedS =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
        double BatchS =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - RunStart).count();
        Progress.EtaS = RunsStarted > 1 ? BatchS / double(RunsStarted - 1) *
                                               double(TotalRuns - RunsStarted + 1)
                                         : 0;
        O.OnProgress(Progress);
      };
    // The builds are the compile time, the runs the run time.
    auto Built = RunStart;
    Req.OnBuilt = [&] { Built = std::chrono::steady_clock::now(); };
    auto Vs = measure::runProgramMode(*O.Driver, Req);
    Progress.Done = DoneBefore; // counted again below, with the results
    if (Built == RunStart) // never built: the original failed to build
      Built = std::chrono::steady_clock::now();
    R.CompileSeconds += std::chrono::duration<double>(Built - RunStart).count();
    R.RunSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Built).count();
    if (!Vs) {
      jobFailed(Vs.takeError(), PlannedIndex, Out);
      return Out;
    }
    double Spread = 0;
    double RefNs = programKernelNs(Vs->front(), O.Spec->Kernel, Spread);
    if (RefNs > 0) {
      RefMedians.push_back(RefNs);
      if (FirstRefNs == 0)
        FirstRefNs = RefNs;
    } else if (FirstError.empty()) {
      FirstError = "the original program did not launch " + O.Spec->Kernel;
    }
    for (size_t P = 0; P < PlannedIndex.size(); ++P) {
      size_t I = PlannedIndex[P];
      const measure::ProgramVariant &V = (*Vs)[P + 1];
      Evaluation &E = Out[I];
      double Ns = programKernelNs(V, O.Spec->Kernel, Spread);
      E.Detail = V.Detail;
      switch (V.Status) {
      case measure::ProgramStatus::Ok:
        E.Status = Ns > 0 ? CandidateStatus::Ok : CandidateStatus::LaunchFailed;
        if (Ns <= 0)
          E.Detail = "the program did not launch " + O.Spec->Kernel;
        break;
      case measure::ProgramStatus::BuildFailed:
        E.Status = CandidateStatus::CompileFailed;
        break;
      case measure::ProgramStatus::Failed:
        E.Status = llvm::any_of(V.Runs, [](const measure::ProgramRun &Run) {
                     return Run.TimedOut;
                   })
                       ? CandidateStatus::Timeout
                       : CandidateStatus::Crashed;
        break;
      case measure::ProgramStatus::OutputDiffers:
        E.Status = CandidateStatus::Wrong;
        break;
      }
      E.Ok = E.Status == CandidateStatus::Ok && RefNs > 0;
      E.Cost = E.Ok ? Ns * FirstRefNs / RefNs : 0;
      const ConfigResult &CR = record(Batch[I], E, Ns, Spread);
      if (O.OnProgress) {
        Progress.Last = Space.key(Batch[I]) + ": " + statusName(E.Status) +
                        (E.Ok ? llvm::formatv(" {0:F2} us", Ns / 1000).str() : "");
        if (CR.Status == CandidateStatus::Ok)
          counted(CR.Key, CR.CostNs);
        else
          counted();
      }
    }
    return Out;
  }

  /// A whole job failed: each of its configurations is MeasurementFailed
  /// with the reason, and the run remembers the first.
  void jobFailed(llvm::Error E, llvm::ArrayRef<size_t> Planned, std::vector<Evaluation> &Out) {
    std::string Why = llvm::toString(std::move(E));
    // A job that failed because the run was interrupted (nvcc killed by the
    // Ctrl-C, compile tasks cancelled) measured nothing: nothing failed.
    if (O.Interrupted && *O.Interrupted) {
      for (size_t I : Planned)
        Out[I].Status = CandidateStatus::Interrupted;
      return;
    }
    for (size_t I : Planned) {
      Out[I].Status = CandidateStatus::MeasurementFailed;
      Out[I].Detail = Why;
    }
    if (FirstError.empty())
      FirstError = Why;
  }

  /// One configuration's result is in: the progress counts it at once,
  /// with Key as the best so far when it passed and its cost (Ns) is the
  /// lowest, and says so.
  void counted(const std::string &Key = "", double Ns = 0) {
    ++Progress.Done;
    if (!Key.empty() && (!Progress.BestNs || Ns < *Progress.BestNs)) {
      Progress.BestNs = Ns;
      Progress.BestKey = Key;
    }
    timeProgress();
    O.OnProgress(Progress);
  }
  /// Elapsed time and the estimate of what is left.
  void timeProgress() {
    Progress.ElapsedS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    size_t Remaining = Progress.Total - std::min(Progress.Total, Progress.Done);
    Progress.EtaS = Progress.Done ? Progress.ElapsedS / Progress.Done * Remaining : 0;
  }

  ConfigResult &record(const Config &C, const Evaluation &E, double MedianNs, double Noise) {
    ConfigResult CR;
    CR.Key = Space.key(C);
    CR.Values = Space.values(C);
    CR.Status = E.Status;
    CR.CostNs = E.Cost;
    CR.MedianNs = MedianNs;
    CR.Noise = Noise;
    CR.Detail = E.Detail;
    CR.Target = O.GpuTarget->Name;
    CR.Gpu = O.GpuName;
    Fresh.push_back(std::move(CR));
    return Fresh.back();
  }

  ValueMap defaults() const {
    ValueMap V;
    for (const measure::Tunable &T : O.Spec->Tunables)
      V[T.Name] = T.defaultValue();
    return V;
  }

  TuneProgress Progress;
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  std::vector<ConfigResult> Fresh; ///< measured in this run, in order
  std::vector<double> RefMedians;
  double FirstRefNs = 0;
  std::string FirstError;

private:
  const TuneOptions &O;
  const SearchSpace &Space;
  TuneResult &R;
  size_t Next = 0;
  unsigned Batches = 0;
};

/// Occupancy of a configuration on Target, from its measured resources.
double predictedOccupancy(const LaunchSpec &Spec, const ConfigResult &C,
                          const arch::TargetInfo &T) {
  auto G = Spec.geometry(ValueMap(C.Values.begin(), C.Values.end()));
  if (!G) {
    llvm::consumeError(G.takeError());
    return 0;
  }
  arch::KernelResources K;
  K.ThreadsPerBlock = int(G->Block[0] * G->Block[1] * G->Block[2]);
  K.RegistersPerThread = int(C.Registers);
  K.StaticSharedBytes = int(C.StaticShared);
  K.DynamicSharedBytes = int(G->SharedMemBytes);
  auto O = arch::computeOccupancy(T, K);
  if (!O) {
    llvm::consumeError(O.takeError());
    return 0;
  }
  return O->Occupancy;
}

} // namespace

/// Replay mode (TuneOptions::ReplayPath).
static llvm::Expected<TuneResult>
replayTuning(const TuneOptions &O, const SearchSpace &Space, Strategy &Strat,
             const DbKey &Key, TuneResult R, const ValueMap &Defaults) {
  auto Db = TuningDatabase::load(O.ReplayPath);
  if (!Db)
    return Db.takeError();
  const DbRecord *Rec = nullptr;
  for (const DbRecord &X : Db->records())
    if (X.Key.Kernel == Key.Kernel && X.Key.SourceHash == Key.SourceHash &&
        X.Key.Sizes == Key.Sizes && X.Key.Target == O.Targets.front()->Name)
      Rec = &X;
  if (!Rec)
    return makeError("{0} has no measurements of {1} for {2} with this source "
                     "and sizes ({3})",
                     O.ReplayPath, Key.Kernel, O.Targets.front()->Name, Key.Sizes);
  std::map<std::string, Evaluation> Cache;
  std::map<std::string, const DbMeasurement *> ByKey;
  for (const DbMeasurement &X : Rec->Measurements) {
    Evaluation E;
    E.Ok = X.Status == CandidateStatus::Ok;
    E.Cost = X.CostNs;
    E.Status = X.Status;
    E.Detail = X.Detail;
    Cache[X.Config] = E;
    ByKey[X.Config] = &X;
    if (E.Ok && (R.OptimumNs == 0 || E.Cost < R.OptimumNs))
      R.OptimumNs = E.Cost;
  }
  Evaluator Run(Space, replayMeasure(Space, Cache), O.Limit);
  Strat.run(Run, O.Seed);
  for (const auto &[C, E] : Run.history()) {
    ConfigResult CR;
    CR.Key = Space.key(C);
    CR.Values = Space.values(C);
    CR.Status = E.Status;
    CR.CostNs = E.Cost;
    CR.Detail = E.Detail;
    CR.Target = Rec->Key.Target;
    CR.Gpu = Rec->Key.Gpu;
    if (auto It = ByKey.find(CR.Key); It != ByKey.end())
      CR.MedianNs = It->second->MedianNs;
    R.Configs.push_back(CR);
  }
  R.Replayed = true;
  R.Measured = Run.evaluations();
  TargetResult TR;
  TR.Target = O.Targets.front();
  TR.Measured = true;
  TR.Gpu = Rec->Key.Gpu;
  if (auto B = Run.best()) {
    TR.Best = Space.values(*B);
    TR.BestKey = Space.key(*B);
    TR.BestNs = Run.bestCost();
  } else {
    TR.Best = {Defaults.begin(), Defaults.end()};
    TR.BestKey = R.DefaultKey;
  }
  TR.Basis = "replayed from " + O.ReplayPath + " (measured on " + TR.Gpu + ")";
  R.Targets.push_back(TR);
  return R;
}

bool forge::tune::namesKernel(llvm::StringRef Demangled, llvm::StringRef Kernel) {
  // Drops the bracketed group that ends Name: "(...)" or "<...>", nested
  // ones included.
  auto DropTrailing = [](llvm::StringRef &Name, char Open, char Close) {
    Name = Name.rtrim();
    if (!Name.ends_with(llvm::StringRef(&Close, 1)))
      return;
    int Depth = 0;
    for (size_t I = Name.size(); I-- > 0;) {
      Depth += Name[I] == Close ? 1 : Name[I] == Open ? -1 : 0;
      if (Depth == 0) {
        Name = Name.take_front(I).rtrim();
        return;
      }
    }
  };
  llvm::StringRef Name = Demangled;
  DropTrailing(Name, '(', ')'); // the parameters
  DropTrailing(Name, '<', '>'); // the template arguments
  // The return type: what precedes the last space outside brackets
  // ("(anonymous namespace)" has one inside).
  int Depth = 0;
  for (size_t I = Name.size(); I-- > 0;) {
    Depth += Name[I] == ')' || Name[I] == '>' ? 1 : Name[I] == '(' || Name[I] == '<' ? -1 : 0;
    if (Depth == 0 && Name[I] == ' ') {
      Name = Name.drop_front(I + 1);
      break;
    }
  }
  Kernel.consume_front("::");
  return Name == Kernel || Name.ends_with(("::" + Kernel).str());
}

static ConfigResult resultFromDatabase(const DbMeasurement &X, const DbKey &K) {
  ConfigResult CR;
  CR.Key = X.Config;
  CR.Values = X.Values;
  CR.Status = X.Status;
  CR.CostNs = X.CostNs;
  CR.MedianNs = X.MedianNs;
  CR.Noise = X.Noise;
  CR.Detail = X.Detail;
  CR.FromDatabase = true;
  CR.Target = K.Target;
  CR.Gpu = K.Gpu;
  return CR;
}

/// The source changed since the database was written: for each target
/// and GPU, the newest record of the same kernel and sizes (by the date of
/// its latest measurement) stands in, and R says it is stale.
static void useStaleRecords(const TuningDatabase &Db, const DbKey &Key, TuneResult &R) {
  auto Latest = [](const DbRecord &Rec) {
    std::string W;
    for (const DbMeasurement &X : Rec.Measurements)
      W = std::max(W, X.When);
    return W;
  };
  std::map<std::pair<std::string, std::string>, const DbRecord *> Newest;
  for (const DbRecord &Rec : Db.records()) {
    if (Rec.Key.Kernel != Key.Kernel || Rec.Key.Sizes != Key.Sizes || !Rec.Best)
      continue;
    const DbRecord *&Slot = Newest[{Rec.Key.Target, Rec.Key.Gpu}];
    if (!Slot || Latest(Rec) > Latest(*Slot))
      Slot = &Rec;
  }
  std::string When;
  for (const auto &[Where, Rec] : Newest) {
    When = std::max(When, Latest(*Rec));
    for (const DbMeasurement &X : Rec->Measurements) {
      R.Configs.push_back(resultFromDatabase(X, Rec->Key));
      ++R.Reused;
    }
  }
  if (Newest.empty())
    return;
  R.Stale = true;
  R.StaleNote = "the tuning database has no entry for this version of " + Key.Kernel +
                "'s source (it changed since it was tuned" +
                (When.empty() ? std::string() : ", last on " + When) +
                "): its last tuned values are used; retune to refresh them";
}

llvm::Expected<DbKey> forge::tune::databaseKey(const TuneOptions &O) {
  auto Ident =
      sourceIdentity(O.IdentitySource.empty() ? O.Source : O.IdentitySource, O.IdentityFiles);
  if (!Ident)
    return Ident.takeError();
  return DbKey{O.Spec->Kernel, *Ident, O.GpuTarget ? O.GpuTarget->Name : "", O.GpuName,
               sizeBucket(O.Spec->Sizes), O.Toolkit};
}

llvm::Expected<TuneResult> forge::tune::runTuning(const TuneOptions &O) {
  using Clock = std::chrono::steady_clock;
  auto Start = Clock::now();
  TuneResult R;
  R.Strategy = O.Strategy;
  R.Seed = O.Seed;
  auto Space = buildSearchSpace(*O.Spec, O.Targets);
  if (!Space)
    return Space.takeError();
  R.Space = Space->parameters();
  R.SpaceSize = Space->cartesianSize();
  R.ValidConfigs = Space->enumerateValid().size();
  if (R.ValidConfigs == 0)
    return makeError("no configuration of the spec's tunables satisfies the "
                     "constraints and the limits of {0}",
                     targetNames(O.Targets));
  auto Strat = createStrategy(O.Strategy);
  if (!Strat)
    return Strat.takeError();

  Measurer M(O, *Space, R);
  ValueMap Defaults = M.defaults();
  Config DefaultConfig;
  if (Space->fromValues({Defaults.begin(), Defaults.end()}, DefaultConfig))
    R.DefaultKey = Space->key(DefaultConfig);

  // The database: earlier measurements of the same key are reused.
  TuningDatabase Db;
  DbKey Key;
  if (!O.DbPath.empty()) {
    auto L = TuningDatabase::load(O.DbPath);
    if (!L)
      return L.takeError();
    Db = std::move(*L);
  }
  auto K = databaseKey(O);
  if (!K)
    return K.takeError();
  Key = std::move(*K);

  if (!O.ReplayPath.empty())
    return replayTuning(O, *Space, **Strat, Key, std::move(R), Defaults);

  bool HaveGpu = O.GpuTarget && O.Driver && !O.WorkerPath.empty();
  if (HaveGpu && O.Mode == Retune::Auto)
    if (const DbRecord *Rec = Db.find(Key); Rec && Rec->Complete && Rec->Best) {
      HaveGpu = false; // the database's values, as without a GPU
      R.FromDatabaseOnly = true;
    }
  if (HaveGpu && O.Mode == Retune::Always)
    Db.record(Key) = DbRecord{Key, {}, std::nullopt, O.Strategy, false};
  if (const DbRecord *Rec = HaveGpu && O.Mode != Retune::Always ? Db.find(Key) : nullptr)
    for (const DbMeasurement &X : Rec->Measurements) {
      Config C;
      if (Space->fromKey(X.Config, C)) {
        R.Configs.push_back(resultFromDatabase(X, Rec->Key));
        ++R.Reused;
      }
    }

  auto SaveDb = [&](bool Final) -> llvm::Error {
    if (O.DbPath.empty() || !HaveGpu)
      return llvm::Error::success();
    DbRecord &Rec = Db.record(Key);
    Rec.Strategy = O.Strategy;
    Rec.Complete = Final && !(O.Interrupted && *O.Interrupted);
    for (const ConfigResult &C : M.Fresh) {
      // Not kept: what was not measured (a failed or interrupted job, a
      // cluster task lost after its retries) is measured again next time.
      if (C.Status == CandidateStatus::MeasurementFailed ||
          C.Status == CandidateStatus::Interrupted || C.Status == CandidateStatus::Lost)
        continue;
      Rec.put({C.Key, C.Values, C.Status, C.CostNs, C.MedianNs, C.Noise,
               C.Detail, todayUtc()});
    }
    std::optional<std::string> BestKey;
    double BestCost = 0;
    for (const DbMeasurement &X : Rec.Measurements)
      if (X.Status == CandidateStatus::Ok &&
          (!BestKey || X.CostNs < BestCost)) {
        BestKey = X.Config;
        BestCost = X.CostNs;
      }
    Rec.Best = BestKey;
    // Only this key's record is written: a parallel run may have added
    // others since the database was read.
    return TuningDatabase::update(O.DbPath, [&](TuningDatabase &OnDisk) {
      OnDisk.record(Key) = Rec;
    });
  };

  if (HaveGpu) {
    size_t Left = R.ValidConfigs - std::min(R.ValidConfigs, R.Reused);
    M.Progress.Total =
        O.Limit.MaxEvaluations ? std::min(O.Limit.MaxEvaluations, Left) : Left;
    if (M.Progress.Total && O.OnMeasureStart)
      if (llvm::Error E = O.OnMeasureStart())
        return std::move(E);
    // Every batch is saved to the database as soon as it is measured, so an
    // interrupted run loses nothing and the next one continues from there.
    M.AfterChunk = [&](size_t) {
      if (M.Aborted)
        return;
      if (auto Err = SaveDb(/*Final=*/false))
        llvm::consumeError(std::move(Err));
      // The recorded costs replace the live medians the results showed.
      M.Progress.BestNs.reset();
      for (const ConfigResult &C : M.Fresh)
        if (C.Status == CandidateStatus::Ok &&
            (!M.Progress.BestNs || C.CostNs < *M.Progress.BestNs)) {
          M.Progress.BestNs = C.CostNs;
          M.Progress.BestKey = C.Key;
        }
      M.timeProgress();
      if (O.OnProgress)
        O.OnProgress(M.Progress);
    };
    Evaluator Run(*Space, [&](const std::vector<Config> &Batch) {
      return M.measure(Batch);
    }, O.Limit);
    for (const ConfigResult &C : R.Configs) {
      Config Cf;
      if (Space->fromKey(C.Key, Cf)) {
        Evaluation Ev;
        Ev.Ok = C.Status == CandidateStatus::Ok;
        Ev.Cost = C.CostNs;
        Ev.Status = C.Status;
        Run.preload(Cf, Ev);
      }
    }
    (*Strat)->run(Run, O.Seed);
    if (M.Aborted)
      return makeError("{0}", *M.Aborted);
    if (!M.FirstError.empty() && M.Fresh.empty() && R.Reused == 0)
      return makeError("measuring failed: {0}", M.FirstError);
    if (auto Err = SaveDb(/*Final=*/true))
      return std::move(Err);
    R.Interrupted = O.Interrupted && *O.Interrupted;
    R.OriginalCostNs = M.FirstRefNs;
    for (const ConfigResult &C : M.Fresh)
      if (C.Status != CandidateStatus::MeasurementFailed &&
          C.Status != CandidateStatus::Interrupted) {
        R.Configs.push_back(C);
        R.Measured += C.Status != CandidateStatus::Lost;
      }
  } else if (!O.DbPath.empty()) {
    // No GPU: what an earlier run measured for this kernel (on any GPU) is
    // the best knowledge there is; each target takes its own record.
    for (const DbRecord &Rec : Db.records())
      if (Rec.Key.Kernel == Key.Kernel &&
          Rec.Key.SourceHash == Key.SourceHash && Rec.Key.Sizes == Key.Sizes)
        for (const DbMeasurement &X : Rec.Measurements) {
          R.Configs.push_back(resultFromDatabase(X, Rec.Key));
          ++R.Reused;
        }
    if (R.Configs.empty())
      useStaleRecords(Db, Key, R);
  }
  R.WallSeconds = std::chrono::duration<double>(Clock::now() - Start).count();
  if (R.Measured && R.WallSeconds > 0)
    R.ConfigsPerMinute = R.Measured / (R.WallSeconds / 60);

  // The measured pool: this run's and the database's configurations, by
  // the target and GPU they were measured on.
  struct Pool {
    std::string Target, Gpu;
    std::vector<const ConfigResult *> Ok; ///< fastest first
  };
  std::vector<Pool> Pools;
  for (const ConfigResult &C : R.Configs) {
    if (C.Status != CandidateStatus::Ok)
      continue;
    const std::string &Target = C.Target, &Gpu = C.Gpu;
    auto It = llvm::find_if(Pools, [&](const Pool &P) {
      return P.Target == Target && P.Gpu == Gpu;
    });
    if (It == Pools.end()) {
      Pools.push_back({Target, Gpu, {}});
      It = std::prev(Pools.end());
    }
    It->Ok.push_back(&C);
  }
  for (Pool &P : Pools)
    std::stable_sort(P.Ok.begin(), P.Ok.end(),
                     [](const ConfigResult *A, const ConfigResult *B) {
                       return A->CostNs < B->CostNs;
                     });

  for (const arch::TargetInfo *Info : O.Targets) {
    TargetResult TR;
    TR.Target = Info;
    const Pool *Own = nullptr;
    for (const Pool &P : Pools)
      if (P.Target == Info->Name)
        Own = &P;
    if (Own) {
      const ConfigResult *B = Own->Ok.front();
      TR.Measured = true;
      TR.Gpu = Own->Gpu;
      TR.Best = B->Values;
      TR.BestKey = B->Key;
      TR.BestNs = B->CostNs;
      TR.Basis = "measured on " + Own->Gpu +
                 (HaveGpu ? "" : " (from the tuning database)");
      // The original, measured in every batch, beat every configuration
      // measured (a sample that did not hold its values): keep it.
      if (HaveGpu && Info == O.GpuTarget && R.OriginalCostNs > 0 &&
          B->CostNs > R.OriginalCostNs && B->Key != R.DefaultKey) {
        TR.Best = {Defaults.begin(), Defaults.end()};
        TR.BestKey = R.DefaultKey;
        TR.BestNs = R.OriginalCostNs;
        TR.Basis = llvm::formatv("kept the original values: measured on {0}, the fastest "
                           "configuration ({1}) took {2:F3}x their time",
                           Own->Gpu, B->Key, B->CostNs / R.OriginalCostNs)
                       .str();
      }
    } else if (!Pools.empty()) {
      // Predicted: the fastest configuration measured on another target
      // that is valid on this one and keeps at least the occupancy it had
      // where it was measured.
      const Pool &From = Pools.front();
      auto Local = arch::lookupTarget(From.Target);
      const ConfigResult *Pick = nullptr;
      for (const ConfigResult *C : From.Ok) {
        double There = predictedOccupancy(*O.Spec, *C, *Info);
        double Here = Local ? predictedOccupancy(*O.Spec, *C, *Local) : 0;
        Config Cf;
        bool ValidThere = Space->fromKey(C->Key, Cf) && Space->valid(Cf);
        if (ValidThere && There > 0 && There + 1e-9 >= Here) {
          Pick = C;
          TR.PredictedOccupancy = There;
          break;
        }
      }
      if (!Local)
        llvm::consumeError(Local.takeError());
      if (!Pick)
        Pick = From.Ok.front();
      TR.Best = Pick->Values;
      TR.BestKey = Pick->Key;
      TR.Basis = "predicted: the fastest configuration measured on " +
                 From.Gpu + " (" + From.Target +
                 ") that keeps its predicted occupancy on " + Info->Name;
    } else {
      TR.Best = {Defaults.begin(), Defaults.end()};
      TR.BestKey = R.DefaultKey;
      TR.Basis = HaveGpu ? "kept the original values: no configuration "
                           "passed the checks"
                         : "kept the original values: no GPU to measure on "
                           "and no measurements in the tuning database";
    }
    R.Targets.push_back(TR);
  }

  return R;
}

llvm::Error forge::tune::verifyTuned(const TuneOptions &O, TuneResult &R,
                                     llvm::StringRef TunedSource) {
  bool HaveGpu = O.GpuTarget && O.Driver && !O.WorkerPath.empty();
  if (!HaveGpu || R.Interrupted || R.Replayed || R.FromDatabaseOnly)
    return llvm::Error::success();
  ValueMap Defaults;
  for (const measure::Tunable &T : O.Spec->Tunables)
    Defaults[T.Name] = T.defaultValue();
  for (TargetResult &TR : R.Targets) {
    if (!TR.Measured || TR.Target != O.GpuTarget)
      continue;
    if (!O.Program.Command.empty()) {
      // Program mode: the program built from the tuned source against the
      // original, as every configuration was.
      measure::ProgramRequest Req;
      Req.Sources = {O.Source, TunedSource.str()};
      Req.Command = O.Program.Command;
      Req.Runs = std::max(O.Program.Runs, 5u);
      Req.Target = O.GpuTarget;
      Req.NvccFlags = O.NvccFlags;
      Req.InjectLibrary = O.Program.InjectLibrary;
      Req.JobDir = O.JobRoot + "/final";
      Req.TimeoutSeconds = O.Program.TimeoutSeconds;
      Req.IgnoreLines = O.Program.IgnoreLines;
      Req.CheckCommand = O.Program.CheckCommand;
      auto Vs = measure::runProgramMode(*O.Driver, Req);
      if (!Vs)
        return Vs.takeError();
      const measure::ProgramVariant &Tuned = (*Vs)[1];
      double RefSpread = 0, Spread = 0;
      TR.BaselineNs = programKernelNs((*Vs)[0], O.Spec->Kernel, RefSpread);
      TR.BestNs = programKernelNs(Tuned, O.Spec->Kernel, Spread);
      if (Tuned.Status != measure::ProgramStatus::Ok || TR.BestNs <= 0)
        return makeError("the program built from the tuned source at {0} failed its check "
                         "against the original: {1} {2}; nothing was written",
                         TR.BestKey, measure::statusName(Tuned.Status), Tuned.Detail);
      TR.Speedup = TR.BaselineNs / TR.BestNs;
      TR.Noise = std::max(RefSpread, Spread);
      continue;
    }
    // The tuned source at its values against the original at its own: the
    // correctness check of what is written, and the speed-up with noise in
    // one interleaved measurement.
    measure::MeasureRequest Req;
    Req.Spec = O.Spec;
    Req.Reference = {"ref", O.Source, Defaults, "original " + R.DefaultKey};
    Req.Candidates = {{"tuned", TunedSource.str(),
                       ValueMap(TR.Best.begin(), TR.Best.end()),
                       "tuned " + TR.BestKey}};
    Req.Target = O.GpuTarget;
    Req.NvccFlags = O.NvccFlags;
    {
      // The tuned copy lives in the job directory: the original's
      // directory for its local headers.
      llvm::SmallString<256> Dir(O.Source);
      llvm::sys::fs::make_absolute(Dir);
      llvm::sys::path::remove_filename(Dir);
      Req.NvccFlags.push_back(("-I" + Dir).str());
    }
    Req.Job = O.Job;
    Req.Job.Rounds = std::max(O.Job.Rounds, 7u);
    Req.JobDir = O.JobRoot + "/final";
    Req.WorkerPath = O.WorkerPath;
    Req.Exec = O.Exec;
    Req.Interrupted = O.Interrupted;
    auto Rep = measure::runMeasurement(*O.Driver, Req);
    if (!Rep)
      return Rep.takeError();
    const measure::CandidateResult &Ref = Rep->Outcomes[0].Result;
    const measure::CandidateResult &Tuned = Rep->Outcomes[1].Result;
    if (!Tuned.ok())
      return makeError("the tuned source at {0} failed its check against the "
                       "original: {1} {2}; nothing was written",
                       TR.BestKey, statusName(Tuned.Status), Tuned.Error);
    TR.BaselineNs = Ref.Time ? Ref.Time->Median : 0;
    TR.BestNs = Tuned.Time ? Tuned.Time->Median : 0;
    TR.Speedup = Tuned.Speedup.value_or(0);
    TR.Noise = Tuned.Noise.value_or(0);
  }
  return llvm::Error::success();
}

/// The spec tunables the harness cannot set: named in none of the template
/// arguments, the geometry, the scalars or the buffer counts.
std::vector<std::string> forge::tune::sourceOnlyTunables(const measure::LaunchSpec &Spec) {
  std::set<std::string> Used;
  auto AddExpr = [&](const measure::IntExpr &E) {
    for (const std::string &Id : E.identifiers())
      Used.insert(Id);
  };
  for (const std::string &A : Spec.TemplateArgs) {
    llvm::StringRef T = A;
    while (!T.empty()) {
      if (llvm::isAlpha(T.front()) || T.front() == '_') {
        size_t N = 1;
        while (N < T.size() && (llvm::isAlnum(T[N]) || T[N] == '_'))
          ++N;
        Used.insert(T.take_front(N).str());
        T = T.drop_front(N);
      } else {
        T = T.drop_front();
      }
    }
  }
  for (const measure::IntExpr &E : Spec.Grid)
    AddExpr(E);
  for (const measure::IntExpr &E : Spec.Block)
    AddExpr(E);
  AddExpr(Spec.SharedMem);
  for (const measure::Scalar &Sc : Spec.Scalars)
    if (auto *E = std::get_if<measure::IntExpr>(&Sc.Value))
      AddExpr(*E);
  for (const measure::Buffer &B : Spec.Buffers)
    AddExpr(B.Count);
  std::vector<std::string> Out;
  for (const measure::Tunable &T : Spec.Tunables)
    if (!Used.count(T.Name))
      Out.push_back(T.Name);
  return Out;
}

