//===- forge-port/Common.h - Shared by the subcommands ---------*- C++ -*-===//
#ifndef FORGE_TOOLS_FORGEPORT_COMMON_H
#define FORGE_TOOLS_FORGEPORT_COMMON_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <array>
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
/// The same, printed on OS.
int reportError(llvm::raw_ostream &OS, llvm::Error E);

/// Parses Args with the options of the given subcommand; false on a usage
/// error (already printed).
bool parseOptions(const Invocation &Inv, llvm::StringRef Overview);

/// Block dimensions as the command line gives them: "256", "16,16" or
/// "8,8,4"; at most 1024 threads.
llvm::Expected<std::array<int64_t, 3>> parseBlockDims(llvm::StringRef Text);

int runAnalyze(const Invocation &Inv);
int runList(const Invocation &Inv);
int runPort(const Invocation &Inv);
int runSpec(const Invocation &Inv);
int runMeasure(const Invocation &Inv);
int runTune(const Invocation &Inv);
int runPropose(const Invocation &Inv);
int runOptimize(const Invocation &Inv);
int runNew(const Invocation &Inv);
int runExperience(const Invocation &Inv);

} // namespace forge::tool

#endif
