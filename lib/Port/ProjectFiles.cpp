//===- Port/ProjectFiles.cpp ----------------------------------------------===//
#include "forge/Port/ProjectFiles.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <set>

using namespace llvm;

namespace forge::port {

bool isUnder(StringRef Path, StringRef Dir) {
  Dir = Dir.rtrim('/');
  if (Dir.empty()) // the root directory
    return Path.starts_with("/");
  return Path == Dir || (Path.starts_with(Dir) && Path.size() > Dir.size() &&
                         Path[Dir.size()] == '/');
}

static SmallVector<StringRef, 16> components(StringRef Path) {
  SmallVector<StringRef, 16> Parts;
  for (auto I = sys::path::begin(Path), E = sys::path::end(Path); I != E; ++I)
    if (*I != "/")
      Parts.push_back(*I);
  return Parts;
}

std::string relativePath(StringRef Path, StringRef FromDir) {
  auto To = components(Path), From = components(FromDir);
  size_t Common = 0;
  while (Common < To.size() && Common < From.size() && To[Common] == From[Common])
    ++Common;
  SmallString<256> R;
  for (size_t I = Common; I < From.size(); ++I)
    sys::path::append(R, "..");
  for (size_t I = Common; I < To.size(); ++I)
    sys::path::append(R, To[I]);
  return R.empty() ? "." : R.str().str();
}

/// The deepest directory holding every path of Paths (absolute).
static std::string commonDirectory(ArrayRef<std::string> Paths) {
  if (Paths.empty())
    return "";
  SmallVector<StringRef, 16> Common = components(sys::path::parent_path(Paths.front()));
  for (const std::string &P : Paths.drop_front()) {
    auto Parts = components(sys::path::parent_path(P));
    size_t N = 0;
    while (N < Common.size() && N < Parts.size() && Common[N] == Parts[N])
      ++N;
    Common.resize(N);
  }
  SmallString<256> R("/");
  for (StringRef C : Common)
    sys::path::append(R, C);
  return R.str().str();
}

/// Whether a C or C++ file's text includes the CUDA runtime's (or driver's)
/// header: host code of the project that CUDA 13's removals break as well
/// (SHOC's main.cpp reads cudaDeviceProp::clockRate).
static bool usesCudaRuntime(StringRef Text) {
  static const Regex R("^[ \t]*#[ \t]*include[ \t]*[<\"](cuda_runtime|cuda_runtime_api|cuda)"
                       "\\.h[>\"]",
                       Regex::Newline);
  return R.match(Text);
}

static bool hostSourceUsingCuda(StringRef Path) {
  if (!frontend::isHostSourceName(Path))
    return false;
  auto Text = readFile(Path);
  if (!Text) {
    consumeError(Text.takeError());
    return false;
  }
  return usesCudaRuntime(*Text);
}

DatabaseSources compileDatabaseSources(const frontend::CompileDatabase &DB) {
  DatabaseSources R;
  std::vector<std::string> All;
  StringSet<> Seen;
  for (const clang::tooling::CompileCommand &C : DB.allCommands()) {
    SmallString<256> File(C.Filename);
    if (!sys::path::is_absolute(File)) {
      File = C.Directory;
      sys::path::append(File, C.Filename);
    }
    std::string Abs = absolutePath(File);
    All.push_back(Abs);
    // The directory the command runs in is part of the project too (a
    // Makefile project's root, where a header beside the sources lives).
    SmallString<256> InDir(C.Directory);
    sys::path::append(InDir, "-");
    All.push_back(absolutePath(InDir));
    if (!frontend::compilesAsCuda(C.Filename, C.CommandLine) && !hostSourceUsingCuda(Abs)) {
      ++R.Skipped;
      continue;
    }
    if (Seen.insert(Abs).second)
      R.Units.push_back(Abs);
  }
  R.Root = commonDirectory(All);
  return R;
}

Expected<DatabaseSources> compileDatabaseSources(StringRef BuildDir) {
  auto DB = frontend::CompileDatabase::load(BuildDir);
  if (!DB)
    return makeUsageError("{0}", toString(DB.takeError()));
  return compileDatabaseSources(**DB);
}

Expected<PortInputs> portInputs(ArrayRef<std::string> Inputs, StringRef BuildDir, bool All) {
  PortInputs R;
  std::string LoadError;
  if (!BuildDir.empty()) {
    auto DB = frontend::CompileDatabase::load(BuildDir);
    if (DB)
      R.Database = std::move(*DB);
    else
      LoadError = toString(DB.takeError());
  }
  if (!All) {
    if (Inputs.empty())
      return makeUsageError("no input file (--all ports a whole project)");
    for (const std::string &F : Inputs)
      if (sys::fs::is_directory(F))
        return makeUsageError("'{0}' is a directory; --all ports every .cu under it", F);
    R.Files.assign(Inputs.begin(), Inputs.end());
    if (R.Database) // the compile database's tree is the project
      R.ProjectRoot = compileDatabaseSources(*R.Database).Root;
    return R;
  }
  if (Inputs.empty()) {
    if (BuildDir.empty())
      return makeUsageError("--all ports a project: give -p <build-dir> (its "
                            "compile_commands.json) or the directories to port");
    if (!R.Database)
      return makeUsageError("{0}", LoadError);
    DatabaseSources DB = compileDatabaseSources(*R.Database);
    if (DB.Units.empty())
      return makeUsageError("the compile database in '{0}' has no CUDA translation unit",
                            BuildDir);
    R.Files = DB.Units;
    R.ProjectRoot = DB.Root;
    R.Notes.push_back(formatv("{0} CUDA translation unit(s) in {1}/compile_commands.json "
                              "({2} other entr{3}); project root {4}",
                              DB.Units.size(), BuildDir, DB.Skipped,
                              DB.Skipped == 1 ? "y" : "ies", DB.Root)
                          .str());
    return R;
  }
  std::vector<std::string> Dirs;
  for (const std::string &F : Inputs) {
    if (!sys::fs::is_directory(F)) {
      R.Files.push_back(F);
      continue;
    }
    auto Tree = cudaSourcesUnder(F);
    if (!Tree)
      return Tree.takeError();
    for (const auto &[Inc, By] : Tree->Included)
      R.Notes.push_back("note: '" + Inc + "' is #included by '" + By +
                        "'; it is ported as part of it");
    R.Files.insert(R.Files.end(), Tree->Units.begin(), Tree->Units.end());
    Dirs.push_back(absolutePath(F));
  }
  if (Dirs.size() == 1 && !R.Files.empty())
    R.ProjectRoot = Dirs.front();
  else if (!Dirs.empty())
    return makeUsageError("--all takes one project directory");
  if (R.Files.empty())
    return makeUsageError("no .cu file under '{0}'", Dirs.front());
  if (!Dirs.empty())
    R.Notes.push_back(
        formatv("{0} translation unit(s) under {1}", R.Files.size(), Dirs.front()).str());
  return R;
}

namespace {
/// Walks Dir, skipping hidden directories and CMake build trees, calling
/// Visit on every regular file.
Error walkProject(StringRef Dir, function_ref<void(StringRef)> Visit) {
  if (!sys::fs::is_directory(Dir))
    return makeUsageError("'{0}' is not a directory", Dir);
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC)) {
    StringRef Path = I->path();
    StringRef Name = sys::path::filename(Path);
    auto Type = I->type();
    if (Type == sys::fs::file_type::directory_file) {
      SmallString<256> Cache(Path);
      sys::path::append(Cache, "CMakeCache.txt");
      if (Name.starts_with(".") || sys::fs::exists(Cache))
        I.no_push();
      continue;
    }
    if (Type == sys::fs::file_type::regular_file)
      Visit(Path);
  }
  if (EC)
    return makeError("cannot list '{0}': {1}", Dir, EC.message());
  return Error::success();
}

const Regex &quotedIncludeRegex() {
  static const Regex R("^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"");
  return R;
}
/// An #include of either form (`#include <kernel.cu>` with -I. is legacy
/// code's too).
const Regex &anyIncludeRegex() {
  static const Regex R("^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">]");
  return R;
}
} // namespace

Expected<TreeSources> cudaSourcesUnder(StringRef Dir) {
  std::vector<std::string> Cu;
  if (Error E = walkProject(Dir, [&](StringRef P) {
        if (sys::path::extension(P) == ".cu" || hostSourceUsingCuda(P))
          Cu.push_back(absolutePath(P));
      }))
    return std::move(E);
  sort(Cu);
  std::set<std::string> All(Cu.begin(), Cu.end());
  std::map<std::string, std::string> IncludedBy;
  for (const std::string &F : Cu) {
    auto Text = readFile(F);
    if (!Text) {
      consumeError(Text.takeError()); // reported when it is ported
      continue;
    }
    SmallVector<StringRef, 0> Lines;
    StringRef(*Text).split(Lines, '\n');
    for (StringRef L : Lines) {
      SmallVector<StringRef, 2> M;
      if (!anyIncludeRegex().match(L, &M))
        continue;
      SmallString<256> Target(sys::path::parent_path(F));
      sys::path::append(Target, M[1]);
      std::string T = absolutePath(Target);
      if (T != F && All.count(T))
        IncludedBy.emplace(T, F);
    }
  }
  TreeSources R;
  for (const std::string &F : Cu) {
    auto It = IncludedBy.find(F);
    if (It == IncludedBy.end())
      R.Units.push_back(F);
    else
      R.Included.push_back(*It);
  }
  return R;
}

static bool isBuildFile(StringRef Name) {
  return Name.starts_with("Makefile") || Name == "GNUmakefile" || Name.ends_with(".mk") ||
         Name == "make.config" || Name == "CMakeLists.txt" || Name.ends_with(".cmake");
}

std::vector<std::string> buildFilesUnder(StringRef Dir) {
  std::vector<std::string> Out;
  Error E = walkProject(Dir, [&](StringRef P) {
    if (isBuildFile(sys::path::filename(P)))
      Out.push_back(absolutePath(P));
  });
  consumeError(std::move(E));
  sort(Out);
  return Out;
}

std::vector<std::string> projectSourcesUnder(StringRef Dir) {
  static const char *const Exts[] = {".cu",  ".cuh", ".c",   ".cc",  ".cpp", ".cxx", ".C",
                                     ".h",   ".hh",  ".hpp", ".hxx", ".inl", ".inc", ".am",
                                     ".ac",  ".in"};
  std::vector<std::string> Out;
  Error E = walkProject(Dir, [&](StringRef P) {
    StringRef Name = sys::path::filename(P), Ext = sys::path::extension(P);
    if (isBuildFile(Name) || Name.starts_with("configure") ||
        any_of(Exts, [&](const char *X) { return Ext == X; }))
      Out.push_back(absolutePath(P));
  });
  consumeError(std::move(E));
  sort(Out);
  return Out;
}

OverlayTree::OverlayTree(OverlayTree &&O) noexcept
    : Root(std::move(O.Root)), Dir(std::move(O.Dir)) {
  O.Dir.clear();
}

OverlayTree &OverlayTree::operator=(OverlayTree &&O) noexcept {
  if (this != &O) {
    if (!Dir.empty())
      sys::fs::remove_directories(Dir);
    Root = std::move(O.Root);
    Dir = std::move(O.Dir);
    O.Dir.clear();
  }
  return *this;
}

OverlayTree::~OverlayTree() {
  if (!Dir.empty())
    sys::fs::remove_directories(Dir);
}

std::string OverlayTree::pathOf(StringRef Original) const {
  if (!isUnder(Original, Root))
    return Original.str();
  SmallString<256> P(Dir);
  if (Original.size() > Root.size())
    sys::path::append(P, Original.drop_front(Root.size()).ltrim('/'));
  return P.str().str();
}

std::string OverlayTree::mapDirectory(StringRef D) const {
  std::string Abs = absolutePath(D);
  return isUnder(Abs, Root) ? pathOf(Abs) : D.str();
}

Expected<OverlayTree> OverlayTree::make(StringRef RootIn,
                                        const std::map<std::string, std::string> &Files) {
  OverlayTree T;
  T.Root = absolutePath(RootIn);
  SmallString<128> Tmp;
  if (auto EC = sys::fs::createUniqueDirectory("forge-port-tree", Tmp))
    return makeError("cannot create a temporary directory: {0}", EC.message());
  T.Dir = Tmp.str().str();
  // The directories to recreate: every one from the root to a replaced file.
  std::set<std::string> Dirs{T.Root};
  for (const auto &[File, Text] : Files) {
    if (!isUnder(File, T.Root))
      return makeError("'{0}' is not under '{1}'", File, T.Root);
    for (StringRef D = sys::path::parent_path(File); isUnder(D, T.Root);
         D = sys::path::parent_path(D))
      Dirs.insert(D.str());
  }
  for (const std::string &D : Dirs) { // parents sort before their children
    std::string Mirror = T.pathOf(D);
    if (auto EC = sys::fs::create_directories(Mirror))
      return makeError("cannot create '{0}': {1}", Mirror, EC.message());
    std::error_code EC;
    for (sys::fs::directory_iterator I(D, EC), E; I != E && !EC; I.increment(EC)) {
      std::string Entry = absolutePath(I->path());
      if (Dirs.count(Entry) || Files.count(Entry))
        continue;
      if (auto LinkEC = sys::fs::create_link(Entry, T.pathOf(Entry)))
        return makeError("cannot link '{0}': {1}", Entry, LinkEC.message());
    }
    if (EC)
      return makeError("cannot list '{0}': {1}", D, EC.message());
  }
  for (const auto &[File, Text] : Files)
    if (Error E = writeFileAtomically(T.pathOf(File), Text))
      return std::move(E);
  return std::move(T);
}

std::vector<std::string> rebaseQuotedIncludes(std::string &Text, StringRef FromDir,
                                              StringRef ToDir) {
  std::vector<std::string> Done;
  if (absolutePath(FromDir) == absolutePath(ToDir))
    return Done;
  std::string Out;
  StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, After] = Rest.split('\n');
    bool HadNewline = Line.size() < Rest.size();
    Rest = After;
    SmallVector<StringRef, 2> M;
    std::string NewLine = Line.str();
    if (quotedIncludeRegex().match(Line, &M) && !sys::path::is_absolute(M[1])) {
      SmallString<256> Old(FromDir), Here(ToDir);
      sys::path::append(Old, M[1]);
      sys::path::append(Here, M[1]);
      if (sys::fs::exists(Old) && !sys::fs::exists(Here)) {
        std::string Rel = relativePath(absolutePath(Old), absolutePath(ToDir));
        size_t At = M[1].data() - Line.data();
        NewLine = (Line.take_front(At) + Rel + Line.drop_front(At + M[1].size())).str();
        Done.push_back((M[1] + " -> " + Rel).str());
      }
    }
    Out += NewLine;
    if (HadNewline)
      Out += '\n';
  }
  Text = std::move(Out);
  return Done;
}

} // namespace forge::port
