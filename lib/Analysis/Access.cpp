//===- Analysis/Access.cpp - Memory accesses and their warp classes -------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

StringRef accessKindName(AccessKind K) {
  switch (K) {
  case AccessKind::Load:
    return "load";
  case AccessKind::Store:
    return "store";
  case AccessKind::ReadModifyWrite:
    return "read-modify-write";
  case AccessKind::Atomic:
    return "atomic";
  }
  return "load";
}

StringRef atomicOpName(AtomicOp Op) {
  switch (Op) {
  case AtomicOp::None:
    return "none";
  case AtomicOp::Add:
    return "add";
  case AtomicOp::Sub:
    return "sub";
  case AtomicOp::Max:
    return "max";
  case AtomicOp::Min:
    return "min";
  case AtomicOp::And:
    return "and";
  case AtomicOp::Or:
    return "or";
  case AtomicOp::Xor:
    return "xor";
  case AtomicOp::Exch:
    return "exch";
  case AtomicOp::CAS:
    return "cas";
  case AtomicOp::Inc:
    return "inc";
  case AtomicOp::Dec:
    return "dec";
  }
  return "none";
}

StringRef memorySpaceName(MemorySpace S) {
  switch (S) {
  case MemorySpace::Global:
    return "global";
  case MemorySpace::Shared:
    return "shared";
  case MemorySpace::Unknown:
    return "unknown";
  }
  return "unknown";
}

StringRef accessClassName(AccessClass C) {
  switch (C) {
  case AccessClass::Coalesced:
    return "coalesced";
  case AccessClass::Strided:
    return "strided";
  case AccessClass::Broadcast:
    return "broadcast";
  case AccessClass::Transposed:
    return "transposed";
  case AccessClass::DataDependent:
    return "data-dependent";
  case AccessClass::Unknown:
    return "unknown";
  }
  return "unknown";
}

StringRef borderModeName(BorderMode B) {
  switch (B) {
  case BorderMode::None:
    return "none";
  case BorderMode::Clamped:
    return "clamped";
  case BorderMode::Guarded:
    return "guarded";
  case BorderMode::Interior:
    return "interior";
  }
  return "none";
}

std::string Footprint::shape() const {
  std::string S;
  // Printed slowest dimension first, as arrays are written: 3x5 is 3 rows of 5.
  for (auto It = Dims.rbegin(); It != Dims.rend(); ++It) {
    std::string E =
        Symbolic && !It->ExtentText.empty() ? It->ExtentText : std::to_string(It->extent());
    if (Symbolic && Dims.size() > 1 && E.find(' ') != std::string::npos)
      E = "(" + E + ")";
    S += (S.empty() ? "" : "x") + E;
  }
  return S;
}

const clang::Expr *Access::addressArg() const {
  const auto *C = dyn_cast_or_null<CallExpr>(E);
  return C && AddressArg < C->getNumArgs() ? C->getArg(AddressArg) : nullptr;
}
const clang::Expr *Access::valueArg() const {
  const auto *C = dyn_cast_or_null<CallExpr>(E);
  return C && ValueArg >= 0 && unsigned(ValueArg) < C->getNumArgs() ? C->getArg(unsigned(ValueArg))
                                                                    : nullptr;
}

namespace {
AtomicOp atomicOpOf(StringRef N) {
  N.consume_front("atomic");
  N = N.split('_').first; // atomicAdd_block, atomicAdd_system
  return StringSwitch<AtomicOp>(N)
      .Case("Add", AtomicOp::Add)
      .Case("Sub", AtomicOp::Sub)
      .Case("Max", AtomicOp::Max)
      .Case("Min", AtomicOp::Min)
      .Case("And", AtomicOp::And)
      .Case("Or", AtomicOp::Or)
      .Case("Xor", AtomicOp::Xor)
      .Case("Exch", AtomicOp::Exch)
      .Case("CAS", AtomicOp::CAS)
      .Case("Inc", AtomicOp::Inc)
      .Case("Dec", AtomicOp::Dec)
      .Default(AtomicOp::None);
}
bool isLoadCall(StringRef N) {
  return N == "__ldg" || N == "__ldcg" || N == "__ldca" || N == "__ldcs" || N == "__ldlu" ||
         N == "__ldcv";
}
bool isStoreCall(StringRef N) {
  return N == "__stcg" || N == "__stcs" || N == "__stwb" || N == "__stwt";
}

class MemoryRefs : public DynamicRecursiveASTVisitor {
public:
  std::vector<const Expr *> Refs;
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) override { return Refs.push_back(E), true; }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    if (U->getOpcode() == UO_Deref)
      Refs.push_back(U);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) override {
    StringRef N = calleeName(C);
    if (((isAtomicCallee(N) || isLoadCall(N) || isStoreCall(N)) && C->getNumArgs() >= 1) ||
        atomicWrapperOf(C->getDirectCallee()) || storeWrapperOf(C->getDirectCallee()))
      Refs.push_back(C);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) override { return true; }
};
} // namespace

void KernelAnalyzer::findWrittenBases() {
  class Writes : public DynamicRecursiveASTVisitor {
  public:
    std::vector<const Expr *> Targets;  ///< lvalues written
    std::vector<const Expr *> Pointers; ///< pointers written through
    bool VisitBinaryOperator(BinaryOperator *B) override {
      if (B->isAssignmentOp())
        Targets.push_back(B->getLHS());
      return true;
    }
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) override {
      if (auto A = asAssignment(C))
        Targets.push_back(A->LHS);
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) override {
      if (U->isIncrementDecrementOp())
        Targets.push_back(U->getSubExpr());
      return true;
    }
    bool VisitCallExpr(CallExpr *C) override {
      StringRef N = calleeName(C);
      if (auto W = atomicWrapperOf(C->getDirectCallee()))
        Pointers.push_back(C->getArg(W->AddressParam));
      else if (auto SW = storeWrapperOf(C->getDirectCallee()))
        Pointers.push_back(C->getArg(SW->PointerParam));
      else if ((isAtomicCallee(N) || isStoreCall(N)) && C->getNumArgs() >= 1)
        Pointers.push_back(C->getArg(0));
      return true;
    }
  } W;
  W.TraverseStmt(const_cast<Stmt *>(Body));
  for (const Expr *T : W.Targets) {
    const Expr *X = T->IgnoreParenImpCasts();
    while (const auto *M = dyn_cast<MemberExpr>(X)) {
      if (M->isArrow())
        break;
      X = M->getBase()->IgnoreParenImpCasts();
    }
    bool Memory = isa<ArraySubscriptExpr>(X) || isa<MemberExpr>(X) ||
                  (isa<UnaryOperator>(X) && cast<UnaryOperator>(X)->getOpcode() == UO_Deref);
    if (const auto *D = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && !V->hasLocalStorage())
        Memory = true; // a __shared__ or __device__ scalar
    if (Memory)
      if (const ValueDecl *B = baseOf(X))
        WrittenBases.insert(B);
  }
  for (const Expr *P : W.Pointers)
    if (const ValueDecl *B = baseOf(P))
      WrittenBases.insert(B);
}

void KernelAnalyzer::collectAccesses(KernelModel &M) {
  MemoryRefs R;
  R.TraverseStmt(const_cast<Stmt *>(Body));
  for (const Expr *E : R.Refs) {
    Access A;
    PointerValue P;
    if (const auto *C = dyn_cast<CallExpr>(E)) {
      StringRef N = calleeName(C);
      A.Callee = N.str();
      if (auto W = atomicWrapperOf(C->getDirectCallee())) {
        A.Wrapper = A.Callee;
        A.Callee = W->Builtin;
        N = A.Callee;
        A.AddressArg = W->AddressParam;
        A.ValueArg = W->ValueParam;
        A.ValueText = W->ValueText;
        A.Notes.push_back("through the atomic wrapper '" + A.Wrapper + "', which calls '" +
                          A.Callee + "'");
      }
      auto SW = storeWrapperOf(C->getDirectCallee());
      if (SW) {
        A.Wrapper = A.Callee;
        A.AddressArg = SW->PointerParam;
        A.ValueArg = int(SW->ValueParam);
        A.IndexArg = SW->IndexParam;
        A.Notes.push_back("through the store helper '" + A.Wrapper + "'");
      }
      const Expr *Ptr = C->getArg(A.AddressArg);
      P = pointerOf(Ptr);
      QualType PT = Ptr->IgnoreParenImpCasts()->getType();
      if (PT->isPointerType())
        P = rebase(P, PT->getPointeeType());
      if (SW) {
        A.Kind = AccessKind::Store;
        if (SW->IndexParam >= 0)
          P.Offset = P.Offset + formOf(C->getArg(unsigned(SW->IndexParam)));
      } else if (isAtomicCallee(N)) {
        A.Kind = AccessKind::Atomic;
        A.Atomic = atomicOpOf(N);
        // atomicInc(p, 0xffffffff) stores old + 1 (0 after 0xffffffff): an
        // unsigned add of 1.
        Expr::EvalResult Limit;
        if (A.Atomic == AtomicOp::Inc && A.Wrapper.empty() && C->getNumArgs() == 2 &&
            !C->getArg(1)->isValueDependent() && C->getArg(1)->EvaluateAsInt(Limit, Ctx) &&
            Limit.Val.getInt().getZExtValue() == 0xffffffffull) {
          A.Atomic = AtomicOp::Add;
          A.ValueArg = -1;
          A.ValueText = "1u";
          A.Notes.push_back("'" + A.Callee + "' with the limit 0xffffffff is an add of 1");
        }
      } else {
        A.Kind = isStoreCall(N) ? AccessKind::Store : AccessKind::Load;
      }
    } else {
      if (E->getType()->isArrayType() || E->getType()->isFunctionType())
        continue;
      // A row of a multi-dimensional array in a template pattern (As[ty] of
      // As[ty][tx]): its type is dependent, its declaration says it is an array.
      if (E->getType()->isDependentType())
        if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
          const Expr *B = subscriptBase(Sub)->IgnoreParenImpCasts();
          const ArrayType *AT = nullptr;
          if (const auto *D = dyn_cast<DeclRefExpr>(B))
            AT = Ctx.getAsArrayType(D->getDecl()->getType());
          if (AT && Ctx.getAsArrayType(AT->getElementType()))
            continue;
          if (isa<ArraySubscriptExpr>(B) && isa_and_nonnull<ArraySubscriptExpr>(parentOf(E)))
            continue;
        }
      // The context: skip parentheses, fields of the element (p[i].x).
      const Stmt *Child = E;
      const Stmt *Par = parentOf(E);
      while (Par &&
             (isa<ParenExpr>(Par) || (isa<MemberExpr>(Par) && !cast<MemberExpr>(Par)->isArrow() &&
                                      cast<MemberExpr>(Par)->getBase()->IgnoreParens() == Child))) {
        Child = Par;
        Par = parentOf(Par);
      }
      if (const auto *U = dyn_cast_or_null<UnaryOperator>(Par); U && U->getOpcode() == UO_AddrOf)
        continue; // an address, not an access (the call that uses it is)
      if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(Par);
          IC && IC->getCastKind() == CK_ArrayToPointerDecay)
        continue;
      if (auto As = asAssignment(Par); As && As->LHS->IgnoreParens() == Child)
        A.Kind = As->Op == BO_Assign ? AccessKind::Store : AccessKind::ReadModifyWrite;
      else if (const auto *U = dyn_cast_or_null<UnaryOperator>(Par);
               U && U->isIncrementDecrementOp())
        A.Kind = AccessKind::ReadModifyWrite;
      else
        A.Kind = AccessKind::Load;
      P = addressOf(E);
    }
    if (P.Local)
      continue;
    if (P.Space == MemorySpace::Shared && !Opts.SharedMemory)
      continue;
    A.Id = unsigned(M.Accesses.size());
    A.E = E;
    A.Space = P.Base ? P.Space : MemorySpace::Unknown;
    A.Base = P.Base;
    A.Buffer = P.Base ? P.BaseName : text(E);
    if (const auto *Parm = dyn_cast_or_null<ParmVarDecl>(P.Base))
      for (unsigned I = 0; I < Kernel.getNumParams(); ++I)
        if (Kernel.getParamDecl(I) == Parm)
          A.ParamIndex = int(I);
    A.Text = text(E);
    A.Loc = span(E);
    QualType Elem = P.Elem.isNull() ? E->getType() : P.Elem;
    A.ElementType = typeSpelling(Elem, Ctx);
    A.ElementBytes = typeBytes(Elem, Ctx);
    A.Index = P.Offset;
    A.IndexText = Table->render(P.Offset);
    A.Notes.insert(A.Notes.end(), P.Notes.begin(), P.Notes.end());
    A.Loops = loopsAround(E);
    A.G = guardOf(E);
    if (!P.Base) {
      A.IndexKnown = false;
      A.IndexWhy = P.Why;
    } else if (const Atom *U = Table->unknownAtom(A.Index, Uniformity::ThreadVarying)) {
      A.IndexKnown = false;
      A.IndexWhy = U->Reason;
    }
    std::string Why;
    A.Affine = Table->isAffine(A.Index, &Why);
    if (!A.Affine && A.IndexWhy.empty())
      A.IndexWhy = "the index is not affine: " + Why;
    // Unknown base: the class is decided here.
    if (!P.Base) {
      A.Warp.Class = P.DataDependent ? AccessClass::DataDependent : AccessClass::Unknown;
      A.Warp.Reason = P.Why;
    }
    M.Accesses.push_back(std::move(A));
  }
}

namespace {
/// Whether the value of From reaches Into: From is inside Into, or inside
/// the value of a local that Into reads.
bool flowsInto(const KernelAnalyzer &K, const Expr *From, const Expr *Into, unsigned Depth) {
  if (!From || !Into || Depth > 3)
    return false;
  if (K.inside(From, Into))
    return true;
  class Locals : public DynamicRecursiveASTVisitor {
  public:
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *E) override { return Refs.push_back(E), true; }
  } L;
  L.TraverseStmt(const_cast<Expr *>(Into));
  for (const DeclRefExpr *D : L.Refs) {
    const Expr *Def = K.definingExpr(D);
    if (Def && Def != D && flowsInto(K, From, Def, Depth + 1))
      return true;
  }
  return false;
}

bool isUnit(const Slope &S) {
  auto C = S.constant();
  return C && (*C == 1 || *C == -1);
}
bool isSpread(const Slope &S) {
  // Neighbours along the variable are more than one element apart.
  if (!S.Step || S.Step->isZero() || S.Lanes != 1)
    return false;
  auto C = S.Step->constantValue();
  return !C || (*C != 1 && *C != -1);
}
} // namespace

void KernelAnalyzer::classifyAccesses(KernelModel &M) {
  AtomId Tx = Table->builtin("threadIdx", 'x');
  for (Access &A : M.Accesses) {
    if (!A.Base)
      continue;
    WarpBehaviour &W = A.Warp;
    Slope S = Table->slope(A.Index, Tx);
    if (!S.known()) {
      W.Class = S.DataDependent ? AccessClass::DataDependent : AccessClass::Unknown;
      W.Reason = S.Why;
      continue;
    }
    W.Stride = S.Step;
    W.LanesPerElement = S.Lanes;
    W.Assumption = S.Assumption;
    W.StrideText = Table->render(*S.Step);
    if (S.Lanes > 1)
      W.StrideText += " per " + std::to_string(S.Lanes) + " lanes";
    auto C = S.Step->constantValue();
    if (S.Step->isZero() || (S.Lanes >= 32 && C && (*C == 1 || *C == -1))) {
      W.Class = AccessClass::Broadcast;
      if (S.Lanes >= 32)
        W.Assumption = W.Assumption.empty()
                           ? "warps start at multiples of " + std::to_string(S.Lanes) + " lanes"
                           : W.Assumption;
    } else if (C && (*C == 1 || *C == -1)) {
      W.Class = AccessClass::Coalesced;
      if (*C == -1)
        W.Assumption += W.Assumption.empty() ? "descending" : "; descending";
    } else {
      W.Class = AccessClass::Strided;
    }
  }

  // Transposes: a store whose value is a load, with the fast (unit-stride)
  // index of one on threadIdx.x and of the other on another variable.
  std::vector<AtomId> Others;
  for (AtomId Id = 0; Id < Table->size(); ++Id) {
    const Atom &At = (*Table)[Id];
    if ((At.Kind == AtomKind::ThreadIdx && At.Dim != 'x') || At.Kind == AtomKind::LoopVar)
      Others.push_back(Id);
  }
  // Or through a flat index: t (one element per lane along threadIdx.x, or
  // a loop variable t with a slope of 1 along it) split into the row t / d
  // and the column t % d (`r = t / cols; c = t % cols`), the index of one
  // access unit-stride along the column and spread along the row, the other
  // the other way round.
  struct Split {
    AtomId Q, Rm, V; ///< t / d, t % d, and the atom t moves with (threadIdx.x or t's loop variable)
    IndexForm N, D;
  };
  std::vector<Split> Splits;
  for (AtomId Id = 0; Id < Table->size(); ++Id) {
    if ((*Table)[Id].Kind != AtomKind::Div)
      continue;
    IndexForm N = (*Table)[Id].Operands[0], D = (*Table)[Id].Operands[1];
    if (!Table->uniformity(D).atLeast(Uniformity::GridUniform) || Table->dependsOn(D, Tx) ||
        Table->slope(N, Tx).constant() != 1)
      continue;
    std::optional<AtomId> Rm;
    for (AtomId J = 0; J < Table->size(); ++J)
      if ((*Table)[J].Kind == AtomKind::Mod && (*Table)[J].Operands[0] == N &&
          (*Table)[J].Operands[1] == D)
        Rm = J;
    if (!Rm)
      continue;
    AtomId V = Tx;
    for (AtomId A : N.atoms())
      if ((*Table)[A].Kind == AtomKind::LoopVar && N.coefficientOf(A) == IndexForm::constant(1))
        V = A;
    if (N.coefficientOf(V) == IndexForm::constant(1) && !Table->dependsOn(N.withoutAtom(V), V))
      Splits.push_back({Id, *Rm, V, N, D});
  }
  // F as Row * (t / d) + Col * (t % d) + a thread-free rest; none when F
  // depends on the thread otherwise.
  auto Along = [&](const IndexForm &F,
                   const Split &S) -> std::optional<std::pair<IndexForm, IndexForm>> {
    auto A = F.coefficientOf(S.Q), B = F.coefficientOf(S.Rm), G = F.coefficientOf(S.V);
    if (!A || !B || !G || !G->constantValue())
      return std::nullopt;
    IndexForm Rest = F - *A * IndexForm::atom(S.Q) - *B * IndexForm::atom(S.Rm) - *G * S.N;
    for (const IndexForm *X : {&*A, &*B, &Rest})
      if (!Table->uniformity(*X).atLeast(Uniformity::GridUniform) ||
          Table->dependsOn(*X, S.Q) || Table->dependsOn(*X, S.Rm) || Table->dependsOn(*X, S.V) ||
          Table->dependsOn(*X, Tx))
        return std::nullopt;
    // t itself is d rows and one column.
    return std::pair(*A + *G * S.D, *B + *G);
  };
  auto Unit = [](const IndexForm &C) {
    auto V = C.constantValue();
    return V && (*V == 1 || *V == -1);
  };
  auto Spread = [&](const IndexForm &C) { return !C.isZero() && !Unit(C); };
  for (Access &Wr : M.Accesses) {
    if (Wr.Kind != AccessKind::Store || !Wr.Base || !Wr.Affine || !Wr.IndexKnown)
      continue;
    const Stmt *P = parentOf(Wr.E);
    while (P && (isa<ParenExpr>(P) || isa<MemberExpr>(P)))
      P = parentOf(P);
    auto Assign = asAssignment(P);
    if (!Assign)
      continue;
    for (Access &Rd : M.Accesses) {
      if (Rd.Kind != AccessKind::Load || !Rd.Base || Rd.Base == Wr.Base || !Rd.Affine ||
          !Rd.IndexKnown)
        continue;
      if (!flowsInto(*this, Rd.E, Assign->RHS, 0))
        continue;
      Slope RX = Table->slope(Rd.Index, Tx), WX = Table->slope(Wr.Index, Tx);
      bool Paired = false;
      for (AtomId V : Others) {
        Slope RV = Table->slope(Rd.Index, V), WV = Table->slope(Wr.Index, V);
        bool ReadFastX = isUnit(RX) && isSpread(RV) && isUnit(WV) && isSpread(WX);
        bool WriteFastX = isUnit(WX) && isSpread(WV) && isUnit(RV) && isSpread(RX);
        if (!ReadFastX && !WriteFastX)
          continue;
        std::string VName = (*Table)[V].Name;
        for (auto [Self, Other] : {std::pair(&Rd, &Wr), std::pair(&Wr, &Rd)}) {
          Self->Warp.Class = AccessClass::Transposed;
          Self->Warp.SwappedWith = VName;
          Self->Warp.PairedAccess = int(Other->Id);
        }
        std::string Fast =
            ReadFastX ? "the load runs along threadIdx.x and the store along '" + VName + "'"
                      : "the load runs along '" + VName + "' and the store along threadIdx.x";
        Rd.Warp.Reason = Wr.Warp.Reason = Fast;
        Paired = true;
        break;
      }
      for (const Split &S : Splits) {
        if (Paired)
          break;
        auto RA = Along(Rd.Index, S), WA = Along(Wr.Index, S);
        if (!RA || !WA)
          continue;
        // (row, column) coefficients of each access.
        bool ReadAlongCol = Unit(RA->second) && Spread(RA->first) && Unit(WA->first) &&
                            Spread(WA->second);
        bool WriteAlongCol = Unit(WA->second) && Spread(WA->first) && Unit(RA->first) &&
                             Spread(RA->second);
        if (!ReadAlongCol && !WriteAlongCol)
          continue;
        std::string Q = Table->render(IndexForm::atom(S.Q));
        for (auto [Self, Other] : {std::pair(&Rd, &Wr), std::pair(&Wr, &Rd)}) {
          Self->Warp.Class = AccessClass::Transposed;
          Self->Warp.SwappedWith = Q;
          Self->Warp.PairedAccess = int(Other->Id);
          Self->Warp.FlatSplit = S.Q;
        }
        std::string Flat = "the flat index " + Table->render(S.N) + " split by '" +
                           Table->render(S.D) + "' into a row and a column: the ";
        Rd.Warp.Reason = Wr.Warp.Reason =
            Flat + (ReadAlongCol ? "load runs along the column and the store along the row"
                                 : "load runs along the row and the store along the column");
        break;
      }
    }
  }
}

} // namespace forge::analysis
