//===- Analysis/FormBuilder.cpp - Expressions as index forms and pointers -===//
///
/// \file
/// Turns integer expressions into IndexForms and pointer expressions into
/// PointerValues, following the reaching definitions of locals, casts
/// between integer types, min/max, `/` `%` `<<` `>>` `&`, and `?:`. What it
/// does not follow becomes an unknown atom with the reason.
///
//===----------------------------------------------------------------------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

namespace {
bool isMinName(StringRef N) {
  return N == "min" || N == "umin" || N == "llmin" || N == "ullmin" || N == "imin";
}
bool isMaxName(StringRef N) {
  return N == "max" || N == "umax" || N == "llmax" || N == "ullmax" || N == "imax";
}
bool isLoadCallee(StringRef N) {
  return N == "__ldg" || N == "__ldcg" || N == "__ldca" || N == "__ldcs" || N == "__ldlu" ||
         N == "__ldcv";
}
/// The kernel parameter E names directly, unassigned.
const ParmVarDecl *kernelParam(const Expr *E, const FunctionDecl &K) {
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *P = D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
  return P && P->getDeclContext() == &K ? P : nullptr;
}
} // namespace

IndexForm KernelAnalyzer::unknownForm(UnknownKind Why, const Expr *E, std::string Reason,
                                      const void *Key, std::vector<IndexForm> Ops) {
  std::string Name = E ? text(E) : "?";
  if (Name.empty())
    Name = "?";
  UniformityInfo U = E ? uniformityOf(E) : makeUniformity(Uniformity::ThreadVarying, Reason);
  // A loaded value depends on the index it was loaded from.
  if (E && Why == UnknownKind::DataDependent)
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts())) {
      PointerValue P = addressRec(A, 1);
      Ops.push_back(P.Offset);
    }
  // Distinct unknowns without a node get keys no node address can take.
  if (!Key && !E)
    Key = reinterpret_cast<const void *>(FreshKey++);
  return IndexForm::atom(Table->unknown(Why, Name, Reason, E ? lineOf(Ctx, E->getBeginLoc()) : 0, U,
                                        Key ? Key : E, std::move(Ops)));
}

IndexForm KernelAnalyzer::formOf(const Expr *E) { return formRec(E, 0); }

std::string KernelAnalyzer::nameOf(const IndexForm &F) {
  std::vector<const VarDecl *> Seen;
  for (size_t D = 0; D < Tracker->numDefs(); ++D) {
    const VarDecl *V = Tracker->def(int(D)).Var;
    if (!V || is_contained(Seen, V) || !isIntegerLike(V->getType()))
      continue;
    Seen.push_back(V);
    const std::vector<int> &Defs = Tracker->defsOf(V);
    if (Defs.size() == 1 && Tracker->def(Defs.front()).Kind == ValueDef::Value &&
        formOfDef(Defs.front(), 0) == F)
      return V->getNameAsString();
  }
  if (F.terms().size() == 1 && F.terms().begin()->second == 1 &&
      F.terms().begin()->first.size() == 1) {
    const Atom &A = (*Table)[F.terms().begin()->first.front()];
    if (A.Kind == AtomKind::LoopVar)
      return A.Name;
  }
  return Table->render(F);
}

std::optional<Comparison> KernelAnalyzer::comparisonOf(const Expr *Cond, bool Holds) {
  if (!Cond)
    return std::nullopt;
  const Expr *C = Cond->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot)
    return comparisonOf(U->getSubExpr(), !Holds);
  if (const Expr *D = definingExpr(C); D && D != C)
    return comparisonOf(D, Holds);
  const auto *B = dyn_cast<BinaryOperator>(C);
  if (!B || !B->isComparisonOp())
    return std::nullopt;
  QualType LT = B->getLHS()->IgnoreParenImpCasts()->getType();
  QualType RT = B->getRHS()->IgnoreParenImpCasts()->getType();
  if ((!isIntegerLike(LT) && !LT->isDependentType()) ||
      (!isIntegerLike(RT) && !RT->isDependentType()))
    return std::nullopt;
  Comparison Cmp;
  Cmp.Lhs = formOf(B->getLHS());
  Cmp.Rhs = formOf(B->getRHS());
  switch (B->getOpcode()) {
  case BO_LT:
    Cmp.Op = CmpOp::LT;
    break;
  case BO_LE:
    Cmp.Op = CmpOp::LE;
    break;
  case BO_GT:
    Cmp.Op = CmpOp::GT;
    break;
  case BO_GE:
    Cmp.Op = CmpOp::GE;
    break;
  case BO_EQ:
    Cmp.Op = CmpOp::EQ;
    break;
  default:
    Cmp.Op = CmpOp::NE;
    break;
  }
  return Holds ? Cmp : Cmp.negated();
}

const Expr *KernelAnalyzer::definingExpr(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 4)
    return E;
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!D)
    return E;
  int Def = Tracker->defOf(D);
  if (Def < 0 || Tracker->def(Def).Kind != ValueDef::Value || !Tracker->def(Def).E)
    return E;
  return definingExpr(Tracker->def(Def).E, Depth + 1);
}

IndexForm KernelAnalyzer::formRec(const Expr *E, unsigned Depth) {
  if (!E)
    return unknownForm(UnknownKind::Opaque, nullptr, "no expression");
  E = E->IgnoreParens();
  // Inside an inlined callee the same expression means different things.
  bool UseMemo = Inlined.empty();
  if (UseMemo) {
    auto Memo = ExprForm.find(E);
    if (Memo != ExprForm.end())
      return Memo->second;
  }
  IndexForm F = [&]() -> IndexForm {
    if (Depth > 48)
      return unknownForm(UnknownKind::Opaque, E, "'" + text(E) + "' is nested too deeply");
    QualType T = E->getType();
    bool Dependent = T->isDependentType();
    if (!Dependent && !isIntegerLike(T)) {
      if (T->isRealFloatingType())
        return unknownForm(UnknownKind::NonInteger, E,
                           "'" + text(E) + "' is a floating-point value");
      return unknownForm(UnknownKind::Opaque, E, "'" + text(E) + "' is not an integer");
    }
    if (auto B = frontend::cudaBuiltin(E)) {
      if (B->Var == "blockDim" && Opts.Block)
        return IndexForm::constant((*Opts.Block)[B->Dim - 'x']);
      return IndexForm::atom(Table->builtin(B->Var, B->Dim));
    }
    if (auto C = constantInt(E, Ctx))
      return IndexForm::constant(*C);
    if (const auto *Cast = dyn_cast<CastExpr>(E)) {
      const Expr *Sub = Cast->getSubExpr();
      // (int)x is an explicit no-op over an implicit conversion: judge (and
      // name) the conversion by the explicit cast.
      const Expr *Inner = isa<ExplicitCastExpr>(Cast) ? Sub->IgnoreImpCasts() : Sub;
      QualType ST = Inner->getType();
      if (isIntegerLike(ST) || ST->isDependentType())
        return formRec(Sub, Depth + 1);
      if (ST->isRealFloatingType()) {
        // (int)(x[i] * n): a bin computed from data.
        if (readsMemory(Sub))
          return unknownForm(UnknownKind::DataDependent, E,
                             "'" + text(E) +
                                 "' converts a floating-point value computed "
                                 "from memory: data-dependent");
        return unknownForm(UnknownKind::NonInteger, E,
                           "'" + text(E) + "' converts a floating-point value");
      }
      return unknownForm(UnknownKind::Opaque, E, "'" + text(E) + "' converts a pointer");
    }
    if (const auto *FC = dyn_cast<CXXUnresolvedConstructExpr>(E); FC && FC->getNumArgs() == 1)
      return formRec(FC->getArg(0), Depth + 1);
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      const ValueDecl *VD = D->getDecl();
      if (const auto *NT = dyn_cast<NonTypeTemplateParmDecl>(VD))
        return IndexForm::atom(Table->symbol(AtomKind::TemplateParam, NT, NT->getName()));
      if (const auto *V = dyn_cast<VarDecl>(VD)) {
        if (const auto *P = dyn_cast<ParmVarDecl>(V); P && !Inlined.empty()) {
          auto It = Inlined.back().find(P);
          if (It != Inlined.back().end())
            return It->second;
        }
        if (const auto *P = dyn_cast<ParmVarDecl>(V);
            P && P->getDeclContext() == &Kernel && !Tracker->isModifiedParam(P))
          return IndexForm::atom(Table->symbol(AtomKind::Param, P, P->getName()));
        if (Tracker->tracked(V)) {
          int Def = Tracker->defOf(D);
          if (Def < 0)
            return unknownForm(UnknownKind::Opaque, E,
                               "the value of '" + V->getNameAsString() + "' is not followed");
          return formOfDef(Def, Depth + 1);
        }
        if (V->getName() == "warpSize" && !V->hasLocalStorage())
          return IndexForm::constant(32);
        if ((V->isConstexpr() || V->getType().isConstQualified()) && V->getInit() &&
            !V->hasAttr<CUDASharedAttr>())
          return formRec(V->getInit(), Depth + 1);
        return unknownForm(UnknownKind::Opaque, E,
                           "'" + V->getNameAsString() + "' is not a local the analysis follows");
      }
      return unknownForm(UnknownKind::Opaque, E, "'" + text(E) + "' is not a variable");
    }
    if (const auto *M = dyn_cast<MemberExpr>(E)) {
      // A field of a struct parameter passed by value is a parameter too.
      if (!M->isArrow())
        if (const ParmVarDecl *P = kernelParam(M->getBase(), Kernel))
          if (!Tracker->isModifiedParam(P))
            return IndexForm::atom(
                Table->symbol(AtomKind::Param, M->getMemberDecl(),
                              P->getName().str() + "." + M->getMemberDecl()->getNameAsString(),
                              "field:" + std::to_string(reinterpret_cast<uintptr_t>(P)) + ":" +
                                  M->getMemberDecl()->getNameAsString()));
      if (M->isArrow())
        return unknownForm(UnknownKind::DataDependent, E,
                           "'" + text(E) + "' is loaded from memory: data-dependent");
      return unknownForm(UnknownKind::Opaque, E,
                         "'" + text(E) + "' is a field the analysis does not follow");
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      BinaryOperatorKind Op = B->getOpcode();
      if (Op == BO_Comma)
        return formRec(B->getRHS(), Depth + 1);
      if (Op == BO_Assign)
        return formRec(B->getRHS(), Depth + 1);
      if (B->isComparisonOp()) {
        auto Cmp = comparisonOf(B, true);
        return Table->select(Cmp, text(B), uniformityOf(B), IndexForm::constant(1), IndexForm());
      }
      if (Op == BO_LAnd || Op == BO_LOr || B->isAssignmentOp())
        return unknownForm(UnknownKind::Opaque, E, "'" + text(E) + "' is a truth value");
      IndexForm L = formRec(B->getLHS(), Depth + 1);
      IndexForm R = formRec(B->getRHS(), Depth + 1);
      switch (Op) {
      case BO_Add:
        return L + R;
      case BO_Sub:
        return L - R;
      case BO_Mul:
        return L * R;
      case BO_Div:
        return Table->div(L, R);
      case BO_Rem:
        return Table->mod(L, R);
      case BO_Shl:
        if (auto K = R.constantValue(); K && *K >= 0 && *K < 62)
          return L.scaled(int64_t(1) << *K);
        return unknownForm(UnknownKind::Opaque, E,
                           "'" + text(E) + "' shifts by a non-constant amount");
      case BO_Shr:
        if (auto K = R.constantValue(); K && *K >= 0 && *K < 62)
          return Table->div(L, IndexForm::constant(int64_t(1) << *K));
        return unknownForm(UnknownKind::Opaque, E,
                           "'" + text(E) + "' shifts by a non-constant amount");
      case BO_And:
        // x & (2^k - 1) is x % 2^k for the non-negative values indices take.
        for (auto [Mask, Other] : {std::pair(R, L), std::pair(L, R)})
          if (auto K = Mask.constantValue(); K && *K > 0 && isPowerOf2_64(uint64_t(*K) + 1))
            return Table->mod(Other, IndexForm::constant(*K + 1));
        return unknownForm(UnknownKind::Opaque, E,
                           "'" + text(E) + "' masks with a value that is not 2^k - 1");
      default:
        // The operands are kept: what the value depends on (loads, threads).
        return unknownForm(UnknownKind::Opaque, E,
                           "'" + text(E) + "' uses an operator the analysis does not follow",
                           nullptr, {L, R});
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      switch (U->getOpcode()) {
      case UO_Minus:
        return -formRec(U->getSubExpr(), Depth + 1);
      case UO_Plus:
        return formRec(U->getSubExpr(), Depth + 1);
      case UO_PreInc:
      case UO_PreDec:
        return formRec(U->getSubExpr(), Depth + 1) +
               IndexForm::constant(U->getOpcode() == UO_PreInc ? 1 : -1);
      case UO_PostInc:
      case UO_PostDec:
        return formRec(U->getSubExpr(), Depth + 1);
      case UO_Deref:
        return unknownForm(UnknownKind::DataDependent, E,
                           "'" + text(E) + "' is loaded from memory: data-dependent");
      default:
        return unknownForm(UnknownKind::Opaque, E,
                           "'" + text(E) + "' uses an operator the analysis does not follow");
      }
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      IndexForm T = formRec(C->getTrueExpr(), Depth + 1);
      IndexForm Fa = formRec(C->getFalseExpr(), Depth + 1);
      return Table->select(comparisonOf(C->getCond(), true), text(C->getCond()),
                           uniformityOf(C->getCond()), T, Fa);
    }
    if (isa<ArraySubscriptExpr>(E))
      return unknownForm(UnknownKind::DataDependent, E,
                         "'" + text(E) + "' is loaded from memory: data-dependent");
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      StringRef N = calleeName(Call);
      if ((isMinName(N) || isMaxName(N)) && Call->getNumArgs() == 2) {
        IndexForm A = formRec(Call->getArg(0), Depth + 1);
        IndexForm B = formRec(Call->getArg(1), Depth + 1);
        return isMinName(N) ? Table->min(A, B) : Table->max(A, B);
      }
      if ((N == "__mul24" || N == "__umul24") && Call->getNumArgs() == 2)
        return formRec(Call->getArg(0), Depth + 1) * formRec(Call->getArg(1), Depth + 1);
      if (isLoadCallee(N))
        return unknownForm(UnknownKind::DataDependent, E,
                           "'" + text(E) + "' is loaded from memory: data-dependent");
      // A small device function, `return <expr>;`: its value in terms of
      // the arguments (int gid() { return blockIdx.x * blockDim.x + ... }).
      if (const FunctionDecl *FD = Call->getDirectCallee(); FD && Inlined.size() < 3)
        if (const auto *CS = dyn_cast_or_null<CompoundStmt>(FD->getBody());
            CS && CS->size() == 1 && FD->getNumParams() == Call->getNumArgs())
          if (const auto *R = dyn_cast<ReturnStmt>(CS->body_front()); R && R->getRetValue()) {
            DenseMap<const ParmVarDecl *, IndexForm> Args;
            bool OK = true;
            for (unsigned I = 0; I < FD->getNumParams() && OK; ++I) {
              OK = isIntegerLike(FD->getParamDecl(I)->getType());
              if (OK)
                Args[FD->getParamDecl(I)] = formRec(Call->getArg(I), Depth + 1);
            }
            if (OK) {
              Inlined.push_back(std::move(Args));
              IndexForm V = formRec(R->getRetValue(), Depth + 1);
              Inlined.pop_back();
              // Unknowns inside the callee would be shared by every call.
              if (!Table->unknownAtom(V))
                return V;
            }
          }
      return unknownForm(UnknownKind::Call, E,
                         "'" + text(E) + "' is the result of a call to '" +
                             (N.empty() ? std::string("a function") : N.str()) + "'");
    }
    return unknownForm(UnknownKind::Opaque, E,
                       "'" + text(E) + "' is not an integer expression the analysis follows");
  }();
  if (Table->dependsOnKind(F, AtomKind::Mod))
    F = Table->simplify(F);
  if (UseMemo)
    ExprForm[E] = F;
  return F;
}

IndexForm KernelAnalyzer::formOfDef(int D, unsigned Depth) {
  if (D < 0)
    return unknownForm(UnknownKind::Opaque, nullptr, "a value the analysis does not follow");
  if (DefForm.size() < Tracker->numDefs()) {
    DefForm.resize(Tracker->numDefs());
    DefBusy.resize(Tracker->numDefs(), 0);
  }
  if (DefForm[D])
    return *DefForm[D];
  const ValueDef &Def = Tracker->def(D);
  std::string Name = Def.Var ? Def.Var->getNameAsString() : "?";
  auto Unknown = [&](UnknownKind K, std::string Why) {
    return IndexForm::atom(Table->unknown(
        K, Name, Why, Def.At ? lineOf(Ctx, Def.At->getBeginLoc()) : 0, defUniformity(D), &Def));
  };
  if (DefBusy[D] || Depth > 48)
    return Unknown(UnknownKind::Opaque, "the value of '" + Name + "' depends on itself");
  DefBusy[D] = 1;
  IndexForm F = [&]() -> IndexForm {
    if (Def.Var && Def.Var->getType()->isPointerType())
      return Unknown(UnknownKind::Opaque, "'" + Name + "' is a pointer");
    switch (Def.Kind) {
    case ValueDef::Value:
      return formRec(Def.E, Depth + 1);
    case ValueDef::Compound: {
      IndexForm P = formOfDef(Def.Prev, Depth + 1);
      IndexForm R = formRec(Def.E, Depth + 1);
      switch (Def.Op) {
      case BO_Add:
        return P + R;
      case BO_Sub:
        return P - R;
      case BO_Mul:
        return P * R;
      case BO_Div:
        return Table->div(P, R);
      case BO_Rem:
        return Table->mod(P, R);
      case BO_Shl:
        if (auto K = R.constantValue(); K && *K >= 0 && *K < 62)
          return P.scaled(int64_t(1) << *K);
        break;
      case BO_Shr:
        if (auto K = R.constantValue(); K && *K >= 0 && *K < 62)
          return Table->div(P, IndexForm::constant(int64_t(1) << *K));
        break;
      default:
        break;
      }
      return Unknown(UnknownKind::Opaque, "'" + text(Def.At) + "' is not followed");
    }
    case ValueDef::Step:
      return formOfDef(Def.Prev, Depth + 1) + IndexForm::constant(Def.Delta);
    case ValueDef::Partial:
      return Unknown(UnknownKind::Opaque, "'" + Name + "' is assigned in parts");
    case ValueDef::Merge: {
      IndexForm T = formOfDef(Def.Prev, Depth + 1);
      IndexForm E = formOfDef(Def.Other, Depth + 1);
      return Table->select(comparisonOf(Def.Cond, true), text(Def.Cond), uniformityOf(Def.Cond), T,
                           E);
    }
    case ValueDef::LoopIV:
      return IndexForm::atom(Table->loopVar(Def.Loop, Def.Var, Name, defUniformity(D)));
    case ValueDef::DerivedIV: {
      IndexForm Entry = formOfDef(Def.Prev, Depth + 1);
      IndexForm Step = Def.StepExpr ? formRec(Def.StepExpr, Depth + 1) : IndexForm::constant(1);
      return Entry + Step.scaled(Def.Sign) *
                         IndexForm::atom(Table->loopIter(
                             Def.Loop, Loops[Def.Loop].Var.empty() ? Name : Loops[Def.Loop].Var));
    }
    case ValueDef::LoopCarried: {
      // j = next[j]: the loop walks a chain through memory.
      for (int Other : Tracker->defsOf(Def.Var)) {
        const ValueDef &O = Tracker->def(Other);
        if (O.At && O.E && inside(O.At, Loops[Def.Loop].S) && readsMemory(O.E))
          return Unknown(UnknownKind::DataDependent,
                         "'" + Name + "' is loaded from memory in the loop at line " +
                             std::to_string(Loops[Def.Loop].Loc.Line) + " ('" + text(O.At) +
                             "'): data-dependent");
      }
      return Unknown(UnknownKind::LoopCarried, "'" + Name + "' is updated in the loop at line " +
                                                   std::to_string(Loops[Def.Loop].Loc.Line) +
                                                   " (not as an induction variable)");
    }
    case ValueDef::AfterLoop: {
      const LoopSyntax &Syn = LoopSyn[Def.Loop];
      std::string Kind = loopKindName(Loops[Def.Loop].Kind).str();
      std::string Why = "'" + Name + "' is computed by the " + Kind + " loop at line " +
                        std::to_string(Loops[Def.Loop].Loc.Line);
      // A condition that reads memory makes the trip count data-dependent.
      bool Data = false;
      if (Syn.Cond) {
        class LoadFinder : public DynamicRecursiveASTVisitor {
        public:
          bool Found = false;
          bool VisitArraySubscriptExpr(ArraySubscriptExpr *) override { return !(Found = true); }
          bool VisitUnaryOperator(UnaryOperator *U) override {
            if (U->getOpcode() == UO_Deref)
              Found = true;
            return !Found;
          }
        } LF;
        LF.TraverseStmt(const_cast<Expr *>(Syn.Cond));
        Data = LF.Found;
      }
      for (int Other : Tracker->defsOf(Def.Var)) {
        const ValueDef &O = Tracker->def(Other);
        if (!Data && O.At && O.E && inside(O.At, Loops[Def.Loop].S) && readsMemory(O.E))
          return Unknown(UnknownKind::DataDependent, Why + ", which loads it from memory ('" +
                                                         text(O.At) + "'): data-dependent");
      }
      if (Data)
        return Unknown(UnknownKind::DataDependent, Why + ", whose trip count is data-dependent ('" +
                                                       text(Syn.Cond) + "' reads memory)");
      return Unknown(UnknownKind::LoopCarried, Why);
    }
    case ValueDef::Entry:
      return IndexForm::atom(Table->symbol(AtomKind::Param, Def.Var, Name));
    case ValueDef::Unknown:
      return Unknown(UnknownKind::Opaque, Def.Reason);
    }
    return Unknown(UnknownKind::Opaque, "not followed");
  }();
  DefBusy[D] = 0;
  DefForm[D] = F;
  return F;
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

namespace {
PointerValue unknownPointer(std::string Why, bool Data = false) {
  PointerValue P;
  P.Why = std::move(Why);
  P.DataDependent = Data;
  return P;
}
} // namespace

namespace {
/// The array type an lvalue has by its declaration, also in a template
/// pattern where the expression's own type is dependent: `As[ty]` of
/// `__shared__ float As[B][B]` is a `float[B]`.
const ArrayType *structuralArrayType(const Expr *E, const ASTContext &Ctx) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const ArrayType *AT = Ctx.getAsArrayType(E->getType()))
    return AT;
  if (const auto *D = dyn_cast<DeclRefExpr>(E))
    return Ctx.getAsArrayType(D->getDecl()->getType());
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
    if (const ArrayType *Outer = structuralArrayType(subscriptBase(A), Ctx))
      return Ctx.getAsArrayType(Outer->getElementType());
  return nullptr;
}
} // namespace

PointerValue KernelAnalyzer::pointerOf(const Expr *E) { return pointerRec(E, 0); }
PointerValue KernelAnalyzer::addressOf(const Expr *E) { return addressRec(E, 0); }

PointerValue KernelAnalyzer::rebase(PointerValue P, QualType NewElem) {
  if (NewElem.isNull())
    return P;
  // In a template pattern a subscript's type may be dependent where the
  // declaration still says what it is (As[ty][tx] of `float As[B][B]`).
  if (NewElem->isDependentType() && !P.Elem.isNull() &&
      (!P.Elem->isDependentType() || NewElem->isSpecificBuiltinType(BuiltinType::Dependent)))
    return P;
  if (P.Elem.isNull()) {
    P.Elem = NewElem;
    return P;
  }
  if (Ctx.hasSameUnqualifiedType(P.Elem, NewElem)) {
    P.Elem = NewElem;
    return P;
  }
  uint64_t Old = typeBytes(P.Elem, Ctx), New = typeBytes(NewElem, Ctx);
  std::string Note = "through a reinterpretation as '" + typeSpelling(NewElem, Ctx) + " *'";
  if (NewElem->isVoidType()) {
    // void * keeps the byte offset; the next cast rebases again.
    return P;
  }
  if (Old && New && Old != New) {
    if (New % Old == 0) {
      int64_t K = int64_t(New / Old);
      if (auto Q = P.Offset.dividedExactly(K))
        P.Offset = *Q;
      else
        P.Offset = Table->div(P.Offset, IndexForm::constant(K));
    } else if (Old % New == 0) {
      P.Offset = P.Offset.scaled(int64_t(Old / New));
    } else {
      P.Offset = unknownForm(UnknownKind::Opaque, nullptr,
                             "the element size changes from " + std::to_string(Old) + " to " +
                                 std::to_string(New) + " bytes");
    }
    P.Notes.push_back(Note);
  } else if (!Old || !New) {
    if (!P.Elem->isDependentType() || !NewElem->isDependentType())
      P.Notes.push_back(Note + " (element sizes not known)");
  }
  P.Elem = NewElem;
  return P;
}

PointerValue KernelAnalyzer::pointerRec(const Expr *E, unsigned Depth) {
  if (!E)
    return unknownPointer("no expression");
  if (Depth > 32)
    return unknownPointer("the pointer is computed too deeply");
  E = E->IgnoreParens();
  QualType Pointee = E->getType()->isPointerType() ? E->getType()->getPointeeType() : QualType();
  // An array used as a pointer: its address, counted in its elements.
  auto Decay = [&](const Expr *Sub, const ArrayType *Arr) {
    PointerValue A = addressRec(Sub, Depth + 1);
    if (!A.Offset.isZero()) {
      if (const auto *CA = dyn_cast<ConstantArrayType>(Arr)) {
        A.Offset = A.Offset.scaled(int64_t(CA->getSize().getZExtValue()));
      } else if (const auto *DS = dyn_cast<DependentSizedArrayType>(Arr)) {
        A.Offset = A.Offset * formRec(DS->getSizeExpr(), Depth + 1);
      } else {
        A.Offset = unknownForm(UnknownKind::Opaque, Sub,
                               "the row length of '" + text(Sub) + "' is not known");
      }
    }
    A.Elem = Arr->getElementType();
    return A;
  };
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    const Expr *Sub = C->getSubExpr();
    if (C->getCastKind() == CK_ArrayToPointerDecay) {
      if (const ArrayType *Arr = structuralArrayType(Sub, Ctx))
        return Decay(Sub, Arr);
      return unknownPointer("'" + text(Sub) + "' is not an array the analysis follows");
    }
    if (C->getCastKind() == CK_LValueToRValue) {
      const Expr *S = Sub->IgnoreParens();
      if (isa<DeclRefExpr>(S))
        return pointerRec(S, Depth + 1);
      // A pointer field of a struct parameter passed by value (p.x): as
      // good as a pointer parameter.
      if (const auto *M = dyn_cast<MemberExpr>(S); M && !M->isArrow())
        if (const ParmVarDecl *Parm = kernelParam(M->getBase(), Kernel);
            Parm && !Tracker->isModifiedParam(Parm)) {
          PointerValue R;
          R.Base = M->getMemberDecl();
          R.BaseName = text(M);
          R.Space = MemorySpace::Global;
          R.Elem = Pointee;
          return R;
        }
      return unknownPointer("the pointer '" + text(S) + "' is loaded from memory", true);
    }
    if (Sub->getType()->isPointerType() || Sub->getType()->isArrayType())
      return rebase(pointerRec(Sub, Depth + 1), Pointee);
    if (Sub->getType()->isIntegerType())
      return unknownPointer("'" + text(E) + "' makes a pointer from an integer");
    return unknownPointer("'" + text(E) + "' is not a pointer the analysis follows");
  }
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V)
      return unknownPointer("'" + text(E) + "' is not a variable");
    if (const auto *P = dyn_cast<ParmVarDecl>(V);
        P && P->getDeclContext() == &Kernel && !Tracker->isModifiedParam(P)) {
      PointerValue R;
      R.Base = P;
      R.BaseName = P->getNameAsString();
      R.Space = MemorySpace::Global;
      R.Elem = Pointee;
      return R;
    }
    if (Tracker->tracked(V)) {
      int Def = Tracker->defOf(D);
      if (Def < 0)
        return unknownPointer("the value of '" + V->getNameAsString() + "' is not followed");
      return rebase(pointerOfDef(Def, Depth + 1), Pointee);
    }
    if (const ArrayType *Arr = Ctx.getAsArrayType(V->getType()))
      return Decay(E, Arr);
    return unknownPointer("'" + V->getNameAsString() +
                          "' is a pointer variable the analysis "
                          "does not follow");
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() == BO_Add || B->getOpcode() == BO_Sub) {
      const Expr *Ptr = B->getLHS(), *Int = B->getRHS();
      if (!Ptr->getType()->isPointerType() && !Ptr->getType()->isArrayType())
        std::swap(Ptr, Int);
      if (!Ptr->getType()->isPointerType() && !Ptr->getType()->isArrayType())
        return unknownPointer("'" + text(E) + "' is not pointer arithmetic");
      if (Int->getType()->isPointerType())
        return unknownPointer("'" + text(E) + "' subtracts pointers");
      PointerValue P = rebase(pointerRec(Ptr, Depth + 1), Pointee);
      IndexForm Off = formRec(Int, Depth + 1);
      P.Offset = B->getOpcode() == BO_Add ? P.Offset + Off : P.Offset - Off;
      return P;
    }
    if (B->getOpcode() == BO_Comma || B->getOpcode() == BO_Assign)
      return pointerRec(B->getRHS(), Depth + 1);
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_AddrOf)
      return rebase(addressRec(U->getSubExpr(), Depth + 1), Pointee);
    if (U->getOpcode() == UO_Deref)
      return unknownPointer("the pointer '" + text(E) + "' is loaded from memory", true);
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    PointerValue T = pointerRec(C->getTrueExpr(), Depth + 1);
    PointerValue F = pointerRec(C->getFalseExpr(), Depth + 1);
    if (T.Base && T.Base == F.Base) {
      T.Offset = Table->select(comparisonOf(C->getCond(), true), text(C->getCond()),
                               uniformityOf(C->getCond()), T.Offset, F.Offset);
      return T;
    }
    return unknownPointer("'" + text(E) + "' selects between different buffers");
  }
  // In a template pattern an array row is not decayed: As[ty] of
  // `float As[B][B]` is still an array.
  if (const ArrayType *Arr = structuralArrayType(E, Ctx); Arr && isa<ArraySubscriptExpr>(E))
    return Decay(E, Arr);
  if (isa<ArraySubscriptExpr>(E) || isa<MemberExpr>(E))
    return unknownPointer("the pointer '" + text(E) + "' is loaded from memory", true);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return unknownPointer("the pointer is returned by a call to '" + calleeName(Call).str() + "'");
  return unknownPointer("'" + text(E) + "' is not a pointer the analysis follows");
}

PointerValue KernelAnalyzer::addressRec(const Expr *E, unsigned Depth) {
  if (!E)
    return unknownPointer("no expression");
  if (Depth > 32)
    return unknownPointer("the address is computed too deeply");
  E = E->IgnoreParens();
  if (const auto *C = dyn_cast<ImplicitCastExpr>(E); C && C->getCastKind() == CK_NoOp)
    return addressRec(C->getSubExpr(), Depth + 1);
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    PointerValue P = rebase(pointerRec(subscriptBase(A), Depth + 1), E->getType());
    P.Offset = P.Offset + formRec(subscriptIndex(A), Depth + 1);
    return P;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_Deref)
    return rebase(pointerRec(U->getSubExpr(), Depth + 1), E->getType());
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V)
      return unknownPointer("'" + text(E) + "' is not a variable");
    PointerValue P;
    P.Base = V;
    P.BaseName = V->getNameAsString();
    P.Elem = V->getType();
    if (V->hasAttr<CUDASharedAttr>()) {
      P.Space = MemorySpace::Shared;
    } else if (V->hasLocalStorage()) {
      P.Local = true;
    } else if (V->hasAttr<CUDADeviceAttr>() || V->hasAttr<CUDAConstantAttr>()) {
      P.Space = MemorySpace::Global;
      if (V->hasAttr<CUDAConstantAttr>())
        P.Notes.push_back("'" + P.BaseName + "' is in constant memory");
    } else {
      P.Local = true;
    }
    return P;
  }
  if (isa<MemberExpr>(E))
    return unknownPointer("'" + text(E) + "' is a field of a struct");
  return unknownPointer("'" + text(E) + "' is not an address the analysis follows");
}

PointerValue KernelAnalyzer::pointerOfDef(int D, unsigned Depth) {
  if (D < 0)
    return unknownPointer("a pointer the analysis does not follow");
  if (Depth > 32)
    return unknownPointer("the pointer is computed too deeply");
  const ValueDef &Def = Tracker->def(D);
  std::string Name = Def.Var ? Def.Var->getNameAsString() : "?";
  switch (Def.Kind) {
  case ValueDef::Value:
    return pointerRec(Def.E, Depth + 1);
  case ValueDef::Compound: {
    PointerValue P = pointerOfDef(Def.Prev, Depth + 1);
    if (Def.Op != BO_Add && Def.Op != BO_Sub)
      return unknownPointer("'" + text(Def.At) + "' is not pointer arithmetic");
    IndexForm R = formRec(Def.E, Depth + 1);
    P.Offset = Def.Op == BO_Add ? P.Offset + R : P.Offset - R;
    return P;
  }
  case ValueDef::Step: {
    PointerValue P = pointerOfDef(Def.Prev, Depth + 1);
    P.Offset = P.Offset + IndexForm::constant(Def.Delta);
    return P;
  }
  case ValueDef::Merge: {
    PointerValue T = pointerOfDef(Def.Prev, Depth + 1);
    PointerValue F = pointerOfDef(Def.Other, Depth + 1);
    if (T.Base && T.Base == F.Base) {
      T.Offset = Table->select(comparisonOf(Def.Cond, true), text(Def.Cond), uniformityOf(Def.Cond),
                               T.Offset, F.Offset);
      return T;
    }
    return unknownPointer("'" + Name + "' points into different buffers on the two branches");
  }
  case ValueDef::LoopIV:
  case ValueDef::DerivedIV: {
    PointerValue P = pointerOfDef(Def.Prev, Depth + 1);
    const LoopSyntax &Syn = LoopSyn[Def.Loop];
    const Expr *StepE = Def.Kind == ValueDef::LoopIV ? Syn.StepExpr : Def.StepExpr;
    int64_t Sign = Def.Kind == ValueDef::LoopIV ? Syn.Sign : Def.Sign;
    if (Def.Kind == ValueDef::LoopIV && Syn.Factor != 0)
      return unknownPointer("'" + Name + "' moves geometrically");
    IndexForm Step = StepE ? formRec(StepE, Depth + 1) : IndexForm::constant(1);
    P.Offset =
        P.Offset + Step.scaled(Sign) *
                       IndexForm::atom(Table->loopIter(
                           Def.Loop, Loops[Def.Loop].Var.empty() ? Name : Loops[Def.Loop].Var));
    return P;
  }
  case ValueDef::LoopCarried:
  case ValueDef::AfterLoop: {
    PointerValue P = pointerOfDef(Def.Prev, Depth + 1);
    P.Offset = IndexForm::atom(Table->unknown(
        UnknownKind::LoopCarried, Name,
        "'" + Name + "' moves in the loop at line " + std::to_string(Loops[Def.Loop].Loc.Line),
        lineOf(Ctx, Def.At ? Def.At->getBeginLoc() : SourceLocation()), defUniformity(D), &Def));
    // The base stays only when every assignment in the loop moves it.
    for (int Other : Tracker->defsOf(Def.Var)) {
      const ValueDef &O = Tracker->def(Other);
      if (O.At && inside(O.At, Loops[Def.Loop].S) && O.Kind == ValueDef::Value) {
        if (baseOf(O.E) != P.Base)
          return unknownPointer("'" + Name + "' is re-pointed in the loop at line " +
                                std::to_string(Loops[Def.Loop].Loc.Line));
      }
    }
    return P;
  }
  case ValueDef::Entry: {
    PointerValue P;
    const auto *Parm = cast<ParmVarDecl>(Def.Var);
    P.Base = Parm;
    P.BaseName = Parm->getNameAsString();
    P.Space = MemorySpace::Global;
    P.Elem = Parm->getType()->isPointerType() ? Parm->getType()->getPointeeType() : QualType();
    return P;
  }
  case ValueDef::Partial:
  case ValueDef::Unknown:
    return unknownPointer(Def.Reason.empty() ? "'" + Name + "' is not followed" : Def.Reason);
  }
  return unknownPointer("not followed");
}

const ValueDecl *KernelAnalyzer::baseOf(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 16)
    return nullptr;
  E = E->IgnoreParenCasts();
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    // rows[i][j]: the base is a loaded pointer unless rows[i] is an array.
    const Expr *B = subscriptBase(A)->IgnoreParenImpCasts();
    if (isa<ArraySubscriptExpr>(B) && !B->getType()->isArrayType())
      return nullptr;
    return baseOf(subscriptBase(A), Depth + 1);
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf)
      return baseOf(U->getSubExpr(), Depth + 1);
    return nullptr;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() == BO_Add || B->getOpcode() == BO_Sub) {
      if (B->getLHS()->getType()->isPointerType() || B->getLHS()->getType()->isArrayType())
        return baseOf(B->getLHS(), Depth + 1);
      return baseOf(B->getRHS(), Depth + 1);
    }
    if (B->getOpcode() == BO_Comma || B->getOpcode() == BO_Assign)
      return baseOf(B->getRHS(), Depth + 1);
    return nullptr;
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    const ValueDecl *T = baseOf(C->getTrueExpr(), Depth + 1);
    return T == baseOf(C->getFalseExpr(), Depth + 1) ? T : nullptr;
  }
  if (const auto *M = dyn_cast<MemberExpr>(E); M && !M->isArrow() && M->getType()->isPointerType())
    if (kernelParam(M->getBase(), Kernel))
      return M->getMemberDecl();
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V)
      return nullptr;
    if (!Tracker->tracked(V))
      return V;
    if (V->getType()->isArrayType())
      return V;
    const ValueDecl *Found = nullptr;
    for (int Def : Tracker->defsOf(V)) {
      const ValueDef &VD = Tracker->def(Def);
      const ValueDecl *B = nullptr;
      if (VD.Kind == ValueDef::Value)
        B = baseOf(VD.E, Depth + 1);
      else if (VD.Kind == ValueDef::Entry)
        B = V;
      else
        continue;
      if (!B || (Found && B != Found))
        return nullptr;
      Found = B;
    }
    return Found;
  }
  return nullptr;
}

} // namespace forge::analysis
