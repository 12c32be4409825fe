//===- passes/optimize/RuleAst.cpp - Index algebra for restructuring rules -===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace clang;
using namespace llvm;

namespace forge::passes {

//===----------------------------------------------------------------------===//
// IndexPoly
//===----------------------------------------------------------------------===//

IndexPoly IndexPoly::constant(int64_t C) {
  IndexPoly P;
  P.add({}, C);
  return P;
}

IndexPoly IndexPoly::atom(unsigned Id) {
  IndexPoly P;
  P.add({Id}, 1);
  return P;
}

void IndexPoly::add(const Monomial &M, int64_t C) {
  if (C == 0)
    return;
  auto [It, New] = Terms.try_emplace(M, C);
  if (!New) {
    It->second += C;
    if (It->second == 0)
      Terms.erase(It);
  }
}

IndexPoly IndexPoly::operator+(const IndexPoly &O) const {
  IndexPoly R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, C);
  return R;
}

IndexPoly IndexPoly::operator-(const IndexPoly &O) const { return *this + O.scaled(-1); }

IndexPoly IndexPoly::operator*(const IndexPoly &O) const {
  IndexPoly R;
  for (const auto &[MA, CA] : Terms)
    for (const auto &[MB, CB] : O.Terms) {
      Monomial M;
      std::merge(MA.begin(), MA.end(), MB.begin(), MB.end(), std::back_inserter(M));
      R.add(M, CA * CB);
    }
  return R;
}

IndexPoly IndexPoly::scaled(int64_t C) const {
  IndexPoly R;
  for (const auto &[M, K] : Terms)
    R.add(M, K * C);
  return R;
}

bool IndexPoly::isConstant() const {
  return Terms.empty() || (Terms.size() == 1 && Terms.begin()->first.empty());
}

int64_t IndexPoly::constantTerm() const {
  auto It = Terms.find({});
  return It == Terms.end() ? 0 : It->second;
}

std::set<unsigned> IndexPoly::atoms() const {
  std::set<unsigned> Out;
  for (const auto &T : Terms)
    Out.insert(T.first.begin(), T.first.end());
  return Out;
}

unsigned IndexPoly::degreeIn(unsigned Id) const {
  unsigned D = 0;
  for (const auto &T : Terms)
    D = std::max(D, unsigned(llvm::count(T.first, Id)));
  return D;
}

bool IndexPoly::isLinear() const {
  return llvm::all_of(Terms, [](const auto &T) { return T.first.size() <= 1; });
}

std::optional<std::pair<IndexPoly, IndexPoly>> IndexPoly::divideBy(unsigned Id) const {
  IndexPoly Q, Rest;
  for (const auto &[M, C] : Terms) {
    unsigned N = unsigned(llvm::count(M, Id));
    if (N > 1)
      return std::nullopt;
    if (N == 0) {
      Rest.add(M, C);
      continue;
    }
    Monomial Less = M;
    Less.erase(llvm::find(Less, Id));
    Q.add(Less, C);
  }
  return std::make_pair(Q, Rest);
}

//===----------------------------------------------------------------------===//
// PolyBuilder
//===----------------------------------------------------------------------===//

PolyBuilder::PolyBuilder(ASTContext &Ctx, const FunctionDecl &Kernel)
    : Ctx(Ctx), Kernel(Kernel) {}

unsigned PolyBuilder::atomFor(const ValueDecl *D) {
  auto It = ByDecl.find(D);
  if (It != ByDecl.end())
    return It->second;
  PolyAtom A;
  A.Decl = D;
  A.Spelling = D->getNameAsString();
  A.Kind = PolyAtom::Variable;
  if (isa<NonTypeTemplateParmDecl>(D)) {
    A.Kind = PolyAtom::TemplateParam;
  } else if (const auto *P = dyn_cast<ParmVarDecl>(D)) {
    if (paramIndex(Kernel, P) && !isModified(P, Kernel.getBody()))
      A.Kind = PolyAtom::Param;
  }
  Atoms.push_back(A);
  ByDecl[D] = unsigned(Atoms.size() - 1);
  return unsigned(Atoms.size() - 1);
}

unsigned PolyBuilder::builtinAtom(StringRef Var, char Dim) {
  std::string Key = (Var + "." + Twine(Dim)).str();
  auto It = ByBuiltin.find(Key);
  if (It != ByBuiltin.end())
    return It->second;
  PolyAtom A;
  A.Spelling = Key;
  A.Component = Dim;
  A.Kind = Var == "threadIdx"  ? PolyAtom::ThreadIdx
           : Var == "blockIdx" ? PolyAtom::BlockIdx
                               : PolyAtom::Dim;
  Atoms.push_back(A);
  ByBuiltin[Key] = unsigned(Atoms.size() - 1);
  return unsigned(Atoms.size() - 1);
}

IndexPoly PolyBuilder::globalIndex(char Dim) {
  int64_t N = BlockDims ? (*BlockDims)[Dim - 'x'] : 0;
  return IndexPoly::atom(builtinAtom("blockIdx", Dim)).scaled(N) +
         IndexPoly::atom(builtinAtom("threadIdx", Dim));
}

std::optional<IndexPoly> PolyBuilder::build(const Expr *E) {
  Why.clear();
  return buildRec(E, 0);
}

std::optional<IndexPoly> PolyBuilder::buildRec(const Expr *E, unsigned Depth) {
  auto Fail = [&](const Expr *At) -> std::optional<IndexPoly> {
    if (Why.empty())
      Why = "'" + textOf(At, Ctx) + "' is not built from +, - and * of integers";
    return std::nullopt;
  };
  if (!E)
    return std::nullopt;
  const Expr *S = stripCasts(E);
  if (!S->getType()->isDependentType() && !S->getType()->isIntegerType())
    return Fail(S);
  if (!S->isValueDependent())
    if (auto V = evaluateInt(S, Ctx))
      return IndexPoly::constant(*V);
  if (auto B = cudaBuiltin(S)) {
    if (B->Var == "blockDim" && BlockDims)
      return IndexPoly::constant((*BlockDims)[B->Dim - 'x']);
    return IndexPoly::atom(builtinAtom(B->Var, B->Dim));
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    BinaryOperatorKind Op = BO->getOpcode();
    if (Op != BO_Add && Op != BO_Sub && Op != BO_Mul && Op != BO_Shl)
      return Fail(S);
    auto L = buildRec(BO->getLHS(), Depth);
    if (!L)
      return std::nullopt;
    auto R = buildRec(BO->getRHS(), Depth);
    if (!R)
      return std::nullopt;
    switch (Op) {
    case BO_Add:
      return *L + *R;
    case BO_Sub:
      return *L - *R;
    case BO_Mul:
      return *L * *R;
    default:
      if (!R->isConstant() || R->constantTerm() < 0 || R->constantTerm() > 30)
        return Fail(S);
      return L->scaled(int64_t(1) << R->constantTerm());
    }
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->getOpcode() != UO_Minus && UO->getOpcode() != UO_Plus)
      return Fail(S);
    auto Sub = buildRec(UO->getSubExpr(), Depth);
    if (!Sub)
      return std::nullopt;
    return UO->getOpcode() == UO_Minus ? Sub->scaled(-1) : *Sub;
  }
  // A small device function whose body is `return <expr>;`: its value in
  // terms of the arguments.
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && Depth < 8 && Inlined.size() < 3)
    if (const FunctionDecl *FD = Call->getDirectCallee(); FD && FD != &Kernel)
      if (const auto *CS = dyn_cast_or_null<CompoundStmt>(FD->getBody());
          CS && CS->size() == 1 && FD->getNumParams() == Call->getNumArgs())
        if (const auto *R = dyn_cast<ReturnStmt>(CS->body_front()); R && R->getRetValue()) {
          llvm::DenseMap<const ParmVarDecl *, IndexPoly> Args;
          for (unsigned I = 0; I < FD->getNumParams(); ++I) {
            auto A = buildRec(Call->getArg(I), Depth + 1);
            if (!A)
              return std::nullopt;
            Args.try_emplace(FD->getParamDecl(I), *A);
          }
          Inlined.push_back(std::move(Args));
          auto V = buildRec(R->getRetValue(), Depth + 1);
          Inlined.pop_back();
          if (V)
            return V;
          return std::nullopt;
        }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
    const ValueDecl *D = DRE->getDecl();
    if (const auto *PD = dyn_cast<ParmVarDecl>(D))
      for (auto It = Inlined.rbegin(); It != Inlined.rend(); ++It)
        if (auto F = It->find(PD); F != It->end())
          return F->second;
    if (isa<NonTypeTemplateParmDecl>(D) || isa<ParmVarDecl>(D))
      return IndexPoly::atom(atomFor(D));
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (VD->hasLocalStorage() && VD->hasInit() && !VD->getType()->isReferenceType() &&
          !Opaque.count(VD) && Depth < 8) {
        auto It = ModifiedCache.find(VD);
        if (It == ModifiedCache.end())
          It = ModifiedCache.try_emplace(VD, isModified(VD, Kernel.getBody())).first;
        if (!It->second && VD->getInitStyle() == VarDecl::CInit)
          return buildRec(VD->getInit(), Depth + 1);
      }
      return IndexPoly::atom(atomFor(VD));
    }
  }
  return Fail(S);
}

std::string PolyBuilder::render(const IndexPoly &P) const {
  std::vector<std::pair<IndexPoly::Monomial, int64_t>> Terms(P.terms().begin(),
                                                             P.terms().end());
  // Builtins first (threadIdx.x + i + 2), then variables, the constant last.
  auto Rank = [&](const IndexPoly::Monomial &M) {
    if (M.empty())
      return 3;
    PolyAtom::KindTy K = Atoms[M.front()].Kind;
    return K == PolyAtom::ThreadIdx || K == PolyAtom::BlockIdx ? 0 : K == PolyAtom::Dim ? 1 : 2;
  };
  llvm::stable_sort(Terms, [&](const auto &A, const auto &B) {
    return std::make_pair(Rank(A.first), A.first) < std::make_pair(Rank(B.first), B.first);
  });
  std::string Out;
  for (const auto &[M, C] : Terms) {
    std::string Mono;
    for (unsigned A : M)
      Mono += (Mono.empty() ? "" : " * ") + Atoms[A].Spelling;
    int64_t Abs = C < 0 ? -C : C;
    std::string Term = M.empty() ? std::to_string(Abs)
                       : Abs == 1 ? Mono
                                  : std::to_string(Abs) + " * " + Mono;
    if (Out.empty())
      Out = (C < 0 ? "-" : "") + Term;
    else
      Out += (C < 0 ? " - " : " + ") + Term;
  }
  return Out.empty() ? "0" : Out;
}

//===----------------------------------------------------------------------===//
// Loops, ranges and facts
//===----------------------------------------------------------------------===//

std::optional<CountedLoop> matchCountedLoop(const ForStmt *F, ASTContext &Ctx,
                                            std::string *Why) {
  auto Fail = [&](std::string W) -> std::optional<CountedLoop> {
    if (Why)
      *Why = std::move(W);
    return std::nullopt;
  };
  CountedLoop L;
  L.Loop = F;
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  if (!DS || !DS->isSingleDecl())
    return Fail("the loop does not declare one counter");
  L.Var = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!L.Var || !L.Var->getType()->isIntegerType() || !L.Var->getInit())
    return Fail("the loop counter is not an initialised integer");
  auto First = evaluateInt(L.Var->getInit(), Ctx);
  if (!First)
    return Fail("the loop's first value '" + textOf(L.Var->getInit(), Ctx) +
                "' is not a constant");
  const auto *Cmp = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Cmp)
    return Fail("the loop has no comparison as its condition");
  const Expr *Bound = nullptr;
  BinaryOperatorKind Op = Cmp->getOpcode();
  if (asVar(Cmp->getLHS()) == L.Var) {
    Bound = Cmp->getRHS();
  } else if (asVar(Cmp->getRHS()) == L.Var) {
    Bound = Cmp->getLHS();
    Op = Op == BO_GT ? BO_LT : Op == BO_GE ? BO_LE : BO_Comma;
  }
  auto Last = Bound ? evaluateInt(Bound, Ctx) : std::nullopt;
  if (!Last || (Op != BO_LT && Op != BO_LE))
    return Fail("the loop's condition is not a constant upper bound on '" +
                L.Var->getNameAsString() + "'");
  bool Step = false;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(F->getInc()))
    Step = U->isIncrementOp() && asVar(U->getSubExpr()) == L.Var;
  else if (const auto *C = dyn_cast_or_null<CompoundAssignOperator>(F->getInc()))
    Step = C->getOpcode() == BO_AddAssign && asVar(C->getLHS()) == L.Var &&
           evaluateInt(C->getRHS(), Ctx) == int64_t(1);
  if (!Step)
    return Fail("the loop does not step '" + L.Var->getNameAsString() + "' by one");
  if (isModified(L.Var, F->getBody()))
    return Fail("the loop body assigns its counter");
  L.First = *First;
  L.Last = Op == BO_LT ? *Last - 1 : *Last;
  return L;
}

std::optional<std::pair<int64_t, int64_t>> polyRange(const IndexPoly &P, const PolyBuilder &B,
                                                     ArrayRef<CountedLoop> Loops) {
  int64_t Lo = 0, Hi = 0;
  for (const auto &[M, C] : P.terms()) {
    if (M.empty()) {
      Lo += C;
      Hi += C;
      continue;
    }
    if (M.size() != 1)
      return std::nullopt;
    const PolyAtom &A = B.atom(M[0]);
    const auto *L = llvm::find_if(Loops, [&](const CountedLoop &X) { return X.Var == A.Decl; });
    if (L == Loops.end())
      return std::nullopt;
    int64_t X = C * L->First, Y = C * L->Last;
    Lo += std::min(X, Y);
    Hi += std::max(X, Y);
  }
  return std::make_pair(Lo, Hi);
}

std::vector<const Stmt *> ancestors(const Stmt *S, const Stmt *Body, ASTContext &Ctx) {
  std::vector<const Stmt *> Out;
  DynTypedNode N = DynTypedNode::create(*S);
  while (true) {
    auto Parents = Ctx.getParents(N);
    if (Parents.empty())
      break;
    N = Parents[0];
    const Stmt *P = N.get<Stmt>();
    if (!P || P == Body)
      break;
    Out.push_back(P);
  }
  return Out;
}

namespace {
/// `if (c) continue;` (or break/return), with no else branch.
const Expr *exitCondition(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *T = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(T))
    T = CS->size() == 1 ? CS->body_front() : nullptr;
  if (isa_and_nonnull<ContinueStmt, BreakStmt, ReturnStmt>(T))
    return If->getCond();
  return nullptr;
}
} // namespace

std::vector<Condition> conditionsAt(const Stmt *S, const Stmt *Body, ASTContext &Ctx) {
  std::vector<Condition> Out;
  const Stmt *Prev = S;
  std::vector<const Stmt *> Up = ancestors(S, Body, Ctx);
  Up.push_back(Body);
  for (const Stmt *P : Up) {
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Prev == If->getThen())
        Out.push_back({If->getCond(), true});
      else if (Prev == If->getElse())
        Out.push_back({If->getCond(), false});
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (Prev == CO->getTrueExpr())
        Out.push_back({CO->getCond(), true});
      else if (Prev == CO->getFalseExpr())
        Out.push_back({CO->getCond(), false});
    } else if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->getOpcode() == BO_LAnd && Prev == BO->getRHS())
        Out.push_back({BO->getLHS(), true});
      else if (BO->getOpcode() == BO_LOr && Prev == BO->getRHS())
        Out.push_back({BO->getLHS(), false});
    } else if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
      for (const Stmt *Child : CS->body()) {
        if (Child == Prev)
          break;
        if (const Expr *C = exitCondition(Child))
          Out.push_back({C, false});
      }
    }
    Prev = P;
  }
  return Out;
}

namespace {
void addFacts(const Expr *E, bool Holds, PolyBuilder &B, std::vector<IndexPoly> &Out) {
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_LNot)
      addFacts(U->getSubExpr(), !Holds, B, Out);
    return;
  }
  const auto *BO = dyn_cast<BinaryOperator>(E);
  if (!BO)
    return;
  BinaryOperatorKind Op = BO->getOpcode();
  if ((Op == BO_LAnd && Holds) || (Op == BO_LOr && !Holds)) {
    addFacts(BO->getLHS(), Holds, B, Out);
    addFacts(BO->getRHS(), Holds, B, Out);
    return;
  }
  if (!BO->isComparisonOp())
    return;
  auto L = B.build(BO->getLHS());
  auto R = B.build(BO->getRHS());
  if (!L || !R)
    return;
  if (!Holds) {
    switch (Op) {
    case BO_LT: Op = BO_GE; break;
    case BO_LE: Op = BO_GT; break;
    case BO_GT: Op = BO_LE; break;
    case BO_GE: Op = BO_LT; break;
    case BO_EQ: Op = BO_NE; break;
    case BO_NE: Op = BO_EQ; break;
    default: return;
    }
  }
  IndexPoly One = IndexPoly::constant(1);
  switch (Op) {
  case BO_LT: Out.push_back(*R - *L - One); break;
  case BO_LE: Out.push_back(*R - *L); break;
  case BO_GT: Out.push_back(*L - *R - One); break;
  case BO_GE: Out.push_back(*L - *R); break;
  case BO_EQ:
    Out.push_back(*L - *R);
    Out.push_back(*R - *L);
    break;
  default: break;
  }
}
} // namespace

std::vector<IndexPoly> factsFrom(ArrayRef<Condition> Conds, PolyBuilder &B) {
  std::vector<IndexPoly> Out;
  for (const Condition &C : Conds)
    addFacts(C.Cond, C.Holds, B, Out);
  return Out;
}

//===----------------------------------------------------------------------===//
// Names and text
//===----------------------------------------------------------------------===//

namespace {
class NameCollector : public DynamicRecursiveASTVisitor {
public:
  std::set<std::string> Names;
  bool VisitNamedDecl(NamedDecl *D) override {
    if (D->getIdentifier())
      Names.insert(D->getName().str());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    if (E->getDecl()->getIdentifier())
      Names.insert(E->getDecl()->getName().str());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) override {
    if (E->getMemberDecl()->getIdentifier())
      Names.insert(E->getMemberDecl()->getName().str());
    return true;
  }
};
} // namespace

std::string freshName(StringRef Base, const FunctionDecl &Kernel, std::set<std::string> &Taken) {
  NameCollector C;
  C.TraverseDecl(const_cast<FunctionDecl *>(&Kernel));
  auto Free = [&](const std::string &N) {
    if (C.Names.count(N) || Taken.count(N))
      return false;
    // Nor a macro, a type or a function visible at the kernel.
    IdentifierInfo &II = Kernel.getASTContext().Idents.get(N);
    if (II.hasMacroDefinition())
      return false;
    const DeclContext *DC = Kernel.getDeclContext();
    return DC->lookup(DeclarationName(&II)).empty() &&
           Kernel.getASTContext().getTranslationUnitDecl()->lookup(DeclarationName(&II)).empty();
  };
  std::string Name = Base.str();
  for (unsigned I = 2; !Free(Name); ++I)
    Name = (Base + Twine(I)).str();
  Taken.insert(Name);
  return Name;
}

std::optional<std::string>
textWithReplacements(const Stmt *S, ASTContext &Ctx,
                     ArrayRef<std::pair<SourceRange, std::string>> Repl) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  // Plain text, whole macro invocations, or one argument expanded once
  // (editableRange): editing the text edits exactly the node.
  auto Range = [&](SourceRange R) { return editableRange(SM, LO, R); };
  auto Whole = Range(S->getSourceRange());
  if (!Whole)
    return std::nullopt;
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(Whole->first, &Invalid);
  if (Invalid)
    return std::nullopt;
  std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> Parts;
  for (const auto &[R, T] : Repl) {
    // Text that replaces tokens inside a macro invocation must not split
    // an argument.
    if ((R.getBegin().isMacroID() || R.getEnd().isMacroID()) && !fitsMacroArgument(T))
      return std::nullopt;
    auto X = Range(R);
    if (!X || X->first != Whole->first || X->second.first < Whole->second.first ||
        X->second.second > Whole->second.second)
      return std::nullopt;
    Parts.push_back({X->second, T});
  }
  llvm::sort(Parts, [](const auto &A, const auto &B) { return A.first < B.first; });
  std::string Out;
  unsigned Pos = Whole->second.first;
  for (const auto &[R, T] : Parts) {
    if (R.first < Pos)
      return std::nullopt; // overlapping replacements
    Out += Buffer.slice(Pos, R.first);
    Out += T;
    Pos = R.second;
  }
  Out += Buffer.slice(Pos, Whole->second.second);
  return Out;
}

unsigned pastSemicolon(StringRef Source, unsigned End) {
  size_t P = End;
  while (P < Source.size() && (Source[P] == ' ' || Source[P] == '\t'))
    ++P;
  return P < Source.size() && Source[P] == ';' ? unsigned(P + 1) : End;
}

std::string indentFollowingLines(StringRef Text, StringRef Extra) {
  std::string Out;
  for (char C : Text) {
    Out += C;
    if (C == '\n')
      Out += Extra;
  }
  return Out;
}

std::string typeSpelling(QualType T, ASTContext &Ctx) {
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  return T.getUnqualifiedType().getAsString(PP);
}

std::string zeroOf(QualType T, ASTContext &Ctx) {
  // A template parameter's canonical type has no spelling ("type-parameter-0-0").
  if (T->isDependentType())
    return typeSpelling(T, Ctx) + "(0)";
  T = T.getCanonicalType().getUnqualifiedType();
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    return "0.0f";
  if (T->isSpecificBuiltinType(BuiltinType::Double))
    return "0.0";
  if (T->isIntegerType())
    return "0";
  return typeSpelling(T, Ctx) + "(0)";
}

namespace {
class SyncFinder : public DynamicRecursiveASTVisitor {
public:
  bool Found = false;
  bool VisitCallExpr(CallExpr *C) override {
    if (const FunctionDecl *FD = C->getDirectCallee())
      if (FD->getIdentifier() && FD->getName().starts_with("__syncthreads"))
        Found = true;
    return !Found;
  }
};
class RefFinder : public DynamicRecursiveASTVisitor {
public:
  explicit RefFinder(const ValueDecl *V) : V(V) {}
  bool Found = false;
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    Found |= E->getDecl() == V;
    return !Found;
  }

private:
  const ValueDecl *V;
};
} // namespace

bool callsSyncthreads(const Stmt *S) {
  SyncFinder F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

bool references(const Stmt *S, const ValueDecl *V) {
  RefFinder F(V);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

bool hasOwnContinue(const Stmt *Body) {
  struct Cont : DynamicRecursiveASTVisitor {
    bool Found = false;
    bool TraverseForStmt(ForStmt *) override { return true; }
    bool TraverseWhileStmt(WhileStmt *) override { return true; }
    bool TraverseDoStmt(DoStmt *) override { return true; }
    bool TraverseCXXForRangeStmt(CXXForRangeStmt *) override { return true; }
    bool VisitContinueStmt(ContinueStmt *) override { return !(Found = true); }
  } CF;
  CF.TraverseStmt(const_cast<Stmt *>(Body));
  return CF.Found;
}

std::vector<const Stmt *> leadingUniformExits(const CompoundStmt *Body,
                                              const FunctionDecl &Kernel) {
  // C reads nothing a thread of the block may see differently.
  struct Uniform : DynamicRecursiveASTVisitor {
    const FunctionDecl &K;
    bool Ok = true;
    explicit Uniform(const FunctionDecl &K) : K(K) {}
    bool TraverseMemberExpr(MemberExpr *E) override {
      if (auto B = frontend::cudaBuiltin(E)) {
        Ok &= B->Var != "threadIdx";
        return Ok;
      }
      return DynamicRecursiveASTVisitor::TraverseMemberExpr(E);
    }
    bool TraversePseudoObjectExpr(PseudoObjectExpr *E) override {
      if (auto B = frontend::cudaBuiltin(E)) {
        Ok &= B->Var != "threadIdx";
        return Ok;
      }
      return !(Ok = false);
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) override {
      const ValueDecl *D = E->getDecl();
      if (isa<EnumConstantDecl>(D))
        return true;
      if (const auto *P = dyn_cast<ParmVarDecl>(D);
          P && P->getDeclContext() == &K && P->getType()->isScalarType() &&
          !P->getType()->isPointerType() && !isModified(P, K.getBody()))
        return true;
      if (const auto *V = dyn_cast<VarDecl>(D); V && V->isConstexpr())
        return true;
      return !(Ok = false);
    }
    bool VisitCallExpr(CallExpr *) override { return !(Ok = false); }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) override { return !(Ok = false); }
    bool VisitUnaryOperator(UnaryOperator *U) override {
      Ok &= U->getOpcode() != UO_Deref && !U->isIncrementDecrementOp();
      return Ok;
    }
    bool VisitBinaryOperator(BinaryOperator *B) override {
      Ok &= !B->isAssignmentOp();
      return Ok;
    }
  };
  std::vector<const Stmt *> Out;
  if (!Body)
    return Out;
  for (const Stmt *S : Body->body()) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
      break;
    const Stmt *Last = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(Last))
      Last = CS->body_empty() ? nullptr : CS->body_back();
    if (!isa_and_nonnull<ReturnStmt>(Last))
      break;
    Uniform U(Kernel);
    U.TraverseStmt(const_cast<Expr *>(If->getCond()));
    if (!U.Ok)
      break;
    Out.push_back(S);
  }
  return Out;
}

namespace {
/// The DeclRefExprs of a body that name threadIdx or blockIdx (the builtin
/// or a variable that shadows it).
struct IndexVarRefs : DynamicRecursiveASTVisitor {
  std::vector<const DeclRefExpr *> Found;
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    const ValueDecl *D = E->getDecl();
    if (frontend::isCudaBuiltinVar(D) && (D->getName() == "threadIdx" || D->getName() == "blockIdx"))
      Found.push_back(E);
    return true;
  }
};
} // namespace

std::optional<ForwardedIndices> forwardedIndices(const CallExpr *C) {
  const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
  if (!F || !F->hasBody() || F->getNumParams() != C->getNumArgs())
    return std::nullopt;
  ForwardedIndices Out;
  Out.Callee = F;
  std::set<const ParmVarDecl *> Params;
  for (unsigned I = 0; I < F->getNumParams(); ++I) {
    const ParmVarDecl *P = F->getParamDecl(I);
    if (!P->getIdentifier() || (P->getName() != "threadIdx" && P->getName() != "blockIdx"))
      continue;
    const Expr *A = C->getArg(I)->IgnoreImplicit();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(A); CE && CE->getNumArgs() == 1)
      A = CE->getArg(0)->IgnoreImplicit();
    const auto *Make = dyn_cast<CallExpr>(A);
    if (!Make || calleeNameOf(Make) != "make_uint3" || Make->getNumArgs() != 3)
      return std::nullopt;
    for (unsigned D = 0; D < 3; ++D) {
      if (!frontend::isCudaBuiltin(Make->getArg(D), P->getName(), "xyz"[D]))
        return std::nullopt;
      Out.Components.push_back(Make->getArg(D));
    }
    Params.insert(P);
  }
  if (Params.empty())
    return std::nullopt;
  // Every threadIdx or blockIdx the callee reads is one of those parameters.
  IndexVarRefs Refs;
  Refs.TraverseStmt(F->getBody());
  for (const DeclRefExpr *R : Refs.Found)
    if (!Params.count(dyn_cast<ParmVarDecl>(R->getDecl())))
      return std::nullopt;
  return Out;
}

std::string forwardedIndexArgument(StringRef Var) {
  return formatv("make_uint3({0}.x, {0}.y, {0}.z)", Var).str();
}

std::set<std::string> indexVariablesRead(const Stmt *S) {
  IndexVarRefs Refs;
  Refs.TraverseStmt(const_cast<Stmt *>(S));
  std::set<std::string> Out;
  for (const DeclRefExpr *R : Refs.Found)
    Out.insert(R->getDecl()->getName().str());
  return Out;
}

std::string calleeNameOf(const CallExpr *C) {
  if (const FunctionDecl *FD = C->getDirectCallee())
    return FD->getIdentifier() ? FD->getName().str() : FD->getNameAsString();
  if (const auto *U = dyn_cast<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts()))
    return U->getName().getAsString();
  return "";
}

bool isSyncStmt(const Stmt *S) {
  if (const auto *E = dyn_cast_or_null<Expr>(S))
    if (const auto *C = dyn_cast<CallExpr>(E->IgnoreImplicit()))
      return calleeNameOf(C) == "__syncthreads";
  return false;
}

void chainOperands(const Expr *E, BinaryOperatorKind Op, std::vector<const Expr *> &Out) {
  const Expr *S = E->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->getOpcode() == Op) {
    chainOperands(B->getLHS(), Op, Out);
    chainOperands(B->getRHS(), Op, Out);
    return;
  }
  Out.push_back(E);
}

bool isThreadEffect(StringRef N) {
  return N.starts_with("__syncthreads") || N.starts_with("__syncwarp") || N.starts_with("__shfl") ||
         N.starts_with("__ballot") || N.starts_with("__any") || N.starts_with("__all") ||
         N.starts_with("__activemask") || N.starts_with("__match") || N.starts_with("__reduce_") ||
         N.starts_with("__threadfence") || N == "printf" || N == "clock" || N == "clock64" ||
         N == "__nanosleep" || N == "__trap" || N == "__brkpt" || N == "malloc" || N == "free" ||
         N == "__assertfail" || N == "assert" || N.starts_with("curand") ||
         N.starts_with("__prof_trigger") || N == "__globaltimer" || N.starts_with("cudaLaunch") ||
         N == "cudaGetParameterBuffer" || N.starts_with("__cp_async") ||
         N.starts_with("__pipeline");
}

const Stmt *parentStmt(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode N = DynTypedNode::create(*S);
  while (true) {
    auto Ps = Ctx.getParents(N);
    if (Ps.empty())
      return nullptr;
    N = Ps[0];
    if (const Stmt *P = N.get<Stmt>())
      return P;
    if (!N.get<Decl>())
      return nullptr;
  }
}

const Stmt *loopBodyOf(const Stmt *Loop) {
  if (const auto *F = dyn_cast_or_null<ForStmt>(Loop))
    return F->getBody();
  if (const auto *W = dyn_cast_or_null<WhileStmt>(Loop))
    return W->getBody();
  if (const auto *D = dyn_cast_or_null<DoStmt>(Loop))
    return D->getBody();
  if (const auto *R = dyn_cast_or_null<CXXForRangeStmt>(Loop))
    return R->getBody();
  return nullptr;
}

bool BodyHazardScan::VisitVarDecl(VarDecl *V) {
  if (V->hasAttr<CUDASharedAttr>())
    refuse(Subject + " declares the __shared__ array '" + V->getNameAsString() + "'");
  if (V->isStaticLocal())
    refuse(Subject + " has a static local '" + V->getNameAsString() + "'");
  return true;
}

bool BodyHazardScan::VisitLabelStmt(LabelStmt *L) {
  if (!inside())
    refuse(Subject + " has the label '" + std::string(L->getName()) +
           "' (the fallback copy of the body would repeat it)");
  return true;
}

bool BodyHazardScan::VisitGCCAsmStmt(GCCAsmStmt *) {
  refuse(Subject + " has inline assembly");
  return true;
}

bool BodyHazardScan::VisitCallExpr(CallExpr *C) {
  std::string N = calleeNameOf(C);
  if (isThreadEffect(N)) {
    refuse(Subject + " calls '" + N + "', " + Consequence);
    return true;
  }
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD) {
    if (!isa<CXXOperatorCallExpr>(C) &&
        !isa<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts()))
      refuse(Subject + " calls through a function pointer");
    return true;
  }
  if (SM.isInSystemHeader(FD->getLocation()) || !FD->hasBody())
    return true;
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || takeCall(C, Def))
    return true;
  // A device function of the file: walked, so that what it does is seen.
  if (Seen.insert(Def).second && Depth < 4) {
    ++Depth;
    TraverseStmt(Def->getBody());
    --Depth;
  }
  return true;
}

} // namespace forge::passes
