//===- Templates/Description.h - A request from a description --*- C++ -*-===//
///
/// \file
/// `forge-port new "<description>"` reads what to compute from a sentence,
/// offline ("sum of 64M floats", "sort 16M uint32 keys", "2D convolution
/// with a 5x5 filter on a 4096x4096 float input"; docs/new.md,
/// "Descriptions"):
///
/// - A small lexer turns the text into words, numbers (16777216, 16,777,216,
///   16_777_216, 64M, 1.5Gi, 2 million, 2^24, 1<<20) and symbols (x, the
///   Unicode multiplication sign, =, ^, ...). K, M and G are binary (64M is
///   64 * 2^20); thousand, million and billion are decimal.
/// - Numbers joined by x, by or * are one group of extents (4096x4096,
///   4096 by 4096, 256^3); a group's role comes from its neighbours: the
///   element count ("64M floats"), a filter ("5x5 filter", "radius 3",
///   "7-point"), bins ("into 64 bins"), a batch ("256 matrices of ..."),
///   rows and columns, GEMM's M, N and K ("M=1024 N=512 K=256"), a factor
///   ("scale by 3", "alpha = 2.5").
/// - Words are matched against one table of phrases (longest first), each
///   giving a fact: an operation, an operator, an element type, a flag. The
///   operation is resolved from the facts; two operations, two sizes or two
///   element types that disagree are refused, never guessed between.
/// - Every word must be understood: a word that is not stops the parse
///   with its name ("sum of squares" is not read as a sum).
///
/// The parser knows operations, not templates: whether a template computes
/// the request is instantiate()'s answer.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_DESCRIPTION_H
#define FORGE_TEMPLATES_DESCRIPTION_H

#include "forge/Templates/Template.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::templates {

/// A description read into a request, with what the parser chose where the
/// text did not say (the default f32, clamped borders, the alpha of an
/// axpy, a star stencil read as its box), one sentence each.
struct ParsedDescription {
  Request Req;
  std::vector<std::string> Notes;
};

/// The request a description asks for: Description is the text, Name is
/// empty. The error says what was not understood or what disagrees, what
/// was understood, and shows descriptions that are understood.
llvm::Expected<ParsedDescription> parseDescriptionWithNotes(llvm::StringRef Text);

/// parseDescriptionWithNotes without the notes.
llvm::Expected<Request> parseDescription(llvm::StringRef Text);

/// What the words of a description name, whether or not it parses: for
/// choosing the templates a model is shown (`forge-port new --llm`).
struct DescriptionHints {
  /// The operations the words name, the most specific first (a scan's "sum"
  /// or a GEMM's "multiply" after the scan or the GEMM): operation words
  /// ("sort", "histogram"), reduction operators ("sum", "max") as a reduce,
  /// elementwise functions and written-out expressions as a map, and the
  /// refused operations nearest to one ("mean", "dot product" and "norm" a
  /// reduce, "median" a sort).
  std::vector<OpKind> Kinds;
  /// The first element type named.
  std::optional<Scalar> Type;
  /// The words not understood.
  std::vector<std::string> Unknown;
};
DescriptionHints descriptionHints(llvm::StringRef Text);

/// Descriptions the parser understands, one per kind of operation (for
/// messages and help texts).
llvm::ArrayRef<llvm::StringRef> descriptionExamples();

} // namespace forge::templates

#endif
