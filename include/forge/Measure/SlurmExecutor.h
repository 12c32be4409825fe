//===- Measure/SlurmExecutor.h - Job directories on a Slurm cluster -*- C++ -*-===//
///
/// \file
/// The cluster executor (docs/cluster.md). A measurement's job directories
/// are written to a shared directory and run as one `sbatch --array` on a
/// partition whose GPUs are one architecture; each array task runs
/// `forge-worker run` on one directory, on one GPU.
///
///  - Progress comes from `squeue` (pending, running) and the directories'
///    results as the tasks write them; a task that left the queue is looked
///    up with `sacct`, or `scontrol show job` where accounting is off, for
///    its state and reason.
///  - A task that did not finish (a node failure, the time limit, a killed
///    worker) is submitted again, up to MaxAttempts; then it is lost, with
///    the Slurm state and reason.
///  - Directories are named by the hash of what they measure: a run after an
///    interruption reuses the finished ones and follows the ones still
///    queued, so nothing is submitted twice.
///  - An interrupt cancels this run's jobs with `scancel`.
///
/// Every Slurm command is run with an argument vector, never a shell
/// string, and with secrets taken out of its environment (which sbatch
/// passes on to the job). The one script is the batch script sbatch needs,
/// written by us with every path quoted.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_SLURMEXECUTOR_H
#define FORGE_MEASURE_SLURMEXECUTOR_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Build/CompileRunner.h"
#include "forge/Measure/Executor.h"
#include "forge/Measure/SubmissionGroup.h"
#include <map>
#include <memory>
#include <mutex>

namespace forge::measure {

/// How a task asks for its GPU.
enum class SlurmGpuRequest : uint8_t {
  Gres, ///< --gres=gpu:1
  Gpus, ///< --gpus=1
  None, ///< nothing (a partition that hands out whole GPU nodes)
};

struct SlurmOptions {
  std::string Partition;
  std::string Account;   ///< --account; empty: the user's default
  std::string TimeLimit; ///< --time per task ("00:20:00"); empty: the partition's
  /// Tasks of one array running at once (--array=...%N).
  unsigned MaxJobs = 32;
  /// The shared directory: job directories, batch scripts and task logs.
  std::string Workdir;
  /// forge-worker as the nodes see it (a path on the shared file system).
  std::string WorkerPath;
  double WorkerTimeoutS = 0; ///< passed to the worker as --timeout-s when > 0
  unsigned CandidatesPerTask = 8;
  SlurmGpuRequest Gpu = SlurmGpuRequest::Gres;
  unsigned MaxAttempts = 3;
  double PollSeconds = 2;
  std::vector<std::string> ExtraSbatchArgs; ///< --sbatch-arg, each one argument
  /// Where sbatch, squeue, sacct, scancel, sinfo and scontrol are; empty:
  /// PATH.
  std::string BinDir;
};

/// "sm_80=a100,sm_90=h100" as (target name, partition) pairs; a usage error
/// names a malformed entry or a target given twice.
llvm::Expected<std::map<std::string, std::string>>
parsePartitionMap(llvm::StringRef Text);

/// "gres", "gpus" or "none".
llvm::Expected<SlurmGpuRequest> parseSlurmGpuRequest(llvm::StringRef Text);

class SlurmExecutor final : public Executor {
public:
  /// Checks the configuration before anything is submitted: the Slurm
  /// commands on PATH (or in BinDir), the partition known to the cluster,
  /// the work directory writable, the worker path absolute.
  static llvm::Expected<std::unique_ptr<SlurmExecutor>> create(SlurmOptions O);

  llvm::StringRef name() const override { return "slurm"; }
  unsigned candidatesPerJob() const override { return O.CandidatesPerTask; }
  std::string jobStore() const override { return O.Workdir + "/jobs"; }
  llvm::Expected<std::vector<JobRun>> run(const std::vector<std::string> &Dirs,
                                          const ExecutorHooks &H) override;

  /// The partition's GPU, as `forge-worker info` reports it from a job on
  /// the partition (sbatch --wait); its compute capability must be one the
  /// Arch database knows. Kept in WORKDIR/partitions/NAME.json: later runs
  /// do not ask again.
  struct Probe {
    const arch::TargetInfo *Target = nullptr;
    std::string GpuName;
  };
  llvm::Expected<Probe> probe();

  const SlurmOptions &options() const { return O; }

  /// What this executor's tasks took so far: each attempt that ran its
  /// body (a finished task, a failed one that is retried or lost), timed
  /// by the batch script on the node (DIR/task-time); directories reused
  /// from an earlier run are not counted. For a GPU partition, the
  /// GPU-seconds the run held.
  struct Usage {
    unsigned Tasks = 0;
    double Seconds = 0;
  };
  Usage usage() const;

  /// What each array task runs on its directory, "$dir" in Body (shell
  /// lines; the status of the last is the task's, kept in DIR/exit).
  struct TaskScript {
    std::string Interpreter = "/bin/sh";
    std::string Stem;    ///< the batch script's name in the work directory
    std::string What;    ///< for the script's comment
    std::string Body;
    std::string LogName; ///< DIR/LogName becomes JobRun::Log
  };
  /// run() with another task script: the same submission, following,
  /// retries, reuse of finished directories and cancellation.
  llvm::Expected<std::vector<JobRun>> runTasks(const std::vector<std::string> &Dirs,
                                               const ExecutorHooks &H, const TaskScript &What);

private:
  explicit SlurmExecutor(SlurmOptions O) : O(std::move(O)) {}
  std::string command(llvm::StringRef Name) const;
  llvm::Expected<std::string> submit(const std::string &Script,
                                     const std::vector<unsigned> &Tasks,
                                     const std::string &Output, bool Wait);
  void cancel(const std::vector<std::string> &Jobs);
  void account(const std::string &Dir);

  SlurmOptions O;
  mutable std::mutex UsageMu;
  Usage Used;
};

/// `--compile-partition`: nvcc as array tasks on a CPU partition, one task
/// per compile, with no GPU asked for. The nodes must see the sources, the
/// job directories (under the work directory) and nvcc at the paths this
/// machine has; bash runs the task (docs/cluster.md).
class SlurmCompileRunner final : public build::CompileRunner {
public:
  /// O.Partition is the CPU partition; its GPU request is ignored.
  /// Interrupted (may be null) cancels the compile jobs when set.
  static llvm::Expected<std::unique_ptr<SlurmCompileRunner>>
  create(SlurmOptions O, const std::atomic<bool> *Interrupted = nullptr);
  ~SlurmCompileRunner() override;
  std::string where() const override;
  llvm::Expected<std::vector<SubprocessResult>>
  runAll(llvm::ArrayRef<build::CompileCommand> Commands) override;
  /// A campaign's file: a runner whose compiles go out with the other
  /// members' as one array a round (SubmissionGroup, GatherS as there).
  /// This runner must outlive it.
  std::unique_ptr<build::CompileRunner> join(double GatherS = 30);
  /// Compiles run here so far, and the Slurm tasks they took.
  unsigned compiles() const { return Compiles; }
  /// The arrays the members' compiles went out in.
  unsigned arrays() const;
  /// The compile tasks' time on the partition (SlurmExecutor::usage).
  SlurmExecutor::Usage usage() const { return Exec->usage(); }

private:
  class Tasks;
  class Member;
  SlurmCompileRunner(std::unique_ptr<SlurmExecutor> E, const std::atomic<bool> *I);
  llvm::Expected<std::vector<SubprocessResult>>
  runThrough(llvm::ArrayRef<build::CompileCommand> Commands, Executor &Run);
  std::unique_ptr<SlurmExecutor> Exec;
  const std::atomic<bool> *Interrupted;
  std::atomic<unsigned> Compiles{0};
  std::unique_ptr<Executor> Direct; ///< the compile script over directories
  std::once_flag GroupMade;
  std::unique_ptr<SubmissionGroup> Group;
};

/// A partition opened for one target: its executor and its GPU.
struct PartitionGpu {
  const arch::TargetInfo *Target = nullptr;
  std::string Partition, GpuName;
  std::unique_ptr<SlurmExecutor> Exec;
};

/// One executor per target (Common's options with that target's
/// partition from Map), each partition checked and its GPU asked: it must
/// be the target's architecture. A target without a partition is an error
/// that says how to add one.
llvm::Expected<std::vector<PartitionGpu>>
openPartitions(llvm::ArrayRef<const arch::TargetInfo *> Targets,
               const std::map<std::string, std::string> &Map, const SlurmOptions &Common);

} // namespace forge::measure

#endif
