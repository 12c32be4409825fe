//===- Frontend/Matchers.h - Shared AST matchers for CUDA ------*- C++ -*-===//
///
/// \file
/// Matchers every pass and the KernelIndex share, so that "a kernel" and "a
/// launch site" mean the same thing everywhere.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_MATCHERS_H
#define FORGE_FRONTEND_MATCHERS_H

#include "clang/ASTMatchers/ASTMatchers.h"

namespace forge::frontend::matchers {

/// Names of the runtime calls that launch a kernel. The kernel is argument
/// 0, except for cudaLaunchKernelEx(C), where it is argument 1.
inline constexpr const char *LaunchFunctions[] = {
    "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx",
    "cudaLaunchKernelExC", "cudaLaunchCooperativeKernelMultiDevice"};

/// A __global__ function (declaration or definition; template patterns and
/// their instantiations alike). Binds "kernel".
clang::ast_matchers::DeclarationMatcher kernelDecl();

/// A <<<...>>> launch. Binds "launch" and, when there is one, "fn" (the
/// function that contains it).
clang::ast_matchers::StatementMatcher chevronLaunch();

/// A call of one of LaunchFunctions, resolved or (in a template) still
/// dependent. Binds "launch" and, optionally, "fn".
clang::ast_matchers::StatementMatcher runtimeLaunch();

} // namespace forge::frontend::matchers

#endif
