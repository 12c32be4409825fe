//===- Support/Subprocess.cpp ---------------------------------------------===//
#include "forge/Support/Subprocess.h"
#include "forge/Support/Error.h"
#include "forge/Support/Secrets.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <chrono>

extern char **environ;

using namespace llvm;

namespace forge {

static std::string slurp(StringRef Path) {
  std::string Out;
  if (auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false))
    Out = (*Buf)->getBuffer().str();
  return Out;
}

/// unshare's path when it can make a user and a network namespace here.
static const std::optional<std::string> &unshareProgram() {
  static const std::optional<std::string> Path = []() -> std::optional<std::string> {
    auto U = sys::findProgramByName("unshare");
    if (!U)
      return std::nullopt;
    std::optional<StringRef> Quiet[3] = {StringRef(""), StringRef(""), StringRef("")};
    StringRef Argv[] = {*U, "--map-current-user", "--net", "--", "/bin/true"};
    int RC = sys::ExecuteAndWait(*U, Argv, std::nullopt, Quiet, /*SecondsToWait=*/10);
    return RC == 0 ? std::optional<std::string>(*U) : std::nullopt;
  }();
  return Path;
}

bool networkIsolationAvailable() { return unshareProgram().has_value(); }

Expected<SubprocessResult> runProgram(StringRef Program, ArrayRef<std::string> Args,
                                      const SubprocessOptions &Opts) {
  SmallString<128> OutPath, ErrPath, InPath;
  // Every return, early ones included, leaves no temporary file behind.
  scope_exit RemoveTemporaries([&] {
    for (const auto &P : {OutPath, ErrPath, InPath})
      if (!P.empty())
        sys::fs::remove(P);
  });
  if (auto EC = sys::fs::createTemporaryFile("forge-out", "txt", OutPath))
    return makeError("cannot create a temporary file: {0}", EC.message());
  if (auto EC = sys::fs::createTemporaryFile("forge-err", "txt", ErrPath))
    return makeError("cannot create a temporary file: {0}", EC.message());
  std::optional<StringRef> Redirects[3] = {std::nullopt, StringRef(OutPath),
                                           StringRef(ErrPath)};
  if (Opts.Stdin) {
    int FD;
    if (auto EC = sys::fs::createTemporaryFile("forge-in", "txt", FD, InPath))
      return makeError("cannot create a temporary file: {0}", EC.message());
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << *Opts.Stdin;
    OS.close();
    Redirects[0] = StringRef(InPath);
  } else {
    Redirects[0] = StringRef("");
  }

  SmallVector<StringRef, 16> ArgRefs(Args.begin(), Args.end());
  std::optional<SmallVector<StringRef, 32>> EnvRefs;
  std::vector<std::string> Scrubbed;
  if (Opts.ScrubSecrets) {
    Scrubbed = Opts.Env ? support::scrubbedEnvironment(*Opts.Env)
                        : support::scrubbedEnvironment(environ);
    EnvRefs.emplace(Scrubbed.begin(), Scrubbed.end());
  } else if (Opts.Env) {
    EnvRefs.emplace(Opts.Env->begin(), Opts.Env->end());
  }

  // llvm::sys::ExecuteAndWait has no working-directory argument; run through
  // /bin/sh -c 'cd DIR && exec "$@"' when one is requested.
  std::vector<std::string> Wrapped;
  StringRef Exe = Program;
  if (!Opts.WorkingDir.empty()) {
    Wrapped = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", Opts.WorkingDir,
               Program.str()};
    for (size_t I = 1; I < Args.size(); ++I)
      Wrapped.push_back(Args[I]);
    ArgRefs.assign(Wrapped.begin(), Wrapped.end());
    Exe = "/bin/sh";
  }
  // No network: unshare ... -- PROGRAM ARGS.
  std::vector<std::string> Isolated;
  if (Opts.NoNetwork && unshareProgram()) {
    // unshare would report a missing program as its own exit status 127:
    // keep "cannot run" an error, as without the namespace.
    if (!sys::fs::can_execute(Exe))
      return makeError("cannot run '{0}': no such executable", Program);
    Isolated = {*unshareProgram(), "--map-current-user", "--net", "--", Exe.str()};
    for (size_t I = 1; I < ArgRefs.size(); ++I)
      Isolated.push_back(ArgRefs[I].str());
    ArgRefs.assign(Isolated.begin(), Isolated.end());
    Exe = Isolated.front();
  }

  SubprocessResult R;
  std::string ErrMsg;
  bool ExecFailed = false;
  auto Start = std::chrono::steady_clock::now();
  int RC = sys::ExecuteAndWait(
      Exe, ArgRefs,
      EnvRefs ? std::optional<ArrayRef<StringRef>>(*EnvRefs) : std::nullopt,
      Redirects, Opts.TimeoutSeconds, /*MemoryLimit=*/0, &ErrMsg, &ExecFailed);
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start)
                  .count();
  R.Stdout = slurp(OutPath);
  R.Stderr = slurp(ErrPath);
  if (ExecFailed)
    return makeError("cannot run '{0}': {1}", Program, ErrMsg);
  if (RC == -2) {
    // ExecuteAndWait reports both timeouts and signals as -2; the message
    // tells them apart.
    if (Opts.TimeoutSeconds && StringRef(ErrMsg).contains("timed out")) {
      R.TimedOut = true;
    } else {
      R.Crashed = true;
    }
    R.ErrorMessage = ErrMsg;
    R.ExitCode = -1;
  } else if (RC < 0) {
    R.ErrorMessage = ErrMsg;
    R.ExitCode = -1;
    R.Crashed = true;
  } else {
    R.ExitCode = RC;
  }
  return R;
}

std::optional<std::string> findProgram(StringRef Name, ArrayRef<std::string> Hints) {
  if (Name.contains('/'))
    return sys::fs::can_execute(Name) ? std::optional<std::string>(Name.str())
                                      : std::nullopt;
  SmallVector<StringRef, 4> HintRefs(Hints.begin(), Hints.end());
  if (!HintRefs.empty())
    if (auto P = sys::findProgramByName(Name, HintRefs))
      return *P;
  if (auto P = sys::findProgramByName(Name))
    return *P;
  return std::nullopt;
}

std::string shellJoin(ArrayRef<std::string> Args) {
  std::string Out;
  for (const std::string &A : Args) {
    if (!Out.empty())
      Out += ' ';
    bool Plain = !A.empty() && StringRef(A).find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                   "QRSTUVWXYZ0123456789-_./=:,+@%") ==
                                   StringRef::npos;
    if (Plain) {
      Out += A;
      continue;
    }
    Out += '\'';
    for (char C : A) {
      if (C == '\'')
        Out += "'\\''";
      else
        Out += C;
    }
    Out += '\'';
  }
  return Out;
}

} // namespace forge
