//===- Report/OptimizeReport.h - Optimisation reports ----------*- C++ -*-===//
///
/// \file
/// The report of `forge-port optimize` as JSON, Markdown or HTML: per round,
/// what was changed and why, the diff, before and after times with noise,
/// roofline position, registers and occupancy, and the rejected proposals
/// with the stage and reason that rejected them; a chart of the rounds.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_REPORT_OPTIMIZEREPORT_H
#define FORGE_REPORT_OPTIMIZEREPORT_H

#include "forge/Agent/OptimizeSession.h"
#include "forge/Agent/Optimizer.h"
#include "forge/Report/TuneReport.h"

namespace forge::report {

struct OptimizeReportInput {
  const agent::OptimizeResult *Result = nullptr;
  const agent::OptimizeOptions *Options = nullptr;
  std::string Proposer; ///< "expert", "model", ...
  std::string File;
  std::string Diff;     ///< original -> final, unified
  std::string Date;
  /// --search evolve: the archive's SVG grid written beside a Markdown
  /// report (the name the report links to); empty: none.
  std::string ArchiveSvg;
};

Json optimizeReportJson(const OptimizeReportInput &In);
std::string optimizeReportMarkdown(const OptimizeReportInput &In);
std::string optimizeReportHtml(const OptimizeReportInput &In);
std::string renderOptimizeReport(const OptimizeReportInput &In, Format F);

/// "Round 2: expert:smem-stencil-tiling: <summary>; <rationale>; 3.90x
/// faster." for the accepted proposal of a round, or what happened.
std::string roundSentence(const agent::RoundRecord &R);

/// One line per round for a terminal: "round 2: 119.70 us -> 30.10 us
/// (3.98x) with expert:...: <summary>", or what was not kept.
void renderOptimizeRounds(llvm::raw_ostream &OS, const agent::OptimizeResult &R);

/// What optimize says before the loop: the kernel, the target, the proposer
/// and the GPU, with a warning when the GPU is not of the target (the
/// speed-ups are then a prediction).
void renderOptimizeStart(llvm::raw_ostream &OS, const agent::OptimizeSessionOptions &O,
                         llvm::StringRef Kernel);

/// And after it: the rounds, the speed-up over the original and why the
/// loop stopped, and for a replay whether the decisions were the same.
void renderOptimizeEnd(llvm::raw_ostream &OS, const agent::OptimizeSessionResult &R);

} // namespace forge::report

#endif
