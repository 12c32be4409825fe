//===- AnalysisTestUtil.h - Parse small kernels and analyse them -*- C++ -*-===//
#ifndef FORGE_TEST_UNIT_ANALYSIS_ANALYSISTESTUTIL_H
#define FORGE_TEST_UNIT_ANALYSIS_ANALYSISTESTUTIL_H

#include "forge/Analysis/KernelModel.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "gtest/gtest.h"
#include <string>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
} // namespace clang

namespace forge::analysis::test {

/// Parses Code against the mock CUDA headers (or the real CUDA 13 headers
/// when RealCuda), analyses Kernel and calls Fn while the AST is alive.
/// Fails the test on parse errors or a missing kernel.
void withModel(
    const std::string &Code, llvm::StringRef Kernel, const AnalysisOptions &Opts,
    llvm::function_ref<void(KernelModel &, clang::ASTContext &, const clang::FunctionDecl &)> Fn,
    bool RealCuda = false);

/// The model of Kernel, detached from the AST.
KernelModel analyze(const std::string &Code, llvm::StringRef Kernel,
                    const AnalysisOptions &Opts = {});

/// The access written exactly as Text (first of that kind when Kind is
/// given); a test failure and a placeholder when there is none.
const Access &access(const KernelModel &M, llvm::StringRef Text);
const Access &access(const KernelModel &M, llvm::StringRef Text, AccessKind Kind);

/// The first pattern of a kind, or null (the caller asserts).
const Pattern *pattern(const KernelModel &M, PatternKind K);

/// The first (or last) expression of the kernel whose source text is Text.
const clang::Expr *findExpr(clang::ASTContext &Ctx, const clang::FunctionDecl &K,
                            llvm::StringRef Text, bool Last = false);

/// The stride of an access across the warp, rendered ("1", "n").
std::string stride(const KernelModel &M, const Access &A);

/// Block dimensions for AnalysisOptions.
AnalysisOptions block(int64_t X, int64_t Y = 1, int64_t Z = 1);

} // namespace forge::analysis::test

#endif
