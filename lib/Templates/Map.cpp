//===- Templates/Map.cpp - An elementwise map over 1 to 4 inputs ----------===//
///
/// \file
/// The map's expression is user text that ends up in generated CUDA, so it
/// is a security boundary as well as a convenience: it is lexed, checked
/// against a closed vocabulary (the inputs, numbers, operators, parentheses
/// and the math functions of mapFunctions()) and parsed with C's
/// precedence, and the generated code spells it again from the parse.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/Map.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace forge::templates {

ArrayRef<std::pair<StringRef, unsigned>> mapFunctions() {
  static const std::pair<StringRef, unsigned> Table[] = {
      // Single precision.
      {"sqrtf", 1}, {"rsqrtf", 1}, {"cbrtf", 1}, {"rcbrtf", 1}, {"expf", 1}, {"exp2f", 1},
      {"exp10f", 1}, {"expm1f", 1}, {"logf", 1}, {"log2f", 1}, {"log10f", 1}, {"log1pf", 1},
      {"sinf", 1}, {"cosf", 1}, {"tanf", 1}, {"asinf", 1}, {"acosf", 1}, {"atanf", 1},
      {"sinhf", 1}, {"coshf", 1}, {"tanhf", 1}, {"asinhf", 1}, {"acoshf", 1}, {"atanhf", 1},
      {"erff", 1}, {"erfcf", 1}, {"normcdff", 1}, {"fabsf", 1}, {"floorf", 1}, {"ceilf", 1},
      {"truncf", 1}, {"roundf", 1}, {"rintf", 1}, {"atan2f", 2}, {"powf", 2}, {"fminf", 2},
      {"fmaxf", 2}, {"fmodf", 2}, {"hypotf", 2}, {"copysignf", 2}, {"fdimf", 2}, {"fmaf", 3},
      // Fast single-precision intrinsics.
      {"__expf", 1}, {"__logf", 1}, {"__sinf", 1}, {"__cosf", 1}, {"__saturatef", 1},
      {"__fdividef", 2}, {"__powf", 2},
      // Double precision.
      {"sqrt", 1}, {"rsqrt", 1}, {"cbrt", 1}, {"rcbrt", 1}, {"exp", 1}, {"exp2", 1},
      {"exp10", 1}, {"expm1", 1}, {"log", 1}, {"log2", 1}, {"log10", 1}, {"log1p", 1},
      {"sin", 1}, {"cos", 1}, {"tan", 1}, {"asin", 1}, {"acos", 1}, {"atan", 1}, {"sinh", 1},
      {"cosh", 1}, {"tanh", 1}, {"asinh", 1}, {"acosh", 1}, {"atanh", 1}, {"erf", 1},
      {"erfc", 1}, {"normcdf", 1}, {"fabs", 1}, {"floor", 1}, {"ceil", 1}, {"trunc", 1},
      {"round", 1}, {"rint", 1}, {"atan2", 2}, {"pow", 2}, {"fmin", 2}, {"fmax", 2},
      {"fmod", 2}, {"hypot", 2}, {"copysign", 2}, {"fdim", 2}, {"fma", 3},
      // Integer (and CUDA's overloads for float and double).
      {"min", 2}, {"max", 2}, {"abs", 1},
  };
  return Table;
}

namespace {

constexpr StringRef InputNames[] = {"a", "b", "c", "d"};
constexpr size_t MaxLength = 2000;
constexpr unsigned MaxDepth = 64;

struct Token {
  enum KindT { Number, Name, Punct, End } Kind;
  std::string Text;
  size_t Column; ///< 1-based
};

/// What every refusal says about the vocabulary.
constexpr const char *Vocabulary =
    "a map expression holds only its inputs, numeric literals, operators, parentheses and "
    "calls of the allowed math functions";

Error refuse(StringRef Expr, const Twine &Why, size_t Column) {
  return makeError("map expression '{0}': {1} (column {2})", Expr, Why.str(), Column);
}

bool validNumber(StringRef S) {
  static const Regex Decimal("^(0|[1-9][0-9]*)([uU]|[uU][lL]|[uU][lL][lL]|[lL]|[lL][lL]|[lL][uU]|"
                             "[lL][lL][uU])?$");
  static const Regex Hex("^0[xX][0-9a-fA-F]+([uU]|[uU][lL]|[uU][lL][lL]|[lL]|[lL][lL])?$");
  static const Regex Floating(
      "^(([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)[fFlL]?$");
  return Decimal.match(S) || Hex.match(S) || Floating.match(S);
}

Expected<std::vector<Token>> lex(StringRef Expr) {
  std::vector<Token> Out;
  static const StringRef Two[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
  static const StringRef One = "+-*/%<>&|^~!?:(),";
  size_t I = 0;
  while (I < Expr.size()) {
    char C = Expr[I];
    size_t Col = I + 1;
    if (C == ' ' || C == '\t') {
      ++I;
      continue;
    }
    if (isAlpha(C) || C == '_') {
      size_t J = I;
      while (J < Expr.size() && (isAlnum(Expr[J]) || Expr[J] == '_'))
        ++J;
      Out.push_back({Token::Name, Expr.slice(I, J).str(), Col});
      I = J;
      continue;
    }
    if (isDigit(C) || (C == '.' && I + 1 < Expr.size() && isDigit(Expr[I + 1]))) {
      size_t J = I;
      bool IsHex = Expr.substr(I).starts_with_insensitive("0x");
      while (J < Expr.size()) {
        char D = Expr[J];
        if (isAlnum(D) || D == '_' || D == '.')
          ++J;
        else if ((D == '+' || D == '-') && !IsHex && (Expr[J - 1] == 'e' || Expr[J - 1] == 'E'))
          ++J;
        else
          break;
      }
      StringRef N = Expr.slice(I, J);
      if (!validNumber(N))
        return refuse(Expr,
                      "'" + N + "' is not a numeric literal (decimal, hexadecimal or floating, " +
                          "with an optional suffix; no octal)",
                      Col);
      Out.push_back({Token::Number, N.str(), Col});
      I = J;
      continue;
    }
    StringRef Rest = Expr.substr(I);
    if (Rest.starts_with("//") || Rest.starts_with("/*"))
      return refuse(Expr, "comments are not allowed", Col);
    if (Rest.starts_with("++") || Rest.starts_with("--"))
      return refuse(Expr, "'" + Rest.take_front(2) + "' is not allowed (no increments; write "
                    "'a - -b' with a space)", Col);
    if (const StringRef *T = find_if(Two, [&](StringRef T) { return Rest.starts_with(T); });
        T != std::end(Two)) {
      Out.push_back({Token::Punct, T->str(), Col});
      I += 2;
      continue;
    }
    if (C == '=' || (One.contains(C) && Rest.size() > 1 && Rest[1] == '=' && C != '!' &&
                     C != '<' && C != '>'))
      return refuse(Expr, "assignments are not allowed", Col);
    if (One.contains(C)) {
      Out.push_back({Token::Punct, std::string(1, C), Col});
      ++I;
      continue;
    }
    if (C == '"' || C == '\'')
      return refuse(Expr, "string and character literals are not allowed", Col);
    if (C == '\n' || C == '\r' || C == '\v' || C == '\f')
      return refuse(Expr, "a map expression is one line", Col);
    if (!isPrint(C))
      return refuse(Expr, formatv("the byte 0x{0:x-2} is not allowed; {1}", (unsigned char)C,
                                  Vocabulary),
                    Col);
    return refuse(Expr, "'" + Twine(C) + "' is not allowed; " + Vocabulary, Col);
  }
  Out.push_back({Token::End, "", Expr.size() + 1});
  return Out;
}

/// A recursive-descent parser with C's precedence. Each function returns
/// the text of what it parsed, spelt from the tokens.
class Parser {
public:
  Parser(StringRef Expr, std::vector<Token> Toks, int Inputs, Scalar T)
      : Expr(Expr), Toks(std::move(Toks)), Inputs(Inputs), T(T) {}

  Expected<MapExpression> run() {
    MapExpression M;
    Expected<std::string> Text = ternary(0);
    if (!Text)
      return Text.takeError();
    if (peek().Kind != Token::End)
      return refuse(Expr, "unexpected '" + peek().Text + "' after the expression",
                    peek().Column);
    M.Text = std::move(*Text);
    M.Uses = Uses;
    M.Operations = Operations;
    return M;
  }

private:
  StringRef Expr;
  std::vector<Token> Toks;
  int Inputs;
  Scalar T;
  size_t At = 0;
  unsigned Uses = 0, Operations = 0;

  const Token &peek() const { return Toks[At]; }
  bool isPunct(StringRef P) const { return peek().Kind == Token::Punct && peek().Text == P; }

  static int precedence(StringRef Op) {
    return StringSwitch<int>(Op)
        .Case("||", 4)
        .Case("&&", 5)
        .Case("|", 6)
        .Case("^", 7)
        .Case("&", 8)
        .Cases({"==", "!="}, 9)
        .Cases({"<", "<=", ">", ">="}, 10)
        .Cases({"<<", ">>"}, 11)
        .Cases({"+", "-"}, 12)
        .Cases({"*", "/", "%"}, 13)
        .Default(-1);
  }

  /// The operators that need integer operands.
  Error checkIntegerOnly(const Token &Op) {
    if (!scalarInfo(T).Floating)
      return Error::success();
    if (Op.Text == "%" || Op.Text == "<<" || Op.Text == ">>" || Op.Text == "&" ||
        Op.Text == "|" || Op.Text == "^" || Op.Text == "~")
      return refuse(Expr,
                    "'" + Op.Text + "' needs integer operands; a " + scalarInfo(T).Dtype +
                        " map computes in " + (T == Scalar::F64 ? "double" : "float"),
                    Op.Column);
    return Error::success();
  }

  Expected<std::string> ternary(unsigned Depth) {
    if (Depth > MaxDepth)
      return refuse(Expr, formatv("nested more than {0} deep", MaxDepth), peek().Column);
    Expected<std::string> Cond = binary(4, Depth);
    if (!Cond || !isPunct("?"))
      return Cond;
    ++At;
    Expected<std::string> Then = ternary(Depth + 1);
    if (!Then)
      return Then.takeError();
    if (!isPunct(":"))
      return refuse(Expr, "expected ':' of '?:'", peek().Column);
    ++At;
    Expected<std::string> Else = ternary(Depth + 1);
    if (!Else)
      return Else.takeError();
    ++Operations;
    return *Cond + " ? " + *Then + " : " + *Else;
  }

  Expected<std::string> binary(int MinPrec, unsigned Depth) {
    Expected<std::string> L = unary(Depth);
    if (!L)
      return L.takeError();
    std::string Text = std::move(*L);
    for (;;) {
      const Token &Op = peek();
      int Prec = Op.Kind == Token::Punct ? precedence(Op.Text) : -1;
      if (Prec < MinPrec)
        return Text;
      if (Error E = checkIntegerOnly(Op))
        return std::move(E);
      std::string OpText = Op.Text;
      ++At;
      Expected<std::string> R = binary(Prec + 1, Depth + 1);
      if (!R)
        return R.takeError();
      ++Operations;
      Text += " " + OpText + " " + *R;
    }
  }

  Expected<std::string> unary(unsigned Depth) {
    if (Depth > MaxDepth)
      return refuse(Expr, formatv("nested more than {0} deep", MaxDepth), peek().Column);
    if (isPunct("-") || isPunct("+") || isPunct("!") || isPunct("~")) {
      const Token &Op = peek();
      if (Error E = checkIntegerOnly(Op))
        return std::move(E);
      std::string OpText = Op.Text;
      ++At;
      Expected<std::string> X = unary(Depth + 1);
      if (!X)
        return X.takeError();
      if (OpText != "+")
        ++Operations;
      // '-(-a)', never '--a'.
      if (StringRef(*X).starts_with("-") || StringRef(*X).starts_with("+"))
        return OpText + "(" + *X + ")";
      return OpText + *X;
    }
    return primary(Depth);
  }

  Expected<std::string> primary(unsigned Depth) {
    const Token Tok = peek();
    switch (Tok.Kind) {
    case Token::End:
      return refuse(Expr, "expected an operand at the end", Tok.Column);
    case Token::Number:
      ++At;
      return Tok.Text;
    case Token::Punct:
      if (Tok.Text != "(")
        return refuse(Expr, "expected an operand, not '" + Tok.Text + "'", Tok.Column);
      {
        ++At;
        Expected<std::string> X = ternary(Depth + 1);
        if (!X)
          return X.takeError();
        if (!isPunct(")"))
          return refuse(Expr, "expected ')'", peek().Column);
        ++At;
        return "(" + *X + ")";
      }
    case Token::Name:
      break;
    }
    ++At;
    const auto *In = find(InputNames, Tok.Text);
    if (In != std::end(InputNames)) {
      int K = In - std::begin(InputNames);
      if (K >= Inputs)
        return refuse(Expr,
                      formatv("'{0}' is not an input: the map has {1} ({2})", Tok.Text, Inputs,
                              join(ArrayRef(InputNames).take_front(Inputs), ", ")),
                      Tok.Column);
      if (isPunct("("))
        return refuse(Expr, "'" + Tok.Text + "' is an input, not a function", Tok.Column);
      Uses |= 1u << K;
      return Tok.Text;
    }
    const auto *F = find_if(mapFunctions(), [&](const auto &P) { return P.first == Tok.Text; });
    if (F == mapFunctions().end())
      return refuse(Expr,
                    "'" + Tok.Text + "' is neither an input (" +
                        join(ArrayRef(InputNames).take_front(Inputs), ", ") +
                        ") nor one of the math functions a map may call (docs/templates.md)",
                    Tok.Column);
    if (!isPunct("("))
      return refuse(Expr, "'" + Tok.Text + "' must be called", Tok.Column);
    ++At;
    std::vector<std::string> Args;
    if (!isPunct(")"))
      for (;;) {
        Expected<std::string> A = ternary(Depth + 1);
        if (!A)
          return A.takeError();
        Args.push_back(std::move(*A));
        if (isPunct(","))
          ++At;
        else
          break;
      }
    if (!isPunct(")"))
      return refuse(Expr, "expected ',' or ')' in the call of '" + Tok.Text + "'",
                    peek().Column);
    ++At;
    if (Args.size() != F->second)
      return refuse(Expr,
                    formatv("'{0}' takes {1} argument{2}, not {3}", Tok.Text, F->second,
                            F->second == 1 ? "" : "s", Args.size()),
                    Tok.Column);
    ++Operations;
    return Tok.Text + "(" + join(Args, ", ") + ")";
  }
};

} // namespace

Expected<MapExpression> parseMapExpression(StringRef Expr, int Inputs, Scalar T) {
  if (Inputs < 1 || Inputs > 4)
    return makeError("a map reads 1 to 4 inputs (a, b, c, d), not {0}", Inputs);
  if (Expr.trim().empty())
    return makeError("the map expression is empty; write one over a{0} ('{1}')",
                     Inputs > 1 ? ", b, ..." : "", Inputs > 1 ? "a + b" : "2.0f * a");
  if (Expr.size() > MaxLength)
    return makeError("the map expression is longer than {0} characters", MaxLength);
  Expected<std::vector<Token>> Toks = lex(Expr);
  if (!Toks)
    return Toks.takeError();
  return Parser(Expr, std::move(*Toks), Inputs, T).run();
}

//===----------------------------------------------------------------------===//
// The map as a kernel of its own
//===----------------------------------------------------------------------===//

namespace {

/// How the kernel converts an element to the type it computes in, and back.
struct Arith {
  StringRef Compute; ///< "float" for f16 and bf16, else the type itself
  StringRef ToCompute, FromCompute; ///< with @ for the value; empty: none
  StringRef Header;  ///< the include the type needs, or empty
};

std::optional<Arith> arithFor(Scalar T) {
  switch (T) {
  case Scalar::F32:
    return Arith{"float", "", "", ""};
  case Scalar::F64:
    return Arith{"double", "", "", ""};
  case Scalar::F16:
    return Arith{"float", "__half2float(@)", "__float2half_rn(@)", "cuda_fp16.h"};
  case Scalar::BF16:
    return Arith{"float", "__bfloat162float(@)", "__float2bfloat16_rn(@)", "cuda_bf16.h"};
  case Scalar::I32:
    return Arith{"int", "", "", ""};
  case Scalar::U32:
    return Arith{"unsigned int", "", "", ""};
  default:
    return std::nullopt;
  }
}

} // namespace

Expected<Instance> instantiateMap(const Request &R) {
  using namespace detail;
  if (Error E = checkShape(R, 1, "a map"))
    return std::move(E);
  const ScalarInfo &TI = scalarInfo(R.Type);
  std::optional<Arith> A = arithFor(R.Type);
  if (!A)
    return makeError("the map template takes f32, f64, f16, bf16, i32 or u32 elements, not {0}",
                     TI.Dtype);
  Expected<MapExpression> M = parseMapExpression(R.Operator, R.Inputs, R.Type);
  if (!M)
    return M.takeError();
  Expected<std::string> NameOr = kernelName(R, "map");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const std::string T = TI.Cuda.str();
  const int Vec = 16 / TI.Bytes;
  const int64_t N = R.Shape[0];

  std::vector<std::string> Ins, Used; // the inputs, and those the expression reads
  for (int K = 0; K < R.Inputs; ++K) {
    Ins.push_back(InputNames[K].str());
    if (M->Uses & (1u << K))
      Used.push_back(InputNames[K].str());
  }
  // "@(a)" for each used input, joined with Sep.
  auto EachUsed = [&](StringRef Pattern, StringRef Sep) {
    return join(map_range(Used, [&](const std::string &In) {
                  return replaceAll(Pattern.str(), "@", In);
                }),
                Sep);
  };
  auto ToCompute = [&](StringRef V) {
    return A->ToCompute.empty() ? V.str() : replaceAll(A->ToCompute.str(), "@", V);
  };
  const bool Converts = !A->ToCompute.empty();

  Instance I = startInstance("map", Name);
  std::string S = fileComment(
      R, "map",
      {formatv("out[i] = {0} for every i < n{1}. A grid-stride loop hands each block BLOCK * "
               "ITEMS 16-byte vectors ({2} elements each) per pass, thread t taking vectors t, "
               "t + BLOCK, ...: every load and store of a warp covers 512 consecutive bytes, and "
               "a thread issues all its loads before its first store.",
               M->Text, Converts ? ", computed in float" : "", Vec)
           .str(),
       "The vectors are used when every pointer the kernel touches is 16-byte aligned "
       "(checked at run time); otherwise it moves single elements, with the same loop. The "
       "grid is WAVES blocks per SM, or fewer when n is small; any grid is correct."});
  S += "#include <cuda_runtime.h>\n";
  if (!A->Header.empty())
    S += "#include <" + A->Header.str() + ">\n";
  S += "\n";

  // The expression for one element.
  {
    std::string Params = EachUsed(Converts ? "const " + T + " fm_@" : "const " + T + " @", ", ");
    S += formatv("// The expression for one element{0}.\n"
                 "__device__ __forceinline__ {1} {2}_element({3}) {{\n",
                 Converts ? ": the inputs converted to float, the result rounded to " + T : "",
                 T, Name, Params);
    if (Converts)
      for (const std::string &In : Used)
        S += formatv("  const float {0} = {1};\n", In, ToCompute("fm_" + In)).str();
    std::string Value = formatv("({0})({1})", A->Compute, M->Text).str();
    if (Converts)
      Value = replaceAll(A->FromCompute.str(), "@", Value);
    S += "  return " + Value + ";\n}\n\n";
  }

  std::string PtrParams =
      join(map_range(Ins, [&](const std::string &In) {
             return "const " + T + " *__restrict__ " + In;
           }),
           ",\n    ");
  std::string AlignTest = EachUsed("(unsigned long long)@", " | ");
  AlignTest += (AlignTest.empty() ? "" : " |\n                          ") +
               std::string("(unsigned long long)out");
  S += formatv(R"(// out[i] = {2}_element({5}) for i < n.
// BLOCK threads a block, ITEMS 16-byte vectors a thread per pass of the
// grid-stride loop.
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) {2}(
    {3},
    {0} *__restrict__ out, long long n) {{
  constexpr int VEC = 16 / (int)sizeof({0}); // elements in a 16-byte vector
  const long long fm_stride = (long long)gridDim.x * BLOCK * ITEMS;
  const bool fm_aligned = (({4}) & 15ull) == 0;
  if (fm_aligned) {{
    const long long fm_vectors = n / VEC;
    for (long long fm_base = (long long)blockIdx.x * BLOCK * ITEMS; fm_base < fm_vectors;
         fm_base += fm_stride) {{
)",
               T, "", Name, PtrParams, AlignTest, EachUsed("@[i]", ", "),
               std::string(Name.size() + 1, ' '));
  if (!Used.empty()) {
    S += "      uint4 " + EachUsed("fm_@v[ITEMS]", ", ") + ";\n";
    S += R"(      // Every load first (ITEMS 16-byte loads per input in flight), through
      // the read-only cache.
#pragma unroll
      for (int fm_k = 0; fm_k < ITEMS; ++fm_k) {
        const long long fm_v = fm_base + fm_k * BLOCK + threadIdx.x;
        if (fm_v < fm_vectors) {
)";
    S += EachUsed("          fm_@v[fm_k] = __ldg(reinterpret_cast<const uint4 *>(@) + fm_v);\n",
                  "");
    S += "        }\n      }\n";
  }
  S += formatv(R"(      // Then the expression on each element, and one 16-byte store a vector.
#pragma unroll
      for (int fm_k = 0; fm_k < ITEMS; ++fm_k) {{
        const long long fm_v = fm_base + fm_k * BLOCK + threadIdx.x;
        if (fm_v < fm_vectors) {{
{1}          {0} fm_r[VEC];
#pragma unroll
          for (int fm_e = 0; fm_e < VEC; ++fm_e)
            fm_r[fm_e] = {2}_element({3});
          uint4 fm_w;
          memcpy(&fm_w, fm_r, 16);
          reinterpret_cast<uint4 *>(out)[fm_v] = fm_w;
        }
      }
    }
    // The n % VEC elements after the last whole vector.
    const long long fm_i = fm_vectors * VEC + (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (fm_i < n)
      out[fm_i] = {2}_element({4});
    return;
  }
  // Some pointer is not 16-byte aligned: the same loop over single elements.
  for (long long fm_base = (long long)blockIdx.x * BLOCK * ITEMS; fm_base < n;
       fm_base += fm_stride) {{
)",
               T,
               Used.empty() ? ""
                            : EachUsed("          " + T + " fm_@e[VEC];\n          memcpy(fm_@e, "
                                       "&fm_@v[fm_k], 16);\n",
                                       ""),
               Name, EachUsed("fm_@e[fm_e]", ", "), EachUsed("__ldg(@ + fm_i)", ", "));
  if (!Used.empty()) {
    S += "    " + T + " " + EachUsed("fm_@s[ITEMS]", ", ") + ";\n";
    S += R"(#pragma unroll
    for (int fm_k = 0; fm_k < ITEMS; ++fm_k) {
      const long long fm_i = fm_base + fm_k * BLOCK + threadIdx.x;
      if (fm_i < n) {
)";
    S += EachUsed("        fm_@s[fm_k] = __ldg(@ + fm_i);\n", "");
    S += "      }\n    }\n";
  }
  S += formatv(R"(#pragma unroll
    for (int fm_k = 0; fm_k < ITEMS; ++fm_k) {{
      const long long fm_i = fm_base + fm_k * BLOCK + threadIdx.x;
      if (fm_i < n)
        out[fm_i] = {0}_element({1});
    }
  }
}
)",
               Name, EachUsed("fm_@s[fm_k]", ", "));

  // The host wrapper.
  std::string WrapParams =
      join(map_range(Ins, [&](const std::string &In) { return "const " + T + " *" + In; }),
           ",\n" + std::string(Name.size() + 26, ' '));
  S += formatv(R"(
// On the current device, for i < n:
//   out[i] = {3}
// The inputs and out hold n elements; out may be one of the inputs (in
// place) but must not overlap one otherwise. The grid is WAVES blocks per
// SM, or one block per BLOCK * ITEMS vectors when n is smaller.
inline cudaError_t forge_{1}({2},
{5}{0} *out, long long n, cudaStream_t stream = 0) {{
  if (n <= 0)
    return cudaSuccess;
{6}
  // The spec's tunables. The grid is computed in the launch, so that values
  // forge-port tune writes here reach it too.
  constexpr int BLOCK = 256, ITEMS = 4, WAVES = 8;
  constexpr long long VEC = 16 / sizeof({0}); // elements in a 16-byte vector
  {1}<BLOCK, ITEMS><<<
      (unsigned)((n + BLOCK * ITEMS * VEC - 1) / (BLOCK * ITEMS * VEC) < (long long)sms * WAVES
                     ? (n + BLOCK * ITEMS * VEC - 1) / (BLOCK * ITEMS * VEC)
                     : (long long)sms * WAVES),
      BLOCK, 0, stream>>>({4}, out, n);
  return cudaGetLastError();
}
)",
               T, Name, WrapParams, M->Text, join(Ins, ", "), std::string(Name.size() + 26, ' '),
               deviceQueryLines())
           .str();
  I.Source = std::move(S);

  Json Buffers = Json::array();
  for (const std::string &In : Ins)
    Buffers.push_back(inBuffer(In, R.Type, "N"));
  Buffers.push_back(outBuffer("out", R.Type, "N"));
  std::vector<std::string> Args = Ins;
  Args.push_back("out");
  Args.push_back("n");
  I.Spec = {{"kernel", Name},
            {"template_args", {"BLOCK", "ITEMS"}},
            {"sizes", {{"N", N}, {"SMS", R.SMs}}},
            {"buffers", Buffers},
            {"scalars", {scalarArg("n", Scalar::I64, "N")}},
            {"args", Args},
            {"grid", formatv("min(SMS * WAVES, ceil_div(N, BLOCK * ITEMS * {0}))", Vec).str()},
            {"block", "BLOCK"},
            {"tunables",
             {tunable("BLOCK", {128, 256, 512, 1024}, 256), tunable("ITEMS", {1, 2, 4, 8}, 4),
              tunable("WAVES", {1, 2, 4, 8, 16, 32}, 8)}},
            // The loaded vectors live in registers: ITEMS * 4 words per input, within
            // the registers a thread of a BLOCK-thread block may have.
            {"constraints", {formatv("BLOCK * ITEMS * {0} <= 8192", std::max<size_t>(1, Used.size()))
                                 .str()}},
            {"bytes", formatv("{0} * {1} * N", Used.size() + 1, TI.Bytes).str()},
            {"flops", TI.Floating ? formatv("{0} * N", M->Operations).str() : "0"},
            {"notes",
             {formatv("forge-port new: the map template, out = {0}; 16-byte vectors when the "
                      "pointers are aligned; the grid is WAVES blocks per SM (SMS, the "
                      "target's) or fewer",
                      M->Text)
                  .str()}}};
  if (Used.size() < Ins.size())
    I.Notes.push_back(formatv("the expression reads {0} of the {1} inputs: the others are "
                              "never loaded",
                              Used.size(), Ins.size()));
  I.Notes.push_back(formatv("{0} elements per 16-byte vector; BLOCK 256, ITEMS 4, WAVES 8 by "
                            "default",
                            Vec));
  if (Converts)
    I.Notes.push_back(formatv("{0} elements are computed in float", TI.Dtype));
  return I;
}

std::vector<Request> mapSamples() {
  auto Make = [](StringRef Name, Scalar T, StringRef Expr, int Inputs, int64_t N) {
    Request R;
    R.Kind = OpKind::Map;
    R.Name = Name.str();
    R.Type = T;
    R.Operator = Expr.str();
    R.Inputs = Inputs;
    R.Shape = {N};
    return R;
  };
  return {Make("map_axpy_f32", Scalar::F32, "2.5f * a + b", 2, 12000007),
          Make("map_fma_f64", Scalar::F64, "a * b + c", 3, 1000003),
          Make("map_sqrt_abs_f16", Scalar::F16, "sqrtf(fabsf(a))", 1, 333331),
          Make("map_max4_bf16", Scalar::BF16, "fmaxf(fmaxf(a, b), fmaxf(c, d))", 4, 100003),
          Make("map_madd_i32", Scalar::I32, "a * b + c", 3, 77777),
          Make("map_mix_u32", Scalar::U32, "(a ^ b) + (c >> 2)", 3, 1001),
          Make("map_square_f32", Scalar::F32, "a * a", 2, 7)};
}

} // namespace forge::templates
