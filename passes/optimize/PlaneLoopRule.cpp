//===- passes/optimize/PlaneLoopRule.cpp - plane-loop ---------------------===//
///
/// \file
/// A 3D stencil is often launched with one plane per block along z
/// (`int z = blockIdx.z;`, a 2D block over x-y): every plane's neighbours
/// are read again by the blocks of the planes beside it. stencil-z-march
/// stages the planes for kernels whose threads walk z in a loop. This rule
/// writes that loop: each block walks PlanesPerBlock consecutive planes,
/// the guard's tests on z become the loop's bounds, and grid.z shrinks by
/// the same factor. The loop alone is rarely faster, so the proposal exists
/// to enable stencil-z-march (agent::Proposal::Enables): the expert
/// proposer offers the march composed with it, never the loop alone
/// (docs/passes/plane-loop.md).
///
//===----------------------------------------------------------------------===//
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "StencilPlan.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

using stencil::BuiltinFinder;
using stencil::indentBy;
using stencil::isEarlyReturn;

/// The planes each block walks.
constexpr int64_t PlanesPerBlock = 16;

class PlaneLoopRule : public ExpertRule {
public:
  StringRef name() const override { return "plane-loop"; }
  RuleOutcome propose(const RuleInput &In) override;
};

/// Whether E reads only parameters and constants: the same for every
/// thread of the launch.
bool launchUniform(const Expr *E) {
  if (!E)
    return true;
  if (const auto *D = dyn_cast<DeclRefExpr>(E))
    return isa<ParmVarDecl>(D->getDecl()) || isa<EnumConstantDecl>(D->getDecl()) ||
           (isa<VarDecl>(D->getDecl()) && cast<VarDecl>(D->getDecl())->isConstexpr());
  if (isa<CallExpr>(E) || isa<ArraySubscriptExpr>(E) || isa<MemberExpr>(E))
    return false;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_Deref || U->isIncrementDecrementOp())
      return false;
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (B->isAssignmentOp())
      return false;
  return all_of(E->children(), [](const Stmt *C) {
    return !C || (isa<Expr>(C) && launchUniform(cast<Expr>(C)));
  });
}


/// The planes a guard admits: `z >= lo` and `z < hi` bounds, as source text.
struct Bounds {
  std::vector<std::string> Lo, Hi;
  std::vector<const Expr *> HiExprs; ///< for the check against the grid
  std::vector<int64_t> HiShift;      ///< +1 for `z <= b`
};

/// Term, a test of Z that holds where the plane runs (Exits: holds where
/// it does not, as in an early return), as a bound; an error when it tests
/// Z otherwise.
Error addBound(const Expr *Term, const VarDecl *Z, bool Exits, Bounds &B, ASTContext &Ctx) {
  const auto *Cmp = dyn_cast<BinaryOperator>(Term->IgnoreParenImpCasts());
  auto Bad = [&] {
    return makeError("'{0}' tests '{1}' other than against a bound the same for every thread",
                     textOf(Term, Ctx), Z->getName());
  };
  if (!Cmp || !Cmp->isRelationalOp())
    return Bad();
  const Expr *L = Cmp->getLHS()->IgnoreParenImpCasts(), *R = Cmp->getRHS()->IgnoreParenImpCasts();
  BinaryOperatorKind Op = Cmp->getOpcode();
  auto IsZ = [&](const Expr *E) {
    const auto *D = dyn_cast<DeclRefExpr>(E);
    return D && D->getDecl() == Z;
  };
  const Expr *Other = nullptr;
  if (IsZ(L)) {
    Other = Cmp->getRHS();
  } else if (IsZ(R)) {
    Other = Cmp->getLHS();
    Op = BinaryOperator::reverseComparisonOp(Op);
  } else {
    return Bad();
  }
  if (!launchUniform(Other->IgnoreParenImpCasts()))
    return Bad();
  if (Exits)
    Op = BinaryOperator::negateComparisonOp(Op);
  std::string T = textOf(Other, Ctx), Next = "(" + T + ") + 1";
  switch (Op) {
  case BO_GE: B.Lo.push_back(T); break;
  case BO_GT: B.Lo.push_back(Next); break;
  case BO_LT: B.Hi.push_back(T); B.HiExprs.push_back(Other); B.HiShift.push_back(0); break;
  case BO_LE: B.Hi.push_back(Next); B.HiExprs.push_back(Other); B.HiShift.push_back(1); break;
  default: return Bad();
  }
  return Error::success();
}

/// `A(Op)B(Op)C` from the kept terms' text, or "" for none.
std::string joined(const std::vector<const Expr *> &Kept, StringRef Op, ASTContext &Ctx) {
  std::vector<std::string> Parts;
  for (const Expr *E : Kept)
    Parts.push_back(textOf(E, Ctx));
  return join(Parts, Op);
}

RuleOutcome PlaneLoopRule::propose(const RuleInput &In) {
  ASTContext &Ctx = In.Ctx;
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");

  // blockIdx.z once, as the whole initialiser of the plane's variable;
  // nothing else about z.
  BuiltinFinder Facts;
  Facts.TraverseStmt(const_cast<CompoundStmt *>(Body));
  const Expr *Use = nullptr;
  for (const auto &[E, Ref] : Facts.Found) {
    if (Ref.Dim != 'z')
      continue;
    if (Ref.Var != "blockIdx")
      return notApplicable(formatv("the kernel reads '{0}.z': one plane per block along z is "
                                   "'blockIdx.z' alone",
                                   Ref.Var)
                               .str());
    if (Use)
      return notApplicable("'blockIdx.z' is read more than once");
    Use = E;
  }
  if (!Use)
    return notApplicable("the kernel does not read 'blockIdx.z'");
  if (callsSyncthreads(Body) || Facts.Shared)
    return notApplicable("the body synchronises or shares memory, which a loop over planes would "
                         "run once per plane");
  const DeclStmt *ZDecl = nullptr;
  const VarDecl *Z = nullptr;
  size_t ZAt = 0;
  for (size_t I = 0; I < Body->size() && !Z; ++I)
    if (const auto *DS = dyn_cast<DeclStmt>(Body->body_begin()[I]))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D);
            V && V->getInit() && V->getInit()->IgnoreParenImpCasts() == Use->IgnoreParenImpCasts()) {
          ZDecl = DS;
          Z = V;
          ZAt = I;
        }
  if (!Z)
    return notApplicable("'blockIdx.z' is not the initialiser of a variable declared at the top "
                         "of the kernel's body");
  QualType ZT = Z->getType().getUnqualifiedType();
  if (!ZT->isSpecificBuiltinType(BuiltinType::Int) &&
      !ZT->isSpecificBuiltinType(BuiltinType::UInt))
    return notApplicable(formatv("'{0}' is '{1}': the loop is written for int and unsigned "
                                 "planes",
                                 Z->getName(), ZT.getAsString())
                             .str());
  if (isModified(Z, Body))
    return notApplicable(formatv("'{0}' is assigned or its address taken", Z->getName()).str());

  // The statements after the plane's declaration: those that do not read
  // it stay in front of the loop, guards give up their tests of it to the
  // loop's bounds, the rest is the loop's body.
  Bounds B;
  struct Guard {
    const IfStmt *If;
    bool Exits; ///< an early return (else: the if around the rest)
    std::vector<const Expr *> Kept;
  };
  std::vector<Guard> Guards;
  const Stmt *First = nullptr, *Last = nullptr; // the loop's body
  const IfStmt *Around = nullptr;
  for (size_t I = ZAt + 1; I < Body->size(); ++I) {
    const Stmt *S = Body->body_begin()[I];
    if (First) {
      Last = S;
      continue;
    }
    if (!references(S, Z))
      continue;
    const auto *If = dyn_cast<IfStmt>(S);
    bool Exits = If && isEarlyReturn(If);
    bool Encloses = If && !Exits && !If->getElse() && !If->getInit() &&
                    !If->getConditionVariable() && I + 1 == Body->size() &&
                    isa<CompoundStmt>(If->getThen());
    if (If && (Exits || Encloses) && references(If->getCond(), Z)) {
      Guard G{If, Exits, {}};
      std::vector<const Expr *> Ts;
      chainOperands(If->getCond(), Exits ? BO_LOr : BO_LAnd, Ts);
      for (const Expr *T : Ts) {
        if (!references(T, Z)) {
          G.Kept.push_back(T);
          continue;
        }
        if (Error E = addBound(T, Z, Exits, B, Ctx))
          return notApplicable(toString(std::move(E)));
      }
      Guards.push_back(G);
      if (Encloses) {
        Around = If;
        const auto *Then = cast<CompoundStmt>(If->getThen());
        if (Then->body_empty())
          return notApplicable("the 'if' around the planes' work is empty");
        First = Then->body_front();
        Last = Then->body_back();
        break;
      }
      continue;
    }
    First = Last = S;
  }
  if (!First)
    return notApplicable(formatv("nothing after the guards reads '{0}'", Z->getName()).str());
  // What stays in front of the loop runs once per block of planes instead
  // of once per plane: it must have no effect (a write, a call) that the
  // count would change.
  auto Effect = [&](const Stmt *S) {
    return effectsOf(S, In.Kernel, Ctx, [](const Expr *) { return false; });
  };
  for (const Stmt *S : Body->body()) {
    if (S == First || (Around && S == Around))
      break;
    const auto *If = dyn_cast<IfStmt>(S);
    std::string E = Effect(If && isEarlyReturn(If) ? If->getCond() : S);
    if (!E.empty())
      return notApplicable(formatv("the statement at line {0}, in front of the planes' loop, {1}: "
                                   "it would run once per {2} planes instead of once per plane",
                                   Ctx.getSourceManager().getPresumedLineNumber(S->getBeginLoc()),
                                   E, PlanesPerBlock)
                               .str());
  }
  if (Around)
    if (std::string E = Effect(Around->getCond()); !E.empty())
      return notApplicable(formatv("the condition at line {0} {1}: it would run once per {2} "
                                   "planes instead of once per plane",
                                   Ctx.getSourceManager().getPresumedLineNumber(
                                       Around->getBeginLoc()),
                                   E, PlanesPerBlock)
                               .str());
  if (B.Hi.empty())
    return notApplicable(formatv("no guard bounds '{0}' from above: the chunks of planes past the "
                                 "original grid would run",
                                 Z->getName())
                             .str());
  // Nothing in the loop may leave the kernel: the march needs every
  // thread in every iteration.
  struct ReturnFinder : DynamicRecursiveASTVisitor {
    bool Found = false;
    bool VisitReturnStmt(ReturnStmt *) override {
      Found = true;
      return false;
    }
  };
  const CompoundStmt *Holder = Around ? cast<CompoundStmt>(Around->getThen()) : Body;
  {
    bool InLoop = false;
    for (const Stmt *S : Holder->body()) {
      if (S == First)
        InLoop = true;
      if (InLoop) {
        ReturnFinder RF;
        RF.TraverseStmt(const_cast<Stmt *>(S));
        if (RF.Found)
          return notApplicable(formatv("a 'return' (line {0}) inside the planes' work: every "
                                       "thread must run every plane",
                                       Ctx.getSourceManager().getPresumedLineNumber(
                                           S->getBeginLoc()))
                                   .str());
      }
      if (S == Last)
        break;
    }
  }

  // The launch: grid.z whole planes, at least as many as the guard admits
  // (the last chunk's planes past the grid must be ones the guard stops).
  const agent::ProposalRequest &Req = In.Request;
  auto GZ = Req.Geometry.find("grid.z");
  if (!Req.Spec || GZ == Req.Geometry.end() || GZ->second.empty())
    return notApplicable("the spec's grid.z is not known, and the grid must shrink");
  auto Env = Req.Spec->environment();
  if (!Env)
    return notApplicable("the spec's sizes cannot be evaluated: " + toString(Env.takeError()));
  measure::ValueMap Values = *Env;
  for (const auto &[N, V] : Req.Tunables)
    Values[N] = V;
  auto Geo = Req.Spec->geometry(Values);
  if (!Geo)
    return notApplicable("the spec's launch cannot be evaluated: " + toString(Geo.takeError()));
  if (Geo->Block[2] != 1)
    return notApplicable(formatv("the spec's block has {0} threads along z", Geo->Block[2]).str());
  auto Model = kernelModel(In);
  if (!Model)
    return notApplicable(toString(Model.takeError()));
  std::optional<int64_t> Admitted;
  for (size_t K = 0; K < B.HiExprs.size(); ++K) {
    auto V = evaluateForm(Model->formOf(B.HiExprs[K]), Model->atoms(), In, *Env);
    if (!V)
      return notApplicable(formatv("the bound '{0}' has no value at the spec's sizes",
                                   textOf(B.HiExprs[K], Ctx))
                               .str());
    Admitted = Admitted ? std::min(*Admitted, *V + B.HiShift[K]) : *V + B.HiShift[K];
  }
  int64_t Planes = Geo->Grid[2];
  if (Planes < *Admitted)
    return notApplicable(formatv("the spec's grid has {0} planes and the guard admits {1}: the "
                                 "last chunk would run planes the original grid does not",
                                 Planes, *Admitted)
                             .str());

  // The edits.
  EditCollector C(In);
  std::string T = ZT.getAsString();
  std::string Start = formatv("({0})blockIdx.z * {1}", T, PlanesPerBlock).str();
  std::string Lo = Start, Hi = Start + " + " + std::to_string(PlanesPerBlock);
  for (const std::string &L : B.Lo)
    Lo = formatv("max({0}, ({1})({2}))", Lo, T, L).str();
  for (const std::string &H : B.Hi)
    Hi = formatv("min({0}, ({1})({2}))", Hi, T, H).str();
  std::string V = Z->getName().str();
  // The plane's declaration goes (its declarator, when it shares one).
  if (ZDecl->isSingleDecl()) {
    if (auto R = C.rangeOfStatement(ZDecl))
      C.add(eraseWithLine(In.Source, R->first, R->second));
  } else {
    std::vector<const VarDecl *> Ds;
    for (const Decl *D : ZDecl->decls())
      Ds.push_back(cast<VarDecl>(D));
    size_t K = find(Ds, Z) - Ds.begin();
    auto End = [&](const VarDecl *D) { return C.rangeOf(D->getSourceRange()); };
    if (K > 0) {
      auto P = End(Ds[K - 1]), Me = End(Z);
      if (!P || !Me)
        return notApplicable("the plane's declaration is written through a macro");
      C.add({P->second, Me->second - P->second, ""});
    } else {
      auto Name = C.offsetOf(Z->getLocation()), Next = C.offsetOf(Ds[1]->getLocation());
      if (!Name || !Next)
        return notApplicable("the plane's declaration is written through a macro");
      C.add({*Name, *Next - *Name, ""});
    }
  }
  for (const Guard &G : Guards) {
    if (G.If == Around)
      continue;
    auto R = C.rangeOfStatement(G.If);
    auto Cond = C.rangeOf(G.If->getCond()->getSourceRange());
    if (!R || !Cond)
      return notApplicable("a guard is written through a macro");
    if (G.Kept.empty())
      C.add(eraseWithLine(In.Source, R->first, R->second));
    else
      C.add({Cond->first, Cond->second - Cond->first, joined(G.Kept, " || ", Ctx)});
  }
  auto FR = C.rangeOfStatement(First), LR = C.rangeOfStatement(Last);
  if (!FR || !LR)
    return notApplicable("the planes' work is written through a macro");
  // The work, whole lines with their indentation.
  StringRef Ind = lineIndent(In.Source, FR->first);
  unsigned WorkBegin = FR->first - unsigned(Ind.size());
  std::string Work = In.Source.slice(WorkBegin, LR->second).str();
  auto LoopAt = [&](StringRef At, StringRef Body) {
    return formatv("{0}// plane-loop: this block walks {1} planes along z ('{2}'); the guard's "
                   "tests of '{2}' are the loop's bounds.\n{0}for ({3} {2} = {4}; {2} < {5}; "
                   "++{2}) {{\n{6}\n{0}}",
                   At, PlanesPerBlock, V, T, Lo, Hi, Body)
        .str();
  };
  if (Around) {
    auto R = C.rangeOfStatement(Around);
    if (!R)
      return notApplicable("the guard is written through a macro");
    StringRef IfInd = lineIndent(In.Source, R->first);
    std::string Kept = joined(Guards.back().Kept, " && ", Ctx);
    // The then-branch's statements are already one level in.
    std::string Text = Kept.empty()
                           ? LoopAt(IfInd, Work)
                           : formatv("{0}if ({1}) {{\n{2}\n{0}}", IfInd, Kept,
                                     LoopAt((IfInd + "  ").str(), indentBy(Work, "  ")))
                                 .str();
    C.add({R->first - unsigned(IfInd.size()), R->second - R->first + unsigned(IfInd.size()),
           Text});
  } else {
    C.add({WorkBegin, LR->second - WorkBegin, LoopAt(Ind, indentBy(Work, "  "))});
  }
  if (C.failed())
    return notApplicable(C.failure());

  agent::SpecChange S;
  S.Geometry["grid.z"] = formatv("ceil_div({0}, {1})", GZ->second, PlanesPerBlock).str();
  S.Justification = formatv("each block walks {0} planes, so ceil_div(grid.z, {0}) blocks along z "
                            "cover the original grid's {1} planes; the planes past them are ones "
                            "the guard stops ({2} admitted)",
                            PlanesPerBlock, Planes, *Admitted)
                        .str();
  RuleOutcome O = proposeEdits(
      In, name(), formatv("the planes of blockIdx.z as a loop of {0} per block", PlanesPerBlock).str(),
      formatv("Each block ran one plane along z ('{0} = blockIdx.z'). It now walks {1} consecutive "
              "planes in a loop whose bounds are the guard's tests of '{0}'; the work of each "
              "plane is unchanged. This is the form stencil-z-march stages planes in.",
              V, PlanesPerBlock)
          .str(),
      C.edits(), S);
  for (agent::Proposal &P : O.Proposals)
    P.Enables = {"stencil-z-march"};
  return O;
}

} // namespace

std::unique_ptr<ExpertRule> createPlaneLoopRule() { return std::make_unique<PlaneLoopRule>(); }

} // namespace forge::passes
