//===- passes/optimize/BlockTree.h - A whole-block shared-memory tree -*- C++ -*-===//
///
/// \file
/// The tutorials' block reduction: every thread stores its value into
/// sdata[tid], and a loop over a halving (or doubling) stride s with
/// __syncthreads() in it combines sdata[w] with sdata[w + s] until sdata[0]
/// holds the block's combination. The kernel model recognises the loop as a
/// TreeReduction pattern; matchBlockTree checks on the model that the tree
/// reduces the *whole* block (its stride starts at half the block, or runs
/// up to it) and that its loop does only the guarded step and the barrier,
/// and reads the step's operator. The rules that rewrite such a block
/// share it: segment-reduction (one output per block) and
/// hierarchical-reduction (one atomic per block).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_BLOCKTREE_H
#define FORGE_PASSES_OPTIMIZE_BLOCKTREE_H

#include "RuleUtil.h"
#include "forge/Analysis/KernelModel.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace clang {
class CompoundStmt;
class Stmt;
class VarDecl;
} // namespace clang

namespace forge::passes {

/// How the tree's step combines two elements, written for any two operands.
struct TreeStep {
  enum Kind { Binary, Call, Select } K = Binary;
  std::string Op;       ///< "+", or the callee ("fmaxf")
  bool Swapped = false; ///< the far element (sdata[tid + s]) is written first
  /// Select: `X cmp Y ? P : Q`; each flag says whether it is the near
  /// element (sdata[tid]).
  bool XNear = true, PNear = true;
  std::string Cmp;
  bool Idempotent = false; ///< min, max, &, |

  std::string text(llvm::StringRef Near, llvm::StringRef Far) const;
  /// "'+'", "'fmaxf'", "a select 'a > b ? a : b'".
  std::string words() const;
  /// The reduction it computes: Add for '+', Max for fmaxf, max and a select
  /// that keeps the greater element, ...; none for '*' where the caller has
  /// no product.
  std::optional<analysis::ReductionOp> op() const;
};

/// A TreeReduction pattern that reduces the whole block into sdata[0].
struct BlockTree {
  const analysis::Pattern *P = nullptr;
  const analysis::Loop *L = nullptr;
  /// The step's write (sdata[w]) and its read (sdata[w + s]).
  const analysis::Access *W = nullptr, *R = nullptr;
  const clang::VarDecl *Shared = nullptr;
  const clang::Stmt *Loop = nullptr;
  unsigned LoopIndex = 0; ///< of Loop in the kernel's body
  TreeStep Step;
  /// The elements it reduces: blockDim.x, or a constant.
  analysis::IndexForm N;
  std::string Size; ///< "blockDim.x" or the constant
  bool SizeIsBlockDim = false;
  /// "sequential addressing", "interleaved addressing", ...
  std::string Shape;
  /// "the tree at line 12", for reasons.
  std::string At;
};

/// The kernel's one TreeReduction pattern when it is a statement of Body
/// that reduces the whole block into sdata[0]: a halving stride from N / 2
/// while s > 0 with the step at threadIdx.x under `tid < s`, or a doubling
/// stride from 1 while s < N with the step at threadIdx.x under `tid % (2 *
/// s) == 0` or at 2 * s * threadIdx.x under `index < N`, N blockDim.x or a
/// constant; its loop body is the guarded step and __syncthreads() (and
/// pure locals); the step is associative. "" or why not. The model must be
/// built with blockDim symbolic.
std::string matchBlockTree(const agent::RuleInput &In, analysis::KernelModel &M,
                           const clang::CompoundStmt *Body, BlockTree &T);

/// The block the tree runs over, into Block: known (a spec, --block, a
/// launch with a constant block, or the tree's constant size), 1D, a power
/// of two (a halving tree over another size drops elements), whole warps
/// when WholeWarps, and the tree's size when that is a constant. "" or why
/// not.
std::string treeBlockSize(const agent::RuleInput &In, const BlockTree &T, bool WholeWarps,
                          int64_t &Block);

/// a < b as a comparison of forms, in any normalisation.
bool isLess(const analysis::Comparison &C, const analysis::IndexForm &A,
            const analysis::IndexForm &B);
/// f == 0 as a comparison of forms.
bool isZeroTest(const analysis::Comparison &C, const analysis::IndexForm &F);

} // namespace forge::passes

#endif
