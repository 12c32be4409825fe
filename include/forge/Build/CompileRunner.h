//===- Build/CompileRunner.h - Where nvcc runs -----------------*- C++ -*-===//
///
/// \file
/// The driver builds nvcc's command lines, consults the compile cache and
/// parses what nvcc printed; a CompileRunner only runs the command lines.
/// Without one the driver runs nvcc here, in threads. With one, the driver
/// hands it every compile that missed the cache at once: a cluster's CPU
/// partition runs them as an array job (Measure/SlurmExecutor.h,
/// SlurmCompileRunner), on nodes that see the same files at the same paths.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_BUILD_COMPILERUNNER_H
#define FORGE_BUILD_COMPILERUNNER_H

#include "forge/Support/Subprocess.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::build {

/// One nvcc run: Args[0] is nvcc's path.
struct CompileCommand {
  std::vector<std::string> Args;
  std::string WorkingDir;      ///< empty: this process's
  unsigned TimeoutSeconds = 0; ///< 0: none
};

class CompileRunner {
public:
  virtual ~CompileRunner();
  /// Where the commands run, for messages ("partition cpu").
  virtual std::string where() const = 0;
  /// Runs every command; the results are in their order. A command that
  /// could not be run at all (its node failed every time) is a result with
  /// Crashed set and ErrorMessage saying why. Fails only when nothing could
  /// be started. Called from several threads at once.
  virtual llvm::Expected<std::vector<SubprocessResult>>
  runAll(llvm::ArrayRef<CompileCommand> Commands) = 0;
};

} // namespace forge::build

#endif
