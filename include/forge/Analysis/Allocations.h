//===- Analysis/Allocations.h - Where a pointer argument points -*- C++ -*-===//
///
/// \file
/// The allocation a pointer expression of the host code points into, traced
/// through the file: to the allocating call (`cudaMalloc(&p, ...)` and its
/// relatives, `malloc`, `new T[n]`), or to a named object (a `__device__`,
/// `__managed__` or static array, a std or thrust vector's storage).
/// Offsets (`p + k`, `&p[k]`), pointer casts, locals that take a pointer's
/// value (`float *q = p + 1`), and parameters of functions whose callers are
/// in the file (up to a depth) are followed. A variable with several
/// definitions, or a parameter with several callers, points into one of
/// several origins; every other form (a struct member, an element of a
/// pointer array, a variable whose address escapes, a call that returns a
/// pointer) is Unknown with the reason.
///
/// Two pointers are Distinct only when both are known and their origins
/// share none; Same when both have one and the same origin, or offset one
/// variable (they may still point at different offsets of it); Unknown
/// otherwise. Like SCEV, the
/// trace never guesses: what it cannot see is Unknown.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_ALLOCATIONS_H
#define FORGE_ANALYSIS_ALLOCATIONS_H

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace forge::analysis {

/// One object a pointer may point into.
struct AllocationSite {
  /// The allocating call (a CallExpr or CXXNewExpr) or the object's
  /// declaration (a VarDecl): the identity two pointers are compared by.
  const void *Id = nullptr;
  /// In words: "the cudaMalloc at line 12", "the __device__ array 'buf'".
  std::string What;
  /// The size the call asks for, as written: bytes (cudaMalloc's second
  /// argument, malloc's), or elements (new T[n], SizeInElements); null when
  /// the call has none that simple (calloc, cudaMallocPitch, an object).
  const clang::Expr *Size = nullptr;
  bool SizeInElements = false;
};

struct AllocationOrigin {
  enum KindTy {
    Allocation, ///< allocating calls (or a mix of calls and objects)
    Object,     ///< named objects: arrays, vectors
    Null,       ///< a null pointer: points into nothing
    Unknown,    ///< Why says why
  } Kind = Unknown;
  /// The possible origins, each once; one unless the pointer has several
  /// definitions or callers. Empty for Null and Unknown.
  std::vector<AllocationSite> Sites;
  /// The offset added to the origin's start, as written ("1", "k * n"),
  /// when there is one and it is the same on every path; else "".
  std::string Offset;
  std::string Why;
  /// The variable the expression offsets or casts (`x` in `x + 1`,
  /// `&x[k]`, `(float *)x`), known or not: two expressions of one launch
  /// over the same variable point into one allocation whatever it is.
  const clang::VarDecl *Variable = nullptr;

  bool known() const { return Kind != Unknown; }
  /// "the cudaMalloc at line 12", "the cudaMalloc at line 12 or the new[] at line 14".
  std::string describe() const;
};

/// The origin of a pointer expression E of the file (a launch argument, a
/// call argument). Parameters are followed into the calls of their function
/// in the file, at most MaxDepth calls deep.
AllocationOrigin traceAllocation(const clang::Expr *E, clang::ASTContext &Ctx,
                                 unsigned MaxDepth = 4);

enum class AliasVerdict { Distinct, Same, Unknown };

/// Whether two pointers with these origins, evaluated together (the
/// arguments of one call), can point into one allocation.
AliasVerdict compareOrigins(const AllocationOrigin &A, const AllocationOrigin &B);

/// The calls of F in the file: ordinary calls and kernel launches, of F or
/// of an instantiation of F's template (template patterns are searched,
/// not their instantiations).
std::vector<const clang::CallExpr *> callsOf(const clang::FunctionDecl &F,
                                             clang::ASTContext &Ctx);

} // namespace forge::analysis

#endif
