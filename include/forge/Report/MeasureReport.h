//===- Report/MeasureReport.h - What `forge-port measure` prints -*- C++ -*-===//
///
/// \file
/// A measure session's result as the table of docs/measure.md (device,
/// ceilings, one row per candidate with its status, times, speed-up over
/// the reference with the noise, achieved bandwidth and flops, roofline
/// fraction, resources, predicted occupancy and bottleneck, then why each
/// rejected candidate was rejected) or as JSON; program mode's per-kernel
/// times; and the list of a build-only job.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_REPORT_MEASUREREPORT_H
#define FORGE_REPORT_MEASUREREPORT_H

#include "forge/Measure/MeasureSession.h"
#include "forge/Support/Json.h"
#include "llvm/Support/raw_ostream.h"

namespace forge::report {

void renderMeasureText(llvm::raw_ostream &OS, const measure::MeasureSessionResult &R,
                       const measure::JobOptions &Job);
Json measureJson(const measure::MeasureSessionResult &R);

/// "c1 k.cu BLOCK=128: built" per candidate of a build-only job.
void renderBuildOnly(llvm::raw_ostream &OS, const measure::MeasureSessionResult &R);

void renderProgramText(llvm::raw_ostream &OS, const measure::MeasureSessionResult &R,
                       llvm::StringRef Command, unsigned Runs);
Json programJson(const measure::MeasureSessionResult &R);

} // namespace forge::report

#endif
