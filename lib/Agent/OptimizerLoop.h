//===- Agent/OptimizerLoop.h - The loop's state, shared by its searches ===//
///
/// \file
/// Internal to lib/Agent: the optimisation loop's state and its stages
/// (validate, compile, measure), which the greedy loop (Optimizer.cpp) and
/// the evolutionary search (Evolve.cpp) share.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_AGENT_OPTIMIZERLOOP_H
#define FORGE_LIB_AGENT_OPTIMIZERLOOP_H

#include "forge/Agent/Optimizer.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringRef.h"
#include "forge/Experience/Experience.h"
#include <deque>

namespace forge::agent::detail {

using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

/// Adds a verdict to R; returns whether it passed.
bool stage(ProposalRecord &R, Stage S, bool Passed, std::string Detail = "");

class Loop {
public:
  explicit Loop(const OptimizeOptions &O) : O(O) {}
  /// The greedy loop (Optimizer.cpp) or, with O.Evolve, the evolutionary
  /// search (Evolve.cpp).
  Expected<OptimizeResult> run();

private:
  struct Version {
    std::string Path, Source;
    const measure::LaunchSpec *Spec = nullptr;
    measure::ValueMap Values;
  };
  struct Candidate {
    ProposalRecord Rec;
    std::string Patched;
    const measure::LaunchSpec *Spec = nullptr;
    measure::ValueMap Values;
  };

  ProposalRequest request(unsigned Round, const KernelSnapshot &Snap) const;
  bool validate(Candidate &C, const Proposal &P, unsigned Round, unsigned Index);
  /// validate, compile, and one repair by the proposer when either fails
  /// with compiler (or Clang) errors. An error only when a stage cannot run.
  llvm::Error judge(Candidate &C, const ProposalRequest &Q, unsigned Round, unsigned Index);
  /// Records the worker's verdict on C (status, resources, the correctness
  /// stage); whether it passed.
  bool checked(Candidate &C, const measure::CandidateOutcome &Out);
  /// Props reordered by the experience library (what helped on this
  /// pattern and target first, what never helped last); unchanged without
  /// one.
  void rankByExperience(std::vector<Proposal> &Props) const;
  /// What became of Rec, a change of the kernel whose contract is Base, for
  /// the experience library (R.Experience); nothing for a proposal that
  /// was not judged to the end (no GPU) or without a library.
  void noteExperience(const ProposalRecord &Rec, const KernelContract &Base);
  Expected<bool> compile(Candidate &C);
  Expected<measure::MeasureReport> measure(unsigned Round,
                                           std::vector<measure::MeasureCandidate> Cands);
  KernelSnapshot snapshot(const measure::MeasureReport &Rep,
                          const measure::CandidateOutcome &Out, const measure::LaunchSpec &Spec,
                          const measure::ValueMap &Values) const;
  std::string writeVersion(StringRef Sub, StringRef Text) const;
  /// Reads the file, its contract and measures the original (round 0):
  /// Origin, Current, Reference and R.Baseline set; the snapshot returned.
  Expected<KernelSnapshot> start();
  Expected<OptimizeResult> greedy(KernelSnapshot Snap);
  Expected<OptimizeResult> evolve(KernelSnapshot Snap);
  /// Round 0: the original measured, against the precision reference when
  /// there is one (whose tolerances it then sets).
  Expected<KernelSnapshot> measureOriginal();
  void progress(const Twine &T) const {
    if (O.OnProgress)
      O.OnProgress(T.str());
  }

  const OptimizeOptions &O;
  OptimizeResult R;
  std::string Key;      ///< the file's PatchSet key
  std::string SrcDir;   ///< the user's directory, for includes
  std::deque<measure::LaunchSpec> Specs;
  Version Origin, Current;
  /// What every job checks against: the original, or the precision
  /// reference with its spec (the tolerances of its buffers widened).
  Version Reference;
  std::string ReferenceLabel = "original";
  bool Precise = false;
  KernelContract CurrentContract;
  std::vector<Attempt> History;
};

} // namespace forge::agent::detail

#endif
