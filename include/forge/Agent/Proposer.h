//===- Agent/Proposer.h - Who proposes transformations ---------*- C++ -*-===//
///
/// \file
/// The optimisation loop asks a Proposer for transformations of the kernel
/// it is working on. Every proposer (the built-in expert rules, a language
/// model, a recorded transcript) answers in the same form: SEARCH/REPLACE
/// edit blocks against the current source (EditBlocks.h) plus what the edit
/// is and why, so one validation pipeline judges them all.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_PROPOSER_H
#define FORGE_AGENT_PROPOSER_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Measure/LaunchSpec.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace forge::agent {

/// The validation stages of a proposal, in the order the loop runs them
/// (Optimizer.h).
enum class Stage {
  Parse,       ///< the edit blocks parse
  Apply,       ///< they apply to the current source
  Reparse,     ///< Clang parses the result
  Contract,    ///< the signature and the launches are kept
  Scope,       ///< the edits stay where edits may go
  Scan,        ///< the edit check on the AST (EditCheck.h) and no lowered precision
  Compile,     ///< nvcc compiles it for the target
  Repair,      ///< the proposer's second attempt after a failed compile
  Correctness, ///< the worker's checks against the original kernel
  Timing,      ///< faster than the current kernel, beyond the noise
};

/// What became of a proposal.
enum class Verdict {
  Accepted,   ///< the fastest that passed: the new current kernel
  Rejected,   ///< a stage failed
  Slower,     ///< slower than the current kernel, beyond the noise
  NotFaster,  ///< within the noise
  Unmeasured, ///< passed up to the compile; no GPU to check and time it
  Superseded, ///< passed, but another proposal of the round was faster
};

/// The spellings in transcripts, prompts and reports ("parse", "apply",
/// ..., "not-faster", ...); the parse functions give none for an unknown
/// name.
llvm::StringRef stageName(Stage S);
std::optional<Stage> parseStage(llvm::StringRef Name);
llvm::StringRef verdictName(Verdict V);
std::optional<Verdict> parseVerdict(llvm::StringRef Name);
/// "" for none (no stage reached, a proposal still being judged).
inline llvm::StringRef stageName(std::optional<Stage> S) {
  return S ? stageName(*S) : "";
}
inline llvm::StringRef verdictName(std::optional<Verdict> V) {
  return V ? verdictName(*V) : "";
}

/// A change of the launch spec that a transformation needs and that the
/// contract check allows because the proposer says why: a grid-stride loop
/// makes the kernel correct for any grid, so its grid may be capped.
struct SpecChange {
  /// Geometry fields replaced by expressions: "grid.x" -> "min(ceil_div(n,
  /// 256), 132*8)". Only grid dimensions and "shared" (the launch's dynamic
  /// shared memory in bytes, for a rewrite that declares an extern
  /// __shared__ array) may change (a block change alters what every thread
  /// computes and must come through the tuner instead).
  std::map<std::string, std::string> Geometry;
  /// Tunables added (name -> candidate values; the first is the default),
  /// so that a later tuner proposal can sweep them.
  std::map<std::string, std::vector<int64_t>> NewTunables;
  /// Values of the spec's tunables to launch with from now on (the tuner's
  /// best configuration, written into the source by the same proposal).
  std::map<std::string, int64_t> Values;
  /// Why the change keeps the kernel correct, in words, for the report.
  std::string Justification;
  /// Constraints added to the spec (IntExpr text over sizes and tunables,
  /// "(BX) * (BLOCK / BX) == 256"): what the rewrite needs of the launch,
  /// so that a later tuner sweep tries only launches it accepts. The values
  /// launched with from now on must satisfy them.
  std::vector<std::string> NewConstraints;
  bool empty() const {
    return Geometry.empty() && NewTunables.empty() && Values.empty() && NewConstraints.empty();
  }
};

/// One proposed transformation.
struct Proposal {
  /// "expert:restrict", "model", "replay", "tuner".
  std::string Origin;
  /// One line: "const __restrict__ on the read-only pointers a, b".
  std::string Summary;
  /// Why it should help, and what it changes in numbers where the rule can
  /// say ("global loads per output 25 -> 1").
  std::string Rationale;
  /// SEARCH/REPLACE blocks against the current source, exactly as the
  /// proposer produced them (a model's whole reply).
  std::string Edits;
  std::optional<SpecChange> Spec;
  /// Built-in proposers (the expert rules, the tuner) are trusted with
  /// edits anywhere in the file (the tuner rewrites a tunable's definition
  /// at file scope); a model's edits are held to the scope (DESIGN.md).
  bool Trusted = false;
  /// For a model: the prompt that produced the reply, the model's token
  /// counts, the attempt count. Kept in the transcript, never the API key.
  std::string Prompt;
  uint64_t PromptTokens = 0, ReplyTokens = 0;

  /// The rules (by name) this proposal exists to enable: a canonical form
  /// that is rarely faster alone (the planes of blockIdx.z as a loop, for
  /// stencil-z-march). The expert proposer asks those rules about its
  /// result and offers each of their proposals composed with it; it is not
  /// offered alone.
  std::vector<std::string> Enables;

  /// A change of the launch alone, with no edit of the source: the tuner's
  /// values of spec-only tunables, or a rule's new grid for a kernel that
  /// is correct for any grid (grid-fill).
  bool launchOnly() const {
    return llvm::StringRef(Edits).trim().empty() && Spec && !Spec->empty();
  }
};

/// One earlier attempt and what became of it, for prompts and reports.
struct Attempt {
  unsigned Round = 0;
  std::string Origin, Summary;
  std::optional<agent::Stage> Stage;     ///< the failed or the last stage reached
  std::optional<agent::Verdict> Verdict;
  std::string Reason;  ///< the named reason, or the speed-up
};

/// What a proposer sees of the loop's state.
struct ProposalRequest {
  unsigned Round = 1;
  std::string File;        ///< the user's file, as named on the command line
  std::string Source;      ///< its current contents (earlier rounds applied)
  std::string Kernel;      ///< qualified name
  /// The target the kernel is optimised for.
  const arch::TargetInfo *Target = nullptr;
  std::string TargetFacts; ///< the Arch database's facts, as text
  /// The latest measurement and roofline analysis, as text ("memory-bound:
  /// 3120 GB/s of 4092 (76 %), 23 registers, occupancy 100 %").
  std::string Analysis;
  /// The current kernel's model (lib/Analysis, as `forge-port analyze`
  /// prints it): accesses, warp classes, loops, recognised patterns.
  std::string Model;
  std::string Bound;       ///< "memory", "compute", "latency" or ""
  /// Threads per block, the block's dimensions and the current values of
  /// the spec's tunables, when known (from the spec or a constant launch).
  std::optional<int64_t> BlockThreads;
  std::optional<std::array<int64_t, 3>> Block;
  std::map<std::string, int64_t> Tunables;
  /// The spec's geometry expressions by field ("grid.x" -> "ceil_div(n,
  /// 256)", "block.x" -> "256"), so that a SpecChange can be written in
  /// terms of them: a rule that gives each thread 4 elements proposes
  /// "grid.x" -> "ceil_div(ceil_div(n, 256), 4)".
  std::map<std::string, std::string> Geometry;
  /// Streaming multiprocessors of the GPU (or a typical part of the target).
  unsigned SmCount = 0;
  /// The launch spec the current kernel is measured with (earlier launch
  /// changes applied); its tunables' values are Tunables.
  const measure::LaunchSpec *Spec = nullptr;
  std::vector<Attempt> History;
  /// Compiler errors of the previous attempt (set only for a repair).
  std::string CompileErrors;
  /// The user's promise (--assume-no-alias) that the kernel's pointer
  /// parameters point into distinct allocations at every launch.
  bool AssumeNoAlias = false;

  /// `optimize --search evolve` (docs/evolve.md). The cell of the archive
  /// the current kernel is the elite of ("shared/4-7/4-wide/50-75 %") and
  /// its time.
  std::string Cell;
  double CurrentNs = 0;
  /// A crossover request: an elite of another cell to combine with Source.
  struct Elite {
    std::string Source, Cell, Origin;
    double MedianNs = 0;
  };
  std::optional<Elite> Other;
  /// One instruction of the evolving meta-prompt, for a model's prompt
  /// ("Prefer staging reused tiles in shared memory ...").
  std::string Instruction;
  /// What the experience library (docs/experience.md) says of this
  /// pattern and target, a line per transformation, for a model's prompt.
  std::vector<std::string> Experience;
};

/// The spec a SpecChange makes of Base, stored in Keep so that pointers
/// stay valid; Values (the tunables launched with) gain the new tunables'
/// defaults and the change's values. Fails for a change the loop does not
/// allow (a block field) or a launch that no longer evaluates.
llvm::Expected<const measure::LaunchSpec *>
applySpecChange(const measure::LaunchSpec &Base, const SpecChange &C,
                std::deque<measure::LaunchSpec> &Keep, measure::ValueMap &Values);
/// Then on top of First: its geometry, tunables and values replace First's
/// of the same name, constraints and justifications add up.
SpecChange composeSpecChanges(const SpecChange &First, const SpecChange &Then);
/// Q's launch fields (Spec, Tunables, Block, BlockThreads, Geometry) from
/// Spec launched with Values.
void setLaunch(ProposalRequest &Q, const measure::LaunchSpec &Spec,
               const measure::ValueMap &Values);

class Proposer {
public:
  virtual ~Proposer();
  /// "expert", "model", "replay".
  virtual llvm::StringRef name() const = 0;
  /// The proposals for this round, best first; an empty list means the
  /// proposer has nothing more to offer (the loop stops). An error is a
  /// failure to ask (network, budget), which ends the loop with its reason.
  virtual llvm::Expected<std::vector<Proposal>>
  propose(const ProposalRequest &Req) = 0;
  /// A second attempt at a proposal that did not compile; Req.CompileErrors
  /// holds the structured errors. The default has none to offer.
  virtual llvm::Expected<std::optional<Proposal>>
  repair(const ProposalRequest &Req, const Proposal &Failed) {
    return std::optional<Proposal>();
  }
  /// What the last propose() considered and did not propose, with the
  /// reason ("expert:vectorize" -> "not an elementwise kernel ..."), for
  /// the report.
  virtual std::vector<std::pair<std::string, std::string>> notProposed() const { return {}; }
  /// A combination of Req.Source with Req.Other (the evolutionary search's
  /// crossover); the default has none to offer.
  virtual llvm::Expected<std::vector<Proposal>> crossover(const ProposalRequest &Req) {
    return std::vector<Proposal>();
  }
};

/// Several proposers as one: their proposals in order, each asked every
/// round; a repair goes to the proposer whose proposal failed.
class CombinedProposer : public Proposer {
public:
  explicit CombinedProposer(std::vector<Proposer *> Parts) : Parts(std::move(Parts)) {}
  llvm::StringRef name() const override { return Name; }
  llvm::Expected<std::vector<Proposal>> propose(const ProposalRequest &Req) override;
  llvm::Expected<std::optional<Proposal>> repair(const ProposalRequest &Req,
                                                 const Proposal &Failed) override;
  void setName(std::string N) { Name = std::move(N); }
  std::vector<std::pair<std::string, std::string>> notProposed() const override;
  /// Every part's crossovers, in order.
  llvm::Expected<std::vector<Proposal>> crossover(const ProposalRequest &Req) override;

private:
  using Ask = llvm::Expected<std::vector<Proposal>> (Proposer::*)(const ProposalRequest &);
  /// Each part's answers to Each, in order, each remembered as its owner's.
  llvm::Expected<std::vector<Proposal>> collect(const ProposalRequest &Req, Ask Each);
  std::vector<Proposer *> Parts;
  std::map<std::string, Proposer *> OwnerOf; ///< by proposal origin
  std::string Name = "combined";
};

} // namespace forge::agent

#endif
