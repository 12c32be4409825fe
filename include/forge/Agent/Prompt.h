//===- Agent/Prompt.h - What a model is asked ------------------*- C++ -*-===//
///
/// \file
/// The prompt of one round (docs/optimize.md shows an example): a fixed
/// system instruction to answer with SEARCH/REPLACE edit blocks only, then
/// the kernel source, the target's facts from the Arch database, the latest
/// measurement and roofline analysis, the compiler errors of the previous
/// attempt (for a repair) and the history of tried transformations with
/// their outcomes. When the request carries them, an evolving instruction
/// ("Approach: ...") and the experience library's lines ("What earlier runs
/// measured on kernels of this pattern:") come in a "## Guidance" section
/// before the source; without them the prompt has no such section.
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

/// The user message of a crossover (`optimize --search evolve`): Req as
/// buildPrompt shows it, then Req.Cell and Req.CurrentNs of the current
/// kernel, Req.Other's cell, time and origin, what differs between the two
/// cells, Req.Other's source as reference only (never applied; its fence
/// is longer than any backtick run in it, and it is cut at 64 KiB), and
/// the current source to edit. Req.Instruction and Req.Experience appear as
/// in buildPrompt. For a repair, Failed is the crossover's edit that did
/// not compile. Without Req.Other it is buildPrompt(Req, Failed).
std::string buildCrossoverPrompt(const ProposalRequest &Req, const Proposal *Failed = nullptr);

/// The descriptors in which two cell keys ("shared/4-7/4-wide/50-75 %")
/// differ: (name, (current, other)), the names "memory strategy", "work
/// per thread", "vector width" and "occupancy band"; keys not of four
/// parts compare whole as "cell".
std::vector<std::pair<std::string, std::pair<std::string, std::string>>>
cellDifferences(llvm::StringRef Current, llvm::StringRef Other);

/// A Markdown fence (three or more backticks) longer than any run of
/// backticks in Text, so that Text cannot close its own fence.
std::string fenceFor(llvm::StringRef Text);

/// The target facts paragraph for Target ("sm_90: 228 KB shared memory per
/// SM, ...") from the Arch database.
std::string targetFacts(const arch::TargetInfo &Target);

} // namespace forge::agent

#endif
