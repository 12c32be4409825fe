//===- Analysis/AstUtil.h - Small AST helpers of the analysis ---*- C++ -*-===//
///
/// \file
/// Private to lib/Analysis: source text, callee names in every AST form
/// (resolved, or an unresolved lookup in a template pattern), casts between
/// integer types, constants.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_ANALYSIS_ASTUTIL_H
#define FORGE_LIB_ANALYSIS_ASTUTIL_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace forge::analysis {

/// The source text of S as written ("" when it is not plain text of one file).
std::string textOf(const clang::Stmt *S, const clang::ASTContext &Ctx);

/// The 1-based line of Loc's expansion, 0 when invalid.
unsigned lineOf(const clang::ASTContext &Ctx, clang::SourceLocation Loc);

/// The name of the function a call calls ("atomicAdd", "min"), also when
/// the call is unresolved in a template pattern; "" for indirect calls.
llvm::StringRef calleeName(const clang::CallExpr *C);

/// E without parentheses, implicit casts and explicit casts between
/// integer (or enum, bool) types.
const clang::Expr *stripIntCasts(const clang::Expr *E);

/// E's value when it is an integer constant expression (not in a
/// value-dependent context).
std::optional<int64_t> constantInt(const clang::Expr *E, const clang::ASTContext &Ctx);

/// The type is an integer, enum or bool (a dependent type counts as
/// integer when it is a template type parameter? no: only builtin ones).
bool isIntegerLike(clang::QualType T);

/// The number of elements of an array type with a constant size; none for
/// dependent or variable sizes.
std::optional<int64_t> constantArraySize(clang::QualType T);

/// The type as written in source ("float", "T", "unsigned int").
std::string typeSpelling(clang::QualType T, const clang::ASTContext &Ctx);

/// The size in bytes, 0 when unknown (dependent, incomplete).
uint64_t typeBytes(clang::QualType T, const clang::ASTContext &Ctx);

/// Calls that synchronise the block (__syncthreads and its kin).
bool isBlockSync(llvm::StringRef Callee);

/// The callee is an atomic (atomicAdd, atomicMax_block, ...).
bool isAtomicCallee(llvm::StringRef Callee);

/// A __device__ function whose whole body is one call of a CUDA atomic
/// builtin (declared in a system header) with two arguments: the address
/// one of the function's parameters passed unchanged, the value another
/// parameter or a constant; `return atomicAdd(p, v);` too. A call of it
/// makes that atomic at its AddressParam-th argument. None for anything
/// else (CAS, a body with more statements, a changed address).
struct AtomicWrapper {
  std::string Builtin;         ///< "atomicAdd", "atomicOr_block"
  unsigned AddressParam = 0;   ///< the parameter that is the address
  int ValueParam = -1;         ///< the parameter that is the value, -1: a constant
  std::string ValueText;       ///< the constant as written, when ValueParam < 0
};
std::optional<AtomicWrapper> atomicWrapperOf(const clang::FunctionDecl *F);

/// A __device__ function (user code, not a template) whose whole body is one
/// plain store of a parameter through parameters: `void put(float *p, int i,
/// float v) { p[i] = v; }`, or `{ *p = v; }`. A call of it is that store at
/// the call's arguments.
struct StoreWrapper {
  unsigned PointerParam = 0; ///< the pointer stored through
  int IndexParam = -1;       ///< the subscript's parameter; -1 for `*p = v`
  unsigned ValueParam = 0;   ///< the value stored
};
std::optional<StoreWrapper> storeWrapperOf(const clang::FunctionDecl *F);

/// The pointer (or array) and the index of a subscript. In a template
/// pattern Clang's getBase() guesses from the index's type, which may be
/// dependent (`a[i + n]` with `n` of type `T::size_type`); a side that is a
/// pointer or an array is the base.
const clang::Expr *subscriptBase(const clang::ArraySubscriptExpr *A);
const clang::Expr *subscriptIndex(const clang::ArraySubscriptExpr *A);

/// An assignment in either of its AST forms: a BinaryOperator, or for
/// class types (float4, int4) a call of operator= or operator+= and kin.
struct AssignmentView {
  const clang::Expr *LHS = nullptr;
  const clang::Expr *RHS = nullptr;
  clang::BinaryOperatorKind Op = clang::BO_Assign; ///< BO_Assign, BO_AddAssign, ...
};
std::optional<AssignmentView> asAssignment(const clang::Stmt *S);

/// E reads memory: a subscript or dereference of a pointer (not of a
/// register array), or a load call (__ldg and its kin).
bool readsMemory(const clang::Expr *E);

/// E refers to V somewhere.
bool mentions(const clang::Stmt *S, const clang::ValueDecl *V);

/// A is S or inside S.
bool contains(const clang::Stmt *S, const clang::Stmt *A);

} // namespace forge::analysis

#endif
