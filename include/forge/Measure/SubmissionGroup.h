//===- Measure/SubmissionGroup.h - One submission for several sessions -*- C++ -*-===//
///
/// \file
/// A campaign (`forge-port tune a.cu b.cu ... --executor slurm`) tunes its
/// files at once, each in its own session; on a cluster their measurements
/// should go out as one `sbatch --array` per partition and round, not one
/// per file. A SubmissionGroup stands between the sessions and the
/// partition's executor: each session measures through a member of the
/// group, and a member's run() waits until every member of the group is
/// either waiting too or has left it. Then the round runs as one run() of
/// the executor over all the members' directories (a directory two members
/// ask for is run once), and each member gets back its own directories'
/// JobRuns, in its own order, with the result lines of its own directories.
///
/// A member leaves the group when it is destroyed: its session is over and
/// no round waits for it any more. A round's status lines ("slurm h100: 3
/// running, ...") are about all its members' tasks: they go to the first
/// member that shows them, once.
///
/// A member may stay idle for long (a session of several targets whose
/// other target still sweeps, a slow compile): a round does not wait for it
/// longer than GatherS after its first request, so no member waits forever
/// for another that is itself waiting elsewhere.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_SUBMISSIONGROUP_H
#define FORGE_MEASURE_SUBMISSIONGROUP_H

#include "forge/Measure/Executor.h"
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace forge::measure {

class SubmissionGroup {
public:
  /// Inner must outlive the group and every member.
  explicit SubmissionGroup(Executor &Inner, double GatherS = 30)
      : Inner(Inner), GatherS(GatherS) {}
  SubmissionGroup(const SubmissionGroup &) = delete;
  SubmissionGroup &operator=(const SubmissionGroup &) = delete;

  /// A new member: an executor whose run() joins the group's rounds. The
  /// group must outlive it.
  std::unique_ptr<Executor> join();

  /// The rounds run so far (runs of the inner executor).
  unsigned rounds() const;

private:
  class Member;
  struct Request;
  llvm::Expected<std::vector<JobRun>> run(const std::vector<std::string> &Dirs,
                                          const ExecutorHooks &H);
  void leave();
  /// Runs the waiting requests as one round; called with the lock held,
  /// returns with it held.
  void lead(std::unique_lock<std::mutex> &L);

  Executor &Inner;
  double GatherS;
  mutable std::mutex Mu;
  std::condition_variable Changed;
  unsigned Members = 0;
  bool Busy = false; ///< a round is running
  unsigned Rounds = 0;
  std::vector<Request *> Waiting;
};

} // namespace forge::measure

#endif
