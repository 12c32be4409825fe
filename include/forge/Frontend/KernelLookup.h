//===- Frontend/KernelLookup.h - A kernel by its name ----------*- C++ -*-===//
///
/// \file
/// The __global__ definitions of the user's code in an AST (plain functions
/// and template patterns, never instantiations; not the toolkit's headers)
/// and the one a command line names, so that every subcommand that takes
/// --kernel finds the same one and says the same thing when it cannot.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_KERNELLOOKUP_H
#define FORGE_FRONTEND_KERNELLOOKUP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forge::frontend {

/// Every kernel definition in the user's files, in source order.
std::vector<const clang::FunctionDecl *> userKernels(clang::ASTContext &Ctx);

/// The kernel Name designates: by qualified name ("ns::k"), else by name
/// when only one has it. An ambiguous or unknown name is an error that lists
/// the kernels of File (the main file, for messages).
llvm::Expected<const clang::FunctionDecl *> findKernel(clang::ASTContext &Ctx,
                                                       llvm::StringRef Name,
                                                       llvm::StringRef File);

/// Whether K is defined in the main file (not a header).
bool inMainFile(clang::ASTContext &Ctx, const clang::FunctionDecl &K);

} // namespace forge::frontend

#endif
