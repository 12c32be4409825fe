//===- Frontend/ParamAccess.h - Reads and writes through pointers -*- C++ -*-===//
///
/// \file
/// Whether a kernel reads and/or writes the memory each pointer parameter
/// points to, so that a launch spec can draft buffer roles (in, out, inout).
/// The analysis is conservative: a use it cannot follow (an unknown callee,
/// the pointer stored somewhere, inline asm, const cast away) is Unknown
/// and counts as both a read and a write.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_PARAMACCESS_H
#define FORGE_FRONTEND_PARAMACCESS_H

#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forge::frontend {

struct PointerAccess {
  bool Read = false, Written = false;
  /// A use that could not be followed; Read and Written are then both set.
  bool Unknown = false;
};

/// One entry per parameter of Kernel; non-pointer parameters stay all
/// false. For a function template the analysis runs over its
/// instantiations (their union) where there are any, else the pattern.
std::vector<PointerAccess> analyzePointerParams(const clang::FunctionDecl &Kernel,
                                                clang::ASTContext &Ctx);

} // namespace forge::frontend

#endif
