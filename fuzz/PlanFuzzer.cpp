//===- fuzz/PlanFuzzer.cpp - The worker's job.plan ------------------------===//
///
/// \file
/// The input is a job.plan (docs/worker-protocol.md), parsed as the worker
/// parses one (parsePlan, the body of readPlan); nothing is run.
///
//===----------------------------------------------------------------------===//
#include "Plan.h"
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  forge::worker::Plan P;
  std::string Error;
  if (forge::worker::parsePlan(Text, "/job", P, Error)) {
    for (const auto &B : P.Buffers)
      (void)P.findBuffer(B.Name);
  }
  return 0;
}
