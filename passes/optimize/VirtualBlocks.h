//===- passes/optimize/VirtualBlocks.h - A guarded grid as a loop -*- C++ -*-===//
///
/// \file
/// A kernel that does one block's share of the work under a guard that
/// bounds blockIdx (`if (i < n)`, `if (i >= n) return;`, `if (x < w && y <
/// h)`) computes the same for any grid when its body becomes a function of
/// the block index, run over the virtual blocks the guard admits: blockIdx,
/// blockIdx + gridDim, ... (several dimensions are flattened, x fastest).
/// The grid can then be capped at a few waves of the GPU. The rules that
/// want few persistent blocks share this (hierarchical-reduction: one atomic
/// per block; histogram-privatize: one flush of the private bins per
/// block):
///
/// - collectBuiltinUses: the builtin components the body reads (and the
///   device functions it calls, which cannot be rewritten);
/// - findVirtualBlocks: per dimension whose blockIdx the body reads, the
///   guard term that bounds it;
/// - checkBlockCoverage: the spec's grid holds every block the guard admits
///   (else the original leaves elements out that the rewrite would add);
/// - virtualLoopText and virtualGrid: the loop, and the spec's capped grid.
///
/// docs/passes/hierarchical-reduction.md and histogram-privatize.md.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_VIRTUALBLOCKS_H
#define FORGE_PASSES_OPTIMIZE_VIRTUALBLOCKS_H

#include "RuleUtil.h"
#include "forge/Analysis/Guards.h"
#include "forge/Analysis/IndexForm.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class DeclRefExpr;
class Expr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace forge::passes {

/// A builtin component reference (threadIdx.x, blockIdx.y, ...).
struct BuiltinUse {
  const clang::Expr *E = nullptr;
  llvm::StringRef Var;
  char Dim = 0;
  /// Its main-file bytes; none inside a macro or a called function (it
  /// cannot be replaced).
  std::optional<std::pair<unsigned, unsigned>> Range;
};

struct BuiltinUses {
  std::vector<BuiltinUse> Uses;
  /// References to a builtin variable as a whole (`dim3 b = blockIdx;`),
  /// with their offsets.
  std::vector<std::pair<unsigned, const clang::DeclRefExpr *>> WholeVars;
  /// The device functions with bodies that Body calls, transitively (at
  /// most 16), Skip excepted.
  std::vector<const clang::FunctionDecl *> Callees;

  bool reads(llvm::StringRef Var, char Dim, bool OnlyReplaceable = false) const;
  /// The first whole-variable reference that is not a component, or null.
  const clang::DeclRefExpr *wholeVariable() const;
};

/// The builtin components read in Body and in the device functions it
/// calls (not Skip, nor functions of system headers).
BuiltinUses collectBuiltinUses(const clang::Stmt *Body, const EditCollector &EC,
                               const clang::FunctionDecl *Skip = nullptr);

/// A guard term that bounds blockIdx along one dimension: it holds only
/// when `A * blockIdx.d + C * threadIdx.d + U < 0` with A > 0, C >= 0 and U
/// uniform, so the blocks that may pass it are those below ceil_div(-U, A)
/// (thread 0 of a block passes first).
struct BlockBound {
  char Dim = 'x';
  analysis::IndexForm NegU, A; ///< -U and A as forms
  std::string NegUText;        ///< -U as a long long expression
  std::string AText;           ///< A as a long long expression
  std::string Term;            ///< the guard as written ("i < n")
};

std::optional<BlockBound> blockBoundOf(const analysis::GuardTerm &T, char Dim,
                                       const analysis::AtomTable &Tab);

/// The dimensions that become a loop, and why another could not.
struct VirtualBlocks {
  std::vector<BlockBound> Dims;
  std::string Why;
};

/// For every dimension whose blockIdx the body reads: the term of G that
/// bounds it. A dimension is left out (Why says why) when Address (the
/// index of the one address the blocks share, when there is one) depends
/// on it, the kernel reads gridDim there, the body reads the blockIdx
/// component in a macro or a called function, or no term of G bounds it.
/// Also (OtherGuards) every such term must be among the terms of each of
/// those guards (the guards of the kernel's other writes), for a block the
/// guard rejects must do nothing.
VirtualBlocks findVirtualBlocks(const BuiltinUses &B, const analysis::Guard &G,
                                const analysis::AtomTable &Tab,
                                const analysis::IndexForm *Address = nullptr,
                                llvm::ArrayRef<const analysis::Guard *> OtherGuards = {});

/// "" when the spec's grid holds every block the guard of each dimension
/// admits, or when that cannot be computed (no spec); else why not.
std::string checkBlockCoverage(const agent::RuleInput &In, const analysis::AtomTable &Tab,
                               llvm::ArrayRef<BlockBound> Dims);

/// The loop over the virtual blocks, as a block statement indented by Ind:
/// Fn(bx[, by[, bz]]) (unsigned block indices, one per dimension of Dims)
/// for each virtual block, Unroll calls per step. Fresh makes the loop's
/// names.
std::string virtualLoopText(llvm::ArrayRef<BlockBound> Dims, llvm::StringRef Fn,
                            llvm::function_ref<std::string(llvm::StringRef)> Fresh, int Unroll,
                            const std::string &Ind);

/// The spec's grid for the loop: the first dimension of Dims gets
/// min(the original blocks of Dims, Cap) (at most 65535 along y and z), the
/// others 1; Cap, a block count in the spec's language, is shared by the
/// grid's other dimensions. None, with Note, when the spec's grid is not
/// known or the result does not parse in the spec's language.
std::optional<std::map<std::string, std::string>>
virtualGrid(const agent::ProposalRequest &Req, llvm::ArrayRef<BlockBound> Dims, std::string Cap,
            std::string &Note);

/// Cap (a block count in the spec's language) shared with the dimensions of
/// the spec's grid that are not in Resized ("x", "xy"): max(1, Cap / their
/// blocks).
std::string capShare(const agent::ProposalRequest &Req, llvm::StringRef Resized, std::string Cap);

/// "'i < n' and 'y < h'": the guard terms of Dims.
std::string boundTerms(llvm::ArrayRef<BlockBound> Dims);

} // namespace forge::passes

#endif
