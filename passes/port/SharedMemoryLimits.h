//===- SharedMemoryLimits.h - shared-memory-limits --------------*- C++ -*-===//
///
/// \file
/// Shared memory against the target's per-block limits. On the device side, a
/// kernel (each template instantiation on its own) whose static __shared__
/// variables exceed the static limit (48 KB) is an error. On the host side, a
/// launch whose dynamic shared memory is a compile-time constant above 48 KB
/// needs cudaFuncSetAttribute(kernel,
/// cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first: the pass inserts
/// that call before the launch's statement when the same function does not
/// already make it. An amount above the target's opt-in maximum is an error.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_SHAREDMEMORYLIMITS_H
#define FORGE_PASSES_PORT_SHAREDMEMORYLIMITS_H

#include "../PortPass.h"

namespace clang {
class CallExpr;
class Expr;
class FunctionDecl;
} // namespace clang

namespace forge::passes {

class SharedMemoryLimits : public PortPass {
public:
  llvm::StringRef name() const override { return "shared-memory-limits"; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;

private:
  void checkStaticShared(const clang::FunctionDecl &Kernel, PassContext &C);
  void checkLaunch(const clang::Expr &Launch, const clang::Expr &KernelRef,
                   const clang::Expr &Bytes, const clang::FunctionDecl *Fn, PassContext &C);
};

} // namespace forge::passes

#endif
