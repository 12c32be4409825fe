//===- Templates/Description.cpp - A request from a description -----------===//
//
// Three stages (Description.h): the lexer (words, numbers, symbols), the
// grouping of numbers into extents with their roles, and one table of
// phrases whose facts resolve into a Request. Nothing here knows which
// templates exist.
//
//===----------------------------------------------------------------------===//
#include "forge/Templates/Description.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

using namespace llvm;

namespace forge::templates {

namespace {

// The five: what the message shows when the operation is unknown.
const StringRef GeneralExamples[] = {
    "sum of 64M floats",
    "sort 16M uint32 keys",
    "2D convolution with a 5x5 filter on a 4096x4096 float input",
    "batched SGEMM, 256 matrices of 256x256",
    "row softmax over a 8192x1024 half matrix",
};

// One per operation (descriptionExamples(); every one parses, tested).
const StringRef KindExamples[] = {
    "add two vectors of 16M floats",                               // map
    "sum of 64M floats",                                           // reduce
    "exclusive prefix sum of 16M ints",                            // scan
    "sort 16M uint32 keys",                                        // sort
    "batched SGEMM, 256 matrices of 256x256",                      // gemm
    "2D convolution with a 5x5 filter on a 4096x4096 float input", // stencil
    "transpose a 4096x4096 float matrix",                          // transpose
    "gather 16M floats",                                           // gather
    "scatter 16M floats",                                          // scatter
    "histogram of 64M bytes into 256 bins",                        // histogram
    "row softmax over a 8192x1024 half matrix",                    // row-softmax
};

StringRef kindExample(OpKind K) { return KindExamples[static_cast<int>(K)]; }

//===-- Lexer -------------------------------------------------------------===//

enum class TK { Word, Number, Sym };

struct Token {
  TK K = TK::Sym;
  std::string Text;     ///< words lower-case; "x" for the multiplication signs
  std::string Spelling; ///< as written
  size_t Begin = 0, End = 0;
  // Numbers.
  bool Integral = true; ///< a whole number (Int holds it)
  bool Overflow = false;
  int64_t Int = 0;
  double Real = 0;
  /// Taken by an expression, a named value or a GEMM operand.
  bool Used = false;
};

bool mulChecked(int64_t A, int64_t B, int64_t &R) { return !__builtin_mul_overflow(A, B, &R); }

/// Sets T's value from a real number (a fraction, an exponent or a
/// multiplier applied to one).
void setReal(Token &T, double V) {
  T.Real = V;
  T.Overflow = !(std::fabs(V) < 9.2e18);
  T.Integral = !T.Overflow && V == std::floor(V);
  T.Int = T.Integral ? static_cast<int64_t>(V) : 0;
}

void scaleNumber(Token &T, int64_t M, double RealM) {
  if (T.Overflow)
    return;
  if (T.Integral) {
    int64_t R;
    if (mulChecked(T.Int, M, R)) {
      T.Int = R;
      T.Real = static_cast<double>(R);
    } else {
      T.Overflow = true;
    }
    return;
  }
  setReal(T, T.Real * RealM);
}

bool isWordChar(char C) { return isAlnum(C) || C == '_'; }

/// A number at P: digits with ',' (groups of three) or '_' separators, a
/// fraction, an exponent, a binary suffix (K, M, G, T, optionally with i)
/// and a float literal's f. Returns the end.
size_t lexNumber(StringRef S, size_t P, Token &T) {
  std::string Digits, Frac, Exp;
  size_t FirstGroup = 0;
  bool Comma = false;
  while (P < S.size()) {
    char C = S[P];
    if (isDigit(C)) {
      Digits += C;
      if (!Comma)
        ++FirstGroup;
      ++P;
    } else if (C == ',' && FirstGroup <= 3 && P + 3 < S.size() && isDigit(S[P + 1]) &&
               isDigit(S[P + 2]) && isDigit(S[P + 3]) &&
               (P + 4 >= S.size() || !isDigit(S[P + 4]))) {
      Comma = true;
      ++P;
    } else if (C == '_' && P + 1 < S.size() && isDigit(S[P + 1])) {
      ++P;
    } else {
      break;
    }
  }
  if (P + 1 < S.size() && S[P] == '.' && isDigit(S[P + 1])) {
    ++P;
    while (P < S.size() && isDigit(S[P]))
      Frac += S[P++];
  }
  if (P + 1 < S.size() && (S[P] == 'e' || S[P] == 'E')) {
    size_t Q = P + 1;
    if (Q < S.size() && S[Q] == '+')
      ++Q;
    size_t D = Q;
    while (Q < S.size() && isDigit(S[Q]))
      ++Q;
    if (Q > D && (Q >= S.size() || !isWordChar(S[Q]))) {
      Exp = S.slice(D, Q).str();
      P = Q;
    }
  }
  T.K = TK::Number;
  if (Frac.empty() && Exp.empty()) {
    unsigned long long V = 0;
    if (getAsUnsignedInteger(Digits, 10, V) ||
        V > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())) {
      T.Overflow = true;
      T.Integral = true;
      T.Real = std::strtod(Digits.c_str(), nullptr);
    } else {
      T.Int = static_cast<int64_t>(V);
      T.Real = static_cast<double>(V);
    }
  } else {
    std::string Lit = Digits + (Frac.empty() ? "" : "." + Frac) + (Exp.empty() ? "" : "e" + Exp);
    setReal(T, std::strtod(Lit.c_str(), nullptr));
  }
  // A binary suffix, not followed by a letter ("64MB" is 64 and a word).
  if (P < S.size()) {
    int Shift = StringSwitch<int>(S.substr(P, 1).lower())
                    .Case("k", 10)
                    .Case("m", 20)
                    .Case("g", 30)
                    .Case("t", 40)
                    .Default(0);
    size_t Q = P + 1;
    if (Shift && Q < S.size() && (S[Q] == 'i' || S[Q] == 'I'))
      ++Q;
    if (Shift && (Q >= S.size() || !isWordChar(S[Q]))) {
      scaleNumber(T, int64_t(1) << Shift, std::ldexp(1.0, Shift));
      P = Q;
    } else if ((S[P] == 'f' || S[P] == 'F') && (!Frac.empty() || !Exp.empty()) &&
               (Q >= S.size() || !isWordChar(S[Q]))) {
      P = Q; // 2.5f
    }
  }
  return P;
}

std::vector<Token> lex(StringRef S) {
  std::vector<Token> Toks;
  size_t P = 0;
  auto Push = [&](Token T, size_t B, size_t E) {
    T.Begin = B;
    T.End = E;
    T.Spelling = S.slice(B, E).str();
    Toks.push_back(std::move(T));
  };
  auto PrevIsNumber = [&] { return !Toks.empty() && Toks.back().K == TK::Number; };
  auto DigitAfterSpaces = [&](size_t Q) {
    while (Q < S.size() && S[Q] == ' ')
      ++Q;
    return Q < S.size() && isDigit(S[Q]);
  };
  while (P < S.size()) {
    char C = S[P];
    size_t B = P;
    if (isSpace(C)) {
      ++P;
      continue;
    }
    if (isDigit(C)) {
      Token T;
      P = lexNumber(S, P, T);
      // 2D, 3-D: a rank word.
      size_t Q = P < S.size() && S[P] == '-' ? P + 1 : P;
      if (Q < S.size() && (S[Q] == 'd' || S[Q] == 'D') &&
          (Q + 1 >= S.size() || !isWordChar(S[Q + 1])) && T.Integral && !T.Overflow) {
        Token W;
        W.K = TK::Word;
        W.Text = std::to_string(T.Int) + "d";
        Push(W, B, Q + 1);
        P = Q + 1;
        continue;
      }
      Push(T, B, P);
      continue;
    }
    if (isAlpha(C) || C == '_') {
      // The x of 4096x4096 and 4096 x 4096.
      if ((C == 'x' || C == 'X') && PrevIsNumber() && DigitAfterSpaces(P + 1)) {
        Token T;
        T.Text = "x";
        Push(T, B, ++P);
        continue;
      }
      while (P < S.size() && isWordChar(S[P]))
        ++P;
      Token T;
      T.K = TK::Word;
      T.Text = S.slice(B, P).lower();
      Push(T, B, P);
      continue;
    }
    if (C == '-' && P > 0 && P + 1 < S.size() && isWordChar(S[P - 1]) && isWordChar(S[P + 1])) {
      // key-value, 7-point, radius-3: a joint, not a minus; a-b stays one.
      bool Letters = isAlpha(S[P - 1]) && (P < 2 || !isWordChar(S[P - 2])) && isAlpha(S[P + 1]) &&
                     (P + 2 >= S.size() || !isWordChar(S[P + 2]));
      if (!Letters) {
        ++P;
        continue;
      }
    }
    Token T;
    if (S.substr(P).starts_with("<<") || S.substr(P).starts_with("**")) {
      T.Text = S.substr(P, 2).str();
      P += 2;
    } else if (S.substr(P).starts_with("\xC3\x97")) { // the multiplication sign
      T.Text = "x";
      P += 2;
    } else if (static_cast<unsigned char>(C) >= 0x80) {
      ++P;
      while (P < S.size() && (static_cast<unsigned char>(S[P]) & 0xC0) == 0x80)
        ++P;
      T.Text = S.slice(B, P).str();
    } else {
      T.Text = std::string(1, C);
      ++P;
    }
    Push(T, B, P);
  }
  // 2 million, 1.5 billion: decimal multipliers.
  std::vector<Token> Out;
  for (Token &T : Toks) {
    double M = StringSwitch<double>(T.Text)
                   .Case("thousand", 1e3)
                   .Case("million", 1e6)
                   .Case("billion", 1e9)
                   .Case("trillion", 1e12)
                   .Default(0);
    if (T.K == TK::Word && M && !Out.empty() && Out.back().K == TK::Number) {
      scaleNumber(Out.back(), static_cast<int64_t>(M), M);
      Out.back().End = T.End;
      Out.back().Spelling = S.slice(Out.back().Begin, T.End).str();
      continue;
    }
    Out.push_back(std::move(T));
  }
  return Out;
}

//===-- The phrase table --------------------------------------------------===//

enum class W {
  Filler,
  Kind, ///< an operation (with Op or Type for some: "prefix sum", "SGEMM")
  Op,   ///< an operator: "+", "*", "max", "min", "argmax", "argmin", "-", "/"
  Type,
  Unsigned, ///< "unsigned": makes the next integer type unsigned, or u32
  Unary,    ///< an elementwise function ("exp")
  Inclusive,
  Exclusive,
  Ascending,
  Descending,
  Batched,
  Separable,
  Zero,
  Clamp,
  Radix,
  Merge,
  Pairs,
  Keys,
  Values,
  LowPrec,
  Elementwise,
  Index,
  Count,
  Rank,
  Rows,
  Cols,
  Axpy,
  Scale,
  Matrices,
  Unsupported, ///< understood and refused with Str as the reason
};

struct Phrase {
  W Class;
  std::optional<OpKind> Kind = std::nullopt;
  const char *Str = nullptr; ///< the operator, the function, the reason
  std::optional<Scalar> Type = std::nullopt;
  int Num = 0; ///< count words, ranks
};

const StringMap<Phrase> &phrases() {
  static const StringMap<Phrase> Table = [] {
    StringMap<Phrase> T;
    auto Add = [&](std::initializer_list<const char *> Words, Phrase P) {
      for (const char *Wd : Words)
        T[Wd] = P;
    };
    auto Kind = [](OpKind K, const char *Op = nullptr) { return Phrase{W::Kind, K, Op}; };
    auto Op = [](const char *O) { return Phrase{W::Op, std::nullopt, O}; };
    auto Ty = [](Scalar S) { return Phrase{W::Type, std::nullopt, nullptr, S}; };
    auto Fl = [](W C, int Num = 0) { return Phrase{C, std::nullopt, nullptr, std::nullopt, Num}; };
    auto Un = [](const char *F) { return Phrase{W::Unary, std::nullopt, F}; };
    auto No = [](const char *Why) { return Phrase{W::Unsupported, std::nullopt, Why}; };

    // Operations.
    Add({"sort", "sorting", "sorted", "order", "reorder"}, Kind(OpKind::Sort));
    Add({"radix", "radix sort", "radixsort"}, Phrase{W::Radix, OpKind::Sort});
    Add({"merge", "merge sort", "mergesort"}, Phrase{W::Merge, OpKind::Sort});
    Add({"gemm", "matmul", "matrix multiply", "matrix multiplication", "matrix product",
         "matrix matrix multiply", "matrix matrix product", "matrix matrix multiplication"},
        Kind(OpKind::Gemm));
    Add({"sgemm"}, Phrase{W::Kind, OpKind::Gemm, nullptr, Scalar::F32});
    Add({"dgemm"}, Phrase{W::Kind, OpKind::Gemm, nullptr, Scalar::F64});
    Add({"hgemm"}, Phrase{W::Kind, OpKind::Gemm, nullptr, Scalar::F16});
    Add({"transpose", "transposed", "transposition", "transposing"}, Kind(OpKind::Transpose));
    Add({"gather", "gathering", "gathered"}, Kind(OpKind::Gather));
    Add({"scatter", "scattering", "scattered"}, Kind(OpKind::Scatter));
    Add({"histogram", "hist", "histogramming"}, Kind(OpKind::Histogram));
    Add({"softmax", "soft max"}, Kind(OpKind::RowSoftmax));
    Add({"stencil", "convolution", "convolve", "convolved", "conv", "blur", "filter", "filtering",
         "smooth", "smoothing", "mean filter", "average filter", "averaging filter"},
        Kind(OpKind::Stencil));
    Add({"scan", "prefix", "cumulative", "running"}, Kind(OpKind::Scan));
    Add({"inclusive"}, Fl(W::Inclusive));
    Add({"exclusive"}, Fl(W::Exclusive));
    Add({"reduce", "reduction", "reduced"}, Kind(OpKind::Reduce));
    Add({"map"}, Kind(OpKind::Map));
    Add({"elementwise", "element wise", "pointwise", "point wise", "per element", "componentwise"},
        Fl(W::Elementwise));

    // Operators.
    Add({"sum", "summation", "summing", "summed", "total", "add", "adding", "added", "add up",
         "sum up", "plus", "addition", "accumulate", "+"},
        Op("+"));
    Add({"product", "multiply", "multiplying", "multiplied", "multiplication", "times", "*"},
        Op("*"));
    Add({"max", "maximum", "largest", "biggest", "greatest", "highest"}, Op("max"));
    Add({"min", "minimum", "smallest", "lowest", "least"}, Op("min"));
    Add({"argmax", "arg max"}, Op("argmax"));
    Add({"argmin", "arg min"}, Op("argmin"));
    Add({"subtract", "difference", "minus", "subtraction"}, Op("-"));
    Add({"divide", "division", "quotient"}, Op("/"));
    Add({"index", "position", "location", "where"}, Fl(W::Index));

    // Elementwise functions.
    Add({"exp", "exponential", "exponent", "exponentiate"}, Un("exp"));
    Add({"log", "logarithm", "ln", "natural log", "natural logarithm"}, Un("log"));
    Add({"sqrt", "square root", "root"}, Un("sqrt"));
    Add({"rsqrt", "inverse square root", "reciprocal square root"}, Un("rsqrt"));
    Add({"abs", "absolute", "absolute value", "magnitude"}, Un("abs"));
    Add({"sin", "sine"}, Un("sin"));
    Add({"cos", "cosine"}, Un("cos"));
    Add({"tanh"}, Un("tanh"));
    Add({"sigmoid", "logistic"}, Un("sigmoid"));
    Add({"relu"}, Un("relu"));
    Add({"negate", "negation", "negative", "neg"}, Un("negate"));
    Add({"square", "squared", "squaring"}, Un("square"));
    Add({"reciprocal", "invert"}, Un("reciprocal"));
    Add({"copy", "identity"}, Un("copy"));
    Add({"axpy"}, Fl(W::Axpy));
    Add({"saxpy"}, Phrase{W::Axpy, std::nullopt, nullptr, Scalar::F32});
    Add({"daxpy"}, Phrase{W::Axpy, std::nullopt, nullptr, Scalar::F64});
    Add({"scale", "scaled", "scaling"}, Fl(W::Scale));

    // Element types.
    Add({"float", "fp32", "f32", "float32", "single", "single precision", "float32_t"},
        Ty(Scalar::F32));
    Add({"double", "fp64", "f64", "float64", "double precision"}, Ty(Scalar::F64));
    Add({"half", "halves", "fp16", "f16", "float16", "half precision", "__half"}, Ty(Scalar::F16));
    Add({"bf16", "bfloat16", "bfloat", "__nv_bfloat16"}, Ty(Scalar::BF16));
    Add({"int", "integer", "int32", "i32", "int32_t", "signed int", "signed integer"},
        Ty(Scalar::I32));
    Add({"uint32", "u32", "uint", "uint32_t", "unsigned int", "unsigned integer"}, Ty(Scalar::U32));
    Add({"unsigned"}, Fl(W::Unsigned));
    Add({"int64", "i64", "long", "long long", "int64_t", "long int"}, Ty(Scalar::I64));
    Add({"uint64", "u64", "uint64_t", "unsigned long", "unsigned long long", "ulong"},
        Ty(Scalar::U64));
    Add({"uint8", "u8", "byte", "uint8_t", "unsigned char", "uchar"}, Ty(Scalar::U8));
    Add({"int8", "i8", "int8_t", "char", "signed char"}, Ty(Scalar::I8));
    Add({"int16", "i16", "int16_t", "short"}, Ty(Scalar::I16));
    Add({"uint16", "u16", "uint16_t", "unsigned short", "ushort"}, Ty(Scalar::U16));

    // Modifiers.
    Add({"ascending", "increasing", "ascending order", "increasing order", "smallest first",
         "lowest first"},
        Fl(W::Ascending));
    Add({"descending", "decreasing", "descending order", "decreasing order", "reverse order",
         "largest first", "highest first", "biggest first", "reverse", "reversed"},
        Fl(W::Descending));
    Add({"batched", "batch", "strided batched"}, Fl(W::Batched));
    Add({"separable"}, Fl(W::Separable));
    Add({"zero padding", "zero padded", "zero border", "zero borders", "zero boundary",
         "zero boundaries", "zeros outside", "pad with zeros", "padded with zeros", "zero pad",
         "zero", "zeros"},
        Fl(W::Zero));
    Add({"clamp", "clamped", "clamped borders", "clamp to edge", "clamped to the edge", "replicate",
         "replicated", "edge replication", "nearest edge"},
        Fl(W::Clamp));
    Add({"pair", "key value"}, Fl(W::Pairs));
    Add({"key"}, Fl(W::Keys));
    Add({"value"}, Fl(W::Values));
    Add({"tf32", "tensor core", "tensor cores", "lower precision", "low precision",
         "mixed precision", "reduced precision"},
        Fl(W::LowPrec));
    Add({"two", "2 inputs"}, Fl(W::Count, 2));
    Add({"three"}, Fl(W::Count, 3));
    Add({"four"}, Fl(W::Count, 4));
    Add({"1d", "one dimensional"}, Fl(W::Rank, 1));
    Add({"2d", "two dimensional"}, Fl(W::Rank, 2));
    Add({"3d", "three dimensional"}, Fl(W::Rank, 3));
    Add({"row", "rows", "row wise", "rowwise", "per row", "each row"}, Fl(W::Rows));
    Add({"column", "columns", "col", "cols", "column wise", "columnwise", "per column"},
        Fl(W::Cols));
    Add({"matrix", "matrices"}, Fl(W::Matrices));

    // Understood and refused.
    Add({"mean", "average", "avg"},
        No("a mean is not an operation of the templates|ask for a sum and divide it by n"));
    Add({"median"}, No("a median is not an operation of the templates"));
    Add({"dot product", "dot", "inner product"},
        No("a dot product is not an operation of the templates|a 1 x n by n x 1 GEMM "
           "computes one"));
    Add({"norm", "variance", "stddev", "std"},
        No("norms and variances are not operations of the templates"));
    Add({"fft", "fourier"}, No("an FFT is not an operation of the templates"));
    Add({"column major", "col major", "column-major"},
        No("the templates take row-major data|transpose it first"));
    Add({"complex"}, No("complex element types are not supported"));

    // Words that carry nothing.
    for (const char *F : {"a",
                          "an",
                          "the",
                          "of",
                          "on",
                          "in",
                          "over",
                          "into",
                          "for",
                          "with",
                          "and",
                          "to",
                          "from",
                          "by",
                          "each",
                          "every",
                          "all",
                          "per",
                          "as",
                          "at",
                          "using",
                          "use",
                          "that",
                          "which",
                          "is",
                          "are",
                          "be",
                          "it",
                          "its",
                          "then",
                          "this",
                          "these",
                          "those",
                          "my",
                          "our",
                          "some",
                          "me",
                          "please",
                          "compute",
                          "computes",
                          "computing",
                          "calculate",
                          "calculates",
                          "perform",
                          "do",
                          "does",
                          "find",
                          "finds",
                          "get",
                          "give",
                          "make",
                          "write",
                          "generate",
                          "build",
                          "implement",
                          "run",
                          "kernel",
                          "kernels",
                          "gpu",
                          "cuda",
                          "fast",
                          "faster",
                          "fastest",
                          "efficient",
                          "efficiently",
                          "quick",
                          "array",
                          "arrays",
                          "vector",
                          "vectors",
                          "buffer",
                          "buffers",
                          "list",
                          "lists",
                          "input",
                          "inputs",
                          "output",
                          "outputs",
                          "data",
                          "element",
                          "elements",
                          "item",
                          "items",
                          "entry",
                          "entries",
                          "number",
                          "numbers",
                          "image",
                          "images",
                          "picture",
                          "grid",
                          "grids",
                          "volume",
                          "volumes",
                          "tensor",
                          "tensors",
                          "field",
                          "signal",
                          "random",
                          "contiguous",
                          "dense",
                          "large",
                          "big",
                          "small",
                          "huge",
                          "inplace",
                          "place",
                          "result",
                          "results",
                          "major",
                          "row major",
                          "memory",
                          "device",
                          "global",
                          "whole",
                          "entire",
                          "across",
                          "along",
                          "between",
                          "both",
                          "sequence",
                          "sequences",
                          "set",
                          "collection",
                          "bin",
                          "bins",
                          "bucket",
                          "buckets",
                          "point",
                          "points",
                          "pt",
                          "radius",
                          "size",
                          "sized",
                          "width",
                          "wide",
                          "tap",
                          "taps",
                          "border",
                          "borders",
                          "boundary",
                          "boundaries",
                          "edge",
                          "edges",
                          "padding",
                          "box",
                          "gaussian",
                          "mask",
                          "window",
                          "footprint",
                          "indices",
                          "indexes",
                          "problem",
                          "problems",
                          "bit",
                          "bits",
                          "precision",
                          "type",
                          "typed",
                          "operand",
                          "operands",
                          "A",
                          "B",
                          "C",
                          "alpha",
                          "one",
                          "single pass",
                          "onto",
                          "via",
                          "like",
                          "such",
                          "new",
                          "same",
                          "given",
                          "counts",
                          "count",
                          "occurrences",
                          "frequency",
                          "frequencies",
                          "up",
                          "out",
                          "lookup",
                          "look",
                          "table",
                          "sample",
                          "samples",
                          "them",
                          "they",
                          "their",
                          "i",
                          "array of",
                          "host",
                          "fused",
                          "scalar",
                          "wise",
                          "dimension",
                          "dimensions",
                          "dimensional",
                          "shape",
                          "shaped",
                          "square matrix",
                          "square matrices",
                          "cube",
                          "cubic",
                          "filtered",
                          "stored",
                          "pixels",
                          "pixel",
                          "cells",
                          "cell",
                          "voxels",
                          "voxel",
                          "channel",
                          "stride",
                          "strided",
                          "batches",
                          "gemms",
                          "instances",
                          "multiplies",
                          "products",
                          "multiplications",
                          "or"})
      T[F] = Phrase{W::Filler};
    return T;
  }();
  return Table;
}

/// The phrase for Word, trying a plural's singular.
const Phrase *lookupWord(StringRef Word) {
  const StringMap<Phrase> &T = phrases();
  if (auto It = T.find(Word); It != T.end())
    return &It->second;
  if (Word.size() > 3 && Word.ends_with("es"))
    if (auto It = T.find(Word.drop_back(2)); It != T.end())
      return &It->second;
  if (Word.size() > 2 && Word.ends_with("s"))
    if (auto It = T.find(Word.drop_back()); It != T.end())
      return &It->second;
  return nullptr;
}

//===-- Groups of numbers -------------------------------------------------===//

enum class Role {
  Size,
  Filter,
  Radius,
  Points,
  Bins,
  Batch,
  Rows,
  Cols,
  Inputs,
  Factor,
  Width,
  M,
  N,
  K
};

struct Group {
  std::vector<int64_t> Extents;
  bool Integral = true;
  bool Overflow = false;
  double Real = 0; ///< a single number's value (factors may be fractions)
  size_t First = 0, Last = 0;
  std::string Spelling;
  std::string Name; ///< from "M=1024": "m"
  Role R = Role::Size;

  int64_t product(bool &Over) const {
    int64_t P = 1;
    for (int64_t E : Extents)
      if (!mulChecked(P, E, P))
        Over = true;
    return P;
  }
  std::string extents() const {
    return join(map_range(Extents, [](int64_t E) { return std::to_string(E); }), " x ");
  }
};

struct Fact {
  const Phrase *P;
  size_t Tok, Last;     ///< its first and last tokens
  std::string Spelling; ///< its words as written
};

struct Expr {
  /// The right-hand side: variables (single letters), numbers, functions
  /// and the operators, in order.
  std::vector<size_t> Toks;
  size_t First = 0, Last = 0;
};

std::string withoutSpaces(StringRef S) {
  std::string R;
  for (char C : S)
    if (C != ' ')
      R += C;
  return R;
}

std::string joinQuoted(ArrayRef<std::string> Words) {
  return join(map_range(Words, [](const std::string &S) { return "'" + S + "'"; }), ", ");
}

bool isIntegerFamily(Scalar S) { return !scalarInfo(S).Floating; }

std::optional<Scalar> withWidth(Scalar S, int64_t Bits) {
  const ScalarInfo &I = scalarInfo(S);
  if (I.Floating)
    return Bits == 16   ? std::optional(Scalar::F16)
           : Bits == 32 ? std::optional(Scalar::F32)
           : Bits == 64 ? std::optional(Scalar::F64)
                        : std::nullopt;
  switch (Bits) {
  case 8:
    return I.Signed ? Scalar::I8 : Scalar::U8;
  case 16:
    return I.Signed ? Scalar::I16 : Scalar::U16;
  case 32:
    return I.Signed ? Scalar::I32 : Scalar::U32;
  case 64:
    return I.Signed ? Scalar::I64 : Scalar::U64;
  }
  return std::nullopt;
}

Scalar unsignedOf(Scalar S) {
  switch (S) {
  case Scalar::I8:
    return Scalar::U8;
  case Scalar::I16:
    return Scalar::U16;
  case Scalar::I32:
    return Scalar::U32;
  case Scalar::I64:
    return Scalar::U64;
  default:
    return S;
  }
}

bool isFloatFamily(Scalar S) { return scalarInfo(S).Floating; }

/// A literal of type T: "2.5f", "3.0", "3".
std::optional<std::string> literal(double V, Scalar T) {
  if (!isFloatFamily(T)) {
    if (V != std::floor(V) || std::fabs(V) > 9e18)
      return std::nullopt;
    return std::to_string(static_cast<long long>(V));
  }
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, T == Scalar::F64 ? "%.17g" : "%.9g", V);
  std::string S = Buf;
  if (S.find_first_of(".en") == std::string::npos)
    S += ".0";
  return T == Scalar::F64 ? S : S + "f";
}

/// An elementwise function over a, for T (f16 and bf16 compute in float).
std::optional<std::string> unaryText(StringRef F, Scalar T) {
  bool Dbl = T == Scalar::F64, Flt = isFloatFamily(T) && !Dbl;
  bool Signed = scalarInfo(T).Signed;
  if (F == "negate")
    return std::string("-a");
  if (F == "square")
    return std::string("a * a");
  if (F == "copy")
    return std::string("a");
  if (F == "relu")
    return Flt ? "fmaxf(a, 0.0f)" : Dbl ? "fmax(a, 0.0)" : Signed ? "max(a, 0)" : "a";
  if (F == "abs")
    return Flt                ? "fabsf(a)"
           : Dbl              ? "fabs(a)"
           : !Signed          ? std::optional<std::string>()
           : T == Scalar::I64 ? "llabs(a)"
                              : "abs(a)";
  if (!Flt && !Dbl)
    return std::nullopt;
  if (F == "sigmoid")
    return Flt ? "1.0f / (1.0f + expf(-a))" : "1.0 / (1.0 + exp(-a))";
  if (F == "reciprocal")
    return Flt ? "1.0f / a" : "1.0 / a";
  return (F + (Flt ? "f" : "") + "(a)").str();
}

/// The CUDA function for a name in an expression ("exp" -> "expf").
std::optional<std::string> exprFunction(StringRef F, Scalar T) {
  bool Dbl = T == Scalar::F64, Flt = isFloatFamily(T) && !Dbl;
  if (!Flt && !Dbl) {
    if (F == "max" || F == "min")
      return F.str();
    if (F == "abs" && scalarInfo(T).Signed)
      return std::string(T == Scalar::I64 ? "llabs" : "abs");
    return std::nullopt;
  }
  std::string Base = StringSwitch<std::string>(F)
                         .Cases({"abs", "fabs"}, "fabs")
                         .Case("max", "fmax")
                         .Case("min", "fmin")
                         .Case("fma", "fma")
                         .Default(F.str());
  return Flt ? Base + "f" : Base;
}

const char *const ExprFunctions[] = {"exp", "log", "sqrt", "rsqrt", "abs",   "fabs",
                                     "sin", "cos", "tan",  "tanh",  "max",   "min",
                                     "fma", "pow", "exp2", "log2",  "floor", "ceil"};

bool isExprFunction(StringRef W) { return is_contained(ExprFunctions, W); }

//===-- The parser --------------------------------------------------------===//

class Parser {
public:
  explicit Parser(StringRef Text) : Text(Text.trim()) {}
  Expected<ParsedDescription> run();
  DescriptionHints hints();

private:
  StringRef Text;
  std::vector<Token> Toks;
  std::vector<Group> Groups;
  std::vector<Fact> Facts;
  std::vector<std::string> Unknown; ///< words not understood
  std::vector<size_t> UnknownTok;
  std::vector<Expr> Exprs;
  /// GEMM operands marked transposed ("A^T", "transposed B"): 'a' or 'b'.
  std::vector<std::pair<char, std::string>> TransMarks;

  // What resolution found so far (for "understood").
  std::optional<OpKind> Kind;
  std::string OpText;
  std::optional<Scalar> Type;
  std::vector<std::string> Notes;
  ParsedDescription Out;
  int MapInputs = 0; ///< inputs a map was said to have ("two vectors")

  // Stages.
  void findExpressions();
  void findNamedValues();
  void findGroups();
  void findTransposedOperands();
  void matchPhrases();
  Error assignRoles();
  Error resolveKind();
  Error resolveType();
  Error resolveShape();
  Error resolveDetails();
  Error resolveFilter();
  Error resolveMap();

  // Helpers.
  const Token *tok(size_t I) const { return I < Toks.size() ? &Toks[I] : nullptr; }
  StringRef wordAt(size_t I) const {
    const Token *T = tok(I);
    return T && T->K == TK::Word ? StringRef(T->Text) : StringRef();
  }
  StringRef wordBefore(const Group &G, unsigned Back = 1) const {
    return G.First >= Back ? wordAt(G.First - Back) : StringRef();
  }
  StringRef wordAfter(const Group &G, unsigned Ahead = 1) const { return wordAt(G.Last + Ahead); }
  std::vector<const Fact *> facts(W C) const {
    std::vector<const Fact *> R;
    for (const Fact &F : Facts)
      if (F.P->Class == C)
        R.push_back(&F);
    return R;
  }
  bool has(W C) const { return !facts(C).empty(); }
  std::vector<Group *> groups(Role R) {
    std::vector<Group *> V;
    for (Group &G : Groups)
      if (G.R == R)
        V.push_back(&G);
    return V;
  }
  std::string understood() const;
  Error refuse(const Twine &Reason, const Twine &Remedy) const;
  Error conflict(StringRef What, StringRef A, StringRef B, const Twine &Remedy) const;
  /// The one value of the groups with role R (equal ones agree), or an error.
  Expected<Group *> single(Role R, StringRef What);
};

std::string Parser::understood() const {
  std::vector<std::string> Parts;
  if (!OpText.empty())
    Parts.push_back(OpText);
  std::optional<Scalar> T = Type;
  if (!T) {
    std::optional<Scalar> Only;
    bool Many = false;
    for (const Fact &F : Facts)
      if (F.P->Type && F.P->Class == W::Type) {
        Many |= Only && *Only != *F.P->Type;
        Only = F.P->Type;
      }
    if (!Many)
      T = Only;
  }
  bool TypeSaid = false;
  for (const Group &G : Groups) {
    if (G.Overflow || !G.Integral)
      continue;
    switch (G.R) {
    case Role::Size:
      Parts.push_back(
          G.extents() +
          (withoutSpaces(G.extents()) == withoutSpaces(G.Spelling) ? "" : " (" + G.Spelling + ")") +
          (G.Extents.size() == 1 && G.Extents[0] == 1 ? " element" : " elements") +
          (T && !TypeSaid ? " of " + scalarInfo(*T).Dtype.str() : ""));
      TypeSaid |= bool(T);
      break;
    case Role::Filter:
      Parts.push_back("a " +
                      join(map_range(G.Extents, [](int64_t E) { return std::to_string(E); }), "x") +
                      " filter");
      break;
    case Role::Radius:
      Parts.push_back("radius " + G.extents());
      break;
    case Role::Points:
      Parts.push_back(G.extents() + " points");
      break;
    case Role::Bins:
      Parts.push_back(G.extents() + " bins");
      break;
    case Role::Batch:
      Parts.push_back("a batch of " + G.extents());
      break;
    case Role::Rows:
      Parts.push_back(G.extents() + " rows");
      break;
    case Role::Cols:
      Parts.push_back(G.extents() + " columns");
      break;
    case Role::Inputs:
      Parts.push_back(G.extents() + " inputs");
      break;
    case Role::Factor:
      Parts.push_back("the factor " + G.Spelling);
      break;
    case Role::M:
      Parts.push_back("M=" + G.extents());
      break;
    case Role::N:
      Parts.push_back("N=" + G.extents());
      break;
    case Role::K:
      Parts.push_back("K=" + G.extents());
      break;
    case Role::Width:
      break;
    }
  }
  if (T && !TypeSaid)
    Parts.push_back(scalarInfo(*T).Dtype.str() + " elements");
  std::string S = Parts.empty() ? "nothing" : join(Parts, ", ");
  if (!Unknown.empty())
    S += "; not understood: " + joinQuoted(Unknown);
  return S;
}

Error Parser::refuse(const Twine &Reason, const Twine &Remedy) const {
  return makeError("{0} in \"{1}\" (understood: {2}); {3}", Reason.str(), Text, understood(),
                   Remedy.str());
}

Error Parser::conflict(StringRef What, StringRef A, StringRef B, const Twine &Remedy) const {
  return refuse(formatv("two {0} ('{1}' and '{2}')", What, A, B), Remedy);
}

Expected<Group *> Parser::single(Role R, StringRef What) {
  Group *First = nullptr;
  for (Group *G : groups(R)) {
    if (First && First->Extents != G->Extents)
      return conflict(What, First->Spelling, G->Spelling, "say one");
    if (!First)
      First = G;
  }
  return First;
}

const char *const NamedValues[] = {"m",       "n",     "k",    "alpha",  "rows", "cols",
                                   "columns", "batch", "bins", "radius", "size"};

// "y = 2.5 * x + y", "c[i] = a[i] + b[i]": an elementwise map written out.
void Parser::findExpressions() {
  for (size_t I = 0; I + 2 < Toks.size(); ++I) {
    // The left-hand side: a lower-case name that is not a named value
    // ("M=1024", "alpha = 2.5" have no variable on the right anyway).
    const Token &L = Toks[I];
    if (L.K != TK::Word || L.Spelling != L.Text || is_contained(NamedValues, L.Text))
      continue;
    size_t J = I + 1;
    if (J + 2 < Toks.size() && Toks[J].Text == "[" && Toks[J + 2].Text == "]")
      J += 3;
    if (J >= Toks.size() || Toks[J].Text != "=")
      continue;
    Expr E;
    E.First = I;
    int Depth = 0, Vars = 0;
    bool Operand = false; // the last token ends an operand
    size_t K = J + 1;
    for (; K < Toks.size(); ++K) {
      const Token &T = Toks[K];
      // Operands follow operators, except 3x and 2(a + b).
      bool Starts = T.K != TK::Sym || T.Text == "(";
      if (Operand && Starts && !(Toks[E.Toks.back()].K == TK::Number && T.K != TK::Number))
        break;
      Operand = T.K == TK::Number || T.Text == ")" || (T.K == TK::Word && T.Spelling.size() == 1);
      if (T.K == TK::Word && T.Spelling.size() == 1 && isLower(T.Spelling[0])) {
        ++Vars;
        E.Toks.push_back(K);
        if (K + 3 < Toks.size() && Toks[K + 1].Text == "[" && Toks[K + 3].Text == "]")
          K += 3;
      } else if (T.K == TK::Word && isExprFunction(T.Text) && tok(K + 1) &&
                 Toks[K + 1].Text == "(") {
        E.Toks.push_back(K);
      } else if (T.K == TK::Number) {
        E.Toks.push_back(K);
      } else if (T.K == TK::Sym && StringRef("+-*/").contains(T.Text) && T.Text.size() == 1) {
        E.Toks.push_back(K);
      } else if (T.Text == "(") {
        ++Depth;
        E.Toks.push_back(K);
      } else if (T.Text == ")" && Depth > 0) {
        --Depth;
        E.Toks.push_back(K);
      } else if (T.Text == "," && Depth > 0) {
        E.Toks.push_back(K);
      } else {
        break;
      }
    }
    // Trailing operators belong to the sentence, not the expression.
    while (!E.Toks.empty() && Toks[E.Toks.back()].K == TK::Sym && Toks[E.Toks.back()].Text != ")")
      E.Toks.pop_back();
    if (!Vars || Depth || E.Toks.empty())
      continue;
    E.Last = E.Toks.back();
    for (size_t U = E.First; U <= E.Last; ++U)
      Toks[U].Used = true;
    Exprs.push_back(std::move(E));
    I = Exprs.back().Last;
  }
}

// "M=1024", "M=N=K=256", "alpha = 2.5": the names are taken here, the
// numbers by findGroups (which reads the names back).
void Parser::findNamedValues() {
  for (size_t I = 0; I + 2 < Toks.size(); ++I)
    if (Toks[I].K == TK::Word && is_contained(NamedValues, StringRef(Toks[I].Text)) &&
        Toks[I + 1].Text == "=" && !Toks[I].Used)
      Toks[I].Used = Toks[I + 1].Used = true;
}

void Parser::findGroups() {
  auto Atom = [&](size_t I, std::vector<int64_t> &Ext, bool &Integral, bool &Over,
                  double &Real) -> size_t {
    const Token &B = Toks[I];
    Integral &= B.Integral;
    Over |= B.Overflow;
    Real = B.Real;
    const Token *Op = tok(I + 1), *E = tok(I + 2);
    if (Op && E && E->K == TK::Number && !E->Used &&
        (Op->Text == "^" || Op->Text == "**" || Op->Text == "<<")) {
      Over |= E->Overflow;
      Integral &= E->Integral;
      if (!Integral || Over)
        return I + 3;
      if (Op->Text == "<<") {
        if (E->Int >= 63 || B.Int >= (int64_t(1) << (62 - E->Int)))
          Over = true;
        else
          Ext.push_back(B.Int << E->Int);
      } else if ((E->Int == 2 || E->Int == 3) && B.Int != 2 && B.Int != 10) {
        Ext.insert(Ext.end(), E->Int, B.Int); // 256^3: a cube
      } else {
        int64_t P = 1;
        for (int64_t K = 0; K < E->Int && !Over; ++K)
          Over |= !mulChecked(P, B.Int, P);
        Ext.push_back(P);
      }
      return I + 3;
    }
    if (B.Integral && !B.Overflow)
      Ext.push_back(B.Int);
    return I + 1;
  };
  for (size_t I = 0; I < Toks.size();) {
    if (Toks[I].K != TK::Number || Toks[I].Used) {
      ++I;
      continue;
    }
    Group G;
    G.First = I;
    size_t Next = Atom(I, G.Extents, G.Integral, G.Overflow, G.Real);
    while (Next + 1 < Toks.size() && Toks[Next + 1].K == TK::Number && !Toks[Next].Used &&
           (Toks[Next].Text == "x" || Toks[Next].Text == "*" || Toks[Next].Text == "by")) {
      double Unused;
      Next = Atom(Next + 1, G.Extents, G.Integral, G.Overflow, Unused);
    }
    G.Last = Next - 1;
    G.Spelling = Text.slice(Toks[G.First].Begin, Toks[G.Last].End).str();
    for (size_t U = G.First; U <= G.Last; ++U)
      Toks[U].Used = true;
    // The names of "M=N=K=256".
    for (size_t P = G.First; P >= 2 && Toks[P - 1].Text == "=" && Toks[P - 2].K == TK::Word &&
                             is_contained(NamedValues, StringRef(Toks[P - 2].Text));
         P -= 2) {
      Group Named = G;
      Named.Name = Toks[P - 2].Text;
      Named.Spelling = Toks[P - 2].Spelling + "=" + G.Spelling;
      Groups.push_back(Named);
    }
    if (!(G.First >= 2 && Toks[G.First - 1].Text == "=" &&
          is_contained(NamedValues, StringRef(Toks[G.First - 2].Text))))
      Groups.push_back(G);
    I = Next;
  }
}

// "A^T", "A transposed", "transposed B", "with A and B transposed",
// "transA": which GEMM operands are transposed.
void Parser::findTransposedOperands() {
  auto Operand = [&](size_t I) -> char {
    const Token *T = tok(I);
    if (!T || T->K != TK::Word || T->Used || T->Spelling.size() != 1)
      return 0;
    char C = T->Spelling[0];
    if (C == 'A' || C == 'B' || C == 'b')
      return toLower(C);
    if (C != 'a')
      return 0;
    // The article "a" ("transpose a 4096x4096 matrix") is no operand.
    const Token *N = tok(I + 1);
    return !N || (N->K == TK::Sym && N->Text != "x") || N->Text == "and" || N->Text == "with" ||
                   N->Text == "transposed" || N->Text == "^"
               ? 'a'
               : 0;
  };
  auto IsTransWord = [&](size_t I) {
    const Token *T = tok(I);
    return T && !T->Used && (T->Text == "transposed" || T->Text == "transpose");
  };
  auto Mark = [&](char Which, std::initializer_list<size_t> Used) {
    for (size_t U : Used)
      Toks[U].Used = true;
    TransMarks.push_back({Which, Which == 'a' ? "A" : "B"});
  };
  for (size_t I = 0; I < Toks.size(); ++I) {
    const Token &T = Toks[I];
    if (T.K == TK::Word && (T.Text == "transa" || T.Text == "trans_a")) {
      Mark('a', {I});
      continue;
    }
    if (T.K == TK::Word && (T.Text == "transb" || T.Text == "trans_b")) {
      Mark('b', {I});
      continue;
    }
    char L = Operand(I);
    if (!L)
      continue;
    if (tok(I + 2) && Toks[I + 1].Text == "^" && Toks[I + 2].Text == "t") {
      Mark(L, {I, I + 1, I + 2});
    } else if (IsTransWord(I + 1)) {
      Mark(L, {I, I + 1});
    } else if (wordAt(I + 1) == "and" && Operand(I + 2) && IsTransWord(I + 3)) {
      char L2 = Operand(I + 2);
      Mark(L, {I, I + 1});
      Mark(L2, {I + 2, I + 3});
    } else if (I > 0 && IsTransWord(I - 1)) {
      Mark(L, {I - 1, I});
    }
  }
}

void Parser::matchPhrases() {
  for (size_t I = 0; I < Toks.size(); ++I) {
    const Token &T = Toks[I];
    if (T.Used)
      continue;
    if (T.K == TK::Sym) {
      // A lone + or * names the operator ("reduce with +").
      if (T.Text == "+" || T.Text == "*")
        Facts.push_back({&phrases().find(T.Text)->second, I, I, T.Spelling});
      continue;
    }
    if (T.K != TK::Word)
      continue;
    // The longest phrase of consecutive unused words.
    bool Matched = false;
    for (size_t Len = 3; Len >= 2 && !Matched; --Len) {
      if (I + Len > Toks.size())
        continue;
      std::string Key;
      bool Ok = true;
      for (size_t J = I; J < I + Len; ++J) {
        Ok &= Toks[J].K == TK::Word && !Toks[J].Used;
        Key += (J == I ? "" : " ") + Toks[J].Text;
      }
      if (!Ok)
        continue;
      const Phrase *P = nullptr;
      if (auto It = phrases().find(Key); It != phrases().end())
        P = &It->second;
      else if (Key.back() == 's' && phrases().count(StringRef(Key).drop_back()))
        P = &phrases().find(StringRef(Key).drop_back())->second;
      if (!P)
        continue;
      Facts.push_back({P, I, I + Len - 1, Text.slice(T.Begin, Toks[I + Len - 1].End).str()});
      I += Len - 1;
      Matched = true;
    }
    if (Matched)
      continue;
    // Single letters: the article and the GEMM operands' names.
    if (T.Spelling == "A" || T.Spelling == "B" || T.Spelling == "C" || T.Text == "a")
      continue;
    if (T.Spelling.size() == 1 && T.Text != "i") {
      Unknown.push_back(T.Spelling);
      UnknownTok.push_back(I);
      continue;
    }
    if (const Phrase *P = lookupWord(T.Text)) {
      if (P->Class != W::Filler)
        Facts.push_back({P, I, I, T.Spelling});
      continue;
    }
    Unknown.push_back(T.Spelling);
    UnknownTok.push_back(I);
  }
}

const char *const FilterNouns[] = {
    "filter", "filters",  "stencil",   "blur", "convolution", "conv", "mask",    "window",
    "box",    "gaussian", "footprint", "tap",  "taps",        "mean", "average", "averaging"};
const char *const BinNouns[] = {"bin", "bins", "bucket", "buckets"};
const char *const InputNouns[] = {"vector", "vectors", "array",    "arrays", "input",
                                  "inputs", "operand", "operands", "buffer", "buffers",
                                  "list",   "lists",   "tensors"};
const char *const BatchNouns[] = {"matrices",   "gemm",     "gemms",     "sgemm",
                                  "sgemms",     "dgemm",    "dgemms",    "hgemm",
                                  "hgemms",     "problems", "products",  "multiplications",
                                  "multiplies", "batches",  "instances", "matmuls"};

Error Parser::assignRoles() {
  for (Group &G : Groups) {
    if (!G.Name.empty()) {
      G.R = StringSwitch<Role>(G.Name)
                .Case("m", Role::M)
                .Case("n", Kind == OpKind::Gemm ? Role::N : Role::Size)
                .Case("k", Role::K)
                .Case("alpha", Role::Factor)
                .Case("rows", Role::Rows)
                .Cases({"cols", "columns"}, Role::Cols)
                .Case("batch", Role::Batch)
                .Case("bins", Role::Bins)
                .Case("radius", Role::Radius)
                .Default(Role::Size);
      if ((G.R == Role::M || G.R == Role::K) && Kind && Kind != OpKind::Gemm)
        return refuse(formatv("'{0}' names a GEMM's extent", G.Spelling),
                      "say the size without M or K, for example: \"" + kindExample(*Kind) + "\"");
      continue;
    }
    StringRef Next = wordAfter(G), Prev = wordBefore(G), Prev2 = wordBefore(G, 2);
    bool One = G.Extents.size() == 1;
    if (Next == "bit" || Next == "bits")
      G.R = Role::Width;
    else if (Next == "point" || Next == "points" || Next == "pt")
      G.R = Role::Points;
    else if (is_contained(FilterNouns, Next) || (Next == "kernel" && Kind == OpKind::Stencil))
      G.R = Role::Filter;
    else if (is_contained(BinNouns, Next))
      G.R = Role::Bins;
    else if (Next == "row" || Next == "rows")
      G.R = Role::Rows;
    else if (Next == "column" || Next == "columns" || Next == "col" || Next == "cols")
      G.R = Role::Cols;
    else if (One && G.Integral && G.Extents[0] <= 4 && G.Extents[0] >= 1 &&
             is_contained(InputNouns, Next))
      G.R = Role::Inputs;
    else if (One && Kind == OpKind::Gemm && is_contained(BatchNouns, Next) && Groups.size() > 1)
      G.R = Role::Batch;
    else if (Prev == "radius")
      G.R = Role::Radius;
    else if (Prev == "batch" || Prev == "batches" ||
             ((Prev == "of" || Prev == "size" || Prev == "count") &&
              (Prev2 == "batch" || Prev2 == "batches")))
      G.R = Role::Batch;
    else if (Prev == "alpha" || (Prev == "by" && Kind == OpKind::Map))
      G.R = Role::Factor;
    else if ((Prev == "size" || Prev == "width") &&
             (is_contained(FilterNouns, Prev2) || Prev2 == "kernel" ||
              (Prev2 == "of" && is_contained(FilterNouns, wordBefore(G, 3)))))
      G.R = Role::Filter;
    else
      G.R = Role::Size;
  }
  return Error::success();
}

/// What the operation is, from the facts.
Error Parser::resolveKind() {
  auto Name = [](OpKind K) -> std::string {
    switch (K) {
    case OpKind::Gemm:
      return "a GEMM";
    case OpKind::RowSoftmax:
      return "a row softmax";
    case OpKind::Reduce:
      return "a reduction";
    case OpKind::Map:
      return "an elementwise map";
    default:
      return "a " + opKindName(K).str();
    }
  };
  // The specific operations, each with the first word that said it.
  std::vector<std::pair<OpKind, std::string>> Specific;
  auto AddKind = [&](OpKind K, StringRef Said) {
    for (auto &[Have, S] : Specific)
      if (Have == K)
        return;
    Specific.push_back({K, Said.str()});
  };
  std::optional<std::string> ReduceWord, MapWord;
  for (const Fact &F : Facts) {
    if (!F.P->Kind)
      continue;
    if (*F.P->Kind == OpKind::Reduce)
      ReduceWord = F.Spelling;
    else if (*F.P->Kind == OpKind::Map)
      MapWord = F.Spelling;
    else
      AddKind(*F.P->Kind, F.Spelling);
  }
  std::vector<const Fact *> Ops = facts(W::Op);
  bool ByFactor = any_of(Groups, [&](const Group &G) {
    return G.Name.empty() && wordBefore(G) == "by" && G.Extents.size() <= 1;
  });
  std::vector<const Fact *> MatrixWords = facts(W::Matrices);
  bool Matrices = MatrixWords.size() >= 2 || any_of(MatrixWords, [](const Fact *F) {
                    return StringRef(F->Spelling).ends_with("ces");
                  });
  // "multiply two 1024x1024 matrices": a GEMM.
  if (Specific.empty() && Matrices && !ByFactor && !Ops.empty() &&
      all_of(Ops, [](const Fact *F) { return StringRef(F->P->Str) == "*"; }))
    AddKind(OpKind::Gemm, Ops.front()->Spelling);
  bool Gemm = any_of(Specific, [](auto &P) { return P.first == OpKind::Gemm; });
  if (!TransMarks.empty() && !Gemm)
    AddKind(OpKind::Transpose, "transpose");
  for (const Fact *F : facts(W::Unsupported)) {
    auto [Why, Remedy] = StringRef(F->P->Str).split('|');
    return refuse(formatv("'{0}': {1}", F->Spelling, Why),
                  Remedy.empty() ? StringRef("ask for another operation") : Remedy);
  }
  if (Specific.size() > 1)
    return refuse(formatv("two operations, {0} ('{1}') and {2} ('{3}')", Name(Specific[0].first),
                          Specific[0].second, Name(Specific[1].first), Specific[1].second),
                  "ask for one");

  // Evidence of an elementwise map.
  int Inputs = 0;
  for (const Fact *F : facts(W::Count))
    if (is_contained(InputNouns, wordAt(F->Tok + 1)))
      Inputs = F->P->Num;
  for (Group *G : groups(Role::Inputs))
    Inputs = static_cast<int>(G->Extents[0]);
  std::vector<const Fact *> Unary = facts(W::Unary);
  bool Axpy = has(W::Axpy), Scale = has(W::Scale), Elementwise = has(W::Elementwise);
  bool MulBy = ByFactor && !Ops.empty() &&
               all_of(Ops, [](const Fact *F) { return StringRef(F->P->Str) == "*"; });
  std::optional<std::string> MapSaid;
  if (!Exprs.empty())
    MapSaid = Text.slice(Toks[Exprs[0].First].Begin, Toks[Exprs[0].Last].End).str();
  else if (Axpy)
    MapSaid = facts(W::Axpy)[0]->Spelling;
  else if (!Unary.empty())
    MapSaid = Unary[0]->Spelling;
  else if (Scale)
    MapSaid = facts(W::Scale)[0]->Spelling;
  else if (MulBy)
    MapSaid = Ops[0]->Spelling;
  else if (MapWord)
    MapSaid = MapWord;
  else if (!Ops.empty() && (Elementwise || Inputs >= 2))
    MapSaid = Ops[0]->Spelling;

  if (Specific.size() == 1) {
    auto [K, Said] = Specific[0];
    if (MapSaid && !(K == OpKind::Gemm && Ops.size() && !Exprs.empty()))
      return refuse(formatv("two operations, {0} ('{1}') and an elementwise map ('{2}')", Name(K),
                            Said, *MapSaid),
                    "ask for one");
    if (ReduceWord)
      return refuse(formatv("two operations, {0} ('{1}') and a reduction ('{2}')", Name(K), Said,
                            *ReduceWord),
                    "ask for one");
    if (K != OpKind::Scan)
      for (const Fact *F : Ops) {
        StringRef O = F->P->Str;
        if (K == OpKind::Gemm && (O == "*" || O == "+"))
          continue;
        return refuse(formatv("two operations, {0} ('{1}') and a reduction ('{2}')", Name(K), Said,
                              F->Spelling),
                      "ask for one");
      }
    Kind = K;
  } else if (MapSaid) {
    if (ReduceWord)
      return refuse(formatv("two operations, a reduction ('{0}') and an elementwise map "
                            "('{1}')",
                            *ReduceWord, *MapSaid),
                    "ask for one");
    Kind = OpKind::Map;
  } else if (!Ops.empty() || ReduceWord) {
    Kind = OpKind::Reduce;
  } else if (Elementwise) {
    return refuse("cannot tell the function to apply to each element",
                  "say it, for example: \"square root of each element of 1M floats\", "
                  "\"add two vectors of 1M floats\", \"y = 2.5 * x + y over 1M floats\"");
  }
  if (!Kind) {
    std::vector<std::string> Ex;
    for (StringRef E : GeneralExamples)
      Ex.push_back("\"" + E.str() + "\"");
    return refuse("cannot tell the operation",
                  "say what to compute, for example: " + join(Ex, ", "));
  }

  // The operator of a reduction or scan; the expression of a map.
  if (Kind == OpKind::Reduce || Kind == OpKind::Scan) {
    std::string Op;
    std::string OpSaid;
    bool Index = has(W::Index);
    for (const Fact *F : Ops) {
      std::string O = F->P->Str;
      if (Index && (O == "max" || O == "min"))
        O = "arg" + O;
      if (!Op.empty() && O != Op)
        return conflict("operators", OpSaid, F->Spelling, "say one");
      Op = O;
      OpSaid = F->Spelling;
    }
    if (Op.empty()) {
      Op = "+";
      Notes.push_back(formatv("no operator given: {0} with +", Name(*Kind)));
    }
    if (Op == "-" || Op == "/")
      return refuse(
          formatv("{0} combines with +, *, max or min, not '{1}' ('{2}')", Name(*Kind), Op, OpSaid),
          "to " + OpSaid + " two vectors say \"" + OpSaid + " two vectors of 1M floats\"");
    if (Kind == OpKind::Scan && StringRef(Op).starts_with("arg"))
      return refuse(formatv("a scan combines with +, *, max or min, not '{0}'", Op),
                    "ask for a reduction: \"index of the largest of 16M floats\"");
    Out.Req.Operator = Op;
    OpText = Kind == OpKind::Reduce ? formatv("a reduction ({0})", Op).str()
                                    : formatv("a scan ({0})", Op).str();
  } else {
    OpText = Name(*Kind);
  }
  if (!Unknown.empty())
    return refuse(formatv("cannot read {0}", joinQuoted(Unknown)),
                  "leave it out or say it another way, for example: \"" + kindExample(*Kind) +
                      "\"");
  MapInputs = Inputs;
  return Error::success();
}

/// The element type (and a sort's value type) from the type words, with
/// "unsigned" and "32-bit" applied to the word they qualify.
Error Parser::resolveType() {
  struct TypeWord {
    Scalar S;
    size_t Tok, Last;
    std::string Said;
    bool Unsigned = false;
    size_t Begin = Tok; ///< the first token of Said
  };
  std::vector<TypeWord> Ts;
  for (const Fact &F : Facts) {
    if (F.P->Class == W::Unsigned)
      Ts.push_back({Scalar::U32, F.Tok, F.Last, F.Spelling, true, F.Tok});
    else if (F.P->Type)
      Ts.push_back({*F.P->Type, F.Tok, F.Last, F.Spelling, false, F.Tok});
  }
  llvm::sort(Ts, [](const TypeWord &A, const TypeWord &B) { return A.Tok < B.Tok; });
  // "unsigned 32-bit integers", "unsigned long": the next integer word.
  for (size_t I = 0; I + 1 < Ts.size(); ++I)
    if (Ts[I].Unsigned && Ts[I + 1].Tok <= Ts[I].Last + 4 && isIntegerFamily(Ts[I + 1].S)) {
      Ts[I + 1].S = unsignedOf(Ts[I + 1].S);
      Ts[I + 1].Begin = Ts[I].Begin;
      Ts[I + 1].Said = Text.slice(Toks[Ts[I].Begin].Begin, Toks[Ts[I + 1].Last].End).str();
      Ts.erase(Ts.begin() + I);
    }
  for (Group *G : groups(Role::Width)) {
    auto It =
        find_if(Ts, [&](const TypeWord &T) { return T.Tok > G->Last && T.Tok <= G->Last + 4; });
    if (It == Ts.end())
      return refuse(formatv("'{0}-bit' without a type", G->Spelling),
                    "say \"32-bit floats\" or \"unsigned 8-bit integers\"");
    std::optional<Scalar> S =
        G->Extents.size() == 1 ? withWidth(It->S, G->Extents[0]) : std::nullopt;
    if (!S)
      return refuse(formatv("no {0}-bit '{1}'", G->Spelling, It->Said),
                    "say 8, 16, 32 or 64 bits for integers, 16, 32 or 64 for floats");
    It->S = *S;
    It->Begin = std::min(G->First, It->Begin);
    It->Said = Text.slice(Toks[It->Begin].Begin, Toks[It->Last].End).str();
  }
  // Which words name the keys' and which the values' type.
  std::optional<TypeWord> Elem, Val;
  for (const TypeWord &T : Ts) {
    StringRef Next = wordAt(T.Last + 1);
    bool IsValue = Kind == OpKind::Sort && (Next == "value" || Next == "values");
    std::optional<TypeWord> &Slot = IsValue ? Val : Elem;
    if (Slot && Slot->S != T.S)
      return conflict(IsValue ? "value types" : "element types", Slot->Said, T.Said,
                      Kind == OpKind::Sort
                          ? "say one for the keys and one for the values, for example: "
                            "\"sort 16M uint32 keys with float values\""
                          : "say one");
    if (!Slot)
      Slot = T;
  }
  if (Elem) {
    Type = Elem->S;
  } else {
    Type = Scalar::F32;
    Notes.push_back("no element type given: f32");
  }
  if (Kind == OpKind::Sort && (Val || has(W::Pairs) || (has(W::Keys) && has(W::Values)))) {
    Out.Req.ValueType = Val ? Val->S : *Type;
    if (!Val)
      Notes.push_back(formatv("no value type given: the keys' ({0})", scalarInfo(*Type).Dtype));
  }
  return Error::success();
}

Error Parser::resolveShape() {
  Request &R = Out.Req;
  StringRef KindName = OpText;
  for (Group &G : Groups) {
    if (G.Overflow)
      return refuse(formatv("'{0}' overflows a 64-bit size", G.Spelling),
                    "sizes go up to 2^63 - 1");
    if (G.R == Role::Factor)
      continue;
    if (!G.Integral)
      return refuse(formatv("'{0}' is not a whole number", G.Spelling), "say a count of elements");
    for (int64_t E : G.Extents)
      if (E <= 0)
        return refuse(formatv("a size of 0 ('{0}')", G.Spelling), "sizes must be positive");
    bool Over = false;
    G.product(Over);
    if (Over)
      return refuse(formatv("'{0}' has more than 2^63 - 1 elements", G.Spelling), "ask for fewer");
  }
  // Roles that belong to one operation only.
  auto Only = [&](Role Ro, OpKind K, StringRef What) -> Error {
    if (Kind != K && !groups(Ro).empty())
      return refuse(
          formatv("{0} ('{1}') does not go with {2}", What, groups(Ro)[0]->Spelling, KindName),
          "leave it out");
    return Error::success();
  };
  for (auto [Ro, K, What] : {std::tuple{Role::Filter, OpKind::Stencil, "a filter"},
                             std::tuple{Role::Radius, OpKind::Stencil, "a radius"},
                             std::tuple{Role::Points, OpKind::Stencil, "a point count"},
                             std::tuple{Role::Bins, OpKind::Histogram, "a bin count"},
                             std::tuple{Role::Batch, OpKind::Gemm, "a batch"},
                             std::tuple{Role::Factor, OpKind::Map, "a factor"},
                             std::tuple{Role::Inputs, OpKind::Map, "an input count"}})
    if (Error E = Only(Ro, K, What))
      return E;

  std::vector<Group *> Sizes;
  for (Group *G : groups(Role::Size))
    if (none_of(Sizes, [&](Group *S) { return S->Extents == G->Extents; }))
      Sizes.push_back(G);
  auto NoSize = [&] {
    return refuse("cannot tell the size",
                  "say how many elements, for example: \"" + kindExample(*Kind) + "\"");
  };

  if (Kind == OpKind::Gemm) {
    std::vector<Group *> Named[3] = {groups(Role::M), groups(Role::N), groups(Role::K)};
    if (!Named[0].empty() || !Named[1].empty() || !Named[2].empty()) {
      for (int I = 0; I < 3; ++I) {
        if (Named[I].empty())
          return refuse(formatv("no {0} beside the others", "MNK"[I]),
                        "say all three: \"M=1024 N=512 K=256\"");
        for (Group *G : Named[I])
          if (G->Extents.size() != 1 || G->Extents != Named[I][0]->Extents)
            return conflict("sizes", Named[I][0]->Spelling, G->Spelling, "say one");
        R.Shape.push_back(Named[I][0]->Extents[0]);
      }
      if (!Sizes.empty())
        return conflict("sizes", Named[0][0]->Spelling, Sizes[0]->Spelling, "say M, N and K once");
    } else if (Sizes.size() == 2 && Sizes[0]->Extents.size() == 2 &&
               Sizes[1]->Extents.size() == 2) {
      // A (M x K) times B (K x N).
      if (Sizes[0]->Extents[1] != Sizes[1]->Extents[0])
        return refuse(formatv("'{0}' times '{1}': the inner extents differ", Sizes[0]->Spelling,
                              Sizes[1]->Spelling),
                      "say A's M x K and B's K x N");
      R.Shape = {Sizes[0]->Extents[0], Sizes[1]->Extents[1], Sizes[0]->Extents[1]};
    } else if (Sizes.size() > 1) {
      return conflict("sizes", Sizes[0]->Spelling, Sizes[1]->Spelling,
                      "say M, N and K once: \"M=1024 N=512 K=256\" or \"1024x512x256\"");
    } else if (Sizes.empty()) {
      return NoSize();
    } else {
      const std::vector<int64_t> &E = Sizes[0]->Extents;
      if (E.size() == 3) {
        R.Shape = E;
      } else if (E.size() == 1 || (E.size() == 2 && E[0] == E[1])) {
        R.Shape = {E[0], E[0], E[0]};
        Notes.push_back(
            formatv("'{0}': square matrices, M = N = K = {1}", Sizes[0]->Spelling, E[0]));
      } else {
        return refuse(formatv("cannot tell M, N and K from '{0}'", Sizes[0]->Spelling),
                      "say \"M=1024 N=512 K=256\" or \"1024x512x256\" (M x N x K)");
      }
    }
    Expected<Group *> B = single(Role::Batch, "batch counts");
    if (!B)
      return B.takeError();
    if (*B && (*B)->Extents.size() != 1)
      return refuse(formatv("a batch of '{0}'", (*B)->Spelling), "say one count");
    if (*B)
      R.Batch = (*B)->Extents[0];
    if (!*B && has(W::Batched))
      return refuse("a batched GEMM without a count",
                    "say how many: \"batched SGEMM, 256 matrices of 256x256\"");
    return Error::success();
  }

  // Rows and columns, or one group of extents.
  Expected<Group *> Rows = single(Role::Rows, "row counts");
  if (!Rows)
    return Rows.takeError();
  Expected<Group *> Cols = single(Role::Cols, "column counts");
  if (!Cols)
    return Cols.takeError();
  std::vector<int64_t> Ext;
  if (*Rows || *Cols) {
    int64_t NR = *Rows ? (*Rows)->Extents[0] : 0, NC = *Cols ? (*Cols)->Extents[0] : 0;
    for (Group *G : {*Rows, *Cols})
      if (G && G->Extents.size() != 1)
        return refuse(formatv("'{0}' rows or columns", G->Spelling), "say one count each");
    if (Sizes.size() == 1 && Sizes[0]->Extents.size() == 1 && (!NR || !NC)) {
      (NR ? NC : NR) = Sizes[0]->Extents[0];
      Sizes.clear();
    }
    if (!Sizes.empty())
      return conflict("sizes", (*Rows ? *Rows : *Cols)->Spelling, Sizes[0]->Spelling,
                      "say rows x columns once");
    if (!NR || !NC)
      return refuse(NR ? "cannot tell the columns" : "cannot tell the rows",
                    "say both: \"8192 rows of 1024 columns\" or \"8192x1024\"");
    Ext = {NR, NC};
  } else {
    if (Sizes.size() > 1)
      return conflict("sizes", Sizes[0]->Spelling, Sizes[1]->Spelling, "say one");
    if (Sizes.empty())
      return NoSize();
    Ext = Sizes[0]->Extents;
  }

  switch (*Kind) {
  case OpKind::Transpose:
  case OpKind::RowSoftmax:
    if (Ext.size() != 2)
      return refuse(formatv("{0} takes rows x columns, not {1} extent{2}", KindName, Ext.size(),
                            Ext.size() == 1 ? "" : "s"),
                    "say \"" + kindExample(*Kind) + "\"");
    R.Shape = Ext;
    return Error::success();
  case OpKind::Stencil:
    R.Shape = Ext;
    return Error::success();
  default:
    if (Ext.size() > 1) {
      bool Over = false;
      int64_t N = 1;
      for (int64_t E : Ext)
        Over |= !mulChecked(N, E, N);
      if (Over) {
        std::vector<std::string> Parts;
        for (int64_t E : Ext)
          Parts.push_back(std::to_string(E));
        return refuse(formatv("{0} has more than 2^63 - 1 elements", join(Parts, " x ")),
                      "ask for fewer");
      }
      Notes.push_back(formatv("{0} is over every element: {1} elements", KindName, N));
      Ext = {N};
    }
    R.Shape = Ext;
    return Error::success();
  }
}

/// A stencil's filter: from "5x5 filter", "radius 3" or "7-point".
Error Parser::resolveFilter() {
  Request &R = Out.Req;
  int Rank = 0;
  std::string RankSaid;
  for (const Fact *F : facts(W::Rank)) {
    if (Rank && Rank != F->P->Num)
      return conflict("dimensions", RankSaid, F->Spelling, "say one");
    Rank = F->P->Num;
    RankSaid = F->Spelling;
  }
  std::string Input = join(map_range(R.Shape, [](int64_t E) { return std::to_string(E); }), "x");
  if (Rank && static_cast<int>(R.Shape.size()) != Rank)
    return refuse(formatv("a {0} stencil over a {1} input", RankSaid, Input),
                  Rank == 1   ? "say the count: \"over 16M floats\""
                  : Rank == 2 ? "say the height x width: \"on a 4096x4096 input\""
                              : "say depth x height x width: \"on a 256^3 grid\"");
  int D = static_cast<int>(R.Shape.size());
  if (D > 3)
    return refuse(formatv("a stencil over {0} dimensions", D), "say 1, 2 or 3 extents");
  // Each way of saying the filter gives one; they must agree.
  std::vector<std::pair<std::vector<int64_t>, std::string>> Filters;
  for (Group *G : groups(Role::Filter)) {
    std::vector<int64_t> F = G->Extents;
    if (F.size() == 1 && D > 1) {
      F.assign(D, F[0]);
      Notes.push_back(
          formatv("'{0}' on a {1}D input: {2} on every axis", G->Spelling, D, G->Spelling));
    } else if (static_cast<int>(F.size()) != D) {
      return refuse(formatv("a {0} filter on a {1} input", G->Spelling, Input),
                    "give the filter one extent per axis of the input");
    }
    Filters.push_back({F, G->Spelling + " filter"});
  }
  for (Group *G : groups(Role::Radius)) {
    if (G->Extents.size() != 1)
      return refuse(formatv("a radius of '{0}'", G->Spelling), "say one radius");
    Filters.push_back({std::vector<int64_t>(D, 2 * G->Extents[0] + 1), "radius " + G->Spelling});
  }
  for (Group *G : groups(Role::Points)) {
    int64_t P = G->Extents.size() == 1 ? G->Extents[0] : 0;
    std::optional<int64_t> Box, Star;
    for (int64_t Rad = 1, W = 3; W <= P; ++Rad, W += 2) {
      int64_t Pow = 1;
      for (int I = 0; I < D && Pow <= P; ++I)
        Pow *= W;
      if (Pow == P)
        Box = W;
      if (2 * Rad * D + 1 == P)
        Star = W;
    }
    if (Box) {
      Filters.push_back({std::vector<int64_t>(D, *Box), G->Spelling + "-point"});
    } else if (Star) {
      Filters.push_back({std::vector<int64_t>(D, *Star), G->Spelling + "-point"});
      std::string Ext = join(std::vector<std::string>(D, std::to_string(*Star)), "x");
      Notes.push_back(formatv(
          "a {0}-point stencil in {1}D reads the centre and its neighbours along the axes; "
          "it is computed as a {2} filter (Filter {{{3}}) whose off-axis weights must be zero",
          P, D, Ext, join(std::vector<std::string>(D, std::to_string(*Star)), ", ")));
    } else {
      return refuse(formatv("a {0}-point stencil in {1}D is neither a box ((2r + 1)^{1} "
                            "points) nor a star (2r * {1} + 1 points)",
                            G->Spelling, D),
                    "say the filter's extents: \"3x3 filter\"");
    }
  }
  if (Filters.empty())
    return refuse("cannot tell the filter",
                  "say it: \"with a 5x5 filter\", \"of radius 3\" or \"7-point\"");
  for (auto &[F, Said] : Filters)
    if (F != Filters[0].first)
      return conflict("filters", Filters[0].second, Said, "say one");
  std::string FS =
      join(map_range(Filters[0].first, [](int64_t E) { return std::to_string(E); }), "x");
  for (size_t I = 0; I < Filters[0].first.size(); ++I) {
    int64_t E = Filters[0].first[I];
    if (E % 2 == 0)
      return refuse(formatv("a {0} filter: a stencil needs an odd extent on every axis "
                            "(2r + 1 points for radius r)",
                            FS),
                    "say 3x3 or 5x5, for example");
    if (E > R.Shape[I])
      return refuse(formatv("the {0} filter is larger than the {1} input", FS, Input),
                    "use a smaller filter or a larger input");
    R.Filter.push_back(static_cast<int>(E));
  }
  return Error::success();
}

/// A map's expression: written out, an axpy, a function, a scale or an
/// operator over the inputs.
Error Parser::resolveMap() {
  Request &R = Out.Req;
  Scalar T = *Type;
  StringRef TN = scalarInfo(T).Dtype;
  std::vector<const Fact *> Ops = facts(W::Op), Unary = facts(W::Unary);
  Expected<Group *> Factor = single(Role::Factor, "factors");
  if (!Factor)
    return Factor.takeError();
  auto Lit = [&](double V, StringRef Said) -> Expected<std::string> {
    if (std::optional<std::string> L = literal(V, T))
      return *L;
    return refuse(formatv("'{0}' is not a whole number and the elements are {1}", Said, TN),
                  "say a floating-point type or a whole number");
  };
  if (Exprs.size() > 1)
    return refuse("two expressions", "write one");
  if (!Exprs.empty()) {
    std::string S, Vars;
    bool Operand = false; // the previous token ends an operand
    for (size_t I : Exprs[0].Toks) {
      const Token &Tk = Toks[I];
      if (Tk.K == TK::Number) {
        Expected<std::string> L = Lit(Tk.Real, Tk.Spelling);
        if (!L)
          return L.takeError();
        S += (Operand ? " * " : "") + *L;
        Operand = true;
      } else if (Tk.K == TK::Word && isExprFunction(Tk.Text) && tok(I + 1) &&
                 Toks[I + 1].Text == "(") {
        std::optional<std::string> F = exprFunction(Tk.Text, T);
        if (!F)
          return refuse(formatv("'{0}' of {1} elements", Tk.Spelling, TN),
                        "say a floating-point type");
        S += (Operand ? " * " : "") + *F;
        Operand = false;
      } else if (Tk.K == TK::Word) {
        size_t At = Vars.find(Tk.Text[0]);
        if (At == std::string::npos) {
          if (Vars.size() == 4)
            return refuse("an expression over more than four inputs", "use at most four");
          Vars += Tk.Text[0];
          At = Vars.size() - 1;
        }
        S += (Operand ? " * " : "") + std::string(1, "abcd"[At]);
        Operand = true;
      } else if (Tk.Text == "(") {
        S += Operand ? " * (" : "(";
        Operand = false;
      } else if (Tk.Text == ")") {
        S += ")";
        Operand = true;
      } else if (Tk.Text == ",") {
        S += ", ";
        Operand = false;
      } else if (Tk.Text == "-" && !Operand) {
        S += "-";
      } else {
        S += " " + Tk.Text + " ";
        Operand = false;
      }
    }
    R.Operator = S;
    R.Inputs = static_cast<int>(Vars.size());
    return Error::success();
  }
  if (has(W::Axpy)) {
    double Alpha = 2.0;
    if (*Factor) {
      Alpha = (*Factor)->Real;
    } else {
      Notes.push_back("no alpha given: y = 2.0 * x + y (say \"y = 2.5 * x + y\" or "
                      "\"alpha = 2.5\" to choose)");
    }
    Expected<std::string> L = Lit(Alpha, *Factor ? StringRef((*Factor)->Spelling) : "2.0");
    if (!L)
      return L.takeError();
    R.Operator = *L + " * a + b";
    R.Inputs = 2;
    return Error::success();
  }
  if (!Unary.empty()) {
    for (const Fact *F : Unary)
      if (StringRef(F->P->Str) != Unary[0]->P->Str)
        return conflict("functions", Unary[0]->Spelling, F->Spelling, "say one");
    if (!Ops.empty())
      return refuse(
          formatv("two operations, '{0}' and '{1}'", Ops[0]->Spelling, Unary[0]->Spelling),
          "ask for one");
    if (*Factor || has(W::Scale))
      return refuse(formatv("two operations, '{0}' and a scale", Unary[0]->Spelling),
                    "ask for one");
    std::optional<std::string> S = unaryText(Unary[0]->P->Str, T);
    if (!S)
      return refuse(formatv("'{0}' of {1} elements", Unary[0]->Spelling, TN),
                    "say a floating-point type");
    R.Operator = *S;
    R.Inputs = 1;
    return Error::success();
  }
  if (*Factor) {
    Expected<std::string> L = Lit((*Factor)->Real, (*Factor)->Spelling);
    if (!L)
      return L.takeError();
    R.Operator = *L + " * a";
    R.Inputs = 1;
    return Error::success();
  }
  if (has(W::Scale))
    return refuse("cannot tell the factor", "say it: \"scale 1M floats by 3\"");
  if (Ops.empty())
    return refuse("cannot tell the function to apply to each element",
                  "say it, for example: \"square root of each element of 1M floats\"");
  std::string Op = Ops[0]->P->Str;
  for (const Fact *F : Ops)
    if (F->P->Str != Op)
      return conflict("operators", Ops[0]->Spelling, F->Spelling, "say one");
  int N = MapInputs ? MapInputs : 2;
  if (N < 2)
    return refuse(formatv("'{0}' of one input", Ops[0]->Spelling), "say two vectors");
  if ((Op == "-" || Op == "/") && N != 2)
    return refuse(formatv("'{0}' of {1} inputs", Ops[0]->Spelling, N), "say two");
  if (Op == "argmax" || Op == "argmin")
    return refuse(formatv("an elementwise '{0}'", Ops[0]->Spelling),
                  "ask for a reduction: \"index of the largest of 16M floats\"");
  std::string S = "a";
  bool Dbl = T == Scalar::F64, Int = !isFloatFamily(T);
  for (int I = 1; I < N; ++I) {
    std::string V(1, "abcd"[I]);
    if (Op == "max" || Op == "min")
      S = (Int ? Op : "f" + Op + (Dbl ? "" : "f")) + "(" + S + ", " + V + ")";
    else
      S += " " + Op + " " + V;
  }
  R.Operator = S;
  R.Inputs = N;
  return Error::success();
}

Error Parser::resolveDetails() {
  Request &R = Out.Req;
  // Words that say something about one operation only.
  struct Applies {
    W C;
    std::initializer_list<OpKind> Kinds;
  };
  static const Applies Table[] = {
      {W::Inclusive, {OpKind::Scan}},
      {W::Exclusive, {OpKind::Scan}},
      {W::Ascending, {OpKind::Sort}},
      {W::Descending, {OpKind::Sort}},
      {W::Pairs, {OpKind::Sort}},
      {W::Batched, {OpKind::Gemm}},
      {W::LowPrec, {OpKind::Gemm}},
      {W::Separable, {OpKind::Stencil}},
      {W::Zero, {OpKind::Stencil}},
      {W::Clamp, {OpKind::Stencil}},
      {W::Rank, {OpKind::Stencil}},
      {W::Elementwise, {OpKind::Map}},
      {W::Index, {OpKind::Reduce, OpKind::Gather, OpKind::Scatter}},
  };
  for (const Applies &A : Table)
    for (const Fact *F : facts(A.C))
      if (!is_contained(A.Kinds, *Kind))
        return refuse(formatv("'{0}' does not apply to {1}", F->Spelling, OpText), "leave it out");
  if (!TransMarks.empty() && Kind != OpKind::Gemm && Kind != OpKind::Transpose)
    return refuse(formatv("'{0} transposed' does not apply to {1}", TransMarks[0].second, OpText),
                  "leave it out");
  auto Either = [&](W A, W B, StringRef What, bool &Flag, bool IfA, bool Default,
                    StringRef DefaultNote) -> Error {
    std::vector<const Fact *> FA = facts(A), FB = facts(B);
    if (!FA.empty() && !FB.empty())
      return conflict(What, FA[0]->Spelling, FB[0]->Spelling, "say one");
    if (FA.empty() && FB.empty()) {
      Flag = Default;
      Notes.push_back(DefaultNote.str());
    } else {
      Flag = FA.empty() ? !IfA : IfA;
    }
    return Error::success();
  };
  switch (*Kind) {
  case OpKind::Scan:
    return Either(W::Inclusive, W::Exclusive, "scan orders", R.Inclusive, true, true,
                  "neither inclusive nor exclusive said: inclusive");
  case OpKind::Sort: {
    bool Desc = false;
    std::vector<const Fact *> FA = facts(W::Ascending), FD = facts(W::Descending);
    if (!FA.empty() && !FD.empty())
      return conflict("orders", FA[0]->Spelling, FD[0]->Spelling, "say one");
    Desc = !FD.empty();
    R.Descending = Desc;
    std::vector<const Fact *> Rx = facts(W::Radix), Mg = facts(W::Merge);
    if (!Rx.empty() && !Mg.empty())
      return conflict("algorithms", Rx[0]->Spelling, Mg[0]->Spelling, "say one");
    R.Algorithm = !Rx.empty() ? "radix" : !Mg.empty() ? "merge" : "";
    return Error::success();
  }
  case OpKind::Stencil: {
    if (Error E = resolveFilter())
      return E;
    R.Separable = has(W::Separable);
    bool Zero = false;
    if (Error E = Either(W::Zero, W::Clamp, "borders", Zero, true, false,
                         "no border said: points outside the input read the nearest edge "
                         "(clamp)"))
      return E;
    R.Border = Zero ? "zero" : "clamp";
    return Error::success();
  }
  case OpKind::Gemm:
    for (auto &[Which, Said] : TransMarks)
      (Which == 'a' ? R.TransA : R.TransB) = true;
    R.AllowLowerPrecision = has(W::LowPrec);
    return Error::success();
  case OpKind::Histogram: {
    Expected<Group *> B = single(Role::Bins, "bin counts");
    if (!B)
      return B.takeError();
    if (!*B) {
      Notes.push_back("no bin count given: 256 bins");
      return Error::success();
    }
    if ((*B)->Extents.size() != 1 || (*B)->Extents[0] > std::numeric_limits<int>::max())
      return refuse(formatv("'{0}' bins", (*B)->Spelling), "say a count up to 2^31 - 1");
    R.Bins = static_cast<int>((*B)->Extents[0]);
    return Error::success();
  }
  case OpKind::RowSoftmax:
    for (const Fact *F : facts(W::Cols))
      if (none_of(Groups, [&](const Group &G) { return G.Last + 1 == F->Tok; }))
        return refuse(formatv("a softmax over columns ('{0}')", F->Spelling),
                      "the template normalises every row: transpose first, or say \"row "
                      "softmax\"");
    return Error::success();
  case OpKind::Map:
    return resolveMap();
  default:
    return Error::success();
  }
}

Expected<ParsedDescription> Parser::run() {
  Toks = lex(Text);
  findExpressions();
  findNamedValues();
  findGroups();
  findTransposedOperands();
  matchPhrases();
  if (Error E = assignRoles())
    return std::move(E);
  // "64M quaternions": a word that should have been an element type.
  for (size_t I = 0; I < UnknownTok.size(); ++I)
    for (const Group &G : Groups)
      if (G.Last + 1 == UnknownTok[I] && G.R == Role::Size)
        return refuse(formatv("unknown element type '{0}'", Unknown[I]),
                      "say one of: float, double, half, bf16, int, unsigned, int64, uint64, "
                      "int16, uint16, int8, uint8 (bytes)");
  if (Error E = resolveKind())
    return std::move(E);
  if (Error E = assignRoles())
    return std::move(E);
  if (Error E = resolveType())
    return std::move(E);
  if (Error E = resolveShape())
    return std::move(E);
  if (Error E = resolveDetails())
    return std::move(E);
  Out.Req.Kind = *Kind;
  Out.Req.Type = *Type;
  Out.Req.Description = Text.str();
  Out.Req.Name.clear();
  Out.Notes = std::move(Notes);
  return std::move(Out);
}

// The words alone, before anything is resolved: what they name.
DescriptionHints Parser::hints() {
  Toks = lex(Text);
  findExpressions();
  findNamedValues();
  findGroups();
  findTransposedOperands();
  matchPhrases();
  DescriptionHints H;
  auto Add = [&](OpKind K) {
    if (!is_contained(H.Kinds, K))
      H.Kinds.push_back(K);
  };
  if (!Exprs.empty())
    Add(OpKind::Map);
  bool OperatorOnly = false; // a reduce named by its operator alone ("sum")
  for (const Fact &F : Facts) {
    if (F.P->Kind == OpKind::Reduce)
      OperatorOnly = false;
    const Phrase &P = *F.P;
    if (P.Type && !H.Type)
      H.Type = P.Type;
    if (P.Kind) {
      Add(*P.Kind);
      continue;
    }
    switch (P.Class) {
    case W::Op:
      // "+", "max", "argmin": a reduction's operators; "-" and "/" only a
      // map's.
      if (StringRef(P.Str) == "-" || StringRef(P.Str) == "/") {
        Add(OpKind::Map);
      } else {
        OperatorOnly |= !is_contained(H.Kinds, OpKind::Reduce);
        Add(OpKind::Reduce);
      }
      break;
    case W::Unary:
    case W::Axpy:
    case W::Scale:
    case W::Elementwise:
      Add(OpKind::Map);
      break;
    case W::Unsupported:
      // Refused operations that are close to one the templates have.
      if (StringRef(P.Str).starts_with("a median"))
        Add(OpKind::Sort);
      else if (StringRef(P.Str).starts_with("a mean") ||
               StringRef(P.Str).starts_with("a dot product") ||
               StringRef(P.Str).starts_with("norms"))
        Add(OpKind::Reduce);
      break;
    default:
      break;
    }
  }
  // A specific operation comes first, and an operator word is its operator
  // ("prefix sum", "max-scan"), not a reduction of its own.
  for (OpKind Specific : {OpKind::Scan, OpKind::Gemm, OpKind::Stencil, OpKind::RowSoftmax,
                          OpKind::Sort, OpKind::Histogram, OpKind::Transpose, OpKind::Gather,
                          OpKind::Scatter})
    if (is_contained(H.Kinds, Specific)) {
      H.Kinds.erase(llvm::find(H.Kinds, Specific));
      H.Kinds.insert(H.Kinds.begin(), Specific);
      if (OperatorOnly)
        H.Kinds.erase(llvm::find(H.Kinds, OpKind::Reduce));
      break;
    }
  H.Unknown = Unknown;
  return H;
}

} // namespace

Expected<ParsedDescription> parseDescriptionWithNotes(StringRef Text) { return Parser(Text).run(); }

DescriptionHints descriptionHints(StringRef Text) { return Parser(Text).hints(); }

Expected<Request> parseDescription(StringRef Text) {
  Expected<ParsedDescription> P = parseDescriptionWithNotes(Text);
  if (!P)
    return P.takeError();
  return std::move(P->Req);
}

ArrayRef<StringRef> descriptionExamples() { return KindExamples; }

} // namespace forge::templates
