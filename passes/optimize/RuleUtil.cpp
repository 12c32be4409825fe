//===- passes/optimize/RuleUtil.cpp - What the expert rules share ---------===//
#include "RuleUtil.h"
#include "forge/Analysis/Allocations.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {

//===----------------------------------------------------------------------===//
// Edits and SEARCH/REPLACE rendering
//===----------------------------------------------------------------------===//

SourceEdit eraseWithLine(StringRef Source, unsigned Begin, unsigned End) {
  unsigned LS = lineStart(Source, Begin);
  size_t LE = Source.find('\n', End);
  if (LE == StringRef::npos)
    LE = Source.size();
  if (Source.slice(LS, Begin).trim().empty() && Source.slice(End, LE).trim().empty()) {
    unsigned Stop = LE < Source.size() ? unsigned(LE + 1) : unsigned(LE);
    return {LS, Stop - LS, ""};
  }
  return {Begin, End - Begin, ""};
}

std::string indentLines(ArrayRef<std::string> Lines, StringRef Indent) {
  std::string Out;
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (I) {
      Out += "\n";
      if (!Lines[I].empty())
        Out += Indent;
    }
    Out += Lines[I];
  }
  return Out;
}

StringRef lineIndent(StringRef Source, unsigned Offset) {
  unsigned Start = lineStart(Source, Offset);
  StringRef Line = Source.substr(Start);
  return Line.take_while([](char C) { return C == ' ' || C == '\t'; });
}

unsigned lineStart(StringRef Source, unsigned Offset) {
  size_t NL = Source.take_front(Offset).rfind('\n');
  return NL == StringRef::npos ? 0 : unsigned(NL + 1);
}

Expected<KernelBodySite> kernelBodySite(const RuleInput &In, const FunctionDecl &K,
                                        const CompoundStmt &Body) {
  EditCollector C(In);
  auto Head = C.offsetOf(In.Ctx.getSourceManager().getExpansionLoc(K.getOuterLocStart()));
  auto Open = C.offsetOf(Body.getLBracLoc());
  auto Close = C.offsetOf(Body.getRBracLoc());
  if (!Head || !Open || !Close || *Head >= *Open)
    return makeError("the kernel's declaration is not plain text of the file (a macro?)");
  unsigned LS = lineStart(In.Source, *Head);
  StringRef Before = In.Source.slice(LS, *Head);
  if (Before.contains(';') || Before.contains('}') || Before.contains('{'))
    return makeError("the kernel's declaration shares its line with other code");
  return KernelBodySite{LS, *Head, *Open, *Close};
}

//===----------------------------------------------------------------------===//
// Ranges through macros
//===----------------------------------------------------------------------===//

/// Whether Loc, a token of a function-like macro's argument, is in an
/// argument written in a file (not passed on by another macro) that the
/// macro's body expands exactly once, neither stringised nor pasted: then
/// the argument's text spells this one expansion and nothing else.
static bool argExpandedOnce(SourceLocation Loc, const SourceManager &SM, const LangOptions &LO) {
  if (!Loc.isMacroID() || !SM.isMacroArgExpansion(Loc) ||
      !SM.getImmediateSpellingLoc(Loc).isFileID())
    return false;
  // Where the parameter stands in the macro's body, and so in its #define.
  SourceLocation Def = SM.getSpellingLoc(SM.getImmediateExpansionRange(Loc).getBegin());
  if (Def.isInvalid() || !Def.isFileID())
    return false;
  auto [FID, Off] = SM.getDecomposedLoc(Def);
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid || Off >= Buf.size())
    return false;
  // The logical line of the #define (continued lines included).
  size_t Start = Buf.take_front(Off).rfind('\n');
  Start = Start == StringRef::npos ? 0 : Start + 1;
  while (Start > 0) {
    StringRef Prev = Buf.take_front(Start - 1);
    if (Prev.ends_with("\r"))
      Prev = Prev.drop_back();
    if (!Prev.ends_with("\\"))
      break;
    size_t NL = Prev.rfind('\n');
    Start = NL == StringRef::npos ? 0 : NL + 1;
  }
  Lexer L(SM.getLocForStartOfFile(FID), LO, Buf.begin(), Buf.begin() + Start, Buf.end());
  Token T;
  auto Next = [&] {
    L.LexFromRawLexer(T);
    return T;
  };
  auto Ident = [&](const Token &X) {
    return X.is(tok::raw_identifier) ? X.getRawIdentifier() : StringRef();
  };
  if (Next().isNot(tok::hash) || Ident(Next()) != "define" || Ident(Next()).empty())
    return false;
  if (Next().isNot(tok::l_paren) || T.hasLeadingSpace() || T.isAtStartOfLine())
    return false;
  unsigned Len = Lexer::MeasureTokenLength(Def, SM, LO);
  StringRef Param = Buf.substr(Off, Len);
  bool IsParam = false;
  while (true) {
    Next();
    if (T.is(tok::eof) || T.isAtStartOfLine())
      return false;
    if (T.is(tok::r_paren))
      break;
    if (Ident(T) == Param)
      IsParam = true;
  }
  if (!IsParam)
    return false;
  // The body: the parameter once, at Def, and no # or ##.
  unsigned Uses = 0;
  bool AtDef = false;
  while (Next().isNot(tok::eof) && !T.isAtStartOfLine()) {
    if (T.isOneOf(tok::hash, tok::hashhash, tok::hashat))
      return false;
    if (Ident(T) == Param) {
      ++Uses;
      AtDef |= SM.getFileOffset(T.getLocation()) == Off;
    }
  }
  return Uses == 1 && AtDef;
}

bool fitsMacroArgument(StringRef Text) {
  int Depth = 0;
  for (char C : Text) {
    if (C == '(')
      ++Depth;
    else if (C == ')' && --Depth < 0)
      return false;
    else if (C == ',' && Depth == 0)
      return false;
  }
  return Depth == 0;
}

std::optional<std::pair<FileID, std::pair<unsigned, unsigned>>>
editableRange(const SourceManager &SM, const LangOptions &LO, SourceRange R) {
  SourceLocation B = R.getBegin(), E = R.getEnd();
  if (B.isInvalid() || E.isInvalid())
    return std::nullopt;
  if (B.isMacroID() || E.isMacroID()) {
    SourceLocation MB = B, ME = E;
    bool Whole = (!B.isMacroID() || Lexer::isAtStartOfMacroExpansion(B, SM, LO, &MB)) &&
                 (!E.isMacroID() || Lexer::isAtEndOfMacroExpansion(E, SM, LO, &ME)) &&
                 MB.isFileID() && ME.isFileID();
    if (Whole) {
      B = MB;
      E = ME;
    } else if (B.isMacroID() && E.isMacroID() && argExpandedOnce(B, SM, LO) &&
               argExpandedOnce(E, SM, LO) &&
               SM.getImmediateExpansionRange(B).getBegin() ==
                   SM.getImmediateExpansionRange(E).getBegin()) {
      B = SM.getImmediateSpellingLoc(B);
      E = SM.getImmediateSpellingLoc(E);
    } else {
      return std::nullopt;
    }
  }
  SourceLocation EndLoc = Lexer::getLocForEndOfToken(E, 0, SM, LO);
  if (EndLoc.isInvalid() || EndLoc.isMacroID())
    return std::nullopt;
  auto [FB, OB] = SM.getDecomposedLoc(B);
  auto [FE, OE] = SM.getDecomposedLoc(EndLoc);
  if (FB != FE || OE < OB)
    return std::nullopt;
  return std::make_pair(FB, std::make_pair(OB, OE));
}

//===----------------------------------------------------------------------===//
// EditCollector
//===----------------------------------------------------------------------===//

EditCollector::EditCollector(const SourceManager &SM, const LangOptions &LO, StringRef Source)
    : SM(SM), LO(LO), Source(Source) {}

EditCollector::EditCollector(const RuleInput &In)
    : EditCollector(In.Ctx.getSourceManager(), In.Ctx.getLangOpts(), In.Source) {}

std::optional<unsigned> EditCollector::offsetOf(SourceLocation Loc) const {
  if (Loc.isInvalid() || Loc.isMacroID())
    return std::nullopt;
  auto [FID, Offset] = SM.getDecomposedLoc(Loc);
  if (FID != SM.getMainFileID() || Offset > Source.size())
    return std::nullopt;
  return Offset;
}

std::optional<std::pair<unsigned, unsigned>> EditCollector::rangeOf(SourceRange R) const {
  auto X = editableRange(SM, LO, R);
  if (!X || X->first != SM.getMainFileID() || X->second.second > Source.size())
    return std::nullopt;
  return X->second;
}

std::optional<std::pair<unsigned, unsigned>>
EditCollector::rangeOfStatement(const Stmt *S) const {
  auto R = rangeOf(S->getSourceRange());
  if (!R)
    return std::nullopt;
  // A statement that ends with a sub-statement ends where that one does.
  const Stmt *Tail = nullptr;
  if (const auto *If = dyn_cast<IfStmt>(S))
    Tail = If->getElse() ? If->getElse() : If->getThen();
  else if (const auto *F = dyn_cast<ForStmt>(S))
    Tail = F->getBody();
  else if (const auto *W = dyn_cast<WhileStmt>(S))
    Tail = W->getBody();
  else if (const auto *A = dyn_cast<AttributedStmt>(S))
    Tail = A->getSubStmt();
  else if (const auto *L = dyn_cast<LabelStmt>(S))
    Tail = L->getSubStmt();
  if (Tail) {
    auto T = rangeOfStatement(Tail);
    if (!T)
      return std::nullopt;
    return std::make_pair(R->first, std::max(R->second, T->second));
  }
  // Compound statements, declarations and the like end with their last
  // token; expression, return, jump and do statements end before their ';'.
  if (isa<CompoundStmt>(S) || isa<DeclStmt>(S) || isa<NullStmt>(S) || isa<SwitchStmt>(S) ||
      isa<CXXForRangeStmt>(S) || isa<CXXTryStmt>(S))
    return R;
  size_t P = R->second;
  while (P < Source.size() && isspace(static_cast<unsigned char>(Source[P])))
    ++P;
  if (P < Source.size() && Source[P] == ';')
    return std::make_pair(R->first, unsigned(P + 1));
  return R;
}

bool EditCollector::refuse(SourceLocation Loc, StringRef Why) {
  if (Failure.empty()) {
    PresumedLoc P = SM.getPresumedLoc(SM.getFileLoc(Loc));
    Failure = Why.str();
    if (P.isValid())
      Failure += " (line " + std::to_string(P.getLine()) + ")";
  }
  return false;
}

bool EditCollector::replace(CharSourceRange R, StringRef Text) {
  if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
    return refuse(R.getBegin(), "the code to change is inside a macro expansion");
  SourceLocation End = R.getEnd();
  if (R.isTokenRange())
    End = Lexer::getLocForEndOfToken(End, 0, SM, LO);
  auto B = offsetOf(R.getBegin()), E = offsetOf(End);
  if (!B || !E || *E < *B)
    return refuse(R.getBegin(), "the code to change is not in the main file");
  Edits.push_back({*B, *E - *B, Text.str()});
  return true;
}

bool EditCollector::replace(SourceRange R, StringRef Text) {
  if (R.getBegin().isMacroID() || R.getEnd().isMacroID()) {
    // Whole invocations, or one argument expanded once (editableRange).
    auto X = rangeOf(R);
    if (!X || !fitsMacroArgument(Text))
      return refuse(R.getBegin(), "the code to change is inside a macro expansion");
    Edits.push_back({X->first, X->second - X->first, Text.str()});
    return true;
  }
  return replace(CharSourceRange::getTokenRange(R), Text);
}

bool EditCollector::insertBefore(SourceLocation Loc, StringRef Text) {
  if (Loc.isMacroID())
    return refuse(Loc, "the code to change is inside a macro expansion");
  auto B = offsetOf(Loc);
  if (!B)
    return refuse(Loc, "the code to change is not in the main file");
  Edits.push_back({*B, 0, Text.str()});
  return true;
}

bool EditCollector::insertAfterToken(SourceLocation Loc, StringRef Text) {
  if (Loc.isMacroID())
    return refuse(Loc, "the code to change is inside a macro expansion");
  SourceLocation End = Lexer::getLocForEndOfToken(Loc, 0, SM, LO);
  auto B = offsetOf(End);
  if (!B)
    return refuse(Loc, "the code to change is not in the main file");
  Edits.push_back({*B, 0, Text.str()});
  return true;
}

RuleOutcome proposeEdits(const RuleInput &In, StringRef Rule, std::string Summary,
                         std::string Rationale, ArrayRef<SourceEdit> Edits,
                         std::optional<agent::SpecChange> Spec) {
  if (Edits.empty())
    return notApplicable("nothing to change");
  auto Blocks = renderEditBlocks(In.Source, Edits);
  if (!Blocks)
    return notApplicable("the edits cannot be written as SEARCH/REPLACE blocks: " +
                         toString(Blocks.takeError()));
  agent::Proposal P;
  P.Origin = ("expert:" + Rule).str();
  P.Summary = std::move(Summary);
  P.Rationale = std::move(Rationale);
  P.Edits = std::move(*Blocks);
  if (Spec && !Spec->empty())
    P.Spec = std::move(Spec);
  RuleOutcome O;
  O.Proposals.push_back(std::move(P));
  return O;
}

Expected<RetunedLaunch>
launchWithBlock(const RuleInput &In, function_ref<bool(const std::array<int64_t, 3> &)> Fits) {
  const agent::ProposalRequest &Req = In.Request;
  if (!Req.Block)
    return makeError("the block's dimensions are not known");
  RetunedLaunch Out;
  Out.Block = *Req.Block;
  if (Fits(Out.Block))
    return Out;
  const measure::LaunchSpec *Spec = Req.Spec;
  if (!Spec || Spec->Tunables.empty())
    return makeError("the block is {0} x {1} x {2} and the spec has no tunables to change it",
                     Out.Block[0], Out.Block[1], Out.Block[2]);
  measure::ValueMap Current;
  for (const measure::Tunable &T : Spec->Tunables) {
    auto It = Req.Tunables.find(T.Name);
    Current[T.Name] = It != Req.Tunables.end() ? It->second : T.defaultValue();
  }
  // Every combination of the candidates, in the spec's order, as an
  // odometer over the tunables.
  std::vector<size_t> Pos(Spec->Tunables.size(), 0);
  std::optional<measure::ValueMap> Best;
  unsigned BestChanged = ~0u;
  std::array<int64_t, 3> BestBlock{};
  for (unsigned Tried = 0; Tried < 4096; ++Tried) {
    measure::ValueMap V = Current;
    bool Empty = false;
    for (size_t I = 0; I < Pos.size(); ++I) {
      const measure::Tunable &T = Spec->Tunables[I];
      if (T.Values.empty())
        Empty = true;
      else
        V[T.Name] = T.Values[Pos[I]];
    }
    if (!Empty) {
      unsigned Changed = 0;
      for (const auto &[Name, Value] : V)
        Changed += Current.at(Name) != Value;
      auto Ok = Spec->satisfiesConstraints(V);
      if (!Ok) {
        consumeError(Ok.takeError());
      } else if (*Ok && Changed < BestChanged) {
        auto G = Spec->geometry(V);
        if (!G) {
          consumeError(G.takeError());
        } else if (Fits(G->Block)) {
          Best = V;
          BestChanged = Changed;
          BestBlock = G->Block;
        }
      }
    }
    size_t I = 0;
    while (I < Pos.size() && ++Pos[I] >= std::max<size_t>(1, Spec->Tunables[I].Values.size()))
      Pos[I++] = 0;
    if (I == Pos.size())
      break;
  }
  if (!Best)
    return makeError("the block is {0} x {1} x {2} and no values of the spec's tunables give "
                     "one that fits",
                     Out.Block[0], Out.Block[1], Out.Block[2]);
  for (const auto &[Name, Value] : *Best)
    if (Current.at(Name) != Value)
      Out.Values[Name] = Value;
  Out.Block = BestBlock;
  if (launchesOf(In.Kernel, In.Ctx).empty()) {
    Out.SpecOnly = true;
    return Out;
  }
  if (!In.WriteBack)
    return makeError("the launch must change and no write-back into the source is available");
  auto WB = In.WriteBack(Out.Values);
  if (!WB)
    return makeError("the launch must change and its values cannot be written into the "
                     "source: {0}",
                     toString(WB.takeError()));
  Out.WriteBack = std::move(*WB);
  return Out;
}

//===----------------------------------------------------------------------===//
// AST helpers
//===----------------------------------------------------------------------===//

StringRef sourceText(const SourceManager &SM, const LangOptions &LO, SourceRange R) {
  CharSourceRange CR = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (CR.isInvalid())
    return "";
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(CR, SM, LO, &Invalid);
  return Invalid ? StringRef() : T;
}

std::string textOf(const Stmt *S, ASTContext &Ctx) {
  if (!S)
    return "";
  return sourceText(Ctx.getSourceManager(), Ctx.getLangOpts(), S->getSourceRange()).str();
}

bool isWithin(const Stmt *Inner, const Stmt *Outer) {
  if (!Inner || !Outer)
    return false;
  if (Inner == Outer)
    return true;
  for (const Stmt *C : Outer->children())
    if (C && isWithin(Inner, C))
      return true;
  return false;
}

unsigned fileLineOf(ASTContext &Ctx, SourceLocation Loc) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.getPresumedLineNumber(SM.getFileLoc(Loc));
}

const CompoundStmt *kernelBody(const FunctionDecl &Kernel) {
  return dyn_cast_or_null<CompoundStmt>(Kernel.getBody());
}

const Expr *stripCasts(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(Next)) {
      QualType To = C->getType(), From = C->getSubExpr()->getType();
      if (To->isIntegerType() && From->isIntegerType()) {
        Next = C->getSubExpr();
      }
    }
    if (Next == E)
      break;
    E = Next;
  }
  return E;
}

/// E is A * B with the two builtins in either order, for one component;
/// Dim is set from the first.
static bool isProductOf(const Expr *E, StringRef A, StringRef B, char &Dim) {
  const auto *Mul = dyn_cast<BinaryOperator>(stripCasts(E));
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return false;
  auto L = cudaBuiltin(stripCasts(Mul->getLHS())), R = cudaBuiltin(stripCasts(Mul->getRHS()));
  if (!L || !R || L->Dim != R->Dim)
    return false;
  if ((L->Var == A && R->Var == B) || (L->Var == B && R->Var == A)) {
    Dim = L->Dim;
    return true;
  }
  return false;
}

bool isGlobalIndex(const Expr *E, char *Dim) {
  const auto *Add = dyn_cast_or_null<BinaryOperator>(stripCasts(E));
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  for (auto [T, P] : {std::pair(Add->getLHS(), Add->getRHS()), std::pair(Add->getRHS(), Add->getLHS())}) {
    auto Tid = cudaBuiltin(stripCasts(T));
    char D = 0;
    if (Tid && Tid->Var == "threadIdx" && isProductOf(P, "blockIdx", "blockDim", D) &&
        D == Tid->Dim) {
      if (Dim)
        *Dim = D;
      return true;
    }
  }
  return false;
}

bool isGridStride(const Expr *E, char Dim) {
  char D = 0;
  return isProductOf(E, "blockDim", "gridDim", D) && D == Dim;
}

std::optional<int64_t> evaluateInt(const Expr *E, ASTContext &Ctx) {
  return frontend::constantInt(E, Ctx);
}

namespace {
/// Walks an expression and clears Constant at the first part that is not
/// known at compile time.
class ConstantWalk : public DynamicRecursiveASTVisitor {
public:
  explicit ConstantWalk(ASTContext &Ctx) : Ctx(Ctx) {}
  bool Constant = true;

  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    const ValueDecl *D = E->getDecl();
    if (isa<NonTypeTemplateParmDecl>(D) || isa<EnumConstantDecl>(D) || isa<FunctionDecl>(D))
      return true;
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (VD->isConstexpr())
        return true;
      if (VD->getType().isConstQualified() && VD->hasInit() && !isa<ParmVarDecl>(VD)) {
        ConstantWalk Inner(Ctx);
        Inner.TraverseStmt(const_cast<Expr *>(VD->getInit()));
        if (Inner.Constant)
          return true;
      }
    }
    return fail();
  }
  // T::value, Traits<T>::size: static members of a dependent type.
  bool VisitDependentScopeDeclRefExpr(DependentScopeDeclRefExpr *) override { return true; }
  bool VisitCallExpr(CallExpr *E) override {
    const FunctionDecl *FD = E->getDirectCallee();
    if (FD && FD->isConstexpr())
      return true;
    return fail();
  }
  bool VisitMemberExpr(MemberExpr *) override { return fail(); }
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *) override { return fail(); }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *) override { return fail(); }
  bool VisitPseudoObjectExpr(PseudoObjectExpr *) override { return fail(); }
  bool VisitCXXThisExpr(CXXThisExpr *) override { return fail(); }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_Deref)
      return fail();
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) override {
    if (B->isAssignmentOp())
      return fail();
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *) override { return fail(); }
  // sizeof and alignof are constant whatever their operand.
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) override { return true; }

private:
  bool fail() {
    Constant = false;
    return false;
  }
  ASTContext &Ctx;
};
} // namespace

bool isCompileTimeConstant(const Expr *E, ASTContext &Ctx) {
  if (!E)
    return false;
  if (!E->isValueDependent() && !E->isTypeDependent())
    if (evaluateInt(E, Ctx))
      return true;
  ConstantWalk W(Ctx);
  W.TraverseStmt(const_cast<Expr *>(E));
  return W.Constant;
}

std::vector<const CUDAKernelCallExpr *> launchesOf(const FunctionDecl &Kernel, ASTContext &Ctx) {
  std::vector<const CUDAKernelCallExpr *> Out;
  for (const CallExpr *C : analysis::callsOf(Kernel, Ctx))
    if (const auto *L = dyn_cast<CUDAKernelCallExpr>(C))
      Out.push_back(L);
  return Out;
}

std::vector<const FunctionDecl *> instantiationsOf(const FunctionDecl &Kernel) {
  std::vector<const FunctionDecl *> Out;
  if (const FunctionTemplateDecl *TD = Kernel.getDescribedFunctionTemplate())
    for (const FunctionDecl *Spec : TD->specializations())
      if (Spec->hasBody() && Spec->getTemplateSpecializationKind() != TSK_ExplicitSpecialization)
        Out.push_back(Spec);
  return Out;
}

namespace {
class FindBySource : public DynamicRecursiveASTVisitor {
public:
  FindBySource(const Stmt *Want) : Want(Want) { ShouldVisitImplicitCode = false; }
  const Stmt *Found = nullptr;
  bool VisitStmt(Stmt *S) override {
    if (S->getStmtClass() == Want->getStmtClass() &&
        S->getBeginLoc() == Want->getBeginLoc() && S->getEndLoc() == Want->getEndLoc()) {
      Found = S;
      return false;
    }
    return true;
  }

private:
  const Stmt *Want;
};
} // namespace

const Stmt *instantiatedStmt(const Stmt *PatternStmt, const FunctionDecl &Instance) {
  if (!PatternStmt || !Instance.getBody())
    return nullptr;
  FindBySource F(PatternStmt);
  F.TraverseStmt(Instance.getBody());
  return F.Found;
}

std::optional<unsigned> paramIndex(const FunctionDecl &Kernel, const VarDecl *P) {
  for (unsigned I = 0; I < Kernel.getNumParams(); ++I)
    if (Kernel.getParamDecl(I) == P)
      return I;
  return std::nullopt;
}

const VarDecl *asVar(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *DRE = dyn_cast<DeclRefExpr>(stripCasts(E));
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

const ParmVarDecl *asParam(const Expr *E, const FunctionDecl &Kernel) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(asVar(E));
  return P && paramIndex(Kernel, P) ? P : nullptr;
}

namespace {
class RefCollector : public DynamicRecursiveASTVisitor {
public:
  explicit RefCollector(const VarDecl *V) : V(V) {}
  std::vector<const DeclRefExpr *> Refs;
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    if (E->getDecl() == V)
      Refs.push_back(E);
    return true;
  }

private:
  const VarDecl *V;
};

bool contains(const Stmt *Outer, const Stmt *Inner, ParentMap &PM) {
  for (const Stmt *S = Inner; S; S = PM.getParent(S))
    if (S == Outer)
      return true;
  return false;
}
} // namespace

std::vector<const DeclRefExpr *> referencesTo(const VarDecl *V, const Stmt *S) {
  RefCollector C(V);
  C.TraverseStmt(const_cast<Stmt *>(S));
  return C.Refs;
}

std::string wideIndexType(const Expr *Bound, ASTContext &Ctx) {
  QualType T = Bound->IgnoreParenImpCasts()->getType();
  if (T.isNull() || !T->isIntegerType() || T->isDependentType())
    return "long long";
  if (Ctx.getTypeSize(T) >= 64) {
    // Spelled as written where that is a plain name (size_t, int64_t).
    QualType Unq = T.getUnqualifiedType();
    return Unq.getAsString(Ctx.getPrintingPolicy());
  }
  return T->isSignedIntegerType() ? "long long" : "unsigned long long";
}

bool isModified(const VarDecl *V, const Stmt *Body, const Stmt *Except) {
  if (!V || !Body)
    return false;
  RefCollector C(V);
  C.TraverseStmt(const_cast<Stmt *>(Body));
  ParentMap PM(const_cast<Stmt *>(Body));
  for (const DeclRefExpr *R : C.Refs) {
    if (Except && contains(Except, R, PM))
      continue;
    const Stmt *Child = R;
    const Stmt *P = PM.getParent(R);
    while (P && isa<ParenExpr>(P)) {
      Child = P;
      P = PM.getParent(P);
    }
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P))
      if (IC->getCastKind() == CK_LValueToRValue)
        continue;
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(P))
      if (!U->isIncrementDecrementOp() && U->getOpcode() != UO_AddrOf)
        continue;
    if (const auto *B = dyn_cast_or_null<BinaryOperator>(P))
      if (!(B->isAssignmentOp() && B->getLHS()->IgnoreParens() == Child))
        continue;
    // An array or a pointer decays without being written.
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P))
      if (IC->getCastKind() == CK_ArrayToPointerDecay)
        continue;
    if (isa_and_nonnull<UnaryExprOrTypeTraitExpr>(P))
      continue;
    // A subscript reads its index (in a template the read has no
    // lvalue-to-rvalue cast yet).
    if (const auto *S = dyn_cast_or_null<ArraySubscriptExpr>(P); S && S->getIdx() == Child)
      continue;
    // ... and its pointer base (`const T *A` in `A[i]`: no cast yet either).
    if (const auto *S = dyn_cast_or_null<ArraySubscriptExpr>(P);
        S && S->getBase() == Child && R->getType()->isPointerType())
      continue;
    return true;
  }
  return false;
}

std::optional<LaunchSize> launchSize(const RuleInput &In) {
  const agent::ProposalRequest &Req = In.Request;
  if (const measure::LaunchSpec *Spec = Req.Spec) {
    measure::ValueMap Values(Req.Tunables.begin(), Req.Tunables.end());
    auto Env = Spec->environment(Values);
    if (!Env) {
      consumeError(Env.takeError());
      return std::nullopt;
    }
    LaunchSize S;
    static const char *const Dims[] = {"x", "y", "z"};
    for (unsigned I = 0; I < 3; ++I)
      for (bool Grid : {true, false}) {
        auto It = Req.Geometry.find(std::string(Grid ? "grid." : "block.") + Dims[I]);
        if (It == Req.Geometry.end())
          continue;
        auto X = measure::IntExpr::parse(It->second);
        if (!X) {
          consumeError(X.takeError());
          return std::nullopt;
        }
        auto V = X->evaluate(*Env);
        if (!V) {
          consumeError(V.takeError());
          return std::nullopt;
        }
        (Grid ? S.Grid : S.Block)[I] = *V;
      }
    S.Threads = S.Grid[0] * S.Grid[1] * S.Grid[2] * S.Block[0] * S.Block[1] * S.Block[2];
    S.From = "the spec's launch";
    return S;
  }
  for (const CUDAKernelCallExpr *L : launchesOf(In.Kernel, In.Ctx)) {
    const CallExpr *Cfg = L->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 2)
      continue;
    auto G = frontend::constantDims(Cfg->getArg(0), In.Ctx), B = frontend::constantDims(Cfg->getArg(1), In.Ctx);
    if (!G || !B)
      continue;
    LaunchSize S;
    S.Grid = *G;
    S.Block = *B;
    S.Threads = (*G)[0] * (*G)[1] * (*G)[2] * (*B)[0] * (*B)[1] * (*B)[2];
    S.From = "the launch at line " +
             std::to_string(In.Ctx.getSourceManager().getPresumedLineNumber(L->getBeginLoc()));
    return S;
  }
  return std::nullopt;
}

Expected<analysis::KernelModel> kernelModel(const RuleInput &In, const FunctionDecl *K) {
  analysis::AnalysisOptions Opts;
  if (In.Request.Block)
    Opts.Block = *In.Request.Block;
  return analysis::analyzeKernel(In.Ctx, K ? *K : In.Kernel, Opts);
}

RuleOutcome proposeLaunch(const RuleInput &In, StringRef Rule, std::string Summary,
                          std::string Rationale, agent::SpecChange Spec) {
  if (Spec.empty())
    return notApplicable("nothing to change");
  agent::Proposal P;
  P.Origin = ("expert:" + Rule).str();
  P.Summary = std::move(Summary);
  P.Rationale = std::move(Rationale);
  P.Spec = std::move(Spec);
  RuleOutcome O;
  O.Proposals.push_back(std::move(P));
  return O;
}

} // namespace forge::passes
