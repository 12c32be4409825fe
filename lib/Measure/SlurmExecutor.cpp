//===- SlurmExecutor.cpp - Job directories as Slurm array tasks -----------===//
#include "forge/Measure/SlurmExecutor.h"
#include "forge/Measure/SubmissionGroup.h"
#include "forge/Measure/Measurement.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <chrono>
#include <set>
#include <thread>
#include <unistd.h>

using namespace forge;
using namespace forge::measure;

llvm::Expected<std::map<std::string, std::string>>
forge::measure::parsePartitionMap(llvm::StringRef Text) {
  std::map<std::string, std::string> Out;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ',', -1, /*KeepEmpty=*/false);
  if (Parts.empty())
    return makeUsageError("--partition is empty: expected TARGET=PARTITION[,...], as in "
                          "sm_80=a100,sm_90=h100");
  for (llvm::StringRef P : Parts) {
    auto [Target, Partition] = P.trim().split('=');
    Target = Target.trim();
    Partition = Partition.trim();
    if (Target.empty() || Partition.empty())
      return makeUsageError("--partition '{0}': expected TARGET=PARTITION, as in sm_90=h100",
                            P.trim());
    if (!arch::lookupTarget(Target)) {
      llvm::consumeError(arch::lookupTarget(Target).takeError());
      return makeUsageError("--partition '{0}': '{1}' is not a target this tool knows",
                            P.trim(), Target);
    }
    if (!Out.emplace(Target.str(), Partition.str()).second)
      return makeUsageError("--partition names {0} twice", Target);
  }
  return Out;
}

llvm::Expected<SlurmGpuRequest> forge::measure::parseSlurmGpuRequest(llvm::StringRef Text) {
  if (Text == "gres")
    return SlurmGpuRequest::Gres;
  if (Text == "gpus")
    return SlurmGpuRequest::Gpus;
  if (Text == "none")
    return SlurmGpuRequest::None;
  return makeUsageError("--slurm-gpu '{0}': expected gres (--gres=gpu:1), gpus (--gpus=1) or "
                        "none",
                        Text);
}

namespace {

/// A path inside single quotes for the batch script.
std::string shellQuote(llvm::StringRef S) {
  std::string Out = "'";
  for (char C : S) {
    if (C == '\'')
      Out += "'\\''";
    else
      Out += C;
  }
  return Out + "'";
}

std::string absolute(llvm::StringRef P) {
  llvm::SmallString<256> A(P);
  llvm::sys::fs::make_absolute(A);
  llvm::sys::path::remove_dots(A, /*remove_dot_dot=*/true);
  return A.str().str();
}

/// The worker's exit status a task wrote to DIR/exit, if it wrote one.
std::optional<int> exitStatus(const std::string &Dir) {
  auto Text = readFile(Dir + "/exit");
  if (!Text) {
    llvm::consumeError(Text.takeError());
    return std::nullopt;
  }
  int Rc = 0;
  if (llvm::StringRef(*Text).trim().getAsInteger(10, Rc))
    return std::nullopt;
  return Rc;
}

/// A worker exit status that says the worker ran to its end; 128 and above
/// are the shell's "killed by signal N - 128".
bool workerFinished(int Rc) { return Rc >= 0 && Rc < 128; }

std::string describeExit(int Rc) {
  if (workerFinished(Rc))
    return llvm::formatv("the worker exited with status {0}", Rc).str();
  return llvm::formatv("the worker was killed by signal {0}", Rc - 128).str();
}

/// One job directory as an array task.
struct Task {
  std::string Dir;
  unsigned Index = 0;   ///< its line in the list (the array task id)
  std::string Job;      ///< "41_3" while queued or running
  unsigned Attempts = 0;
  unsigned Absent = 0;  ///< polls since the queue last listed it
  std::string State;    ///< the queue's: PENDING, RUNNING, ...
  bool Done = false, Lost = false, Reused = false;
  std::string Reason;   ///< why it was lost
  std::unique_ptr<ResultTail> Tail;
};

} // namespace

std::string SlurmExecutor::command(llvm::StringRef Name) const {
  if (!O.BinDir.empty()) {
    llvm::SmallString<256> P(O.BinDir);
    llvm::sys::path::append(P, Name);
    return P.str().str();
  }
  if (auto P = findProgram(Name))
    return *P;
  return Name.str();
}

llvm::Expected<std::unique_ptr<SlurmExecutor>> SlurmExecutor::create(SlurmOptions O) {
  if (O.Partition.empty())
    return makeUsageError("--executor slurm needs a partition per target (--partition "
                          "sm_90=h100)");
  if (O.Workdir.empty())
    return makeUsageError("--executor slurm needs --workdir: a directory on a file system "
                          "that the GPU nodes share with this machine");
  if (O.CandidatesPerTask == 0 || O.MaxAttempts == 0 || O.MaxJobs == 0)
    return makeUsageError("--executor slurm: --task-size, --max-attempts and --max-jobs must "
                          "be at least 1");
  std::unique_ptr<SlurmExecutor> E(new SlurmExecutor(std::move(O)));
  SlurmOptions &S = E->O;
  for (const char *Cmd : {"sbatch", "squeue", "scancel", "sinfo", "scontrol"}) {
    std::string P = E->command(Cmd);
    if (!llvm::sys::fs::can_execute(P) || llvm::sys::fs::is_directory(P))
      return makeError("--executor slurm: the Slurm command '{0}' is {1}; install the Slurm "
                       "client (Debian: slurm-client) or log in to the cluster",
                       Cmd, S.BinDir.empty() ? "not on PATH" : "not in " + S.BinDir);
  }
  // The partition must be one the cluster has.
  SubprocessOptions Quick;
  Quick.TimeoutSeconds = 60;
  auto Info = runProgram(E->command("sinfo"),
                         {"sinfo", "--noheader", "--format=%P"}, Quick);
  if (!Info)
    return Info.takeError();
  if (!Info->ok())
    return makeError("--executor slurm: sinfo failed, so the cluster cannot be reached: {0}",
                     llvm::StringRef(Info->Stderr).trim());
  std::set<std::string> Partitions;
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  llvm::StringRef(Info->Stdout).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    Partitions.insert(L.trim().rtrim('*').str());
  if (!Partitions.count(S.Partition))
    return makeError("--executor slurm: the cluster has no partition '{0}' (sinfo lists: {1})",
                     S.Partition, llvm::join(Partitions, ", "));
  // The work directory must be writable; every node must see it (which only
  // the jobs can show).
  S.Workdir = absolute(S.Workdir);
  for (const char *Sub : {"", "/jobs", "/logs", "/partitions", "/compile"})
    if (auto EC = llvm::sys::fs::create_directories(S.Workdir + Sub))
      return makeError("--workdir {0}: cannot create it: {1}", S.Workdir + Sub, EC.message());
  if (::access(S.Workdir.c_str(), W_OK) != 0)
    return makeError("--workdir {0} is not writable", S.Workdir);
  if (S.WorkerPath.empty())
    return makeUsageError("--executor slurm needs the worker's path (--worker), on the shared "
                          "file system");
  S.WorkerPath = absolute(S.WorkerPath);
  if (!llvm::sys::fs::can_execute(S.WorkerPath))
    return makeError("--worker {0}: no executable there; the GPU nodes run it, so it must be "
                     "on the file system they share",
                     S.WorkerPath);
  return std::move(E);
}

llvm::Expected<std::string> SlurmExecutor::submit(const std::string &Script,
                                                  const std::vector<unsigned> &Tasks,
                                                  const std::string &Output, bool Wait) {
  std::vector<std::string> Args{"sbatch", "--parsable", "--job-name=forge-port",
                                "--partition=" + O.Partition, "--output=" + Output,
                                "--chdir=" + O.Workdir};
  if (!O.Account.empty())
    Args.push_back("--account=" + O.Account);
  if (!O.TimeLimit.empty())
    Args.push_back("--time=" + O.TimeLimit);
  if (O.Gpu == SlurmGpuRequest::Gres)
    Args.push_back("--gres=gpu:1");
  else if (O.Gpu == SlurmGpuRequest::Gpus)
    Args.push_back("--gpus=1");
  if (!Tasks.empty()) {
    std::vector<std::string> Ids;
    for (unsigned T : Tasks)
      Ids.push_back(std::to_string(T));
    Args.push_back("--array=" + llvm::join(Ids, ",") + "%" + std::to_string(O.MaxJobs));
  }
  if (Wait)
    Args.push_back("--wait");
  for (const std::string &A : O.ExtraSbatchArgs)
    Args.push_back(A);
  Args.push_back(Script);
  SubprocessOptions SO;
  SO.ScrubSecrets = true; // sbatch hands its environment to the job
  SO.TimeoutSeconds = Wait ? 0 : 120;
  auto R = runProgram(command("sbatch"), Args, SO);
  if (!R)
    return R.takeError();
  llvm::StringRef Out = llvm::StringRef(R->Stdout).trim();
  // --parsable: "JOBID" or "JOBID;CLUSTER".
  std::string Id = Out.split(';').first.trim().str();
  if (Id.empty() || !llvm::all_of(Id, llvm::isDigit)) {
    std::string Why = llvm::StringRef(R->Stderr).trim().str();
    if (Why.empty())
      Why = R->ErrorMessage.empty() ? "exit status " + std::to_string(R->ExitCode)
                                    : R->ErrorMessage;
    return makeError("sbatch refused the job on partition {0}: {1}", O.Partition, Why);
  }
  if (Wait && !R->ok())
    return makeError("the job {0} on partition {1} failed (exit status {2}): {3}", Id,
                     O.Partition, R->ExitCode, llvm::StringRef(R->Stderr).trim());
  return Id;
}

void SlurmExecutor::cancel(const std::vector<std::string> &Jobs) {
  if (Jobs.empty())
    return;
  std::vector<std::string> Args{"scancel"};
  Args.insert(Args.end(), Jobs.begin(), Jobs.end());
  SubprocessOptions SO;
  SO.TimeoutSeconds = 60;
  auto R = runProgram(command("scancel"), Args, SO);
  if (!R)
    llvm::consumeError(R.takeError());
}

namespace {

/// The queue's view of some array jobs: "41_3" -> (state, reason). Pending
/// tasks of an array that squeue folds into "41_[3-5%2]" are expanded by
/// -r.
std::map<std::string, std::pair<std::string, std::string>>
queueStates(const std::string &Squeue, const std::set<std::string> &ArrayJobs) {
  std::map<std::string, std::pair<std::string, std::string>> Out;
  if (ArrayJobs.empty())
    return Out;
  auto Ask = [&](const std::string &Ids) {
    SubprocessOptions SO;
    SO.TimeoutSeconds = 60;
    auto R = runProgram(Squeue,
                        {"squeue", "--noheader", "--array", "--jobs=" + Ids,
                         "--format=%i|%T|%r"},
                        SO);
    if (!R) {
      llvm::consumeError(R.takeError());
      return false;
    }
    llvm::SmallVector<llvm::StringRef, 16> Lines;
    llvm::StringRef(R->Stdout).split(Lines, '\n', -1, false);
    for (llvm::StringRef L : Lines) {
      llvm::SmallVector<llvm::StringRef, 3> F;
      L.trim().split(F, '|');
      if (F.size() == 3)
        Out[F[0].str()] = {F[1].str(), F[2].str()};
    }
    return R->ok();
  };
  // One call for all; squeue refuses the whole list when one of the jobs
  // has left its memory, so then one call per job.
  if (!Ask(llvm::join(ArrayJobs, ",")))
    for (const std::string &J : ArrayJobs)
      Ask(J);
  return Out;
}

/// Why a task that left the queue did not finish: sacct's state, exit code
/// and reason, or scontrol's where accounting is off.
std::string slurmVerdict(const std::string &Sacct, const std::string &Scontrol,
                         const std::string &Job) {
  SubprocessOptions SO;
  SO.TimeoutSeconds = 60;
  if (llvm::sys::fs::can_execute(Sacct)) {
    auto R = runProgram(Sacct,
                        {"sacct", "--noheader", "--parsable2", "--allocations",
                         "--jobs=" + Job, "--format=State,ExitCode,Reason"},
                        SO);
    if (R && R->ok()) {
      llvm::StringRef First = llvm::StringRef(R->Stdout).trim().split('\n').first;
      llvm::SmallVector<llvm::StringRef, 3> F;
      First.split(F, '|');
      if (F.size() >= 2 && !F[0].empty())
        return llvm::formatv("Slurm state {0}, exit code {1}{2}", F[0], F[1],
                             F.size() > 2 && !F[2].empty() && F[2] != "None"
                                 ? ", reason " + F[2].str()
                                 : std::string())
            .str();
    } else if (!R) {
      llvm::consumeError(R.takeError());
    }
  }
  auto R = runProgram(Scontrol, {"scontrol", "--oneliner", "show", "job", Job}, SO);
  if (!R) {
    llvm::consumeError(R.takeError());
    return "no Slurm record of it";
  }
  std::string State, Reason, Exit;
  llvm::SmallVector<llvm::StringRef, 64> Words;
  llvm::StringRef(R->Stdout).split(Words, ' ', -1, false);
  for (llvm::StringRef W : Words) {
    if (W.consume_front("JobState="))
      State = W.str();
    else if (W.consume_front("Reason="))
      Reason = W.str();
    else if (W.consume_front("ExitCode="))
      Exit = W.trim().str();
  }
  if (State.empty())
    return "no Slurm record of it (it left the queue, and accounting is off)";
  return llvm::formatv("Slurm state {0}, exit code {1}{2}", State, Exit.empty() ? "?" : Exit,
                       Reason.empty() || Reason == "None" ? "" : ", reason " + Reason)
      .str();
}

} // namespace

llvm::Expected<std::vector<JobRun>>
SlurmExecutor::run(const std::vector<std::string> &Dirs, const ExecutorHooks &H) {
  TaskScript W;
  W.Stem = "array";
  W.What = "forge-worker on the job directory";
  W.Body = "rm -f \"$dir/results.jsonl\"\n" + shellQuote(O.WorkerPath) + " run \"$dir\"" +
           (O.WorkerTimeoutS > 0 ? " --timeout-s " + std::to_string(O.WorkerTimeoutS) : "") +
           " 2>\"$dir/worker.log\"\n";
  W.LogName = "worker.log";
  return runTasks(Dirs, H, W);
}

llvm::Expected<std::vector<JobRun>> SlurmExecutor::runTasks(const std::vector<std::string> &Dirs,
                                                            const ExecutorHooks &H,
                                                            const TaskScript &What) {
  // The list the array's tasks index, and the script each of them runs.
  // Unique in the work directory: executors of several partitions (and
  // several forge-port runs) share it.
  static std::atomic<unsigned> Arrays{0};
  std::string Stem = llvm::formatv("{0}/{1}-{2}-{3}-{4}", O.Workdir, What.Stem, O.Partition,
                                   ::getpid(), Arrays++)
                         .str();
  std::vector<Task> Tasks(Dirs.size());
  std::string List;
  for (size_t I = 0; I < Dirs.size(); ++I) {
    Tasks[I].Dir = absolute(Dirs[I]);
    Tasks[I].Index = unsigned(I);
    List += Tasks[I].Dir + "\n";
  }
  if (auto E = writeFileAtomically(Stem + ".list", List))
    return std::move(E);
  std::string Script =
      "#!" + What.Interpreter + "\n"
      "# Written by forge-port (docs/cluster.md): array task N runs " + What.What + "\n"
      "# on line N + 1 of the list, and writes the exit status to DIR/exit when it ends.\n"
      "list=" + shellQuote(Stem + ".list") + "\n"
      "dir=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$list\")\n"
      "if [ -z \"$dir\" ] || [ ! -d \"$dir\" ]; then\n"
      "  echo \"forge-port: no job directory for task $SLURM_ARRAY_TASK_ID in $list\" >&2\n"
      "  exit 2\n"
      "fi\n"
      "rm -f \"$dir/exit\" \"$dir/task-time\"\n"
      "start=$(date +%s.%N)\n" +
      What.Body +
      "rc=$?\n"
      "echo \"$start $(date +%s.%N)\" >\"$dir/task-time\"\n"
      "echo \"$rc\" >\"$dir/exit.tmp\" && mv -f \"$dir/exit.tmp\" \"$dir/exit\"\n"
      "exit \"$rc\"\n";
  if (auto E = writeFileAtomically(Stem + ".sh", Script))
    return std::move(E);
  llvm::sys::fs::setPermissions(Stem + ".sh", llvm::sys::fs::perms(0755));

  // What earlier runs left: finished directories are reused, queued ones
  // followed (DIR/slurm-job names the task).
  std::set<std::string> Known;
  for (Task &T : Tasks) {
    if (auto Rc = exitStatus(T.Dir); Rc && workerFinished(*Rc)) {
      T.Done = T.Reused = true;
      continue;
    }
    auto Prev = readFile(T.Dir + "/slurm-job");
    if (!Prev) {
      llvm::consumeError(Prev.takeError());
      continue;
    }
    auto [Job, Attempts] = llvm::StringRef(*Prev).trim().split(' ');
    if (Job.contains('_'))
      Known.insert(Job.split('_').first.str());
    T.Job = Job.str();
    Attempts.getAsInteger(10, T.Attempts);
  }
  auto Queue = queueStates(command("squeue"), Known);
  unsigned Followed = 0, Reused = 0;
  for (Task &T : Tasks) {
    Reused += T.Reused;
    if (!T.Done && !T.Job.empty() && !Queue.count(T.Job))
      T.Job.clear(); // gone from the queue unfinished: submitted again
    else if (!T.Done && !T.Job.empty())
      ++Followed;
  }
  if ((Reused || Followed) && H.OnStatus)
    H.OnStatus(llvm::formatv("slurm {0}: of {1} job directories, {2} finished in an earlier "
                             "run and {3} still queued from one: followed, not submitted again",
                             O.Partition, Tasks.size(), Reused, Followed)
                   .str());

  std::vector<std::string> Submitted; // array jobs of this run, for scancel
  auto CancelAll = [&] {
    cancel(Submitted);
    // scancel returns before the tasks are gone; wait a little for them.
    for (int I = 0; I < 20; ++I) {
      std::set<std::string> Ids(Submitted.begin(), Submitted.end());
      if (queueStates(command("squeue"), Ids).empty())
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  };
  auto SubmitWaiting = [&]() -> llvm::Error {
    std::vector<unsigned> Waiting;
    for (Task &T : Tasks)
      if (!T.Done && !T.Lost && T.Job.empty())
        Waiting.push_back(T.Index);
    if (Waiting.empty())
      return llvm::Error::success();
    auto Id = submit(Stem + ".sh", Waiting, O.Workdir + "/logs/slurm-%A_%a.out", false);
    if (!Id)
      return Id.takeError();
    Submitted.push_back(*Id);
    for (unsigned I : Waiting) {
      Task &T = Tasks[I];
      T.Job = *Id + "_" + std::to_string(T.Index);
      ++T.Attempts;
      T.Absent = 0;
      T.State = "PENDING";
      T.Tail = std::make_unique<ResultTail>(T.Dir + "/results.jsonl");
      if (auto E = writeFileAtomically(T.Dir + "/slurm-job",
                                       T.Job + " " + std::to_string(T.Attempts) + "\n"))
        return E;
    }
    return llvm::Error::success();
  };
  for (Task &T : Tasks)
    if (!T.Done && !T.Job.empty())
      T.Tail = std::make_unique<ResultTail>(T.Dir + "/results.jsonl");
  if (auto E = SubmitWaiting())
    return std::move(E);

  bool Interrupted = false;
  unsigned Retried = 0;
  std::string LastStatus;
  auto Drain = [&] {
    for (Task &T : Tasks)
      if (T.Tail)
        for (const CandidateResult &C : T.Tail->poll())
          if (H.OnResult)
            H.OnResult(Dirs[T.Index], C);
  };
  while (llvm::any_of(Tasks, [](const Task &T) { return !T.Done && !T.Lost; })) {
    if (H.Interrupted && *H.Interrupted) {
      Interrupted = true;
      CancelAll();
      break;
    }
    std::set<std::string> Live;
    for (const Task &T : Tasks)
      if (!T.Done && !T.Lost && !T.Job.empty())
        Live.insert(T.Job.substr(0, T.Job.find('_')));
    auto States = queueStates(command("squeue"), Live);
    bool Resubmit = false;
    for (Task &T : Tasks) {
      if (T.Done || T.Lost || T.Job.empty())
        continue;
      if (auto It = States.find(T.Job); It != States.end()) {
        T.State = It->second.first;
        T.Absent = 0;
        continue;
      }
      // Left the queue. The exit file may reach this machine a moment after
      // the queue forgets the task (a shared file system's caches): one
      // poll's grace.
      std::optional<int> Rc = exitStatus(T.Dir);
      if (Rc && workerFinished(*Rc)) {
        T.Done = true;
        account(T.Dir);
        continue;
      }
      if (!Rc && ++T.Absent < 2)
        continue;
      account(T.Dir);
      std::string Why = slurmVerdict(command("sacct"), command("scontrol"), T.Job);
      Why += Rc ? "; " + describeExit(*Rc) : "; the worker wrote no exit status";
      if (T.Attempts >= O.MaxAttempts) {
        T.Lost = true;
        T.Reason = llvm::formatv("lost after {0} attempt(s) on partition {1}: {2}",
                                 T.Attempts, O.Partition, Why)
                       .str();
        T.Job.clear();
        continue;
      }
      T.Reason = Why;
      T.Job.clear();
      ++Retried;
      Resubmit = true;
    }
    Drain();
    if (Resubmit)
      if (auto E = SubmitWaiting()) {
        CancelAll();
        return std::move(E);
      }
    if (H.OnStatus) {
      unsigned Pending = 0, Running = 0, Done = 0, Lost = 0;
      for (const Task &T : Tasks) {
        if (T.Done)
          ++Done;
        else if (T.Lost)
          ++Lost;
        else if (T.State == "RUNNING" || T.State == "COMPLETING")
          ++Running;
        else
          ++Pending;
      }
      std::string S = llvm::formatv("slurm {0}: {1} running, {2} pending, {3} done of {4}",
                                    O.Partition, Running, Pending, Done, Tasks.size())
                          .str();
      if (Retried)
        S += llvm::formatv(", {0} retried", Retried).str();
      if (Lost)
        S += llvm::formatv(", {0} lost", Lost).str();
      if (S != LastStatus)
        H.OnStatus(S);
      LastStatus = S;
    }
    if (llvm::any_of(Tasks, [](const Task &T) { return !T.Done && !T.Lost; }))
      std::this_thread::sleep_for(
          std::chrono::milliseconds(unsigned(std::max(0.05, O.PollSeconds) * 1000)));
  }
  Drain();

  std::vector<JobRun> Runs;
  for (Task &T : Tasks) {
    JobRun J;
    J.Dir = T.Dir;
    J.Attempts = T.Attempts;
    J.Reused = T.Reused;
    if (T.Done) {
      J.Finished = true;
      J.ExitCode = exitStatus(T.Dir).value_or(0);
    } else if (T.Lost) {
      J.ErrorMessage = T.Reason;
    } else {
      J.Interrupted = Interrupted;
      J.ErrorMessage = "cancelled (scancel): the run was interrupted";
    }
    if (auto Log = readFile(T.Dir + "/" + What.LogName))
      J.Log = std::move(*Log);
    else
      llvm::consumeError(Log.takeError());
    Runs.push_back(std::move(J));
  }
  return Runs;
}

void SlurmExecutor::account(const std::string &Dir) {
  // "START END" in seconds since the epoch, written by the batch script
  // when the task's body ended (docs/cluster.md).
  auto Text = readFile(Dir + "/task-time");
  if (!Text) {
    llvm::consumeError(Text.takeError());
    return;
  }
  auto [A, B] = llvm::StringRef(*Text).trim().split(' ');
  double Start = 0, End = 0;
  if (A.getAsDouble(Start) || B.getAsDouble(End) || End < Start)
    return;
  std::lock_guard<std::mutex> L(UsageMu);
  ++Used.Tasks;
  Used.Seconds += End - Start;
}

SlurmExecutor::Usage SlurmExecutor::usage() const {
  std::lock_guard<std::mutex> L(UsageMu);
  return Used;
}

llvm::Expected<SlurmExecutor::Probe> SlurmExecutor::probe() {
  // Asked once per partition and kept: a job on a busy cluster can wait.
  std::string Base = O.Workdir + "/partitions/" + O.Partition;
  std::string Cache = Base + ".json";
  if (auto Cached = readFile(Cache)) {
    if (auto G = parseGpuInfo(*Cached))
      return Probe{G->Target, G->Name};
    else
      llvm::consumeError(G.takeError());
  } else {
    llvm::consumeError(Cached.takeError());
  }
  std::string Script = Base + "-info.sh", Out = Base + "-info.out";
  llvm::sys::fs::remove(Out);
  if (auto E = writeFileAtomically(Script, "#!/bin/sh\n# Written by forge-port: the GPU of "
                                           "this partition (docs/cluster.md).\nexec " +
                                               shellQuote(O.WorkerPath) + " info >" +
                                               shellQuote(Out) + "\n"))
    return std::move(E);
  llvm::sys::fs::setPermissions(Script, llvm::sys::fs::perms(0755));
  auto Id = submit(Script, {}, O.Workdir + "/logs/info-%j.out", /*Wait=*/true);
  if (!Id)
    return makeError("asking forge-worker info on partition {0}: {1}", O.Partition,
                     llvm::toString(Id.takeError()));
  auto Printed = readFile(Out);
  if (!Printed)
    return makeError("partition {0}: the job {1} wrote no GPU description ({2}); see {3}",
                     O.Partition, *Id, llvm::toString(Printed.takeError()),
                     O.Workdir + "/logs/info-" + *Id + ".out");
  auto G = parseGpuInfo(*Printed);
  if (!G)
    return makeError("partition {0}: {1}", O.Partition, llvm::toString(G.takeError()));
  if (auto E = writeFileAtomically(Cache, *Printed))
    return std::move(E);
  return Probe{G->Target, G->Name};
}

llvm::Expected<std::vector<PartitionGpu>>
forge::measure::openPartitions(llvm::ArrayRef<const arch::TargetInfo *> Targets,
                               const std::map<std::string, std::string> &Map,
                               const SlurmOptions &Common) {
  for (const auto &[Target, Partition] : Map)
    if (llvm::none_of(Targets, [&](const arch::TargetInfo *T) { return T->Name == Target; }))
      return makeUsageError("--partition names {0}, which is not among the targets of --to",
                            Target);
  std::vector<PartitionGpu> Out;
  for (const arch::TargetInfo *T : Targets) {
    auto It = Map.find(T->Name);
    if (It == Map.end())
      return makeUsageError("--to {0}: no partition measures it; add {0}=PARTITION to "
                            "--partition",
                            T->Name);
    SlurmOptions O = Common;
    O.Partition = It->second;
    auto E = SlurmExecutor::create(std::move(O));
    if (!E)
      return E.takeError();
    auto P = (*E)->probe();
    if (!P)
      return P.takeError();
    if (P->Target != T)
      return makeError("partition {0} has {1} ({2}), not {3}: give {3} a partition of {3} "
                       "GPUs",
                       It->second, P->GpuName, P->Target->Name, T->Name);
    Out.push_back({T, It->second, P->GpuName, std::move(*E)});
  }
  return Out;
}

llvm::Expected<std::unique_ptr<SlurmCompileRunner>>
SlurmCompileRunner::create(SlurmOptions O, const std::atomic<bool> *Interrupted) {
  O.Gpu = SlurmGpuRequest::None;
  auto E = SlurmExecutor::create(std::move(O));
  if (!E)
    return E.takeError();
  return std::unique_ptr<SlurmCompileRunner>(new SlurmCompileRunner(std::move(*E), Interrupted));
}

std::string SlurmCompileRunner::where() const {
  return "partition " + Exec->options().Partition;
}

/// The compile tasks as an Executor: run() is an array of the compile
/// script over the directories, so that a SubmissionGroup can gather the
/// compiles of a campaign's files.
class SlurmCompileRunner::Tasks final : public Executor {
public:
  explicit Tasks(SlurmExecutor &Exec) : Exec(Exec) {}
  llvm::StringRef name() const override { return "slurm"; }
  llvm::Expected<std::vector<JobRun>> run(const std::vector<std::string> &Dirs,
                                          const ExecutorHooks &H) override {
    SlurmExecutor::TaskScript Compile;
    Compile.Interpreter = "/bin/bash";
    Compile.Stem = "compile";
    Compile.What = "nvcc on the argument vector in the directory";
    // timeout exits 124 when the limit is reached (0: no limit).
    Compile.Body = "rm -f \"$dir/stdout\" \"$dir/stderr\"\n"
                   "mapfile -d '' -t argv <\"$dir/argv\"\n"
                   "if cd \"$(cat \"$dir/cwd\")\" 2>\"$dir/stderr\"; then\n"
                   "  timeout \"$(cat \"$dir/timeout\")\" \"${argv[@]}\" >\"$dir/stdout\" "
                   "2>\"$dir/stderr\"\n"
                   "else\n"
                   "  false\n"
                   "fi\n";
    Compile.LogName = "stderr";
    return Exec.runTasks(Dirs, H, Compile);
  }

private:
  SlurmExecutor &Exec;
};

/// A campaign file's compiles, gathered with the other files' (join()).
class SlurmCompileRunner::Member final : public build::CompileRunner {
public:
  Member(SlurmCompileRunner &R, std::unique_ptr<Executor> M) : R(R), M(std::move(M)) {}
  std::string where() const override { return R.where(); }
  llvm::Expected<std::vector<SubprocessResult>>
  runAll(llvm::ArrayRef<build::CompileCommand> Commands) override {
    return R.runThrough(Commands, *M);
  }

private:
  SlurmCompileRunner &R;
  std::unique_ptr<Executor> M;
};

SlurmCompileRunner::SlurmCompileRunner(std::unique_ptr<SlurmExecutor> E,
                                       const std::atomic<bool> *I)
    : Exec(std::move(E)), Interrupted(I), Direct(std::make_unique<Tasks>(*Exec)) {}

SlurmCompileRunner::~SlurmCompileRunner() = default;

std::unique_ptr<build::CompileRunner> SlurmCompileRunner::join(double GatherS) {
  std::call_once(GroupMade, [&] { Group = std::make_unique<SubmissionGroup>(*Direct, GatherS); });
  return std::make_unique<Member>(*this, Group->join());
}

unsigned SlurmCompileRunner::arrays() const { return Group ? Group->rounds() : 0; }

llvm::Expected<std::vector<SubprocessResult>>
SlurmCompileRunner::runAll(llvm::ArrayRef<build::CompileCommand> Commands) {
  return runThrough(Commands, *Direct);
}

llvm::Expected<std::vector<SubprocessResult>>
SlurmCompileRunner::runThrough(llvm::ArrayRef<build::CompileCommand> Commands, Executor &Run) {
  // One directory per compile: its argument vector (NUL-separated, so no
  // argument is ever split or expanded by a shell), working directory and
  // time limit; the task leaves stdout, stderr and exit next to them.
  llvm::SmallString<256> Batch;
  std::string Model = Exec->options().Workdir + "/compile/batch";
  if (auto EC = llvm::sys::fs::createUniqueDirectory(Model, Batch))
    return makeError("cannot create a compile directory in {0}/compile: {1}",
                     Exec->options().Workdir, EC.message());
  std::string Root = Batch.str().str();
  llvm::scope_exit Cleanup([&] { llvm::sys::fs::remove_directories(Root); });
  llvm::SmallString<256> Here;
  llvm::sys::fs::current_path(Here);
  std::vector<std::string> Dirs;
  for (size_t I = 0; I < Commands.size(); ++I) {
    const build::CompileCommand &C = Commands[I];
    std::string Dir = Root + "/task-" + std::to_string(I);
    if (auto EC = llvm::sys::fs::create_directories(Dir))
      return makeError("cannot create {0}: {1}", Dir, EC.message());
    std::string Argv;
    for (const std::string &A : C.Args)
      Argv += A + '\0';
    std::string Cwd = C.WorkingDir.empty() ? Here.str().str() : absolute(C.WorkingDir);
    if (auto E = writeFileAtomically(Dir + "/argv", Argv))
      return std::move(E);
    if (auto E = writeFileAtomically(Dir + "/cwd", Cwd + "\n"))
      return std::move(E);
    if (auto E = writeFileAtomically(Dir + "/timeout", std::to_string(C.TimeoutSeconds) + "\n"))
      return std::move(E);
    Dirs.push_back(Dir);
  }
  ExecutorHooks H;
  H.Interrupted = Interrupted;
  auto Runs = Run.run(Dirs, H);
  if (!Runs)
    return Runs.takeError();
  Compiles += unsigned(Commands.size());
  std::vector<SubprocessResult> Out;
  for (size_t I = 0; I < Runs->size(); ++I) {
    const JobRun &J = (*Runs)[I];
    SubprocessResult R;
    R.Stderr = J.Log;
    if (auto Text = readFile(Dirs[I] + "/stdout"))
      R.Stdout = std::move(*Text);
    else
      llvm::consumeError(Text.takeError());
    if (J.Finished) {
      R.ExitCode = J.ExitCode;
      R.TimedOut = J.ExitCode == 124 && Commands[I].TimeoutSeconds > 0;
    } else {
      R.Crashed = true;
      R.ErrorMessage = J.ErrorMessage;
    }
    Out.push_back(std::move(R));
  }
  return Out;
}
