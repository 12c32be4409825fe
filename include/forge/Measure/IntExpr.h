//===- Measure/IntExpr.h - Integer expressions for launch specs -*- C++ -*-===//
///
/// \file
/// A small integer expression language for launch geometry, buffer counts and
/// tuning constraints ("ceil_div(N, BLOCK)", "BLOCK * ITEMS <= 4096").
///
/// Literals are decimal or hex (0x...). Identifiers name sizes and tunables.
/// Operators follow C: unary - + !, then * / %, + -, << >>, < <= > >=, == !=,
/// &&, ||; comparisons and logic give 0 or 1, && and || short-circuit.
/// Functions: min(a, b), max(a, b), ceil_div(a, b). Arithmetic is on int64_t;
/// overflow and division by zero are evaluation errors, never wrap-around,
/// because a silently wrapped grid size would launch the wrong kernel.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_INTEXPR_H
#define FORGE_MEASURE_INTEXPR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace forge::measure {

/// Values of the identifiers an expression may use.
using ValueMap = std::map<std::string, int64_t>;

class IntExpr {
public:
  struct Node;

  /// An empty expression; evaluating it is an error.
  IntExpr() = default;

  /// Parses Text. Errors give the 1-based column:
  /// "expected ')' at column 7 in '(N + 1'".
  static llvm::Expected<IntExpr> parse(llvm::StringRef Text);

  /// The literal V.
  static IntExpr constant(int64_t V);

  /// Evaluates with Env binding the identifiers. Every identifier must be
  /// bound, even one in a branch that && or || skip, so that a typo shows up
  /// whatever the values are.
  llvm::Expected<int64_t> evaluate(const ValueMap &Env) const;

  /// The identifiers used, each once, in order of first use.
  std::vector<std::string> identifiers() const;

  /// The text as it was parsed.
  const std::string &text() const { return Text; }

  bool empty() const { return !Root; }

private:
  std::string Text;
  std::shared_ptr<const Node> Root;
};

} // namespace forge::measure

#endif
