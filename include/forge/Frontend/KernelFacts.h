//===- Frontend/KernelFacts.h - Small facts about kernels -------*- C++ -*-===//
///
/// \file
/// Facts that several passes need about one kernel or one launch, computed
/// one way: the statically sized shared memory a body declares, and the
/// threads per block of a launch when they are a compile-time constant.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_KERNELFACTS_H
#define FORGE_FRONTEND_KERNELFACTS_H

#include "clang/AST/ASTContext.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace forge::frontend {

struct SharedVariable {
  const clang::VarDecl *Var;
  uint64_t Bytes;
};

/// The __shared__ variables of FD's own body with a known size: extern
/// (dynamic), unsized, dependent and invalid declarations are left out.
std::vector<SharedVariable> staticSharedVariables(const clang::FunctionDecl &FD,
                                                  clang::ASTContext &Ctx);

uint64_t totalBytes(const std::vector<SharedVariable> &Vars);

/// E's value when it is an integer constant expression.
std::optional<int64_t> constantInt(const clang::Expr *E, clang::ASTContext &Ctx);

/// Threads per block of a launch's block argument: an integer constant, or
/// a dim3 built right there from constants (dim3(16, 16) is 256).
std::optional<int64_t> constantThreadsPerBlock(const clang::Expr *Block,
                                               clang::ASTContext &Ctx);

} // namespace forge::frontend

#endif
