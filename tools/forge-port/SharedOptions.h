//===- forge-port/SharedOptions.h - Options of several subcommands -*- C++ -*-===//
///
/// \file
/// The subcommands, and the options that several of them take, declared
/// once. A subcommand is made on first use, so that options in other files
/// can name it during static initialisation whatever the order of the
/// files. Options with defaults that differ between subcommands (--seed)
/// have none here: the driver's options struct holds the default, and a
/// tool applies the option only when it was given (applyIfGiven).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TOOLS_FORGEPORT_SHAREDOPTIONS_H
#define FORGE_TOOLS_FORGEPORT_SHAREDOPTIONS_H

#include "forge/Agent/ModelClient.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Measure/WorkerProtocol.h"
#include "forge/Support/Output.h"
#include "llvm/Support/CommandLine.h"
#include <string>

namespace forge::tool {

llvm::cl::SubCommand &listCommand();
llvm::cl::SubCommand &analyzeCommand();
llvm::cl::SubCommand &portCommand();
llvm::cl::SubCommand &specCommand();
llvm::cl::SubCommand &measureCommand();
llvm::cl::SubCommand &tuneCommand();
llvm::cl::SubCommand &proposeCommand();
llvm::cl::SubCommand &optimizeCommand();
llvm::cl::SubCommand &newCommand();

/// The category of the shared options in every subcommand's --help.
llvm::cl::OptionCategory &sharedCategory();

// Where a rewritten source goes: port, tune, optimize (propose: -o, --diff).
extern llvm::cl::opt<std::string> OutputPath; ///< -o FILE | -o -
extern llvm::cl::opt<bool> InPlace;           ///< -i
extern llvm::cl::opt<bool> Diff;              ///< --diff
// What the file is read and compiled with.
extern llvm::cl::opt<std::string> To;        ///< --to: port, tune (a list), optimize, propose
extern llvm::cl::opt<std::string> BuildPath; ///< -p: compile_commands.json
extern llvm::cl::opt<std::string> CudaPath;  ///< --cuda-path
// The GPU side: measure, tune, optimize.
extern llvm::cl::opt<std::string> WorkerPath; ///< --worker
extern llvm::cl::opt<std::string> JobDir;     ///< --job-dir
extern llvm::cl::opt<uint64_t> Seed;          ///< --seed
extern llvm::cl::opt<unsigned> Reps;          ///< --reps
extern llvm::cl::opt<double> TimeoutS;        ///< --timeout
extern llvm::cl::opt<std::string> SandboxOpt; ///< --sandbox on|strict|off
// What the expert rules may assume: propose, optimize.
extern llvm::cl::opt<bool> AssumeNoAlias; ///< --assume-no-alias

// The model endpoint: optimize, new (docs/model-endpoints.md).
extern llvm::cl::opt<std::string> LlmUrl;    ///< --llm
extern llvm::cl::opt<std::string> ModelName; ///< --model
extern llvm::cl::opt<double> LlmTimeout;     ///< --llm-timeout
extern llvm::cl::opt<unsigned> LlmRetries;   ///< --llm-retries
extern llvm::cl::opt<double> LlmBackoff;     ///< --llm-backoff

/// Whether a model is asked for: --llm, --model or $FORGE_LLM_MODEL.
bool modelRequested();

/// The model's configuration: --llm and --model (or $FORGE_LLM_URL and
/// $FORGE_LLM_MODEL; the key only from $FORGE_LLM_API_KEY) with
/// --llm-timeout, --llm-retries and --llm-backoff. Usage errors name what
/// is missing.
llvm::Expected<agent::ModelConfig> modelOption();

/// --sandbox as the plan's mode; a usage error for another spelling. Off
/// is said loudly on stderr.
llvm::Error applySandboxOption(measure::SandboxMode &Mode);

/// -o/-i/--diff as an OutputChoice (a usage error when several are given).
llvm::Expected<OutputChoice> outputChoice();

/// An arch option (--arch, --from) as a target: null when the option is
/// empty, a usage error listing the known targets when it names none.
llvm::Expected<const arch::TargetInfo *> optionalTarget(llvm::StringRef Name);

/// --to as one target; a usage error when it is missing and Required, or
/// names no known target. Null when not given and not required.
llvm::Expected<const arch::TargetInfo *> targetOption(bool Required);

/// For a subcommand that needs a kernel of File: a C unit is refused with
/// one clear error, before any work (frontend::checkKernelInput, with -p's
/// database and the extra compiler arguments).
llvm::Error checkKernelFile(llvm::StringRef File, llvm::ArrayRef<std::string> ExtraArgs);

/// Sets Field from Opt when the option was given on the command line.
template <class T, class F> void applyIfGiven(const llvm::cl::opt<T> &Opt, F &Field) {
  if (Opt.getNumOccurrences())
    Field = Opt.getValue();
}

} // namespace forge::tool

#endif
