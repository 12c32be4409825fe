//===- Measurement.cpp - Build, run and read one job ----------------------===//
#include "forge/Measure/Measurement.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/JsonReader.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Support/Hash.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Path.h"
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <unistd.h>
#include <utility>
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
  return parseGpuInfo(R->Stdout);
}

llvm::Expected<GpuInfo> forge::measure::parseGpuInfo(llvm::StringRef Stdout) {
  auto J = parseJson(Stdout.trim(), "forge-worker info");
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
                     Stdout);
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
    // "ld returned 1 exit status" says nothing by itself: the linker's own
    // lines before it say what failed.
    if (llvm::StringRef(F.Error).contains("ld returned")) {
      llvm::SmallVector<llvm::StringRef, 16> Lines;
      llvm::StringRef(R->Log).split(Lines, '\n', -1, false);
      std::vector<std::string> Linker;
      for (llvm::StringRef L : Lines)
        if ((L.contains("/ld:") || L.starts_with("ld:")) && Linker.size() < 3)
          Linker.push_back(L.trim().str());
      if (!Linker.empty())
        F.Error += " (" + llvm::join(Linker, "; ") + ")";
    }
    if (F.Error.empty())
      F.Error = llvm::StringRef(R->Log).trim().take_back(400).str();
  }
  return F;
}

/// What an executor reports, passed on to Req's callbacks: results counted
/// as they arrive (the reference once, though every job directory of a
/// split measurement times it), the executor's status and the interrupt.
struct ResultCount {
  std::mutex Mu;
  size_t Done = 0;
  bool ReferenceSeen = false;
};
ExecutorHooks hooksFor(const MeasureRequest &Req, size_t Total, ResultCount &Count) {
  ExecutorHooks H;
  H.OnResult = [&Req, &Count, Total](llvm::StringRef, const CandidateResult &C) {
    std::lock_guard<std::mutex> L(Count.Mu);
    if (C.Reference && std::exchange(Count.ReferenceSeen, true))
      return;
    if (Req.OnResult)
      Req.OnResult(C, ++Count.Done, Total);
  };
  H.OnStatus = Req.OnStatus;
  H.Interrupted = Req.Interrupted;
  return H;
}

/// The executor splits the work (Executor::candidatesPerJob): directories
/// of at most N candidates, each with the reference and copies of the
/// harness libraries it needs, so that a directory runs on any node by
/// itself. A directory is named by the hash of what it measures (plan,
/// spec, harness sources and flags, the candidates' sources), which lets a
/// run after an interruption find the directories an earlier one finished
/// or left queued. Each directory times its own reference; the candidates'
/// times are scaled by the first directory's reference over their own, so
/// that tasks on different nodes compare.
llvm::Expected<MeasureReport>
runSplit(const MeasureRequest &Req, Executor &Exec,
         const std::vector<const MeasureCandidate *> &All,
         const std::vector<size_t> &Planned,
         llvm::function_ref<JobEntry(size_t)> Entry,
         const std::vector<build::CompileJob> &Jobs, MeasureReport Rep) {
  const LaunchSpec &Spec = *Req.Spec;
  unsigned N = Exec.candidatesPerJob();
  std::string Store = Exec.jobStore().empty() ? Req.JobDir + "/jobs" : Exec.jobStore();
  if (auto EC = llvm::sys::fs::create_directories(Store))
    return makeError("cannot create {0}: {1}", Store, EC.message());
  std::string SpecJson = toJson(Spec).dump(2) + "\n";
  std::map<std::string, std::string> SourceText; // candidate sources, read once
  auto SourceOf = [&](const std::string &Path) -> const std::string & {
    auto [It, New] = SourceText.try_emplace(Path);
    if (New) {
      if (auto T = readFile(Path))
        It->second = std::move(*T);
      else
        It->second = "unreadable: " + llvm::toString(T.takeError());
    }
    return It->second;
  };

  struct Part {
    std::string Dir;
    std::vector<size_t> Members; // indices into All, the reference first
  };
  std::vector<Part> Parts;
  for (size_t B = 0; B < Planned.size(); B += N) {
    Part P;
    P.Members.push_back(0);
    for (size_t K = B; K < std::min(Planned.size(), B + N); ++K)
      P.Members.push_back(Planned[K]);
    std::vector<JobEntry> Entries;
    std::set<std::string> Libs;
    for (size_t M : P.Members) {
      JobEntry E = Entry(M);
      Libs.insert(E.Library);
      if (M)
        Entries.push_back(std::move(E));
    }
    auto Plan = renderPlan(Spec, Entry(0), Entries, Req.Job);
    if (!Plan)
      return Plan.takeError();
    ContentHasher Key;
    Key.add(*Plan).add(SpecJson).add(Req.Target->Name).addAll(Req.NvccFlags);
    for (const build::CompileJob &J : Jobs)
      if (Libs.count(llvm::sys::path::filename(J.OutputPath).str())) {
        Key.add(llvm::sys::path::filename(J.OutputPath));
        Key.add(SourceOf(J.Source));
      }
    for (size_t M : P.Members)
      Key.add(SourceOf(All[M]->Source));
    std::string Hash = Key.hex().substr(0, 24);
    P.Dir = Store + "/" + Hash;
    // Written once: a directory with its key is complete, and may be
    // running on a node right now.
    auto Have = readFile(P.Dir + "/key");
    if (Have && llvm::StringRef(*Have).trim() == Hash) {
      Parts.push_back(std::move(P));
      continue;
    }
    if (!Have)
      llvm::consumeError(Have.takeError());
    std::string Tmp = P.Dir + ".tmp-" + std::to_string(::getpid());
    llvm::sys::fs::remove_directories(Tmp);
    if (auto EC = llvm::sys::fs::create_directories(Tmp))
      return makeError("cannot create {0}: {1}", Tmp, EC.message());
    for (const std::string &Lib : Libs)
      if (auto EC = llvm::sys::fs::copy_file(Req.JobDir + "/" + Lib, Tmp + "/" + Lib))
        return makeError("cannot copy {0} into {1}: {2}", Lib, Tmp, EC.message());
    if (auto E = writeFileAtomically(Tmp + "/job.plan", *Plan))
      return std::move(E);
    if (auto E = writeFileAtomically(Tmp + "/spec.json", SpecJson))
      return std::move(E);
    if (auto E = writeFileAtomically(Tmp + "/key", Hash + "\n"))
      return std::move(E);
    llvm::sys::fs::remove_directories(P.Dir);
    if (auto EC = llvm::sys::fs::rename(Tmp, P.Dir))
      return makeError("cannot move {0} to {1}: {2}", Tmp, P.Dir, EC.message());
    Parts.push_back(std::move(P));
  }
  if (Req.BuildOnly || Parts.empty())
    return Rep;

  if (Req.OnPhase)
    Req.OnPhase("run");
  std::vector<std::string> Dirs;
  for (const Part &P : Parts)
    Dirs.push_back(P.Dir);
  ResultCount Count;
  ExecutorHooks Hooks = hooksFor(Req, Planned.size() + 1, Count);
  auto T1 = std::chrono::steady_clock::now();
  auto Runs = Exec.run(Dirs, Hooks);
  Rep.RunSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T1).count();
  if (!Runs)
    return Runs.takeError();

  // Results, part by part; candidates are found by id in Rep.Outcomes
  // (request order: All's, with the reference first).
  std::map<std::string, CandidateOutcome *> OutcomeOf;
  for (CandidateOutcome &O : Rep.Outcomes)
    OutcomeOf[O.Candidate.Id] = &O;
  double RefNs = 0;
  std::string FirstFailure;
  for (size_t I = 0; I < Parts.size(); ++I) {
    const JobRun &Run = (*Runs)[I];
    const Part &P = Parts[I];
    if (!Rep.WorkerLog.empty() && !Run.Log.empty())
      Rep.WorkerLog += "\n";
    Rep.WorkerLog += Run.Log;
    auto Fail = [&](CandidateStatus St, const std::string &Why) {
      if (FirstFailure.empty())
        FirstFailure = Why;
      for (size_t M : P.Members)
        if (M) {
          CandidateResult &R = OutcomeOf[All[M]->Id]->Result;
          R = CandidateResult();
          R.Id = All[M]->Id;
          R.Label = All[M]->Label;
          R.Status = St;
          R.Reasons = {St};
          R.Error = Why;
        }
    };
    if (!Run.Finished) {
      Fail(Run.Interrupted ? CandidateStatus::Interrupted : CandidateStatus::Lost,
           Run.ErrorMessage + " (" + P.Dir + ")");
      continue;
    }
    auto Text = readFile(P.Dir + "/results.jsonl");
    if (!Text) {
      Fail(CandidateStatus::MeasurementFailed,
           "forge-worker wrote no results in " + P.Dir + " (exit status " +
               std::to_string(Run.ExitCode) + ")");
      llvm::consumeError(Text.takeError());
      continue;
    }
    auto Results = parseResults(*Text, P.Dir + "/results.jsonl");
    if (!Results)
      return Results.takeError();
    if (Results->Sandbox)
      noticeSandboxOnce(*Results->Sandbox);
    if (Results->ReferenceFailure)
      return makeError("the reference failed on the GPU ({0}): {1}", P.Dir,
                       *Results->ReferenceFailure);
    if (Run.ExitCode != 0) {
      Fail(CandidateStatus::MeasurementFailed,
           "forge-worker failed in " + P.Dir + " (exit status " +
               std::to_string(Run.ExitCode) + "): " +
               llvm::StringRef(Run.Log).trim().take_back(400).str());
      continue;
    }
    const CandidateResult *Ref = Results->find(All[0]->Id);
    double PartRef = Ref && Ref->Time ? Ref->Time->Median : 0;
    if (!Rep.Device) {
      Rep.Device = Results->Device;
      Rep.Ceiling = Results->Ceiling;
      Rep.Sandbox = Results->Sandbox;
      if (Ref) {
        Rep.Outcomes.front().Result = *Ref;
        if (Rep.Outcomes.front().Result.Label.empty())
          Rep.Outcomes.front().Result.Label = All[0]->Label;
      }
      RefNs = PartRef;
    }
    double Scale = RefNs > 0 && PartRef > 0 ? RefNs / PartRef : 1;
    for (size_t M : P.Members) {
      if (!M)
        continue;
      const CandidateResult *R = Results->find(All[M]->Id);
      if (!R)
        return makeError("forge-worker gave no result for {0} ({1}) in {2}", All[M]->Id,
                         All[M]->Label, P.Dir);
      CandidateResult &Out = OutcomeOf[All[M]->Id]->Result;
      Out = *R;
      if (Out.Label.empty())
        Out.Label = All[M]->Label;
      if (Out.Time && Scale != 1) {
        TimeStats &T = *Out.Time;
        for (double *V : {&T.Median, &T.Min, &T.Max, &T.P10, &T.P90})
          *V *= Scale;
        for (double &V : Out.RoundMediansNs)
          V *= Scale;
      }
    }
  }
  bool Interrupted = llvm::any_of(*Runs, [](const JobRun &J) { return J.Interrupted; });
  // Interrupted before any directory finished: every candidate says so, and
  // the caller stops as after any interrupt.
  if (!Rep.Device && !Interrupted)
    return makeError("no job finished on the {0} executor: {1}", Exec.name(), FirstFailure);
  return Rep;
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
  MeasureRequest::HarnessKind Kind = Req.Harness;
  if (Kind == MeasureRequest::HarnessKind::Default) {
    std::optional<std::string> Env = llvm::sys::Process::GetEnv("FORGE_HARNESS");
    if (Env && *Env == "library")
      Kind = MeasureRequest::HarnessKind::Library;
    else if (Env && !Env->empty() && *Env != "cubin")
      return makeUsageError("FORGE_HARNESS='{0}': expected 'cubin' or 'library'", *Env);
  }
  // Relocatable device code (dynamic parallelism) needs the device linker
  // and cudadevrt, which a shared library's build runs and a cubin's does not.
  bool Relocatable = llvm::any_of(Req.NvccFlags, [](const std::string &F) {
    llvm::StringRef S(F);
    return S == "-rdc=true" || S == "-rdc" || S == "-dc" || S == "--device-c" ||
           S == "--relocatable-device-code=true" || S == "-rdc=1";
  });
  bool AsCubin = Kind != MeasureRequest::HarnessKind::Library && !Relocatable;
  std::vector<build::CompileJob> Jobs;
  for (size_t H = 0; H < Sources.size(); ++H) {
    auto Text = generateHarness(*SpecOf[H], Sources[H], Configs[H]);
    if (!Text)
      return Text.takeError();
    std::string Cu = Req.JobDir + "/harness-" + std::to_string(H) + ".cu";
    if (auto E = writeFileAtomically(Cu, *Text))
      return std::move(E);
    // Device code alone (a cubin): the worker finds each entry's kernel by
    // its mangled name (ptxas names it) and runs no host code of the
    // candidate's; nvcc skips the host compile (about 2.7x faster for a
    // CUB-heavy file). A harness whose kernel ptxas does not name is built
    // again as a shared library below.
    build::CompileJob J;
    J.Source = Cu;
    J.Targets = {*Req.Target};
    J.Output = AsCubin ? build::OutputKind::Cubin : build::OutputKind::SharedLibrary;
    J.OutputPath = Req.JobDir + "/harness-" + std::to_string(H) + (AsCubin ? ".cubin" : ".so");
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

  // Each entry's kernel among ptxas's records: its resources, and the
  // mangled name the worker looks the kernel up by.
  auto KernelOf = [&](size_t I) -> const build::KernelResources * {
    size_t H = EntryOf[I].first;
    auto Args = templateArguments(*SpecOf[H], All[I]->Values);
    if (!Args) {
      llvm::consumeError(Args.takeError());
      return nullptr;
    }
    return findKernelResources(*ResultOf[H], Spec.Kernel, *Args);
  };
  std::vector<std::string> MangledOf(All.size());
  std::set<size_t> AsLibrary; // harnesses built (again) as shared libraries
  for (size_t H = 0; !AsCubin && H < Jobs.size(); ++H)
    AsLibrary.insert(H);
  for (size_t I = 0; AsCubin && I < All.size(); ++I) {
    size_t H = EntryOf[I].first;
    if (!Built(H))
      continue;
    const build::KernelResources *K = KernelOf(I);
    if (K && !K->MangledName.empty())
      MangledOf[I] = K->MangledName;
    else
      AsLibrary.insert(H);
  }
  if (AsCubin && !AsLibrary.empty()) {
    std::vector<build::CompileJob> Again;
    for (size_t H : AsLibrary) {
      Jobs[H].Output = build::OutputKind::SharedLibrary;
      Jobs[H].OutputPath = Req.JobDir + "/harness-" + std::to_string(H) + ".so";
      Again.push_back(Jobs[H]);
    }
    auto T = Clock::now();
    auto Rebuilt = Driver.compileAll(Again, Req.CompileJobs);
    Rep.CompileSeconds += std::chrono::duration<double>(Clock::now() - T).count();
    size_t K = 0;
    for (size_t H : AsLibrary) {
      Compiled[H] = std::move(Rebuilt[K++]);
      ResultOf[H] = nullptr;
      if (!Compiled[H])
        CompileErrorOf[H] = llvm::toString(Compiled[H].takeError());
      else
        ResultOf[H] = &*Compiled[H];
    }
  }

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
    } else if (const build::KernelResources *K = KernelOf(I)) {
      O.Resources = *K;
    }
    Rep.Outcomes.push_back(std::move(O));
  }

  // The plan: everything that compiled; a cubin's entries by their kernel's
  // mangled name, a shared library's by their entry function.
  auto Entry = [&](size_t I) {
    const MeasureCandidate &C = *All[I];
    size_t H = EntryOf[I].first;
    bool Lib = AsLibrary.count(H);
    return JobEntry{C.Id, llvm::sys::path::filename(Jobs[H].OutputPath).str(),
                    Lib ? EntryOf[I].second : MangledOf[I], C.Label, C.Values, C.Spec};
  };
  std::vector<size_t> Planned; // indices into All
  for (size_t I = 1; I < All.size(); ++I)
    if (Built(EntryOf[I].first))
      Planned.push_back(I);
  std::optional<LocalExecutor> Local;
  Executor *Exec = Req.Exec;
  if (!Exec)
    Exec = &Local.emplace(Req.WorkerPath, Req.WorkerTimeoutS);
  if (Exec->candidatesPerJob() > 0)
    return runSplit(Req, *Exec, All, Planned, Entry, Jobs, std::move(Rep));

  std::vector<JobEntry> Entries;
  for (size_t I : Planned)
    Entries.push_back(Entry(I));
  auto Plan = renderPlan(Spec, Entry(0), Entries, Req.Job);
  if (!Plan)
    return Plan.takeError();
  if (auto E = writeFileAtomically(Req.JobDir + "/job.plan", *Plan))
    return std::move(E);
  if (auto E = writeFileAtomically(Req.JobDir + "/spec.json",
                                   toJson(Spec).dump(2) + "\n"))
    return std::move(E);

  if (Req.BuildOnly)
    return Rep;
  if (Req.BeforeRun)
    if (llvm::Error E = Req.BeforeRun())
      return std::move(E);
  if (Req.OnPhase)
    Req.OnPhase("run");
  ResultCount Count;
  ExecutorHooks Hooks = hooksFor(Req, Planned.size() + 1, Count);
  auto T1 = Clock::now();
  auto Runs = Exec->run({Req.JobDir}, Hooks);
  Rep.RunSeconds = std::chrono::duration<double>(Clock::now() - T1).count();
  if (!Runs)
    return Runs.takeError();
  const JobRun &Run = Runs->front();
  Rep.WorkerLog = Run.Log;

  auto Text = llvm::MemoryBuffer::getFile(Req.JobDir + "/results.jsonl",
                                          /*IsText=*/true);
  llvm::StringRef Tail = llvm::StringRef(Run.Log).trim().take_back(2000);
  if (!Text)
    return makeError("forge-worker wrote no results ({0}){1}{2}",
                     Run.ErrorMessage.empty()
                         ? "exit status " + std::to_string(Run.ExitCode)
                         : Run.ErrorMessage,
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
  if (!Run.Finished || Run.ExitCode != 0)
    return makeError("forge-worker failed ({0}){1}{2}",
                     Run.ErrorMessage.empty()
                         ? "exit status " + std::to_string(Run.ExitCode)
                         : Run.ErrorMessage,
                     Tail.empty() ? "" : ":\n", Tail);
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
