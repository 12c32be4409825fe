//===- Agent/Prompt.h - What a model is asked ------------------*- C++ -*-===//
///
/// \file
/// The prompt of one round (docs/optimize.md shows an example): a fixed
/// system instruction to answer with SEARCH/REPLACE edit blocks only, then
/// the kernel source, the target's facts from the Arch database, the latest
/// measurement and roofline analysis, the compiler errors of the previous
/// attempt (for a repair) and the history of tried transformations with
/// their outcomes.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_PROMPT_H
#define FORGE_AGENT_PROMPT_H

#include "forge/Agent/Proposer.h"

namespace forge::agent {

/// The system instruction: the edit format and the rules of the loop.
llvm::StringRef systemPrompt();

/// The user message for Req; for a repair, Failed is the proposal whose
/// edit did not compile and Req.CompileErrors holds the errors.
std::string buildPrompt(const ProposalRequest &Req, const Proposal *Failed = nullptr);

/// The target facts paragraph for Target ("sm_90: 228 KB shared memory per
/// SM, ...") from the Arch database.
std::string targetFacts(const arch::TargetInfo &Target);

} // namespace forge::agent

#endif
