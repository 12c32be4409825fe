//===- Analysis/ValueRange.h - Integer value ranges of kernel expressions -*- C++ -*-===//
///
/// \file
/// The values an integer expression of a kernel can take where it is
/// evaluated, as an interval: what a rule needs to prove an index in
/// [0, B) however the kernel spells the bound (histogram-privatize's bins
/// index). Sources of bounds:
///
/// - constants and the ranges of integer types (`unsigned char`: [0, 255]);
/// - arithmetic: + - *, / by a positive constant, % by a positive value
///   (`v % m` keeps v's sign: [-(m - 1), m - 1]), & | ^ of non-negative
///   values, shifts by a constant, min/max, abs (of a value that cannot be
///   the type's least), `?:` and casts;
/// - locals followed through their assignments on the way to the
///   expression: straight-line code and `if`s (`if (b < 0) b = 0; if (b >
///   63) b = 63;` gives [0, 63]): each branch narrows the locals its
///   condition compares, then the branches join, so `b = v % 64; if (b <
///   0) b += 64;` gives [0, 63]; a local that a loop, a call or anything
///   else may change there is the range of its type from that point;
/// - the conditions that hold where the expression runs: enclosing `if`s,
///   `&&`, `?:`, loop conditions and earlier exits (`if (c >= 'a' && c <=
///   'z')` bounds `c - 'a'` to [0, 25]; `if (b >= n) return;` with a
///   constant n).
///
/// Sound and deliberately simple: where it cannot follow a value it answers
/// the range of the value's type.
///
/// The same analysis answers symbolically in one integer parameter P of the
/// kernel (symbolicRange): an end of the interval is a constant or P + k, so
/// that a clamp to a run-time number of bins, however it is written
/// (`b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);`, `if`s, `min`/`max`
/// statements), gives [0, nbins - 1]. P stands for its value at the kernel's
/// entry; assignments of P are followed like those of any local. The caller
/// states the least value P may take (a number of bins is at least 1):
/// comparing a constant with P + k needs it (0 <= nbins - 1). Inside, an
/// end may be any multiple of P plus a constant (`v % nbins` is [1 - nbins,
/// nbins - 1], and `if (b < 0) b += nbins;` makes it [0, nbins - 1]); the
/// answer's ends are constants or P + k, another multiple of P given as
/// the constant that bounds it.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_VALUERANGE_H
#define FORGE_ANALYSIS_VALUERANGE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class ParmVarDecl;
} // namespace clang

namespace forge::analysis {

/// Inclusive bounds; a side is absent when nothing bounds it in 64 bits.
struct ValueInterval {
  std::optional<int64_t> Lo, Hi;
  bool bounded() const { return Lo && Hi; }
  bool empty() const { return Lo && Hi && *Lo > *Hi; }
  /// "[0, 25]", "[0, +inf)".
  std::string render() const;
};

/// The range of the integer expression E of Kernel, where E runs.
ValueInterval valueRange(const clang::Expr *E, const clang::FunctionDecl &Kernel,
                         clang::ASTContext &Ctx);

/// An end of a symbolic interval: K, or P + K for the interval's parameter
/// P (its value at the kernel's entry).
struct SymbolicEnd {
  bool OfParam = false;
  int64_t K = 0;
};

/// Inclusive bounds in terms of one parameter, with the reasons the
/// analysis lost precision on the way (empty when it followed everything).
struct SymbolicInterval {
  const clang::ParmVarDecl *Param = nullptr; ///< P; none: every end is constant
  std::optional<SymbolicEnd> Lo, Hi;
  /// "'b' is assigned in the loop at line 12", "line 7 assigns the
  /// parameter 'nbins'": events that widened a variable E reads, each once.
  std::vector<std::string> Notes;
  /// "[0, nbins - 1]", "(-inf, nbins]".
  std::string render() const;
};

/// The range of E where it runs, its ends constants or Param + k, assuming
/// Param >= ParamMin at the kernel's entry (within its type). With Param
/// null, valueRange's interval, with the notes.
SymbolicInterval symbolicRange(const clang::Expr *E, const clang::FunctionDecl &Kernel,
                               clang::ASTContext &Ctx, const clang::ParmVarDecl *Param,
                               int64_t ParamMin);

} // namespace forge::analysis

#endif
