//===- IntExpr.cpp - Integer expressions for launch specs -----------------===//
#include "forge/Measure/IntExpr.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <set>

using namespace forge;
using namespace forge::measure;

namespace {

enum class Op {
  Neg, Plus, Not,                          // unary
  Mul, Div, Rem, Add, Sub, Shl, Shr,       // arithmetic
  Lt, Le, Gt, Ge, Eq, Ne, And, Or,         // comparison and logic
  Min, Max, CeilDiv                        // functions
};

enum class NodeKind { Literal, Ident, Unary, Binary };

/// Deep enough for any real launch expression, shallow enough that a
/// malicious "((((..." cannot overflow the stack.
constexpr unsigned MaxDepth = 256;

} // namespace

struct IntExpr::Node {
  NodeKind Kind;
  Op Operator = Op::Add;
  int64_t Value = 0;
  std::string Name;
  /// 1-based column of the operator, literal or identifier.
  size_t Column = 0;
  std::unique_ptr<Node> LHS, RHS;
};

using Node = IntExpr::Node;

namespace {

bool isIdentStart(char C) { return llvm::isAlpha(C) || C == '_'; }
bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

class Parser {
public:
  explicit Parser(llvm::StringRef Text) : Text(Text) {}

  llvm::Expected<std::unique_ptr<Node>> parseAll() {
    auto E = parseBinary(0, 0);
    if (!E)
      return E.takeError();
    skipSpace();
    if (Pos < Text.size())
      return unexpected(Pos);
    return E;
  }

private:
  llvm::StringRef Text;
  size_t Pos = 0;

  /// "<What> at column <N> in '<Text>'[; <Hint>]".
  llvm::Error fail(size_t At, const llvm::Twine &What,
                   const llvm::Twine &Hint = "") {
    std::string H = Hint.str();
    return makeError("{0} at column {1} in '{2}'{3}", What.str(), At + 1, Text,
                     H.empty() ? "" : "; " + H);
  }

  void skipSpace() {
    while (Pos < Text.size() && llvm::isSpace(Text[Pos]))
      ++Pos;
  }

  /// The token starting at At, for messages.
  std::string tokenAt(size_t At) const {
    if (At >= Text.size())
      return "end of expression";
    size_t End = At + 1;
    if (isIdentChar(Text[At]))
      while (End < Text.size() && isIdentChar(Text[End]))
        ++End;
    return Text.slice(At, End).str();
  }

  bool consume(llvm::StringRef Tok) {
    skipSpace();
    if (!Text.drop_front(Pos).starts_with(Tok))
      return false;
    Pos += Tok.size();
    return true;
  }

  /// Binary operators by precedence level, lowest first. Longer spellings
  /// come first so that "<=" is not read as "<".
  struct BinOp {
    llvm::StringRef Spelling;
    Op Operator;
  };
  static llvm::ArrayRef<BinOp> level(unsigned L) {
    static const BinOp Or[] = {{"||", Op::Or}};
    static const BinOp And[] = {{"&&", Op::And}};
    static const BinOp Eq[] = {{"==", Op::Eq}, {"!=", Op::Ne}};
    static const BinOp Rel[] = {
        {"<=", Op::Le}, {">=", Op::Ge}, {"<", Op::Lt}, {">", Op::Gt}};
    static const BinOp Shift[] = {{"<<", Op::Shl}, {">>", Op::Shr}};
    static const BinOp Add[] = {{"+", Op::Add}, {"-", Op::Sub}};
    static const BinOp Mul[] = {{"*", Op::Mul}, {"/", Op::Div}, {"%", Op::Rem}};
    static const llvm::ArrayRef<BinOp> Levels[] = {Or,    And, Eq, Rel,
                                                   Shift, Add, Mul};
    return L < std::size(Levels) ? Levels[L] : llvm::ArrayRef<BinOp>();
  }

  std::optional<BinOp> peekBinOp(unsigned L) {
    skipSpace();
    llvm::StringRef Rest = Text.drop_front(Pos);
    for (const BinOp &B : level(L)) {
      if (!Rest.starts_with(B.Spelling))
        continue;
      // "<" must not match the start of "<<", nor "<<" of "<<=".
      if (Rest.size() > B.Spelling.size()) {
        char Next = Rest[B.Spelling.size()];
        if ((B.Spelling == "<" && Next == '<') ||
            (B.Spelling == ">" && Next == '>'))
          continue;
      }
      return B;
    }
    return std::nullopt;
  }

  llvm::Expected<std::unique_ptr<Node>> parseBinary(unsigned L,
                                                    unsigned Depth) {
    if (level(L).empty())
      return parseUnary(Depth);
    auto LHS = parseBinary(L + 1, Depth);
    if (!LHS)
      return LHS.takeError();
    while (auto B = peekBinOp(L)) {
      size_t OpPos = Pos;
      Pos += B->Spelling.size();
      auto RHS = parseBinary(L + 1, Depth);
      if (!RHS)
        return RHS.takeError();
      auto N = std::make_unique<Node>();
      N->Kind = NodeKind::Binary;
      N->Operator = B->Operator;
      N->Column = OpPos + 1;
      N->LHS = std::move(*LHS);
      N->RHS = std::move(*RHS);
      *LHS = std::move(N);
    }
    return LHS;
  }

  llvm::Expected<std::unique_ptr<Node>> parseUnary(unsigned Depth) {
    if (Depth > MaxDepth)
      return fail(Pos, "expression nested too deeply");
    skipSpace();
    size_t OpPos = Pos;
    std::optional<Op> U;
    if (Pos < Text.size() && Text[Pos] == '-')
      U = Op::Neg;
    else if (Pos < Text.size() && Text[Pos] == '+')
      U = Op::Plus;
    else if (Pos < Text.size() && Text[Pos] == '!' &&
             !Text.drop_front(Pos).starts_with("!="))
      U = Op::Not;
    if (!U)
      return parsePrimary(Depth);
    ++Pos;
    auto Operand = parseUnary(Depth + 1);
    if (!Operand)
      return Operand.takeError();
    auto N = std::make_unique<Node>();
    N->Kind = NodeKind::Unary;
    N->Operator = *U;
    N->Column = OpPos + 1;
    N->LHS = std::move(*Operand);
    return N;
  }

  llvm::Expected<std::unique_ptr<Node>> parsePrimary(unsigned Depth) {
    skipSpace();
    size_t Start = Pos;
    if (Pos >= Text.size())
      return fail(Pos, "expected an operand");
    char C = Text[Pos];
    if (C == '(') {
      ++Pos;
      auto Inner = parseBinary(0, Depth + 1);
      if (!Inner)
        return Inner.takeError();
      if (!consume(")"))
        return fail(Pos, "expected ')'");
      return Inner;
    }
    if (llvm::isDigit(C))
      return parseNumber();
    if (isIdentStart(C)) {
      while (Pos < Text.size() && isIdentChar(Text[Pos]))
        ++Pos;
      llvm::StringRef Name = Text.slice(Start, Pos);
      std::optional<Op> Fn = llvm::StringSwitch<std::optional<Op>>(Name)
                                 .Case("min", Op::Min)
                                 .Case("max", Op::Max)
                                 .Case("ceil_div", Op::CeilDiv)
                                 .Default(std::nullopt);
      skipSpace();
      bool Call = Pos < Text.size() && Text[Pos] == '(';
      if (Call && !Fn)
        return fail(Start, "unknown function '" + Name + "'",
                    "expected min, max or ceil_div");
      if (Fn && !Call)
        return fail(Pos, "expected '(' after '" + Name + "'");
      auto N = std::make_unique<Node>();
      N->Column = Start + 1;
      if (!Fn) {
        N->Kind = NodeKind::Ident;
        N->Name = Name.str();
        return N;
      }
      ++Pos;
      N->Kind = NodeKind::Binary;
      N->Operator = *Fn;
      auto A = parseBinary(0, Depth + 1);
      if (!A)
        return A.takeError();
      if (!consume(","))
        return fail(Pos, "expected ','", "'" + Name + "' takes 2 arguments");
      auto B = parseBinary(0, Depth + 1);
      if (!B)
        return B.takeError();
      if (!consume(")")) {
        if (consume(","))
          return fail(Pos - 1, "too many arguments",
                      "'" + Name + "' takes 2");
        return fail(Pos, "expected ')'");
      }
      N->LHS = std::move(*A);
      N->RHS = std::move(*B);
      return N;
    }
    if (C == ')' || C == ',' || C == '*' || C == '/' || C == '%' ||
        C == '<' || C == '>')
      return fail(Pos, "expected an operand, got '" + tokenAt(Pos) + "'");
    return unexpected(Pos);
  }

  /// A token that cannot continue the expression at At.
  llvm::Error unexpected(size_t At) {
    char C = Text[At];
    if (C == '=' || C == '&' || C == '|')
      return fail(At, "unexpected '" + std::string(1, C) + "'",
                  "did you mean '" + std::string(2, C) + "'?");
    if (isIdentChar(C) || llvm::StringRef("()+-*/%<>!,").contains(C))
      return fail(At, "unexpected '" + tokenAt(At) + "'");
    return fail(At, "unexpected character '" + tokenAt(At) + "'");
  }

  llvm::Expected<std::unique_ptr<Node>> parseNumber() {
    size_t Start = Pos;
    unsigned Radix = 10;
    if (Text.drop_front(Pos).starts_with_insensitive("0x")) {
      Radix = 16;
      Pos += 2;
    }
    size_t DigitsStart = Pos;
    while (Pos < Text.size() && llvm::isAlnum(Text[Pos]))
      ++Pos;
    llvm::StringRef Digits = Text.slice(DigitsStart, Pos);
    llvm::StringRef Literal = Text.slice(Start, Pos);
    uint64_t V = 0;
    // getAsInteger rejects stray letters ("12k") and overflow of uint64_t.
    if (Digits.empty() || Digits.getAsInteger(Radix, V)) {
      bool AllDigits = !Digits.empty() &&
                       llvm::all_of(Digits, [&](char C) {
                         return Radix == 16 ? llvm::isHexDigit(C)
                                            : llvm::isDigit(C);
                       });
      if (AllDigits)
        return fail(Start, "integer literal '" + Literal + "' is too large");
      return fail(Start, "invalid integer literal '" + Literal + "'");
    }
    if (V > uint64_t(INT64_MAX))
      return fail(Start, "integer literal '" + Literal + "' is too large");
    auto N = std::make_unique<Node>();
    N->Kind = NodeKind::Literal;
    N->Value = int64_t(V);
    N->Column = Start + 1;
    return N;
  }
};

class Evaluator {
public:
  Evaluator(const ValueMap &Env, llvm::StringRef Text) : Env(Env), Text(Text) {}

  llvm::Expected<int64_t> eval(const Node &N) {
    switch (N.Kind) {
    case NodeKind::Literal:
      return N.Value;
    case NodeKind::Ident: {
      auto It = Env.find(N.Name);
      if (It == Env.end())
        return makeError("unknown identifier '{0}' in '{1}'", N.Name, Text);
      return It->second;
    }
    case NodeKind::Unary: {
      auto V = eval(*N.LHS);
      if (!V)
        return V.takeError();
      switch (N.Operator) {
      case Op::Neg:
        if (*V == INT64_MIN)
          return overflow(N);
        return -*V;
      case Op::Not:
        return int64_t(*V == 0);
      default:
        return *V;
      }
    }
    case NodeKind::Binary:
      return evalBinary(N);
    }
    return makeError("malformed expression '{0}'", Text);
  }

private:
  const ValueMap &Env;
  llvm::StringRef Text;

  llvm::Error overflow(const Node &N) {
    return makeError("integer overflow at column {0} in '{1}'", N.Column,
                     Text);
  }
  llvm::Error divByZero(const Node &N) {
    return makeError("division by zero at column {0} in '{1}'", N.Column,
                     Text);
  }

  llvm::Expected<int64_t> evalBinary(const Node &N) {
    auto A = eval(*N.LHS);
    if (!A)
      return A.takeError();
    if (N.Operator == Op::And && *A == 0)
      return 0;
    if (N.Operator == Op::Or && *A != 0)
      return 1;
    auto B = eval(*N.RHS);
    if (!B)
      return B.takeError();
    int64_t X = *A, Y = *B, R = 0;
    switch (N.Operator) {
    case Op::Add:
      if (__builtin_add_overflow(X, Y, &R))
        return overflow(N);
      return R;
    case Op::Sub:
      if (__builtin_sub_overflow(X, Y, &R))
        return overflow(N);
      return R;
    case Op::Mul:
      if (__builtin_mul_overflow(X, Y, &R))
        return overflow(N);
      return R;
    case Op::Div:
    case Op::Rem:
    case Op::CeilDiv:
      if (Y == 0)
        return divByZero(N);
      if (X == INT64_MIN && Y == -1) {
        if (N.Operator == Op::Rem)
          return 0;
        return overflow(N);
      }
      if (N.Operator == Op::Div)
        return X / Y;
      if (N.Operator == Op::Rem)
        return X % Y;
      // C division truncates; round up when the exact quotient is positive.
      return X / Y + ((X % Y != 0 && ((X < 0) == (Y < 0))) ? 1 : 0);
    case Op::Shl:
    case Op::Shr:
      if (Y < 0 || Y > 62)
        return makeError("shift by {0} at column {1} in '{2}'; the count "
                         "must be in [0, 62]",
                         Y, N.Column, Text);
      if (X < 0)
        return makeError("shift of negative value {0} at column {1} in '{2}'",
                         X, N.Column, Text);
      if (N.Operator == Op::Shr)
        return X >> Y;
      if (X > (INT64_MAX >> Y))
        return overflow(N);
      return X << Y;
    case Op::Lt:
      return int64_t(X < Y);
    case Op::Le:
      return int64_t(X <= Y);
    case Op::Gt:
      return int64_t(X > Y);
    case Op::Ge:
      return int64_t(X >= Y);
    case Op::Eq:
      return int64_t(X == Y);
    case Op::Ne:
      return int64_t(X != Y);
    case Op::And:
    case Op::Or:
      return int64_t(Y != 0);
    case Op::Min:
      return std::min(X, Y);
    case Op::Max:
      return std::max(X, Y);
    default:
      return makeError("malformed expression '{0}'", Text);
    }
  }
};

void collectIdentifiers(const Node &N, std::vector<std::string> &Out,
                        std::set<std::string> &Seen) {
  if (N.Kind == NodeKind::Ident && Seen.insert(N.Name).second)
    Out.push_back(N.Name);
  if (N.LHS)
    collectIdentifiers(*N.LHS, Out, Seen);
  if (N.RHS)
    collectIdentifiers(*N.RHS, Out, Seen);
}

} // namespace

llvm::Expected<IntExpr> IntExpr::parse(llvm::StringRef Text) {
  Parser P(Text);
  auto Root = P.parseAll();
  if (!Root)
    return Root.takeError();
  IntExpr E;
  E.Text = Text.str();
  E.Root = std::shared_ptr<const Node>(std::move(*Root));
  return E;
}

IntExpr IntExpr::constant(int64_t V) {
  auto N = std::make_unique<Node>();
  N->Kind = NodeKind::Literal;
  N->Value = V;
  N->Column = 1;
  IntExpr E;
  E.Text = std::to_string(V);
  E.Root = std::shared_ptr<const Node>(std::move(N));
  return E;
}

llvm::Expected<int64_t> IntExpr::evaluate(const ValueMap &Env) const {
  if (!Root)
    return makeError("empty expression");
  for (const std::string &Name : identifiers())
    if (!Env.count(Name))
      return makeError("unknown identifier '{0}' in '{1}'", Name, Text);
  return Evaluator(Env, Text).eval(*Root);
}

std::vector<std::string> IntExpr::identifiers() const {
  std::vector<std::string> Out;
  std::set<std::string> Seen;
  if (Root)
    collectIdentifiers(*Root, Out, Seen);
  return Out;
}
