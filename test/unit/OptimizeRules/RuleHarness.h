//===- RuleHarness.h - run one expert rule on a source string ---*- C++ -*-===//
//
// The OptimizeRules tests' one way to run a rule: parse the code against
// the mock CUDA headers, ask the rule through ExpertProposer, and apply
// each proposal's edit blocks to the code, with gtest expectations on every
// step (the proposer's parse, the edits' parse and application, the origin).
//
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEST_OPTIMIZERULES_RULEHARNESS_H
#define FORGE_TEST_OPTIMIZERULES_RULEHARNESS_H

#include "forge/Agent/Proposer.h"
#include "forge/Measure/LaunchSpec.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forge::testing {

struct RuleRunOptions {
  std::optional<std::array<int64_t, 3>> Block;
  std::map<std::string, std::string> Geometry;
  std::optional<unsigned> SmCount;
  /// The launch spec the request carries (a rule may read its scalars).
  const measure::LaunchSpec *Spec = nullptr;
  /// Expect the proposer to parse the code without errors.
  bool ExpectCleanParse = true;
};

struct RuleRun {
  std::vector<agent::Proposal> Proposals;
  std::string Skip; ///< the rule's reason when it did not apply
  /// The code with each proposal applied (one per proposal).
  std::vector<std::string> Applied;
};

/// Runs the expert rule Rule on Code's kernel Kernel.
RuleRun runRule(llvm::StringRef Rule, const std::string &Code, const std::string &Kernel,
                const RuleRunOptions &Options = {});

std::string err(llvm::Error E);

inline bool has(const std::string &Text, llvm::StringRef Piece) {
  return Text.find(Piece.str()) != std::string::npos;
}

} // namespace forge::testing

#endif
