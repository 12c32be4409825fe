//===- Frontend/Divergence.h - Does every lane reach this? -----*- C++ -*-===//
///
/// \file
/// A conservative, intra-procedural test of whether all 32 lanes of a warp
/// reach a statement together: no enclosing branch, loop or short-circuit
/// whose condition may differ between threads, and no earlier conditional
/// return. Conditions over literals, constants, template parameters,
/// kernel parameters, warpSize/blockDim/gridDim and loop counters whose
/// own bounds are uniform count as uniform; anything else (threadIdx, a
/// local variable of unknown origin) does not.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_DIVERGENCE_H
#define FORGE_FRONTEND_DIVERGENCE_H

#include "clang/AST/ASTContext.h"
#include <string>

namespace forge::frontend {

struct Uniformity {
  bool Uniform = true;
  std::string Reason;          ///< why not, for a note
  clang::SourceLocation Where; ///< the construct that makes it divergent
};

Uniformity warpUniformAt(clang::ASTContext &Ctx, const clang::Stmt &S);

/// True when E's value is the same in every thread of a warp (see above).
bool isWarpUniform(clang::ASTContext &Ctx, const clang::Expr *E);

} // namespace forge::frontend

#endif
