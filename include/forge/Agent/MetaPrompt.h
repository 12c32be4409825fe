//===- Agent/MetaPrompt.h - Evolving instructions for a model --*- C++ -*-===//
///
/// \file
/// Meta-prompt evolution for `optimize --search evolve` with a model
/// (docs/evolve-model.md). A pool of instructions, each one short paragraph
/// of approach ("Stage reused tiles in shared memory ..."), goes into the
/// model's prompts one at a time (ProposalRequest::Instruction). Every
/// variant a prompt produced credits its instruction with its verdict, so
/// the pool learns which approaches pay off on this kernel:
///
/// - pick() favours instructions whose variants were kept: Thompson
///   sampling from Beta(1 + wins, 1 + losses), where a kept variant is a
///   win (a bigger one, 2x and 4x, counts twice and three times) and a
///   rejected, slower or not-faster one a loss; untried ones draw from
///   Beta(1, 1). The draws come from a seeded generator of this file, so a
///   seed gives the same picks on every machine;
/// - drop() retires instructions that have produced only losses after
///   DropAfter judged variants, never leaving fewer than MinPool;
/// - recombine() asks the model for one instruction that combines two that
///   produced kept variants; the reply, cleaned (control characters
///   stripped, whitespace folded, code refused, length capped), joins the
///   pool with both as parents.
///
/// The instructions' texts are prompt text only; nothing in them is ever
/// executed or applied.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_METAPROMPT_H
#define FORGE_AGENT_METAPROMPT_H

#include "forge/Agent/Proposer.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace forge::agent {

class ModelClient;

/// One instruction of the pool and what its prompts produced.
struct Instruction {
  unsigned Id = 0;          ///< 1, 2, ... in the order they joined the pool
  std::string Name;         ///< "coalesce", ... for built-ins; "mix-7" for a recombination
  std::string Text;         ///< the paragraph that goes into the prompt
  std::vector<unsigned> Parents; ///< the two it was recombined from; empty for built-ins
  unsigned Asked = 0;       ///< times pick() chose it
  unsigned Kept = 0;        ///< variants accepted or superseded (faster than their parent)
  unsigned Rejected = 0;    ///< variants that failed a validation stage
  unsigned Unhelpful = 0;   ///< variants that passed but were slower or not faster
  unsigned Unmeasured = 0;  ///< variants never timed (no GPU): neither win nor loss
  double LogGain = 0;       ///< sum of ln(speedup) over the kept variants
  bool Dropped = false;     ///< retired by drop(); kept for the report
  /// Variants judged (kept, rejected or unhelpful).
  unsigned judged() const { return Kept + Rejected + Unhelpful; }
};

/// The built-in approaches the pool starts from: coalescing and
/// vectorising, shared-memory tiling, register tiling and coarsening,
/// warp-level primitives, occupancy and latency hiding, an algorithmic
/// change. Pairs of (name, text).
const std::vector<std::pair<std::string, std::string>> &builtinInstructions();

class MetaPrompts {
public:
  /// Never drop below this many active instructions.
  static constexpr unsigned MinPool = 2;
  /// An instruction with no kept variant after this many judged ones is
  /// dropped.
  static constexpr unsigned DropAfter = 3;
  /// recombine() adds nothing once this many are active.
  static constexpr unsigned MaxPool = 16;
  /// An instruction's text is cut to this many bytes (at a word).
  static constexpr size_t MaxTextBytes = 600;

  /// The built-in pool; Seed fixes every later pick.
  explicit MetaPrompts(uint64_t Seed);

  /// The instruction for the next prompt, by Thompson sampling over the
  /// active ones (counted in its Asked). The reference stays valid for the
  /// pool's life.
  const Instruction &pick();
  /// The verdict of a variant produced with instruction Id; Speedup is its
  /// time gain over its parent (old / new; used for kept variants only).
  /// Accepted and Superseded are kept; Rejected a rejection; Slower and
  /// NotFaster unhelpful; Unmeasured only counted. An unknown Id is ignored.
  void credit(unsigned Id, Verdict V, double Speedup);
  /// Retires the active instructions with no kept variant after DropAfter
  /// judged ones, most judged first, while more than MinPool remain.
  /// Returns the ids dropped.
  std::vector<unsigned> drop();

  /// The two active instructions to recombine: those with kept variants,
  /// best first by kept count, then summed log gain, then id; none when
  /// fewer than two have kept variants or the pool is full.
  std::optional<std::pair<unsigned, unsigned>> recombinationPair() const;
  /// Asks the model (Client) for one instruction combining A and B, and
  /// adds the cleaned reply with parents A and B. Returns its id, or none
  /// when the reply is refused (empty, code, too short, a duplicate) or the
  /// pool is full; lastRefusal() says why. A failed request (network,
  /// budget, a server error) and an unknown or equal A, B are errors.
  llvm::Expected<std::optional<unsigned>> recombine(ModelClient &Client, unsigned A, unsigned B);
  /// Why the last recombine() added nothing ("" after one that added).
  const std::string &lastRefusal() const { return Refusal; }

  /// Adds an instruction (cleaned as a model's reply is); none when it is
  /// refused. For callers with their own approaches.
  std::optional<unsigned> add(llvm::StringRef Name, llvm::StringRef Text,
                              std::vector<unsigned> Parents = {});

  const Instruction *find(unsigned Id) const;
  /// Every instruction, dropped ones included, in id order.
  const std::deque<Instruction> &all() const { return Pool; }
  /// The active (not dropped) ones.
  unsigned activeCount() const;
  uint64_t seed() const { return Seed; }

  /// {"seed": S, "instructions": [{"id", "name", "text", "parents",
  /// "asked", "kept", "rejected", "unhelpful", "unmeasured", "log_gain",
  /// "mean_gain" (kept ones only), "dropped"}]}.
  Json toJson() const;

private:
  double uniform();
  double sampleBeta(unsigned A, unsigned B);
  uint64_t Seed, State;
  std::deque<Instruction> Pool;
  unsigned Mixes = 0;
  std::string Refusal;
};

/// The system and user messages recombine() sends for A and B.
llvm::StringRef recombinationSystemPrompt();
std::string recombinationPrompt(const Instruction &A, const Instruction &B);

/// A model's reply as an instruction: fenced code removed, control
/// characters stripped, whitespace folded into single spaces, cut to
/// MaxBytes at a word. Refused (none, with Why set) when the reply holds
/// edit blocks, or fewer than 20 characters of prose remain.
std::optional<std::string> cleanInstruction(llvm::StringRef Reply, size_t MaxBytes,
                                            std::string *Why = nullptr);

} // namespace forge::agent

#endif
