//===- forge-worker/Sandbox.h - Confine the child that loads candidates -*- C++ -*-===//
///
/// \file
/// The layers around `forge-worker exec` (docs/sandbox.md), each applied
/// where the platform allows and reported where it does not:
///
///  prepare(), at the very start of the child (one thread, before CUDA):
///   - env:      the secrets (forge/Support/Secrets.h) taken out of environ;
///   - tmpdir:   a private writable directory (JOB/sandbox-tmp) as TMPDIR
///               and CUDA_CACHE_PATH;
///   - userns:   a new user namespace mapping the outer uid/gid to itself;
///   - mountns:  a new mount namespace (nothing propagates out), with
///   - tmpfs:    an empty tmpfs on /tmp when the job uses nothing under it;
///   - netns:    a new network namespace: no interface but a down loopback;
///  enter(), after CUDA is initialised and the buffers allocated, before the
///  first dlopen of a candidate:
///   - landlock: writes (create, remove, write, truncate, rename) only below
///               the private directory, the job directory, /dev/shm, and
///               writes to existing files under /dev; TCP bind/connect
///               denied (ABI 4), signals out of the sandbox denied (ABI 6);
///   - seccomp:  execve/execveat, fork/vfork, clone without CLONE_THREAD,
///               sockets other than AF_UNIX/AF_NETLINK, ptrace,
///               process_vm_*, mount, namespaces, bpf, keys, modules,
///               io_uring, ... fail with EPERM and are recorded (a SIGSYS
///               handler); clone3 fails with ENOSYS (glibc falls back to
///               clone, which the filter can inspect).
///
/// A denied call is written to stderr at once and added to the candidate's
/// result line ("status":"sandbox-denied", "sandbox_denied":[...]) by
/// annotateResultLine, which appendResultLine calls. The layers the
/// platform refused are written once (process 1) as a "sandbox" line of
/// results.jsonl and on stderr. FORGE_SANDBOX_SKIP=layer,... switches
/// layers off (for a platform where one breaks the CUDA driver).
///
/// Plain C++17 and Linux headers: no CUDA, no libseccomp, no LLVM.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_WORKER_SANDBOX_H
#define FORGE_WORKER_SANDBOX_H

#include "forge/Measure/WorkerProtocol.h"
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace forge::worker::sandbox {

struct Options {
  measure::SandboxMode Mode = measure::SandboxMode::On;
  std::string JobDir;
  /// Empty: JobDir/sandbox-tmp.
  std::string PrivateDir;
  /// Files and directories the child reads after prepare() (libraries,
  /// input files): /tmp is covered by a tmpfs only when none is below it.
  std::vector<std::string> Paths;
  /// Layers switched off (FORGE_SANDBOX_SKIP, comma-separated).
  std::set<std::string> Skip;
  /// The child's process number: 1 reports the layers.
  unsigned Process = 1;
};

struct Report {
  std::vector<std::string> Active;
  /// Layer, why it is missing.
  std::vector<std::pair<std::string, std::string>> Refused;
  /// Set when strict mode met a missing layer.
  std::string Error;
};

/// Every layer's name, in the order they are applied.
const std::vector<std::string> &layerNames();

/// The skip list of FORGE_SANDBOX_SKIP ("netns,landlock"); unknown names
/// are an error.
bool parseSkip(const std::string &Text, std::set<std::string> &Out,
               std::string &Error);

/// The first half, in a single-threaded process. Keeps Opts for enter().
/// False (with the report's Error set) when strict mode meets a missing
/// layer.
bool prepare(const Options &Opts);

/// The second half, right before the first candidate is loaded; writes
/// the report (process 1). False when strict mode meets a missing layer;
/// the caller ends with status 2. Without prepare() it does nothing.
bool enter();

/// What prepare() and enter() did.
const Report &report();

/// The directory prepare() made, or empty.
std::string privateDir();

/// Adds the denials recorded for the candidate of a "candidate" (or
/// "sandbox-check") line to it: status "sandbox-denied" first among the
/// reasons, the calls in "sandbox_denied", and one stderr line. Other lines
/// are left alone.
void annotateResultLine(std::string &Line);

/// `forge-worker sandbox-check`: applies the same layers with the same code
/// and loads the plan's libraries (the reference and the candidates) without
/// CUDA, one "sandbox-check" line each; for CI and diagnostics.
int runCheck(const std::string &JobDir,
             const std::vector<std::pair<std::string, std::string>> &Libraries,
             const Options &Opts);

} // namespace forge::worker::sandbox

#endif
