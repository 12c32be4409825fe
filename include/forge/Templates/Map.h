//===- Templates/Map.h - An elementwise map over 1 to 4 inputs -*- C++ -*-===//
///
/// \file
/// out[i] = f(a[i], b[i], c[i], d[i]) for a C expression f over up to four
/// inputs of one element type (docs/templates.md, "map"):
///
/// - The expression is checked token by token and parsed before it goes
///   into generated code: only the inputs' names, numeric literals, C's
///   arithmetic, comparison, logical (and, for integer types, bitwise)
///   operators, parentheses, `?:` and a fixed list of CUDA math functions
///   with their argument counts. The generated code spells it again from
///   the parsed tokens, not from the user's text.
/// - The kernel streams 16-byte vectors (one `uint4` per input and the
///   output) when every pointer it touches is 16-byte aligned, checked at
///   run time, and single elements otherwise; a grid-stride loop hands a
///   block BLOCK * ITEMS vectors per pass, all loads issued before the
///   first store. f16 and bf16 compute in float.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_MAP_H
#define FORGE_TEMPLATES_MAP_H

#include "forge/Templates/Template.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::templates {

/// A map expression that passed the checks.
struct MapExpression {
  /// The expression spelt again from its tokens ("2.5f * a + b").
  std::string Text;
  /// Which inputs it reads: bit k for input k (a = 0, ..., d = 3).
  unsigned Uses = 0;
  /// Operations per element: binary and unary operators and calls
  /// (the spec's flops for floating-point types).
  unsigned Operations = 0;
};

/// Checks and parses Expr over the first Inputs of a, b, c, d for element
/// type T (floating types compute in float or double and refuse %, <<, >>,
/// &, |, ^ and ~). The error says what is not allowed and where.
llvm::Expected<MapExpression> parseMapExpression(llvm::StringRef Expr, int Inputs, Scalar T);

/// The math functions a map expression may call, with their argument counts.
llvm::ArrayRef<std::pair<llvm::StringRef, unsigned>> mapFunctions();

/// The map as a kernel of its own: kernel `<Name><BLOCK, ITEMS>(a, [b, ...,]
/// out, n)`, its host wrapper `forge_<Name>` and its spec (tunables BLOCK,
/// ITEMS, WAVES). Types f32, f64, f16, bf16, i32, u32; Inputs 1..4.
llvm::Expected<Instance> instantiateMap(const Request &R);
std::vector<Request> mapSamples();

} // namespace forge::templates

#endif
