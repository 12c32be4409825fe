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

/// The user's include directories (-I, -iquote): searched before the
/// system's, so one of them could hold a header the prefix includes.
static std::vector<std::string> userIncludeDirs(const CompilerInstance &CI) {
  std::vector<std::string> Dirs;
  for (const HeaderSearchOptions::Entry &E : CI.getHeaderSearchOpts().UserEntries)
    if ((E.Group == clang::frontend::Angled || E.Group == clang::frontend::Quoted) && !E.IsFramework &&
        !StringRef(E.Path).starts_with(PreludeDir))
      Dirs.push_back(E.Path);
  return Dirs;
}

/// The directories the prefix's headers are found in (the system's, the
/// resource directory's): every search entry that is not the user's.
static std::vector<std::string> systemIncludeDirs(const CompilerInstance &CI) {
  const HeaderSearchOptions &HSO = CI.getHeaderSearchOpts();
  std::vector<std::string> Dirs;
  for (const HeaderSearchOptions::Entry &E : HSO.UserEntries)
    if (E.Group != clang::frontend::Angled && E.Group != clang::frontend::Quoted)
      Dirs.push_back(E.Path);
  for (const HeaderSearchOptions::SystemHeaderPrefix &P : HSO.SystemHeaderPrefixes)
    Dirs.push_back(P.Prefix);
  if (!HSO.ResourceDir.empty())
    Dirs.push_back(HSO.ResourceDir + "/include");
  return Dirs;
}

/// Whether an include option of the user's starts at Args[I] (how many
/// arguments it takes: 2 when the path is separate, 1 when joined, 0 when
/// it is not one).
static size_t userIncludeArg(ArrayRef<const char *> Args, size_t I) {
  StringRef A = Args[I];
  for (StringRef Opt : {"-I", "-iquote"}) {
    if (A == Opt)
      return I + 1 < Args.size() ? 2 : 1;
    if (A.starts_with(Opt) && !(Opt == "-I" && A.starts_with("-Iquote")))
      return 1;
  }
  return 0;
}

/// The invocation's command line without the main file, hashed with what
/// else decides the header's contents. Without UserDirs the user's -I and
/// -iquote directories are left out too: the prefix includes only system
/// headers, so one header serves every directory of a project, unless a
/// user directory holds one of them (usePrecompiledPrefix checks).
static std::string cacheKey(CompilerInstance &CI, bool UserDirs) {
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
    if (!UserDirs) {
      if (size_t Skip = userIncludeArg(Args, I)) {
        // The prelude's own directory stays in the key.
        if (!StringRef(Args[I + Skip - 1]).contains(PreludeDir)) {
          I += Skip - 1;
          continue;
        }
      }
    }
    H.add(A);
  }
  H.add(UserDirs ? "with user include directories" : "shared across user include directories");
  return H.hex().substr(0, 32);
}

/// Whether Dir + "/" starts Path (as the file manager spells them).
static bool under(StringRef Path, StringRef Dir) {
  StringRef D = Dir.rtrim('/');
  return !D.empty() && Path.starts_with(D) && Path.size() > D.size() && Path[D.size()] == '/';
}

/// Whether one of the user's directories would change the prefix a
/// header was built from: a file of it lies under one of them (found
/// there), or one of them holds another file of the same name relative to
/// the system directory the header's file was found in (it would be found
/// first).
static bool userDirsMatter(const std::vector<std::string> &Files,
                           const std::vector<std::string> &UserDirs,
                           const std::vector<std::string> &SystemDirs) {
  // A user directory that is a system one as well finds the same files
  // there; it is still searched earlier than the others: `-I
  // /usr/local/cuda/include` (many Makefiles) puts CUDA 13's
  // nv/detail/__target_macros before cccl/'s, a different file, so such a
  // command line keeps a header of its own.
  std::vector<bool> AlsoSystem(UserDirs.size(), false);
  for (size_t I = 0; I < UserDirs.size(); ++I)
    for (const std::string &S : SystemDirs) {
      bool Same = false;
      if (!sys::fs::equivalent(UserDirs[I], S, Same) && Same)
        AlsoSystem[I] = true;
    }
  for (const std::string &F : Files) {
    if (StringRef(F).starts_with(PreludeDir))
      continue;
    for (size_t I = 0; I < UserDirs.size(); ++I)
      if (!AlsoSystem[I] && under(F, UserDirs[I]))
        return true;
    for (const std::string &S : SystemDirs) {
      if (!under(F, S))
        continue;
      StringRef Rel = StringRef(F).drop_front(StringRef(S).rtrim('/').size() + 1);
      for (const std::string &D : UserDirs) {
        SmallString<256> Alt(D);
        sys::path::append(Alt, Rel);
        bool Same = false;
        if (sys::fs::exists(Alt) && (sys::fs::equivalent(Alt, F, Same) || !Same))
          return true;
      }
    }
  }
  return false;
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

/// One line of a manifest: a file the header was built from, as it was.
struct ManifestEntry {
  uint64_t Size = 0;
  int64_t Time = 0;
  std::string File;
};

/// A manifest's entries; none when it cannot be read or a line is not
/// "SIZE MTIME PATH".
static std::optional<std::vector<ManifestEntry>> readManifest(StringRef Path) {
  auto Text = readFile(Path);
  if (!Text) {
    consumeError(Text.takeError());
    return std::nullopt;
  }
  SmallVector<StringRef, 0> Lines;
  StringRef(*Text).split(Lines, '\n', -1, /*KeepEmpty=*/false);
  std::vector<ManifestEntry> Entries;
  for (StringRef L : Lines) {
    auto [Size, Rest] = L.split(' ');
    auto [Time, File] = Rest.split(' ');
    ManifestEntry E;
    if (Size.getAsInteger(10, E.Size) || Time.getAsInteger(10, E.Time) || File.empty())
      return std::nullopt;
    E.File = File.str();
    Entries.push_back(std::move(E));
  }
  return Entries;
}

/// Whether every file of the manifest is as it was.
static bool manifestCurrent(StringRef Path, llvm::vfs::FileSystem &FS) {
  auto Entries = readManifest(Path);
  if (!Entries || Entries->empty())
    return false;
  for (const ManifestEntry &E : *Entries) {
    auto St = FS.status(E.File);
    if (!St || St->getSize() != E.Size ||
        int64_t(sys::toTimeT(St->getLastModificationTime())) != E.Time)
      return false;
  }
  return true;
}

/// The manifest's files (the paths the header was built from).
static std::vector<std::string> manifestFiles(StringRef Path) {
  std::vector<std::string> Files;
  if (auto Entries = readManifest(Path))
    for (ManifestEntry &E : *Entries)
      Files.push_back(std::move(E.File));
  return Files;
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
  // Two keys: the shared one, without the user's include directories (one
  // header for every directory of a project: building one costs 0.4 s more
  // than a parse without, and each later parse saves 0.5 s), and, where a
  // user directory holds a header the prefix includes, the whole command
  // line.
  const std::vector<std::string> UserDirs = userIncludeDirs(CI);
  const std::vector<std::string> SystemDirs = systemIncludeDirs(CI);
  struct Slot {
    SmallString<256> Header, Manifest, Lock;
  };
  auto SlotOf = [&](const std::string &Key) {
    Slot S{StringRef(Dir), StringRef(Dir), StringRef(Dir)};
    sys::path::append(S.Header, Key + ".pch");
    sys::path::append(S.Manifest, Key + ".files");
    sys::path::append(S.Lock, Key + ".lock");
    return S;
  };
  const bool HasUserDirs = !UserDirs.empty();
  Slot Shared = SlotOf(cacheKey(CI, /*UserDirs=*/false));
  std::optional<Slot> Own;
  if (HasUserDirs)
    Own = SlotOf(cacheKey(CI, /*UserDirs=*/true));
  llvm::vfs::FileSystem &FS = CI.getVirtualFileSystem();
  auto Current = [&](const Slot &S, bool CheckUserDirs) {
    return sys::fs::exists(S.Header) && manifestCurrent(S.Manifest, FS) &&
           (!CheckUserDirs || !userDirsMatter(manifestFiles(S.Manifest), UserDirs, SystemDirs)) &&
           loadable(CI, N, S.Header);
  };
  auto Use = [&](const Slot &S) {
    PPO.Includes.erase(PPO.Includes.begin(), PPO.Includes.begin() + N);
    PPO.ImplicitPCHInclude = S.Header.str().str();
    return true;
  };
  if (Current(Shared, HasUserDirs))
    return Use(Shared);
  if (Own && Current(*Own, false))
    return Use(*Own);
  // One process builds it; the others wait and read it.
  auto Held = FileLock::acquire(Shared.Lock);
  if (!Held) {
    consumeError(Held.takeError());
    return false;
  }
  if (Current(Shared, HasUserDirs))
    return Use(Shared);
  if (Own && Current(*Own, false))
    return Use(*Own);
  // Built with this command line under its own key; shared (moved to the
  // shared key) unless the user's directories took part: a file found in
  // one of them, or one of them shadowing a system header. Another process
  // never sees a header of someone else's directories under the shared key.
  const Slot &Built = Own ? *Own : Shared;
  if (!buildHeader(CI, N, Built.Header, Built.Manifest))
    return false;
  const Slot *Final = &Built;
  if (Own && !userDirsMatter(manifestFiles(Own->Manifest), UserDirs, SystemDirs) &&
      !sys::fs::rename(Own->Manifest, Shared.Manifest) &&
      !sys::fs::rename(Own->Header, Shared.Header))
    Final = &Shared;
  prune(Dir);
  return loadable(CI, N, Final->Header) && Use(*Final);
}

} // namespace forge::frontend
