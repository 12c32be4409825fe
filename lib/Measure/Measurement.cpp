//===- Measurement.cpp - Build, run and read one job ----------------------===//
#include "forge/Measure/Measurement.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/JsonReader.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

using namespace forge;
using namespace forge::measure;

static std::string withoutBlanks(llvm::StringRef S) {
  std::string Out;
  for (char C : S)
    if (!llvm::isSpace(C))
      Out += C;
  return Out;
}

/// "4 * 2" -> "8", "256u" -> "256" (the demangler's spelling); a type or
/// anything else stays as written, blanks removed.
static std::string normalizedArg(llvm::StringRef A) {
  A = A.trim();
  llvm::StringRef Digits = A.rtrim("ulUL");
  if (!Digits.empty() && Digits.size() < A.size() &&
      llvm::all_of(Digits, llvm::isDigit))
    return Digits.str();
  if (auto E = IntExpr::parse(A)) {
    if (E->identifiers().empty()) {
      if (auto V = E->evaluate({}))
        return std::to_string(*V);
      else
        llvm::consumeError(V.takeError());
    }
  } else {
    llvm::consumeError(E.takeError());
  }
  return withoutBlanks(A);
}

/// Splits "a, b<c, d>, e" at top-level commas.
static std::vector<std::string> splitTemplateArgs(llvm::StringRef S) {
  std::vector<std::string> Out;
  int Depth = 0;
  std::string Cur;
  for (char C : S) {
    if (C == '<' || C == '(')
      ++Depth;
    else if (C == '>' || C == ')')
      --Depth;
    if (C == ',' && Depth == 0) {
      Out.push_back(Cur);
      Cur.clear();
      continue;
    }
    Cur += C;
  }
  if (!llvm::StringRef(Cur).trim().empty())
    Out.push_back(Cur);
  return Out;
}

const build::KernelResources *
forge::measure::findKernelResources(const build::CompileResult &R,
                                    llvm::StringRef Kernel,
                                    llvm::ArrayRef<std::string> TemplateArgs) {
  std::string Want;
  for (const std::string &A : TemplateArgs)
    Want += normalizedArg(A) + ",";
  std::vector<const build::KernelResources *> ByName;
  for (const build::KernelResources &K : R.Resources) {
    if (!K.IsEntry)
      continue;
    llvm::StringRef D = K.DemangledName;
    D.consume_front("void ");
    if (!D.consume_front(Kernel) || D.empty() || (D[0] != '<' && D[0] != '('))
      continue;
    if (D[0] == '(') {
      if (TemplateArgs.empty())
        return &K;
      continue;
    }
    // The argument list: from '<' to its matching '>'.
    int Depth = 0;
    size_t End = 0;
    for (size_t I = 0; I < D.size(); ++I) {
      if (D[I] == '<')
        ++Depth;
      else if (D[I] == '>' && --Depth == 0) {
        End = I;
        break;
      }
    }
    std::string Have;
    for (const std::string &A : splitTemplateArgs(D.slice(1, End)))
      Have += normalizedArg(A) + ",";
    if (Have == Want)
      return &K;
    ByName.push_back(&K);
  }
  return ByName.size() == 1 ? ByName.front() : nullptr;
}

llvm::Expected<std::string> forge::measure::findInjectLibrary(llvm::StringRef WorkerPath) {
  llvm::SmallString<256> Inject(llvm::sys::path::parent_path(WorkerPath));
  llvm::sys::path::append(Inject, "libforge-inject.so");
  if (!llvm::sys::fs::exists(Inject))
    return makeError("libforge-inject.so is not beside {0}; build the forge-inject target",
                     WorkerPath);
  return Inject.str().str();
}

llvm::Expected<std::string> forge::measure::findWorker(llvm::StringRef Explicit,
                                                       llvm::StringRef ToolDir) {
  auto Usable = [](llvm::StringRef P) {
    return llvm::sys::fs::can_execute(P) && !llvm::sys::fs::is_directory(P);
  };
  if (!Explicit.empty()) {
    if (Usable(Explicit))
      return Explicit.str();
    return makeUsageError("--worker: '{0}' is not an executable", Explicit);
  }
  if (const char *E = std::getenv("FORGE_WORKER"); E && *E) {
    if (Usable(E))
      return std::string(E);
    return makeError("FORGE_WORKER names '{0}', which is not an executable", E);
  }
  llvm::SmallString<256> Beside(ToolDir);
  llvm::sys::path::append(Beside, "forge-worker");
  if (Usable(Beside))
    return Beside.str().str();
  if (auto P = findProgram("forge-worker"))
    return *P;
  return makeError(
      "forge-worker was not found (looked at --worker, $FORGE_WORKER, {0} and "
      "PATH); build it with: cmake -S tools/forge-worker -B build-worker && "
      "cmake --build build-worker",
      Beside);
}

static std::atomic<forge::measure::SandboxNotice> TheSandboxNotice{nullptr};

void forge::measure::setSandboxNotice(SandboxNotice N) { TheSandboxNotice = N; }

void forge::measure::noticeSandboxOnce(const SandboxInfo &S) {
  static std::atomic<bool> Done{false};
  if (S.Refused.empty() && S.Mode != "off")
    return;
  SandboxNotice N = TheSandboxNotice;
  if (N && !Done.exchange(true))
    N(S);
}

llvm::Expected<GpuInfo> forge::measure::queryGpu(llvm::StringRef Worker) {
  SubprocessOptions O;
  O.TimeoutSeconds = 60;
  O.ScrubSecrets = true;
  auto R = runProgram(Worker, {Worker.str(), "info"}, O);
  if (!R)
    return R.takeError();
  llvm::StringRef Err = llvm::StringRef(R->Stderr).trim();
  if (!R->ok())
    return makeError("no usable GPU ({0})",
                     Err.empty() ? "forge-worker info failed" : Err);
  auto J = parseJson(llvm::StringRef(R->Stdout).trim(), "forge-worker info");
  if (!J)
    return J.takeError();
  JsonReader Read("forge-worker info");
  std::string CC = Read.string(*J, "$", "cc", /*Required=*/true);
  std::string Name = Read.string(*J, "$", "name");
  if (auto E = Read.takeError())
    return std::move(E);
  auto [Major, Minor] = llvm::StringRef(CC).split('.');
  if (Major.empty() || Minor.empty())
    return makeError("forge-worker info gave no compute capability: {0}",
                     R->Stdout);
  auto T = arch::lookupTarget("sm_" + Major.str() + Minor.str());
  if (!T)
    return makeError("the GPU ({0}) has compute capability {1}, which the Arch "
                     "database does not know",
                     Name, CC);
  return GpuInfo{&*T, Name};
}

llvm::Expected<LocalGpu> forge::measure::findLocalGpu(llvm::StringRef Explicit,
                                                      llvm::StringRef ToolDir) {
  auto W = findWorker(Explicit, ToolDir);
  if (!W)
    return W.takeError();
  auto Info = queryGpu(*W);
  if (!Info)
    return Info.takeError();
  return LocalGpu{*W, Info->Target, Info->Name};
}

namespace {

/// Lines of results.jsonl that appeared since the last call.
class ResultTail {
public:
  explicit ResultTail(std::string Path) : Path(std::move(Path)) {}
  std::vector<CandidateResult> poll() {
    std::vector<CandidateResult> Out;
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return Out;
    llvm::StringRef Text = (*Buf)->getBuffer();
    if (Text.size() <= Offset)
      return Out;
    llvm::StringRef New = Text.substr(Offset);
    size_t LastNl = New.rfind('\n');
    if (LastNl == llvm::StringRef::npos)
      return Out;
    New = New.take_front(LastNl + 1);
    Offset += New.size();
    auto R = parseResults(New, Path);
    if (!R) {
      llvm::consumeError(R.takeError());
      return Out;
    }
    return R->Candidates;
  }

private:
  std::string Path;
  size_t Offset = 0;
};

CandidateResult compileFailure(const MeasureCandidate &C,
                               const build::CompileResult *R,
                               llvm::StringRef Why) {
  CandidateResult F;
  F.Id = C.Id;
  F.Label = C.Label;
  F.Status = CandidateStatus::CompileFailed;
  F.Reasons = {CandidateStatus::CompileFailed};
  F.Error = Why.str();
  if (R) {
    for (const build::CompilerDiagnostic &D : R->Diagnostics)
      if (D.isError()) {
        F.Error = D.format();
        break;
      }
    if (F.Error.empty())
      F.Error = llvm::StringRef(R->Log).trim().take_back(400).str();
  }
  return F;
}

} // namespace

llvm::Expected<MeasureReport>
forge::measure::runMeasurement(const build::NvccDriver &Driver,
                               const MeasureRequest &Req) {
  using Clock = std::chrono::steady_clock;
  const LaunchSpec &Spec = *Req.Spec;
  MeasureReport Rep;
  auto W = estimateWork(Spec, Req.Reference.Values);
  if (!W)
    return W.takeError();
  Rep.Work = *W;

  if (auto EC = llvm::sys::fs::create_directories(Req.JobDir))
    return makeError("cannot create the job directory {0}: {1}", Req.JobDir,
                     EC.message());
  for (const char *Stale : {"results.jsonl", "progress", "worker.log"})
    llvm::sys::fs::remove(Req.JobDir + "/" + Stale);

  // One harness per source file, with an entry per configuration.
  std::vector<const MeasureCandidate *> All{&Req.Reference};
  std::set<std::string> Ids{Req.Reference.Id};
  for (const MeasureCandidate &C : Req.Candidates) {
    if (!Ids.insert(C.Id).second)
      return makeError("two candidates have the id '{0}'", C.Id);
    All.push_back(&C);
  }
  std::map<std::string, size_t> HarnessOf; // source (and chunk) -> index
  std::map<std::string, size_t> EntriesOf;  // source -> configurations so far
  std::vector<std::string> Sources;
  std::vector<const LaunchSpec *> SpecOf; // per harness
  std::vector<std::vector<HarnessConfig>> Configs;
  std::vector<std::pair<size_t, std::string>> EntryOf; // per candidate
  for (const MeasureCandidate *C : All) {
    llvm::SmallString<256> Abs(C->Source);
    llvm::sys::fs::make_absolute(Abs);
    if (!llvm::sys::fs::exists(Abs))
      return makeError("{0}: no such file", C->Source);
    std::string Group = Abs.str().str();
    if (C->Spec)
      Group += "@" + std::to_string(reinterpret_cast<uintptr_t>(C->Spec));
    size_t Nth = EntriesOf[Group]++;
    if (Req.MaxEntriesPerHarness)
      Group += "#" + std::to_string(Nth / Req.MaxEntriesPerHarness);
    auto [It, New] = HarnessOf.try_emplace(Group, Sources.size());
    if (New) {
      Sources.push_back(Abs.str().str());
      SpecOf.push_back(C->Spec ? C->Spec : &Spec);
      Configs.emplace_back();
    }
    std::string Symbol =
        "forge_entry_" + std::to_string(Configs[It->second].size());
    Configs[It->second].push_back({Symbol, C->Values});
    EntryOf.push_back({It->second, Symbol});
  }

  if (Req.OnPhase)
    Req.OnPhase("compile");
  std::vector<build::CompileJob> Jobs;
  for (size_t H = 0; H < Sources.size(); ++H) {
    auto Text = generateHarness(*SpecOf[H], Sources[H], Configs[H]);
    if (!Text)
      return Text.takeError();
    std::string Cu = Req.JobDir + "/harness-" + std::to_string(H) + ".cu";
    if (auto E = writeFileAtomically(Cu, *Text))
      return std::move(E);
    build::CompileJob J;
    J.Source = Cu;
    J.Targets = {*Req.Target};
    J.Output = build::OutputKind::SharedLibrary;
    J.OutputPath = Req.JobDir + "/harness-" + std::to_string(H) + ".so";
    J.ResourceUsage = true;
    J.LineInfo = true;
    J.IncludeDirs = {llvm::sys::path::parent_path(Sources[H]).str()};
    J.ExtraFlags = Req.NvccFlags;
    J.Dependencies = {Sources[H]};
    Jobs.push_back(std::move(J));
  }
  auto T0 = Clock::now();
  auto Compiled = Driver.compileAll(Jobs, Req.CompileJobs);
  Rep.CompileSeconds =
      std::chrono::duration<double>(Clock::now() - T0).count();

  std::vector<const build::CompileResult *> ResultOf(Sources.size(), nullptr);
  std::vector<std::string> CompileErrorOf(Sources.size());
  for (size_t H = 0; H < Compiled.size(); ++H) {
    if (!Compiled[H])
      CompileErrorOf[H] = llvm::toString(Compiled[H].takeError());
    else
      ResultOf[H] = &*Compiled[H];
  }
  auto Built = [&](size_t H) { return ResultOf[H] && ResultOf[H]->ok(); };

  for (size_t I = 0; I < All.size(); ++I) {
    CandidateOutcome O;
    O.Candidate = *All[I];
    O.Harness = Jobs[EntryOf[I].first].Source;
    size_t H = EntryOf[I].first;
    if (!Built(H)) {
      O.Result = compileFailure(*All[I], ResultOf[H], CompileErrorOf[H]);
      if (I == 0)
        return makeError("the reference ({0}) does not compile: {1}",
                         All[I]->Label, O.Result.Error);
    } else if (auto Args = templateArguments(*SpecOf[H], All[I]->Values)) {
      if (const build::KernelResources *K =
              findKernelResources(*ResultOf[H], Spec.Kernel, *Args))
        O.Resources = *K;
    } else {
      llvm::consumeError(Args.takeError());
    }
    Rep.Outcomes.push_back(std::move(O));
  }

  // The plan: everything that compiled.
  auto Entry = [&](size_t I) {
    const MeasureCandidate &C = *All[I];
    return JobEntry{C.Id,
                    "harness-" + std::to_string(EntryOf[I].first) + ".so",
                    EntryOf[I].second, C.Label, C.Values, C.Spec};
  };
  std::vector<JobEntry> Planned;
  for (size_t I = 1; I < All.size(); ++I)
    if (Built(EntryOf[I].first))
      Planned.push_back(Entry(I));
  auto Plan = renderPlan(Spec, Entry(0), Planned, Req.Job);
  if (!Plan)
    return Plan.takeError();
  if (auto E = writeFileAtomically(Req.JobDir + "/job.plan", *Plan))
    return std::move(E);
  if (auto E = writeFileAtomically(Req.JobDir + "/spec.json",
                                   toJson(Spec).dump(2) + "\n"))
    return std::move(E);

  if (Req.BuildOnly)
    return Rep;
  if (Req.OnPhase)
    Req.OnPhase("run");
  std::vector<std::string> Args{Req.WorkerPath, "run", Req.JobDir}; // argv[0] first
  if (Req.WorkerTimeoutS > 0) {
    Args.push_back("--timeout-s");
    Args.push_back(std::to_string(Req.WorkerTimeoutS));
  }
  std::atomic<bool> Running{true};
  size_t Total = Planned.size() + 1;
  std::thread Watcher([&] {
    ResultTail Tail(Req.JobDir + "/results.jsonl");
    size_t Done = 0;
    auto Drain = [&] {
      for (const CandidateResult &C : Tail.poll())
        if (Req.OnResult)
          Req.OnResult(C, ++Done, Total);
    };
    while (Running) {
      Drain();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    Drain();
  });
  auto T1 = Clock::now();
  SubprocessOptions RunOpts;
  RunOpts.ScrubSecrets = true; // the worker loads candidates (docs/sandbox.md)
  auto Run = runProgram(Req.WorkerPath, Args, RunOpts);
  Running = false;
  Watcher.join();
  Rep.RunSeconds = std::chrono::duration<double>(Clock::now() - T1).count();
  if (!Run)
    return Run.takeError();
  Rep.WorkerLog = Run->Stderr;

  auto Text = llvm::MemoryBuffer::getFile(Req.JobDir + "/results.jsonl",
                                          /*IsText=*/true);
  llvm::StringRef Tail = llvm::StringRef(Run->Stderr).trim().take_back(2000);
  if (!Text)
    return makeError("forge-worker wrote no results ({0}){1}{2}",
                     Run->ErrorMessage.empty()
                         ? "exit status " + std::to_string(Run->ExitCode)
                         : Run->ErrorMessage,
                     Tail.empty() ? "" : ":\n", Tail);
  auto Results = parseResults((*Text)->getBuffer(),
                              Req.JobDir + "/results.jsonl");
  if (!Results)
    return Results.takeError();
  if (Results->Sandbox)
    noticeSandboxOnce(*Results->Sandbox);
  if (Results->ReferenceFailure)
    return makeError("the reference failed on the GPU: {0}",
                     *Results->ReferenceFailure);
  if (Run->ExitCode != 0)
    return makeError("forge-worker failed (exit status {0}){1}{2}",
                     Run->ExitCode, Tail.empty() ? "" : ":\n", Tail);
  Rep.Device = Results->Device;
  Rep.Ceiling = Results->Ceiling;
  Rep.Sandbox = Results->Sandbox;
  for (CandidateOutcome &O : Rep.Outcomes) {
    if (O.Result.Status == CandidateStatus::CompileFailed)
      continue;
    const CandidateResult *R = Results->find(O.Candidate.Id);
    if (!R)
      return makeError("forge-worker gave no result for {0} ({1})",
                       O.Candidate.Id, O.Candidate.Label);
    O.Result = *R;
    if (O.Result.Label.empty())
      O.Result.Label = O.Candidate.Label;
  }
  return Rep;
}
