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
#include <algorithm>
#include <functional>

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

} // namespace

void ArchGuards::registerPPCallbacks(Preprocessor &ThePP, PassContext &C) {
  PP = &ThePP;
  Ctx = &C;
  Open.clear();
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
          if (const MacroInfo *MI = PP->getMacroInfo(PP->getIdentifierInfo(Text))) {
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
    Open[IfLoc.getRawEncoding()] = Chain();
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
  if (!IsEndif)
    return;
  finalize(Ch);
  Open.erase(It);
}

void ArchGuards::finalize(const Chain &Ch) {
  SourceManager &SM = PP->getSourceManager();
  for (size_t I = 0; I < Ch.Branches.size(); ++I) {
    const Branch &B = Ch.Branches[I];
    for (const Comparison &Cmp : B.Cmps) {
      unsigned V = 0;
      bool Numeric = archValue(Cmp.Value, V);
      std::string Later = Numeric ? laterTarget(Ctx->Target, V) : "";
      std::string Such = Later.empty() ? "" : " such as " + Later;
      Pending P;
      P.Loc = Cmp.Begin;
      if (!Cmp.Equal) {
        P.Message = "'" + spell(Cmp, "!=") + "' treats later targets" + Such +
                    " differently from " + (Numeric ? smName(V) : Cmp.Value) + "; use '" +
                    spell(Cmp, Cmp.ArchFirst ? "<" : ">") + "' if they share its code path";
        P.Notes.push_back({Cmp.Begin, "not rewritten: whether later targets belong in this "
                                      "branch depends on why the target is excluded"});
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
      // A later branch that '>=' would take over.
      if (Fixable) {
        for (size_t J = I + 1; J < Ch.Branches.size(); ++J) {
          const Branch &L = Ch.Branches[J];
          unsigned W = 0;
          bool Descending = L.Plain && L.Cmps.size() == 1 && L.Cmps[0].Equal &&
                            archValue(L.Cmps[0].Value, W) && W < V;
          if (L.MentionsArch && !Descending) {
            Skip(L.DirectiveLoc, "'" + Wider + "' would take over this '#elif'; order the "
                                 "branches from the newest target down");
            Fixable = false;
            break;
          }
        }
      }
      if (Fixable)
        P.Fixes.push_back(FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Cmp.OpLoc),
                                                       Cmp.ArchFirst ? ">=" : "<="));
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
