//===- forge-port/Optimize.cpp - `forge-port optimize` -----------------------------===//
// Placeholder while the subcommand is written (issue #6).
#include "Common.h"
#include "forge/Support/Error.h"

int forge::tool::runOptimize(const Invocation &) {
  return reportError(makeError("'optimize' is not written yet"));
}
