//===- Build/NvccDriver.h - Running nvcc -----------------------*- C++ -*-===//
///
/// \file
/// Builds nvcc command lines for compile jobs, runs them with a timeout,
/// parses diagnostics and resource usage, and consults a CompileCache.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_BUILD_NVCCDRIVER_H
#define FORGE_BUILD_NVCCDRIVER_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Build/CompileCache.h"
#include "forge/Build/CompileResult.h"
#include "forge/Build/CompileRunner.h"
#include "forge/Build/CudaToolkit.h"
#include "llvm/ADT/ArrayRef.h"
#include <memory>
#include <optional>

namespace forge::build {

enum class OutputKind {
  Object,        ///< -c
  Cubin,         ///< -cubin (one target only)
  Ptx,           ///< -ptx (one target only)
  Executable,    ///< link
  SharedLibrary, ///< -shared -Xcompiler -fPIC (a harness the worker dlopens)
  ResourceCheck, ///< -cubin -Xptxas -v (-c for several targets); output dropped
};

llvm::StringRef outputKindName(OutputKind K);

/// One -gencode of a compile: SASS for a target, or the target's PTX
/// embedded for JIT compilation.
struct CodeTarget {
  const arch::TargetInfo *Arch;
  bool Ptx = false;
  CodeTarget(const arch::TargetInfo &T, bool Ptx = false) : Arch(&T), Ptx(Ptx) {}
};

struct CompileJob {
  std::string Source;
  /// The -gencode entries, in order. Empty: nvcc's default target.
  std::vector<CodeTarget> Targets;
  OutputKind Output = OutputKind::Object;
  /// Empty: a temporary file, removed after the compile.
  std::string OutputPath;
  bool ResourceUsage = false;  ///< -Xptxas -v
  bool LineInfo = false;       ///< -lineinfo
  std::vector<std::string> IncludeDirs;
  std::vector<std::string> Defines; ///< "NAME" or "NAME=VALUE"
  std::string Std;                  ///< "c++17"; empty: nvcc's default.
  std::vector<std::string> ExtraFlags;
  /// Files the output depends on beyond what the include scan finds.
  std::vector<std::string> Dependencies;
  unsigned TimeoutSeconds = 0; ///< 0: the driver's default.
  std::string WorkingDir;      ///< Empty: the current directory.
  /// On a ptxas error at a PTX line, recompile once with -lineinfo -keep to
  /// map the line back to the CUDA source.
  bool MapPtxLines = true;
  bool UseCache = true;
};

struct DriverOptions {
  unsigned DefaultTimeoutSeconds = 600;
  /// Not owned; null: no caching.
  const CompileCache *Cache = nullptr;
  /// Not owned; null: nvcc runs here. Otherwise compileAll hands it every
  /// compile that missed the cache in one call (Build/CompileRunner.h).
  CompileRunner *Runner = nullptr;
};

class NvccDriver {
public:
  explicit NvccDriver(CudaToolkit Toolkit, DriverOptions Opts = {});

  const CudaToolkit &toolkit() const { return Toolkit; }
  const DriverOptions &options() const { return Opts; }

  /// The argv (argv[0] is nvcc) for Job. Fails on an invalid target or a
  /// kind that cannot take several targets.
  llvm::Expected<std::vector<std::string>>
  buildCommand(const CompileJob &Job) const;

  /// Compiles Job. Fails only when nvcc cannot be started or the job is
  /// invalid; a compile error, a timeout or a crash is a status in the
  /// result.
  llvm::Expected<CompileResult> compile(const CompileJob &Job) const;

  /// Compiles every job with up to Jobs threads (0: the hardware's);
  /// results are in the order of the jobs.
  std::vector<llvm::Expected<CompileResult>>
  compileAll(llvm::ArrayRef<CompileJob> JobList, unsigned Jobs = 0) const;

private:
  struct Pending;
  /// Validates Job and consults the cache: a hit is the result; otherwise
  /// the command to run and what finish() needs.
  llvm::Expected<Pending> prepare(const CompileJob &Job) const;
  /// The result of Job from what its nvcc run printed; stores it in the
  /// cache.
  CompileResult finish(const CompileJob &Job, Pending &P,
                       llvm::Expected<SubprocessResult> Run) const;
  llvm::Expected<SubprocessResult> runHere(const CompileCommand &C) const;
  /// buildCommand without the input and output paths, for the cache key.
  llvm::Expected<std::vector<std::string>> keyArgs(const CompileJob &Job) const;
  llvm::Expected<std::vector<std::string>>
  buildArgs(const CompileJob &Job, llvm::StringRef OutputPath,
            bool WithPaths) const;
  void mapPtxErrors(const CompileJob &Job, CompileResult &R) const;

  CudaToolkit Toolkit;
  DriverOptions Opts;
};

/// nvcc of the toolkit at CudaPath (or the usual places, see CudaToolkit)
/// with the compile cache of the user's cache directory: what every
/// subcommand compiles with.
struct Nvcc {
  CompileCache Cache{CompileCache::defaultDirectory()};
  std::unique_ptr<NvccDriver> Driver;
};
/// Runner, when given, runs the compiles that miss the cache (not owned).
llvm::Expected<std::unique_ptr<Nvcc>> findNvcc(llvm::StringRef CudaPath,
                                               CompileRunner *Runner = nullptr);

} // namespace forge::build

#endif
