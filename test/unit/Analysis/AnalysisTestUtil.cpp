//===- AnalysisTestUtil.cpp -----------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "forge/Config.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FileSystem.h"

using namespace clang;

namespace forge::analysis::test {

namespace {
class KernelByName : public DynamicRecursiveASTVisitor {
public:
  explicit KernelByName(llvm::StringRef Name) : Name(Name) {}
  const FunctionDecl *Found = nullptr;
  bool VisitFunctionDecl(FunctionDecl *FD) override {
    if (!Found && FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
        !FD->isTemplateInstantiation() && FD->getName() == Name)
      Found = FD;
    return true;
  }

private:
  llvm::StringRef Name;
};

class ExprByText : public DynamicRecursiveASTVisitor {
public:
  ExprByText(ASTContext &Ctx, llvm::StringRef Text, bool Last) : Ctx(Ctx), Text(Text), Last(Last) {}
  const Expr *Found = nullptr;
  bool VisitExpr(Expr *E) override {
    if (Found && !Last)
      return false;
    const SourceManager &SM = Ctx.getSourceManager();
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM, Ctx.getLangOpts());
    if (R.isValid() && Lexer::getSourceText(R, SM, Ctx.getLangOpts()) == Text)
      Found = E;
    return true;
  }

private:
  ASTContext &Ctx;
  llvm::StringRef Text;
  bool Last;
};
} // namespace

void withModel(const std::string &Code, llvm::StringRef Kernel, const AnalysisOptions &Opts,
               llvm::function_ref<void(KernelModel &, ASTContext &, const FunctionDecl &)> Fn,
               bool RealCuda) {
  frontend::Toolchain TC;
  TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
  frontend::ParseOptions PO;
  if (RealCuda)
    TC.CudaPath = FORGE_DEFAULT_CUDA_PATH;
  else
    PO.ExtraArgs = {"-nocudainc", "-nocudalib",    "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                    "-include",   "cuda_runtime.h"};
  frontend::ParseRequest Req;
  Req.File = "/tmp/forge-analysis-test.cu";
  Req.S = frontend::Side::Device;
  Req.Contents = Code;
  frontend::ParseDiagnostics Diags(&llvm::errs());
  bool Found = false;
  llvm::Error E = frontend::parseCuda(
      TC, PO, Req, Diags,
      [&](ASTContext &Ctx, CompilerInstance &, const frontend::PreprocessorFacts &) {
        KernelByName F(Kernel);
        F.TraverseDecl(Ctx.getTranslationUnitDecl());
        if (!F.Found)
          return;
        Found = true;
        auto M = analyzeKernel(Ctx, *F.Found, Opts);
        if (!M) {
          ADD_FAILURE() << llvm::toString(M.takeError());
          return;
        }
        Fn(*M, Ctx, *F.Found);
      });
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  EXPECT_EQ(Diags.errors(), 0u) << "parse errors in the test kernel";
  EXPECT_TRUE(Found) << "no kernel '" << Kernel.str() << "'";
}

KernelModel analyze(const std::string &Code, llvm::StringRef Kernel, const AnalysisOptions &Opts) {
  KernelModel Out;
  withModel(Code, Kernel, Opts, [&](KernelModel &M, ASTContext &, const FunctionDecl &) {
    M.detach();
    Out = std::move(M);
  });
  return Out;
}

const Access &access(const KernelModel &M, llvm::StringRef Text) {
  for (const Access &A : M.Accesses)
    if (A.Text == Text)
      return A;
  static Access None;
  std::string Have;
  for (const Access &A : M.Accesses)
    Have += " '" + A.Text + "'";
  ADD_FAILURE() << "no access '" << Text.str() << "'; have:" << Have;
  return None;
}

const Access &access(const KernelModel &M, llvm::StringRef Text, AccessKind Kind) {
  for (const Access &A : M.Accesses)
    if (A.Text == Text && A.Kind == Kind)
      return A;
  static Access None;
  ADD_FAILURE() << "no " << accessKindName(Kind).str() << " '" << Text.str() << "'";
  return None;
}

const Pattern *pattern(const KernelModel &M, PatternKind K) {
  for (const Pattern &P : M.Patterns)
    if (P.Kind == K)
      return &P;
  return nullptr;
}

const Expr *findExpr(ASTContext &Ctx, const FunctionDecl &K, llvm::StringRef Text, bool Last) {
  ExprByText F(Ctx, Text, Last);
  F.TraverseStmt(K.getBody());
  EXPECT_NE(F.Found, nullptr) << "no expression '" << Text.str() << "'";
  return F.Found;
}

std::string stride(const KernelModel &M, const Access &A) {
  return A.Warp.Stride ? M.render(*A.Warp.Stride) : "?";
}

AnalysisOptions block(int64_t X, int64_t Y, int64_t Z) {
  AnalysisOptions O;
  O.Block = std::array<int64_t, 3>{{X, Y, Z}};
  return O;
}

} // namespace forge::analysis::test
