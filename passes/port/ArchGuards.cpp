//===- ArchGuards.cpp - arch-guards ---------------------------------------===//
#include "ArchGuards.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <functional>
#include <optional>

using namespace clang;
using namespace llvm;

namespace forge::passes {

namespace {

/// Arch-specific instructions: widening a guard around them makes later
/// targets try to assemble them.
struct ArchAsm {
  const char *Text;
  const char *Why;
};
const ArchAsm AsmTable[] = {
    {"wgmma", "'wgmma', which assembles only for sm_90a; guard it with '__CUDA_ARCH_FEAT_SM90_ALL' "
              "instead"},
    {"setmaxnreg", "'setmaxnreg', which assembles only for arch- or family-specific targets "
                   "(sm_90a, sm_100a, sm_100f, ...); guard it with '__CUDA_ARCH_SPECIFIC__' or "
                   "'__CUDA_ARCH_FAMILY_SPECIFIC__' instead"},
    {"tcgen05", "'tcgen05', which assembles only for arch- or family-specific targets (sm_100a, "
                "sm_100f, ...); guard it with '__CUDA_ARCH_SPECIFIC__' or "
                "'__CUDA_ARCH_FAMILY_SPECIFIC__' instead"},
};

/// A condition token, from the directive or from a macro it expands.
struct CondToken {
  tok::TokenKind Kind;
  std::string Text;
  SourceLocation Loc; ///< in the directive (the macro name for expanded tokens)
  std::string Macro;
  SourceLocation MacroDef;
};

class Callbacks : public PPCallbacks {
public:
  explicit Callbacks(ArchGuards &P) : P(P) {}
  void If(SourceLocation Loc, SourceRange, ConditionValueKind) override {
    P.onBranch(Loc, Loc, /*IsIf=*/true);
  }
  void Elif(SourceLocation Loc, SourceRange, ConditionValueKind, SourceLocation IfLoc) override {
    P.onBranch(Loc, IfLoc, /*IsIf=*/false);
  }
  void Else(SourceLocation Loc, SourceLocation IfLoc) override {
    P.onEnd(Loc, IfLoc, /*IsEndif=*/false);
  }
  void Endif(SourceLocation Loc, SourceLocation IfLoc) override {
    P.onEnd(Loc, IfLoc, /*IsEndif=*/true);
  }

private:
  ArchGuards &P;
};

std::string smName(unsigned ArchValue) { return "sm_" + std::to_string(ArchValue / 10); }

/// A target later than ArchValue to name in the message: the port's target
/// when it is later, else the next plain target.
std::string laterTarget(const arch::TargetInfo &Target, unsigned ArchValue) {
  if (unsigned(Target.ccNumber()) * 10 > ArchValue)
    return Target.Name;
  for (const arch::TargetInfo &T : arch::allTargets())
    if (T.Variant == arch::ArchVariant::None && unsigned(T.ccNumber()) * 10 > ArchValue)
      return T.Name;
  return "";
}

std::string spell(const ArchGuards::Comparison &Cmp, StringRef Op) {
  return Cmp.ArchFirst ? ("__CUDA_ARCH__ " + Op + " " + Cmp.Value).str()
                       : (Cmp.Value + " " + Op + " __CUDA_ARCH__").str();
}

bool archValue(StringRef Text, unsigned &V) {
  Text = Text.rtrim("uUlL");
  return !Text.getAsInteger(10, V);
}


/// A condition's tokens as CondEval reads them, for any plain target:
/// `defined` and identifiers resolved where the directive stands, except
/// the target's own macros (__CUDA_ARCH__ stays, the feature macros of the
/// `a`/`f` targets are 0).
std::vector<std::string> evaluableTokens(ArrayRef<CondToken> Toks, Preprocessor &PP,
                                         std::vector<int> &At) {
  std::vector<std::string> Out;
  At.assign(Toks.size(), -1);
  auto TargetMacro = [](StringRef Name) -> std::optional<std::string> {
    if (Name == "__CUDA_ARCH__")
      return std::string("1");
    if (Name.starts_with("__CUDA_ARCH_"))
      return std::string("0");
    return std::nullopt;
  };
  for (size_t I = 0; I < Toks.size(); ++I) {
    const CondToken &T = Toks[I];
    At[I] = int(Out.size());
    if (T.Kind == tok::identifier && T.Text == "defined") {
      bool Paren = I + 1 < Toks.size() && Toks[I + 1].Kind == tok::l_paren;
      size_t NameAt = I + (Paren ? 2 : 1);
      if (NameAt >= Toks.size() || Toks[NameAt].Kind != tok::identifier) {
        At.assign(Toks.size(), -1); // nothing of it can be evaluated
        return {"$"};
      }
      StringRef Name = Toks[NameAt].Text;
      std::optional<std::string> Own = TargetMacro(Name);
      Out.push_back(Own ? *Own : PP.isMacroDefined(Name) ? "1" : "0");
      I = NameAt + (Paren ? 1 : 0);
      continue;
    }
    if (T.Kind == tok::identifier) {
      if (T.Text == "__CUDA_ARCH__") {
        Out.push_back(T.Text);
      } else if (I + 1 < Toks.size() && Toks[I + 1].Kind == tok::l_paren) {
        // __has_include(...), __has_builtin(...), an undefined function.
        Out.push_back("$");
        unsigned Depth = 0;
        for (++I; I < Toks.size(); ++I) {
          Depth += Toks[I].Kind == tok::l_paren;
          if (Toks[I].Kind == tok::r_paren && --Depth == 0)
            break;
        }
      } else if (StringRef(T.Text).starts_with("__CUDA_ARCH_")) {
        Out.push_back("0");
      } else {
        // An identifier that is no macro is 0, as the preprocessor reads it;
        // 'true' is 1 in C++.
        Out.push_back(T.Text == "true" ? "1" : "0");
      }
      continue;
    }
    if (T.Kind == tok::numeric_constant) {
      StringRef Digits = StringRef(T.Text).rtrim("uUlL");
      uint64_t V = 0;
      Out.push_back(Digits.getAsInteger(0, V) || V > uint64_t(INT64_MAX) ? "$"
                                                                         : std::to_string(V));
      continue;
    }
    switch (T.Kind) {
    case tok::pipepipe: case tok::ampamp: case tok::pipe: case tok::caret: case tok::amp:
    case tok::equalequal: case tok::exclaimequal: case tok::less: case tok::greater:
    case tok::lessequal: case tok::greaterequal: case tok::lessless: case tok::greatergreater:
    case tok::plus: case tok::minus: case tok::star: case tok::slash: case tok::percent:
    case tok::exclaim: case tok::tilde: case tok::l_paren: case tok::r_paren:
    case tok::question: case tok::colon:
      Out.push_back(T.Text);
      break;
    default:
      Out.push_back("$");
    }
  }
  return Out;
}

/// Evaluates a condition of ArchGuards::Branch::Expr for one __CUDA_ARCH__
/// value, in three values: unknown where it reads a "$" that decides it.
class CondEval {
public:
  CondEval(ArrayRef<std::string> Toks, int64_t Arch) : Toks(Toks), Arch(Arch) {}
  std::optional<int64_t> run() {
    std::optional<int64_t> V = ternary();
    if (Bad || Pos != Toks.size())
      return std::nullopt;
    return V;
  }

private:
  using Val = std::optional<int64_t>;
  ArrayRef<std::string> Toks;
  int64_t Arch;
  size_t Pos = 0;
  bool Bad = false;

  bool eat(StringRef Op) {
    if (Pos < Toks.size() && Toks[Pos] == Op) {
      ++Pos;
      return true;
    }
    return false;
  }
  Val ternary() {
    Val C = binary(0);
    if (!eat("?"))
      return C;
    Val A = ternary();
    if (!eat(":"))
      Bad = true;
    Val B = ternary();
    if (!C)
      return A && B && *A == *B ? A : std::nullopt;
    return *C ? A : B;
  }
  static int precedence(StringRef Op) {
    return StringSwitch<int>(Op)
        .Case("||", 1).Case("&&", 2).Case("|", 3).Case("^", 4).Case("&", 5)
        .Cases("==", "!=", 6).Cases("<", ">", "<=", ">=", 7).Cases("<<", ">>", 8)
        .Cases("+", "-", 9).Cases("*", "/", "%", 10).Default(0);
  }
  Val binary(int MinPrec) {
    Val L = unary();
    while (Pos < Toks.size()) {
      StringRef Op = Toks[Pos];
      int P = precedence(Op);
      if (P == 0 || P <= MinPrec)
        break;
      ++Pos;
      Val R = binary(P);
      L = apply(Op, L, R);
    }
    return L;
  }
  static Val apply(StringRef Op, Val L, Val R) {
    // || and && are decided by one known side.
    if (Op == "||") {
      if ((L && *L) || (R && *R))
        return 1;
      return L && R ? Val(0) : std::nullopt;
    }
    if (Op == "&&") {
      if ((L && !*L) || (R && !*R))
        return 0;
      return L && R ? Val(1) : std::nullopt;
    }
    if (!L || !R)
      return std::nullopt;
    int64_t A = *L, B = *R;
    if ((Op == "/" || Op == "%") && B == 0)
      return std::nullopt;
    if ((Op == "<<" || Op == ">>") && (B < 0 || B > 62))
      return std::nullopt;
    return StringSwitch<int64_t>(Op)
        .Case("|", A | B).Case("^", A ^ B).Case("&", A & B).Case("==", A == B)
        .Case("!=", A != B).Case("<", A < B).Case(">", A > B).Case("<=", A <= B)
        .Case(">=", A >= B).Case("<<", B >= 0 && B < 63 ? A << B : 0)
        .Case(">>", B >= 0 && B < 63 ? A >> B : 0).Case("+", A + B).Case("-", A - B)
        .Case("*", A * B).Case("/", B ? A / B : 0).Case("%", B ? A % B : 0).Default(0);
  }
  Val unary() {
    if (eat("!")) {
      Val V = unary();
      return V ? Val(!*V) : std::nullopt;
    }
    if (eat("-")) {
      Val V = unary();
      return V ? Val(-*V) : std::nullopt;
    }
    if (eat("~")) {
      Val V = unary();
      return V ? Val(~*V) : std::nullopt;
    }
    if (eat("+"))
      return unary();
    if (eat("(")) {
      Val V = ternary();
      if (!eat(")"))
        Bad = true;
      return V;
    }
    if (Pos >= Toks.size()) {
      Bad = true;
      return std::nullopt;
    }
    StringRef T = Toks[Pos++];
    if (T == "__CUDA_ARCH__")
      return Arch;
    if (T == "$")
      return std::nullopt;
    int64_t N = 0;
    if (T.getAsInteger(10, N))
      Bad = true;
    return N;
  }
};

/// Which branch of a chain a target takes: its index, Conds.size() for the
/// `#else` (or none), nullopt when a condition that decides is unknown.
std::optional<size_t> selectBranch(ArrayRef<std::vector<std::string>> Conds, int64_t Arch) {
  for (size_t I = 0; I < Conds.size(); ++I) {
    std::optional<int64_t> V = CondEval(Conds[I], Arch).run();
    if (!V)
      return std::nullopt;
    if (*V)
      return I;
  }
  return Conds.size();
}
} // namespace

void ArchGuards::registerPPCallbacks(Preprocessor &ThePP, PassContext &C) {
  PP = &ThePP;
  Ctx = &C;
  Open.clear();
  Nest.clear();
  Found.clear();
  ThePP.addPPCallbacks(std::make_unique<Callbacks>(*this));
}

ArchGuards::Branch ArchGuards::scanCondition(SourceLocation DirectiveLoc) {
  SourceManager &SM = PP->getSourceManager();
  const LangOptions &LO = PP->getLangOpts();
  Branch B;
  B.DirectiveLoc = DirectiveLoc;

  // Raw-lex the directive's line(s), starting at the 'if'/'elif' keyword.
  std::pair<FileID, unsigned> Dec = SM.getDecomposedLoc(DirectiveLoc);
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(Dec.first, &Invalid);
  if (Invalid)
    return B;
  Lexer Raw(SM.getLocForStartOfFile(Dec.first), LO, Buf.begin(), Buf.begin() + Dec.second,
            Buf.end());
  std::vector<CondToken> Toks;
  Token T;
  Raw.LexFromRawLexer(T); // the keyword
  bool AfterDefined = false;
  bool Evaluable = true; // no function-like macro met
  // Expands an identifier that names a macro, keeping where it was used.
  std::function<void(const Token &, SourceLocation, StringRef, SourceLocation, unsigned)> Add =
      [&](const Token &Tk, SourceLocation UseLoc, StringRef Macro, SourceLocation Def,
          unsigned Depth) {
        std::string Text = PP->getSpelling(Tk);
        tok::TokenKind K = Tk.getKind();
        if (K == tok::raw_identifier || Tk.getIdentifierInfo())
          K = tok::identifier;
        if (K == tok::identifier && Text != "__CUDA_ARCH__" && Text != "defined" &&
            !AfterDefined && Depth < 8) {
          const MacroInfo *MI = PP->getMacroInfo(PP->getIdentifierInfo(Text));
          // __has_builtin, __has_include, ... stay as they are spelt.
          if (MI && !MI->isBuiltinMacro()) {
            Evaluable &= !MI->isFunctionLike();
            for (const Token &Body : MI->tokens())
              Add(Body, UseLoc, Macro.empty() ? StringRef(Text) : Macro,
                  Macro.empty() ? MI->getDefinitionLoc() : Def, Depth + 1);
            return;
          }
        }
        if (K == tok::identifier && Text == "defined")
          AfterDefined = true;
        else if (K != tok::l_paren)
          AfterDefined = false;
        Toks.push_back({K, Text, UseLoc, Macro.str(), Def});
      };
  while (true) {
    Raw.LexFromRawLexer(T);
    if (T.is(tok::eof) || T.isAtStartOfLine())
      break;
    Add(T, T.getLocation(), "", SourceLocation(), 0);
  }

  for (size_t I = 0; I < Toks.size(); ++I) {
    const CondToken &A = Toks[I];
    if (A.Kind == tok::identifier && A.Text == "__CUDA_ARCH__")
      B.MentionsArch = true;
    if (I + 2 >= Toks.size())
      continue;
    const CondToken &Op = Toks[I + 1], &Z = Toks[I + 2];
    if (Op.Kind != tok::equalequal && Op.Kind != tok::exclaimequal)
      continue;
    bool ArchFirst = A.Kind == tok::identifier && A.Text == "__CUDA_ARCH__" &&
                     Z.Kind == tok::numeric_constant;
    bool ArchLast = Z.Kind == tok::identifier && Z.Text == "__CUDA_ARCH__" &&
                    A.Kind == tok::numeric_constant;
    if (!ArchFirst && !ArchLast)
      continue;
    Comparison Cmp;
    Cmp.TokOp = I + 1;
    Cmp.Begin = A.Loc;
    Cmp.ArchFirst = ArchFirst;
    Cmp.Equal = Op.Kind == tok::equalequal;
    Cmp.Value = ArchFirst ? Z.Text : A.Text;
    Cmp.Macro = !A.Macro.empty() ? A.Macro : (!Op.Macro.empty() ? Op.Macro : Z.Macro);
    Cmp.MacroDef = !A.Macro.empty() ? A.MacroDef : (!Op.Macro.empty() ? Op.MacroDef : Z.MacroDef);
    if (Cmp.Macro.empty())
      Cmp.OpLoc = Op.Loc;
    B.HasNotEqual |= !Cmp.Equal;
    B.Cmps.push_back(std::move(Cmp));
  }

  std::vector<int> ExprAt;
  B.Expr = evaluableTokens(Toks, *PP, ExprAt);
  if (!Evaluable)
    B.Expr = {"$"};
  for (Comparison &Cmp : B.Cmps)
    Cmp.ExprOp = Evaluable ? ExprAt[Cmp.TokOp] : -1;

  // Plain: [defined(__CUDA_ARCH__) &&] (comparison), nothing else.
  ArrayRef<CondToken> Rest(Toks);
  auto Is = [](const CondToken &C, tok::TokenKind K, StringRef Text = "") {
    return C.Kind == K && (Text.empty() || C.Text == Text);
  };
  if (Rest.size() >= 5 && Is(Rest[0], tok::identifier, "defined") && Is(Rest[1], tok::l_paren) &&
      Is(Rest[2], tok::identifier, "__CUDA_ARCH__") && Is(Rest[3], tok::r_paren) &&
      Is(Rest[4], tok::ampamp))
    Rest = Rest.drop_front(5);
  else if (Rest.size() >= 3 && Is(Rest[0], tok::identifier, "defined") &&
           Is(Rest[1], tok::identifier, "__CUDA_ARCH__") && Is(Rest[2], tok::ampamp))
    Rest = Rest.drop_front(3);
  while (Rest.size() >= 2 && Is(Rest.front(), tok::l_paren) && Is(Rest.back(), tok::r_paren))
    Rest = Rest.drop_front().drop_back();
  B.Plain = Rest.size() == 3 && B.Cmps.size() == 1;
  return B;
}

void ArchGuards::onBranch(SourceLocation Loc, SourceLocation IfLoc, bool IsIf) {
  if (!frontend::isUserLocation(PP->getSourceManager(), Loc))
    return;
  if (IsIf) {
    Chain Ch;
    for (unsigned Key : Nest) {
      const Chain &O = Open[Key];
      Enclosing E;
      E.InElse = O.InElse;
      for (const Branch &B : O.Branches)
        E.Conditions.push_back(B.Expr);
      Ch.Outer.push_back(std::move(E));
    }
    Open[IfLoc.getRawEncoding()] = std::move(Ch);
    Nest.push_back(IfLoc.getRawEncoding());
  } else {
    auto It = Open.find(IfLoc.getRawEncoding());
    if (It == Open.end())
      return;
    It->second.Ends.push_back(Loc);
  }
  Open[IfLoc.getRawEncoding()].Branches.push_back(scanCondition(Loc));
}

void ArchGuards::onEnd(SourceLocation Loc, SourceLocation IfLoc, bool IsEndif) {
  auto It = Open.find(IfLoc.getRawEncoding());
  if (It == Open.end())
    return;
  Chain &Ch = It->second;
  if (Ch.Ends.size() < Ch.Branches.size())
    Ch.Ends.push_back(Loc);
  if (!IsEndif) {
    Ch.InElse = true;
    return;
  }
  finalize(Ch);
  Open.erase(It);
  llvm::erase(Nest, IfLoc.getRawEncoding());
}

namespace {
using Conditions = std::vector<std::vector<std::string>>;

/// The targets a chain is evaluated for, oldest first: every plain target
/// and every value the chain compares __CUDA_ARCH__ with.
std::vector<int64_t> chainTargets(const ArchGuards::Chain &Ch) {
  std::vector<int64_t> Archs;
  for (const arch::TargetInfo &T : arch::allTargets())
    if (T.Variant == arch::ArchVariant::None)
      Archs.push_back(int64_t(T.ccNumber()) * 10);
  for (const ArchGuards::Branch &B : Ch.Branches)
    for (const ArchGuards::Comparison &Cmp : B.Cmps) {
      unsigned V = 0;
      if (archValue(Cmp.Value, V))
        Archs.push_back(V);
    }
  llvm::sort(Archs);
  Archs.erase(std::unique(Archs.begin(), Archs.end()), Archs.end());
  return Archs;
}

/// Whether a target compiles the chain at all: it takes, in every chain
/// around it, the branch the chain is written in (unknown counts as yes).
bool reaches(const ArchGuards::Chain &Ch, int64_t Arch) {
  for (const ArchGuards::Enclosing &E : Ch.Outer) {
    std::optional<size_t> S = selectBranch(E.Conditions, Arch);
    size_t Here = E.InElse ? E.Conditions.size() : E.Conditions.size() - 1;
    if (S && *S != Here)
      return false;
  }
  return true;
}

/// What a later target does with the path that V's target takes.
struct PathFate {
  bool Known = true;     ///< every condition that decides could be evaluated
  size_t Path = 0;       ///< the branch V's target takes
  int64_t FirstLoser = 0; ///< the target right after V when it takes another (0: none)
  bool Regained = false; ///< a target after FirstLoser takes the path again
};

PathFate fateOf(const ArchGuards::Chain &Ch, const Conditions &Conds,
                ArrayRef<int64_t> Archs, int64_t V) {
  PathFate F;
  std::optional<size_t> P = selectBranch(Conds, V);
  if (!P) {
    F.Known = false;
    return F;
  }
  F.Path = *P;
  bool Next = true;
  for (int64_t A : Archs) {
    if (A <= V || !reaches(Ch, A))
      continue;
    std::optional<size_t> S = selectBranch(Conds, A);
    if (!S) {
      F.Known = false;
      return F;
    }
    // Only the target right after V can lose the path to this comparison.
    if (Next && *S != F.Path)
      F.FirstLoser = A;
    else if (F.FirstLoser && *S == F.Path)
      F.Regained = true;
    Next = false;
  }
  return F;
}
} // namespace

std::string ArchGuards::pathName(const Chain &Ch, size_t Path, size_t Self) const {
  SourceManager &SM = PP->getSourceManager();
  if (Path == Self)
    return Path == 0 ? "this '#if'" : "this '#elif'";
  if (Path < Ch.Branches.size())
    return (Path == 0 ? "the '#if' at line " : "the '#elif' at line ") +
           std::to_string(SM.getSpellingLineNumber(Ch.Branches[Path].DirectiveLoc));
  if (Ch.InElse && Ch.Ends.size() > Ch.Branches.size() - 1)
    return "the '#else' at line " +
           std::to_string(SM.getSpellingLineNumber(Ch.Ends[Ch.Branches.size() - 1]));
  return "no branch";
}

void ArchGuards::finalize(const Chain &Ch) {
  SourceManager &SM = PP->getSourceManager();
  Conditions Conds;
  for (const Branch &B : Ch.Branches)
    Conds.push_back(B.Expr);
  std::vector<int64_t> Archs = chainTargets(Ch);
  int64_t PortArch = int64_t(Ctx->Target.ccNumber()) * 10;
  int64_t SourceArch = int64_t(Ctx->Source.ccNumber()) * 10;
  // Whether the port's source and target compile the chain alike: neither
  // reaches it, or both take the same branch.
  auto Alike = [&] {
    bool S = reaches(Ch, SourceArch), T = reaches(Ch, PortArch);
    if (S != T)
      return false;
    if (!S)
      return true;
    std::optional<size_t> A = selectBranch(Conds, SourceArch), B = selectBranch(Conds, PortArch);
    return A && B && *A == *B;
  };

  for (size_t I = 0; I < Ch.Branches.size(); ++I) {
    const Branch &B = Ch.Branches[I];
    for (const Comparison &Cmp : B.Cmps) {
      unsigned V = 0;
      bool Numeric = archValue(Cmp.Value, V);
      // Evaluated per target: nothing to say where no later target loses
      // V's path, or where the ones that lose it get it back (a deliberate
      // exclusion such as '== 800 || >= 900'), or where an explicit bound
      // rather than this comparison takes it away ('>= 800 && < 900').
      PathFate Fate;
      Conditions Widened;
      std::optional<size_t> WidenedPath;
      if (Numeric && Cmp.ExprOp >= 0) {
        if (!reaches(Ch, V))
          continue;
        Fate = fateOf(Ch, Conds, Archs, V);
        if (Fate.Known) {
          if (!Fate.FirstLoser || Fate.Regained)
            continue;
          // The port's source is itself a later target than V and takes
          // the branch the port's target takes: the exclusion is already in
          // effect in the code being ported, and moving to the target
          // changes nothing here ('!= 610' for sm_61's slow half precision,
          // '== 700' for a Volta-only path, ported from sm_80 to sm_100).
          if (SourceArch > int64_t(V) && Alike())
            continue;
          Widened = Conds;
          Widened[I][Cmp.ExprOp] = Cmp.Equal ? (Cmp.ArchFirst ? ">=" : "<=")
                                             : (Cmp.ArchFirst ? "<" : ">");
          WidenedPath = selectBranch(Widened, Fate.FirstLoser);
          if (WidenedPath && *WidenedPath != Fate.Path)
            continue;
        }
      } else {
        Fate.Known = false;
      }

      // The later target to name: the port's own when it loses the path.
      std::string Later;
      if (Fate.Known) {
        std::optional<size_t> PortPath = selectBranch(Conds, PortArch);
        Later = PortArch > int64_t(V) && reaches(Ch, PortArch) && PortPath &&
                        *PortPath != Fate.Path
                    ? Ctx->Target.Name
                    : smName(unsigned(Fate.FirstLoser));
      } else if (Numeric) {
        Later = laterTarget(Ctx->Target, V);
      }
      std::string Such = Later.empty() ? "" : " such as " + Later;
      Pending P;
      P.Loc = Cmp.Begin;
      // Which branch each target takes, in runs.
      auto PerTarget = [&] {
        // Consecutive targets that take the same branch form one run.
        std::vector<std::pair<int64_t, std::string>> Rows;
        for (int64_t A : Archs) {
          if (!reaches(Ch, A))
            continue;
          std::optional<size_t> S = selectBranch(Conds, A);
          Rows.push_back({A, S ? pathName(Ch, *S, I) : "a branch not known here"});
        }
        std::string Text;
        for (size_t K = 0; K < Rows.size();) {
          size_t E = K;
          while (E + 1 < Rows.size() && Rows[E + 1].second == Rows[K].second)
            ++E;
          Text += (Text.empty() ? "" : "; ") + smName(unsigned(Rows[K].first)) +
                  (E > K ? " to " + smName(unsigned(Rows[E].first)) + " take " : " takes ") +
                  Rows[K].second;
          K = E + 1;
        }
        P.Notes.push_back({Cmp.Begin, "per target: " + Text});
      };
      if (!Cmp.Equal) {
        P.Message = "'" + spell(Cmp, "!=") + "' treats later targets" + Such +
                    " differently from " + (Numeric ? smName(V) : Cmp.Value) + "; use '" +
                    spell(Cmp, Cmp.ArchFirst ? "<" : ">") + "' if they share its code path";
        P.Notes.push_back({Cmp.Begin, "not rewritten: whether later targets belong in this "
                                      "branch depends on why the target is excluded"});
        if (Fate.Known)
          PerTarget();
        Found.push_back(std::move(P));
        continue;
      }
      std::string Wider = spell(Cmp, Cmp.ArchFirst ? ">=" : "<=");
      P.Message = "'" + spell(Cmp, "==") + "' excludes later targets" + Such + "; use '" +
                  Wider + "'";
      auto Skip = [&](SourceLocation At, const Twine &Why) {
        P.Notes.push_back({At, ("not rewritten: " + Why).str()});
      };
      // Why the fix is not safe, most specific first.
      bool Fixable = true;
      if (!Cmp.Macro.empty()) {
        Skip(Cmp.MacroDef, "the comparison is written in macro '" + Cmp.Macro + "'; change it there");
        Fixable = false;
      } else if (B.HasNotEqual) {
        Skip(Cmp.Begin, "the condition also tests '__CUDA_ARCH__' with '!='");
        Fixable = false;
      } else if (!B.Plain || !Numeric) {
        Skip(Cmp.Begin, "the condition combines several tests; rewrite it by hand");
        Fixable = false;
      }
      // Arch-specific assembly in the guarded code.
      if (I < Ch.Ends.size()) {
        unsigned Begin = SM.getFileOffset(B.DirectiveLoc), End = SM.getFileOffset(Ch.Ends[I]);
        StringRef Buf = SM.getBufferData(SM.getFileID(B.DirectiveLoc));
        if (Begin < End && End <= Buf.size()) {
          StringRef Body = Buf.slice(Begin, End);
          size_t Line = Body.find('\n');
          unsigned Skipped = Line == StringRef::npos ? Body.size() : Line;
          Body = Body.drop_front(Skipped);
          for (const ArchAsm &A : AsmTable) {
            size_t At = Body.find(A.Text);
            if (At == StringRef::npos)
              continue;
            Skip(B.DirectiveLoc.getLocWithOffset(Skipped + At),
                 Twine("the guarded code uses ") + A.Why);
            Fixable = false;
            break;
          }
        }
      }
      // Another branch that '>=' would take targets from.
      if (Fixable) {
        for (size_t J = I + 1; J < Ch.Branches.size(); ++J) {
          const Branch &L = Ch.Branches[J];
          unsigned W = 0;
          bool Descending = L.Plain && L.Cmps.size() == 1 && L.Cmps[0].Equal &&
                            archValue(L.Cmps[0].Value, W) && W < V;
          std::string Taken;
          bool Unknown = !Fate.Known;
          for (int64_t A : Archs) {
            if (!Fate.Known || !reaches(Ch, A))
              continue;
            std::optional<size_t> Before = selectBranch(Conds, A),
                                  After = selectBranch(Widened, A);
            if (!Before || !After) {
              Unknown = true;
              break;
            }
            if (*Before == J && *After != J)
              Taken += (Taken.empty() ? "" : ", ") + smName(unsigned(A));
          }
          if (Unknown ? (L.MentionsArch && !Descending) : !Taken.empty()) {
            Skip(L.DirectiveLoc, "'" + Wider + "' would take over this '#elif'" +
                                     (Taken.empty() ? "" : " for " + Taken) +
                                     (Descending || !L.Plain
                                          ? ""
                                          : "; order the branches from the newest target down"));
            Fixable = false;
            break;
          }
        }
      }
      if (Fixable)
        P.Fixes.push_back(FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Cmp.OpLoc),
                                                       Cmp.ArchFirst ? ">=" : "<="));
      if (Fate.Known)
        PerTarget();
      Found.push_back(std::move(P));
    }
  }
}

void ArchGuards::finish(PassContext &C) {
  SourceManager &SM = PP->getSourceManager();
  std::stable_sort(Found.begin(), Found.end(), [&](const Pending &A, const Pending &B) {
    return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
  });
  for (const Pending &P : Found)
    C.Diag.report(name(), Severity::Warning, P.Loc, P.Message, P.Fixes, P.Notes);
  Found.clear();
}

} // namespace forge::passes
