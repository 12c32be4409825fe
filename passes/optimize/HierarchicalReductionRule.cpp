//===- passes/optimize/HierarchicalReductionRule.cpp - hierarchical-reduction ===//
///
/// \file
/// A reduction whose result is combined into global memory by an atomic
/// into an address that is the same for every thread of a block (the
/// model's atomic Reduction of scope grid or block: `atomicAdd(sum, a[i] *
/// b[i])`, `atomicMax(&res[0], acc)`, `atomicOr(out + blockIdx.x, v)`)
/// issues one atomic per thread, all into one address. The rule keeps each
/// thread's contributions in a register partial, combines the partials of
/// a warp with __shfl_down_sync and the warps of a block through shared
/// memory (one slot per warp), and issues one atomic per block.
///
/// Where the kernel can be made correct for any grid, it also makes every
/// thread cover many elements, four per step so that loads overlap, and
/// caps the grid at FORGE_WAVES waves of the GPU:
///
/// - one element per thread under a guard that bounds blockIdx (`if (i <
///   n)`, `if (i >= n) return;`, `if (x < w && y < h)`): the original body
///   becomes a function of the block index, run for the virtual blocks
///   blockIdx.x, blockIdx.x + gridDim.x, ... that the guard admits;
/// - a grid-stride loop whose elements depend only on the loop variable and
///   grid-uniform values: the loop is run four iterations at a time.
///
/// Blocks whose size is not a multiple of 32 fall back to one atomic per
/// thread (a device-side check). docs/passes/hierarchical-reduction.md.
///
//===----------------------------------------------------------------------===//
#include "BlockTree.h"
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "VirtualBlocks.h"
#include "forge/Analysis/Allocations.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

namespace an = forge::analysis;

constexpr const char *RuleName = "hierarchical-reduction";
/// How many strided steps each thread takes at a time (loads in flight).
constexpr int Unroll = 4;

//===----------------------------------------------------------------------===//
// The combining operator
//===----------------------------------------------------------------------===//

enum class ValueKind { I32, U32, I64, U64, F32, F64, Dependent };

/// The value type of the atomic and how partials of it combine.
struct Combiner {
  an::ReductionOp Op = an::ReductionOp::Add;
  ValueKind K = ValueKind::F32;
  std::string Type; ///< "float", "unsigned long long", "T"
  /// The values are added and the total is subtracted (atomicSub).
  bool Sub = false;

  bool isFloat() const { return K == ValueKind::F32 || K == ValueKind::F64; }

  /// The identity element, or none when it cannot be written (max of a
  /// template type).
  std::optional<std::string> identity() const {
    using an::ReductionOp;
    switch (Op) {
    case ReductionOp::Add:
    case ReductionOp::Or:
    case ReductionOp::Xor:
      switch (K) {
      case ValueKind::F32:
        return std::string("0.0f");
      case ValueKind::F64:
        return std::string("0.0");
      case ValueKind::I32:
        return std::string("0");
      case ValueKind::U32:
        return std::string("0u");
      case ValueKind::I64:
        return std::string("0ll");
      case ValueKind::U64:
        return std::string("0ull");
      case ValueKind::Dependent:
        return Type + "(0)";
      }
      break;
    case ReductionOp::And:
      switch (K) {
      case ValueKind::I32:
        return std::string("-1");
      case ValueKind::U32:
        return std::string("0xffffffffu");
      case ValueKind::I64:
        return std::string("-1ll");
      case ValueKind::U64:
        return std::string("0xffffffffffffffffull");
      default:
        return std::nullopt;
      }
    case ReductionOp::Max:
      switch (K) {
      case ValueKind::I32:
        return std::string("(-2147483647 - 1)");
      case ValueKind::U32:
        return std::string("0u");
      case ValueKind::I64:
        return std::string("(-9223372036854775807ll - 1)");
      case ValueKind::U64:
        return std::string("0ull");
      case ValueKind::F32:
        return std::string("__int_as_float(0xff800000)"); // -inf
      case ValueKind::F64:
        return std::string("__longlong_as_double(0xfff0000000000000ll)"); // -inf
      case ValueKind::Dependent:
        return std::nullopt;
      }
      break;
    case ReductionOp::Min:
      switch (K) {
      case ValueKind::I32:
        return std::string("2147483647");
      case ValueKind::U32:
        return std::string("0xffffffffu");
      case ValueKind::I64:
        return std::string("9223372036854775807ll");
      case ValueKind::U64:
        return std::string("0xffffffffffffffffull");
      case ValueKind::F32:
        return std::string("__int_as_float(0x7f800000)"); // +inf
      case ValueKind::F64:
        return std::string("__longlong_as_double(0x7ff0000000000000ll)"); // +inf
      case ValueKind::Dependent:
        return std::nullopt;
      }
      break;
    default:
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// The statement text (without ';') that combines V into Acc.
  std::string update(StringRef Acc, StringRef V) const {
    using an::ReductionOp;
    switch (Op) {
    case ReductionOp::Add:
      return (Acc + " += " + V).str();
    case ReductionOp::And:
      return (Acc + " &= " + V).str();
    case ReductionOp::Or:
      return (Acc + " |= " + V).str();
    case ReductionOp::Xor:
      return (Acc + " ^= " + V).str();
    case ReductionOp::Max:
    case ReductionOp::Min: {
      bool Max = Op == ReductionOp::Max;
      StringRef F = K == ValueKind::F32   ? (Max ? "fmaxf" : "fminf")
                    : K == ValueKind::F64 ? (Max ? "fmax" : "fmin")
                                          : (Max ? "max" : "min");
      return (Acc + " = " + F + "(" + Acc + ", " + V + ")").str();
    }
    default:
      return (Acc + " += " + V).str();
    }
  }

  /// "add", "max", ...: the words for rationales.
  StringRef opWords() const {
    if (Sub)
      return "subtracted values";
    switch (Op) {
    case an::ReductionOp::Add:
      return "sum";
    case an::ReductionOp::Max:
      return "maximum";
    case an::ReductionOp::Min:
      return "minimum";
    case an::ReductionOp::And:
      return "bitwise and";
    case an::ReductionOp::Or:
      return "bitwise or";
    case an::ReductionOp::Xor:
      return "bitwise xor";
    default:
      return "reduction";
    }
  }
};

std::optional<ValueKind> valueKindOf(QualType T, ASTContext &Ctx) {
  if (T.isNull())
    return std::nullopt;
  if (T->isDependentType())
    return ValueKind::Dependent;
  T = T.getCanonicalType().getUnqualifiedType();
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    return ValueKind::F32;
  if (T->isSpecificBuiltinType(BuiltinType::Double))
    return ValueKind::F64;
  if (!T->isIntegerType() || T->isBooleanType() || T->isEnumeralType())
    return std::nullopt;
  uint64_t Bits = Ctx.getTypeSize(T);
  bool Signed = T->isSignedIntegerType();
  if (Bits == 32)
    return Signed ? ValueKind::I32 : ValueKind::U32;
  if (Bits == 64 && (T->isSpecificBuiltinType(BuiltinType::LongLong) ||
                     T->isSpecificBuiltinType(BuiltinType::ULongLong)))
    return Signed ? ValueKind::I64 : ValueKind::U64;
  return std::nullopt;
}

std::optional<an::ReductionOp> combinedOp(an::AtomicOp A) {
  switch (A) {
  case an::AtomicOp::Add:
  case an::AtomicOp::Sub:
    return an::ReductionOp::Add;
  case an::AtomicOp::Max:
    return an::ReductionOp::Max;
  case an::AtomicOp::Min:
    return an::ReductionOp::Min;
  case an::AtomicOp::And:
    return an::ReductionOp::And;
  case an::AtomicOp::Or:
    return an::ReductionOp::Or;
  case an::AtomicOp::Xor:
    return an::ReductionOp::Xor;
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// A float maximum or minimum through integer atomics
//===----------------------------------------------------------------------===//

/// The call's callee name when it is a plain function ("atomicMax").
StringRef calleeName(const CallExpr *C) {
  const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() ? FD->getName() : StringRef();
}

/// E (through parens and casts) names the parameter P.
bool namesParam(const Expr *E, const ParmVarDecl *P) {
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
  return D && D->getDecl() == P;
}

/// The one statement of S, through braces; null when there are more.
const Stmt *single(const Stmt *S) {
  while (const auto *C = dyn_cast_or_null<CompoundStmt>(S)) {
    if (C->size() != 1)
      return nullptr;
    S = C->body_front();
  }
  return S;
}

/// The operator that `f(float *p, float v)` applies to *p, when its body is
/// the float order written with two integer atomics, as in
///
///   if (__float_as_int(v) >= 0) atomicMax((int *)p, __float_as_int(v));
///   else                        atomicMin((unsigned *)p, __float_as_uint(v));
///
/// Non-negative floats order like their bits as signed ints, negative ones
/// in reverse of their bits as unsigned ints, so this is *p = fmaxf(*p, v)
/// for every non-NaN v and *p (atomicMin / atomicMax swapped: fminf). The
/// test must be on the bits (`v >= 0.0f` would send -0.0f to the signed
/// branch, where it is INT_MIN). Nothing else may be in the body.
std::optional<an::ReductionOp> floatOrderWrapper(const FunctionDecl *F, ASTContext &Ctx) {
  F = F ? F->getDefinition() : nullptr;
  if (!F || F->getNumParams() != 2 || !F->getReturnType()->isVoidType())
    return std::nullopt;
  const ParmVarDecl *P = F->getParamDecl(0), *V = F->getParamDecl(1);
  auto IsFloat = [](QualType T) {
    return T->isSpecificBuiltinType(BuiltinType::Float);
  };
  if (!P->getType()->isPointerType() || !IsFloat(P->getType()->getPointeeType().getCanonicalType()) ||
      !IsFloat(V->getType().getCanonicalType()))
    return std::nullopt;
  const auto *If = dyn_cast_or_null<IfStmt>(single(F->getBody()));
  if (!If || If->getInit() || If->getConditionVariable() || !If->getElse())
    return std::nullopt;
  // The test: __float_as_int(v) >= 0 (then: non-negative) or < 0.
  const auto *Cmp = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Cmp || (Cmp->getOpcode() != BO_GE && Cmp->getOpcode() != BO_LT))
    return std::nullopt;
  const auto *Bits = dyn_cast<CallExpr>(Cmp->getLHS()->IgnoreParenImpCasts());
  Expr::EvalResult Zero;
  if (!Bits || calleeName(Bits) != "__float_as_int" || Bits->getNumArgs() != 1 ||
      !namesParam(Bits->getArg(0), V) || Cmp->getRHS()->isValueDependent() ||
      !Cmp->getRHS()->EvaluateAsInt(Zero, Ctx) || Zero.Val.getInt() != 0)
    return std::nullopt;
  const Stmt *NonNeg = If->getThen(), *Neg = If->getElse();
  if (Cmp->getOpcode() == BO_LT)
    std::swap(NonNeg, Neg);
  // One atomic per branch: (which, pointee signedness, bit cast).
  auto AtomicOf = [&](const Stmt *S, bool Signed) -> std::optional<bool> {
    const auto *C = dyn_cast_or_null<CallExpr>(
        dyn_cast_or_null<Expr>(single(S)) ? cast<Expr>(single(S))->IgnoreParenImpCasts() : nullptr);
    StringRef N = calleeName(C);
    if (!C || C->getNumArgs() != 2 || (N != "atomicMax" && N != "atomicMin"))
      return std::nullopt;
    QualType PT = C->getArg(0)->IgnoreParenImpCasts()->getType();
    if (!PT->isPointerType() || !namesParam(C->getArg(0), P))
      return std::nullopt;
    QualType E = PT->getPointeeType().getCanonicalType().getUnqualifiedType();
    if (!E->isIntegerType() || Ctx.getTypeSize(E) != 32 || E->isSignedIntegerType() != Signed)
      return std::nullopt;
    const auto *Cast = dyn_cast<CallExpr>(C->getArg(1)->IgnoreParenImpCasts());
    if (!Cast || calleeName(Cast) != (Signed ? "__float_as_int" : "__float_as_uint") ||
        Cast->getNumArgs() != 1 || !namesParam(Cast->getArg(0), V))
      return std::nullopt;
    return N == "atomicMax";
  };
  auto Pos = AtomicOf(NonNeg, true), NegMax = AtomicOf(Neg, false);
  if (!Pos || !NegMax)
    return std::nullopt;
  // Max: signed max for v >= 0, unsigned min for v < 0; min: the reverse.
  if (*Pos && !*NegMax)
    return an::ReductionOp::Max;
  if (!*Pos && *NegMax)
    return an::ReductionOp::Min;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Rendering index forms as 64-bit C
//===----------------------------------------------------------------------===//


//===----------------------------------------------------------------------===//
// What the kernel body contains
//===----------------------------------------------------------------------===//

/// What the rule needs to know about a body (and the device functions it
/// calls).
struct BodyFacts {
  /// The builtin components read (VirtualBlocks.h).
  BuiltinUses Builtins;
  std::vector<const ReturnStmt *> Returns;
  /// Why the body cannot be rewritten (a barrier, a warp intrinsic, ...);
  /// empty when it can.
  std::string Blocker;
  /// Device functions called, with bodies.
  std::vector<const FunctionDecl *> Callees;
};

bool isWarpOrBarrierCall(StringRef N) {
  return N.starts_with("__sync") || N.starts_with("__shfl") || N.starts_with("__ballot") ||
         N == "__any_sync" || N == "__all_sync" || N == "__any" || N == "__all" ||
         N == "__activemask" || N.starts_with("__match") || N.starts_with("__reduce_") ||
         N == "__barrier_sync" || N.starts_with("__cluster");
}

class BodyScanner : public DynamicRecursiveASTVisitor {
public:
  BodyScanner(BodyFacts &F, bool InCallee, ArrayRef<const FunctionDecl *> Skip,
              ArrayRef<const Stmt *> Removed = {})
      : F(F), InCallee(InCallee), Skip(Skip), Removed(Removed) {
    ShouldVisitImplicitCode = false;
  }

  bool TraverseStmt(Stmt *S) override {
    if (S && is_contained(Removed, S))
      return true;
    return DynamicRecursiveASTVisitor::TraverseStmt(S);
  }

  bool VisitDeclRefExpr(DeclRefExpr *D) override {
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
      if (V->hasAttr<CUDASharedAttr>())
        block("it uses the __shared__ variable '" + V->getNameAsString() + "'");
    return true;
  }
  bool VisitDeclStmt(DeclStmt *S) override {
    for (const Decl *D : S->decls())
      if (const auto *V = dyn_cast<VarDecl>(D); V && V->hasAttr<CUDASharedAttr>())
        block("it declares the __shared__ variable '" + V->getNameAsString() + "'");
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *R) override {
    if (!InCallee)
      F.Returns.push_back(R);
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) override { return block("it uses 'goto'"); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) override { return block("it uses 'goto'"); }
  bool VisitGCCAsmStmt(GCCAsmStmt *) override { return block("it contains inline assembly"); }
  bool VisitMSAsmStmt(MSAsmStmt *) override { return block("it contains inline assembly"); }
  bool VisitCXXThrowExpr(CXXThrowExpr *) override { return block("it throws"); }
  bool TraverseLambdaExpr(LambdaExpr *L) override {
    block("it defines a lambda");
    return true;
  }
  bool VisitCallExpr(CallExpr *C) override {
    if (isa<CXXMemberCallExpr>(C))
      return block("it calls the member function '" + textOfCallee(C) +
                   "' (cooperative groups or an object the rule does not follow)");
    const FunctionDecl *FD = C->getDirectCallee();
    std::string N = FD && FD->getIdentifier() ? FD->getName().str() : textOfCallee(C);
    if (isWarpOrBarrierCall(N))
      return block("it calls '" + N + "'");
    if (InCallee && StringRef(N).starts_with("atomic"))
      return block("it calls '" + N + "'");
    if (FD && FD->getDefinition() && is_contained(Skip, FD->getDefinition()))
      return true;
    if (FD && FD->hasBody() && !FD->isImplicit() &&
        !FD->getASTContext().getSourceManager().isInSystemHeader(FD->getLocation()) &&
        !is_contained(F.Callees, FD->getDefinition()))
      F.Callees.push_back(FD->getDefinition());
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *B) override {
    if (InCallee && B->isAssignmentOp() && !isLocal(B->getLHS()))
      return block("it writes memory");
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    if (InCallee && U->isIncrementDecrementOp() && !isLocal(U->getSubExpr()))
      return block("it writes memory");
    return true;
  }

private:
  static bool isLocal(const Expr *E) {
    const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    return V && V->hasLocalStorage() && !V->getType()->isReferenceType();
  }
  static std::string textOfCallee(const CallExpr *C) {
    if (const auto *M = dyn_cast<MemberExpr>(C->getCallee()->IgnoreParenImpCasts()))
      return M->getMemberNameInfo().getAsString();
    if (const auto *U = dyn_cast<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts()))
      return U->getName().getAsString();
    if (const FunctionDecl *FD = C->getDirectCallee())
      return FD->getNameAsString();
    return "";
  }
  bool block(std::string Why) {
    if (F.Blocker.empty())
      F.Blocker = std::move(Why);
    return true;
  }
  BodyFacts &F;
  bool InCallee;
  ArrayRef<const FunctionDecl *> Skip;
  ArrayRef<const Stmt *> Removed;
};

/// Scans the body and, transitively (a few levels), the device functions it
/// calls, except those of Skip (the reduction's own atomic functions) and
/// the statements of Removed (those the rewrite removes).
BodyFacts scanBody(const Stmt *Body, const EditCollector &EC,
                   ArrayRef<const FunctionDecl *> Skip, ArrayRef<const Stmt *> Removed = {}) {
  BodyFacts F;
  BodyScanner S(F, false, Skip, Removed);
  S.TraverseStmt(const_cast<Stmt *>(Body));
  for (size_t I = 0; I < F.Callees.size() && I < 16; ++I) {
    const FunctionDecl *FD = F.Callees[I];
    BodyFacts Inner;
    BodyScanner SI(Inner, true, Skip);
    SI.TraverseStmt(FD->getBody());
    if (F.Blocker.empty() && !Inner.Blocker.empty())
      F.Blocker = "the device function '" + FD->getNameAsString() + "' it calls: " +
                  Inner.Blocker;
    for (const FunctionDecl *C : Inner.Callees)
      if (!is_contained(F.Callees, C))
        F.Callees.push_back(C);
  }
  // The atomic functions read no builtin (they are atomics on their
  // parameters); the first is skipped as before.
  F.Builtins = collectBuiltinUses(Body, EC, Skip.empty() ? nullptr : Skip.front());
  return F;
}

/// The statements inside S of the given kinds, without descending into
/// nested loops (for `continue` and `break`, which belong to them) or
/// switches (for `break`).
void collectJumps(const Stmt *S, std::vector<const ContinueStmt *> &Continues,
                  std::vector<const BreakStmt *> &Breaks) {
  if (!S)
    return;
  if (const auto *C = dyn_cast<ContinueStmt>(S))
    return Continues.push_back(C);
  if (const auto *B = dyn_cast<BreakStmt>(S))
    return Breaks.push_back(B);
  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
    return;
  bool Switch = isa<SwitchStmt>(S);
  for (const Stmt *C : S->children()) {
    if (Switch) {
      std::vector<const BreakStmt *> Ignored;
      collectJumps(C, Continues, Ignored);
    } else {
      collectJumps(C, Continues, Breaks);
    }
  }
}

//===----------------------------------------------------------------------===//
// Splicing text
//===----------------------------------------------------------------------===//

/// Source[Begin, End) with the edits that lie inside it applied; an edit
/// inside another edit is dropped (the outer one's text already holds it).
std::string splice(StringRef Source, unsigned Begin, unsigned End,
                   const std::vector<SourceEdit> &All) {
  std::vector<SourceEdit> In;
  for (const SourceEdit &E : All)
    if (E.Offset >= Begin && E.Offset + E.Length <= End)
      In.push_back(E);
  llvm::stable_sort(In, [](const SourceEdit &A, const SourceEdit &B) {
    return A.Offset != B.Offset ? A.Offset < B.Offset : A.Length > B.Length;
  });
  std::string Out;
  unsigned At = Begin;
  for (const SourceEdit &E : In) {
    if (E.Offset < At)
      continue; // inside the previous edit
    Out += Source.slice(At, E.Offset);
    Out += E.Text;
    At = E.Offset + E.Length;
  }
  Out += Source.slice(At, End);
  return Out;
}

/// Text with Extra put before every line after the first that is not blank.
std::string indentBy(StringRef Text, StringRef Extra) {
  std::string Out;
  bool First = true;
  for (StringRef Rest = Text; !Rest.empty();) {
    auto [Line, Tail] = Rest.split('\n');
    if (!First && !Line.trim().empty())
      Out += Extra;
    Out += Line;
    if (Rest.size() > Line.size())
      Out += "\n";
    First = false;
    Rest = Tail;
    if (Rest.empty() && Text.ends_with("\n"))
      break;
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// The rule
//===----------------------------------------------------------------------===//

/// The top-level loop whose iterations contribute, when it can run Unroll
/// iterations at a time: `for (T i = start; i < bound; i += stride)`.
struct StridedLoop {
  const ForStmt *Loop = nullptr;
  const VarDecl *IV = nullptr;
  const an::Loop *Model = nullptr;
};

using Range = std::pair<unsigned, unsigned>;

bool inside(unsigned Off, const std::optional<Range> &R) {
  return R && Off >= R->first && Off < R->second;
}

/// The step of `i += s` / `i = i + s` / `i = s + i`, or null.
const Expr *stepOf(const ForStmt *F, const VarDecl *IV) {
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc))
    return CA->getOpcode() == BO_AddAssign && asVar(CA->getLHS()) == IV &&
                   !references(CA->getRHS(), IV)
               ? CA->getRHS()
               : nullptr;
  const auto *A = dyn_cast_or_null<BinaryOperator>(Inc);
  if (!A || A->getOpcode() != BO_Assign || asVar(A->getLHS()) != IV)
    return nullptr;
  const auto *Add = dyn_cast<BinaryOperator>(A->getRHS()->IgnoreParenImpCasts());
  if (!Add || Add->getOpcode() != BO_Add)
    return nullptr;
  if (asVar(Add->getLHS()) == IV && !references(Add->getRHS(), IV))
    return Add->getRHS();
  if (asVar(Add->getRHS()) == IV && !references(Add->getLHS(), IV))
    return Add->getLHS();
  return nullptr;
}


/// F in the spec's language, parameters replaced by their scalars' values
/// ("N" for n); none when an atom is not a parameter with a spec value.
std::optional<std::string> inSpecTerms(const an::IndexForm &F, const an::AtomTable &T,
                                       const RuleInput &In) {
  const measure::LaunchSpec *Spec = In.Request.Spec;
  if (!Spec || F.overflowed())
    return std::nullopt;
  std::vector<std::string> Terms;
  for (const auto &[M, C] : F.terms()) {
    std::vector<std::string> Parts;
    if (M.empty() || C != 1)
      Parts.push_back(std::to_string(C));
    for (an::AtomId X : M) {
      const auto *P = dyn_cast_or_null<ParmVarDecl>(T[X].Decl);
      auto Idx = P && T[X].Kind == an::AtomKind::Param ? paramIndex(In.Kernel, P) : std::nullopt;
      if (!Idx || *Idx >= Spec->Args.size())
        return std::nullopt;
      const measure::Scalar *S = Spec->findScalar(Spec->Args[*Idx]);
      if (!S)
        return std::nullopt;
      if (const auto *I = std::get_if<int64_t>(&S->Value))
        Parts.push_back(std::to_string(*I));
      else if (const auto *E = std::get_if<measure::IntExpr>(&S->Value))
        Parts.push_back("(" + E->text() + ")");
      else
        return std::nullopt;
    }
    Terms.push_back(join(Parts, " * "));
  }
  return Terms.empty() ? std::string("0") : join(Terms, " + ");
}

/// One atomic of the reduction.
struct Site {
  const an::Access *A = nullptr;
  const CallExpr *Call = nullptr;
  Combiner Comb;
  /// What the partial takes, the expression replaced by its update and the
  /// guards: the atomic's value, the atomic, and its guard; for the atomic
  /// of a block tree's result, the value each thread stores into the tree
  /// (`sdata[tid] = v`), that store, the store's guard, and (ValueG) the
  /// guard under which the stored value is more than the identity.
  const Expr *Value = nullptr;
  const Expr *Update = nullptr;
  const an::Guard *UpdateG = nullptr;
  const an::Guard *ValueG = nullptr;
  std::optional<Range> CallR, ValueR, TargetR;
  /// The loop its contributions come from, and the accumulator of that loop
  /// its value is (null: the atomic is in the loop, or in none).
  const an::Loop *Hot = nullptr;
  const VarDecl *AccVar = nullptr;
  unsigned Slot = 0;
  std::string at() const { return "'" + A->Callee + "' at line " + std::to_string(A->Loc.Line); }
};

/// One target: the atomics into one address with one operator share a
/// partial, and the block issues one atomic into it.
struct Slot {
  std::vector<unsigned> Sites; ///< in source order
  Combiner Comb;
  std::string Callee; ///< the atomic the block issues
  std::string Target; ///< its address, as the combine writes it
  std::string Part, Warps;
};

/// The operators of two targets give the same result in either order
/// whatever the targets are (the same operator on the same values).
bool commute(const Combiner &X, const Combiner &Y) {
  return X.Op == Y.Op && X.K == Y.K && X.Type == Y.Type;
}

/// One proposal's worth of analysis and text.
class Rewrite {
public:
  Rewrite(const RuleInput &In, an::KernelModel &M)
      : In(In), Ctx(In.Ctx), SM(In.Ctx.getSourceManager()), M(M), Tab(M.atoms()), EC(In) {}

  /// The proposal, or why there is none.
  RuleOutcome run();

private:
  // Analysis, in order; each returns "" or why the rule does not apply.
  std::string findReductions();
  std::string analyzeAtomic(const an::Access &X, Site &S);
  std::string groupTargets();
  std::string checkTargets();
  std::string findTree();
  std::string treeValueGuard(Site &S);
  bool isIdentity(const Expr *E, const Combiner &C, QualType Elem) const;
  std::string distinctWhy(const Slot &X, const Slot &Y, bool &Distinct) const;
  std::string checkBody();
  void findVirtual();
  void findHotLoop();
  void checkGridIndependence();
  std::string chooseTarget(Slot &S);

  // Text.
  std::optional<StridedLoop> stridedLoop(const an::Loop &L, std::string &Why) const;
  void atomicEdit(const Site &S);
  void loopEdit();
  std::string kernelText();
  std::string combineText(const std::string &Ind);
  std::optional<agent::SpecChange> specChange(std::string &Note);
  std::string rationale(const std::string &GridNote) const;
  std::string atomicsWords() const;
  std::string opWords() const;

  std::string line(unsigned L) const { return std::to_string(L); }
  std::string fresh(StringRef Base) { return freshName(Base, In.Kernel, Taken); }
  bool inAnyValue(unsigned Off) const {
    return any_of(Sites, [&](const Site &S) { return inside(Off, S.ValueR); });
  }

  const RuleInput &In;
  ASTContext &Ctx;
  const SourceManager &SM;
  an::KernelModel &M;
  const an::AtomTable &Tab;
  EditCollector EC;
  const CompoundStmt *Body = nullptr;

  // The reduction: its atomics in source order, and their targets.
  std::vector<Site> Sites;
  // A block tree in shared memory whose result sdata[0] is the one
  // atomic's value: the tree, the store of each thread's value into it,
  // the statements the rewrite removes (the shared array's declaration, the
  // barriers before the tree, the tree, the atomic's `if (tid == 0)`), the
  // store's guard and the guard under which the stored value is more than
  // the identity, and why that guard bounds no blocks.
  std::optional<BlockTree> Tree;
  const BinaryOperator *TreeStore = nullptr;
  std::vector<const Stmt *> TreeStmts;
  an::Guard TreeStoreG, TreeValueG;
  std::string TreeGridWhy;
  std::vector<Slot> Slots;
  /// For the rationale: how targets whose operators do not commute were
  /// shown to be different memory, or that they were not and each thread
  /// issues each of their atomics once.
  std::string OrderNote;
  unsigned BodyBegin = 0, BodyEnd = 0;
  BodyFacts Facts;

  // The virtual blocks: the dimensions whose blocks become a loop.
  std::vector<BlockBound> Virtual;
  std::string VirtualWhy;
  // The loop the contributions come from, and whether it is grid-free.
  const an::Loop *Hot = nullptr;
  std::optional<StridedLoop> Strided;
  std::string StridedWhy;
  bool GridFree = false;
  std::string GridWhy;

  // Text.
  std::set<std::string> Taken;
  std::string Fn;
  std::map<char, std::string> VName;
  std::vector<SourceEdit> Edits; ///< inside the body, composed by splice()
  std::string LoopWords;         ///< what became of the loop, for the rationale
};

std::string Rewrite::findReductions() {
  std::vector<const an::Access *> Atomics;
  for (const an::Access &X : M.Accesses)
    if (X.Kind == an::AccessKind::Atomic)
      Atomics.push_back(&X);
  if (Atomics.empty()) {
    std::string Why = "no atomic reduction: the kernel has no atomic";
    if (!M.patterns(an::PatternKind::TreeReduction).empty())
      Why += " (its shared-memory tree reduction is warp-shuffle-reduction's)";
    // Atomics inside a device function the model does not see as one.
    BodyFacts F = scanBody(kernelBody(In.Kernel), EC, {});
    if (StringRef(F.Blocker).contains("calls 'atomic"))
      Why += " the model knows (" + F.Blocker + ")";
    return Why;
  }
  llvm::stable_sort(Atomics, [](const an::Access *X, const an::Access *Y) {
    return std::pair(X->Loc.Line, X->Loc.Column) < std::pair(Y->Loc.Line, Y->Loc.Column);
  });
  for (const an::Access *X : Atomics) {
    Site S;
    if (std::string Why = analyzeAtomic(*X, S); !Why.empty())
      return Why;
    Sites.push_back(std::move(S));
  }
  if (!M.patterns(an::PatternKind::TreeReduction).empty())
    return findTree();
  if (std::string Why = groupTargets(); !Why.empty())
    return Why;
  return checkTargets();
}

/// The per-block tree followed by one atomic of its result,
///
///   sdata[tid] = v;  __syncthreads();  <tree over sdata>;
///   if (tid == 0) atomicAdd(result, sdata[0]);
///
/// is `*result op= v` of every thread, as the kernel with `atomicAdd(result,
/// v)` in each thread computes: the tree's operator is the atomic's and it
/// reduces every thread's value once. The rule then rewrites that kernel:
/// the store becomes the partial's update, and the shared array, the
/// barriers, the tree and the tail are removed.
std::string Rewrite::findTree() {
  Body = kernelBody(In.Kernel);
  BlockTree T;
  if (std::string Why = matchBlockTree(In, M, Body, T); !Why.empty())
    return "the kernel's shared-memory tree is not a reduction of the whole block the rule "
           "follows: " +
           Why;
  std::string SD = T.Shared->getNameAsString();
  if (Sites.size() != 1)
    return formatv("the kernel has a tree over '{0}' and {1} atomics; the rule rewrites a tree "
                   "whose result is the operand of the kernel's one atomic",
                   SD, Sites.size())
        .str();
  Site &S = Sites[0];
  const auto *Operand = dyn_cast<ArraySubscriptExpr>(S.Value->IgnoreParenImpCasts());
  const an::Access *OpA = Operand ? M.accessAt(Operand) : nullptr;
  if (OpA && (OpA->Base != T.Shared || OpA->Index.constantValue() != 0))
    OpA = nullptr;
  auto Line = [&](const Stmt *X) { return line(SM.getPresumedLineNumber(X->getBeginLoc())); };
  // No other global write (a per-block output next to the atomic is
  // segment-reduction's); the shared array is the tree's alone.
  SourceLocation LoopB = T.Loop->getBeginLoc(), LoopE = T.Loop->getEndLoc();
  const an::IndexForm Tid = an::IndexForm::atom(*Tab.findBuiltin("threadIdx", 'x'));
  for (const an::Access &X : M.Accesses) {
    if (X.Id == S.A->Id)
      continue;
    if (X.Space != an::MemorySpace::Shared) {
      if (X.writes())
        return formatv("the kernel writes '{0}' at line {1} besides {2} of the block's result "
                       "'{3}[0]'; only a kernel whose one effect is the reduction is rewritten",
                       X.Text, X.Loc.Line, S.at(), SD)
            .str();
      continue;
    }
    if (X.Base != T.Shared)
      return formatv("the kernel uses the shared array '{0}' (line {1}) besides the tree's '{2}'",
                     X.Buffer, X.Loc.Line, SD)
          .str();
    if (!X.E)
      continue;
    if (SM.isBeforeInTranslationUnit(X.E->getBeginLoc(), LoopB) && X.Index != Tid)
      return formatv("'{0}' at line {1} reads or writes '{2}' before the tree at another element "
                     "than threadIdx.x: each thread's value is not one element",
                     X.Text, X.Loc.Line, SD)
          .str();
    if (SM.isBeforeInTranslationUnit(LoopE, X.E->getBeginLoc()) &&
        (X.writes() || X.Index.constantValue() != 0))
      return formatv("'{0}' at line {1} uses '{2}' after the tree other than by reading its "
                     "result '{2}[0]'; the rewrite keeps no partial results in shared memory",
                     X.Text, X.Loc.Line, SD)
          .str();
  }
  if (!OpA)
    return S.at() + " combines '" + S.A->ValueText + "', not the tree's result '" + SD +
           "[0]' alone";
  for (const an::Access &X : M.Accesses)
    if (X.Base == T.Shared && X.Id != OpA->Id && X.E &&
        SM.isBeforeInTranslationUnit(LoopE, X.E->getBeginLoc()))
      return formatv("'{0}' at line {1} reads the tree's result besides {2}",
                     X.Text, X.Loc.Line, S.at())
          .str();
  // After the tree: `if (tid == 0) atomic(address, sdata[0]);` only.
  const IfStmt *Tail = nullptr;
  for (auto It = Body->body_begin() + T.LoopIndex + 1; It != Body->body_end(); ++It) {
    if (isa<NullStmt>(*It))
      continue;
    const auto *If = dyn_cast<IfStmt>(*It);
    const auto *Then = If ? dyn_cast_or_null<Expr>(single(If->getThen())) : nullptr;
    if (Tail || !If || If->getElse() || If->getInit() || If->getConditionVariable() || !Then ||
        Then->IgnoreParenCasts() != S.Call)
      return formatv("the statement at line {0} after the tree is not 'if (tid == 0) {1}(..., "
                     "{2}[0]);' (the rewrite issues the block's atomic itself)",
                     Line(*It), S.A->Callee, SD)
          .str();
    Tail = If;
  }
  if (!Tail)
    return S.at() + " is not the statement after the tree";
  bool Thread0 = S.A->G.Terms.size() == 1 && S.A->G.Terms[0].Cmp &&
                 isZeroTest(*S.A->G.Terms[0].Cmp, Tid);
  if (!Thread0)
    return S.at() + " is not issued by thread 0 alone (guard '" + S.A->G.render() + "')";
  // The tree's operator is the atomic's, on the atomic's values.
  std::optional<an::ReductionOp> TreeOp = T.Step.op();
  if (!TreeOp || *TreeOp != S.Comb.Op)
    return formatv("{0} combines with {1}, but {2} takes the {3}: the block's result is not "
                   "what one atomic per thread would compute",
                   T.At, T.Step.words(), S.at(), S.Comb.opWords())
        .str();
  QualType Elem = QualType(T.Shared->getType()->getPointeeOrArrayElementType(), 0);
  auto EK = valueKindOf(Elem, Ctx);
  if (!EK || *EK == ValueKind::Dependent || *EK != S.Comb.K)
    return formatv("the tree combines '{0}' values and {1} '{2}' ones; the rule rewrites a tree "
                   "over the atomic's own type",
                   typeSpelling(Elem, Ctx), S.at(), S.Comb.Type)
        .str();
  int64_t Block = 0;
  if (std::string Why = treeBlockSize(In, T, /*WholeWarps=*/false, Block); !Why.empty())
    return Why;
  // Before the tree: the declaration, barriers, and one unconditional store
  // of every thread's value into sdata[tid] (the first use of the array).
  for (auto It = Body->body_begin(); It != Body->body_begin() + T.LoopIndex; ++It) {
    const Stmt *X = *It;
    if (const auto *DS = dyn_cast<DeclStmt>(X);
        DS && DS->isSingleDecl() && DS->getSingleDecl() == T.Shared) {
      TreeStmts.push_back(X);
      continue;
    }
    if (isSyncStmt(X)) {
      TreeStmts.push_back(X);
      continue;
    }
    // The stride of a while loop, declared before it and used only there.
    if (const auto *DS = dyn_cast<DeclStmt>(X);
        DS && DS->isSingleDecl() && DS->getSingleDecl() == T.L->IV &&
        all_of(referencesTo(T.L->IV, Body),
               [&](const DeclRefExpr *R) { return isWithin(R, T.Loop); })) {
      TreeStmts.push_back(X);
      continue;
    }
    if (callsSyncthreads(X))
      return "the statement at line " + Line(X) + " synchronises inside a branch";
    struct Returns : DynamicRecursiveASTVisitor {
      bool Found = false;
      bool VisitReturnStmt(ReturnStmt *) override {
        Found = true;
        return false;
      }
    } Ret;
    Ret.TraverseStmt(const_cast<Stmt *>(X));
    if (Ret.Found)
      return "the kernel returns before the tree (line " + Line(X) +
             "): the threads that return store no value into '" + SD + "'";
    if (!references(X, T.Shared))
      continue;
    const auto *St = dyn_cast<BinaryOperator>(X);
    if (TreeStore || !St || St->getOpcode() != BO_Assign ||
        !isa<ArraySubscriptExpr>(St->getLHS()->IgnoreParenImpCasts()) ||
        references(St->getRHS(), T.Shared))
      return formatv("{0} at line {1}: the rule takes each thread's value from one unconditional "
                     "store '{2}[tid] = v;' before the tree, and '{2}' is not used otherwise "
                     "before it",
                     TreeStore ? "'" + SD + "' is used again" : "the first use of '" + SD + "'",
                     Line(X), SD)
          .str();
    TreeStore = St;
  }
  if (!TreeStore)
    return "nothing stores every thread's value into '" + SD + "' before the tree";
  TreeStmts.push_back(T.Loop);
  TreeStmts.push_back(Tail);
  TreeStmts.push_back(TreeStore->getLHS());
  TreeStoreG = M.guardOf(TreeStore);
  S.Value = TreeStore->getRHS();
  S.Update = TreeStore;
  S.UpdateG = &TreeStoreG;
  Tree = std::move(T);
  TreeGridWhy = treeValueGuard(S);
  S.ValueG = &TreeValueG;
  if (std::string Why = groupTargets(); !Why.empty())
    return Why;
  return checkTargets();
}

/// V is the identity of C for elements of type Elem (0, -1 for and,
/// INT_MIN, -INFINITY for a maximum, ...).
bool Rewrite::isIdentity(const Expr *V, const Combiner &C, QualType Elem) const {
  Expr::EvalResult ER;
  if (V->isValueDependent() || !V->EvaluateAsRValue(ER, Ctx))
    return false;
  using an::ReductionOp;
  if (ER.Val.isFloat()) {
    const APFloat &F = ER.Val.getFloat();
    switch (C.Op) {
    case ReductionOp::Add:
      return F.isZero();
    case ReductionOp::Max:
      return F.isInfinity() && F.isNegative();
    case ReductionOp::Min:
      return F.isInfinity() && !F.isNegative();
    default:
      return false;
    }
  }
  if (!ER.Val.isInt() || C.isFloat()) // an integer into a float: only a sum's 0
    return ER.Val.isInt() && C.Op == ReductionOp::Add && ER.Val.getInt().isZero();
  APInt X = ER.Val.getInt().extOrTrunc(unsigned(Ctx.getTypeSize(Elem)));
  bool Signed = Elem->isSignedIntegerType();
  switch (C.Op) {
  case ReductionOp::Add:
  case ReductionOp::Or:
  case ReductionOp::Xor:
    return X.isZero();
  case ReductionOp::And:
    return X.isAllOnes();
  case ReductionOp::Max:
    return Signed ? X.isMinSignedValue() : X.isZero();
  case ReductionOp::Min:
    return Signed ? X.isMaxSignedValue() : X.isAllOnes();
  default:
    return false;
  }
}

/// The guard under which the value each thread stores into the tree is more
/// than the identity, so that the blocks past it contribute nothing and the
/// rewrite may skip them (the virtual blocks): the value is `c ? v :
/// identity` (or `c ? identity : v`), or the tree's operator over such
/// selects (`(i < n ? in[i] : 0) + (i + blockDim.x < n ? in[i +
/// blockDim.x] : 0)`), whose guards bound the blocks alike (`A * blockIdx.x
/// + ... < 0` with one A) and one of which admits every block the others
/// do. "" when found (TreeValueG), else why not (the grid then stays).
std::string Rewrite::treeValueGuard(Site &S) {
  const Combiner &C = S.Comb;
  QualType Elem = QualType(Tree->Shared->getType()->getPointeeOrArrayElementType(), 0);
  // The operands the tree's operator combines in the value.
  std::vector<const Expr *> Leaves;
  std::function<void(const Expr *)> Split = [&](const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      BinaryOperatorKind K = B->getOpcode();
      if ((C.Op == an::ReductionOp::Add && K == BO_Add) ||
          (C.Op == an::ReductionOp::And && K == BO_And) ||
          (C.Op == an::ReductionOp::Or && K == BO_Or) ||
          (C.Op == an::ReductionOp::Xor && K == BO_Xor)) {
        Split(B->getLHS());
        Split(B->getRHS());
        return;
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(E); Call && Call->getNumArgs() == 2) {
      std::string F = calleeNameOf(Call);
      bool Max = F == "fmaxf" || F == "fmax" || F == "max";
      bool Min = F == "fminf" || F == "fmin" || F == "min";
      if ((Max && C.Op == an::ReductionOp::Max) || (Min && C.Op == an::ReductionOp::Min)) {
        Split(Call->getArg(0));
        Split(Call->getArg(1));
        return;
      }
    }
    Leaves.push_back(E);
  };
  Split(S.Value);
  std::string V = "the value stored into '" + Tree->Shared->getNameAsString() + "[tid]'";
  struct Bounded {
    an::Guard G;
    BlockBound B;
  };
  std::vector<Bounded> Bs;
  for (const Expr *L : Leaves) {
    const auto *Sel = dyn_cast<ConditionalOperator>(L);
    const Expr *Other = nullptr;
    if (Sel && isIdentity(Sel->getFalseExpr(), C, Elem))
      Other = Sel->getTrueExpr();
    else if (Sel && isIdentity(Sel->getTrueExpr(), C, Elem))
      Other = Sel->getFalseExpr();
    if (!Other)
      return V + " is not 'c ? v : identity' (the " + C.opWords().str() +
             "'s identity for the threads a guard rejects), so every block of the original "
             "grid contributes";
    an::Guard G = M.guardOf(Other);
    std::optional<BlockBound> B;
    for (const an::GuardTerm &T : G.Terms)
      if ((B = blockBoundOf(T, 'x', Tab)))
        break;
    if (!B)
      return V + " is the identity outside a condition that does not bound blockIdx.x (such as "
                 "'i < n' with i = blockIdx.x * blockDim.x + threadIdx.x)";
    Bs.push_back({std::move(G), std::move(*B)});
  }
  // -U of one bound is at least every other's (a non-negative difference:
  // a constant, or blockDim.x with a positive coefficient).
  auto AtLeast = [&](const an::IndexForm &X, const an::IndexForm &Y) {
    an::IndexForm D = X - Y;
    if (D.overflowed())
      return false;
    for (const auto &[Mono, Coef] : D.terms())
      if (Coef < 0 ||
          any_of(Mono, [&](an::AtomId A) { return Tab[A].Kind != an::AtomKind::BlockDim; }))
        return false;
    return true;
  };
  for (const Bounded &X : Bs) {
    bool Widest = all_of(Bs, [&](const Bounded &Y) {
      return X.B.A == Y.B.A && AtLeast(X.B.NegU, Y.B.NegU);
    });
    if (Widest) {
      TreeValueG = X.G;
      return "";
    }
  }
  return V + " combines selects whose guards bound the blocks differently";
}

std::string Rewrite::analyzeAtomic(const an::Access &X, Site &S) {
  const an::Access *A = &X;
  S.A = A;
  const an::Reduction *Red = nullptr;
  for (const an::Reduction &R : M.Reductions)
    if (R.Kind == an::ReductionKind::Atomic && R.Access == int(A->Id))
      Red = &R;
  std::string At = S.at();
  // A device function that combines a float by its order through integer
  // atomics (floatOrderWrapper), into an address the threads of a block
  // share.
  std::optional<an::ReductionOp> Wrapped;
  if (!Red && A->Atomic == an::AtomicOp::None)
    if (const auto *C = dyn_cast_or_null<CallExpr>(A->E))
      if ((Wrapped = floatOrderWrapper(C->getDirectCallee(), Ctx))) {
        bool Shared = A->IndexKnown && !A->Index.overflowed();
        for (an::AtomId X : A->Index.atoms())
          Shared &= Tab[X].Uniform.atLeast(an::Uniformity::BlockUniform);
        if (!Shared)
          return At + " combines a float by its order into an address that differs between "
                      "the threads of a block ('" + A->Text + "')";
      }
  if (!Red && !Wrapped) {
    switch (A->Atomic) {
    case an::AtomicOp::CAS:
    case an::AtomicOp::Exch:
      return At + " is not a reduction the rule combines (a lock, or a compare-and-swap loop "
                  "written in the kernel; an argmax packed into such a loop is not rewritten)";
    case an::AtomicOp::Inc:
    case an::AtomicOp::Dec:
      return At + " wraps at its limit; it is not an associative reduction";
    case an::AtomicOp::None:
      return At + " is a function the analysis does not know as an atomic reduction";
    default:
      break;
    }
    if (!A->IndexKnown || A->Warp.Class == an::AccessClass::DataDependent)
      return At + " goes to a data-dependent address (a histogram or a scatter): " + A->IndexWhy;
    return At + " goes to an address that differs between the threads of a block ('" + A->Text +
           "'); only one address per block or per grid is combined";
  }
  const CallExpr *Call = S.Call = dyn_cast_or_null<CallExpr>(A->E);
  if (!Call || (A->Wrapper.empty() && Call->getNumArgs() != 2))
    return At + " does not take (address, value); only those atomics are combined";
  S.Value = A->valueArg();
  S.Update = Call;
  S.UpdateG = S.ValueG = &A->G;
  if (!A->valueArg())
    return At + (A->Wrapper.empty() ? " adds " + A->ValueText + " without a value argument"
                                    : " is made by '" + A->Wrapper + "' with the constant value " +
                                          A->ValueText + " written inside it") +
           " (a count); the rule combines a value the kernel passes";
  // The value it returns (the old contents) depends on the order of the
  // atomics, so it must not be used: the call is a statement of its own (in
  // a block, a branch, a loop body or a for's increment), possibly cast to
  // void; anything else (an initialiser, an operand, a condition) uses it.
  {
    const Stmt *Child = Call;
    bool Used = true;
    for (auto Parents = Ctx.getParents(*Child); !Parents.empty();
         Parents = Ctx.getParents(*Child)) {
      const Stmt *P = Parents[0].get<Stmt>();
      if (!P)
        break; // a declaration's initialiser
      if (isa<ParenExpr, ExprWithCleanups>(P) ||
          (isa<CastExpr>(P) && cast<CastExpr>(P)->getType()->isVoidType())) {
        Child = P;
        continue;
      }
      if (isa<CompoundStmt, LabelStmt, DefaultStmt>(P))
        Used = false;
      else if (const auto *I = dyn_cast<IfStmt>(P))
        Used = I->getCond() == Child;
      else if (const auto *W = dyn_cast<WhileStmt>(P))
        Used = W->getCond() == Child;
      else if (const auto *D = dyn_cast<DoStmt>(P))
        Used = D->getCond() == Child;
      else if (const auto *F = dyn_cast<ForStmt>(P))
        Used = F->getCond() == Child || F->getInit() == Child;
      else if (const auto *C = dyn_cast<CaseStmt>(P))
        Used = C->getSubStmt() != Child;
      break;
    }
    if (Used)
      return "the value " + At + " returns is used; it depends on the order of the atomics";
  }

  // The operator and the type of the values.
  std::optional<an::ReductionOp> Op = Wrapped                              ? Wrapped
                                     : A->Atomic == an::AtomicOp::None ? std::optional(Red->Op)
                                                                       : combinedOp(A->Atomic);
  if (!Op || (Red && Red->Op == an::ReductionOp::Mul))
    return At + " is not an associative reduction the rule combines";
  Combiner &Comb = S.Comb;
  Comb.Op = *Op;
  Comb.Sub = A->Atomic == an::AtomicOp::Sub;
  QualType VT;
  if (const FunctionDecl *FD = Call->getDirectCallee();
      FD && FD->getNumParams() == 2 && A->ValueArg >= 0)
    VT = FD->getParamDecl(unsigned(A->ValueArg))->getType();
  if (VT.isNull() || VT->isDependentType()) {
    // `T` of `atomicAdd(T *, T)` in a template: the pointee as written.
    QualType PT = A->addressArg()->IgnoreParenImpCasts()->getType();
    VT = PT->isPointerType() ? PT->getPointeeType() : QualType();
  }
  auto K = valueKindOf(VT, Ctx);
  if (!K)
    return At + " combines values of type '" +
           (VT.isNull() ? std::string("unknown") : typeSpelling(VT, Ctx)) +
           "'; the rule combines int, unsigned, 64-bit integers, float and double";
  Comb.K = *K;
  Comb.Type = typeSpelling(VT, Ctx);
  if (!Comb.identity())
    return "the identity of the " + Comb.opWords().str() + " over '" + Comb.Type +
           "' cannot be written for every instantiation of the template";
  return "";
}

/// The atomics into one address with one operator share a slot. The same
/// address is the same buffer and the same index form in elements of one
/// size; two operators into it would need the order of the original.
std::string Rewrite::groupTargets() {
  auto SameTarget = [](const an::Access &X, const an::Access &Y) {
    return X.Base && X.Base == Y.Base && X.IndexKnown && Y.IndexKnown &&
           !X.Index.overflowed() && X.Index == Y.Index && X.ElementBytes == Y.ElementBytes;
  };
  for (unsigned I = 0; I < Sites.size(); ++I) {
    Site &S = Sites[I];
    auto It = find_if(Slots,
                      [&](const Slot &T) { return SameTarget(*Sites[T.Sites[0]].A, *S.A); });
    if (It == Slots.end()) {
      Slot T;
      T.Sites.push_back(I);
      T.Comb = S.Comb;
      T.Callee = S.A->Callee;
      S.Slot = unsigned(Slots.size());
      Slots.push_back(std::move(T));
      continue;
    }
    const Site &First = Sites[It->Sites[0]];
    if (!commute(First.Comb, S.Comb) || First.Comb.Sub != S.Comb.Sub ||
        First.A->Callee != S.A->Callee)
      return formatv("{0} ({1}) and {2} ({3}) update the same address '{4}' with different "
                     "operators; the result depends on the order in which they arrive, so "
                     "they are not combined",
                     First.at(), First.Comb.opWords(), S.at(), S.Comb.opWords(),
                     S.A->Buffer + "[" + S.A->IndexText + "]")
          .str();
    S.Slot = unsigned(It - Slots.begin());
    It->Sites.push_back(I);
  }
  return "";
}

/// Whether the targets of X and Y are shown to be different memory, and
/// how (or why not), in words.
std::string Rewrite::distinctWhy(const Slot &X, const Slot &Y, bool &Distinct) const {
  const an::Access &AX = *Sites[X.Sites[0]].A, &AY = *Sites[Y.Sites[0]].A;
  std::string NX = AX.Buffer + "[" + AX.IndexText + "]", NY = AY.Buffer + "[" + AY.IndexText + "]";
  Distinct = false;
  if (AX.Base == AY.Base) {
    std::optional<int64_t> Diff;
    if (AX.IndexKnown && AY.IndexKnown && AX.ElementBytes && AX.ElementBytes == AY.ElementBytes)
      Diff = (AX.Index - AY.Index).constantValue();
    Distinct = Diff && *Diff != 0;
    return Distinct ? "'" + NX + "' and '" + NY + "' are different elements of '" + AX.Buffer + "'"
                    : "'" + NX + "' and '" + NY + "' may be the same element of '" + AX.Buffer +
                          "'";
  }
  const auto *PX = dyn_cast_or_null<ParmVarDecl>(AX.Base),
             *PY = dyn_cast_or_null<ParmVarDecl>(AY.Base);
  const auto *VX = dyn_cast_or_null<VarDecl>(AX.Base), *VY = dyn_cast_or_null<VarDecl>(AY.Base);
  if (VX && VY && !PX && !PY && !VX->hasLocalStorage() && !VY->hasLocalStorage() &&
      !VX->getType()->isPointerType() && !VY->getType()->isPointerType()) {
    Distinct = true;
    return "'" + AX.Buffer + "' and '" + AY.Buffer + "' are different variables";
  }
  if (!PX || !PY)
    return "'" + AX.Buffer + "' and '" + AY.Buffer + "' are not both kernel parameters";
  std::string Pair = "'" + AX.Buffer + "' and '" + AY.Buffer + "'";
  if (PX->getType().isRestrictQualified() && PY->getType().isRestrictQualified()) {
    Distinct = true;
    return Pair + " are __restrict__";
  }
  // The launches in the file, traced to their allocations.
  std::vector<const CUDAKernelCallExpr *> Launches = launchesOf(In.Kernel, Ctx);
  std::string Unknown;
  for (const CUDAKernelCallExpr *L : Launches) {
    unsigned IX = PX->getFunctionScopeIndex(), IY = PY->getFunctionScopeIndex();
    unsigned Line = SM.getPresumedLineNumber(L->getBeginLoc());
    if (IX >= L->getNumArgs() || IY >= L->getNumArgs())
      return formatv("the launch at line {0} passes no argument for {1}", Line, Pair).str();
    an::AllocationOrigin OX = an::traceAllocation(L->getArg(IX), Ctx),
                         OY = an::traceAllocation(L->getArg(IY), Ctx);
    switch (an::compareOrigins(OX, OY)) {
    case an::AliasVerdict::Distinct:
      continue;
    case an::AliasVerdict::Same:
      return formatv("the launch at line {0} passes one allocation for {1}", Line, Pair).str();
    case an::AliasVerdict::Unknown:
      if (Unknown.empty())
        Unknown = formatv("the launch at line {0} is not shown to pass distinct allocations for "
                          "{1}: {2}",
                          Line, Pair,
                          !OX.known() ? OX.Why : !OY.known() ? OY.Why : "they may be one")
                      .str();
      continue;
    }
  }
  if (!Launches.empty() && Unknown.empty()) {
    Distinct = true;
    return formatv("the {0} launch(es) in this file pass distinct allocations for {1}",
                   Launches.size(), Pair)
        .str();
  }
  if (Launches.empty())
    if (const measure::LaunchSpec *Spec = In.Request.Spec) {
      auto BufferAt = [&](const ParmVarDecl *P) -> std::string {
        unsigned I = P->getFunctionScopeIndex();
        return I < Spec->Args.size() && Spec->findBuffer(Spec->Args[I]) ? Spec->Args[I] : "";
      };
      std::string BX = BufferAt(PX), BY = BufferAt(PY);
      if (!BX.empty() && !BY.empty() && BX != BY) {
        Distinct = true;
        return "the launch spec passes its own buffer for each of " + Pair;
      }
    }
  if (In.Request.AssumeNoAlias) {
    Distinct = true;
    return "that " + Pair + " do not overlap is the user's promise (--assume-no-alias)";
  }
  if (!Unknown.empty())
    return Unknown;
  return formatv("no launch of '{0}' in this file shows that {1} point into distinct "
                 "allocations, and they are not both __restrict__",
                 In.Kernel.getName(), Pair)
      .str();
}

/// Targets with operators that do not commute (a minimum and a maximum, an
/// int sum and a float sum) must be different memory, or else every thread
/// must issue each of their atomics at most once, in the order the block
/// issues its own: the block's atomics are then one order in which the
/// original's could arrive (every minimum of the block, then every maximum).
std::string Rewrite::checkTargets() {
  // "(minimum)", or "(sum of int)" where the operators match but the types do not.
  auto What = [](const Combiner &C, const Combiner &Other) {
    std::string W = C.opWords().str();
    return C.Op == Other.Op ? W + " of " + C.Type : W;
  };
  for (unsigned I = 0; I < Slots.size(); ++I)
    for (unsigned J = I + 1; J < Slots.size(); ++J) {
      const Slot &X = Slots[I], &Y = Slots[J];
      if (commute(X.Comb, Y.Comb))
        continue;
      bool Distinct = false;
      std::string Why = distinctWhy(X, Y, Distinct);
      const Site &SX = Sites[X.Sites[0]], &SY = Sites[Y.Sites[0]];
      std::string WX = What(X.Comb, Y.Comb), WY = What(Y.Comb, X.Comb);
      std::string Pair = formatv("{0} ({1}) and {2} ({3})", SX.at(), WX, SY.at(), WY).str();
      if (Distinct) {
        // How two pointers were shown apart (a launch, the spec, a promise).
        if (SX.A->Base != SY.A->Base)
          OrderNote += " The targets of " + Pair + " are different memory: " + Why + ".";
        continue;
      }
      // Two pointers can be promised apart; two elements of one buffer
      // at an unknown distance cannot.
      std::string Remedy = SX.A->Base == SY.A->Base
                               ? ""
                               : "; mark both pointers __restrict__ or pass --assume-no-alias "
                                 "to promise they differ";
      for (const Slot *T : {&X, &Y})
        for (unsigned K : T->Sites)
          if (!Sites[K].A->Loops.empty())
            return Pair + " may update the same memory (" + Why + "), and " + Sites[K].at() +
                   " runs in a loop: each thread would alternate between the two operators, an "
                   "order that one atomic per block and target cannot keep" +
                   Remedy;
      if (X.Sites.back() > Y.Sites.front())
        return Pair + " may update the same memory (" + Why + "), and the kernel's atomics into " +
               "them alternate in the source, an order that one atomic per block and target "
               "cannot keep" +
               Remedy;
      OrderNote += formatv(" The targets of {0} are not shown to be different memory ({1}); "
                           "were they the same, the block's {2} and then its {3} is one order in "
                           "which the original's atomics could arrive, since every thread issues "
                           "each of them at most once, in this order.",
                           Pair, Why, WX, WY)
                       .str();
    }
  return "";
}

std::string Rewrite::checkBody() {
  Body = kernelBody(In.Kernel);
  std::vector<const FunctionDecl *> Own;
  for (const Site &S : Sites)
    if (const FunctionDecl *F = S.Call->getDirectCallee(); F && F->getDefinition() &&
                                                           !is_contained(Own, F->getDefinition()))
      Own.push_back(F->getDefinition());
  Facts = scanBody(Body, EC, Own, TreeStmts);
  if (!Facts.Blocker.empty())
    return "the kernel cannot be restructured: " + Facts.Blocker;
  for (const an::Access &O : M.Accesses) {
    if (any_of(Sites, [&](const Site &S) { return S.A->Id == O.Id; }))
      continue;
    if (Tree && O.Base == Tree->Shared)
      continue; // the tree's, checked by findTree

    if (O.writes())
      return "the kernel also writes '" + O.Buffer + "' (line " + line(O.Loc.Line) + ": " +
             O.Text + "); only a kernel whose one effect is the reduction is rewritten";
    for (const Site &S : Sites)
      if (O.Base && O.Base == S.A->Base)
        return "the kernel reads '" + O.Buffer + "' (line " + line(O.Loc.Line) + "), which " +
               (Sites.size() == 1 ? std::string("its atomic updates") : S.at() + " updates");
  }
  // Every use of the builtin variables is a component (blockIdx.x).
  if (const DeclRefExpr *Ref = Facts.Builtins.wholeVariable())
    return "'" + Ref->getDecl()->getNameAsString() + "' is used as a whole (line " +
           line(SM.getPresumedLineNumber(Ref->getBeginLoc())) + ")";
  for (Site &S : Sites) {
    S.CallR = EC.rangeOf(S.Update->getSourceRange());
    S.ValueR = EC.rangeOf(S.Value->getSourceRange());
    S.TargetR = EC.rangeOf(S.A->addressArg()->getSourceRange());
    if (!S.CallR || !S.ValueR || !S.TargetR)
      return Sites.size() == 1 ? "the atomic is written inside a macro"
                               : S.at() + " is written inside a macro";
  }
  // The tree's statements go (the store becomes the partial's update).
  for (const Stmt *X : TreeStmts) {
    if (X == TreeStore->getLHS())
      continue;
    auto R = EC.rangeOfStatement(X);
    if (!R)
      return "the statement at line " + line(SM.getPresumedLineNumber(X->getBeginLoc())) +
             " of the tree is written inside a macro";
    Edits.push_back(eraseWithLine(In.Source, R->first, R->second));
  }
  auto B = EC.offsetOf(Body->getLBracLoc()), E = EC.offsetOf(Body->getRBracLoc());
  if (!B || !E)
    return "the kernel body is written inside a macro";
  BodyBegin = *B;
  BodyEnd = *E;
  return "";
}

/// The dimensions whose blocks become a loop: bounded by a guard term of
/// the first atomic that every other atomic is under too, and on which no
/// atomic's address depends.
void Rewrite::findVirtual() {
  std::vector<const an::Guard *> Others;
  for (const Site &S : drop_begin(Sites))
    Others.push_back(S.ValueG);
  VirtualBlocks VB =
      findVirtualBlocks(Facts.Builtins, *Sites[0].ValueG, Tab, &Sites[0].A->Index, Others);
  Virtual = std::move(VB.Dims);
  VirtualWhy = std::move(VB.Why);
  if (Virtual.empty() && !TreeGridWhy.empty())
    VirtualWhy = TreeGridWhy;
  for (const Site &S : drop_begin(Sites))
    llvm::erase_if(Virtual, [&](const BlockBound &B) {
      auto Bi = Tab.findBuiltin("blockIdx", B.Dim);
      if (!Bi || !Tab.dependsOn(S.A->Index, *Bi))
        return false;
      VirtualWhy = "the address of " + S.at() + " depends on 'blockIdx." + std::string(1, B.Dim) +
                   "'";
      return true;
    });
}

std::optional<StridedLoop> Rewrite::stridedLoop(const an::Loop &L, std::string &Why) const {
  auto No = [&](std::string W) -> std::optional<StridedLoop> {
    Why = std::move(W);
    return std::nullopt;
  };
  const auto *F = dyn_cast_or_null<ForStmt>(L.S);
  if (!F)
    return No("it is not a for loop");
  if (L.StepK != an::StepKind::GridStride && L.StepK != an::StepKind::BlockStride)
    return No("it does not step by a grid or block stride");
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  const VarDecl *IV = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
  if (!IV || IV != L.IV || !IV->getInit() || !IV->getType()->isIntegerType())
    return No("its variable is not declared in its head");
  if (!L.Bound || (L.Cmp != an::CmpOp::LT && L.Cmp != an::CmpOp::LE) ||
      !L.ExtraCondText.empty())
    return No("its condition is not 'i < bound'");
  for (an::AtomId X : L.Bound->atoms())
    if (Tab.isVarying(X))
      return No("its bound changes in the loop");
  if (L.HasSync)
    return No("it synchronises the block");
  if (L.HasEarlyExit)
    return No("it may leave early");
  if (isModified(IV, F->getBody()))
    return No("its body assigns its variable");
  std::vector<const ContinueStmt *> Cs;
  std::vector<const BreakStmt *> Bs;
  collectJumps(F->getBody(), Cs, Bs);
  if (!Bs.empty())
    return No("its body breaks out of it");
  if (!stepOf(F, IV))
    return No("its increment is not 'i += stride'");
  const auto *C = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!C || !C->isComparisonOp() || referencesTo(IV, C).size() != 1)
    return No("its condition is not 'i < bound'");
  return StridedLoop{F, IV, &L};
}

void Rewrite::findHotLoop() {
  if (!Virtual.empty())
    return; // the loop over virtual blocks is the strided loop
  for (Site &S : Sites) {
    const an::Access *A = S.A;
    if (!A->Loops.empty()) {
      S.Hot = &M.Loops[A->Loops.front()];
    } else if (const VarDecl *V = asVar(S.Value)) {
      const an::Reduction *R = M.reductionOf(V);
      if (R && R->Kind == an::ReductionKind::LoopCarried && !R->Loops.empty()) {
        an::ReductionOp Base = R->Op == an::ReductionOp::ArgMax   ? an::ReductionOp::Max
                               : R->Op == an::ReductionOp::ArgMin ? an::ReductionOp::Min
                                                                  : R->Op;
        if (Base == S.Comb.Op) {
          S.Hot = &M.Loops[R->Loops.front()];
          S.AccVar = V;
        }
      }
    }
  }
  // One loop feeds every atomic.
  Hot = Sites[0].Hot;
  for (const Site &S : drop_begin(Sites))
    if (S.Hot != Hot) {
      const Site &W = Hot ? S : Sites[0];
      GridWhy = "the atomics take their values from different loops (" + W.at() +
                (W.Hot ? " from the loop at line " + line(W.Hot->Loc.Line) : " from none") + ")";
      Hot = nullptr;
      return;
    }
  if (!Hot)
    return;
  if (Hot->Parent >= 0) {
    StridedWhy = "it is nested in another loop";
  } else {
    Strided = stridedLoop(*Hot, StridedWhy);
  }
  if (!Strided)
    GridWhy = "the loop at line " + line(Hot->Loc.Line) + " is kept as it is: " + StridedWhy;
}

void Rewrite::checkGridIndependence() {
  if (!Strided)
    return;
  if (Hot->StepK != an::StepKind::GridStride) {
    GridWhy = "the loop at line " + line(Hot->Loc.Line) +
              " steps by a block stride: each block keeps its own range";
    return;
  }
  auto Fail = [&](std::string W) {
    if (GridWhy.empty())
      GridWhy = std::move(W);
  };
  // It starts at blockIdx.x * blockDim.x + threadIdx.x + U.
  auto Bx = Tab.findBuiltin("blockIdx", 'x'), Tx = Tab.findBuiltin("threadIdx", 'x'),
       Dx = Tab.findBuiltin("blockDim", 'x');
  if (!Hot->Start || !Bx || !Tx || !Dx)
    return Fail("the loop's start is not known");
  an::IndexForm Rest = *Hot->Start - an::IndexForm::atom(*Bx) * an::IndexForm::atom(*Dx) -
                       an::IndexForm::atom(*Tx);
  for (an::AtomId X : Rest.atoms())
    if (Tab.isVarying(X) || Tab.dependsOnKind(an::IndexForm::atom(X), an::AtomKind::GridDim))
      return Fail("the loop does not start at 'blockIdx.x * blockDim.x + threadIdx.x' plus a "
                  "uniform offset");
  for (an::AtomId X : Hot->Bound->atoms())
    if (!Tab[X].Uniform.atLeast(an::Uniformity::GridUniform))
      return Fail("the loop's bound differs between blocks");
  // The thread's position is used in the loop head only (directly or
  // through a local that only the head reads).
  const ForStmt *F = Strided->Loop;
  auto Head = [&](unsigned Off) {
    return inside(Off, EC.rangeOf(F->getInit()->getSourceRange())) ||
           inside(Off, EC.rangeOf(F->getInc()->getSourceRange()));
  };
  for (const BuiltinUse &U : Facts.Builtins.Uses) {
    if (U.Var == "blockDim" || (U.Range && Head(U.Range->first)))
      continue;
    bool Plumbing = false;
    if (U.Range) {
      // Up to the declaration that holds it.
      const Stmt *Up = U.E;
      auto Parents = Ctx.getParents(*Up);
      while (!Parents.empty() && Parents[0].get<Expr>()) {
        Up = Parents[0].get<Expr>();
        Parents = Ctx.getParents(*Up);
      }
      const auto *V = Parents.empty() ? nullptr : Parents[0].get<VarDecl>();
      if (V && V->hasLocalStorage() && !isModified(V, Body)) {
        Plumbing = true;
        for (const DeclRefExpr *R : referencesTo(V, Body)) {
          auto O = EC.offsetOf(R->getBeginLoc());
          Plumbing &= O && Head(*O);
        }
      }
    }
    if (!Plumbing)
      return Fail("'" + U.Var.str() + "." + std::string(1, U.Dim) +
                  "' is used outside the loop's start and step (line " +
                  line(SM.getPresumedLineNumber(U.E->getBeginLoc())) + ")");
  }
  // The body depends on the thread only through the loop variable.
  struct Refs : DynamicRecursiveASTVisitor {
    std::vector<const DeclRefExpr *> Out;
    bool VisitDeclRefExpr(DeclRefExpr *D) override {
      Out.push_back(D);
      return true;
    }
  } R;
  R.TraverseStmt(const_cast<Stmt *>(F->getBody()));
  auto BodyR = EC.rangeOf(F->getBody()->getSourceRange());
  auto IsAcc = [&](const VarDecl *V) {
    return any_of(Sites, [&](const Site &S) { return S.AccVar == V; });
  };
  for (const DeclRefExpr *D : R.Out) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V || V == Strided->IV || IsAcc(V) || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
      continue;
    if (auto O = EC.offsetOf(V->getLocation()); O && inside(*O, BodyR))
      continue; // declared in the body
    if (!M.isUniform(D, an::Uniformity::GridUniform))
      return Fail("the loop body reads '" + V->getNameAsString() +
                  "', which differs between threads");
  }
  auto LoopR = EC.rangeOf(F->getSourceRange());
  for (const Site &S : Sites) {
    // The atomic runs in the loop, or once per thread after it.
    for (const an::GuardTerm &T : S.UpdateG->Terms) {
      bool InBody = T.Cond && EC.rangeOf(T.Cond->getSourceRange()) &&
                    inside(EC.rangeOf(T.Cond->getSourceRange())->first, BodyR);
      if (!InBody && !T.Uniform.atLeast(an::Uniformity::GridUniform))
        return Fail("the atomic runs under '" + T.Text + "', which differs between threads");
    }
    if (!S.AccVar) {
      if (S.A->Loops.empty())
        return Fail("the atomic is neither in the loop nor fed by an accumulator of it");
      continue;
    }
    // The accumulator: updated only in the loop, combined only by the
    // atomics, and starting at the identity unless the operator is
    // idempotent (threads with no element add its start).
    for (const DeclRefExpr *D : referencesTo(S.AccVar, Body)) {
      auto O = EC.offsetOf(D->getBeginLoc());
      if (!O || (!inside(*O, LoopR) && !inAnyValue(*O)))
        return Fail("'" + S.AccVar->getNameAsString() +
                    "' is used outside the loop and the atomic");
    }
    const Combiner &Comb = S.Comb;
    bool Idempotent = Comb.Op == an::ReductionOp::Max || Comb.Op == an::ReductionOp::Min ||
                      Comb.Op == an::ReductionOp::And || Comb.Op == an::ReductionOp::Or;
    if (!Idempotent) {
      bool Zero = false;
      Expr::EvalResult ER;
      if (const Expr *Init = S.AccVar->getInit();
          Init && !Init->isValueDependent() && Init->EvaluateAsRValue(ER, Ctx))
        Zero = (ER.Val.isInt() && ER.Val.getInt() == 0) ||
               (ER.Val.isFloat() && ER.Val.getFloat().isZero());
      if (!Zero)
        return Fail("'" + S.AccVar->getNameAsString() +
                    "' does not start at 0, so the number of threads would change the result");
    }
  }
  GridFree = true;
}

std::string Rewrite::chooseTarget(Slot &Sl) {
  const Site &S = Sites[Sl.Sites[0]];
  const an::Access *A = S.A;
  // The first argument as written, when it names nothing local and no
  // virtual block index.
  const Expr *T = A->addressArg();
  bool Closed = true;
  struct Refs : DynamicRecursiveASTVisitor {
    std::vector<const DeclRefExpr *> Out;
    bool VisitDeclRefExpr(DeclRefExpr *D) override {
      Out.push_back(D);
      return true;
    }
  } R;
  R.TraverseStmt(const_cast<Expr *>(T));
  for (const DeclRefExpr *D : R.Out) {
    const ValueDecl *VD = D->getDecl();
    const auto *V = dyn_cast<VarDecl>(VD);
    Closed &= isa<ParmVarDecl>(VD) || frontend::isCudaBuiltinVar(VD) ||
              isa<EnumConstantDecl, NonTypeTemplateParmDecl>(VD) || (V && !V->hasLocalStorage());
  }
  for (const BuiltinUse &U : Facts.Builtins.Uses)
    if (U.Var == "blockIdx" && VName.count(U.Dim) && U.Range && inside(U.Range->first, S.TargetR))
      Closed = false;
  if (Closed) {
    Sl.Target = In.Source.slice(S.TargetR->first, S.TargetR->second).str();
    return "";
  }
  // Else the buffer and the index form: &out[blockIdx.y].
  const auto *P = dyn_cast_or_null<ParmVarDecl>(A->Base);
  std::string Why = "the atomic's address '" + A->Text +
                    "' is computed in local variables that the block combine cannot name";
  if (!P || !P->getType()->isPointerType() ||
      P->getType()->getPointeeType().getCanonicalType().getUnqualifiedType() !=
          A->addressArg()->IgnoreParenImpCasts()->getType()->getPointeeType()
              .getCanonicalType().getUnqualifiedType())
    return Why;
  auto Idx = renderForm(A->Index, Tab, false);
  if (!Idx)
    return Why;
  Sl.Target =
      A->Index.isZero() ? P->getNameAsString() : "&" + P->getNameAsString() + "[" + *Idx + "]";
  return "";
}

void Rewrite::atomicEdit(const Site &S) {
  const Combiner &Comb = S.Comb;
  std::string V = splice(In.Source, S.ValueR->first, S.ValueR->second, Edits);
  QualType VT = S.Value->IgnoreParenImpCasts()->getType();
  bool SameType = Comb.K != ValueKind::Dependent && !VT->isDependentType() &&
                  valueKindOf(VT, Ctx) == std::optional<ValueKind>(Comb.K);
  const Expr *VE = S.Value->IgnoreParenImpCasts();
  bool Simple = isa<DeclRefExpr, ArraySubscriptExpr, CallExpr, IntegerLiteral, FloatingLiteral,
                    MemberExpr, ParenExpr>(VE);
  bool Comma = isa<BinaryOperator>(VE) && cast<BinaryOperator>(VE)->isCommaOp();
  std::string Value = SameType ? (Comma ? "(" + V + ")" : V)
                               : "(" + Comb.Type + ")" + (Simple ? V : "(" + V + ")");
  Edits.push_back({S.CallR->first, S.CallR->second - S.CallR->first,
                   Comb.update(Slots[S.Slot].Part, Value)});
}

void Rewrite::loopEdit() {
  const ForStmt *F = Strided->Loop;
  const VarDecl *IV = Strided->IV;
  auto LoopR = EC.rangeOf(F->getSourceRange());
  auto BodyR = EC.rangeOf(F->getBody()->getSourceRange());
  auto InitR = EC.rangeOf(IV->getInit()->getSourceRange());
  auto StepR = EC.rangeOf(stepOf(F, IV)->getSourceRange());
  auto CondR = EC.rangeOf(F->getCond()->getSourceRange());
  if (!LoopR || !BodyR || !InitR || !StepR || !CondR)
    return;
  // `continue` ends the iteration: in the step function, a return.
  std::vector<const ContinueStmt *> Cs;
  std::vector<const BreakStmt *> Bs;
  collectJumps(F->getBody(), Cs, Bs);
  std::vector<SourceEdit> Inner = Edits;
  for (const ContinueStmt *C : Cs) {
    auto R = EC.rangeOf(C->getSourceRange());
    if (!R)
      return;
    Inner.push_back({R->first, R->second - R->first, "return"});
  }
  std::string Step = fresh("step"), I = fresh(IV->getName()), S = fresh("stride");
  std::string IdxT = Ctx.getTypeSize(IV->getType()) >= 64 ? typeSpelling(IV->getType(), Ctx)
                                                          : "long long";
  auto CondAt = [&](const std::string &X) {
    std::vector<SourceEdit> E = Inner;
    for (const DeclRefExpr *R : referencesTo(IV, F->getCond()))
      if (auto RR = EC.rangeOf(R->getSourceRange()))
        E.push_back({RR->first, RR->second - RR->first, X});
    return splice(In.Source, CondR->first, CondR->second, E);
  };
  bool Compound = isa<CompoundStmt>(F->getBody());
  unsigned BodyEnd = Compound ? BodyR->second : pastSemicolon(In.Source, BodyR->second);
  std::string BodyText = splice(In.Source, BodyR->first, BodyEnd, Inner);
  if (!Compound)
    BodyText = "{ " + BodyText + " }";
  std::string Ind = lineIndent(In.Source, LoopR->first).str(), I1 = Ind + "  ", I2 = I1 + "  ";
  std::string U = std::to_string(Unroll);
  std::string T = "{\n";
  T += I1 + "// " + RuleName + ": " + U + " iterations at a time, so that their loads overlap.\n";
  T += I1 + "auto " + Step + " = [&](" + typeSpelling(IV->getType(), Ctx) + " " +
       IV->getName().str() + ") " + indentBy(BodyText, "  ") + ";\n";
  T += I1 + IdxT + " " + I + " = " + splice(In.Source, InitR->first, InitR->second, Inner) + ";\n";
  T += I1 + "const " + IdxT + " " + S + " = " +
       splice(In.Source, StepR->first, StepR->second, Inner) + ";\n";
  T += I1 + "for (; " + CondAt("(" + I + " + " + std::to_string(Unroll - 1) + " * " + S + ")") +
       "; " + I + " += " + U + " * " + S + ") {\n";
  for (int K = 0; K < Unroll; ++K)
    T += I2 + Step + "(" + I +
         (K == 0 ? std::string() : K == 1 ? " + " + S : " + " + std::to_string(K) + " * " + S) +
         ");\n";
  T += I1 + "}\n";
  T += I1 + "for (; " + CondAt(I) + "; " + I + " += " + S + ")\n";
  T += I2 + Step + "(" + I + ");\n";
  T += Ind + "}";
  Edits.push_back({LoopR->first, BodyEnd - LoopR->first, T});
  LoopWords = "the loop over '" + IV->getNameAsString() + "' at line " + line(Hot->Loc.Line) +
              " takes " + U + " iterations per step, so " + U +
              " iterations' loads are in flight at once";
}

std::string Rewrite::combineText(const std::string &Ind) {
  std::string I1 = Ind + "  ", I2 = I1 + "  ", I3 = I2 + "  ", Out;
  auto Line = [&](const std::string &Indent, const std::string &L) { Out += Indent + L + "\n"; };
  // Head, then its statements: one on the next line, several in braces.
  auto Group = [&](const std::string &Indent, const std::string &Head,
                   const std::vector<std::string> &Stmts) {
    if (Stmts.size() == 1) {
      Line(Indent, Head);
      Line(Indent + "  ", Stmts.front());
      return;
    }
    Line(Indent, Head + " {");
    for (const std::string &S : Stmts)
      Line(Indent + "  ", S);
    Line(Indent, "}");
  };
  std::string Threads = fresh("threads"), Tid = fresh("t"), Off = fresh("offset");
  std::vector<std::string> Finals, Shuffles, Stores, Loads, Shared;
  for (Slot &S : Slots) {
    Finals.push_back(S.Callee + "(" + S.Target + ", " + S.Part + ");");
    Shuffles.push_back(
        S.Comb.update(S.Part, "__shfl_down_sync(0xffffffffu, " + S.Part + ", " + Off + ")") + ";");
    Stores.push_back(S.Warps + "[" + Tid + " / 32u] = " + S.Part + ";");
    Loads.push_back(S.Part + " = " + Tid + " < " + Threads + " / 32u ? " + S.Warps + "[" + Tid +
                    "] : " + *S.Comb.identity() + ";");
    Shared.push_back("__shared__ " + S.Comb.Type + " " + S.Warps + "[32];");
  }
  std::string Offsets = "for (int " + Off + " = 16; " + Off + " > 0; " + Off + " >>= 1)";
  Line(Ind, "// The block's partials: lanes by shuffles, warps through shared memory.");
  Line(Ind, "{");
  Line(I1, "const unsigned " + Threads + " = blockDim.x * blockDim.y * blockDim.z;");
  Line(I1, "if (" + Threads + " % 32u != 0u) {");
  Line(I2, std::string("// A partial warp cannot shuffle with a full mask: one atomic per thread") +
               (Slots.size() > 1 ? " and target." : "."));
  for (const std::string &F : Finals)
    Line(I2, F);
  Line(I1, "} else {");
  for (const std::string &S : Shared)
    Line(I2, S);
  Line(I2, "const unsigned " + Tid +
               " = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);");
  Group(I2, Offsets, Shuffles);
  Group(I2, "if (" + Tid + " % 32u == 0u)", Stores);
  Line(I2, "__syncthreads();");
  Line(I2, "if (" + Tid + " < 32u) {");
  for (const std::string &L : Loads)
    Line(I3, L);
  Group(I3, Offsets, Shuffles);
  Group(I3, "if (" + Tid + " == 0u)", Finals);
  Line(I2, "}");
  Line(I1, "}");
  Line(Ind, "}");
  return Out;
}

std::string Rewrite::kernelText() {
  // The indentation of the body's statements.
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = EC.offsetOf(Body->body_front()->getBeginLoc());
        O && SM.getPresumedLineNumber(Body->body_front()->getBeginLoc()) !=
                 SM.getPresumedLineNumber(Body->getLBracLoc()))
      Ind = lineIndent(In.Source, *O).str();
  // The original statements with the edits, without the blank lines around.
  std::string Kept = splice(In.Source, BodyBegin + 1, BodyEnd, Edits);
  StringRef K = Kept;
  K = K.rtrim(" \t");
  if (K.starts_with("\n"))
    K = K.drop_front();
  std::string Statements = K.str();
  if (!Statements.empty() && !StringRef(Statements).ends_with("\n"))
    Statements = StringRef(Statements).rtrim().str() + "\n";
  if (!Statements.empty() && !isSpace(Statements.front()))
    Statements = Ind + Statements; // the first statement shared the brace's line

  bool Function = !Virtual.empty() || !Facts.Returns.empty();
  std::string Out = "\n";
  auto Line = [&](const std::string &L) { Out += Ind + L + "\n"; };
  if (Slots.size() == 1) {
    Line("// " + std::string(RuleName) + ": " + atomicsWords() +
         ". Every thread keeps a partial in a register;");
    Line("// the warps, then the block, combine the partials.");
  } else {
    Line("// " + std::string(RuleName) + ": " + atomicsWords() + ".");
    Line("// Every thread keeps a partial per target in registers; the warps, then the");
    Line("// block, combine the partials.");
  }
  for (const Slot &S : Slots)
    Line(S.Comb.Type + " " + S.Part + " = " + *S.Comb.identity() + ";");
  if (Function) {
    std::vector<std::string> Params;
    for (const BlockBound &B : Virtual)
      Params.push_back("unsigned " + VName[B.Dim]);
    if (!Virtual.empty()) {
      Line("// The original body, for one block of the original grid.");
    } else {
      Line("// The original body: its returns end this thread's part.");
    }
    Line("auto " + Fn + " = [&](" + join(Params, ", ") + ") {");
    Out += "  " + indentBy(Statements, "  ");
    Line("};");
    if (!Virtual.empty())
      Out += virtualLoopText(Virtual, Fn, [&](StringRef B) { return fresh(B); }, Unroll, Ind);
    else
      Line(Fn + "();");
  } else {
    Out += Statements;
  }
  Out += combineText(Ind);
  // The closing brace keeps its line and its indentation.
  StringRef Close = lineIndent(In.Source, BodyEnd);
  if (lineStart(In.Source, BodyEnd) + Close.size() == BodyEnd)
    Out += Close;
  return Out;
}

/// "one atomicAdd per block", "one atomicMin and one atomicMax per block",
/// "one atomicAdd per block into each of 2 targets", "one atomicAdd into
/// each of 2 targets and one atomicMax per block".
std::string Rewrite::atomicsWords() const {
  // Each atomic once, in the order of its first target, with its count.
  std::vector<std::pair<std::string, unsigned>> Counts;
  for (const Slot &S : Slots) {
    auto It = find_if(Counts, [&](const auto &C) { return C.first == S.Callee; });
    if (It == Counts.end())
      Counts.push_back({S.Callee, 1});
    else
      ++It->second;
  }
  auto Each = [](const std::pair<std::string, unsigned> &C) {
    return "one " + C.first +
           (C.second > 1 ? " into each of " + std::to_string(C.second) + " targets" : "");
  };
  if (Counts.size() == 1)
    return "one " + Counts[0].first + " per block" +
           (Counts[0].second > 1 ? " into each of " + std::to_string(Counts[0].second) + " targets"
                                 : "");
  std::vector<std::string> W;
  for (const auto &C : Counts)
    W.push_back(Each(C));
  std::string Last = W.back();
  W.pop_back();
  return join(W, ", ") + " and " + Last + " per block";
}

/// "sum", "minimum and maximum", "sum of each of the 2 targets".
std::string Rewrite::opWords() const {
  std::vector<std::string> W;
  for (const Slot &S : Slots)
    W.push_back(S.Comb.opWords().str());
  if (all_equal(W))
    return W.front() + (W.size() > 1 ? " of each of the " + std::to_string(W.size()) + " targets"
                                     : std::string());
  std::string Last = W.back();
  W.pop_back();
  return join(W, ", ") + " and " + Last;
}

std::optional<agent::SpecChange> Rewrite::specChange(std::string &Note) {
  if (Virtual.empty() && !GridFree) {
    Note = "The grid stays as it is: " +
           (!GridWhy.empty()      ? GridWhy
            : !VirtualWhy.empty() ? VirtualWhy
                                  : std::string("the kernel is not shown to compute the same "
                                                "for another grid")) +
           ".";
    return std::nullopt;
  }
  const agent::ProposalRequest &Req = In.Request;
  const arch::SmLimits &L = In.Target.limits();
  unsigned SMs = Req.SmCount ? Req.SmCount : 132;
  // Threads per block as the spec writes them, so that the cap follows a
  // tuned block.
  std::vector<std::string> Dims;
  for (const char *D : {"block.x", "block.y", "block.z"}) {
    auto It = Req.Geometry.find(D);
    if (It != Req.Geometry.end() && It->second != "1")
      Dims.push_back(It->second);
  }
  std::string Threads;
  if (Dims.size() == 1)
    Threads = Dims[0];
  else if (!Dims.empty())
    Threads = "(" + join(Dims, ") * (") + ")";
  else if (Req.BlockThreads)
    Threads = std::to_string(*Req.BlockThreads);
  if (Threads.empty()) {
    Note = "No block size is known, so the grid is left as it is; the kernel is correct with it.";
    return std::nullopt;
  }
  std::string PerSM =
      formatv("min({0}, {1} / ({2}))", L.MaxBlocksPerSM, L.MaxThreadsPerSM, Threads).str();
  std::string Waves = "FORGE_WAVES";
  std::string Cap = Waves + " * " + std::to_string(SMs) + " * " + PerSM;
  agent::SpecChange S;
  if (!Virtual.empty()) {
    auto G = virtualGrid(Req, Virtual, Cap, Note);
    if (!G)
      return std::nullopt;
    S.Geometry = std::move(*G);
    S.Justification =
        formatv("every thread runs the original body for the blocks of the original grid that "
                "the guard {0} admits, a grid stride apart, so any grid computes the same {1} "
                "(as long as the original grid covers the guard's range, as a "
                "one-element-per-thread launch does); grid.{2} is capped at FORGE_WAVES waves of "
                "{3} SMs x {4} blocks",
                boundTerms(Virtual), opWords(), Virtual.front().Dim, SMs, PerSM)
            .str();
  } else {
    // Enough blocks to fill the GPU, and no more than the elements need.
    Cap = capShare(Req, "x", Cap);
    std::string Grid = Cap;
    if (auto Bound = inSpecTerms(*Hot->Bound, Tab, In); Bound && Hot->Start)
      if (Hot->Start->withoutAtom(*Tab.findBuiltin("blockIdx", 'x'))
              .withoutAtom(*Tab.findBuiltin("threadIdx", 'x'))
              .isZero())
        Grid = "min(ceil_div(" + *Bound + ", " + Threads + "), " + Cap + ")";
    S.Geometry["grid.x"] = Grid;
    S.Justification =
        formatv("the grid-stride loop at line {0} gives each element of its range to one thread "
                "for any grid, and an element's contribution depends only on the loop variable "
                "and grid-uniform values, so any grid computes the same {1}; grid.x is "
                "FORGE_WAVES waves of {2} SMs x {3} blocks",
                Hot->Loc.Line, opWords(), SMs, PerSM)
            .str();
  }
  for (const auto &[Field, Expr] : S.Geometry) {
    auto Parsed = measure::IntExpr::parse(Expr);
    if (!Parsed) {
      consumeError(Parsed.takeError());
      Note = "The capped grid cannot be written in the spec's language, so the grid is left as "
             "it is.";
      return std::nullopt;
    }
  }
  if (!Req.Tunables.count(Waves))
    S.NewTunables[Waves] = {2, 1, 4, 8, 16};
  return S;
}

std::string Rewrite::rationale(const std::string &GridNote) const {
  std::string R;
  if (Tree) {
    const Slot &S = Slots.front();
    R = formatv("Each block stored one value per thread into the __shared__ array '{0}', reduced "
                "them with a tree ({1}, {2}) with a __syncthreads() per round, and thread 0 "
                "issued one {3} of '{0}[0]' into {4}: the kernel computes the {5} of every "
                "thread's value into {4}, as one {3} per thread would. So it is rewritten as that "
                "kernel is: each thread keeps its partial {5} in a register (the store into "
                "'{0}[tid]' becomes its update), the 32 lanes of a warp combine theirs with five "
                "__shfl_down_sync steps, the warps of a block through 32 slots of shared memory, "
                "and one {3} per block goes to {4}; the array, the barriers and the tree are "
                "gone.",
                Tree->Shared->getName(), Tree->Shape, Tree->Step.words(), S.Callee, S.Target,
                S.Comb.opWords())
            .str();
  } else if (Slots.size() == 1) {
    const Slot &S = Slots.front();
    R = formatv("Every thread issued its own {0} into {1}, all into one address, which the L2 "
                "serialises. Now each thread keeps its partial {2} in a register, the 32 lanes of "
                "a warp combine theirs with five __shfl_down_sync steps, the warps of a block "
                "through 32 slots of shared memory, and one {0} per block goes to {1}: atomics "
                "per block blockDim -> 1.",
                S.Callee, S.Target, S.Comb.opWords())
            .str();
  } else {
    std::vector<std::string> Each, Ops;
    for (const Slot &S : Slots) {
      Each.push_back(S.Callee + " into " + S.Target);
      Ops.push_back(S.Comb.opWords().str());
    }
    R = formatv("Every thread issued its own {0}, each all into one address, which the L2 "
                "serialises. Now each thread keeps one partial per target ({1}) in registers, the "
                "32 lanes of a warp combine theirs with five __shfl_down_sync steps, the warps of "
                "a block through 32 slots of shared memory per target, and the block issues one "
                "atomic per target: atomics per block {2} x blockDim -> {2}.",
                join(Each, ", "), join(Ops, ", "), Slots.size())
            .str();
  }
  if (!Virtual.empty())
    R += " Each thread runs the original body for the blocks blockIdx, blockIdx + gridDim, ... "
         "of the original grid that the guard admits, " +
         std::to_string(Unroll) +
         " at a time so that their loads overlap, so the grid can be a few waves of the GPU "
         "instead of one block per blockDim elements.";
  if (!LoopWords.empty())
    R += " In each thread, " + LoopWords + ".";
  bool FloatSum = any_of(Slots, [](const Slot &S) {
    return S.Comb.isFloat() && S.Comb.Op == an::ReductionOp::Add;
  });
  if (FloatSum && Tree)
    R += " The floating-point sum is re-associated (per thread, per warp, per block, instead of "
         "the tree's pairs), so it differs from the original's in the last bits, within the "
         "default fp32 tolerance of a sum; the original's per-block atomics already added in "
         "arrival order.";
  else if (FloatSum)
    R += " The floating-point sum is re-associated (per thread, per warp, per block), so it "
         "differs from the original's in the last bits, within the default fp32 tolerance of a "
         "sum; the original's atomics already added in arrival order.";
  else
    R += " The result is exact: the operator is associative and commutative on these values.";
  R += OrderNote;
  if (Tree)
    R += " The tree reduces every thread's value only for a power-of-two block (the launch's "
         "is one); the rewrite combines every thread's value for any block.";
  R += " A block whose size is not a multiple of 32 falls back to one atomic per thread.";
  if (!GridNote.empty())
    R += "\n" + GridNote;
  return R;
}

RuleOutcome Rewrite::run() {
  if (!kernelBody(In.Kernel))
    return notApplicable("the kernel has no body");
  if (std::string Why = findReductions(); !Why.empty())
    return notApplicable(Why);
  if (std::string Why = checkBody(); !Why.empty())
    return notApplicable(Why);
  findVirtual();
  if (std::string Why = checkBlockCoverage(In, Tab, Virtual); !Why.empty())
    return notApplicable(Why);
  findHotLoop();
  checkGridIndependence();

  // One partial per target: "partial" alone, or named after the targets.
  for (Slot &S : Slots) {
    std::string Suffix;
    if (Slots.size() > 1) {
      const an::Access &A = *Sites[S.Sites[0]].A;
      Suffix = "_" + A.Buffer;
      bool Shared = count_if(Slots, [&](const Slot &T) {
                      return Sites[T.Sites[0]].A->Buffer == A.Buffer;
                    }) > 1;
      auto C = A.IndexKnown ? A.Index.constantValue() : std::nullopt;
      if (Shared && C && *C >= 0)
        Suffix += std::to_string(*C);
      if (!isValidAsciiIdentifier("partial" + Suffix))
        Suffix.clear();
    }
    S.Part = fresh("partial" + Suffix);
    S.Warps = fresh("warp_partials" + Suffix);
  }
  Fn = fresh("contribute");
  for (const BlockBound &B : Virtual)
    VName[B.Dim] = fresh(std::string("b") + B.Dim);
  for (Slot &S : Slots)
    if (std::string Why = chooseTarget(S); !Why.empty())
      return notApplicable(Why);
  for (const BuiltinUse &U : Facts.Builtins.Uses)
    if (U.Var == "blockIdx" && VName.count(U.Dim) && U.Range)
      Edits.push_back({U.Range->first, U.Range->second - U.Range->first, VName[U.Dim]});
  for (const Site &S : Sites)
    atomicEdit(S);
  if (Strided)
    loopEdit();
  std::string Text = kernelText();

  std::string Note;
  auto Spec = specChange(Note);
  std::string Summary =
      formatv("{0}{1}: partials in registers, combined by warp shuffles and shared memory{2}",
              atomicsWords(),
              Tree ? " instead of the tree over '" + Tree->Shared->getNameAsString() + "'"
                   : std::string(),
              !Virtual.empty()  ? ", the guard's blocks strided over a capped grid"
              : !LoopWords.empty() ? ", the loop " + std::to_string(Unroll) + " iterations at a time"
                                   : "")
          .str();
  std::vector<SourceEdit> Edit{{BodyBegin + 1, BodyEnd - (BodyBegin + 1), Text}};
  return proposeEdits(In, RuleName, Summary, rationale(Note), Edit, std::move(Spec));
}

class HierarchicalReductionRule : public ExpertRule {
public:
  StringRef name() const override { return RuleName; }
  RuleOutcome propose(const RuleInput &In) override {
    // The model with blockDim symbolic: the rewrite must hold for any block
    // the tuner picks, so no fact may depend on the current one.
    auto M = an::analyzeKernel(In.Ctx, In.Kernel, an::AnalysisOptions{});
    if (!M)
      return notApplicable(toString(M.takeError()));
    return Rewrite(In, *M).run();
  }
};

} // namespace

std::unique_ptr<ExpertRule> createHierarchicalReductionRule() {
  return std::make_unique<HierarchicalReductionRule>();
}

} // namespace forge::passes
