//===- Tune/TuneSession.cpp - The tune driver -----------------------------===//
#include "forge/Tune/TuneSession.h"
#include "forge/Tune/ProgressMerge.h"
#include "forge/Build/CompileCache.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Patch/PatchSet.h"
#include "forge/Support/Date.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Hash.h"
#include "forge/Tune/WriteBack.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <array>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

using namespace llvm;

namespace forge::tune {

Expected<Budget> parseBudget(StringRef S) {
  Budget B;
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

namespace {
std::string targetNames(const TuneResult &R) {
  std::vector<std::string> Names;
  for (const TargetResult &T : R.Targets)
    Names.push_back(T.Target->Name);
  return join(Names, ", ");
}

/// The directory of File, absolute, for -I.
std::string directoryOf(StringRef File) {
  SmallString<256> Dir(File);
  sys::fs::make_absolute(Dir);
  sys::path::remove_filename(Dir);
  return Dir.str().str();
}

/// What the write-back binds with: the spec's hints, --launch, and the
/// directories of system and toolkit headers (a value defined there is
/// not written).
BindOptions sessionBindOptions(const TuneSessionOptions &O) {
  BindOptions BO = bindOptionsFor(*O.Sweep.Spec);
  BO.LaunchFile = O.LaunchFile;
  BO.LaunchLine = O.LaunchLine;
  for (size_t I = 0; I < O.ExtraArgs.size(); ++I) {
    StringRef A = O.ExtraArgs[I];
    if (A == "-isystem" && I + 1 < O.ExtraArgs.size())
      BO.SystemDirs.push_back(O.ExtraArgs[++I]);
    else if (A.consume_front("-isystem") && !A.empty())
      BO.SystemDirs.push_back(A.str());
  }
  if (O.Toolchain && O.Toolchain->hasCuda())
    BO.SystemDirs.push_back(O.Toolchain->CudaPath + "/include");
  return BO;
}
} // namespace

BindOptions bindOptionsFor(const measure::LaunchSpec &Spec) {
  BindOptions B;
  auto Is = [&](StringRef Text) -> std::string {
    Text = Text.trim();
    return Spec.findTunable(Text) ? Text.str() : std::string();
  };
  for (size_t I = 0; I < Spec.TemplateArgs.size(); ++I)
    if (std::string N = Is(Spec.TemplateArgs[I]); !N.empty())
      B.TemplateArgs[N].push_back(unsigned(I));
  for (size_t D = 0; D < Spec.Grid.size() && D < 3; ++D)
    if (std::string N = Is(Spec.Grid[D].text()); !N.empty())
      B.GridDims[N].push_back(unsigned(D));
  for (size_t D = 0; D < Spec.Grid.size() && D < 3; ++D)
    for (const std::string &Id : Spec.Grid[D].identifiers())
      if (Spec.findTunable(Id) && !is_contained(B.GridFactors[unsigned(D)], Id))
        B.GridFactors[unsigned(D)].push_back(Id);
  for (size_t D = 0; D < Spec.Block.size() && D < 3; ++D)
    if (std::string N = Is(Spec.Block[D].text()); !N.empty())
      B.BlockDims[N].push_back(unsigned(D));
  if (std::string N = Is(Spec.SharedMem.text()); !N.empty())
    B.SharedMem.push_back(N);
  for (const measure::Tunable &T : Spec.Tunables)
    B.Defaults[T.Name] = T.defaultValue();
  return B;
}

TuneSession::TuneSession(TuneSessionOptions O) : O(std::move(O)) {}
TuneSession::~TuneSession() = default;

Expected<frontend::FileIndex> TuneSession::index(StringRef Path, const arch::TargetInfo &Target,
                                                 ArrayRef<std::string> Args) const {
  auto PO = frontend::makeParseOptions(Path, "", &Target, Args);
  if (!PO)
    return PO.takeError();
  frontend::ParseDiagnostics Diags(nullptr);
  // What the tuner reads of the file (the launch sites, the constants and
  // template arguments they name) is host code: one parse, not two. On the
  // H200 each parse of a CUB-heavy file was on the critical path of a cold
  // tune (docs/bench/tune-speed.md).
  return frontend::buildHostIndex(*O.Toolchain, *PO, Path, Diags);
}

Error TuneSession::prepare() {
  if (Prepared)
    return Error::success();
  TuneOptions &S = O.Sweep;
  if (!S.Spec || S.Targets.empty() || !O.Toolchain)
    return makeError("TuneSession: the spec, the targets and the toolchain are required");
  if (Error E = frontend::checkCudaInput(S.Source))
    return E;
  if (auto Strat = createStrategy(S.Strategy); !Strat)
    return Strat.takeError();
  if (!S.Driver) {
    auto N = build::findNvcc(O.CudaPath, O.CompileRunner);
    if (!N)
      return N.takeError();
    Tools = std::move(*N);
    S.Driver = Tools->Driver.get();
  }
  if (S.Toolkit.empty())
    S.Toolkit = S.Driver->toolkit().Version;
  if (S.NvccFlags.empty())
    S.NvccFlags = frontend::nvccFlagsFromClangArgs(O.ExtraArgs);
  auto Root = Scratch.make(S.JobRoot, "forge-tune", O.ScratchParent);
  if (!Root)
    return Root.takeError();
  S.JobRoot = *Root;
  // Tunables the harness cannot set get a copy of the source per
  // configuration, with its values written in; in program mode, every
  // tunable does (the user's program is what runs).
  bool Program = !S.Program.Command.empty();
  std::vector<std::string> SourceOnly = sourceOnlyTunables(*S.Spec);
  if (Program) {
    SourceOnly.clear();
    for (const measure::Tunable &T : S.Spec->Tunables)
      SourceOnly.push_back(T.Name);
    if (SourceOnly.empty())
      return makeError("program mode: the spec of {0} has no tunables", S.Spec->Kernel);
    if (S.GpuTarget && S.Program.InjectLibrary.empty()) {
      auto Inject = measure::findInjectLibrary(S.WorkerPath);
      if (!Inject)
        return Inject.takeError();
      S.Program.InjectLibrary = *Inject;
    }
  }
  if (!SourceOnly.empty() && S.GpuTarget && S.ReplayPath.empty()) {
    auto Index = index(S.Source, *S.GpuTarget, O.ExtraArgs);
    if (!Index)
      return Index.takeError();
    auto Original = readFile(S.Source);
    if (!Original)
      return Original.takeError();
    auto SF = sourceVariants(std::move(*Index), S.Spec->Kernel, SourceOnly,
                             std::move(*Original), S.JobRoot + "/variants");
    if (!SF)
      return SF.takeError();
    S.SourceFor = std::move(*SF);
    S.NvccFlags.push_back("-I" + directoryOf(S.Source));
    if (O.OnNote)
      O.OnNote(Program ? "program mode: each configuration's " + join(SourceOnly, ", ") +
                             " are written into a copy of the source, built into the program "
                             "and run"
                       : join(SourceOnly, ", ") +
                             " change(s) the source, not the launch: each configuration is "
                             "compiled from its own copy",
               false);
  }
  Prepared = true;
  return Error::success();
}

TuneOptions TuneSession::sweepOn(const TuneSessionOptions::ClusterGpu &G) const {
  TuneOptions S = O.Sweep;
  S.Targets = {G.Target};
  S.GpuTarget = G.Target;
  S.GpuName = G.GpuName;
  S.Exec = G.Exec;
  S.JobRoot = O.Sweep.JobRoot + "/" + G.Target->Name;
  return S;
}

/// Every target swept on its own GPU at once; one result, as a run with
/// all of them would give.
Expected<TuneResult> TuneSession::tuneOnCluster() {
  const TuneOptions &S = O.Sweep;
  for (const arch::TargetInfo *T : S.Targets)
    if (none_of(O.Cluster, [&](const TuneSessionOptions::ClusterGpu &G) { return G.Target == T; }))
      return makeUsageError("--to {0}: no partition measures it; add {0}=PARTITION to "
                            "--partition",
                            T->Name);
  size_t N = O.Cluster.size();
  std::vector<std::optional<Expected<TuneResult>>> Results(N);
  std::vector<std::string> Names;
  for (const TuneSessionOptions::ClusterGpu &G : O.Cluster)
    Names.push_back(G.Target->Name);
  ProgressMerge Progress(std::move(Names), S.OnProgress);
  auto Start = std::chrono::steady_clock::now();
  std::vector<std::thread> Threads;
  for (size_t I = 0; I < N; ++I)
    Threads.emplace_back([&, I] {
      TuneOptions One = sweepOn(O.Cluster[I]);
      if (S.OnProgress)
        One.OnProgress = Progress.sweep(I);
      Results[I].emplace(runTuning(One));
    });
  for (std::thread &T : Threads)
    T.join();
  std::optional<TuneResult> Merged;
  for (size_t I = 0; I < N; ++I) {
    Expected<TuneResult> &R = *Results[I];
    if (!R)
      return makeError("{0} ({1}): {2}", O.Cluster[I].Target->Name, O.Cluster[I].GpuName,
                       toString(R.takeError()));
    // A run that took its values from the database read every GPU's
    // records of the kernel; each target keeps its own.
    StringRef Own = O.Cluster[I].Target->Name;
    llvm::erase_if(R->Configs, [&](const ConfigResult &C) {
      return !C.Target.empty() && C.Target != Own;
    });
    if (R->FromDatabaseOnly)
      R->Reused = R->Configs.size();
    if (!Merged) {
      Merged = std::move(*R);
      continue;
    }
    Merged->Configs.insert(Merged->Configs.end(), R->Configs.begin(), R->Configs.end());
    Merged->Targets.insert(Merged->Targets.end(), R->Targets.begin(), R->Targets.end());
    Merged->ValidConfigs = std::max(Merged->ValidConfigs, R->ValidConfigs);
    Merged->Measured += R->Measured;
    Merged->Reused += R->Reused;
    Merged->CompileSeconds += R->CompileSeconds;
    Merged->RunSeconds += R->RunSeconds;
    Merged->Interrupted |= R->Interrupted;
    Merged->FromDatabaseOnly &= R->FromDatabaseOnly;
  }
  // Targets in the order of --to.
  std::vector<TargetResult> Ordered;
  for (const arch::TargetInfo *T : S.Targets)
    for (const TargetResult &TR : Merged->Targets)
      if (TR.Target == T)
        Ordered.push_back(TR);
  Merged->Targets = std::move(Ordered);
  Merged->WallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  Merged->ConfigsPerMinute =
      Merged->WallSeconds > 0 ? Merged->Measured / (Merged->WallSeconds / 60) : 0;
  return std::move(*Merged);
}

Expected<TuneResult> TuneSession::tune() {
  if (Error E = prepare())
    return std::move(E);
  // A sweep that compiles leaves the write-back's parse of the source to a
  // thread beside it (a CUB-heavy file takes seconds to parse); a run that
  // measures nothing parses only if it must.
  // When the values are to be written, whether they can be is known before
  // anything runs, from the parse the write-back uses anyway: the parse and
  // the binding run on a thread beside the sweep's compiles, and the first
  // worker run waits for them (a launch that cannot be written measures
  // nothing, and the check costs no time of its own).
  O.Sweep.OnMeasureStart = [this]() -> Error {
    std::call_once(IndexStarted, [this] {
      PendingIndex = std::async(std::launch::async, [this] {
        auto Index = index(O.Sweep.Source, *O.Sweep.Targets.front(), O.ExtraArgs);
        if (O.Output.writes() && Index && !Index->Errors) {
          std::vector<std::string> Names;
          for (const measure::Tunable &T : O.Sweep.Spec->Tunables)
            Names.push_back(T.Name);
          auto Bound = bindTunables(*Index, O.Sweep.Spec->Kernel, Names, sessionBindOptions(O));
          if (!Bound)
            BindFailure = toString(Bound.takeError());
        }
        return Index;
      });
    });
    return Error::success();
  };
  O.Sweep.BeforeFirstRun = [this]() -> Error {
    if (!PendingIndex.valid())
      return Error::success();
    PendingIndex.wait();
    if (!BindFailure)
      return Error::success();
    std::call_once(BindNoted, [this] {
      if (O.OnNote)
        O.OnNote("the tuned values could not be written back, so nothing is measured (without "
                 "-o, -i or --diff the sweep runs and only reports)",
                 /*Caveat=*/false);
    });
    return makeError("{0}", *BindFailure);
  };
  if (!O.Cluster.empty()) {
    auto R = tuneOnCluster();
    if (R && O.OnNote && R->FromDatabaseOnly)
      O.OnNote("the tuning database has a complete entry for this kernel on every target's "
               "GPU: its values are used and nothing is measured (--retune=always measures "
               "again)",
               /*Caveat=*/false);
    return R;
  }
  // Runs that measure take turns on the GPU: kernels timed side by side
  // would slow each other down (a parallel build tuning several kernels).
  std::optional<FileLock> Gpu;
  if (O.Sweep.GpuTarget && O.Sweep.ReplayPath.empty()) {
    SmallString<128> LockPath;
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, LockPath);
    sys::path::append(LockPath, "forge-port-gpu.lock");
    auto L = FileLock::acquire(LockPath, [&] {
      if (O.OnNote)
        O.OnNote("waiting for another forge-port run that measures on this GPU (" +
                     LockPath.str().str() + ")",
                 /*Caveat=*/false);
    });
    if (!L)
      return L.takeError();
    Gpu.emplace(std::move(*L));
  }
  auto R = runTuning(O.Sweep);
  if (R && O.OnNote && R->FromDatabaseOnly)
    O.OnNote("the tuning database has a complete entry for this kernel on " + O.Sweep.GpuName +
                 ": its values are used and nothing is measured (--retune=always measures "
                 "again)",
             /*Caveat=*/false);
  return R;
}

/// The launches of the tuned source must launch what the spec launches for
/// the tuned values, or the program would run the tuned kernel with the old
/// geometry (the harness, which uses the spec's geometry, cannot see that).
/// Launch dimensions the index can evaluate are compared with the spec's
/// for some target's values; the others are reported as not checked.
Error TuneSession::checkLaunchGeometry(const TuneResult &R, StringRef TunedPath,
                                       const std::vector<frontend::LaunchSiteInfo> &Skipped,
                                       std::vector<std::string> &Notes) const {
  // In the program the launches are what was measured: the spec's geometry
  // is not used, so there is nothing to compare with.
  if (!O.Sweep.Program.Command.empty())
    return Error::success();
  const measure::LaunchSpec &Spec = *O.Sweep.Spec;
  std::vector<std::string> Args = O.ExtraArgs;
  Args.push_back("-I" + directoryOf(O.Sweep.Source));
  auto Index = index(TunedPath, *R.Targets.front().Target, Args);
  if (!Index)
    return Index.takeError();
  std::vector<measure::Geometry> Want;
  for (const TargetResult &T : R.Targets) {
    auto G = Spec.geometry(measure::ValueMap(T.Best.begin(), T.Best.end()));
    if (!G)
      return G.takeError();
    Want.push_back(*G);
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
    // A launch the write-back left alone (it is not the one tuned).
    auto SameText = [&](const frontend::LaunchSiteInfo &O) {
      if (O.Grid.Text != L.Grid.Text || O.Block.Text != L.Block.Text ||
          O.TemplateArgs.size() != L.TemplateArgs.size())
        return false;
      for (size_t I = 0; I < O.TemplateArgs.size(); ++I)
        if (O.TemplateArgs[I].Text != L.TemplateArgs[I].Text)
          return false;
      return true;
    };
    if (llvm::any_of(Skipped, SameText))
      continue;
    for (auto [Name, Value, IsBlock] :
         {std::tuple{"block", &L.Block, true}, std::tuple{"grid", &L.Grid, false}}) {
      auto Have = Dims(*Value);
      if (!Have) {
        ++Unchecked;
        continue;
      }
      bool Match = any_of(Want, [&](const measure::Geometry &G) {
        return (IsBlock ? G.Block : G.Grid) == *Have;
      });
      if (!Match)
        return makeError(
            "{0}:{1}: after the write-back this launch of {2} has the {3} {4} ({5}), "
            "but the spec launches {6} for the tuned values: the launch does not derive "
            "its geometry from the tuned parameters. Write it with the tunables' names "
            "(as the spec does), or tune only what it derives; nothing is written",
            O.Sweep.Source, L.Loc.Line, Spec.Kernel, Name, Text(*Have), Value->Text,
            Text(IsBlock ? Want.front().Block : Want.front().Grid));
    }
  }
  if (Unchecked)
    Notes.push_back(formatv("{0} launch dimension(s) of {1} depend on run-time values and were "
                            "not checked against the spec",
                            Unchecked, Spec.Kernel)
                        .str());
  return Error::success();
}

/// Whether the GPU check of the tuned source compiles it for T: T is the
/// target of a GPU here (or of a cluster partition) with values measured on
/// it, and the check runs (verifyTuned's conditions).
bool TuneSession::gpuCheckCompiles(const TuneResult &R, const arch::TargetInfo *T) const {
  if (R.Interrupted || R.Replayed || R.FromDatabaseOnly)
    return false;
  auto Runs = [&](const TuneOptions &S) {
    return S.GpuTarget == T && S.Driver && !S.WorkerPath.empty() &&
           any_of(R.Targets, [&](const TargetResult &TR) {
             return TR.Measured && TR.Target == T;
           });
  };
  if (O.Cluster.empty())
    return Runs(O.Sweep);
  return any_of(O.Cluster, [&](const TuneSessionOptions::ClusterGpu &G) {
    return Runs(sweepOn(G));
  });
}

Error TuneSession::compileAndVerify(TuneResult &R, StringRef TunedPath) const {
  const TuneOptions &S = O.Sweep;
  // A target the GPU check builds the tuned source for (in its harness, or
  // into the program) needs no compile of its own; the others do.
  build::CompileJob J;
  J.Source = TunedPath.str();
  for (const TargetResult &T : R.Targets)
    if (!gpuCheckCompiles(R, T.Target))
      J.Targets.push_back(*T.Target);
  if (!J.Targets.empty()) {
    J.Output = build::OutputKind::Object;
    J.IncludeDirs = {directoryOf(S.Source)};
    J.ExtraFlags = frontend::nvccFlagsFromClangArgs(O.ExtraArgs);
    auto C = S.Driver->compile(J);
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
                       targetNames(R), First.empty() ? C->Log : First);
    }
  }
  // On the GPU: the tuned source against the original, before anything is
  // written.
  if (O.Cluster.empty())
    return verifyTuned(S, R, TunedPath);
  for (const TuneSessionOptions::ClusterGpu &G : O.Cluster)
    if (Error E = verifyTuned(sweepOn(G), R, TunedPath))
      return makeError("{0} ({1}): {2}", G.Target->Name, G.GpuName, toString(std::move(E)));
  return Error::success();
}

Error TuneSession::usePriorCheck(TuneResult &R, const DbCheck &Prior) const {
  TargetResult *TR = measuredHere(R);
  if (!TR)
    return makeError("no target measured on this GPU to take the recorded check for");
  TR->BaselineNs = Prior.BaselineNs;
  TR->BestNs = Prior.BestNs;
  TR->Speedup = Prior.Speedup;
  TR->Noise = Prior.Noise;
  TR->CheckedOn = Prior.When.empty() ? "an earlier run" : Prior.When;
  if (O.OnNote)
    O.OnNote("the tuned source is the one that passed its checks on " + TR->CheckedOn +
                 " (tuning database): it is not compiled or checked again",
             false);
  return Error::success();
}

TargetResult *TuneSession::measuredHere(TuneResult &R) const {
  for (TargetResult &T : R.Targets)
    if (T.Measured && T.Target == O.Sweep.GpuTarget)
      return &T;
  return nullptr;
}

/// What decides the checks of a write-back besides the database key (the
/// source's identity, the GPU, the sizes, the toolkit): the tuned text, the
/// targets it must compile for, the flags, the whole spec (geometry,
/// buffers, tolerance) and the launch the write-back picked.
std::string TuneSession::checkIdentity(const TuneResult &R, StringRef Tuned) const {
  ContentHasher H;
  H.add("forge-tune-check-1").add(Tuned);
  for (const TargetResult &T : R.Targets)
    H.add(T.Target->Name);
  H.add("flags").addAll(O.ExtraArgs);
  H.add("program").add(O.Sweep.Program.Command).addAll(O.Sweep.Program.IgnoreLines);
  if (!O.Sweep.Program.CheckCommand.empty())
    H.add("check").add(O.Sweep.Program.CheckCommand);
  H.add(toJson(*O.Sweep.Spec).dump());
  H.add(O.LaunchFile).add(std::to_string(O.LaunchLine));
  return H.hex();
}

Expected<TuneSession::CheckPlan> TuneSession::recordedCheck(const TuneResult &R,
                                                            StringRef Tuned) const {
  const TuneOptions &S = O.Sweep;
  CheckPlan P;
  const TargetResult *Here = nullptr;
  for (const TargetResult &T : R.Targets)
    if (T.Measured && T.Target == S.GpuTarget)
      Here = &T;
  // One GPU here, a database to keep it in, and values measured on it.
  if (S.DbPath.empty() || !S.GpuTarget || !S.ReplayPath.empty() || !O.Cluster.empty() ||
      R.Interrupted || R.Replayed || !Here)
    return P;
  auto Key = databaseKey(S);
  if (!Key)
    return Key.takeError();
  P.Key = *Key;
  auto Db = TuningDatabase::load(S.DbPath);
  if (!Db)
    return Db.takeError();
  std::string Hash = checkIdentity(R, Tuned);
  if (const DbRecord *Rec = Db->find(P.Key);
      Rec && Rec->Checked && Rec->Checked->Hash == Hash && Rec->Checked->Config == Here->BestKey)
    P.Prior = *Rec->Checked;
  // A check that runs on the GPU now is recorded (verifyTuned runs one
  // unless the values came from the database alone).
  else if (S.Driver && !S.WorkerPath.empty() && !R.FromDatabaseOnly)
    P.Record = DbCheck{Hash, Here->BestKey, 0, 0, 0, 0, todayUtc()};
  return P;
}

Error TuneSession::recordCheck(const DbKey &Key, DbCheck C, TuneResult &R) const {
  const TargetResult *Here = measuredHere(R);
  if (!Here || Here->Speedup <= 0)
    return Error::success();
  C.BaselineNs = Here->BaselineNs;
  C.BestNs = Here->BestNs;
  C.Speedup = Here->Speedup;
  C.Noise = Here->Noise;
  return TuningDatabase::update(O.Sweep.DbPath, [&](TuningDatabase &Db) {
    // Only the record the sweep wrote; a record replaced since (another run
    // retuned) keeps what it has.
    for (const DbRecord &Rec : Db.records())
      if (Rec.Key == Key && Rec.Best && *Rec.Best == C.Config) {
        Db.record(Key).Checked = C;
        break;
      }
  });
}

/// The key of a write-back's result: everything the index and the edits
/// are made from. The source, the project headers it includes (through its
/// own directory and the -I of the extra arguments) and this program (its
/// path, size and time: a rebuilt forge-port writes back anew); the
/// arguments, targets, toolkit, spec, launch choice and each target's
/// values. Headers of the toolkit are covered by its version.
Expected<std::string> TuneSession::writeBackKey(const TuneResult &R) const {
  const TuneOptions &S = O.Sweep;
  ContentHasher H;
  H.add("forge-writeback-1");
  std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
  sys::fs::file_status St;
  if (Exe.empty() || sys::fs::status(Exe, St))
    return makeError("cannot find this program's file to key the write-back cache");
  H.add(Exe).add(std::to_string(St.getSize()))
      .add(std::to_string(St.getLastModificationTime().time_since_epoch().count()));
  SmallString<256> Abs(S.Source);
  sys::fs::make_absolute(Abs);
  H.add(S.Source).add(Abs);
  auto Text = readFile(S.Source);
  if (!Text)
    return Text.takeError();
  H.add(*Text);
  std::vector<std::string> Dirs = {directoryOf(S.Source)};
  for (size_t I = 0; I < O.ExtraArgs.size(); ++I) {
    StringRef A = O.ExtraArgs[I];
    if (A == "-I" && I + 1 < O.ExtraArgs.size())
      Dirs.push_back(O.ExtraArgs[I + 1]);
    else if (A.consume_front("-I"))
      Dirs.push_back(A.str());
  }
  std::vector<std::string> System;
  if (S.Driver)
    System.push_back(S.Driver->toolkit().Root);
  for (const std::string &Header : build::CompileCache::scanIncludes(S.Source, Dirs, System)) {
    auto T = readFile(Header);
    if (!T)
      return T.takeError();
    H.add(Header).add(*T);
  }
  H.add("args").addAll(O.ExtraArgs).add(S.Toolkit);
  H.add(toJson(*S.Spec).dump());
  H.add(O.LaunchFile).add(std::to_string(O.LaunchLine));
  for (const TargetResult &T : R.Targets) {
    H.add(T.Target->Name).add(T.Measured ? "measured" : "predicted").add(T.Gpu);
    for (const auto &[Name, V] : T.Best)
      H.add(Name).add(std::to_string(V));
  }
  return H.hex();
}

namespace {
std::string writeBackCachePath(StringRef Key) {
  SmallString<256> P(build::CompileCache::defaultDirectory());
  sys::path::append(P, "writeback", Key.str() + ".json");
  return P.str().str();
}
} // namespace

std::optional<TunedSource> TuneSession::cachedWriteBack(StringRef Key,
                                                        std::vector<std::string> &Notes) const {
  std::string Path = writeBackCachePath(Key);
  if (!sys::fs::exists(Path))
    return std::nullopt;
  auto Text = readFile(Path);
  if (!Text) {
    consumeError(Text.takeError());
    return std::nullopt;
  }
  auto J = parseJson(*Text, Path);
  if (!J) {
    consumeError(J.takeError());
    return std::nullopt;
  }
  if (!J->is_object() || !J->contains("contents") || !(*J)["contents"].is_string() ||
      !J->contains("diff") || !(*J)["diff"].is_string() || !J->contains("notes") ||
      !(*J)["notes"].is_array())
    return std::nullopt;
  TunedSource W;
  W.Contents = (*J)["contents"].get<std::string>();
  W.Diff = (*J)["diff"].get<std::string>();
  for (const Json &N : (*J)["notes"])
    if (N.is_string())
      Notes.push_back(N.get<std::string>());
  return W;
}

void TuneSession::storeWriteBack(StringRef Key, const TunedSource &W,
                                 ArrayRef<std::string> Notes) const {
  std::string Path = writeBackCachePath(Key);
  if (sys::fs::create_directories(sys::path::parent_path(Path)))
    return; // a cache that cannot be written is no cache
  Json J = {{"contents", W.Contents}, {"diff", W.Diff}, {"notes", Json::array()}};
  for (const std::string &N : Notes)
    J["notes"].push_back(N);
  if (Error E = writeFileAtomically(Path, J.dump(1) + "\n"))
    consumeError(std::move(E));
}

Expected<TunedSource> TuneSession::writeBack(TuneResult &R) {
  if (Error E = prepare())
    return std::move(E);
  const TuneOptions &S = O.Sweep;
  if (R.Targets.empty())
    return makeError("no target to write back");
  // The warm path: an earlier run with the same inputs wrote the same text
  // back, and the database holds that text's passed checks. Nothing is
  // parsed, compiled or run.
  std::optional<std::string> CacheKey;
  if (auto K = writeBackKey(R))
    CacheKey = *K;
  else
    consumeError(K.takeError());
  std::vector<std::string> CachedNotes;
  if (CacheKey)
    if (std::optional<TunedSource> W = cachedWriteBack(*CacheKey, CachedNotes)) {
      auto Check = recordedCheck(R, W->Contents);
      if (!Check)
        return Check.takeError();
      if (Check->Prior) {
        if (O.OnNote)
          for (const std::string &N : CachedNotes)
            O.OnNote(N, false);
        W->Path = (S.JobRoot + "/tuned-" + sys::path::filename(S.Source)).str();
        if (Error E = writeFileAtomically(W->Path, W->Contents))
          return std::move(E);
        if (Error E = usePriorCheck(R, *Check->Prior))
          return std::move(E);
        if (Error E = O.Output.write(S.Source, W->Contents, /*Changed=*/true))
          return std::move(E);
        return std::move(*W);
      }
    }
  auto Index = PendingIndex.valid() && R.Targets.front().Target == S.Targets.front()
                   ? PendingIndex.get()
                   : index(S.Source, *R.Targets.front().Target, O.ExtraArgs);
  if (!Index)
    return Index.takeError();
  if (Index->Errors)
    return makeError("{0} has {1} parse error(s); nothing is written back (see "
                     "forge-port list {0})",
                     S.Source, Index->Errors);
  std::vector<std::string> Names;
  for (const measure::Tunable &T : S.Spec->Tunables)
    Names.push_back(T.Name);
  auto Bound = bindTunables(*Index, S.Spec->Kernel, Names, sessionBindOptions(O));
  if (!Bound)
    return Bound.takeError();
  if (O.OnNote)
    for (const std::string &N : Bound->Notes)
      O.OnNote(N, false);
  std::vector<frontend::LaunchSiteInfo> Skipped;
  for (const SkippedLaunch &SL : Bound->Skipped)
    Skipped.push_back(Index->LaunchSites[SL.Launch]);
  auto *Bindings = &Bound->Bindings;
  Expected<patch::PatchSet> Edits = patch::PatchSet();
  bool Same = all_of(R.Targets, [&](const TargetResult &T) {
    return T.Best == R.Targets.front().Best;
  });
  if (Same && R.Targets.size() > 1 && O.OnNote)
    O.OnNote("every target has the same values; they are written once, without a dispatch",
             false);
  if (Same) {
    Edits = writeBackEdits(*Index, *Bindings, R.Targets.front().Best);
  } else {
    std::vector<TargetValues> Per;
    for (const TargetResult &T : R.Targets)
      Per.push_back({T.Target, T.Best, T.Measured, T.Gpu});
    Edits = dispatchEdits(*Index, S.Spec->Kernel, *Bindings, Per);
  }
  if (!Edits)
    return Edits.takeError();
  auto Original = readFile(S.Source);
  if (!Original)
    return Original.takeError();
  TunedSource W;
  auto Patched = Edits->applyTo(patch::PatchSet::normalizePath(Index->File), *Original);
  if (!Patched)
    return Patched.takeError();
  W.Contents = *Patched;
  // Project headers the edits reach (a chain of constants ending there).
  std::string CheckText = W.Contents;
  for (const std::string &File : Edits->files()) {
    if (File == patch::PatchSet::normalizePath(Index->File))
      continue;
    auto Text = readFile(File);
    if (!Text)
      return Text.takeError();
    auto H = Edits->applyTo(File, *Text);
    if (!H)
      return H.takeError();
    W.Headers.push_back({File, *H});
    CheckText += "\n// " + File + "\n" + *H;
  }
  auto D = Edits->diff(patch::diskContents());
  if (!D)
    return D.takeError();
  W.Diff = *D;
  W.Path = (S.JobRoot + "/tuned-" + sys::path::filename(S.Source)).str();
  if (Error E = writeFileAtomically(W.Path, W.Contents))
    return std::move(E);
  // The tuned headers beside the tuned copy, where its quoted includes
  // look first.
  for (const auto &[File, Text] : W.Headers) {
    SmallString<256> Abs(File);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    std::string Dir = directoryOf(S.Source) + "/";
    if (!StringRef(Abs).starts_with(Dir))
      return makeError("{0}: the write-back changes this header, which is outside the "
                       "directory of {1}, and the tuned copy cannot be checked with it; "
                       "nothing is written",
                       File, S.Source);
    std::string Copy = S.JobRoot + "/" + Abs.substr(Dir.size()).str();
    if (auto EC = sys::fs::create_directories(sys::path::parent_path(Copy)))
      return makeError("cannot create the directory of {0}: {1}", Copy, EC.message());
    if (Error E = writeFileAtomically(Copy, Text))
      return std::move(E);
  }
  // -i writes the changed project headers too; -o writes the file alone.
  auto WriteOut = [&]() -> Error {
    if (Error E = O.Output.write(S.Source, W.Contents, /*Changed=*/true))
      return E;
    for (const auto &[File, Text] : W.Headers) {
      if (O.Output.K == OutputChoice::Kind::InPlace) {
        if (Error E = writeFileAtomically(File, Text))
          return E;
      } else if (O.Output.K != OutputChoice::Kind::Diff && O.OnNote) {
        O.OnNote(File + " changes too (--diff shows it, -i writes it); it is not written", true);
      }
    }
    return Error::success();
  };
  // This very text may have passed every check below on this GPU already
  // (the database records it): then it is not parsed, compiled or run
  // again, which is most of a run whose measurements all come from the
  // database.
  auto Check = recordedCheck(R, CheckText);
  if (!Check)
    return Check.takeError();
  if (Check->Prior) {
    if (Error E = usePriorCheck(R, *Check->Prior))
      return std::move(E);
    if (CacheKey && W.Headers.empty())
      storeWriteBack(*CacheKey, W, Bound->Notes);
    if (Error E = WriteOut())
      return std::move(E);
    return W;
  }
  // The checks before anything is written: the tuned source launches what
  // the spec launches (a parse of it), compiles for every target and
  // matches the original on the GPU. They do not depend on each other, so
  // the parse runs beside the compiles and the GPU check; their errors are
  // reported in that order.
  std::vector<std::string> GeometryNotes;
  auto Geometry = std::async(std::launch::async, [&] {
    return checkLaunchGeometry(R, W.Path, Skipped, GeometryNotes);
  });
  Error Rest = compileAndVerify(R, W.Path);
  if (Error E = Geometry.get()) {
    consumeError(std::move(Rest));
    return std::move(E);
  }
  if (O.OnNote)
    for (const std::string &N : GeometryNotes)
      O.OnNote(N, true);
  if (Rest)
    return std::move(Rest);
  if (Check->Record)
    if (Error E = recordCheck(Check->Key, *Check->Record, R))
      return std::move(E);
  if (CacheKey && W.Headers.empty())
    storeWriteBack(*CacheKey, W, Bound->Notes);
  if (Error E = WriteOut())
    return std::move(E);
  return W;
}

Expected<std::pair<TuneResult, std::optional<TunedSource>>> TuneSession::run() {
  auto R = tune();
  if (!R)
    return R.takeError();
  if (R->Interrupted)
    return std::make_pair(std::move(*R), std::optional<TunedSource>());
  auto W = writeBack(*R);
  if (!W)
    return W.takeError();
  return std::make_pair(std::move(*R), std::optional<TunedSource>(std::move(*W)));
}

} // namespace forge::tune
