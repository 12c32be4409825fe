//===- forge-port/Common.h - Shared by the subcommands ---------*- C++ -*-===//
#ifndef FORGE_TOOLS_FORGEPORT_COMMON_H
#define FORGE_TOOLS_FORGEPORT_COMMON_H

#include "forge/Build/CompileCache.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Frontend/CudaInvocation.h"
#include <array>
#include <memory>
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::tool {

/// Exit statuses of the CLI contract.
enum ExitCode { ExitOK = 0, ExitFailure = 1, ExitUsage = 2 };

/// A subcommand's arguments: what precedes '--' (argv[0] is
/// "forge-port <sub>") and the extra compiler arguments after it.
struct Invocation {
  const char *Argv0;
  std::vector<const char *> Args;
  std::vector<std::string> ExtraArgs;
};

/// Prints "forge-port: error: <msg>" and returns the exit status that fits
/// the error: 2 for a UsageError, 1 otherwise.
int reportError(llvm::Error E);

/// Parses Args with the options of the given subcommand; false on a usage
/// error (already printed).
bool parseOptions(const Invocation &Inv, llvm::StringRef Overview);

/// The parse options for File: flags from -p's compilation database (if
/// given) then the extra arguments; Arch validated against the Arch
/// database when not empty.
llvm::Expected<frontend::ParseOptions>
makeParseOptions(llvm::StringRef File, llvm::StringRef BuildDir, llvm::StringRef Arch,
                 llvm::ArrayRef<std::string> ExtraArgs);

/// A --block value: "256", "16,16" or "8,8,4" (missing dimensions are 1);
/// a UsageError for anything else or more than 1024 threads.
llvm::Expected<std::array<int64_t, 3>> parseBlockOption(llvm::StringRef Text);

/// nvcc from the toolkit at CudaPath (or the usual places), with the
/// compile cache of the user's cache directory.
struct Nvcc {
  build::CompileCache Cache{build::CompileCache::defaultDirectory()};
  std::unique_ptr<build::NvccDriver> Driver;
};
llvm::Expected<std::unique_ptr<Nvcc>> findNvcc(llvm::StringRef CudaPath);

/// The nvcc spelling of the Clang arguments that matter to a compile
/// (-I, -isystem, -D, -std=); the rest (Clang-only flags) are dropped.
std::vector<std::string> nvccFlagsFor(llvm::ArrayRef<std::string> ClangArgs);

/// A working directory: the one the user named (kept), or a temporary one
/// removed when this goes out of scope.
class ScratchDir {
public:
  ~ScratchDir();
  llvm::Expected<std::string> make(llvm::StringRef UserPath, llvm::StringRef Prefix);

private:
  std::string Path;
  bool Keep = true;
};

/// The local GPU through forge-worker: the worker's path, the GPU's target
/// and name. Empty when there is none; then a warning says why and what
/// follows (Consequence: "values are predicted").
struct LocalGpu {
  std::string Worker, Target, Name;
};
LocalGpu findLocalGpu(llvm::StringRef WorkerOpt, const char *Argv0,
                      llvm::StringRef Consequence);

int runAnalyze(const Invocation &Inv);
int runList(const Invocation &Inv);
int runPort(const Invocation &Inv);
int runSpec(const Invocation &Inv);
int runMeasure(const Invocation &Inv);
int runTune(const Invocation &Inv);
int runPropose(const Invocation &Inv);
int runOptimize(const Invocation &Inv);

} // namespace forge::tool

#endif
