//===- Agent/ExpertRule.h - A built-in transformation ----------*- C++ -*-===//
///
/// \file
/// The built-in expert proposer of `forge-port optimize` is a table of
/// rules. A rule looks at one kernel in the AST (device side), checks its
/// preconditions and either proposes a transformation, as SEARCH/REPLACE
/// edit blocks against the current source (the same format a model
/// answers in, so one validation pipeline judges both), or says why it
/// does not apply. A rule never writes a file and never decides whether its
/// edit is kept: the loop compiles, checks and times it.
///
/// Rules live in passes/optimize/ and are registered in its table
/// (ExpertRules.cpp); each has its docs page (docs/passes/<name>.md) and lit
/// tests (test/passes/<name>/). The proposer is given the rows it may ask.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_EXPERTRULE_H
#define FORGE_AGENT_EXPERTRULE_H

#include "forge/Agent/EditBlocks.h"
#include "forge/Agent/Proposer.h"
#include "forge/Arch/TargetInfo.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class CompilerInstance;
} // namespace clang

namespace forge::agent {

/// What a rule is given.
struct RuleInput {
  clang::ASTContext &Ctx;
  clang::CompilerInstance &CI;
  /// The kernel's definition (for a template, the pattern's).
  const clang::FunctionDecl &Kernel;
  /// The main file's path and current contents: edits are made against
  /// these, and SEARCH texts must be unique in them.
  llvm::StringRef File;
  llvm::StringRef Source;
  const arch::TargetInfo &Target;
  /// The loop's state: block size, tunables, bound class, history.
  const ProposalRequest &Request;
  /// Edits against Source that write new values of the spec's tunables
  /// where the source spells them (Tune/WriteBack: a constant, a macro, a
  /// template argument, the launch's block literal), for a rewrite that
  /// needs another launch; fails with the reason when a value has no place
  /// in the source. Empty when the caller offers no write-back.
  std::function<llvm::Expected<std::vector<SourceEdit>>(const std::map<std::string, int64_t> &)>
      WriteBack;
};

/// What a rule says: a proposal, or why it does not apply.
struct RuleOutcome {
  std::vector<Proposal> Proposals;
  /// Empty when the rule proposed; otherwise the precondition that failed,
  /// in words ("b is written through", "no loop with a constant trip count").
  std::string NotApplicable;
};

class ExpertRule {
public:
  virtual ~ExpertRule();
  /// Kebab-case: "restrict", "grid-stride", "vectorize", "unroll",
  /// "launch-bounds", "warp-shuffle-reduction", "smem-stencil-tiling",
  /// "register-tiling". The proposal's Origin is "expert:<name>".
  virtual llvm::StringRef name() const = 0;
  virtual RuleOutcome propose(const RuleInput &In) = 0;
};

struct RuleInfo {
  const char *Name;
  const char *Summary;
  std::unique_ptr<ExpertRule> (*Create)();
};

} // namespace forge::agent

#endif
