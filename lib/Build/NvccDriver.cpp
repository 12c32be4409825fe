//===- Build/NvccDriver.cpp -----------------------------------------------===//
#include "forge/Build/NvccDriver.h"
#include "forge/Build/DiagnosticParser.h"
#include "forge/Build/ResourceUsage.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include <chrono>
#include <optional>

using namespace llvm;

namespace forge::build {

StringRef outputKindName(OutputKind K) {
  switch (K) {
  case OutputKind::Object:
    return "object";
  case OutputKind::Cubin:
    return "cubin";
  case OutputKind::Ptx:
    return "ptx";
  case OutputKind::Executable:
    return "executable";
  case OutputKind::SharedLibrary:
    return "shared-library";
  case OutputKind::ResourceCheck:
    return "resource-check";
  }
  return "object";
}

NvccDriver::NvccDriver(CudaToolkit Toolkit, DriverOptions Opts)
    : Toolkit(std::move(Toolkit)), Opts(Opts) {}

Expected<std::vector<std::string>>
NvccDriver::buildArgs(const CompileJob &Job, StringRef OutputPath,
                      bool WithPaths) const {
  std::vector<std::string> Args = {Toolkit.NvccPath};
  bool OneTargetKind =
      Job.Output == OutputKind::Cubin || Job.Output == OutputKind::Ptx;
  if (OneTargetKind && Job.Targets.size() > 1) {
    std::vector<std::string> Names;
    for (const CodeTarget &T : Job.Targets)
      Names.push_back(T.Arch->Name);
    return makeUsageError("{0} output takes one target; got {1} ({2})",
                          outputKindName(Job.Output), Job.Targets.size(),
                          join(Names, ", "));
  }
  for (const CodeTarget &T : Job.Targets) {
    Args.push_back("-gencode");
    Args.push_back(T.Arch->gencode(T.Ptx));
  }
  switch (Job.Output) {
  case OutputKind::Object:
    Args.push_back("-c");
    break;
  case OutputKind::Cubin:
    Args.push_back("-cubin");
    break;
  case OutputKind::Ptx:
    Args.push_back("-ptx");
    break;
  case OutputKind::Executable:
    break;
  case OutputKind::SharedLibrary:
    // The runtime must be the process's one (the worker's), or the kernels
    // register with a private copy that cudaLaunchKernel cannot see.
    Args.push_back("-shared");
    Args.push_back("-cudart");
    Args.push_back("shared");
    Args.push_back("-Xcompiler");
    Args.push_back("-fPIC");
    break;
  case OutputKind::ResourceCheck:
    // nvcc refuses -cubin for several GPU code instances.
    Args.push_back(Job.Targets.size() > 1 ? "-c" : "-cubin");
    break;
  }
  if (Job.ResourceUsage || Job.Output == OutputKind::ResourceCheck) {
    Args.push_back("-Xptxas");
    Args.push_back("-v");
  }
  if (Job.LineInfo)
    Args.push_back("-lineinfo");
  if (!Job.Std.empty())
    Args.push_back("-std=" + Job.Std);
  for (const std::string &D : Job.IncludeDirs)
    Args.push_back("-I" + D);
  for (const std::string &D : Job.Defines)
    Args.push_back("-D" + D);
  Args.insert(Args.end(), Job.ExtraFlags.begin(), Job.ExtraFlags.end());
  if (WithPaths) {
    if (!OutputPath.empty()) {
      Args.push_back("-o");
      Args.push_back(OutputPath.str());
    }
    Args.push_back(Job.Source);
  }
  return Args;
}

Expected<std::vector<std::string>>
NvccDriver::buildCommand(const CompileJob &Job) const {
  return buildArgs(Job, Job.OutputPath, /*WithPaths=*/true);
}

Expected<std::vector<std::string>>
NvccDriver::keyArgs(const CompileJob &Job) const {
  auto Args = buildArgs(Job, "", /*WithPaths=*/false);
  if (!Args)
    return Args.takeError();
  Args->erase(Args->begin()); // The nvcc path; the version tag stands for it.
  return Args;
}

static StringRef outputExtension(OutputKind K) {
  switch (K) {
  case OutputKind::Object:
    return "o";
  case OutputKind::Cubin:
  case OutputKind::ResourceCheck:
    return "cubin";
  case OutputKind::Ptx:
    return "ptx";
  case OutputKind::Executable:
    return "out";
  case OutputKind::SharedLibrary:
    return "so";
  }
  return "o";
}

/// A temporary output path for a job that wants none kept.
static Expected<std::string> temporaryOutput(StringRef Ext) {
  SmallString<128> P;
  if (auto EC = sys::fs::createTemporaryFile("forge-nvcc", Ext, P))
    return makeError("cannot create a temporary file: {0}", EC.message());
  return P.str().str();
}

static bool hasPtxLineErrors(const CompileResult &R) {
  for (const CompilerDiagnostic &D : R.Diagnostics)
    if (D.Tool == "ptxas" && D.PtxLine && D.isError())
      return true;
  return false;
}

void NvccDriver::mapPtxErrors(const CompileJob &Job, CompileResult &R) const {
  // The PTX that ptxas rejected was nvcc's temporary and is gone. Compiling
  // again with -lineinfo -keep gives the same errors on PTX that carries
  // .loc directives and stays on disk until we have read it.
  SmallString<128> KeepDir;
  if (sys::fs::createUniqueDirectory("forge-ptx", KeepDir))
    return;
  scope_exit Cleanup([&] { sys::fs::remove_directories(KeepDir); });
  CompileJob Again = Job;
  Again.LineInfo = true;
  SmallString<128> Out(KeepDir);
  sys::path::append(Out, "out." + outputExtension(Job.Output).str());
  auto Args = buildArgs(Again, Out, /*WithPaths=*/true);
  if (!Args) {
    consumeError(Args.takeError());
    return;
  }
  Args->insert(Args->end(), {"-keep", "-keep-dir", KeepDir.str().str()});
  // Here, not on a CompileRunner's nodes: the PTX must be on this disk.
  auto Run = runHere({std::move(*Args), Job.WorkingDir,
                      Job.TimeoutSeconds ? Job.TimeoutSeconds : Opts.DefaultTimeoutSeconds});
  if (!Run) {
    consumeError(Run.takeError());
    return;
  }
  std::vector<CompilerDiagnostic> Mapped = parseDiagnostics(Run->Stderr);
  mapPtxDiagnostics(Mapped, [&](StringRef Path) -> std::optional<std::string> {
    SmallString<256> P(Path);
    if (!sys::path::is_absolute(P) && !Job.WorkingDir.empty()) {
      P = Job.WorkingDir;
      sys::path::append(P, Path);
    }
    auto Text = readFile(P);
    if (!Text) {
      consumeError(Text.takeError());
      return std::nullopt;
    }
    return std::move(*Text);
  });
  // Pair the original messages with the rerun's in order, by text.
  std::vector<bool> Used(Mapped.size(), false);
  for (CompilerDiagnostic &D : R.Diagnostics) {
    if (D.Tool != "ptxas" || !D.PtxLine)
      continue;
    for (size_t I = 0; I < Mapped.size(); ++I) {
      if (Used[I] || Mapped[I].Message != D.Message || !Mapped[I].PtxLine)
        continue;
      Used[I] = true;
      if (Mapped[I].Line) {
        D.File = Mapped[I].File;
        D.Line = Mapped[I].Line;
        D.Column = Mapped[I].Column;
      }
      break;
    }
  }
}

/// Rewrites the stored source path of a cached result to the job's: the
/// cache is keyed by content, so a hit may come from another file name.
static void retargetSource(CompileResult &R, StringRef OldSource,
                           StringRef NewSource) {
  if (OldSource.empty() || OldSource == NewSource)
    return;
  for (CompilerDiagnostic &D : R.Diagnostics)
    if (D.File == OldSource)
      D.File = NewSource.str();
  std::string Log;
  StringRef Rest = R.Log;
  while (true) {
    size_t Pos = Rest.find(OldSource);
    if (Pos == StringRef::npos)
      break;
    Log += Rest.take_front(Pos).str() + NewSource.str();
    Rest = Rest.drop_front(Pos + OldSource.size());
  }
  Log += Rest.str();
  R.Log = std::move(Log);
}

/// What compile() carries from the cache lookup to nvcc's output.
struct NvccDriver::Pending {
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  std::optional<CompileResult> Hit; ///< a cache hit: the result, nothing to run
  std::optional<std::string> Key;
  std::string DefaultArch;
  std::string OutputPath;
  bool TempOutput = false;
  CompileCommand Command;
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  }
};

Expected<NvccDriver::Pending> NvccDriver::prepare(const CompileJob &Job) const {
  Pending P;
  if (Job.Source.empty())
    return makeUsageError("a compile job needs a source file");

  // Validate the job (and get the cache key's flag list) before any work.
  auto KeyArgs = keyArgs(Job);
  if (!KeyArgs)
    return KeyArgs.takeError();

  if (Opts.Cache && Job.UseCache) {
    auto K = CompileCache::computeKey(Job, *KeyArgs, Toolkit.versionTag(),
                                      {Toolkit.Root});
    if (K)
      P.Key = *K;
    else
      consumeError(K.takeError()); // An unreadable source: nvcc will say so.
  }

  // A single target names the arch of functions ptxas lists without one.
  if (Job.Targets.size() == 1)
    P.DefaultArch = Job.Targets.front().Ptx ? Job.Targets.front().Arch->gencodeArch()
                                            : Job.Targets.front().Arch->gencodeCode();

  if (P.Key) {
    if (std::optional<CompileResult> Hit =
            Opts.Cache->lookup(*P.Key, Job.OutputPath)) {
      std::string OldSource =
          Hit->Command.empty() ? std::string() : Hit->Command.back();
      retargetSource(*Hit, OldSource, Job.Source);
      // Entries stored before the cache kept file modes hold executables
      // without their x bits.
      if (Job.Output == OutputKind::Executable && !Hit->OutputPath.empty())
        if (auto Perm = sys::fs::getPermissions(Hit->OutputPath))
          sys::fs::setPermissions(Hit->OutputPath,
                                  *Perm | sys::fs::owner_exe | sys::fs::group_exe |
                                      sys::fs::others_exe);
      auto Cmd = buildCommand(Job);
      if (Cmd)
        Hit->Command = std::move(*Cmd);
      else
        consumeError(Cmd.takeError());
      Hit->Seconds = P.elapsed();
      P.Hit = std::move(*Hit);
      return std::move(P);
    }
  }

  P.OutputPath = Job.OutputPath;
  P.TempOutput = P.OutputPath.empty();
  if (P.TempOutput) {
    auto T = temporaryOutput(outputExtension(Job.Output));
    if (!T)
      return T.takeError();
    P.OutputPath = *T;
    // nvcc writes it; an empty file left from createTemporaryFile would be
    // mistaken for output if nvcc fails before writing.
    sys::fs::remove(P.OutputPath);
  }
  auto Args = buildArgs(Job, P.OutputPath, /*WithPaths=*/true);
  if (!Args) {
    if (P.TempOutput)
      sys::fs::remove(P.OutputPath);
    return Args.takeError();
  }
  P.Command.Args = std::move(*Args);
  P.Command.WorkingDir = Job.WorkingDir;
  P.Command.TimeoutSeconds =
      Job.TimeoutSeconds ? Job.TimeoutSeconds : Opts.DefaultTimeoutSeconds;
  return std::move(P);
}

Expected<SubprocessResult> NvccDriver::runHere(const CompileCommand &C) const {
  SubprocessOptions SO;
  SO.TimeoutSeconds = C.TimeoutSeconds;
  SO.WorkingDir = C.WorkingDir;
  SO.ScrubSecrets = true; // candidates are untrusted code (docs/sandbox.md)
  SO.NoNetwork = true;
  return runProgram(Toolkit.NvccPath, C.Args, SO);
}

CompileResult NvccDriver::finish(const CompileJob &Job, Pending &P,
                                 Expected<SubprocessResult> Run) const {
  scope_exit RemoveTemp([&] {
    if (P.TempOutput)
      sys::fs::remove(P.OutputPath);
  });
  CompileResult R;
  R.Command = P.Command.Args;
  if (!Run) {
    // nvcc could not be started: a crash of the compile, with the reason.
    R.Status = CompileStatus::Crashed;
    R.Diagnostics.push_back({"", 0, 0, DiagSeverity::Fatal,
                             "nvcc could not be run: " + toString(Run.takeError()),
                             "nvcc"});
    R.Seconds = P.elapsed();
    return R;
  }
  R.ExitCode = Run->ExitCode;
  R.Log = Run->Stderr;
  if (!Run->Stdout.empty()) {
    if (!R.Log.empty() && R.Log.back() != '\n')
      R.Log += '\n';
    R.Log += Run->Stdout;
  }
  if (Run->TimedOut)
    R.Status = CompileStatus::TimedOut;
  else if (Run->Crashed)
    R.Status = CompileStatus::Crashed;
  else if (Run->ExitCode == 0)
    R.Status = CompileStatus::Success;
  else
    R.Status = CompileStatus::Failed;
  R.Diagnostics = parseDiagnostics(R.Log);
  R.Resources = parseResourceUsage(R.Log, P.DefaultArch);
  if (R.Status == CompileStatus::TimedOut)
    R.Diagnostics.push_back({"", 0, 0, DiagSeverity::Fatal,
                             "nvcc timed out after " +
                                 std::to_string(P.Command.TimeoutSeconds) + " s",
                             "nvcc"});
  else if (R.Status == CompileStatus::Crashed)
    R.Diagnostics.push_back({"", 0, 0, DiagSeverity::Fatal,
                             "nvcc crashed: " + Run->ErrorMessage, "nvcc"});

  if (R.Status == CompileStatus::Failed && Job.MapPtxLines &&
      hasPtxLineErrors(R))
    mapPtxErrors(Job, R);

  if (P.Key && (R.Status == CompileStatus::Success ||
                R.Status == CompileStatus::Failed)) {
    R.Seconds = P.elapsed();
    // The cache is an optimisation: failing to store is not a failed compile.
    if (Error E = Opts.Cache->store(
            *P.Key, R, R.ok() ? StringRef(P.OutputPath) : StringRef()))
      consumeError(std::move(E));
  }
  if (R.ok() && !P.TempOutput)
    R.OutputPath = P.OutputPath;
  R.Seconds = P.elapsed();
  return R;
}

Expected<CompileResult> NvccDriver::compile(const CompileJob &Job) const {
  auto P = prepare(Job);
  if (!P)
    return P.takeError();
  if (P->Hit)
    return std::move(*P->Hit);
  if (Opts.Runner) {
    auto Runs = Opts.Runner->runAll({P->Command});
    if (!Runs)
      return finish(Job, *P, Runs.takeError());
    return finish(Job, *P, std::move(Runs->front()));
  }
  auto Run = runHere(P->Command);
  if (!Run)
    return Run.takeError(); // nvcc cannot be started here: not a compile's result
  return finish(Job, *P, std::move(*Run));
}

std::vector<Expected<CompileResult>>
NvccDriver::compileAll(ArrayRef<CompileJob> JobList, unsigned Jobs) const {
  std::vector<std::optional<Expected<CompileResult>>> Slots(JobList.size());
  if (!Opts.Runner) {
    DefaultThreadPool Pool(hardware_concurrency(Jobs));
    for (size_t I = 0; I < JobList.size(); ++I)
      Pool.async([this, &JobList, &Slots, I] {
        Slots[I].emplace(compile(JobList[I]));
      });
    Pool.wait();
  } else {
    // The cache here; what missed it runs elsewhere, in one call.
    std::vector<std::optional<Pending>> Ready(JobList.size());
    std::vector<size_t> Misses;
    std::vector<CompileCommand> Commands;
    for (size_t I = 0; I < JobList.size(); ++I) {
      auto P = prepare(JobList[I]);
      if (!P)
        Slots[I].emplace(P.takeError());
      else if (P->Hit)
        Slots[I].emplace(std::move(*P->Hit));
      else {
        Misses.push_back(I);
        Commands.push_back(P->Command);
        Ready[I].emplace(std::move(*P));
      }
    }
    if (!Commands.empty()) {
      auto Runs = Opts.Runner->runAll(Commands);
      std::string Why = Runs ? "" : toString(Runs.takeError());
      for (size_t K = 0; K < Misses.size(); ++K) {
        size_t I = Misses[K];
        if (Runs)
          Slots[I].emplace(finish(JobList[I], *Ready[I], std::move((*Runs)[K])));
        else
          Slots[I].emplace(finish(JobList[I], *Ready[I],
                                  makeError("{0}: {1}", Opts.Runner->where(), Why)));
      }
    }
  }
  std::vector<Expected<CompileResult>> Results;
  Results.reserve(Slots.size());
  for (auto &S : Slots)
    Results.push_back(std::move(*S));
  return Results;
}

CompileRunner::~CompileRunner() = default;

Expected<std::unique_ptr<Nvcc>> findNvcc(StringRef CudaPath, CompileRunner *Runner) {
  auto TK = CudaToolkit::find(CudaPath);
  if (!TK)
    return TK.takeError();
  auto N = std::make_unique<Nvcc>();
  DriverOptions DO;
  DO.Cache = &N->Cache;
  DO.Runner = Runner;
  N->Driver = std::make_unique<NvccDriver>(*TK, DO);
  return N;
}

} // namespace forge::build
