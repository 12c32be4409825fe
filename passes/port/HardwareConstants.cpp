//===- HardwareConstants.cpp - hardware-constants -------------------------===//
#include "HardwareConstants.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/Matchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

namespace {
struct Constant {
  int64_t Value;
  const char *What;
  const char *Query;
};
/// SM counts: flagged only where they size a grid (small numbers are common).
const Constant SmCounts[] = {
    {108, "the SM count of an A100", "cudaDevAttrMultiProcessorCount"},
    {132, "the SM count of an H100/H200", "cudaDevAttrMultiProcessorCount"},
    {148, "the SM count of a B200", "cudaDevAttrMultiProcessorCount"},
};
/// Sizes distinctive enough to flag anywhere in host code.
const Constant Sizes[] = {
    {41943040, "the L2 size of an A100 (40 MB)", "cudaDevAttrL2CacheSize"},
    {52428800, "the L2 size of an H100 (50 MB)", "cudaDevAttrL2CacheSize"},
    {62914560, "the L2 size of an H200 (60 MB)", "cudaDevAttrL2CacheSize"},
    {167936, "the shared memory per SM of an A100 (164 KB)",
     "cudaDevAttrMaxSharedMemoryPerMultiprocessor"},
    {233472, "the shared memory per SM of an H100/H200/B200 (228 KB)",
     "cudaDevAttrMaxSharedMemoryPerMultiprocessor"},
    {166912, "the opt-in shared memory per block of an A100 (163 KB)",
     "cudaDevAttrMaxSharedMemoryPerBlockOptin"},
    {232448, "the opt-in shared memory per block of an H100/H200/B200 (227 KB)",
     "cudaDevAttrMaxSharedMemoryPerBlockOptin"},
};

const Constant *find(ArrayRef<Constant> Table, int64_t V) {
  for (const Constant &C : Table)
    if (C.Value == V)
      return &C;
  return nullptr;
}
} // namespace

void HardwareConstants::registerMatchers(MatchFinder &Finder) {
  Finder.addMatcher(frontend::matchers::chevronLaunch(), this);
  Finder.addMatcher(frontend::matchers::runtimeLaunch(), this);
  // A whole constant expression, not its parts: 60 * 1024 * 1024 once.
  // Main file only: walking every literal of CUB's headers costs seconds.
  Finder.addMatcher(expr(isExpansionInMainFile(), anyOf(integerLiteral(), binaryOperator()),
                         unless(hasParent(binaryOperator())),
                         unless(hasParent(parenExpr(hasParent(binaryOperator())))))
                        .bind("const"),
                    this);
}

void HardwareConstants::checkGrid(const Expr *Grid, PassContext &C, int Depth) {
  if (!Grid || Depth > 3)
    return;
  struct Walker : DynamicRecursiveASTVisitor {
    HardwareConstants *Self;
    PassContext *C;
    int Depth;
    bool VisitIntegerLiteral(IntegerLiteral *L) override {
      const Constant *K = find(SmCounts, L->getValue().getSExtValue());
      SourceManager &SM = C->Ctx.getSourceManager();
      if (!K || !frontend::isUserLocation(SM, L->getBeginLoc()))
        return true;
      if (!Self->Reported.insert(SM.getFileLoc(L->getBeginLoc()).getRawEncoding()).second)
        return true;
      C->Diag.report(Self->name(), Severity::Warning, L->getBeginLoc(),
                     ("grid size built from the literal " + Twine(K->Value) + ", " + K->What +
                      "; query " + K->Query + " instead")
                         .str(),
                     {},
                     {{L->getBeginLoc(),
                       std::string("int sms = 0; cudaDeviceGetAttribute(&sms, ") + K->Query +
                           ", device); then size the grid from 'sms'"}});
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) override {
      if (const auto *VD = dyn_cast<VarDecl>(E->getDecl()))
        if (VD->hasInit() && !isa<ParmVarDecl>(VD))
          Self->checkGrid(VD->getInit(), *C, Depth + 1);
      return true;
    }
  } W;
  W.Self = this;
  W.C = &C;
  W.Depth = Depth;
  W.TraverseStmt(const_cast<Expr *>(Grid));
}

void HardwareConstants::check(const MatchFinder::MatchResult &R, PassContext &C) {
  SourceManager &SM = *R.SourceManager;
  if (const auto *L = R.Nodes.getNodeAs<CUDAKernelCallExpr>("launch")) {
    if (const CallExpr *Cfg = L->getConfig())
      if (Cfg->getNumArgs() > 0)
        checkGrid(Cfg->getArg(0), C, 0);
    return;
  }
  if (const auto *Call = R.Nodes.getNodeAs<CallExpr>("launch")) {
    // cudaLaunchKernel(func, grid, ...) and cudaLaunchCooperativeKernel.
    if (Call->getNumArgs() > 1)
      checkGrid(Call->getArg(1), C, 0);
    return;
  }
  const auto *E = R.Nodes.getNodeAs<Expr>("const");
  if (!E || E->isValueDependent() || !E->getType()->isIntegerType() ||
      !frontend::isUserLocation(SM, E->getBeginLoc()))
    return;
  Expr::EvalResult V;
  if (!E->EvaluateAsInt(V, C.Ctx))
    return;
  const Constant *K = find(Sizes, V.Val.getInt().getSExtValue());
  if (!K || !Reported.insert(SM.getFileLoc(E->getBeginLoc()).getRawEncoding()).second)
    return;
  C.Diag.report(name(), Severity::Warning, E->getBeginLoc(),
                ("hard-coded " + Twine(K->Value) + " is " + K->What + "; query " + K->Query +
                 " with cudaDeviceGetAttribute instead")
                    .str());
}

} // namespace forge::passes
