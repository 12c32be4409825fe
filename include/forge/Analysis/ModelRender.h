//===- Analysis/ModelRender.h - The kernel model as text and JSON -*- C++ -*-===//
///
/// \file
/// What `forge-port analyze` prints (docs/analyze.md): a text report that
/// names the line and the fact ("k.cu:12: load in[y * w + x] (float):
/// coalesced; guarded by x < w && y < h"), and a JSON object with every
/// field of the model. Both read only the plain data of a KernelModel, so
/// they work on a detached model.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_MODELRENDER_H
#define FORGE_ANALYSIS_MODELRENDER_H

#include "forge/Analysis/KernelModel.h"
#include "forge/Support/Json.h"
#include <string>

namespace forge::analysis {

/// One kernel: a header line, then loops, accesses, footprints,
/// "recognised:", "notes:" and "problem:" sections.
std::string renderText(const KernelModel &M);

/// One kernel as a JSON object (name, location, loops, accesses,
/// footprints, reductions, patterns, notes).
Json toJson(const KernelModel &M);

/// The "problem:" section: the threads each grid dimension needs and each
/// buffer's reach (ProblemShape.h); empty when nothing is known.
std::string renderShape(const KernelModel &M);

/// The "launched from the host:" section: per launch in host code, the
/// values, relations and allocations it passes (HostLaunches.h).
std::string renderHostLaunches(const KernelModel &M);

/// One line for an access ("load in[i] (float): coalesced; ...").
std::string describeAccess(const KernelModel &M, const Access &A);
/// One line for a loop ("for k in [0, n), step 1").
std::string describeLoop(const KernelModel &M, const Loop &L);
/// The values a loop's variable takes ("k in [0, n)", "i in [tid, n) step
/// blockDim.x * gridDim.x"), or "the loop at line L" without a variable.
std::string loopRange(const KernelModel &M, const Loop &L);

} // namespace forge::analysis

#endif
