//===- Analysis/Uniformity.h - Which threads see the same value -*- C++ -*-===//
///
/// \file
/// The thread-uniformity lattice of the kernel model. A value is grid-uniform
/// (kernel parameters, blockDim, constants), block-uniform (blockIdx),
/// warp-uniform (threadIdx.y when blockDim.x is a known multiple of 32, a
/// warp vote) or thread-varying (threadIdx.x, a load at a thread-varying
/// address). Levels are ordered: joining two values gives the more varying
/// one. Rewrites that change which thread computes what (vectorisation,
/// coarsening, warp shuffles) ask this before they move a value.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_UNIFORMITY_H
#define FORGE_ANALYSIS_UNIFORMITY_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace forge::analysis {

/// From the most to the least uniform.
enum class Uniformity {
  GridUniform,  ///< the same in every thread of the launch
  BlockUniform, ///< the same in every thread of a block
  WarpUniform,  ///< the same in every lane of a warp
  ThreadVarying ///< may differ between the lanes of a warp
};

/// "grid-uniform", "block-uniform", "warp-uniform", "thread-varying".
llvm::StringRef uniformityName(Uniformity U);

/// A uniformity level with the reason it is not more uniform ("'threadIdx.x'
/// differs between threads"); the reason is empty for GridUniform.
struct UniformityInfo {
  Uniformity Level = Uniformity::GridUniform;
  std::string Reason;

  /// True when the value is at least as uniform as At.
  bool atLeast(Uniformity At) const { return Level <= At; }
  bool isThreadVarying() const { return Level == Uniformity::ThreadVarying; }
  /// The more varying of the two (this one on a tie, keeping its reason).
  UniformityInfo join(const UniformityInfo &O) const { return O.Level > Level ? O : *this; }
  bool operator==(const UniformityInfo &O) const { return Level == O.Level; }
  bool operator!=(const UniformityInfo &O) const { return Level != O.Level; }
};

inline UniformityInfo makeUniformity(Uniformity Level, std::string Reason = "") {
  return UniformityInfo{Level, std::move(Reason)};
}

} // namespace forge::analysis

#endif
