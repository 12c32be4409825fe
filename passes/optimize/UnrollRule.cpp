//===- passes/optimize/UnrollRule.cpp - unroll ------------------------------===//
///
/// \file
/// `#pragma unroll` before the `for` loops of the kernel, and of the device
/// functions of the file it calls, whose trip count is known at compile
/// time (literals, constexpr values, template parameters) and that have no
/// loop pragma yet. Loops of more than 64 iterations get `#pragma unroll 4`
/// instead, so code size stays bounded (docs/passes/unroll.md).
///
//===----------------------------------------------------------------------===//
#include "RuleUtil.h"
#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

constexpr int64_t FullUnrollLimit = 64;

/// A counted loop: `for (v = Init; v CMP Bound; v STEP)`.
struct CountedLoop {
  const VarDecl *Var = nullptr;
  const Expr *Init = nullptr;
  BinaryOperatorKind Cmp = BO_LT; ///< with v on the left
  const Expr *Bound = nullptr;
  enum class Step { Add, Sub, Mul, Div, Shl, Shr } Kind = Step::Add;
  const Expr *StepBy = nullptr; ///< null: 1
};

/// Recognises the loop's parts; the reason when it is not counted.
Expected<CountedLoop> countedLoop(const ForStmt *F) {
  CountedLoop L;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    if (!DS->isSingleDecl())
      return makeError("several variables in the init");
    const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!VD || !VD->getInit() || !VD->getType()->isIntegerType())
      return makeError("no integer counter");
    L.Var = VD;
    L.Init = VD->getInit();
  } else if (const auto *B = dyn_cast_or_null<BinaryOperator>(F->getInit())) {
    if (B->getOpcode() != BO_Assign || !asVar(B->getLHS()))
      return makeError("no counter in the init");
    L.Var = asVar(B->getLHS());
    L.Init = B->getRHS();
  } else {
    return makeError("no init");
  }
  const auto *C = dyn_cast_or_null<BinaryOperator>(F->getCond() ? F->getCond()->IgnoreParenImpCasts()
                                                              : nullptr);
  if (!C || !C->isComparisonOp() || C->getOpcode() == BO_EQ)
    return makeError("the condition is not a comparison");
  if (asVar(C->getLHS()) == L.Var) {
    L.Cmp = C->getOpcode();
    L.Bound = C->getRHS();
  } else if (asVar(C->getRHS()) == L.Var) {
    L.Cmp = BinaryOperator::reverseComparisonOp(C->getOpcode());
    L.Bound = C->getLHS();
  } else {
    return makeError("the condition does not compare the counter");
  }
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (!U->isIncrementDecrementOp() || asVar(U->getSubExpr()) != L.Var)
      return makeError("the increment does not step the counter");
    L.Kind = U->isIncrementOp() ? CountedLoop::Step::Add : CountedLoop::Step::Sub;
  } else if (const auto *B = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    if (asVar(B->getLHS()) != L.Var)
      return makeError("the increment does not step the counter");
    switch (B->getOpcode()) {
    case BO_AddAssign: L.Kind = CountedLoop::Step::Add; break;
    case BO_SubAssign: L.Kind = CountedLoop::Step::Sub; break;
    case BO_MulAssign: L.Kind = CountedLoop::Step::Mul; break;
    case BO_DivAssign: L.Kind = CountedLoop::Step::Div; break;
    case BO_ShlAssign: L.Kind = CountedLoop::Step::Shl; break;
    case BO_ShrAssign: L.Kind = CountedLoop::Step::Shr; break;
    default: return makeError("the increment is not a step");
    }
    L.StepBy = B->getRHS();
  } else {
    return makeError("the increment is not a step");
  }
  return L;
}

/// The number of iterations: in closed form for an additive step (the
/// analysis's), simulated for a geometric one (at most Limit + 1 counted).
std::optional<int64_t> tripCount(const CountedLoop &L, int64_t Init, int64_t Bound,
                                 int64_t Step, int64_t Limit) {
  std::optional<an::CmpOp> Cmp;
  switch (L.Cmp) {
  case BO_LT: Cmp = an::CmpOp::LT; break;
  case BO_LE: Cmp = an::CmpOp::LE; break;
  case BO_GT: Cmp = an::CmpOp::GT; break;
  case BO_GE: Cmp = an::CmpOp::GE; break;
  case BO_NE: Cmp = an::CmpOp::NE; break;
  default: return std::nullopt;
  }
  if (L.Kind == CountedLoop::Step::Add || L.Kind == CountedLoop::Step::Sub)
    return an::arithmeticTripCount(Init, L.Kind == CountedLoop::Step::Add ? Step : -Step, Bound,
                                   *Cmp);
  int64_t V = Init, N = 0;
  auto Holds = [&] {
    switch (*Cmp) {
    case an::CmpOp::LT: return V < Bound;
    case an::CmpOp::LE: return V <= Bound;
    case an::CmpOp::GT: return V > Bound;
    case an::CmpOp::GE: return V >= Bound;
    default: return V != Bound;
    }
  };
  while (Holds()) {
    if (++N > Limit)
      return N;
    int64_t Before = V;
    switch (L.Kind) {
    case CountedLoop::Step::Mul: V *= Step; break;
    case CountedLoop::Step::Div: V = Step ? V / Step : V; break;
    case CountedLoop::Step::Shl: V <<= Step; break;
    default: V >>= Step; break;
    }
    if (V == Before)
      return std::nullopt; // never ends
  }
  return N;
}

/// The trip count where the loop's parts evaluate here, else none.
std::optional<int64_t> evaluateTrip(const ForStmt *F, ASTContext &Ctx) {
  auto L = countedLoop(F);
  if (!L) {
    consumeError(L.takeError());
    return std::nullopt;
  }
  auto Init = evaluateInt(L->Init, Ctx), Bound = evaluateInt(L->Bound, Ctx);
  std::optional<int64_t> Step = L->StepBy ? evaluateInt(L->StepBy, Ctx) : std::optional<int64_t>(1);
  if (!Init || !Bound || !Step)
    return std::nullopt;
  return tripCount(*L, *Init, *Bound, *Step, 1 << 20);
}

/// Whether the statement already carries a loop pragma.
bool hasLoopHint(const ForStmt *F, ASTContext &Ctx) {
  for (const DynTypedNode &P : Ctx.getParents(*F))
    if (const auto *A = P.get<AttributedStmt>())
      for (const Attr *X : A->getAttrs())
        if (isa<LoopHintAttr>(X))
          return true;
  return false;
}

/// The loops of one function body, in source order.
class LoopCollector : public DynamicRecursiveASTVisitor {
public:
  std::vector<const ForStmt *> Loops;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Callees;
  bool VisitForStmt(ForStmt *F) override {
    Loops.push_back(F);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) override {
    if (const FunctionDecl *FD = C->getDirectCallee())
      Callees.insert(FD);
    return true;
  }
  // A lambda's body is code of its own, but it runs in the kernel too.
};

struct Candidate {
  const ForStmt *Loop;
  std::string Function;
  std::optional<int64_t> Trips; ///< largest over the instantiations
};

class UnrollRule : public ExpertRule {
public:
  StringRef name() const override { return "unroll"; }

  RuleOutcome propose(const RuleInput &In) override {
    ASTContext &Ctx = In.Ctx;
    const SourceManager &SM = Ctx.getSourceManager();
    // The kernel and the device functions of the main file it calls.
    std::vector<const FunctionDecl *> Work{&In.Kernel}, Done;
    llvm::SmallPtrSet<const FunctionDecl *, 8> Seen{&In.Kernel};
    std::vector<Candidate> Found;
    unsigned Hinted = 0, Unknown = 0, Short = 0, Unplaceable = 0;
    EditCollector C(In);
    while (!Work.empty()) {
      const FunctionDecl *Fn = Work.back();
      Work.pop_back();
      LoopCollector LC;
      LC.TraverseStmt(Fn->getBody());
      for (const FunctionDecl *Callee : LC.Callees) {
        const FunctionDecl *Def = nullptr;
        if (const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern())
          Callee = Pattern;
        if (!Callee->hasBody(Def) || !Def)
          continue;
        if (!SM.isWrittenInMainFile(SM.getExpansionLoc(Def->getLocation())) ||
            Def->hasAttr<CUDAGlobalAttr>() || !Seen.insert(Def).second)
          continue;
        Work.push_back(Def);
      }
      for (const ForStmt *F : LC.Loops) {
        if (!SM.isWrittenInMainFile(F->getForLoc()) || F->getForLoc().isMacroID())
          continue;
        if (hasLoopHint(F, Ctx)) {
          ++Hinted;
          continue;
        }
        auto L = countedLoop(F);
        if (!L) {
          consumeError(L.takeError());
          ++Unknown;
          continue;
        }
        if (isModified(L->Var, F->getBody()) ||
            !isCompileTimeConstant(L->Init, Ctx) || !isCompileTimeConstant(L->Bound, Ctx) ||
            (L->StepBy && !isCompileTimeConstant(L->StepBy, Ctx))) {
          ++Unknown;
          continue;
        }
        // The count here, or in each instantiation of a template.
        std::optional<int64_t> Trips = evaluateTrip(F, Ctx);
        if (!Trips) {
          std::vector<const FunctionDecl *> Insts = instantiationsOf(*Fn);
          for (const FunctionDecl *I : Insts) {
            const auto *IF = dyn_cast_or_null<ForStmt>(instantiatedStmt(F, *I));
            if (!IF)
              continue;
            if (auto T = evaluateTrip(IF, Ctx))
              Trips = Trips ? std::max(*Trips, *T) : *T;
          }
        }
        if (Trips && *Trips <= 1) {
          ++Short;
          continue;
        }
        auto Off = C.offsetOf(F->getForLoc());
        if (!Off || !In.Source.slice(lineStart(In.Source, *Off), *Off).trim().empty()) {
          ++Unplaceable; // a pragma must begin a line of its own
          continue;
        }
        Found.push_back({F, Fn->getNameAsString(), Trips});
      }
    }
    if (Found.empty()) {
      std::string Why = "no 'for' loop with a compile-time trip count and no loop pragma";
      std::vector<std::string> Notes;
      if (Hinted)
        Notes.push_back(std::to_string(Hinted) + " already ha" + (Hinted > 1 ? "ve" : "s") +
                        " a pragma");
      if (Unknown)
        Notes.push_back(std::to_string(Unknown) + " with a trip count known only at run time");
      if (Short)
        Notes.push_back(std::to_string(Short) + " with at most one iteration");
      if (Unplaceable)
        Notes.push_back(std::to_string(Unplaceable) + " not at the start of a line");
      if (!Notes.empty())
        Why += " (" + join(Notes, "; ") + ")";
      return notApplicable(Why);
    }

    std::vector<std::string> Lines;
    for (const Candidate &Cand : Found) {
      unsigned Off = *C.offsetOf(Cand.Loop->getForLoc());
      std::string Pragma = Cand.Trips && *Cand.Trips > FullUnrollLimit ? "#pragma unroll 4"
                                                                        : "#pragma unroll";
      C.insertBefore(Cand.Loop->getForLoc(),
                     Pragma + "\n" + lineIndent(In.Source, Off).str());
      unsigned Line = SM.getPresumedLineNumber(Cand.Loop->getForLoc());
      Lines.push_back(formatv("line {0} in {1}: {2} ({3})", Line, Cand.Function, Pragma,
                              Cand.Trips ? std::to_string(*Cand.Trips) + " iterations"
                                         : std::string("trip count set by a template argument"))
                          .str());
    }
    if (C.failed())
      return notApplicable(C.failure());
    std::string Summary = "#pragma unroll on " + std::to_string(Found.size()) + " loop" +
                          (Found.size() > 1 ? "s" : "") + " with a compile-time trip count";
    std::string Rationale =
        "Unrolling a loop whose trip count is known at compile time removes the counter, the "
        "compare and the branch of every iteration, lets indices fold into immediate "
        "offsets and exposes independent loads to the scheduler; loops of more than " +
        std::to_string(FullUnrollLimit) + " iterations are unrolled 4 times to bound code "
        "size.\n" + join(Lines, "\n");
    return proposeEdits(In, name(), Summary, Rationale, C.edits());
  }
};
} // namespace

std::unique_ptr<ExpertRule> createUnrollRule() { return std::make_unique<UnrollRule>(); }

} // namespace forge::passes
