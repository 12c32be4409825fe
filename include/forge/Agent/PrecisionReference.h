//===- Agent/PrecisionReference.h - The original, summed in double -*- C++ -*-===//
///
/// \file
/// The correctness stage compares every proposal with the original kernel.
/// That fails exactly where a rewrite is most useful: a kernel whose threads
/// `atomicAdd` floats into one address sums in whatever order the atomics
/// land, and for large inputs that float sum is far from the exact one
/// (2^25 products of U(0, 1) values: 7.8 % off), while a tree reduction of
/// the same values is much closer. Compared with the original, the better
/// answer looks wrong.
///
/// The precision reference is the original kernel with every float
/// `atomicAdd` (`_block` and `_system` too) into an output buffer
/// redirected into a `double` shadow of that buffer (a `__device__` array
/// of the buffer's size), the accumulators that feed those atomics (`float
/// acc` of a loop-carried sum whose result is the atomic's operand)
/// declared `double`, and the last
/// block of the grid (a ticket counter) adding the shadow into the buffer,
/// rounding once, and clearing the shadow for the next launch. Everything
/// else is the original's text, so every other output is computed the same
/// way.
///
/// The optimiser then checks proposals against this reference with a
/// tolerance that admits the original's own error on those buffers
/// (measured once) plus the spec's tolerance: a proposal is accepted when
/// it is no further from the double-precision sum than the original is.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_PRECISIONREFERENCE_H
#define FORGE_AGENT_PRECISIONREFERENCE_H

#include "forge/Frontend/CudaInvocation.h"
#include "forge/Frontend/Toolchain.h"
#include "forge/Measure/LaunchSpec.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::agent {

struct PrecisionReference {
  /// The whole file, with the kernel rewritten.
  std::string Source;
  /// The spec's buffers accumulated in double.
  std::vector<std::string> Buffers;
  /// One line for reports ("atomicAdd into 'result' (line 8) accumulated in
  /// double").
  std::string Summary;
};

/// The outcome: a reference, or the reason there is none (the kernel has no
/// float atomic sum, or one that cannot be redirected).
struct PrecisionReferenceResult {
  std::optional<PrecisionReference> Reference;
  std::string WhyNot;
};

/// Builds the precision reference of Spec's kernel in Source (the contents
/// of File). Values are the spec's (buffer sizes are evaluated with them).
/// Fails only when the file cannot be parsed at all.
llvm::Expected<PrecisionReferenceResult>
buildPrecisionReference(const frontend::Toolchain &TC, const frontend::ParseOptions &Parse,
                        llvm::StringRef File, llvm::StringRef Source,
                        const measure::LaunchSpec &Spec, const measure::ValueMap &Values = {});

} // namespace forge::agent

#endif
