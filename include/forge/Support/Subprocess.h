//===- Support/Subprocess.h - Run a program with a timeout -----*- C++ -*-===//
#ifndef FORGE_SUPPORT_SUBPROCESS_H
#define FORGE_SUPPORT_SUBPROCESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace forge {

struct SubprocessResult {
  int ExitCode = -1;      ///< -1 when the program did not exit normally.
  bool TimedOut = false;
  bool Crashed = false;   ///< Killed by a signal.
  std::string Stdout;
  std::string Stderr;
  std::string ErrorMessage; ///< Why it could not run, or the signal text.
  double Seconds = 0;
  bool ok() const { return ExitCode == 0 && !TimedOut && !Crashed; }
};

struct SubprocessOptions {
  unsigned TimeoutSeconds = 0;          ///< 0: no limit.
  std::optional<std::string> Stdin;     ///< Text fed on standard input.
  std::optional<std::vector<std::string>> Env; ///< Replaces the environment.
  std::string WorkingDir;               ///< Empty: the current one.
  /// Takes the secrets (forge/Support/Secrets.h) out of the environment the
  /// program gets (Env, or this process's): for compiles and runs of
  /// untrusted candidate code.
  bool ScrubSecrets = false;
  /// Runs the program in a new network namespace (no interface but a down
  /// loopback) through `unshare --map-current-user --net`, where the
  /// platform allows it (networkIsolationAvailable); otherwise as usual.
  bool NoNetwork = false;
};

/// Whether NoNetwork takes effect here: unshare exists and may create a user
/// and a network namespace (asked once per process).
bool networkIsolationAvailable();

/// Runs Program with Args (Args[0] is argv[0]) and captures its output.
/// Fails only when the program cannot be started; a non-zero exit, a crash
/// or a timeout is data in the result.
llvm::Expected<SubprocessResult>
runProgram(llvm::StringRef Program, llvm::ArrayRef<std::string> Args,
           const SubprocessOptions &Opts = {});

/// Finds Name on PATH (or returns Name if it is a path that exists).
std::optional<std::string> findProgram(llvm::StringRef Name,
                                       llvm::ArrayRef<std::string> Hints = {});

/// Quotes an argument vector for display in a shell.
std::string shellJoin(llvm::ArrayRef<std::string> Args);

} // namespace forge

#endif
