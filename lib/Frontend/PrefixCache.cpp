//===- Frontend/PrefixCache.cpp -------------------------------------------===//
#include "forge/Frontend/PrefixCache.h"
#include "forge/Frontend/CudaInvocation.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Hash.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Serialization/ASTReader.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/StringSaver.h"
#include <algorithm>

using namespace clang;
using namespace llvm;

namespace forge::frontend {

/// Bumped when the key recipe or the manifest's layout changes.
static constexpr const char *CacheFormat = "forge-pch-v1";
/// Headers of this many command lines are kept; older ones are removed.
static constexpr size_t MaxHeaders = 24;

std::string prefixCacheDir() {
  if (auto Off = sys::Process::GetEnv("FORGE_PCH"); Off && (*Off == "0" || *Off == "off"))
    return "";
  if (auto D = sys::Process::GetEnv("FORGE_PCH_DIR"); D && !D->empty())
    return *D;
  std::string Root = userCacheDir();
  if (Root.empty())
    return "";
  SmallString<256> P(Root);
  sys::path::append(P, "pch");
  return P.str().str();
}

/// The forced includes Forge adds itself: Clang's CUDA wrapper (the
/// driver's) and the prelude (buildClangCommand's).
static bool isForgePrefix(StringRef Include) {
  return Include == "__clang_cuda_runtime_wrapper.h" || Include == PreludeName;
}

/// How many of the invocation's forced includes, from the first, are
/// Forge's own.
static size_t prefixLength(const PreprocessorOptions &PPO) {
  size_t N = 0;
  while (N < PPO.Includes.size() && isForgePrefix(PPO.Includes[N]))
    ++N;
  return N;
}

/// The invocation's command line without the main file, hashed with what
/// else decides the header's contents.
static std::string cacheKey(CompilerInstance &CI) {
  SmallVector<const char *, 128> Args;
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  CI.getInvocation().generateCC1CommandLine(Args, [&](const Twine &A) {
    return Saver.save(A.str()).data();
  });
  StringRef Main;
  if (!CI.getFrontendOpts().Inputs.empty() && CI.getFrontendOpts().Inputs[0].isFile())
    Main = CI.getFrontendOpts().Inputs[0].getFile();
  ContentHasher H;
  H.add(CacheFormat).add(getClangFullVersion()).add(nvccCompatPrelude());
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "-main-file-name") {
      ++I;
      continue;
    }
    // The main file and what only names it or the directory it is parsed
    // from (its unit id, where debug info would say it was compiled): the
    // prefix reads neither.
    if (A == Main || A.starts_with("-cuid=") || A.starts_with("-fdebug-compilation-dir=") ||
        A.starts_with("-fcoverage-compilation-dir="))
      continue;
    H.add(A);
  }
  return H.hex().substr(0, 32);
}

/// One line per file the header was built from: "SIZE MTIME PATH".
static std::string manifestOf(const SourceManager &SM) {
  std::vector<std::string> Lines;
  for (auto It = SM.fileinfo_begin(), E = SM.fileinfo_end(); It != E; ++It) {
    FileEntryRef F = It->first;
    Lines.push_back(std::to_string(F.getSize()) + " " +
                    std::to_string(int64_t(F.getModificationTime())) + " " +
                    F.getName().str());
  }
  std::sort(Lines.begin(), Lines.end());
  return join(Lines, "\n") + "\n";
}

/// Whether every file of the manifest is as it was.
static bool manifestCurrent(StringRef Path, llvm::vfs::FileSystem &FS) {
  auto Text = readFile(Path);
  if (!Text) {
    consumeError(Text.takeError());
    return false;
  }
  SmallVector<StringRef, 0> Lines;
  StringRef(*Text).split(Lines, '\n', -1, /*KeepEmpty=*/false);
  if (Lines.empty())
    return false;
  for (StringRef L : Lines) {
    auto [Size, Rest] = L.split(' ');
    auto [Time, File] = Rest.split(' ');
    uint64_t S;
    int64_t T;
    if (Size.getAsInteger(10, S) || Time.getAsInteger(10, T) || File.empty())
      return false;
    auto St = FS.status(File);
    if (!St || St->getSize() != S || int64_t(sys::toTimeT(St->getLastModificationTime())) != T)
      return false;
  }
  return true;
}

/// Keeps the newest MaxHeaders headers of Dir.
static void prune(StringRef Dir) {
  std::vector<std::pair<sys::TimePoint<>, std::string>> Headers;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC)) {
    if (sys::path::extension(It->path()) != ".pch")
      continue;
    sys::fs::file_status St;
    if (!sys::fs::status(It->path(), St))
      Headers.emplace_back(St.getLastModificationTime(), It->path());
  }
  if (Headers.size() <= MaxHeaders)
    return;
  std::sort(Headers.begin(), Headers.end());
  for (size_t I = 0; I + MaxHeaders < Headers.size(); ++I) {
    for (StringRef Ext : {"files", "lock"}) {
      SmallString<256> Beside(Headers[I].second);
      sys::path::replace_extension(Beside, Ext);
      sys::fs::remove(Beside);
    }
    sys::fs::remove(Headers[I].second);
  }
}

/// Builds the header of CI's first N forced includes at Header, with its
/// manifest. False when the prefix does not compile cleanly.
static bool buildHeader(CompilerInstance &CI, size_t N, StringRef Header, StringRef Manifest) {
  auto Inv = std::make_shared<CompilerInvocation>(CI.getInvocation());
  FrontendOptions &FO = Inv->getFrontendOpts();
  InputKind Kind = FO.Inputs.empty() ? InputKind(Language::CUDA) : FO.Inputs[0].getKind();
  FO.Inputs.clear();
  FO.Inputs.emplace_back((Twine(PreludeDir) + "/" + PrefixMainName).str(), Kind);
  std::string Tmp = (Header + ".tmp" + Twine(sys::Process::getProcessId())).str();
  FO.OutputFile = Tmp;
  FO.ProgramAction = clang::frontend::GeneratePCH;
  PreprocessorOptions &PPO = Inv->getPreprocessorOpts();
  PPO.Includes.resize(N);
  PPO.ImplicitPCHInclude.clear();

  CompilerInstance Gen(Inv, CI.getPCHContainerOperations());
  Gen.setVirtualFileSystem(CI.getVirtualFileSystemPtr());
  Gen.setFileManager(CI.getFileManagerPtr());
  IgnoringDiagConsumer Quiet;
  Gen.createDiagnostics(&Quiet, /*ShouldOwnClient=*/false);
  GeneratePCHAction Act;
  bool OK = Gen.ExecuteAction(Act) && !Gen.getDiagnostics().hasErrorOccurred();
  std::string Files = OK && Gen.hasSourceManager() ? manifestOf(Gen.getSourceManager()) : "";
  if (!OK || Files.empty() || sys::fs::rename(Tmp, Header)) {
    sys::fs::remove(Tmp);
    return false;
  }
  if (Error E = writeFileAtomically(Manifest, Files)) {
    consumeError(std::move(E));
    sys::fs::remove(Header);
    return false;
  }
  return true;
}

/// Whether Clang will load Header into CI once the prefix is taken out of
/// its includes (read from the header's control block: a truncated or
/// foreign file is rebuilt rather than reported as the user's error). Its
/// own file manager: CI's must not remember the header as it was before a
/// rebuild.
static bool loadable(CompilerInstance &CI, size_t N, StringRef Header) {
  FileManager Files(CI.getFileManager().getFileSystemOpts(), CI.getVirtualFileSystemPtr());
  PreprocessorOptions PPO = CI.getPreprocessorOpts();
  PPO.Includes.erase(PPO.Includes.begin(), PPO.Includes.begin() + N);
  PPO.ImplicitPCHInclude = Header.str();
  return ASTReader::isAcceptableASTFile(
      Header, Files, CI.getModuleCache(), CI.getPCHContainerReader(),
      CI.getLangOpts(), CI.getCodeGenOpts(), CI.getTargetOpts(), PPO, CI.getHeaderSearchOpts(),
      CI.getHeaderSearchOpts().ModuleCachePath);
}

bool usePrecompiledPrefix(CompilerInstance &CI) {
  PreprocessorOptions &PPO = CI.getPreprocessorOpts();
  size_t N = prefixLength(PPO);
  if (N == 0 || !PPO.ImplicitPCHInclude.empty() || !CI.hasFileManager())
    return false;
  std::string Dir = prefixCacheDir();
  if (Dir.empty() || sys::fs::create_directories(Dir))
    return false;
  std::string Key = cacheKey(CI);
  SmallString<256> Header(Dir), Manifest(Dir), Lock(Dir);
  sys::path::append(Header, Key + ".pch");
  sys::path::append(Manifest, Key + ".files");
  sys::path::append(Lock, Key + ".lock");
  llvm::vfs::FileSystem &FS = CI.getVirtualFileSystem();
  auto Current = [&] {
    return sys::fs::exists(Header) && manifestCurrent(Manifest, FS) && loadable(CI, N, Header);
  };
  if (!Current()) {
    // One process builds it; the others wait and read it.
    auto Held = FileLock::acquire(Lock);
    if (!Held) {
      consumeError(Held.takeError());
      return false;
    }
    if (!Current()) {
      if (!buildHeader(CI, N, Header, Manifest) || !loadable(CI, N, Header))
        return false;
      prune(Dir);
    }
  }
  PPO.Includes.erase(PPO.Includes.begin(), PPO.Includes.begin() + N);
  PPO.ImplicitPCHInclude = Header.str().str();
  return true;
}

} // namespace forge::frontend
