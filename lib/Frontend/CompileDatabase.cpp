//===- Frontend/CompileDatabase.cpp ---------------------------------------===//
#include "forge/Frontend/CompileDatabase.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace forge::frontend {

Expected<std::shared_ptr<const CompileDatabase>> CompileDatabase::load(StringRef BuildDir) {
  std::string Err;
  auto DB = clang::tooling::CompilationDatabase::autoDetectFromDirectory(BuildDir, Err);
  if (!DB)
    return makeError("cannot load a compilation database from '{0}': {1}", BuildDir, Err);
  return std::shared_ptr<const CompileDatabase>(
      new CompileDatabase(BuildDir.str(), std::move(DB)));
}

Expected<clang::tooling::CompileCommand> CompileDatabase::commandOf(StringRef File) const {
  std::vector<clang::tooling::CompileCommand> Cmds;
  {
    std::lock_guard<std::mutex> L(Lock);
    Cmds = DB->getCompileCommands(absolutePath(File));
  }
  if (Cmds.empty())
    return makeError("'{0}' has no entry in the compilation database in '{1}'", File,
                     BuildDir);
  return std::move(Cmds.front());
}

Expected<std::vector<std::string>> CompileDatabase::argumentsOf(StringRef File) const {
  auto C = commandOf(File);
  if (!C)
    return C.takeError();
  return std::move(C->CommandLine);
}

Expected<TranslatedFlags> CompileDatabase::flagsOf(StringRef File) const {
  auto C = commandOf(File);
  if (!C)
    return C.takeError();
  return translateCompileCommand(C->CommandLine, C->Directory);
}

std::vector<clang::tooling::CompileCommand> CompileDatabase::allCommands() const {
  std::lock_guard<std::mutex> L(Lock);
  return DB->getAllCompileCommands();
}

bool compilesAsCuda(StringRef File, ArrayRef<std::string> Args) {
  if (sys::path::extension(File) == ".cu")
    return true;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if ((A == "-x" || A == "--x") && I + 1 < Args.size() &&
        (Args[I + 1] == "cu" || Args[I + 1] == "cuda"))
      return true;
    if (A == "-xcu" || A == "-x=cu" || A == "--x=cu" || A == "-xcuda" || A == "-x=cuda")
      return true;
  }
  return false;
}

bool isHostSourceName(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  return Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".c" || Ext == ".C";
}

bool isCSourceName(StringRef File) { return sys::path::extension(File) == ".c"; }

bool isHostUnit(StringRef File, ArrayRef<std::string> Command, ArrayRef<std::string> ExtraArgs) {
  return isHostSourceName(File) && !compilesAsCuda(File, Command) &&
         !compilesAsCuda(File, ExtraArgs);
}

bool isCUnit(StringRef File, ArrayRef<std::string> Command, ArrayRef<std::string> ExtraArgs) {
  return isCSourceName(File) && isHostUnit(File, Command, ExtraArgs);
}

std::vector<std::string> compileCommandIn(StringRef BuildDir, StringRef File) {
  if (BuildDir.empty())
    return {};
  auto DB = CompileDatabase::load(BuildDir);
  if (!DB) {
    consumeError(DB.takeError());
    return {};
  }
  auto Args = (*DB)->argumentsOf(File);
  if (!Args) {
    consumeError(Args.takeError());
    return {};
  }
  return std::move(*Args);
}

} // namespace forge::frontend
