#include "forge/Support/FileUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <cstring>
#include <sys/file.h>

using namespace llvm;

namespace forge {

std::string absolutePath(StringRef Path) {
  SmallString<256> P(Path);
  sys::fs::make_absolute(P);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

Expected<std::string> readFile(StringRef Path) {
  if (sys::fs::is_directory(Path))
    return makeError("'{0}' is a directory, not a file", Path);
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError("cannot read '{0}': {1}", Path, Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

Error writeFileAtomically(StringRef Path, StringRef Contents) {
  if (Path == "-") {
    outs() << Contents;
    outs().flush();
    return Error::success();
  }
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  StringRef Dir = sys::path::parent_path(Abs);
  SmallString<256> Model(Dir);
  sys::path::append(Model, "." + sys::path::filename(Abs).str() + ".forge-%%%%%%");
  int FD;
  SmallString<256> Tmp;
  if (auto EC = sys::fs::createUniqueFile(Model, FD, Tmp))
    return makeError("cannot write '{0}': {1}", Path, EC.message());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Contents;
    OS.close();
    if (OS.has_error()) {
      std::string Msg = OS.error().message();
      OS.clear_error();
      sys::fs::remove(Tmp);
      return makeError("cannot write '{0}': {1}", Path, Msg);
    }
  }
  // Keep the permissions of a file we replace.
  sys::fs::file_status St;
  if (!sys::fs::status(Abs, St))
    sys::fs::setPermissions(Tmp, St.permissions());
  if (auto EC = sys::fs::rename(Tmp, Abs)) {
    sys::fs::remove(Tmp);
    return makeError("cannot write '{0}': {1}", Path, EC.message());
  }
  return Error::success();
}

std::string executableDir(const char *Argv0) {
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable(Argv0, &Anchor);
  return sys::path::parent_path(Exe).str();
}

std::string userCacheDir() {
  SmallString<256> P;
  if (auto X = sys::Process::GetEnv("XDG_CACHE_HOME"); X && !X->empty()) {
    P = *X;
  } else if (auto H = sys::Process::GetEnv("HOME"); H && !H->empty()) {
    P = *H;
    sys::path::append(P, ".cache");
  } else if (sys::path::home_directory(P)) {
    sys::path::append(P, ".cache");
  } else {
    return "";
  }
  sys::path::append(P, "forge");
  return P.str().str();
}

} // namespace forge

Expected<forge::FileLock> forge::FileLock::acquire(StringRef Path, std::function<void()> OnWait) {
  int FD = -1;
  if (std::error_code EC =
          sys::fs::openFileForWrite(Path, FD, sys::fs::CD_OpenAlways, sys::fs::OF_None))
    return makeError("{0}: cannot open the lock file: {1}", Path, EC.message());
  FileLock L(FD);
  // flock, not fcntl: its lock belongs to the open file, so it also holds
  // between threads of one process, and it goes with the process.
  if (::flock(FD, LOCK_EX | LOCK_NB) == 0)
    return std::move(L);
  if (errno != EWOULDBLOCK)
    return makeError("{0}: cannot lock it: {1}", Path, std::strerror(errno));
  if (OnWait)
    OnWait();
  while (::flock(FD, LOCK_EX) != 0)
    if (errno != EINTR)
      return makeError("{0}: cannot lock it: {1}", Path, std::strerror(errno));
  return std::move(L);
}

forge::FileLock::~FileLock() {
  if (FD < 0)
    return;
  ::flock(FD, LOCK_UN);
  sys::Process::SafelyCloseFileDescriptor(FD);
}

Expected<std::vector<std::string>> forge::parseDepfile(StringRef Text, StringRef Name) {
  // Logical lines "targets: prerequisites", a backslash before the newline
  // continuing one; words split at unescaped blanks ("\\ " and "\\#" keep
  // theirs, "$$" is '$'). The targets are left out.
  std::vector<std::string> Deps;
  std::string Cur;
  bool InDeps = false, LineHasWords = false;
  auto Flush = [&] {
    if (!Cur.empty()) {
      LineHasWords = true;
      if (InDeps && !llvm::is_contained(Deps, Cur))
        Deps.push_back(Cur);
    }
    Cur.clear();
  };
  auto EndLine = [&]() -> Error {
    Flush();
    if (LineHasWords && !InDeps)
      return makeError("{0}: not a depfile: a line without 'target:'", Name);
    InDeps = LineHasWords = false;
    return Error::success();
  };
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    char N = I + 1 < Text.size() ? Text[I + 1] : '\0';
    if (C == '\\' && (N == '\n' || (N == '\r' && I + 2 < Text.size() && Text[I + 2] == '\n'))) {
      Flush();
      I += N == '\r' ? 2 : 1;
      continue;
    }
    if (C == '\\' && (N == ' ' || N == '#' || N == '\t')) {
      Cur += N;
      ++I;
      continue;
    }
    if (C == '$' && N == '$') {
      Cur += '$';
      ++I;
      continue;
    }
    if (C == '\n') {
      if (Error E = EndLine())
        return std::move(E);
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\r') {
      Flush();
      continue;
    }
    // The ':' that ends the targets is followed by a blank or the line's
    // end (so "C:\\x" keeps its colon).
    if (C == ':' && !InDeps && (N == ' ' || N == '\t' || N == '\n' || N == '\r' || N == '\0')) {
      Flush();
      if (!LineHasWords)
        return makeError("{0}: not a depfile: ':' without a target", Name);
      InDeps = true;
      continue;
    }
    Cur += C;
  }
  if (Error E = EndLine())
    return std::move(E);
  return Deps;
}

std::string forge::renderDepfile(StringRef Target, ArrayRef<std::string> Deps) {
  auto Escape = [](StringRef P) {
    std::string Out;
    for (char C : P) {
      if (C == ' ' || C == '#')
        Out += '\\';
      else if (C == '$')
        Out += '$';
      Out += C;
    }
    return Out;
  };
  std::string Out = Escape(Target) + ":";
  for (const std::string &D : Deps)
    Out += " \\\n  " + Escape(D);
  return Out + "\n";
}
