//===- Analysis/ValueRange.h - Integer value ranges of kernel expressions -*- C++ -*-===//
///
/// \file
/// The values an integer expression of a kernel can take where it is
/// evaluated, as an interval: what a rule needs to prove an index in
/// [0, B) however the kernel spells the bound (histogram-privatize's bins
/// index). Sources of bounds:
///
/// - constants and the ranges of integer types (`unsigned char`: [0, 255]);
/// - arithmetic: + - *, / and % by a positive constant, & | ^ of
///   non-negative values, shifts by a constant, min/max, `?:` and casts;
/// - locals followed through their assignments on the way to the
///   expression: straight-line code and `if`s (`if (b < 0) b = 0; if (b >
///   63) b = 63;` gives [0, 63]); a local that a loop, a call or anything
///   else may change there is the range of its type from that point;
/// - the conditions that hold where the expression runs: enclosing `if`s,
///   `&&`, `?:`, loop conditions and earlier exits (`if (c >= 'a' && c <=
///   'z')` bounds `c - 'a'` to [0, 25]; `if (b >= n) return;` with a
///   constant n).
///
/// Sound and deliberately simple: where it cannot follow a value it answers
/// the range of the value's type.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_VALUERANGE_H
#define FORGE_ANALYSIS_VALUERANGE_H

#include <cstdint>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
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

} // namespace forge::analysis

#endif
