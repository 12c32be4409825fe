//===- Measure/Executor.h - Where measurement jobs run ---------*- C++ -*-===//
///
/// \file
/// A measurement job is a job directory (docs/worker-protocol.md): a plan,
/// the harness libraries and, once run, results.jsonl. Where `forge-worker
/// run` runs on it is an executor's choice:
///
///  - LocalExecutor, the default: the GPU of this machine, one directory
///    after another;
///  - SlurmExecutor (Measure/SlurmExecutor.h): one `sbatch --array` over
///    the directories, on a partition of a cluster, followed, retried,
///    resumed and cancelled with Slurm's own commands.
///
/// runMeasurement (Measurement.h) writes the directories and reads their
/// results; an executor only runs the worker on them.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_EXECUTOR_H
#define FORGE_MEASURE_EXECUTOR_H

#include "forge/Measure/Results.h"
#include "llvm/Support/Error.h"
#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace forge::measure {

/// How the worker ran on one job directory.
struct JobRun {
  std::string Dir;
  /// The worker ran to its end and said how (its exit status): the results
  /// are what it measured. False: it never ran or was killed, and
  /// ErrorMessage says how (a Slurm state and reason, a signal).
  bool Finished = false;
  int ExitCode = -1;
  std::string ErrorMessage;
  std::string Log;          ///< what the worker printed on stderr
  unsigned Attempts = 0;    ///< how often it was started (retries + 1)
  bool Reused = false;      ///< an earlier run had finished it: not started again
  bool Interrupted = false; ///< the run was interrupted before it finished
};

struct ExecutorHooks {
  /// Result lines as they appear in any directory, with the directory
  /// (called from a watcher thread or the executor's poll loop).
  std::function<void(llvm::StringRef Dir, const CandidateResult &)> OnResult;
  /// What the scheduler says of the jobs ("slurm job 41 on a100: 2 running,
  /// 3 pending, 1 done"); for the progress display.
  std::function<void(llvm::StringRef)> OnStatus;
  /// Set from a signal handler: stop starting work, cancel what runs.
  const std::atomic<bool> *Interrupted = nullptr;
};

class Executor {
public:
  virtual ~Executor();
  virtual llvm::StringRef name() const = 0; ///< "local", "slurm"
  /// Candidates per job directory: 0 puts a measurement's candidates in
  /// one directory (one worker process times them side by side); N splits
  /// them into directories of at most N, each with the reference, run as
  /// tasks in parallel.
  virtual unsigned candidatesPerJob() const { return 0; }
  /// Where split job directories are kept, by the hash of their contents,
  /// so that a run after an interruption finds the finished ones and the
  /// ones still running (empty: below the measurement's job directory).
  virtual std::string jobStore() const { return ""; }
  /// Runs forge-worker on each directory; the JobRuns are in Dirs' order.
  /// Fails only when nothing could be started (a submission refused); a
  /// worker that failed or was lost is its JobRun.
  virtual llvm::Expected<std::vector<JobRun>> run(const std::vector<std::string> &Dirs,
                                                  const ExecutorHooks &H) = 0;
};

/// The GPU here: forge-worker on each directory in turn, with secrets
/// scrubbed from its environment (docs/sandbox.md).
class LocalExecutor final : public Executor {
public:
  /// TimeoutS > 0 is passed to the worker as --timeout-s. Wrapper, when not
  /// empty, is a command the worker runs under (its program first: `forge-port
  /// spec --check` runs it under compute-sanitizer); "{dir}" in it stands for
  /// the job directory.
  LocalExecutor(std::string WorkerPath, double TimeoutS,
                std::vector<std::string> Wrapper = {})
      : WorkerPath(std::move(WorkerPath)), TimeoutS(TimeoutS), Wrapper(std::move(Wrapper)) {}
  llvm::StringRef name() const override { return "local"; }
  llvm::Expected<std::vector<JobRun>> run(const std::vector<std::string> &Dirs,
                                          const ExecutorHooks &H) override;

private:
  std::string WorkerPath;
  double TimeoutS;
  std::vector<std::string> Wrapper;
};

/// The lines of a job directory's results.jsonl that appeared since the
/// last poll (a line is taken once it ends in a newline).
class ResultTail {
public:
  explicit ResultTail(std::string Path) : Path(std::move(Path)) {}
  std::vector<CandidateResult> poll();

private:
  std::string Path;
  size_t Offset = 0;
};

} // namespace forge::measure

#endif
