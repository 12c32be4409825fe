//===- passes/optimize/SegmentReductionRule.cpp - segment-reduction -------===//
///
/// \file
/// The tutorials' block reductions (Harris' reduce0 .. reduce3 and their
/// copies) compute one partial per block: block b loads a contiguous segment
/// of blockDim.x * E elements into shared memory, one value per thread, and
/// a tree leaves their combination in sdata[0], which thread 0 writes to
/// out[blockIdx.x]. Every thread has one or two 4-byte loads in flight,
/// far too few bytes to keep HBM busy. The rule lets each *warp* reduce one
/// segment: lane l computes the value of the original threads l, l + 32,
/// ... (several of them before they are combined, so that several loads
/// are in flight), the lanes combine with shuffles, and lane 0 writes the
/// segment's output. A block then covers blockDim.x / 32 segments and the
/// grid shrinks by that factor (a SpecChange); block shapes the rewrite
/// does not take run the original body for the original blocks they stand
/// for (a device-side check). docs/passes/segment-reduction.md.
///
/// The tree is the kernel model's TreeReduction pattern; everything else
/// (the values stored before the tree, the one output per block, the
/// segment's contiguity, the guard that bounds the blocks) is checked on
/// the model too, built with a symbolic blockDim so that the segment's
/// size is a form in it.
///
//===----------------------------------------------------------------------===//
#include "BlockTree.h"
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "VirtualBlocks.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

class SegmentReductionRule : public ExpertRule {
public:
  StringRef name() const override { return "segment-reduction"; }
  RuleOutcome propose(const RuleInput &In) override;
};

/// What the rule found, for the text.
struct Match {
  const IfStmt *Tail = nullptr;
  int64_t Block = 0; ///< the launch's block.x
  int64_t E = 1;     ///< elements per thread
  BlockBound Bound;
  QualType Elem;
  bool Float = false;
};

/// Collects the subscripts of one array.
struct Subscripts : DynamicRecursiveASTVisitor {
  const VarDecl *V = nullptr;
  std::vector<const ArraySubscriptExpr *> Out;
  unsigned Other = 0; ///< references not through a subscript
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) override {
    if (asVar(A->getBase()->IgnoreParenImpCasts()) == V)
      Out.push_back(A);
    return true;
  }
};

RuleOutcome SegmentReductionRule::propose(const RuleInput &In) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const agent::ProposalRequest &Req = In.Request;

  // The model with blockDim symbolic: the segment's size is a form in it.
  auto MX = an::analyzeKernel(Ctx, In.Kernel, an::AnalysisOptions{});
  if (!MX)
    return notApplicable(toString(MX.takeError()));
  an::KernelModel &M = *MX;
  an::AtomTable &Tab = M.atoms();
  const an::AtomId TidA = Tab.builtin("threadIdx", 'x'), BidA = Tab.builtin("blockIdx", 'x');
  const an::IndexForm Tid = an::IndexForm::atom(TidA);
  const an::IndexForm Bid = an::IndexForm::atom(BidA);

  BlockTree Tree;
  if (std::string Why = matchBlockTree(In, M, Body, Tree); !Why.empty())
    return notApplicable(Why);
  const an::Pattern &P = *Tree.P;
  const an::IndexForm &N = Tree.N;
  const Stmt *const Loop = Tree.Loop;
  auto LoopAt = Body->body_begin() + Tree.LoopIndex;
  std::string SD = Tree.Shared->getNameAsString();
  Match Mt;
  if (std::string Why = treeBlockSize(In, Tree, /*WholeWarps=*/true, Mt.Block); !Why.empty())
    return notApplicable(Why);
  const TreeStep &C = Tree.Step;

  // The element type: 4- or 8-byte arithmetic (what the shuffles move).
  QualType Decl = Tree.Shared->getType();
  if (Decl->isDependentType())
    return notApplicable("the element type of '" + SD + "' depends on a template parameter");
  Mt.Elem = QualType(Decl->getPointeeOrArrayElementType(), 0);
  if (!Mt.Elem->isArithmeticType() || Mt.Elem->isBooleanType() ||
      (Ctx.getTypeSize(Mt.Elem) != 32 && Ctx.getTypeSize(Mt.Elem) != 64))
    return notApplicable("the element type '" + Mt.Elem.getAsString() + "' of '" + SD +
                         "' is not a 4- or 8-byte arithmetic type");
  Mt.Float = Mt.Elem->isRealFloatingType();

  // After the tree: `if (tid == 0) <the output>` and nothing else.
  for (auto It = LoopAt + 1; It != Body->body_end(); ++It) {
    if (isa<NullStmt>(*It))
      continue;
    const auto *If = dyn_cast<IfStmt>(*It);
    if (Mt.Tail || !If || If->getElse() || If->getInit() || If->getConditionVariable())
      return notApplicable(formatv("the statement at line {0} after the tree is not 'if (tid == "
                                   "0) out[blockIdx.x] = {1}[0];' (the rewrite keeps only the "
                                   "block's output)",
                                   SM.getPresumedLineNumber((*It)->getBeginLoc()), SD)
                               .str());
    Mt.Tail = If;
  }
  if (!Mt.Tail)
    return notApplicable("nothing after the tree writes the block's result");

  // The model's global writes: one store at blockIdx.x, in the tail, by
  // thread 0; reads of the shared array: sdata[tid] before the tree,
  // sdata[0] in the tail.
  SourceLocation LoopBegin = Loop->getBeginLoc(), LoopEnd = Loop->getEndLoc();
  auto Before = [&](const an::Access &A) {
    return A.E && SM.isBeforeInTranslationUnit(A.E->getBeginLoc(), LoopBegin);
  };
  auto After = [&](const an::Access &A) {
    return A.E && SM.isBeforeInTranslationUnit(LoopEnd, A.E->getBeginLoc());
  };
  const an::Access *Out = nullptr;
  std::vector<const an::Access *> Loads;
  for (const an::Access &A : M.Accesses) {
    if (A.Space == an::MemorySpace::Shared) {
      if (A.Base != Tree.Shared)
        return notApplicable("the kernel uses another shared array ('" + A.Buffer + "', line " +
                             std::to_string(A.Loc.Line) + ")");
      if (Before(A) && A.Index != Tid)
        return notApplicable(formatv("'{0}' at line {1} reads or writes '{2}' before the tree "
                                     "at another element than threadIdx.x",
                                     A.Text, A.Loc.Line, SD)
                                 .str());
      if (After(A) && (A.writes() || A.Index.constantValue() != 0))
        return notApplicable(formatv("'{0}' at line {1} uses '{2}' after the tree other than "
                                     "by reading '{2}[0]'",
                                     A.Text, A.Loc.Line, SD)
                                 .str());
      continue;
    }
    if (A.writes()) {
      if (Out || !After(A) || A.Kind != an::AccessKind::Store)
        return notApplicable(formatv("the kernel writes '{0}' at line {1} besides the block's "
                                     "output (one store of thread 0 after the tree)",
                                     A.Text, A.Loc.Line)
                                 .str());
      Out = &A;
      continue;
    }
    if (After(A))
      return notApplicable(formatv("'{0}' at line {1} reads global memory after the tree",
                                   A.Text, A.Loc.Line)
                               .str());
    if (!Before(A))
      return notApplicable(formatv("'{0}' at line {1} reads global memory inside the tree",
                                   A.Text, A.Loc.Line)
                               .str());
    Loads.push_back(&A);
  }
  if (!Out)
    return notApplicable("the kernel writes no global output after the tree");
  if (Out->Index != Bid)
    return notApplicable(formatv("the output '{0}' is not at blockIdx.x (one output per "
                                 "block): its index is '{1}'",
                                 Out->Text, M.render(Out->Index))
                             .str());
  bool Thread0 = Out->G.Terms.size() == 1 && Out->G.Terms[0].Cmp &&
                 isZeroTest(*Out->G.Terms[0].Cmp, Tid);
  if (!Thread0)
    return notApplicable("the output '" + Out->Text + "' is not written by thread 0 alone "
                         "(guard '" + Out->G.render() + "')");

  // The segment: every load is at E * N * blockIdx.x + threadIdx.x + m * N
  // + U (0 <= m < E, every m, U the same uniform offset): block b reads E * N
  // contiguous elements, neighbouring threads neighbouring ones.
  if (Loads.empty())
    return notApplicable("the values stored before the tree load nothing from global memory");
  std::set<int64_t> Offsets;
  std::optional<an::IndexForm> Base;
  const an::Access *First = nullptr;
  int64_t E = 0;
  for (const an::Access *A : Loads) {
    if (!A->IndexKnown || A->Index.overflowed())
      return notApplicable("the load '" + A->Text + "' has an index the model cannot follow (" +
                           A->IndexWhy + ")");
    auto CT = A->Index.coefficientOf(TidA);
    auto CB = A->Index.coefficientOf(BidA);
    if (!A->Index.mentions(TidA) &&
        !A->Index.mentions(BidA))
      continue; // a uniform load (a scale factor)
    if (!CT || CT->constantValue() != 1 || A->Index.degreeIn(TidA) != 1)
      return notApplicable(formatv("the load '{0}' is not unit-stride in threadIdx.x (index "
                                   "'{1}'): the block's segment is not contiguous",
                                   A->Text, M.render(A->Index))
                               .str());
    std::optional<an::IndexForm> Per = CB ? CB->dividedExactly(N) : std::nullopt;
    auto PerC = Per ? Per->constantValue() : std::nullopt;
    if (!PerC || *PerC < 1 || A->Index.degreeIn(BidA) != 1)
      return notApplicable(formatv("the load '{0}' does not move by a multiple of the block's "
                                   "{1} elements from one block to the next (index '{2}'): "
                                   "the blocks do not read contiguous segments",
                                   A->Text, Tree.Size, M.render(A->Index))
                               .str());
    if (E && *PerC != E)
      return notApplicable("the loads before the tree move by different amounts from one block "
                           "to the next");
    E = *PerC;
    an::IndexForm Rest = A->Index - *CB * Bid - Tid;
    if (Tab.dependsOnKind(Rest, an::AtomKind::ThreadIdx) ||
        Tab.dependsOnKind(Rest, an::AtomKind::BlockIdx) ||
        Tab.dependsOnKind(Rest, an::AtomKind::GridDim) || !Tab.uniformity(Rest).atLeast(
                                                              an::Uniformity::GridUniform))
      return notApplicable(formatv("the load '{0}' has a part of its index that varies between "
                                   "threads or blocks otherwise ('{1}')",
                                   A->Text, M.render(Rest))
                               .str());
    if (!Base) {
      Base = Rest;
      First = A;
    }
    an::IndexForm D = Rest - *Base;
    auto Q = D.isZero() ? std::optional<an::IndexForm>(an::IndexForm())
                        : D.dividedExactly(N);
    auto QC = Q ? Q->constantValue() : std::nullopt;
    if (!QC)
      return notApplicable(formatv("the loads '{0}' and '{1}' are not a whole number of blocks "
                                   "apart: the block's segment is not contiguous",
                                   First->Text, A->Text)
                               .str());
    Offsets.insert(*QC);
    if (*QC < 0) { // a lower first load
      Base = Rest;
      First = A;
    }
  }
  if (!E)
    return notApplicable("no load before the tree depends on the thread and the block");
  int64_t Low = *Offsets.begin();
  for (int64_t O : Offsets)
    if (O - Low < 0 || O - Low >= E)
      return notApplicable("the loads before the tree reach beyond the block's segment");
  if (int64_t(Offsets.size()) != E)
    return notApplicable(formatv("the block's segment of {0} x {1} elements is not read whole "
                                 "(loads at {2} of its {0} parts): it is not contiguous",
                                 E, Tree.Size, Offsets.size())
                             .str());
  Mt.E = E;

  // The segments the original grid has: those below the bound of the first
  // load's guard (`i < n`), as many as the spec launches.
  bool Bounded = false;
  for (const an::GuardTerm &T : First->G.Terms) {
    auto BB = blockBoundOf(T, 'x', Tab);
    if (!BB || BB->A != N.scaled(E))
      continue;
    Mt.Bound = *BB;
    Bounded = true;
    break;
  }
  if (!Bounded)
    return notApplicable("no guard of the load '" + First->Text +
                         "' bounds the blocks ('i < n' with i = blockIdx.x * " +
                         (E > 1 ? std::to_string(E) + " * " : std::string()) + Tree.Size +
                         " + threadIdx.x): once the grid shrinks, the rewrite would not know "
                         "how many segments the original grid had");
  if (std::string Why = checkBlockCoverage(In, Tab, {Mt.Bound}); !Why.empty())
    return notApplicable(Why);
  std::string GridNote;
  if (const measure::LaunchSpec *Spec = Req.Spec) {
    measure::ValueMap Over(Req.Tunables.begin(), Req.Tunables.end());
    if (auto Env = Spec->environment(Over)) {
      auto G = Spec->geometry(*Env);
      auto NegU = evaluateForm(Mt.Bound.NegU, Tab, In, *Env);
      auto A = evaluateForm(Mt.Bound.A, Tab, In, *Env);
      if (G && NegU && A && *A > 0) {
        int64_t Blocks = *NegU > 0 ? (*NegU + *A - 1) / *A : 0;
        if (G->Grid[0] > Blocks)
          return notApplicable(formatv("the spec launches {0} blocks, more than the {1} that the "
                                       "guard '{2}' admits: the extra blocks write outputs the "
                                       "rewrite, which counts the segments from the guard, "
                                       "would not",
                                       G->Grid[0], Blocks, Mt.Bound.Term)
                                   .str());
        if (G->Grid[1] != 1 || G->Grid[2] != 1)
          return notApplicable("the spec's grid is not 1D");
      } else if (!G) {
        consumeError(G.takeError());
      }
    } else {
      consumeError(Env.takeError());
    }
  } else {
    GridNote = " No spec: the rule assumes the original grid has exactly the blocks the guard '" +
               Mt.Bound.Term + "' admits.";
  }

  // The statements before the tree: their builtins, their effects.
  EditCollector EC(In);
  std::vector<const Stmt *> Prefix;
  const Stmt *SharedDecl = nullptr;
  bool Stored = false;
  for (auto It = Body->body_begin(); It != LoopAt; ++It) {
    const Stmt *X = *It;
    if (isa<NullStmt>(X))
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(X);
        DS && DS->isSingleDecl() && DS->getSingleDecl() == Tree.Shared) {
      SharedDecl = X;
      continue;
    }
    if (isSyncStmt(X))
      continue;
    if (callsSyncthreads(X))
      return notApplicable(formatv("the statement at line {0} synchronises inside a branch",
                                   SM.getPresumedLineNumber(X->getBeginLoc()))
                               .str());
    if (!Stored && references(X, Tree.Shared)) {
      const auto *St = dyn_cast<BinaryOperator>(X);
      if (!St || St->getOpcode() != BO_Assign ||
          !isa<ArraySubscriptExpr>(St->getLHS()->IgnoreParenImpCasts()) ||
          references(St->getRHS(), Tree.Shared))
        return notApplicable(formatv("the first use of '{0}' (line {1}) is not a store of every "
                                     "thread's value ('{0}[tid] = e;')",
                                     SD, SM.getPresumedLineNumber(X->getBeginLoc()))
                                 .str());
      Stored = true;
    }
    struct Returns : DynamicRecursiveASTVisitor {
      bool Found = false;
      bool VisitReturnStmt(ReturnStmt *) override {
        Found = true;
        return false;
      }
    } Ret;
    Ret.TraverseStmt(const_cast<Stmt *>(X));
    if (Ret.Found)
      return notApplicable(formatv("the kernel returns early (line {0})",
                                   SM.getPresumedLineNumber(X->getBeginLoc()))
                               .str());
    std::string Eff = effectsOf(X, In.Kernel, Ctx, [&](const Expr *LV) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(LV->IgnoreParenImpCasts());
      return AS && asVar(AS->getBase()->IgnoreParenImpCasts()) == Tree.Shared;
    });
    if (!Eff.empty())
      return notApplicable("before the tree the kernel " + Eff);
    Prefix.push_back(X);
  }
  if (!Stored)
    return notApplicable("nothing stores every thread's value into '" + SD + "' before the tree");
  if (!SharedDecl)
    return notApplicable("'" + SD + "' is not declared in the kernel's body");

  // Texts: the value of one original thread, the output statement.
  std::set<std::string> Taken;
  std::string Lane = freshName("lane", In.Kernel, Taken);
  std::string Seg = freshName("seg", In.Kernel, Taken);
  std::string Segs = freshName("segments", In.Kernel, Taken);
  std::string Limit = freshName("seg_limit", In.Kernel, Taken);
  std::string Fn = freshName("thread_value", In.Kernel, Taken);
  std::string VT = freshName("vt", In.Kernel, Taken);
  std::string V = freshName("v", In.Kernel, Taken);
  std::string Acc = freshName("acc", In.Kernel, Taken);
  std::string PerLane = freshName("per_lane", In.Kernel, Taken);
  std::string K0 = freshName("k0", In.Kernel, Taken);
  std::string U = freshName("u", In.Kernel, Taken);
  std::string Vals = freshName("vals", In.Kernel, Taken);
  std::string Off = freshName("offset", In.Kernel, Taken);
  std::string PerBlock = freshName("per_block", In.Kernel, Taken);
  std::string J = freshName("j", In.Kernel, Taken);
  std::string VB = freshName("vb", In.Kernel, Taken);
  std::string Type = typeSpelling(Mt.Elem, Ctx);

  std::vector<std::string> ValueLines;
  auto Within = [&](SourceRange In, SourceRange Out) {
    return !SM.isBeforeInTranslationUnit(In.getBegin(), Out.getBegin()) &&
           !SM.isBeforeInTranslationUnit(Out.getEnd(), In.getEnd());
  };
  for (const Stmt *X : Prefix) {
    BuiltinUses BU = collectBuiltinUses(X, EC, &In.Kernel);
    std::vector<std::pair<SourceRange, std::string>> Repl;
    Subscripts Sub;
    Sub.V = Tree.Shared;
    Sub.TraverseStmt(const_cast<Stmt *>(X));
    for (const ArraySubscriptExpr *A : Sub.Out)
      Repl.push_back({A->getSourceRange(), V});
    for (const BuiltinUse &B : BU.Uses) {
      if (B.Var == "blockDim" && B.Dim == 'x')
        continue;
      if (any_of(Sub.Out, [&](const ArraySubscriptExpr *A) {
            return Within(B.E->getSourceRange(), A->getSourceRange());
          }))
        continue;
      if (!B.Range)
        return notApplicable("'" + B.Var.str() + "." + B.Dim +
                             "' is read in a macro or a called function before the tree");
      if (B.Var == "threadIdx" && B.Dim == 'x')
        Repl.push_back({B.E->getSourceRange(), VT});
      else if (B.Var == "blockIdx" && B.Dim == 'x')
        Repl.push_back({B.E->getSourceRange(), Seg});
      else
        return notApplicable("the values before the tree read '" + B.Var.str() + "." + B.Dim +
                             "' (the rewrite keeps threadIdx.x, blockIdx.x and blockDim.x)");
    }
    if (BU.wholeVariable())
      return notApplicable("the kernel reads a builtin variable as a whole before the tree");
    auto Text = textWithReplacements(X, Ctx, Repl);
    if (!Text)
      return notApplicable(formatv("the statement at line {0} is written inside a macro",
                                   SM.getPresumedLineNumber(X->getBeginLoc()))
                               .str());
    std::string T = *Text;
    if (auto R = EC.rangeOfStatement(X); R && !StringRef(T).rtrim().ends_with(";") &&
                                         !StringRef(T).rtrim().ends_with("}"))
      T += ";";
    ValueLines.push_back(T);
  }
  // The output statement: sdata[0] is the accumulator, blockIdx.x the
  // segment; it may not read the thread or the locals of the values.
  std::vector<std::pair<SourceRange, std::string>> TailRepl;
  {
    Subscripts Sub;
    Sub.V = Tree.Shared;
    Sub.TraverseStmt(const_cast<Stmt *>(Mt.Tail->getThen()));
    for (const ArraySubscriptExpr *A : Sub.Out)
      TailRepl.push_back({A->getSourceRange(), Acc});
    BuiltinUses BU = collectBuiltinUses(Mt.Tail->getThen(), EC, &In.Kernel);
    for (const BuiltinUse &B : BU.Uses) {
      if (B.Var == "blockDim" || any_of(Sub.Out, [&](const ArraySubscriptExpr *A) {
            return Within(B.E->getSourceRange(), A->getSourceRange());
          }))
        continue;
      if (B.Var != "blockIdx" || B.Dim != 'x' || !B.Range)
        return notApplicable("the output statement reads '" + B.Var.str() + "." + B.Dim +
                             "' (the rewrite knows its blockIdx.x only)");
      TailRepl.push_back({B.E->getSourceRange(), Seg});
    }
    struct Locals : DynamicRecursiveASTVisitor {
      const FunctionDecl *K = nullptr;
      std::string Found;
      bool VisitDeclRefExpr(DeclRefExpr *D) override {
        const auto *Var = dyn_cast<VarDecl>(D->getDecl());
        if (Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) && Found.empty())
          Found = Var->getNameAsString();
        return true;
      }
    } Loc;
    Loc.TraverseStmt(const_cast<Stmt *>(Mt.Tail->getThen()));
    if (!Loc.Found.empty())
      return notApplicable("the output statement reads the local '" + Loc.Found +
                           "', which the rewrite does not compute per segment");
  }
  auto TailText = textWithReplacements(Mt.Tail->getThen(), Ctx, TailRepl);
  if (!TailText)
    return notApplicable("the output statement is written inside a macro");
  std::string Tail = *TailText;
  if (auto TR = EC.rangeOf(Mt.Tail->getThen()->getSourceRange());
      TR && pastSemicolon(In.Source, TR->second) != TR->second)
    Tail += ";";

  // The fallback: the original body for the original blocks this block
  // stands for, blockIdx.x replaced.
  auto BR = EC.rangeOf(Body->getSourceRange());
  if (!BR)
    return notApplicable("the kernel's body is not plain text of the main file");
  std::vector<std::pair<SourceRange, std::string>> BodyRepl;
  {
    BuiltinUses BU = collectBuiltinUses(Body, EC, &In.Kernel);
    for (const BuiltinUse &B : BU.Uses) {
      if (B.Var == "gridDim")
        return notApplicable("the kernel reads gridDim." + std::string(1, B.Dim) +
                             ", which the rewrite's smaller grid changes");
      if (B.Var == "blockIdx" && B.Dim != 'x')
        return notApplicable("the kernel reads blockIdx." + std::string(1, B.Dim) +
                             "; the rewrite takes a 1D grid");
      if (B.Var == "blockIdx" && !B.Range)
        return notApplicable("blockIdx.x is read in a macro or a called function");
      if (B.Var == "blockIdx")
        BodyRepl.push_back({B.E->getSourceRange(), VB});
    }
  }
  auto OrigText = textWithReplacements(Body, Ctx, BodyRepl);
  if (!OrigText)
    return notApplicable("a statement of the kernel is written inside a macro");

  std::string Ind = lineIndent(In.Source, *EC.offsetOf(Body->body_front()->getBeginLoc())).str();
  if (Ind.empty())
    Ind = "  ";
  std::string SegSize = E > 1 ? std::to_string(E) + " * " + Tree.Size : Tree.Size;
  std::string SegSizeLL = "(long long)" + (E > 1 ? "(" + SegSize + ")" : Tree.Size);
  std::string Accept = "blockDim.x % 32 != 0 || (blockDim.x & (blockDim.x - 1)) != 0 || "
                       "blockDim.y != 1 || blockDim.z != 1";
  if (!Tree.SizeIsBlockDim)
    Accept += " || blockDim.x != " + Tree.Size;
  auto Combine = [&](const std::string &Other) {
    if (C.K == TreeStep::Binary && !C.Swapped)
      return Acc + " " + C.Op + "= " + Other + ";";
    return Acc + " = " + C.text(Acc, Other) + ";";
  };

  std::vector<std::string> H;
  H.push_back("// segment-reduction: each warp reduces the segment of one block of the original");
  H.push_back("// launch (" + SegSize + " consecutive elements): lane l takes the values of the");
  H.push_back("// original threads l, l + 32, ..., several loads in flight before they are");
  H.push_back("// combined, then the lanes combine with shuffles and lane 0 writes the output.");
  H.push_back("// A block covers blockDim.x / 32 segments: the grid is blockDim.x / 32 times "
              "smaller.");
  H.push_back("// The segments of the original grid: those the guard '" + Mt.Bound.Term +
              "' admits.");
  H.push_back("const long long " + Limit + " = " + Mt.Bound.NegUText + ";");
  H.push_back("const long long " + Segs + " = " + Limit + " > 0 ? (" + Limit + " + " + SegSizeLL +
              " - 1) / " + SegSizeLL + " : 0;");
  H.push_back("if (" + Accept + ") {");
  H.push_back("  // A block shape the rewrite does not take: the original code, for the");
  H.push_back("  // original blocks this block stands for.");
  H.push_back("  const unsigned int " + PerBlock + " = blockDim.x >= 32 ? blockDim.x / 32 : 1;");
  H.push_back("  for (unsigned int " + J + " = 0; " + J + " < " + PerBlock + "; ++" + J + ") {");
  H.push_back("    const unsigned int " + VB + " = blockIdx.x * " + PerBlock + " + " + J + ";");
  H.push_back("    if ((long long)" + VB + " >= " + Segs + ")");
  H.push_back("      break;");
  H.push_back("    " + indentFollowingLines(*OrigText, "      "));
  H.push_back("    __syncthreads();");
  H.push_back("  }");
  H.push_back("  return;");
  H.push_back("}");
  H.push_back("const unsigned int " + Lane + " = threadIdx.x % 32;");
  H.push_back("const unsigned int " + Seg + " = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;");
  H.push_back("if ((long long)" + Seg + " >= " + Segs + ")");
  H.push_back("  return; // the whole warp: no segment left");
  H.push_back("// The value original thread " + VT + " of block " + Seg + " stored into " + SD +
              "[" + VT + "].");
  H.push_back("auto " + Fn + " = [&](unsigned int " + VT + ") -> " + Type + " {");
  H.push_back("  " + Type + " " + V + ";");
  for (const std::string &X : ValueLines)
    H.push_back("  " + indentFollowingLines(X, "  "));
  H.push_back("  return " + V + ";");
  H.push_back("};");
  H.push_back("const unsigned int " + PerLane + " = " +
              (Tree.SizeIsBlockDim ? std::string("blockDim.x") : Tree.Size) + " / 32;");
  H.push_back(Type + " " + Acc + " = " + Fn + "(" + Lane + ");");
  H.push_back("for (unsigned int " + K0 + " = 1; " + K0 + " < " + PerLane + "; " + K0 +
              " += 8) {");
  H.push_back("  " + Type + " " + Vals + "[8];");
  H.push_back("#pragma unroll");
  H.push_back("  for (unsigned int " + U + " = 0; " + U + " < 8; ++" + U + ")");
  H.push_back("    if (" + K0 + " + " + U + " < " + PerLane + ")");
  H.push_back("      " + Vals + "[" + U + "] = " + Fn + "(" + Lane + " + 32 * (" + K0 + " + " + U +
              "));");
  H.push_back("#pragma unroll");
  H.push_back("  for (unsigned int " + U + " = 0; " + U + " < 8; ++" + U + ")");
  H.push_back("    if (" + K0 + " + " + U + " < " + PerLane + ")");
  H.push_back("      " + Combine(Vals + "[" + U + "]"));
  H.push_back("}");
  std::string Shfl = "__shfl_down_sync(0xffffffffu, " + Acc + ", " + Off + ")";
  H.push_back("for (int " + Off + " = 16; " + Off + " > 0; " + Off + " >>= 1)" +
              (C.K == TreeStep::Select ? " {" : ""));
  if (C.K == TreeStep::Select) {
    std::string O = freshName("other", In.Kernel, Taken);
    H.push_back("  const " + Type + " " + O + " = " + Shfl + ";");
    H.push_back("  " + Combine(O));
    H.push_back("}");
  } else {
    H.push_back("  " + Combine(Shfl));
  }
  H.push_back("if (" + Lane + " == 0)");
  H.push_back("  " + indentFollowingLines(Tail, "  "));

  std::string NewBody = "\n" + Ind + indentLines(H, Ind) + "\n";
  unsigned Begin = BR->first + 1, End = BR->second - 1;
  std::vector<SourceEdit> Edits = {{Begin, End - Begin, NewBody}};

  // The launch: blockDim.x / 32 times fewer blocks.
  std::string BlockX;
  if (auto BX = Req.Geometry.find("block.x"); BX != Req.Geometry.end() && !BX->second.empty())
    BlockX = BX->second;
  if (BlockX.empty())
    BlockX = std::to_string(Mt.Block);
  std::optional<agent::SpecChange> Spec;
  if (auto G = Req.Geometry.find("grid.x"); G != Req.Geometry.end() && !G->second.empty()) {
    std::string Expr = "ceil_div(" + G->second + ", (" + BlockX + ") / 32)";
    if (auto Parsed = measure::IntExpr::parse(Expr)) {
      agent::SpecChange SC;
      SC.Geometry["grid.x"] = Expr;
      bool Tunable = !all_of(BlockX, [](char Ch) { return isDigit(Ch); });
      if (Tunable)
        SC.NewConstraints.push_back("(" + BlockX + ") % 32 == 0");
      SC.Justification =
          "each warp of the rewritten kernel reduces the segment of one block of the original "
          "launch, so a block of blockDim.x threads covers blockDim.x / 32 of them and grid.x "
          "shrinks by that factor (the segments past the guard's are skipped on the device)";
      if (Tunable)
        SC.Justification += "; blockDim.x must be a multiple of 32 (a constraint)";
      Spec = std::move(SC);
    } else {
      consumeError(Parsed.takeError());
    }
  }

  int64_t Per = Mt.Block / 32;
  std::string Rationale = formatv(
      "A block tree reduction ({0}) over '{1}' at line {2}: each block reduces {3} contiguous "
      "elements ({4} per thread) into out[blockIdx.x], with one load per element and thread "
      "in flight and log2 of the block shared-memory rounds. Now each warp reduces a whole "
      "segment: lane l takes the values of the original threads l, l + 32, ... ({5} per lane "
      "with blocks of {6}, {7} loads, several issued before they are combined, coalesced), the "
      "lanes combine with __shfl_down_sync, and lane 0 writes the segment's output; no shared "
      "memory and no __syncthreads() remain. A block of {6} threads covers {8} segments.",
      Tree.Shape, SD, P.Loc.Line, SegSize, E, Per, Mt.Block, Per * E, Per)
                              .str();
  if (Mt.Float && !C.Idempotent)
    Rationale += " The floating-point operations are re-associated (each lane combines its "
                 "values in order, then the lanes pairwise): results differ from the tree's in "
                 "the last bits, which the spec's tolerance judges; integer results, min and "
                 "max are exact.";
  Rationale += " The launch needs blockDim.x / 32 times fewer blocks along x; a block that is "
               "not a power-of-two number of whole warps or not 1D runs the original code for "
               "the blocks it stands for (checked on the device).";
  Rationale += GridNote;
  if (!Spec)
    Rationale += formatv(" No spec geometry is known: launch it with ceil_div(<the original "
                         "grid>, blockDim.x / 32) blocks ({0} times fewer with blocks of {1}).",
                         Per, Mt.Block)
                     .str();
  std::string Summary = formatv("each warp reduces one block's segment of {0} elements of the "
                                "tree over '{1}' (grid {2}x smaller)",
                                SegSize, SD, Per)
                            .str();
  return proposeEdits(In, name(), Summary, Rationale, Edits, std::move(Spec));
}

} // namespace

std::unique_ptr<ExpertRule> createSegmentReductionRule() {
  return std::make_unique<SegmentReductionRule>();
}

} // namespace forge::passes
