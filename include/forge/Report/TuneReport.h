//===- Report/TuneReport.h - Tuning reports ---------------------*- C++ -*-===//
///
/// \file
/// The report of a tuning run as JSON, Markdown or HTML (with an inline SVG
/// chart of every configuration's time): the space, the strategy, every
/// configuration with its status, each target's values and how they were
/// chosen, and the speed-up over the original with its noise.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_REPORT_TUNEREPORT_H
#define FORGE_REPORT_TUNEREPORT_H

#include "forge/Measure/LaunchSpec.h"
#include "forge/Tune/Tuner.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

namespace forge::report {

enum class Format { Json, Markdown, Html };

/// From the file name's extension (.json, .md, .html); none for others.
std::optional<Format> formatOf(llvm::StringRef Path);

struct TuneReportInput {
  const tune::TuneResult *Result = nullptr;
  const measure::LaunchSpec *Spec = nullptr;
  std::string Source;
  std::string Diff; ///< the write-back, as a unified diff
  std::string Date; ///< "2026-11-29"
};

Json tuneReportJson(const TuneReportInput &In);
std::string tuneReportMarkdown(const TuneReportInput &In);
std::string tuneReportHtml(const TuneReportInput &In);
std::string renderTuneReport(const TuneReportInput &In, Format F);

/// The summary of a sweep for a terminal: configurations evaluated and
/// reused, failures by status, and each target's values (measured or
/// predicted) with the speed-up over the original.
void renderTuneSummary(llvm::raw_ostream &OS, const tune::TuneResult &R);

/// A horizontal bar chart of the configurations' times as an SVG element
/// (ok ones as bars, failed ones listed with their status).
std::string tuneChartSvg(const tune::TuneResult &R);

} // namespace forge::report

#endif
