//===- forge-port/Propose.cpp - `forge-port propose` -----------------------------===//
// Placeholder while the subcommand is written (issue #6).
#include "Common.h"
#include "forge/Support/Error.h"

int forge::tool::runPropose(const Invocation &) {
  return reportError(makeError("'propose' is not written yet"));
}
