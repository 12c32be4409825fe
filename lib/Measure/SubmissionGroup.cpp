//===- SubmissionGroup.cpp - One submission for several sessions ----------===//
#include "forge/Measure/SubmissionGroup.h"
#include "forge/Support/Error.h"
#include <map>

using namespace forge;
using namespace forge::measure;

struct SubmissionGroup::Request {
  const std::vector<std::string> *Dirs;
  const ExecutorHooks *Hooks;
  std::chrono::steady_clock::time_point Since = std::chrono::steady_clock::now();
  bool Done = false;
  std::vector<JobRun> Runs;
  std::string Error; ///< the round's run() failed: its message
};

class SubmissionGroup::Member final : public Executor {
public:
  explicit Member(SubmissionGroup &G) : G(G) {}
  ~Member() override { G.leave(); }
  llvm::StringRef name() const override { return G.Inner.name(); }
  unsigned candidatesPerJob() const override { return G.Inner.candidatesPerJob(); }
  std::string jobStore() const override { return G.Inner.jobStore(); }
  llvm::Expected<std::vector<JobRun>> run(const std::vector<std::string> &Dirs,
                                          const ExecutorHooks &H) override {
    return G.run(Dirs, H);
  }

private:
  SubmissionGroup &G;
};

std::unique_ptr<Executor> SubmissionGroup::join() {
  std::lock_guard<std::mutex> L(Mu);
  ++Members;
  return std::make_unique<Member>(*this);
}

unsigned SubmissionGroup::rounds() const {
  std::lock_guard<std::mutex> L(Mu);
  return Rounds;
}

void SubmissionGroup::leave() {
  std::lock_guard<std::mutex> L(Mu);
  --Members;
  // The members still waiting may be all there are now.
  Changed.notify_all();
}

llvm::Expected<std::vector<JobRun>> SubmissionGroup::run(const std::vector<std::string> &Dirs,
                                                         const ExecutorHooks &H) {
  std::unique_lock<std::mutex> L(Mu);
  Request R{&Dirs, &H};
  Waiting.push_back(&R);
  Changed.notify_all();
  auto Gather = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(GatherS));
  while (!R.Done) {
    // The member that completes the round runs it (or the first to have
    // waited GatherS); the others wait for it.
    if (Busy || Waiting.empty()) {
      Changed.wait(L);
      continue;
    }
    auto Deadline = Waiting.front()->Since + Gather;
    if (Waiting.size() >= Members || std::chrono::steady_clock::now() >= Deadline)
      lead(L);
    else
      Changed.wait_until(L, Deadline);
  }
  if (!R.Error.empty())
    return makeError("{0}", R.Error);
  return std::move(R.Runs);
}

void SubmissionGroup::lead(std::unique_lock<std::mutex> &L) {
  std::vector<Request *> Round = std::move(Waiting);
  Waiting.clear();
  Busy = true;
  L.unlock();

  // Every directory once, in the order the members asked for them; the
  // members that asked for each.
  std::vector<std::string> All;
  std::map<std::string, std::vector<const ExecutorHooks *>, std::less<>> Askers;
  for (Request *Q : Round)
    for (const std::string &D : *Q->Dirs) {
      auto [It, New] = Askers.try_emplace(D);
      if (New)
        All.push_back(D);
      It->second.push_back(Q->Hooks);
    }
  ExecutorHooks H;
  H.OnResult = [&](llvm::StringRef Dir, const CandidateResult &C) {
    if (auto It = Askers.find(Dir); It != Askers.end())
      for (const ExecutorHooks *A : It->second)
        if (A->OnResult)
          A->OnResult(Dir, C);
  };
  // The array's status lines, once: to the first member that shows them.
  for (Request *Q : Round)
    if (Q->Hooks->OnStatus) {
      H.OnStatus = Q->Hooks->OnStatus;
      break;
    }
  for (Request *Q : Round)
    if (Q->Hooks->Interrupted) {
      H.Interrupted = Q->Hooks->Interrupted;
      break;
    }
  auto Runs = Inner.run(All, H);

  std::string Error;
  std::map<std::string, const JobRun *, std::less<>> RunOf;
  if (Runs) {
    for (size_t I = 0; I < All.size() && I < Runs->size(); ++I)
      RunOf[All[I]] = &(*Runs)[I];
  } else {
    Error = llvm::toString(Runs.takeError());
  }
  L.lock();
  for (Request *Q : Round) {
    Q->Error = Error;
    if (Error.empty())
      for (const std::string &D : *Q->Dirs) {
        auto It = RunOf.find(D);
        JobRun J;
        J.Dir = D;
        J.ErrorMessage = "the executor gave no run for this directory";
        Q->Runs.push_back(It != RunOf.end() ? *It->second : J);
      }
    Q->Done = true;
  }
  Busy = false;
  ++Rounds;
  Changed.notify_all();
}
