//===- Frontend/ParamAccess.cpp -------------------------------------------===//
///
/// \file
/// Follows every use of a pointer parameter, and of local variables that
/// take its value (plus an offset), upwards through the expression tree.
/// A use is either a pointer (still an address into the buffer) or an
/// object (an lvalue in the buffer: p[i], *p, p->f). Objects that are
/// assigned are written, objects used as values are read; pointers handed
/// to user functions are followed into the callee, to a bounded depth.
/// Anything else a pointer flows into is Unknown.
///
//===----------------------------------------------------------------------===//
#include "forge/Frontend/ParamAccess.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"
#include <map>
#include <set>

using namespace clang;

namespace forge::frontend {
namespace {

constexpr unsigned MaxDepth = 4;

void merge(PointerAccess &A, const PointerAccess &B) {
  A.Read |= B.Read;
  A.Written |= B.Written;
  A.Unknown |= B.Unknown;
}

/// What a known device function does to the memory behind its pointer
/// arguments, where its declaration alone does not say (atomics take a
/// non-const pointer and both read and write).
enum class Known { None, Read, Write, ReadWrite };

Known knownCallee(const FunctionDecl &FD, unsigned ArgIdx) {
  const IdentifierInfo *II = FD.getIdentifier();
  if (!II)
    return Known::None;
  StringRef N = II->getName();
  if (N.starts_with("atomic") || N.starts_with("__atomic") || N.starts_with("__nv_atomic") ||
      N.starts_with("__hip_atomic") || N.starts_with("__sync_fetch") ||
      N.starts_with("__sync_val") || N.starts_with("__sync_bool"))
    return Known::ReadWrite;
  if (N.starts_with("__ld"))
    return Known::Read;
  if (N.starts_with("__st") && ArgIdx == 0)
    return Known::Write;
  if ((N == "memcpy" || N == "memmove" || N == "__builtin_memcpy" || N == "__builtin_memmove") &&
      ArgIdx <= 1)
    return ArgIdx == 0 ? Known::Write : Known::Read;
  if ((N == "memset" || N == "__builtin_memset") && ArgIdx == 0)
    return Known::Write;
  if (N == "printf" || N == "__builtin_prefetch")
    return Known::Read;
  return Known::None;
}

class Analyzer {
public:
  explicit Analyzer(ASTContext &Ctx) : Ctx(Ctx) {}

  /// What FD does through its parameter Idx (a pointer, or a reference
  /// that aliases an object in a buffer).
  PointerAccess param(const FunctionDecl &FD, unsigned Idx, unsigned Depth) {
    PointerAccess Unk{true, true, true};
    if (Depth > MaxDepth || Idx >= FD.getNumParams())
      return Unk;
    const FunctionDecl *Def = nullptr;
    const Stmt *Body = FD.getBody(Def);
    if (!Body) {
      // An uninstantiated template specialisation: read its pattern.
      if (const FunctionDecl *Pattern = FD.getTemplateInstantiationPattern())
        Body = Pattern->getBody(Def);
    }
    if (!Body || !Def || Idx >= Def->getNumParams())
      return Unk;
    auto Key = std::make_pair(Def->getCanonicalDecl(), Idx);
    if (auto It = Memo.find(Key); It != Memo.end())
      return It->second;
    if (!InProgress.insert(Key).second)
      return {}; // recursion: the other uses decide
    const ParmVarDecl *P = Def->getParamDecl(Idx);
    QualType T = P->getType();
    PointerAccess A;
    if (T->isReferenceType()) {
      if (T.getNonReferenceType().isConstQualified())
        A.Read = true;
      else
        A = Walk(*this, *Def, Body, P, /*IsObject=*/true, Depth).run();
    } else {
      A = Walk(*this, *Def, Body, P, /*IsObject=*/false, Depth).run();
    }
    InProgress.erase(Key);
    Memo[Key] = A;
    return A;
  }

private:
  ASTContext &Ctx;
  std::map<std::pair<const Decl *, unsigned>, PointerAccess> Memo;
  std::set<std::pair<const Decl *, unsigned>> InProgress;

  /// One function body, one seed variable and the locals that alias it.
  class Walk {
  public:
    Walk(Analyzer &A, const FunctionDecl &Fn, const Stmt *Body, const VarDecl *Seed,
         bool IsObject, unsigned Depth)
        : An(A), Fn(Fn), PM(const_cast<Stmt *>(Body)), Body(Body), Depth(Depth) {
      addAlias(Seed, IsObject);
    }

    PointerAccess run() {
      Collector C;
      C.TraverseStmt(const_cast<Stmt *>(Body));
      while (!Work.empty()) {
        auto [VD, IsObject] = Work.back();
        Work.pop_back();
        for (const DeclRefExpr *DRE : C.Refs.lookup(VD))
          follow(DRE, IsObject);
      }
      if (Result.Unknown)
        Result.Read = Result.Written = true;
      return Result;
    }

  private:
    struct Collector : DynamicRecursiveASTVisitor {
      llvm::DenseMap<const VarDecl *, std::vector<const DeclRefExpr *>> Refs;
      Collector() {
        ShouldVisitTemplateInstantiations = false;
        ShouldVisitImplicitCode = true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *E) override {
        if (const auto *VD = dyn_cast<VarDecl>(E->getDecl()))
          Refs[VD].push_back(E);
        return true;
      }
    };

    Analyzer &An;
    const FunctionDecl &Fn;
    ParentMap PM;
    const Stmt *Body;
    unsigned Depth;
    PointerAccess Result;
    llvm::SmallPtrSet<const VarDecl *, 8> Aliases;
    std::vector<std::pair<const VarDecl *, bool>> Work;

    void addAlias(const VarDecl *VD, bool IsObject) {
      if (Aliases.insert(VD).second)
        Work.push_back({VD, IsObject});
    }
    void read() { Result.Read = true; }
    void write() { Result.Written = true; }
    void unknown() { Result.Unknown = true; }
    void merge(const PointerAccess &A) { forge::frontend::merge(Result, A); }

    static bool isLocal(const VarDecl *VD) {
      return VD->hasLocalStorage() && !isa<ParmVarDecl>(VD);
    }

    /// The function (or lambda) a statement belongs to, for return types.
    const FunctionDecl *enclosingFunction(const Stmt *S) {
      for (const Stmt *P = PM.getParent(S); P; P = PM.getParent(P))
        if (const auto *L = dyn_cast<LambdaExpr>(P))
          return L->getCallOperator();
      return &Fn;
    }

    /// E, an argument of call C, is a pointer (or an object when IsObject).
    void callArgument(const CallExpr *C, const Expr *E, bool IsObject) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD) {
        unknown();
        return;
      }
      unsigned ArgIdx = 0;
      while (ArgIdx < C->getNumArgs() && C->getArg(ArgIdx) != E)
        ++ArgIdx;
      if (ArgIdx == C->getNumArgs()) {
        unknown(); // the callee expression itself
        return;
      }
      // A member operator's first argument is the object it is called on.
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C)) {
        if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
          if (ArgIdx == 0) {
            if (!IsObject || MD->isConst()) {
              IsObject ? read() : unknown();
              return;
            }
            if (Op->isAssignmentOp()) {
              write();
              if (Op->getOperator() != OO_Equal)
                read();
              return;
            }
            unknown();
            return;
          }
          --ArgIdx;
        }
      }
      switch (knownCallee(*FD, ArgIdx)) {
      case Known::Read:
        read();
        return;
      case Known::Write:
        write();
        return;
      case Known::ReadWrite:
        read();
        write();
        return;
      case Known::None:
        break;
      }
      if (ArgIdx >= FD->getNumParams()) {
        unknown(); // variadic
        return;
      }
      QualType PT = FD->getParamDecl(ArgIdx)->getType();
      if (IsObject) {
        if (!PT->isReferenceType() || PT.getNonReferenceType().isConstQualified())
          read();
        else
          merge(An.param(*FD, ArgIdx, Depth + 1));
        return;
      }
      if (PT->isPointerType()) {
        if (PT->getPointeeType().isConstQualified())
          read();
        else
          merge(An.param(*FD, ArgIdx, Depth + 1));
        return;
      }
      if (PT->isBooleanType() || PT->isIntegralType(An.Ctx)) {
        return; // an address as a number
      }
      unknown();
    }

    /// Classifies one use of an alias by walking up from it.
    void follow(const Expr *E, bool IsObject) {
      while (true) {
        const Stmt *P = PM.getParent(E);
        if (!P)
          return;
        if (IsObject ? !objectStep(P, E, IsObject) : !pointerStep(P, E, IsObject))
          return;
        E = cast<Expr>(P);
      }
    }

    /// E is a pointer into the buffer and P its parent. Returns true to go
    /// on upwards with P as the new E (IsObject says what it now is).
    bool pointerStep(const Stmt *P, const Expr *E, bool &IsObject) {
      if (isa<ParenExpr, ExprWithCleanups, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
              ConstantExpr>(P))
        return true;
      if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
        switch (IC->getCastKind()) {
        case CK_PointerToBoolean:
        case CK_PointerToIntegral:
          return false;
        default:
          return true;
        }
      }
      if (const auto *EC = dyn_cast<ExplicitCastExpr>(P)) {
        QualType To = EC->getTypeAsWritten();
        if (To->isVoidType() || To->isBooleanType() || To->isIntegralType(An.Ctx))
          return false; // (void)p, alignment checks
        if (To->isPointerType() || To->isDependentType()) {
          QualType From = E->getType();
          if (From->isPointerType() && From->getPointeeType().isConstQualified() &&
              To->isPointerType() && !To->getPointeeType().isConstQualified())
            unknown(); // const cast away
          return true;
        }
        unknown();
        return false;
      }
      if (const auto *U = dyn_cast<UnaryOperator>(P)) {
        switch (U->getOpcode()) {
        case UO_Deref:
          IsObject = true;
          return true;
        case UO_PreInc:
        case UO_PreDec:
        case UO_PostInc:
        case UO_PostDec:
          return true; // moves the pointer; the result still points in
        case UO_LNot:
          return false;
        default:
          unknown();
          return false;
        }
      }
      if (const auto *B = dyn_cast<BinaryOperator>(P)) {
        const Expr *Other = B->getLHS() == E ? B->getRHS() : B->getLHS();
        switch (B->getOpcode()) {
        case BO_Add:
          return true;
        case BO_Sub:
          // p - q is a distance, p - n a pointer.
          return !(B->getLHS() == E && Other->getType()->isPointerType()) &&
                 !(B->getRHS() == E);
        case BO_AddAssign:
        case BO_SubAssign:
          return false; // p += n moves the pointer variable
        case BO_Comma:
          return B->getRHS() == E;
        case BO_Assign: {
          if (B->getLHS() == E)
            return false; // the variable is given another value
          const Expr *L = B->getLHS()->IgnoreParenImpCasts();
          if (const auto *DRE = dyn_cast<DeclRefExpr>(L))
            if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && isLocal(VD)) {
              addAlias(VD, false);
              return false;
            }
          unknown(); // the pointer is stored in memory
          return false;
        }
        default:
          if (B->isComparisonOp() || B->isLogicalOp())
            return false;
          unknown();
          return false;
        }
      }
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(P)) {
        if (A->getBase() == E) {
          IsObject = true;
          return true;
        }
        unknown();
        return false;
      }
      if (const auto *M = dyn_cast<MemberExpr>(P)) {
        if (M->isArrow()) {
          IsObject = true;
          return objectMember(M);
        }
        unknown();
        return false;
      }
      if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(P)) {
        if (M->isArrow()) {
          IsObject = true;
          return true;
        }
        unknown();
        return false;
      }
      if (const auto *C = dyn_cast<AbstractConditionalOperator>(P))
        return C->getCond() != E && !isa<OpaqueValueExpr>(E);
      if (const auto *C = dyn_cast<CallExpr>(P)) {
        if (const FunctionDecl *FD = C->getDirectCallee())
          if (FD->getBuiltinID() == Builtin::BI__builtin_assume_aligned && C->getArg(0) == E)
            return true;
        callArgument(C, E, false);
        return false;
      }
      if (const auto *DS = dyn_cast<DeclStmt>(P)) {
        for (const Decl *D : DS->decls()) {
          const auto *VD = dyn_cast<VarDecl>(D);
          if (!VD || VD->getInit() != E)
            continue;
          QualType T = VD->getType();
          if (!isLocal(VD)) {
            unknown();
          } else if (T->isPointerType() || T->isReferenceType() || T->isDependentType() ||
                     T->isUndeducedType()) {
            addAlias(VD, false);
          } else if (!T->isBooleanType() && !T->isIntegralType(An.Ctx)) {
            unknown();
          }
          return false;
        }
        unknown();
        return false;
      }
      if (isa<ReturnStmt>(P)) {
        QualType T = E->getType();
        if (T->isPointerType() && T->getPointeeType().isConstQualified())
          read();
        else
          unknown();
        return false;
      }
      if (isa<UnaryExprOrTypeTraitExpr, LambdaExpr, CXXNoexceptExpr>(P))
        return false; // unevaluated, or a lambda capture (its uses are followed)
      if (isa<IfStmt, WhileStmt, DoStmt, ForStmt, CompoundStmt, NullStmt, SwitchStmt>(P))
        return false; // a condition or a discarded value
      unknown(); // asm operands, constructors, initialiser lists, ...
      return false;
    }

    /// A member of an object in the buffer: a field is still in the buffer,
    /// a method call is followed only when const.
    bool objectMember(const MemberExpr *M) {
      if (const auto *MD = dyn_cast<CXXMethodDecl>(M->getMemberDecl())) {
        if (MD->isConst())
          read();
        else
          unknown();
        return false;
      }
      return true;
    }

    /// E is an object in the buffer (an lvalue) and P its parent.
    bool objectStep(const Stmt *P, const Expr *E, bool &IsObject) {
      if (isa<ParenExpr, ExprWithCleanups, ConstantExpr>(P))
        return true;
      if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
        switch (IC->getCastKind()) {
        case CK_LValueToRValue:
          read();
          return false;
        case CK_ArrayToPointerDecay:
          IsObject = false;
          return true;
        case CK_NoOp:
        case CK_DerivedToBase:
        case CK_UncheckedDerivedToBase:
          return true;
        default:
          read();
          return false;
        }
      }
      if (const auto *U = dyn_cast<UnaryOperator>(P)) {
        switch (U->getOpcode()) {
        case UO_AddrOf:
          IsObject = false;
          return true;
        case UO_PreInc:
        case UO_PreDec:
        case UO_PostInc:
        case UO_PostDec:
          read();
          write();
          return false;
        default:
          read();
          return false;
        }
      }
      if (const auto *B = dyn_cast<BinaryOperator>(P)) {
        if (B->getLHS() == E && B->isAssignmentOp()) {
          write();
          if (B->isCompoundAssignmentOp())
            read();
          return false;
        }
        if (B->getOpcode() == BO_Comma && B->getLHS() == E)
          return false;
        if (B->getOpcode() == BO_Comma)
          return true;
        read();
        return false;
      }
      if (const auto *M = dyn_cast<MemberExpr>(P)) {
        if (!M->isArrow() && M->getBase() == E)
          return objectMember(M);
        read();
        return false;
      }
      if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(P)) {
        if (!M->isArrow())
          return true;
        read();
        return false;
      }
      if (isa<ArraySubscriptExpr>(P)) {
        // An array-typed object decays first; here E is the index.
        read();
        return false;
      }
      if (const auto *C = dyn_cast<CallExpr>(P)) {
        callArgument(C, E, true);
        return false;
      }
      if (const auto *C = dyn_cast<CXXConstructExpr>(P)) {
        // Copying an object reads it; other constructors may keep a reference.
        const CXXConstructorDecl *Ctor = C->getConstructor();
        if (Ctor && (Ctor->isCopyOrMoveConstructor() || Ctor->isTrivial()))
          read();
        else
          unknown();
        return false;
      }
      if (const auto *DS = dyn_cast<DeclStmt>(P)) {
        for (const Decl *D : DS->decls()) {
          const auto *VD = dyn_cast<VarDecl>(D);
          if (!VD || VD->getInit() != E)
            continue;
          QualType T = VD->getType();
          if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified()) {
            if (isLocal(VD))
              addAlias(VD, true);
            else
              unknown();
          } else {
            read();
          }
          return false;
        }
        read();
        return false;
      }
      if (isa<ReturnStmt>(P)) {
        // Returning a reference into the buffer lets the caller write it.
        QualType RT = enclosingFunction(P)->getReturnType();
        if (RT->isReferenceType() && !RT.getNonReferenceType().isConstQualified())
          unknown();
        else
          read();
        return false;
      }
      if (const auto *Asm = dyn_cast<GCCAsmStmt>(P)) {
        for (unsigned I = 0; I < Asm->getNumOutputs(); ++I)
          if (Asm->getOutputExpr(I) == E) {
            write();
            if (StringRef(Asm->getOutputConstraint(I)).starts_with("+"))
              read();
            return false;
          }
        read();
        return false;
      }
      if (isa<UnaryExprOrTypeTraitExpr, LambdaExpr, CXXNoexceptExpr, CompoundStmt, NullStmt>(P))
        return false;
      read();
      return false;
    }
  };
};

} // namespace

std::vector<PointerAccess> analyzePointerParams(const FunctionDecl &Kernel, ASTContext &Ctx) {
  Analyzer A(Ctx);
  std::vector<PointerAccess> Out(Kernel.getNumParams());
  auto One = [&](const FunctionDecl &FD) {
    for (unsigned I = 0; I < Out.size() && I < FD.getNumParams(); ++I)
      if (FD.getParamDecl(I)->getType()->isPointerType())
        merge(Out[I], A.param(FD, I, 0));
  };
  const FunctionDecl *Def = Kernel.getDefinition() ? Kernel.getDefinition() : &Kernel;
  bool Done = false;
  if (const FunctionTemplateDecl *TD = Def->getDescribedFunctionTemplate()) {
    for (const FunctionDecl *Spec : TD->specializations()) {
      if (!Spec->hasBody() || Spec->getNumParams() != Kernel.getNumParams())
        continue;
      One(*Spec);
      Done = true;
    }
  }
  if (!Done)
    One(*Def);
  return Out;
}

} // namespace forge::frontend
