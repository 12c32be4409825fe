//===- Measure/MeasureSession.cpp - The measure driver --------------------===//
#include "forge/Measure/MeasureSession.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Support/Error.h"
#include "forge/Support/Output.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace forge::measure {

Expected<ValueMap> parseAssignments(StringRef Text, const LaunchSpec &Spec) {
  ValueMap V;
  SmallVector<StringRef, 4> Parts;
  Text.split(Parts, ',', -1, false);
  for (StringRef P : Parts) {
    auto [Name, Value] = P.split('=');
    Name = Name.trim();
    Value = Value.trim();
    int64_t N;
    if (Name.empty() || Value.getAsInteger(0, N))
      return makeUsageError("--config '{0}': expected NAME=INTEGER[,NAME=INTEGER]", Text);
    bool IsSize = any_of(Spec.Sizes, [&](const auto &S) { return S.first == Name; });
    if (!Spec.findTunable(Name) && !IsSize)
      return makeUsageError("--config '{0}': '{1}' is neither a tunable nor a size of the spec",
                            Text, Name);
    V[Name.str()] = N;
  }
  return V;
}

Expected<const arch::TargetInfo *> MeasureSession::target(StringRef Worker) const {
  if (O.Target)
    return O.Target;
  auto G = queryGpu(Worker);
  if (!G)
    return makeError("{0}; give --arch to build the job without one", toString(G.takeError()));
  return G->Target;
}

Expected<MeasureSessionResult> MeasureSession::run() {
  if (O.Files.empty() && O.RunCommand.empty())
    return makeUsageError("no input files; give the original .cu file");
  if (O.Job.InputSets < 2)
    return makeUsageError(
        "--input-sets must be at least 2: outputs that depend on an earlier run are only "
        "caught with fresh inputs");
  if (O.Job.Rounds == 0 || O.Job.Reps == 0)
    return makeUsageError("--rounds and --reps must be at least 1");
  for (const std::string &F : O.Files)
    if (Error E = frontend::checkCudaInput(F))
      return std::move(E);
  auto Tools = build::findNvcc(O.CudaPath);
  if (!Tools)
    return Tools.takeError();
  if (!O.RunCommand.empty()) {
    if (O.Spec)
      return makeUsageError("--spec and --run are two modes; give one");
    return runProgram(*(*Tools)->Driver);
  }
  if (!O.Spec)
    return makeUsageError("--spec is required (or --run for program mode); draft one with: "
                          "forge-port spec {0} --kernel NAME",
                          O.Files.front());
  return runSpecMode(*(*Tools)->Driver);
}

Expected<MeasureSessionResult> MeasureSession::runProgram(const build::NvccDriver &Driver) {
  auto Worker = findWorker(O.WorkerPath, O.ToolDir);
  if (!Worker)
    return Worker.takeError();
  auto Inject = findInjectLibrary(*Worker);
  if (!Inject)
    return Inject.takeError();
  MeasureSessionResult R;
  auto T = target(*Worker);
  if (!T)
    return T.takeError();
  R.Target = *T;
  ScratchDir Scratch;
  auto Dir = Scratch.make(O.JobDir, "forge-measure");
  if (!Dir)
    return Dir.takeError();
  R.JobDir = *Dir;
  ProgramRequest Req;
  Req.Sources = O.Files;
  Req.Command = O.RunCommand;
  Req.Runs = O.Runs;
  Req.Target = R.Target;
  Req.NvccFlags = O.NvccFlags;
  Req.InjectLibrary = *Inject;
  Req.JobDir = *Dir;
  Req.TimeoutSeconds = unsigned(std::max(1.0, O.ProgramTimeoutS));
  Req.IgnoreLines = O.IgnoreOutput;
  Req.CheckCommand = O.CheckCommand;
  Req.OnRun = O.OnRun;
  auto Vs = runProgramMode(Driver, Req);
  if (!Vs)
    return Vs.takeError();
  R.Programs = std::move(*Vs);
  R.AllOk = all_of(R.Programs, [](const ProgramVariant &V) { return V.Status == ProgramStatus::Ok; });
  return R;
}

Expected<MeasureSessionResult> MeasureSession::runSpecMode(const build::NvccDriver &Driver) {
  const LaunchSpec &Spec = *O.Spec;
  if (O.BuildOnly && !O.Target)
    return makeUsageError("--no-run needs --arch");
  if (O.BuildOnly && O.JobDir.empty())
    return makeUsageError("--no-run needs --job-dir");
  for (const auto &[File, Own] : O.OwnSpecs) {
    if (!is_contained(O.Files, File))
      return makeUsageError("--spec-of '{0}': not one of the files measured", File);
    if (File == O.Files.front())
      return makeUsageError("--spec-of '{0}': the reference uses --spec", File);
    if (Own.Kernel != Spec.Kernel || Own.Args != Spec.Args)
      return makeUsageError("--spec-of '{0}': the spec must launch the same kernel with the "
                            "same arguments as --spec ({1})",
                            File, Spec.Kernel);
  }

  // Configurations: the given ones, every valid one, or the defaults.
  std::vector<ValueMap> Configs = O.Configs;
  if (O.AllConfigs) {
    auto All = enumerateConfigs(Spec, O.MaxConfigs);
    if (!All)
      return All.takeError();
    Configs.insert(Configs.end(), All->begin(), All->end());
  }
  // The reference is the original at the spec's defaults; every file is
  // measured in every requested configuration against it.
  ValueMap Defaults;
  for (const Tunable &T : Spec.Tunables)
    Defaults[T.Name] = T.defaultValue();
  auto Full = [&](ValueMap V) {
    for (const auto &[K, Val] : Defaults)
      V.emplace(K, Val);
    return V;
  };
  if (Configs.empty())
    Configs.push_back(Defaults);

  MeasureSessionResult R;
  std::string WorkerPath;
  if (!O.BuildOnly) {
    auto W = findWorker(O.WorkerPath, O.ToolDir);
    if (!W)
      return W.takeError();
    WorkerPath = *W;
  }
  auto T = target(WorkerPath);
  if (!T)
    return T.takeError();
  R.Target = *T;
  ScratchDir Scratch;
  auto Dir = Scratch.make(O.JobDir, "forge-measure");
  if (!Dir)
    return Dir.takeError();
  R.JobDir = *Dir;

  MeasureRequest Req;
  Req.Spec = &Spec;
  auto Label = [&](StringRef File, const ValueMap &V) {
    std::string L = sys::path::filename(File).str();
    if (!Spec.Tunables.empty() || !V.empty())
      L += " " + configLabel(Spec, V);
    return L;
  };
  Req.Reference = {"ref", O.Files.front(), Defaults, Label(O.Files.front(), Defaults)};
  unsigned N = 0;
  for (size_t F = 0; F < O.Files.size(); ++F) {
    auto Own = O.OwnSpecs.find(O.Files[F]);
    if (Own != O.OwnSpecs.end()) {
      Req.Candidates.push_back({"c" + std::to_string(++N), O.Files[F], {},
                                sys::path::filename(O.Files[F]).str() + " (own spec)",
                                &Own->second});
      continue;
    }
    for (const ValueMap &C : Configs) {
      if (F == 0 && Full(C) == Defaults)
        continue; // the reference itself
      Req.Candidates.push_back(
          {"c" + std::to_string(++N), O.Files[F], C, Label(O.Files[F], C)});
    }
  }
  Req.Target = R.Target;
  Req.NvccFlags = O.NvccFlags;
  Req.Job = O.Job;
  Req.JobDir = *Dir;
  Req.WorkerPath = WorkerPath;
  Req.CompileJobs = O.CompileJobs;
  Req.BuildOnly = O.BuildOnly;
  Req.OnResult = O.OnResult;
  MeasureSessionOptions::JobShape Shape{O.Files.size(), Configs.size(),
                                        Req.Candidates.size() + 1, R.Target};
  if (O.OnPhase)
    Req.OnPhase = [&](StringRef Phase) { O.OnPhase(Phase, Shape); };
  auto Rep = runMeasurement(Driver, Req);
  if (!Rep)
    return Rep.takeError();
  R.Report = std::move(*Rep);

  for (size_t I = 0; I < R.Report->Outcomes.size(); ++I) {
    const CandidateOutcome &C = R.Report->Outcomes[I];
    MeasureRow Row;
    Row.Outcome = I;
    const LaunchSpec &CS = C.Candidate.Spec ? *C.Candidate.Spec : Spec;
    auto G = CS.geometry(C.Candidate.Values);
    if (C.Resources && G) {
      arch::KernelResources K;
      K.ThreadsPerBlock = int(G->Block[0] * G->Block[1] * G->Block[2]);
      K.RegistersPerThread = int(C.Resources->Registers);
      K.StaticSharedBytes = int(C.Resources->SharedMemBytes);
      K.DynamicSharedBytes = int(G->SharedMemBytes);
      if (auto Occ = arch::computeOccupancy(*R.Target, K))
        Row.Occupancy = *Occ;
      else
        consumeError(Occ.takeError());
    }
    if (!G)
      consumeError(G.takeError());
    const MeasureReport &Rep = *R.Report;
    if (Rep.Ceiling && C.Result.Time)
      Row.Position = classify(Rep.Work.Bytes, Rep.Work.Flops, C.Result.Time->Median,
                              *Rep.Ceiling, Rep.Work.Type == DType::F64);
    R.Rows.push_back(Row);
  }
  if (O.BuildOnly)
    R.AllOk = none_of(R.Report->Outcomes, [](const CandidateOutcome &C) {
      return C.Result.Status == CandidateStatus::CompileFailed;
    });
  else
    R.AllOk = all_of(R.Report->Outcomes,
                     [](const CandidateOutcome &C) { return C.Result.ok(); });
  return R;
}

} // namespace forge::measure
