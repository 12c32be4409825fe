//===- Frontend/CudaBuiltins.h - threadIdx.x and its kin -------*- C++ -*-===//
///
/// \file
/// Recognises the CUDA builtin components (threadIdx.x, blockIdx.y,
/// blockDim.z, gridDim.x) in every form the AST gives them: a member of the
/// mock headers' structs, Clang's own CUDA headers' property reference (a
/// PseudoObjectExpr over an MSPropertyRefExpr whose base may be an opaque
/// value), with parentheses and implicit casts around. Every pass, rule and
/// analysis asks here, so that "threadIdx.x" means one thing.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_CUDABUILTINS_H
#define FORGE_FRONTEND_CUDABUILTINS_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace clang {
class Expr;
class ValueDecl;
} // namespace clang

namespace forge::frontend {

/// A builtin component: the variable ("threadIdx", "blockIdx", "blockDim",
/// "gridDim") and the component ('x', 'y' or 'z').
struct BuiltinRef {
  llvm::StringRef Var;
  char Dim = 0;
};

/// When E (parentheses and implicit casts aside) is a builtin component.
std::optional<BuiltinRef> cudaBuiltin(const clang::Expr *E);

/// E is Var.Dim ("threadIdx", 'x').
bool isCudaBuiltin(const clang::Expr *E, llvm::StringRef Var, char Dim = 'x');

/// D is one of the index variables themselves (threadIdx, blockIdx,
/// blockDim, gridDim).
bool isCudaBuiltinVar(const clang::ValueDecl *D);

} // namespace forge::frontend

#endif
