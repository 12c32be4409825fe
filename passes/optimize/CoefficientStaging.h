//===- passes/optimize/CoefficientStaging.h - Coefficients staged once -*- C++ -*-===//
///
/// \file
/// What the stencil rules share for the coefficient buffers of a stencil
/// (analysis::coefficientReads: a filter read at block-uniform indices that
/// only the loops with compile-time bounds move): every output issues one
/// load per tap of the filter as well as of the input, and the compiler
/// cannot keep them across outputs, since the stores may alias the filter.
/// The plan stages each buffer's elements from the first to the last offset
/// once, in registers when few (the offsets' loops then unroll, so that
/// every index is a constant) or in shared memory loaded by the block
/// before its first barrier, and each read becomes the staged element of
/// the same index: the values and the arithmetic's order are the
/// original's.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_COEFFICIENTSTAGING_H
#define FORGE_PASSES_OPTIMIZE_COEFFICIENTSTAGING_H

#include "RuleUtil.h"
#include "StencilPlan.h"
#include "forge/Analysis/Coefficients.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <set>
#include <string>
#include <vector>

namespace forge::passes::stencil {

/// The most coefficient values a thread keeps in registers.
constexpr int64_t MaxCoefficientRegisters = 64;
/// The most values of one buffer staged in shared memory.
constexpr int64_t MaxCoefficientShared = 4096;

struct CoefficientStage {
  an::CoefficientRead C;
  const clang::ParmVarDecl *Param = nullptr;
  clang::QualType Elem;
  bool Registers = true;
  /// The staged copy's name (set by edits()).
  std::string Name;
};

class CoefficientPlan {
public:
  std::vector<CoefficientStage> Stages;
  /// Buffers not staged, and why (for the rationale).
  std::vector<std::string> Declined;

  /// Values kept in registers.
  int64_t registers() const;
  bool anyShared() const;
  /// The loops that must unroll for the register copies' indices to be
  /// constants.
  std::set<int> unrollLoops() const;
  /// "'filt' (25 values) in registers", for summaries.
  std::string describe() const;
  /// The loads per output the staging removes (per thread of the original:
  /// each read times the trip counts of the constant loops around it).
  size_t reads(const an::KernelModel &M) const;

  /// Each read of a staged buffer becomes its copy's element (edits on
  /// In.Source); names the copies with Fresh.
  llvm::Error edits(const agent::RuleInput &In, const an::KernelModel &M, FormPrinter &FP,
                    llvm::function_ref<std::string(llvm::StringRef)> Fresh,
                    std::vector<SourceEdit> &Out);
  /// The declarations and loads of the copies, at Ind (the top of the body,
  /// before the first barrier); a barrier after them when BarrierAfter and
  /// a copy is in shared memory.
  llvm::Error loads(const agent::RuleInput &In, FormPrinter &FP, const std::string &Ind,
                    llvm::function_ref<std::string(llvm::StringRef)> Fresh, bool BarrierAfter,
                    std::vector<std::string> &Lines) const;
};

/// The coefficient buffers of M to stage: at most MaxRegisters values in
/// registers (the smallest buffers first), the others in shared memory.
/// Body's calls decide whether a buffer escapes to a callee that may write
/// it. A buffer whose origin moves with blockIdx along one of Remapped (the
/// dimensions whose blockIdx the rule's copies of the body reinterpret) is
/// not staged.
CoefficientPlan planCoefficients(const agent::RuleInput &In, const an::KernelModel &M,
                                 const std::vector<const clang::CallExpr *> &Calls,
                                 int64_t MaxRegisters, llvm::StringRef Remapped);

/// `#pragma unroll` before each of the loops (those not marked already).
llvm::Error unrollEdits(const agent::RuleInput &In, const an::KernelModel &M,
                        const std::set<int> &Loops, std::vector<SourceEdit> &Edits);

} // namespace forge::passes::stencil

#endif
