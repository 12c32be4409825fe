//===- Analysis/HostLaunches.h - What the host passes a kernel --*- C++ -*-===//
///
/// \file
/// The kernel's launches in the file's host code, argument by argument, in
/// the kernel's own terms: the value an argument has when it is a constant
/// (`n` after `const int n = 1 << 20;`), the elements its allocation holds
/// when it is a pointer the host allocated (`cudaMalloc(&d_a, rows * cols *
/// sizeof(float))` passed as `a`, with `rows` and `cols` passed too, is
/// `rows * cols` elements of `a`), and the relation an argument has to the
/// others (`n / 2` passed as `half` beside `n` passed as `n`). `forge-port
/// spec` drafts with them (Measure/SpecDraft.cpp).
///
/// Host variables are written as the kernel parameters they are passed as;
/// an expression with a variable that is passed as no parameter, or that
/// the function assigns again, has no form here.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_HOSTLAUNCHES_H
#define FORGE_ANALYSIS_HOSTLAUNCHES_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forge::analysis {

struct HostArgument {
  unsigned Param = 0;     ///< the kernel parameter's index
  std::string ParamName;  ///< and its name (empty when unnamed)
  std::string Text;   ///< the argument as written
  /// Its value, when the host code fixes it (a literal, a constant, a local
  /// initialised from one and never assigned again).
  std::optional<int64_t> Value;
  /// Over the other parameters ("n / 2"), when it is an expression of
  /// variables passed as parameters (empty for a variable passed as is).
  std::string Relation;
  /// A pointer: the elements of its allocation, over the parameters
  /// ("rows * cols"), and where it is allocated ("the cudaMalloc at line 12").
  std::string Count;
  std::string AllocatedBy;
};

struct HostLaunch {
  unsigned Line = 0;
  std::string Function; ///< the host function that launches
  std::vector<HostArgument> Args;
};

/// Every launch of Kernel from host code in the main file, in source order.
std::vector<HostLaunch> findHostLaunches(clang::ASTContext &Ctx, const clang::FunctionDecl &Kernel);

} // namespace forge::analysis

#endif
