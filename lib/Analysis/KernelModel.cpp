//===- Analysis/KernelModel.cpp - The semantic model of one kernel --------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "forge/Support/Error.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

//===----------------------------------------------------------------------===//
// KernelAnalyzer: shared services and the order of the analyses
//===----------------------------------------------------------------------===//

KernelAnalyzer::KernelAnalyzer(ASTContext &Ctx, const FunctionDecl &Kernel,
                               const AnalysisOptions &Opts, std::shared_ptr<AtomTable> Table)
    : Ctx(Ctx), Kernel(Kernel), Body(Kernel.getBody()), Opts(Opts), Table(std::move(Table)) {}

const Stmt *KernelAnalyzer::parentOf(const Stmt *S) const {
  return S && Parents ? Parents->getParent(S) : nullptr;
}

bool KernelAnalyzer::inside(const Stmt *S, const Stmt *Outer) const {
  for (const Stmt *P = S; P; P = parentOf(P))
    if (P == Outer)
      return true;
  return false;
}

int KernelAnalyzer::loopAround(const Stmt *S) const {
  for (const Stmt *P = parentOf(S); P; P = parentOf(P)) {
    auto It = LoopIds.find(P);
    if (It != LoopIds.end())
      return int(It->second);
  }
  return -1;
}

std::vector<unsigned> KernelAnalyzer::loopsAround(const Stmt *S) const {
  std::vector<unsigned> Out;
  for (int L = loopAround(S); L >= 0; L = Loops[L].Parent)
    Out.push_back(unsigned(L));
  std::reverse(Out.begin(), Out.end());
  return Out;
}

SourceSpan KernelAnalyzer::span(const Stmt *S) const {
  return S ? SourceSpan::of(Ctx, S->getSourceRange()) : SourceSpan();
}

std::string KernelAnalyzer::text(const Stmt *S) const { return textOf(S, Ctx); }

void KernelAnalyzer::run(KernelModel &M) {
  Parents = std::make_unique<ParentMap>(const_cast<Stmt *>(Body));
  findLoops();
  Tracker = std::make_unique<ValueTracker>(Ctx, Kernel, LoopSyn, LoopIds);
  Tracker->run(Body);
  if (Tracker->sawGoto())
    Notes.push_back({span(Body), "the kernel uses goto: values assigned across it are not "
                                 "followed"});
  findWrittenBases();
  computeUniformity();
  finishLoops();
  collectAccesses(M);
  classifyAccesses(M);
  M.Loops = Loops;
  findFootprints(M);
  findReductions(M);
  findPatterns(M);

  // What could not be analysed, in source order.
  std::vector<Note> Out = Notes;
  for (const Loop &L : M.Loops)
    if (!L.Why.empty())
      Out.push_back({L.Loc, "loop: " + L.Why});
  for (const Access &A : M.Accesses) {
    if (!A.IndexKnown)
      Out.push_back({A.Loc, "'" + A.Text + "': " + A.IndexWhy});
    else if (A.Warp.Class == AccessClass::Unknown)
      Out.push_back({A.Loc, "'" + A.Text + "': warp class unknown: " + A.Warp.Reason});
  }
  llvm::stable_sort(Out, [](const Note &A, const Note &B) { return A.Loc.Line < B.Loc.Line; });
  M.Notes = std::move(Out);
}

//===----------------------------------------------------------------------===//
// KernelModel
//===----------------------------------------------------------------------===//

KernelModel::KernelModel() : Table(std::make_shared<AtomTable>()) {}
KernelModel::~KernelModel() = default;
KernelModel::KernelModel(KernelModel &&) = default;
KernelModel &KernelModel::operator=(KernelModel &&) = default;

std::vector<const Access *> KernelModel::accessesTo(const ValueDecl *Base) const {
  std::vector<const Access *> Out;
  for (const Access &A : Accesses)
    if (Base && A.Base == Base)
      Out.push_back(&A);
  return Out;
}

std::vector<const Access *> KernelModel::accessesTo(StringRef Buffer) const {
  std::vector<const Access *> Out;
  for (const Access &A : Accesses)
    if (A.Buffer == Buffer)
      Out.push_back(&A);
  return Out;
}

std::vector<const Access *> KernelModel::accessesIn(const Loop &L) const {
  std::vector<const Access *> Out;
  for (const Access &A : Accesses)
    if (llvm::is_contained(A.Loops, L.Id))
      Out.push_back(&A);
  return Out;
}

const Access *KernelModel::accessAt(const Expr *E) const {
  for (const Access &A : Accesses)
    if (E && A.E == E)
      return &A;
  return nullptr;
}

Slope KernelModel::slopeAlong(const Access &A, StringRef Builtin, char Dim) const {
  auto Id = Table->findBuiltin(Builtin, Dim);
  if (!Id) {
    Slope S;
    S.Step = IndexForm();
    return S;
  }
  return Table->slope(A.Index, *Id);
}

Slope KernelModel::slopeAlongLoop(const Access &A, const Loop &L) const {
  if (!L.hasInductionVariable()) {
    Slope S;
    S.Why = "the loop at line " + std::to_string(L.Loc.Line) + " has no induction variable";
    return S;
  }
  return Table->slope(A.Index, L.IterAtom);
}

std::vector<const Pattern *> KernelModel::patterns(PatternKind K) const {
  std::vector<const Pattern *> Out;
  for (const Pattern &P : Patterns)
    if (P.Kind == K)
      Out.push_back(&P);
  return Out;
}

const Reduction *KernelModel::reductionOf(const VarDecl *Acc) const {
  for (const Reduction &R : Reductions)
    if (Acc && R.Acc == Acc)
      return &R;
  return nullptr;
}

const Loop *KernelModel::loopOf(const VarDecl *V) const {
  for (const Loop &L : Loops)
    if (V && L.IV == V)
      return &L;
  return nullptr;
}

const Loop *KernelModel::enclosingLoop(const Stmt *S) const {
  if (!Engine)
    return nullptr;
  int L = Engine->loopAround(S);
  return L < 0 ? nullptr : &Loops[L];
}

UniformityInfo KernelModel::uniformity(const Expr *E) const {
  if (!Engine)
    return makeUniformity(Uniformity::ThreadVarying, "the model was detached from its AST");
  return Engine->uniformityOf(E);
}

bool KernelModel::isUniform(const Expr *E, Uniformity At) const {
  return uniformity(E).atLeast(At);
}

Guard KernelModel::guardOf(const Stmt *S) const {
  if (!Engine)
    return Guard();
  return Engine->guardOf(S);
}

IndexForm KernelModel::formOf(const Expr *E) {
  if (!Engine)
    return IndexForm::atom(Table->unknown(UnknownKind::Opaque, "?",
                                          "the model was detached from its AST", 0,
                                          makeUniformity(Uniformity::ThreadVarying), E));
  return Engine->formOf(E);
}

void KernelModel::detach() {
  Engine.reset();
  Table->detach();
  for (Loop &L : Loops) {
    L.S = nullptr;
    L.IV = nullptr;
  }
  for (Access &A : Accesses) {
    A.E = nullptr;
    A.Base = nullptr;
    for (GuardTerm &T : A.G.Terms)
      T.Cond = nullptr;
  }
  for (Reduction &R : Reductions)
    R.Acc = nullptr;
}

Expected<KernelModel> analyzeKernel(ASTContext &Ctx, const FunctionDecl &Kernel,
                                    const AnalysisOptions &Opts) {
  if (!Kernel.doesThisDeclarationHaveABody() || !Kernel.getBody())
    return makeError("kernel '{0}' has no body to analyse", Kernel.getQualifiedNameAsString());
  KernelModel M;
  M.Name = Kernel.getNameAsString();
  M.QualifiedName = Kernel.getQualifiedNameAsString();
  M.Loc = SourceSpan::of(Ctx, Kernel.getSourceRange());
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Kernel.getLocation()));
  if (P.isValid())
    M.File = P.getFilename();
  M.IsTemplate =
      Kernel.getDescribedFunctionTemplate() != nullptr || Kernel.isTemplateInstantiation();
  M.Options = Opts;
  M.Table = std::make_shared<AtomTable>(Opts.Block);
  auto Engine = std::make_shared<KernelAnalyzer>(Ctx, Kernel, Opts, M.Table);
  Engine->run(M);
  M.Engine = std::move(Engine);
  M.Shape = inferProblemShape(M);
  return M;
}

} // namespace forge::analysis
