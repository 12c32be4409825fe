//===- forge-port/Measure.cpp - `forge-port measure` ----------------------===//
///
/// \file
/// Verifies and times kernels on the local GPU without a hand-written
/// harness. Spec mode measures each file (the first is the original, the
/// reference) in each requested configuration through forge-worker; program
/// mode builds and runs whole programs with the CUPTI injection library.
/// See docs/measure.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Build/CompileCache.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Measure/Measurement.h"
#include "forge/Measure/ProgramMode.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <chrono>
#include <mutex>

using namespace llvm;
using namespace forge;
using namespace forge::measure;
using namespace forge::tool;

namespace {
cl::SubCommand MeasureSub("measure", "verify and time kernels on the local GPU");
cl::OptionCategory Cat("forge-port measure options");
cl::list<std::string> Files(cl::Positional, cl::desc("<original.cu> [variant.cu...]"),
                            cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> SpecPath("spec", cl::desc("Launch spec (JSON, docs/spec-format.md)"),
                              cl::value_desc("spec.json"), cl::cat(Cat), cl::sub(MeasureSub));
cl::list<std::string> SpecOf("spec-of",
                            cl::desc("Measure FILE with its own spec (a transformation that "
                                     "changed the launch: same kernel and buffers, another "
                                     "grid or tunables), at that spec's defaults"),
                            cl::value_desc("file.cu=spec.json"), cl::cat(Cat), cl::sub(MeasureSub));
cl::list<std::string> ConfigOpt("config",
                                cl::desc("A configuration to measure, NAME=VALUE[,NAME=VALUE]; "
                                         "repeatable (default: the spec's defaults)"),
                                cl::value_desc("assignments"), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<bool> AllConfigs("all-configs",
                         cl::desc("Measure every valid combination of the tunables"),
                         cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<unsigned> MaxConfigs("max-configs", cl::desc("Limit for --all-configs (default 64)"),
                             cl::init(64), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> ArchOpt("arch",
                             cl::desc("Target to compile for (default: the GPU's, from "
                                      "forge-worker info)"),
                             cl::value_desc("sm_XX"), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> WorkerOpt("worker", cl::desc("The forge-worker executable"),
                               cl::value_desc("path"), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> JobDirOpt("job-dir",
                               cl::desc("Keep the job directory here (default: a temporary "
                                        "directory, removed afterwards)"),
                               cl::value_desc("dir"), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<bool> NoRun("no-run",
                    cl::desc("Build the job (harnesses, plan) and stop; needs --arch and "
                             "--job-dir"),
                    cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<unsigned> InputSets("input-sets", cl::desc("Random input sets per candidate (>= 2)"),
                            cl::init(2), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<unsigned> Rounds("rounds", cl::desc("Interleaved timing rounds"), cl::init(5),
                         cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<unsigned> Reps("reps", cl::desc("Timed launches per candidate per round"),
                       cl::init(10), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<unsigned> Warmup("warmup", cl::desc("Untimed launches first"), cl::init(3),
                         cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<double> MinTimeMs("min-time-ms",
                          cl::desc("Raise --reps so a round of a candidate lasts this long"),
                          cl::init(0), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> TimerOpt("timer", cl::desc("cupti (default) or events"),
                              cl::init("cupti"), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<bool> NoFlush("no-flush", cl::desc("Do not flush L2 between launches"), cl::cat(Cat),
                      cl::sub(MeasureSub));
cl::opt<uint64_t> Seed("seed", cl::desc("Seed of the input generator"), cl::init(20261129),
                       cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<double> TimeoutS("timeout",
                         cl::desc("Seconds one candidate may take before it is killed (30)"),
                         cl::init(30), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<double> FloorFactor("floor-factor",
                            cl::desc("Reject a run faster than this fraction of the roofline "
                                     "floor as no-work (0.5)"),
                            cl::init(0.5), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> Format("format", cl::desc("text or json"), cl::init("text"), cl::cat(Cat),
                            cl::sub(MeasureSub));
cl::opt<unsigned> CompileJobs("j", cl::desc("Parallel compiles (default: the CPU count)"),
                              cl::init(0), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> RunCmd("run",
                            cl::desc("Program mode: the command to run; {exe} stands for the "
                                     "program built from each file"),
                            cl::value_desc("command"), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<unsigned> Runs("runs", cl::desc("Program mode: runs per variant (3)"), cl::init(3),
                       cl::cat(Cat), cl::sub(MeasureSub));
cl::list<std::string> IgnoreOutput("ignore-output",
                                   cl::desc("Program mode: output lines matching this regex "
                                            "are not compared; repeatable"),
                                   cl::value_desc("regex"), cl::cat(Cat), cl::sub(MeasureSub));
cl::opt<std::string> CudaPathOpt("cuda-path", cl::desc("CUDA toolkit root"), cl::cat(Cat),
                                 cl::sub(MeasureSub));

const char *Overview =
    "forge-port measure: verify and time kernels on the local GPU\n\n"
    "  forge-port measure orig.cu [variant.cu...] --spec spec.json [--config N=V]...\n"
    "  forge-port measure app.cu [variant.cu...] --run \"{exe} args\" [--runs N]\n";

struct Clocked {
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  }
};

/// "NAME=V,NAME=V" -> values; names must be tunables or sizes of the spec.
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
    bool IsSize = llvm::any_of(Spec.Sizes, [&](const auto &S) { return S.first == Name; });
    if (!Spec.findTunable(Name) && !IsSize)
      return makeUsageError("--config '{0}': '{1}' is neither a tunable nor a size of the spec",
                            Text, Name);
    V[Name.str()] = N;
  }
  return V;
}

/// --arch, parsed.
const arch::TargetInfo *ArchTarget = nullptr;

/// The target to compile for: --arch, else the GPU's.
Expected<const arch::TargetInfo *> resolveArch(StringRef Worker) {
  if (ArchTarget)
    return ArchTarget;
  auto G = queryGpu(Worker);
  if (!G)
    return makeError("{0}; give --arch to build the job without one",
                     toString(G.takeError()));
  return G->Target;
}

std::string fmtUs(double Ns) { return formatv("{0:F2}", Ns / 1000.0).str(); }

std::string pct(double F) { return formatv("{0:F1}%", F * 100).str(); }

struct Row {
  const CandidateOutcome *O;
  std::optional<arch::OccupancyResult> Occ;
  std::optional<RooflinePosition> Pos;
};

Json rowJson(const Row &R, const MeasureReport &Rep) {
  Json J = toJson(R.O->Result);
  J["source"] = R.O->Candidate.Source;
  J["config"] = Json::object();
  for (const auto &[K, V] : R.O->Candidate.Values)
    J["config"][K] = V;
  if (R.O->Resources) {
    const build::KernelResources &K = *R.O->Resources;
    J["resources"] = {{"registers", K.Registers},
                      {"spill_store_bytes", K.SpillStoreBytes},
                      {"spill_load_bytes", K.SpillLoadBytes},
                      {"static_shared_bytes", K.SharedMemBytes},
                      {"stack_bytes", K.StackFrameBytes},
                      {"mangled_name", K.MangledName}};
  }
  if (R.Occ)
    J["occupancy"] = {{"fraction", R.Occ->Occupancy},
                      {"blocks_per_sm", R.Occ->ActiveBlocksPerSM},
                      {"limiter", arch::limiterName(R.Occ->Limiter)}};
  if (R.Pos) {
    J["bottleneck"] = bottleneckName(R.Pos->Class);
    J["intensity"] = R.Pos->Intensity;
    J["ridge"] = R.Pos->Ridge;
  }
  return J;
}

int printSpecReport(const MeasureReport &Rep, const LaunchSpec &Spec,
                    const arch::TargetInfo &Target) {
  StringRef Arch = Target.Name;
  std::vector<Row> Rows;
  for (const CandidateOutcome &O : Rep.Outcomes) {
    Row R{&O, std::nullopt, std::nullopt};
    auto G = Spec.geometry(O.Candidate.Values);
    if (O.Resources && G) {
      arch::KernelResources K;
      K.ThreadsPerBlock = int(G->Block[0] * G->Block[1] * G->Block[2]);
      K.RegistersPerThread = int(O.Resources->Registers);
      K.StaticSharedBytes = int(O.Resources->SharedMemBytes);
      K.DynamicSharedBytes = int(G->SharedMemBytes);
      if (auto Occ = arch::computeOccupancy(Target, K))
        R.Occ = *Occ;
      else
        consumeError(Occ.takeError());
    }
    if (!G)
      consumeError(G.takeError());
    if (Rep.Ceiling && O.Result.Time)
      R.Pos = classify(Rep.Work.Bytes, Rep.Work.Flops, O.Result.Time->Median, *Rep.Ceiling,
                       Rep.Work.Type == DType::F64);
    Rows.push_back(R);
  }
  bool AllOk = llvm::all_of(Rep.Outcomes, [](const CandidateOutcome &O) { return O.Result.ok(); });
  if (Format == "json") {
    Json J;
    if (Rep.Device)
      J["device"] = {{"name", Rep.Device->Name},
                     {"cc", Rep.Device->ComputeCapability},
                     {"sms", Rep.Device->SMs},
                     {"l2_bytes", Rep.Device->L2Bytes},
                     {"timer", Rep.Device->Timer}};
    if (Rep.Ceiling)
      J["ceilings"] = {{"dram_gbps", Rep.Ceiling->DramGBps},
                       {"fp32_gflops", Rep.Ceiling->Fp32GFlops},
                       {"fp64_gflops", Rep.Ceiling->Fp64GFlops},
                       {"source", Rep.Ceiling->Source}};
    J["arch"] = Arch;
    J["work"] = {{"bytes", Rep.Work.Bytes},
                 {"flops", Rep.Work.Flops},
                 {"bytes_derived_from_buffers", Rep.Work.Derived}};
    J["candidates"] = Json::array();
    for (const Row &R : Rows)
      J["candidates"].push_back(rowJson(R, Rep));
    J["compile_seconds"] = Rep.CompileSeconds;
    J["run_seconds"] = Rep.RunSeconds;
    outs() << J.dump(2) << "\n";
    return AllOk ? ExitOK : ExitFailure;
  }

  raw_ostream &OS = outs();
  if (Rep.Device)
    OS << "device: " << Rep.Device->Name << " (" << Arch << ", " << Rep.Device->SMs << " SMs, "
       << Rep.Device->L2Bytes / (1024 * 1024) << " MiB L2), timer " << Rep.Device->Timer << "\n";
  if (Rep.Ceiling)
    OS << formatv("ceilings ({0}): DRAM {1:F0} GB/s, FP32 {2:F1} TFLOP/s, FP64 {3:F1} TFLOP/s\n",
                  Rep.Ceiling->Source, Rep.Ceiling->DramGBps, Rep.Ceiling->Fp32GFlops / 1000,
                  Rep.Ceiling->Fp64GFlops / 1000);
  OS << formatv("work per launch: {0:F2} MB{1}, {2:F2} MFLOP\n", Rep.Work.Bytes / 1e6,
                Rep.Work.Derived ? " (every buffer once; the spec gives no bytes)" : "",
                Rep.Work.Flops / 1e6);
  OS << "\n";
  OS << formatv("{0,-6} {1,-28} {2,-13} {3,10} {4,10} {5,7} {6,16} {7,8} {8,9} {9,8} {10,5} "
                "{11,6} {12,7} {13,9}  {14}\n",
                "id", "variant", "status", "median us", "min us", "spread", "speedup (noise)",
                "GB/s", "GFLOP/s", "roofline", "regs", "spill", "smem", "occupancy",
                "bottleneck");
  for (const Row &R : Rows) {
    const CandidateResult &C = R.O->Result;
    std::string Label = R.O->Candidate.Label;
    if (Label.size() > 28)
      Label = Label.substr(0, 25) + "...";
    std::string Med = "-", Min = "-", Spread = "-", Speed = "-", GB = "-", GF = "-", Roof = "-";
    if (C.Time) {
      Med = fmtUs(C.Time->Median);
      Min = fmtUs(C.Time->Min);
      Spread = pct(C.Time->Spread);
    }
    if (C.Speedup)
      Speed = formatv("{0:F3}x (±{1})", *C.Speedup, C.Noise ? pct(*C.Noise) : "?").str();
    if (C.GBps)
      GB = formatv("{0:F0}", *C.GBps).str();
    if (C.GFlops)
      GF = formatv("{0:F0}", *C.GFlops).str();
    if (C.RooflineFraction)
      Roof = pct(*C.RooflineFraction);
    std::string Regs = "-", Spill = "-", Smem = "-", Occ = "-";
    if (R.O->Resources) {
      Regs = std::to_string(R.O->Resources->Registers);
      Spill = std::to_string(R.O->Resources->SpillStoreBytes + R.O->Resources->SpillLoadBytes);
      Smem = std::to_string(R.O->Resources->SharedMemBytes);
    }
    if (R.Occ)
      Occ = formatv("{0:P0}", R.Occ->Occupancy).str();
    std::string Bn = R.Pos ? bottleneckName(R.Pos->Class).str() : "-";
    OS << formatv("{0,-6} {1,-28} {2,-13} {3,10} {4,10} {5,7} {6,16} {7,8} {8,9} {9,8} {10,5} "
                  "{11,6} {12,7} {13,9}  {14}\n",
                  C.Id, Label, statusName(C.Status), Med, Min, Spread, Speed, GB, GF, Roof, Regs,
                  Spill, Smem, Occ, Bn);
  }
  bool Header = false;
  for (const Row &R : Rows) {
    const CandidateResult &C = R.O->Result;
    if (C.ok())
      continue;
    if (!Header)
      OS << "\nrejected:\n";
    Header = true;
    OS << "  " << C.Id << " (" << R.O->Candidate.Label << "): " << statusName(C.Status);
    if (C.Reasons.size() > 1)
      OS << " ["
         << join(map_range(C.Reasons,
                           [](CandidateStatus S) { return StringRef(statusName(S)); }),
                 ", ")
         << "]";
    std::string D = describeRejection(C, FloorFactor);
    if (!D.empty())
      OS << ": " << D;
    OS << "\n";
  }
  OS << formatv("\noccupancy is predicted by the Arch database for {0}; times are the median "
                "of {1} launches in {2} interleaved rounds, L2 {3}\n",
                Arch, Rounds * Reps, Rounds.getValue(), NoFlush ? "not flushed" : "flushed");
  return AllOk ? ExitOK : ExitFailure;
}

int runProgramModeCommand(const tool::Invocation &Inv, const build::NvccDriver &Driver) {
  std::string ToolDir = executableDir(Inv.Argv0);
  auto Worker = findWorker(WorkerOpt, ToolDir);
  if (!Worker)
    return tool::reportError(Worker.takeError());
  SmallString<256> Inject(sys::path::parent_path(*Worker));
  sys::path::append(Inject, "libforge-inject.so");
  if (!sys::fs::exists(Inject))
    return tool::reportError(makeError(
        "libforge-inject.so is not beside {0}; build the forge-inject target", *Worker));
  auto Target = resolveArch(*Worker);
  if (!Target)
    return tool::reportError(Target.takeError());
  StringRef Arch = (*Target)->Name;
  ScratchDir G;
  auto Dir = G.make(JobDirOpt, "forge-measure");
  if (!Dir)
    return tool::reportError(Dir.takeError());
  ProgramRequest Req;
  Req.Sources.assign(Files.begin(), Files.end());
  Req.Command = RunCmd;
  Req.Runs = Runs;
  Req.Target = *Target;
  Req.NvccFlags = Inv.ExtraArgs;
  Req.InjectLibrary = Inject.str().str();
  Req.JobDir = *Dir;
  Req.TimeoutSeconds = unsigned(std::max(1.0, TimeoutS.getValue() * 20));
  Req.IgnoreLines.assign(IgnoreOutput.begin(), IgnoreOutput.end());
  bool Tty = sys::Process::StandardErrIsDisplayed();
  Req.OnRun = [&](StringRef Label, unsigned Run, unsigned N) {
    errs() << (Tty ? "\r" : "") << "forge-port: running " << Label << " (" << Run << "/" << N
           << ")" << (Tty ? "   " : "\n");
  };
  auto Vs = runProgramMode(Driver, Req);
  if (Tty)
    errs() << "\n";
  if (!Vs)
    return tool::reportError(Vs.takeError());
  bool AllOk = true;
  const ProgramVariant &Orig = Vs->front();
  if (Format == "json") {
    Json J = Json::array();
    for (const ProgramVariant &V : *Vs) {
      Json K = Json::array();
      for (const KernelSummary &S : V.Kernels)
        K.push_back({{"name", S.Name},
                     {"launches", S.Launches},
                     {"median_ns", S.MedianNs},
                     {"total_ns", S.TotalNs},
                     {"run_spread", S.RunSpread}});
      J.push_back({{"label", V.Label},
                   {"source", V.Source},
                   {"status", statusName(V.Status).str()},
                   {"detail", V.Detail},
                   {"runs", V.Runs.size()},
                   {"kernels", K}});
      AllOk &= V.Status == ProgramStatus::Ok;
    }
    outs() << J.dump(2) << "\n";
    return AllOk ? ExitOK : ExitFailure;
  }
  raw_ostream &OS = outs();
  OS << "program mode: " << RunCmd << " (" << Arch << ", " << Runs
     << " run(s) each; kernel times from CUPTI activity records)\n";
  for (const ProgramVariant &V : *Vs) {
    AllOk &= V.Status == ProgramStatus::Ok;
    OS << "\n" << V.Label << ": " << statusName(V.Status);
    if (!V.Detail.empty())
      OS << " (" << V.Detail << ")";
    OS << "\n";
    if (V.Kernels.empty())
      continue;
    OS << formatv("  {0,-48} {1,9} {2,12} {3,12} {4,9} {5,10}\n", "kernel", "launches",
                  "median us", "total us", "run var", "vs orig");
    for (const KernelSummary &S : V.Kernels) {
      std::string Name = S.Name.size() > 48 ? S.Name.substr(0, 45) + "..." : S.Name;
      std::string Vs = "-";
      if (&V != &Orig)
        for (const KernelSummary &O : Orig.Kernels)
          if (O.Name == S.Name && S.MedianNs > 0)
            Vs = formatv("{0:F3}x", O.MedianNs / S.MedianNs).str();
      OS << formatv("  {0,-48} {1,9} {2,12} {3,12} {4,9} {5,10}\n", Name, S.Launches,
                    fmtUs(S.MedianNs), fmtUs(S.TotalNs), pct(S.RunSpread), Vs);
    }
  }
  return AllOk ? ExitOK : ExitFailure;
}

} // namespace

int forge::tool::runMeasure(const Invocation &Inv) {
  if (!parseOptions(Inv, Overview))
    return ExitUsage;
  if (Files.empty() && RunCmd.empty())
    return reportError(makeUsageError("no input files; give the original .cu file"));
  if (Format != "text" && Format != "json")
    return reportError(makeUsageError("--format: expected text or json, got '{0}'", Format));
  if (TimerOpt != "cupti" && TimerOpt != "events")
    return reportError(makeUsageError("--timer: expected cupti or events, got '{0}'", TimerOpt));
  if (InputSets < 2)
    return reportError(makeUsageError(
        "--input-sets must be at least 2: outputs that depend on an earlier run are only "
        "caught with fresh inputs"));
  if (Rounds == 0 || Reps == 0)
    return reportError(makeUsageError("--rounds and --reps must be at least 1"));
  for (const std::string &F : Files)
    if (auto E = frontend::checkCudaInput(F))
      return reportError(std::move(E));
  if (!ArchOpt.empty()) {
    auto T = arch::lookupTarget(ArchOpt);
    if (!T)
      return reportError(T.takeError());
    ArchTarget = &*T;
  }

  auto Tools = findNvcc(CudaPathOpt);
  if (!Tools)
    return reportError(Tools.takeError());
  const build::NvccDriver &Driver = *(*Tools)->Driver;

  if (!RunCmd.empty()) {
    if (!SpecPath.empty())
      return reportError(makeUsageError("--spec and --run are two modes; give one"));
    return runProgramModeCommand(Inv, Driver);
  }
  if (SpecPath.empty())
    return reportError(makeUsageError("--spec is required (or --run for program mode); "
                                      "draft one with: forge-port spec {0} --kernel NAME",
                                      Files.front()));
  auto Spec = readLaunchSpec(SpecPath);
  if (!Spec)
    return reportError(Spec.takeError());

  // Configurations: --config, --all-configs, or the defaults.
  std::vector<ValueMap> Configs;
  for (const std::string &C : ConfigOpt) {
    auto V = parseAssignments(C, *Spec);
    if (!V)
      return reportError(V.takeError());
    Configs.push_back(*V);
  }
  if (AllConfigs) {
    auto All = enumerateConfigs(*Spec, MaxConfigs);
    if (!All)
      return reportError(All.takeError());
    Configs.insert(Configs.end(), All->begin(), All->end());
  }
  // The reference is the original at the spec's defaults; every file is
  // measured in every requested configuration against it.
  ValueMap Defaults;
  for (const Tunable &T : Spec->Tunables)
    Defaults[T.Name] = T.defaultValue();
  auto Full = [&](ValueMap V) {
    for (const auto &[K, Val] : Defaults)
      V.emplace(K, Val);
    return V;
  };
  if (Configs.empty())
    Configs.push_back(Defaults);

  std::string ToolDir = executableDir(Inv.Argv0);
  std::string WorkerPath;
  if (!NoRun) {
    auto W = findWorker(WorkerOpt, ToolDir);
    if (!W)
      return reportError(W.takeError());
    WorkerPath = *W;
  }
  if (ArchOpt.empty() && NoRun)
    return reportError(makeUsageError("--no-run needs --arch"));
  auto Target = resolveArch(WorkerPath);
  if (!Target)
    return reportError(Target.takeError());
  StringRef Arch = (*Target)->Name;
  if (NoRun && JobDirOpt.empty())
    return reportError(makeUsageError("--no-run needs --job-dir"));

  ScratchDir G;
  auto Dir = G.make(JobDirOpt, "forge-measure");
  if (!Dir)
    return reportError(Dir.takeError());

  MeasureRequest Req;
  Req.Spec = &*Spec;
  auto Label = [&](StringRef File, const ValueMap &V) {
    std::string L = sys::path::filename(File).str();
    if (!Spec->Tunables.empty() || !V.empty())
      L += " " + configLabel(*Spec, V);
    return L;
  };
  // Files measured with their own spec.
  std::map<std::string, LaunchSpec> OwnSpecs;
  for (const std::string &S : SpecOf) {
    auto [F, P] = StringRef(S).split('=');
    if (F.empty() || P.empty() || !llvm::is_contained(Files, F.str()))
      return reportError(makeUsageError(
          "--spec-of '{0}': expected FILE=SPEC with FILE one of the files measured", S));
    if (F == StringRef(Files.front()))
      return reportError(makeUsageError("--spec-of '{0}': the reference uses --spec", S));
    auto Own = readLaunchSpec(P);
    if (!Own)
      return reportError(Own.takeError());
    if (Own->Kernel != Spec->Kernel || Own->Args != Spec->Args)
      return reportError(makeUsageError(
          "--spec-of '{0}': the spec must launch the same kernel with the same arguments as "
          "--spec ({1})",
          S, Spec->Kernel));
    OwnSpecs[F.str()] = std::move(*Own);
  }
  Req.Reference = {"ref", Files.front(), Defaults, Label(Files.front(), Defaults)};
  unsigned N = 0;
  for (size_t F = 0; F < Files.size(); ++F) {
    auto Own = OwnSpecs.find(Files[F]);
    if (Own != OwnSpecs.end()) {
      Req.Candidates.push_back({"c" + std::to_string(++N), Files[F], {},
                                sys::path::filename(Files[F]).str() + " (own spec)",
                                &Own->second});
      continue;
    }
    for (size_t C = 0; C < Configs.size(); ++C) {
      if (F == 0 && Full(Configs[C]) == Defaults)
        continue; // the reference itself
      Req.Candidates.push_back(
          {"c" + std::to_string(++N), Files[F], Configs[C], Label(Files[F], Configs[C])});
    }
  }
  Req.Target = *Target;
  Req.NvccFlags = Inv.ExtraArgs;
  Req.Job.Seed = Seed;
  Req.Job.InputSets = InputSets;
  Req.Job.Warmup = Warmup;
  Req.Job.Rounds = Rounds;
  Req.Job.Reps = Reps;
  Req.Job.MinTimeMs = MinTimeMs;
  Req.Job.FlushL2 = !NoFlush;
  Req.Job.Cupti = TimerOpt == "cupti";
  Req.Job.FloorFactor = FloorFactor;
  Req.Job.CandidateTimeoutS = TimeoutS;
  Req.JobDir = *Dir;
  Req.WorkerPath = WorkerPath;
  Req.CompileJobs = CompileJobs;

  Req.BuildOnly = NoRun;
  Clocked Clock;
  std::mutex M;
  double BestNs = 0;
  std::string Best;
  Req.OnPhase = [&](StringRef Phase) {
    if (Phase == "compile")
      errs() << "forge-port: compiling " << Files.size() << " harness(es) with "
             << Configs.size() << " configuration(s) each for " << Arch << "\n";
    else if (!NoRun)
      errs() << "forge-port: measuring " << Req.Candidates.size() + 1 << " candidate(s) on the GPU\n";
  };
  Req.OnResult = [&](const CandidateResult &C, size_t Done, size_t Total) {
    std::lock_guard<std::mutex> L(M);
    if (C.ok() && C.Time && (BestNs == 0 || C.Time->Median < BestNs)) {
      BestNs = C.Time->Median;
      Best = C.Label.empty() ? C.Id : C.Label;
    }
    double Elapsed = Clock.seconds();
    double Eta = Done ? Elapsed / Done * (Total - Done) : 0;
    errs() << formatv("[{0}/{1}] {2} {3}{4}; best {5}; ETA {6:F0} s\n", Done, Total, C.Id,
                      statusName(C.Status), C.Time ? " " + fmtUs(C.Time->Median) + " us" : "",
                      BestNs ? fmtUs(BestNs) + " us (" + Best + ")" : "none yet", Eta);
  };
  auto Rep = runMeasurement(Driver, Req);
  if (Rep && NoRun) {
    bool AllBuilt = true;
    for (const CandidateOutcome &O : Rep->Outcomes) {
      bool Built = O.Result.Status != CandidateStatus::CompileFailed;
      AllBuilt &= Built;
      outs() << O.Candidate.Id << " " << O.Candidate.Label << ": "
             << (Built ? "built" : "compile-failed: " + O.Result.Error) << "\n";
    }
    errs() << "forge-port: job written to " << *Dir << " (run it with: forge-worker run " << *Dir
           << ")\n";
    return AllBuilt ? ExitOK : ExitFailure;
  }
  if (!Rep)
    return reportError(Rep.takeError());
  return printSpecReport(*Rep, *Spec, **Target);
}
