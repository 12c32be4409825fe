//===- Build/CompileCache.cpp ---------------------------------------------===//
#include "forge/Build/CompileCache.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Hash.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <deque>

using namespace llvm;

namespace forge::build {

/// Bumped when the key recipe or the entry layout changes.
static constexpr const char *CacheFormat = "forge-compile-cache-v1";

CompileCache::CompileCache(std::string Directory) : Dir(std::move(Directory)) {}

std::string CompileCache::defaultDirectory() {
  if (auto D = sys::Process::GetEnv("FORGE_CACHE_DIR"); D && !D->empty())
    return *D;
  SmallString<256> P(userCacheDir());
  // No home directory: the system's temporary directory, kept across boots.
  if (P.empty()) {
    sys::path::system_temp_directory(/*ErasedOnReboot=*/false, P);
    sys::path::append(P, "forge");
  }
  sys::path::append(P, "compile");
  return P.str().str();
}

static std::string absolutePath(StringRef Path, StringRef Base) {
  SmallString<256> P(Path);
  if (!sys::path::is_absolute(P)) {
    if (!Base.empty()) {
      P = Base;
      sys::path::append(P, Path);
    }
    sys::fs::make_absolute(P);
  }
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

/// The file named by an #include line, or "" (with Angled set for <...>).
static StringRef includeTarget(StringRef Line, bool &Angled) {
  StringRef T = Line.ltrim();
  if (!T.consume_front("#"))
    return "";
  T = T.ltrim();
  if (!T.consume_front("include"))
    return "";
  T = T.ltrim();
  if (T.empty())
    return "";
  char Close;
  if (T.front() == '"') {
    Close = '"';
    Angled = false;
  } else if (T.front() == '<') {
    Close = '>';
    Angled = true;
  } else {
    return ""; // #include MACRO: not followed (see docs/build-driver.md).
  }
  T = T.drop_front();
  size_t End = T.find(Close);
  return End == StringRef::npos ? StringRef() : T.take_front(End);
}

std::vector<std::string>
CompileCache::scanIncludes(StringRef Source, ArrayRef<std::string> IncludeDirs,
                           ArrayRef<std::string> SystemPrefixes) {
  // A textual over-approximation: includes in inactive #if blocks are
  // followed too, which can only cause a spurious miss, never a wrong hit.
  constexpr size_t MaxFiles = 4000;
  std::vector<std::string> Found;
  StringSet<> Seen;
  std::deque<std::string> Work;
  Work.push_back(absolutePath(Source, ""));
  Seen.insert(Work.front());
  auto isSystem = [&](StringRef P) {
    for (const std::string &Prefix : SystemPrefixes)
      if (!Prefix.empty() && P.starts_with(Prefix))
        return true;
    return false;
  };
  while (!Work.empty() && Found.size() < MaxFiles) {
    std::string File = std::move(Work.front());
    Work.pop_front();
    auto Text = readFile(File);
    if (!Text) {
      consumeError(Text.takeError());
      continue;
    }
    StringRef FileDir = sys::path::parent_path(File);
    SmallVector<StringRef, 0> Lines;
    StringRef(*Text).split(Lines, '\n');
    for (StringRef L : Lines) {
      if (!L.contains("include"))
        continue;
      bool Angled = false;
      StringRef Name = includeTarget(L, Angled);
      if (Name.empty())
        continue;
      SmallVector<std::string, 8> Candidates;
      if (!Angled)
        Candidates.push_back(absolutePath(Name, FileDir));
      for (const std::string &D : IncludeDirs)
        Candidates.push_back(absolutePath(Name, absolutePath(D, "")));
      for (const std::string &C : Candidates) {
        if (!sys::fs::is_regular_file(C))
          continue;
        if (!isSystem(C) && Seen.insert(C).second) {
          Found.push_back(C);
          Work.push_back(C);
        }
        break;
      }
    }
  }
  llvm::sort(Found);
  return Found;
}

Expected<std::string> CompileCache::computeKey(const CompileJob &Job,
                                               ArrayRef<std::string> KeyArgs,
                                               StringRef VersionTag,
                                               ArrayRef<std::string> SystemPrefixes) {
  ContentHasher H;
  H.add(CacheFormat).add(VersionTag).addAll(KeyArgs);
  std::string Source = absolutePath(Job.Source, Job.WorkingDir);
  auto Text = readFile(Source);
  if (!Text)
    return Text.takeError();
  // The source is keyed by content only, so the same candidate written to
  // another temporary file still hits.
  H.add("source").add(StringRef(*Text));

  std::vector<std::string> Dirs;
  for (const std::string &D : Job.IncludeDirs)
    Dirs.push_back(absolutePath(D, Job.WorkingDir));
  for (size_t I = 0; I < Job.ExtraFlags.size(); ++I) {
    StringRef F = Job.ExtraFlags[I];
    if (F == "-I" && I + 1 < Job.ExtraFlags.size())
      Dirs.push_back(absolutePath(Job.ExtraFlags[++I], Job.WorkingDir));
    else if (F.starts_with("-I") && F.size() > 2)
      Dirs.push_back(absolutePath(F.drop_front(2), Job.WorkingDir));
  }
  std::vector<std::string> System = {"/usr/include", "/usr/lib/gcc",
                                     "/usr/local/include"};
  System.insert(System.end(), SystemPrefixes.begin(), SystemPrefixes.end());
  for (const std::string &Header : scanIncludes(Source, Dirs, System)) {
    auto HText = readFile(Header);
    if (!HText) {
      consumeError(HText.takeError());
      continue;
    }
    H.add("header").add(StringRef(Header)).add(StringRef(*HText));
  }
  for (const std::string &Dep : Job.Dependencies) {
    std::string P = absolutePath(Dep, Job.WorkingDir);
    auto DText = readFile(P);
    if (!DText)
      return DText.takeError();
    H.add("dependency").add(StringRef(P)).add(StringRef(*DText));
  }
  return H.hex();
}

std::string CompileCache::entryDir(StringRef Key) const {
  SmallString<256> P(Dir);
  sys::path::append(P, Key.take_front(2), Key);
  return P.str().str();
}

bool CompileCache::contains(StringRef Key) const {
  SmallString<256> P(entryDir(Key));
  sys::path::append(P, "result.json");
  return sys::fs::exists(P);
}

/// copy_file with From's permissions: an executable stays runnable, in
/// the cache and out of it.
static std::error_code copyKeepingMode(StringRef From, StringRef To) {
  if (auto EC = sys::fs::copy_file(From, To))
    return EC;
  if (auto Perm = sys::fs::getPermissions(From))
    return sys::fs::setPermissions(To, *Perm);
  return {};
}

/// Copies From to To through a temporary file beside To and a rename.
static Error copyAtomically(StringRef From, StringRef To) {
  SmallString<256> Tmp;
  SmallString<256> Model(To);
  Model += ".tmp-%%%%%%";
  if (auto EC = sys::fs::createUniqueFile(Model, Tmp))
    return makeError("cannot create a file beside '{0}': {1}", To, EC.message());
  if (auto EC = copyKeepingMode(From, Tmp)) {
    sys::fs::remove(Tmp);
    return makeError("cannot copy '{0}' to '{1}': {2}", From, Tmp, EC.message());
  }
  if (auto EC = sys::fs::rename(Tmp, To)) {
    sys::fs::remove(Tmp);
    return makeError("cannot rename '{0}' to '{1}': {2}", Tmp, To, EC.message());
  }
  return Error::success();
}

std::optional<CompileResult> CompileCache::lookup(StringRef Key,
                                                  StringRef OutputPath) const {
  std::string Entry = entryDir(Key);
  SmallString<256> ResultPath(Entry), OutFile(Entry);
  sys::path::append(ResultPath, "result.json");
  sys::path::append(OutFile, "output");
  auto J = readJsonFile(ResultPath);
  if (!J) {
    consumeError(J.takeError());
    return std::nullopt;
  }
  auto R = compileResultFromJson(*J);
  if (!R) {
    consumeError(R.takeError());
    return std::nullopt;
  }
  bool HasOutput = J->value("has_output", false);
  R->OutputPath.clear();
  if (R->ok() && !OutputPath.empty()) {
    if (!HasOutput || !sys::fs::exists(OutFile))
      return std::nullopt;
    if (Error E = copyAtomically(OutFile, OutputPath)) {
      consumeError(std::move(E));
      return std::nullopt;
    }
    R->OutputPath = OutputPath.str();
  }
  R->CacheHit = true;
  return std::move(*R);
}

Error CompileCache::store(StringRef Key, const CompileResult &R,
                          StringRef OutputFile) const {
  std::string Entry = entryDir(Key);
  if (sys::fs::exists(Entry)) {
    // Keep a readable entry; replace one that a crash or a bad disk broke.
    if (lookup(Key, "").has_value())
      return Error::success();
    sys::fs::remove_directories(Entry);
  }
  SmallString<256> Parent(sys::path::parent_path(Entry));
  if (auto EC = sys::fs::create_directories(Parent))
    return makeError("cannot create the cache directory '{0}': {1}", Parent,
                     EC.message());
  SmallString<256> Tmp;
  SmallString<256> Model(Parent);
  sys::path::append(Model, ".tmp-" + Key.str() + "-%%%%%%");
  if (auto EC = sys::fs::createUniqueDirectory(Model, Tmp))
    return makeError("cannot create a directory in '{0}': {1}", Parent,
                     EC.message());
  auto Fail = [&](Error E) {
    sys::fs::remove_directories(Tmp);
    return E;
  };
  Json J = toJson(R);
  J["cache_hit"] = false;
  bool HasOutput = !OutputFile.empty() && sys::fs::is_regular_file(OutputFile);
  J["has_output"] = HasOutput;
  if (HasOutput) {
    SmallString<256> Out(Tmp);
    sys::path::append(Out, "output");
    if (auto EC = copyKeepingMode(OutputFile, Out))
      return Fail(makeError("cannot copy '{0}' into the cache: {1}", OutputFile,
                            EC.message()));
  }
  SmallString<256> ResultPath(Tmp);
  sys::path::append(ResultPath, "result.json");
  if (Error E = writeFileAtomically(ResultPath, J.dump(1)))
    return Fail(std::move(E));
  if (auto EC = sys::fs::rename(Tmp, Entry)) {
    // Another process stored the same key first; its entry is as good.
    sys::fs::remove_directories(Tmp);
    if (sys::fs::exists(Entry))
      return Error::success();
    return makeError("cannot rename '{0}' to '{1}': {2}", Tmp, Entry,
                     EC.message());
  }
  return Error::success();
}

} // namespace forge::build
