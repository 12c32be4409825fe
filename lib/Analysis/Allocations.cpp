//===- Analysis/Allocations.cpp - Where a pointer argument points ---------===//
///
/// \file
/// A flow-insensitive trace: a variable points into the union of what its
/// definitions point into (its initialiser, its assignments, the calls that
/// allocate through its address, and for a parameter the arguments of every
/// call of its function). Offsets (`p += k`, `p++`) keep the origin. Any use
/// that could change the variable unseen (its address taken, a reference
/// bound to it) makes it Unknown. A variable met again while it is being
/// traced adds nothing: the union over everything reachable is the answer.
///
//===----------------------------------------------------------------------===//
#include "forge/Analysis/Allocations.h"
#include "AstUtil.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

namespace {

/// Allocators that return the new pointer.
bool returnsAllocation(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases({"malloc", "calloc", "aligned_alloc", "_aligned_malloc"}, true)
      .Default(false);
}

/// Allocators that store the new pointer through their first argument.
bool storesAllocation(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocHost",
              "cudaHostAlloc", "cudaMallocPitch", "cudaMallocFromPoolAsync"},
             true)
      .Default(false);
}

/// Containers whose distinct objects own distinct storage.
bool ownsStorage(const CXXRecordDecl *R) {
  if (!R || !R->getIdentifier())
    return false;
  return StringSwitch<bool>(R->getName())
      .Cases({"vector", "device_vector", "host_vector", "universal_vector", "array"}, true)
      .Default(false);
}

/// The storage of a named container object (`v` in `v.data()`, `&v[k]`);
/// null when Obj is not one.
const VarDecl *containerVar(const Expr *Obj) {
  const auto *D = dyn_cast<DeclRefExpr>(Obj->IgnoreParenImpCasts());
  const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!V || V->getType()->isReferenceType() || !ownsStorage(V->getType()->getAsCXXRecordDecl()))
    return nullptr;
  return V->getCanonicalDecl();
}

AllocationOrigin unknown(std::string Why) {
  AllocationOrigin O;
  O.Why = std::move(Why);
  return O;
}

AllocationOrigin site(AllocationOrigin::KindTy K, const void *Id, std::string What,
                      const Expr *Size = nullptr, bool SizeInElements = false) {
  AllocationOrigin O;
  O.Kind = K;
  O.Sites.push_back({Id, std::move(What), Size, SizeInElements});
  return O;
}

/// The bytes argument of an allocator that stores its pointer through its
/// first argument: the second, except for cudaMallocPitch's (a width).
const Expr *storedAllocationBytes(const CallExpr *C) {
  if (calleeName(C) == "cudaMallocPitch" || C->getNumArgs() < 2)
    return nullptr;
  return C->getArg(1);
}

/// The calls of F, and whether F is named other than as a callee.
class CallFinder : public DynamicRecursiveASTVisitor {
public:
  explicit CallFinder(const FunctionDecl &F) : F(F.getCanonicalDecl()) {
    ShouldVisitTemplateInstantiations = true;
  }
  std::vector<const CallExpr *> Calls;
  bool AddressTaken = false;
  bool VisitCallExpr(CallExpr *C) override {
    if (const FunctionDecl *Callee = C->getDirectCallee()) {
      const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern();
      if (Callee->getCanonicalDecl() == F ||
          (Pattern && Pattern->getCanonicalDecl() == F)) {
        Calls.push_back(C);
        if (const auto *D = dyn_cast<DeclRefExpr>(C->getCallee()->IgnoreParenImpCasts()))
          Callees.insert(D);
      }
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) override {
    if (const auto *FD = dyn_cast<FunctionDecl>(D->getDecl())) {
      const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
      if (FD->getCanonicalDecl() == F || (Pattern && Pattern->getCanonicalDecl() == F))
        Named.push_back(D);
    }
    return true;
  }
  void finish() {
    for (const DeclRefExpr *D : Named)
      AddressTaken |= !Callees.contains(D);
  }

private:
  const FunctionDecl *F;
  DenseSet<const DeclRefExpr *> Callees;
  std::vector<const DeclRefExpr *> Named;
};

/// The references to V inside Root.
class RefFinder : public DynamicRecursiveASTVisitor {
public:
  explicit RefFinder(const VarDecl *V) : V(V) {}
  std::vector<const DeclRefExpr *> Refs;
  bool VisitDeclRefExpr(DeclRefExpr *D) override {
    if (D->getDecl() == V)
      Refs.push_back(D);
    return true;
  }

private:
  const VarDecl *V;
};

class Tracer {
public:
  Tracer(ASTContext &Ctx, unsigned MaxDepth) : Ctx(Ctx), MaxDepth(MaxDepth) {}

  /// What E points into; Empty when only variables already being traced
  /// were met.
  AllocationOrigin trace(const Expr *E, unsigned Depth);

  /// The marker of "nothing yet" in a union.
  static bool isEmpty(const AllocationOrigin &O) {
    return O.Kind == AllocationOrigin::Null && O.Why == EmptyMark;
  }

private:
  static constexpr const char *EmptyMark = "(empty)";
  AllocationOrigin traceVar(const VarDecl *V, unsigned Depth);
  AllocationOrigin traceParam(const ParmVarDecl *P, unsigned Depth);
  /// The storage of the container Obj.
  AllocationOrigin storage(const Expr *Obj) {
    if (const VarDecl *V = containerVar(Obj))
      return site(AllocationOrigin::Object, V, formatv("the storage of '{0}'", V->getName()).str());
    return unknown(formatv("'{0}' is not a named std or thrust container, whose storage would "
                           "be its own",
                           textOf(Obj, Ctx)));
  }
  /// The union of V's definitions in Root, Base being the first.
  AllocationOrigin definitions(const VarDecl *V, const Decl *Root, AllocationOrigin Base,
                               unsigned Depth);
  /// What `&V` (the node at A) does: a definition through an allocator, or
  /// an escape.
  AllocationOrigin addressUse(const VarDecl *V, const Expr *A);
  const Stmt *parentStmt(const Stmt *S) {
    auto Parents = Ctx.getParents(*S);
    return Parents.empty() ? nullptr : Parents[0].get<Stmt>();
  }
  std::string line(SourceLocation L) { return std::to_string(lineOf(Ctx, L)); }

  ASTContext &Ctx;
  unsigned MaxDepth;
  DenseSet<const VarDecl *> Visiting;

public:
  static AllocationOrigin empty() {
    AllocationOrigin O;
    O.Kind = AllocationOrigin::Null;
    O.Why = EmptyMark;
    return O;
  }
  static AllocationOrigin merge(AllocationOrigin A, const AllocationOrigin &B);
};

AllocationOrigin Tracer::merge(AllocationOrigin A, const AllocationOrigin &B) {
  if (!A.known())
    return A;
  if (!B.known())
    return B;
  if (isEmpty(A))
    return B;
  if (isEmpty(B))
    return A;
  if (A.Kind == AllocationOrigin::Null) {
    if (B.Kind == AllocationOrigin::Null)
      return A;
    AllocationOrigin R = B;
    R.Offset.clear();
    return R;
  }
  if (B.Kind == AllocationOrigin::Null) {
    A.Offset.clear();
    return A;
  }
  bool SameSites = A.Sites.size() == B.Sites.size();
  for (const AllocationSite &S : B.Sites) {
    bool Have = llvm::any_of(A.Sites, [&](const AllocationSite &T) { return T.Id == S.Id; });
    SameSites &= Have;
    if (!Have)
      A.Sites.push_back(S);
  }
  if (A.Kind != B.Kind)
    A.Kind = AllocationOrigin::Allocation;
  if (!SameSites || A.Offset != B.Offset)
    A.Offset.clear();
  return A;
}

AllocationOrigin Tracer::trace(const Expr *E, unsigned Depth) {
  std::string Offset;
  auto WithOffset = [&](AllocationOrigin O) {
    if (O.Kind != AllocationOrigin::Unknown && O.Kind != AllocationOrigin::Null &&
        !Offset.empty())
      O.Offset = O.Offset.empty() ? Offset : O.Offset + " + " + Offset;
    return O;
  };
  auto AddOffset = [&](std::string Text) {
    Offset = Offset.empty() ? Text : Text + " + " + Offset;
  };
  while (true) {
    E = E->IgnoreParens();
    if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E)) {
      E = D->getExpr();
      continue;
    }
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = M->getSubExpr();
      continue;
    }
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = B->getSubExpr();
      continue;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      // A copy of a pointer-like object (a thrust::device_ptr).
      if (C->getNumArgs() == 1 && C->getConstructor()->isCopyOrMoveConstructor()) {
        E = C->getArg(0);
        continue;
      }
      return unknown(formatv("'{0}' is constructed by a call that is not followed",
                             textOf(E, Ctx)));
    }
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      switch (C->getCastKind()) {
      case CK_NullToPointer:
        return AllocationOrigin{AllocationOrigin::Null, {}, "", ""};
      case CK_NoOp:
      case CK_BitCast:
      case CK_LValueToRValue:
      case CK_ArrayToPointerDecay:
      case CK_AddressSpaceConversion:
      case CK_UserDefinedConversion:
      case CK_ConstructorConversion:
        E = C->getSubExpr();
        continue;
      default:
        return unknown(formatv("'{0}' is a cast ({1}) that is not followed", textOf(E, Ctx),
                               C->getCastKindName()));
      }
    }
    if (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E))
      return AllocationOrigin{AllocationOrigin::Null, {}, "", ""};
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->getOpcode() == BO_Comma) {
        E = B->getRHS();
        continue;
      }
      if (B->isAdditiveOp() && B->getType()->isPointerType()) {
        bool LeftPtr = B->getLHS()->getType()->isPointerType() ||
                       B->getLHS()->getType()->isArrayType();
        const Expr *Other = LeftPtr ? B->getRHS() : B->getLHS();
        AddOffset((B->getOpcode() == BO_Sub ? "-" : "") + textOf(Other, Ctx));
        E = LeftPtr ? B->getLHS() : B->getRHS();
        continue;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_AddrOf) {
        const Expr *Sub = U->getSubExpr()->IgnoreParens();
        if (const auto *A = dyn_cast<ArraySubscriptExpr>(Sub)) {
          AddOffset(textOf(A->getIdx(), Ctx));
          E = A->getBase();
          continue;
        }
        if (const auto *D = dyn_cast<UnaryOperator>(Sub); D && D->getOpcode() == UO_Deref) {
          E = D->getSubExpr();
          continue;
        }
        if (const auto *O = dyn_cast<CXXOperatorCallExpr>(Sub);
            O && O->getOperator() == OO_Subscript && O->getNumArgs() == 2) {
          AddOffset(textOf(O->getArg(1), Ctx));
          return WithOffset(storage(O->getArg(0)));
        }
        if (const auto *D = dyn_cast<DeclRefExpr>(Sub))
          if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
              V && !V->getType()->isReferenceType() && !isa<ParmVarDecl>(V))
            return WithOffset(site(AllocationOrigin::Object, V->getCanonicalDecl(),
                                   formatv("the object '{0}'", V->getName()).str()));
        return unknown(formatv("'{0}' is the address of an expression that is not followed",
                               textOf(E, Ctx)));
      }
      if (U->getOpcode() == UO_Deref)
        return unknown(formatv("'{0}' is a pointer read through another pointer", textOf(E, Ctx)));
    }
    // &v[k] of a thrust::device_vector: operator& of the element reference.
    if (const auto *O = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (O->getOperator() == OO_Amp && O->getNumArgs() == 1) {
        const Expr *Sub = O->getArg(0)->IgnoreParenImpCasts();
        if (const auto *S = dyn_cast<CXXOperatorCallExpr>(Sub);
            S && S->getOperator() == OO_Subscript && S->getNumArgs() == 2) {
          AddOffset(textOf(S->getArg(1), Ctx));
          return WithOffset(storage(S->getArg(0)));
        }
      }
      return unknown(formatv("'{0}' is the result of an operator call that is not followed",
                             textOf(E, Ctx)));
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E))
      return WithOffset(merge(trace(C->getTrueExpr(), Depth), trace(C->getFalseExpr(), Depth)));
    if (const auto *N = dyn_cast<CXXNewExpr>(E)) {
      if (N->getNumPlacementArgs())
        return unknown(formatv("the placement new at line {0} is not followed",
                               line(N->getBeginLoc())));
      const Expr *Count = nullptr;
      if (N->isArray() && N->getArraySize())
        Count = *N->getArraySize();
      return WithOffset(site(AllocationOrigin::Allocation, N,
                             formatv("the new{0} at line {1}", N->isArray() ? "[]" : "",
                                     line(N->getBeginLoc()))
                                 .str(),
                             Count, /*SizeInElements=*/true));
    }
    if (const auto *M = dyn_cast<CXXMemberCallExpr>(E)) {
      const Expr *Obj = M->getImplicitObjectArgument();
      const CXXMethodDecl *MD = M->getMethodDecl();
      StringRef Name = MD && MD->getIdentifier() ? MD->getName() : "";
      const CXXRecordDecl *R =
          Obj ? Obj->IgnoreParenImpCasts()->getType()->getAsCXXRecordDecl() : nullptr;
      if (Obj && Name == "get" && R && R->getIdentifier() && R->getName() == "device_ptr") {
        E = Obj;
        continue;
      }
      if (Obj && Name == "data")
        return WithOffset(storage(Obj));
      return unknown(formatv("'{0}' is returned by a call that is not followed", textOf(E, Ctx)));
    }
    if (const auto *C = dyn_cast<CallExpr>(E)) {
      StringRef Name = calleeName(C);
      if (returnsAllocation(Name))
        return WithOffset(site(AllocationOrigin::Allocation, C,
                               formatv("the {0} at line {1}", Name, line(C->getBeginLoc())).str(),
                               Name == "malloc" && C->getNumArgs() == 1 ? C->getArg(0)
                                                                        : nullptr));
      if ((Name == "raw_pointer_cast" || Name == "device_pointer_cast") && C->getNumArgs() == 1) {
        E = C->getArg(0);
        continue;
      }
      return unknown(formatv("'{0}' is returned by a call that is not followed", textOf(E, Ctx)));
    }
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        return WithOffset(traceVar(V, Depth));
      return unknown(formatv("'{0}' is not a variable", textOf(E, Ctx)));
    }
    if (const auto *M = dyn_cast<MemberExpr>(E))
      return unknown(formatv("'{0}' is a member of a struct or class, whose value is not "
                             "followed",
                             textOf(M, Ctx)));
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      return unknown(formatv("'{0}' is an element of an array of pointers, whose value is not "
                             "followed",
                             textOf(A, Ctx)));
    if (const auto *I = dyn_cast<IntegerLiteral>(E); I && I->getValue() == 0)
      return AllocationOrigin{AllocationOrigin::Null, {}, "", ""};
    return unknown(formatv("'{0}' cannot be followed", textOf(E, Ctx)));
  }
}

AllocationOrigin Tracer::traceVar(const VarDecl *V, unsigned Depth) {
  V = V->getCanonicalDecl();
  QualType T = V->getType();
  if (T->isArrayType()) {
    if (isa<ParmVarDecl>(V))
      return unknown(formatv("'{0}' is an array parameter", V->getName()));
    StringRef Kind = V->hasAttr<CUDAConstantAttr>() ? "__constant__ "
                     : V->hasAttr<CUDASharedAttr>()  ? "__shared__ "
                     : V->hasAttr<HIPManagedAttr>()  ? "__managed__ "
                     : V->hasAttr<CUDADeviceAttr>()  ? "__device__ "
                     : V->isStaticLocal() || V->getStorageClass() == SC_Static ? "static "
                     : V->hasGlobalStorage()                                   ? "global "
                                                                               : "";
    return site(AllocationOrigin::Object, V, formatv("the {0}array '{1}'", Kind, V->getName()).str());
  }
  if (T->isReferenceType())
    return unknown(formatv("'{0}' is a reference, whose target is not followed", V->getName()));
  if (!T->isPointerType() && !T->isRecordType())
    return unknown(formatv("'{0}' is not a pointer", V->getName()));
  if (!T->isPointerType())
    return unknown(formatv("'{0}' is an object of class type, whose value is not followed",
                           V->getName()));
  if (!Visiting.insert(V).second)
    return empty();
  if (const auto *P = dyn_cast<ParmVarDecl>(V))
    return traceParam(P, Depth);
  const Decl *Root;
  AllocationOrigin Base;
  if (V->hasGlobalStorage() && !V->isStaticLocal()) {
    Root = Ctx.getTranslationUnitDecl();
    // A global starts as a null pointer unless initialised.
    Base = V->getAnyInitializer() ? trace(V->getAnyInitializer(), Depth)
                                  : AllocationOrigin{AllocationOrigin::Null, {}, "", ""};
  } else {
    Root = dyn_cast_or_null<Decl>(V->getParentFunctionOrMethod());
    if (!Root)
      return unknown(formatv("'{0}' is not declared in a function", V->getName()));
    if (V->isStaticLocal())
      Base = V->getInit() ? trace(V->getInit(), Depth)
                          : AllocationOrigin{AllocationOrigin::Null, {}, "", ""};
    else
      Base = V->getInit() ? trace(V->getInit(), Depth) : empty();
  }
  AllocationOrigin O = definitions(V, Root, Base, Depth);
  if (isEmpty(O))
    return unknown(formatv("'{0}' is given no value that can be followed", V->getName()));
  return O;
}

AllocationOrigin Tracer::traceParam(const ParmVarDecl *P, unsigned Depth) {
  const auto *F = dyn_cast_or_null<FunctionDecl>(P->getDeclContext());
  if (!F)
    return unknown(formatv("'{0}' is a parameter of something that is not a function",
                           P->getName()));
  std::string Of = formatv("'{0}' is a parameter of '{1}'", P->getName(),
                           F->getQualifiedNameAsString())
                       .str();
  if (const auto *M = dyn_cast<CXXMethodDecl>(F)) {
    if (M->getParent()->isLambda())
      return unknown(Of + ", a lambda, whose calls are not followed");
    if (M->isVirtual())
      return unknown(Of + ", a virtual function, whose calls are not followed");
  }
  if (Depth >= MaxDepth)
    return unknown(formatv("{0}, followed {1} calls deep and no further", Of, MaxDepth).str());
  CallFinder CF(*F);
  CF.TraverseDecl(Ctx.getTranslationUnitDecl());
  CF.finish();
  if (CF.AddressTaken)
    return unknown(Of + ", whose address is taken: its callers are not all known");
  if (CF.Calls.empty())
    return unknown(Of + ", whose callers are not in this file");
  unsigned Index = P->getFunctionScopeIndex();
  AllocationOrigin O = empty();
  for (const CallExpr *C : CF.Calls) {
    unsigned ArgIndex = Index;
    if (isa<CXXOperatorCallExpr>(C) && isa<CXXMethodDecl>(F))
      ++ArgIndex;
    if (ArgIndex >= C->getNumArgs())
      return unknown(formatv("{0}, and the call at line {1} passes no argument for it", Of,
                             line(C->getBeginLoc()))
                         .str());
    AllocationOrigin A = trace(C->getArg(ArgIndex), Depth + 1);
    if (!A.known())
      return unknown(formatv("{0}, called at line {1} with '{2}': {3}", Of,
                             line(C->getBeginLoc()), textOf(C->getArg(ArgIndex), Ctx), A.Why)
                         .str());
    O = merge(O, A);
  }
  return definitions(P, F, O, Depth);
}

AllocationOrigin Tracer::definitions(const VarDecl *V, const Decl *Root, AllocationOrigin Base,
                                     unsigned Depth) {
  RefFinder RF(V);
  RF.TraverseDecl(const_cast<Decl *>(Root));
  AllocationOrigin O = std::move(Base);
  for (const DeclRefExpr *R : RF.Refs) {
    if (!O.known())
      return O;
    const Stmt *Use = R;
    const Stmt *P = parentStmt(Use);
    while (P && isa<ParenExpr>(P)) {
      Use = P;
      P = parentStmt(P);
    }
    if (!P)
      return unknown(formatv("'{0}' is used at line {1} in a way that is not followed",
                             V->getName(), line(R->getBeginLoc())));
    if (const auto *C = dyn_cast<ImplicitCastExpr>(P); C && C->getCastKind() == CK_LValueToRValue)
      continue;
    if (isa<UnaryExprOrTypeTraitExpr>(P))
      continue;
    if (const auto *B = dyn_cast<BinaryOperator>(P); B && B->getLHS()->IgnoreParens() == R) {
      if (B->getOpcode() == BO_Assign) {
        AllocationOrigin A = trace(B->getRHS(), Depth);
        if (!A.known())
          return unknown(formatv("'{0}' is assigned '{1}' at line {2}: {3}", V->getName(),
                                 textOf(B->getRHS(), Ctx), line(B->getBeginLoc()), A.Why)
                             .str());
        O = merge(O, A);
        O.Offset.clear();
        continue;
      }
      if (B->getOpcode() == BO_AddAssign || B->getOpcode() == BO_SubAssign) {
        O.Offset.clear();
        continue;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(P)) {
      if (U->isIncrementDecrementOp()) {
        O.Offset.clear();
        continue;
      }
      if (U->getOpcode() == UO_AddrOf) {
        AllocationOrigin A = addressUse(V, U);
        if (!A.known())
          return A;
        O = merge(O, A);
        O.Offset.clear();
        continue;
      }
    }
    return unknown(formatv("'{0}' is bound to a reference or changed at line {1} in a way "
                           "that is not followed",
                           V->getName(), line(R->getBeginLoc()))
                       .str());
  }
  return O;
}

AllocationOrigin Tracer::addressUse(const VarDecl *V, const Expr *A) {
  const Stmt *Arg = A;
  const Stmt *P = parentStmt(Arg);
  while (P && (isa<CastExpr>(P) || isa<ParenExpr>(P))) {
    Arg = P;
    P = parentStmt(P);
  }
  if (const auto *C = dyn_cast_or_null<CallExpr>(P))
    if (storesAllocation(calleeName(C)) && C->getNumArgs() && C->getArg(0) == Arg)
      return site(AllocationOrigin::Allocation, C,
                  formatv("the {0} at line {1}", calleeName(C), line(C->getBeginLoc())).str(),
                  storedAllocationBytes(C));
  return unknown(formatv("the address of '{0}' is taken at line {1}: it may be changed unseen",
                         V->getName(), line(A->getBeginLoc()))
                     .str());
}

} // namespace

std::string AllocationOrigin::describe() const {
  switch (Kind) {
  case Null:
    return "a null pointer";
  case Unknown:
    return "an unknown origin";
  default:
    break;
  }
  std::string S;
  for (size_t I = 0; I < Sites.size(); ++I)
    S += (I ? " or " : "") + Sites[I].What;
  if (!Offset.empty())
    S += " (offset " + Offset + ")";
  return S;
}

/// The variable E offsets or casts, if any.
const VarDecl *offsetVariable(const Expr *E) {
  while (true) {
    E = E->IgnoreParenCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAdditiveOp()) {
      E = B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS();
      continue;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens())) {
        E = A->getBase();
        continue;
      }
    break;
  }
  const auto *D = dyn_cast<DeclRefExpr>(E);
  const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  return V && V->getType()->isPointerType() ? V->getCanonicalDecl() : nullptr;
}

AllocationOrigin traceAllocation(const Expr *E, ASTContext &Ctx, unsigned MaxDepth) {
  Tracer T(Ctx, MaxDepth);
  AllocationOrigin O = T.trace(E, 0);
  if (Tracer::isEmpty(O))
    O = unknown("'" + textOf(E, Ctx) + "' is given no value that can be followed");
  O.Variable = offsetVariable(E);
  return O;
}

AliasVerdict compareOrigins(const AllocationOrigin &A, const AllocationOrigin &B) {
  if (A.Variable && A.Variable == B.Variable)
    return AliasVerdict::Same;
  if (!A.known() || !B.known())
    return AliasVerdict::Unknown;
  bool Shared = false;
  for (const AllocationSite &S : A.Sites)
    Shared |= llvm::any_of(B.Sites, [&](const AllocationSite &T) { return T.Id == S.Id; });
  if (!Shared)
    return AliasVerdict::Distinct;
  if (A.Sites.size() == 1 && B.Sites.size() == 1)
    return AliasVerdict::Same;
  return AliasVerdict::Unknown;
}

std::vector<const CallExpr *> callsOf(const FunctionDecl &F, ASTContext &Ctx) {
  CallFinder CF(F);
  CF.TraverseDecl(Ctx.getTranslationUnitDecl());
  return CF.Calls;
}

} // namespace forge::analysis
