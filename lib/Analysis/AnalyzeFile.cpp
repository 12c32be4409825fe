//===- Analysis/AnalyzeFile.cpp - The model of every kernel of a file -----===//
#include "forge/Analysis/AnalyzeFile.h"
#include "forge/Analysis/ModelRender.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

namespace {
/// The __global__ definitions of the user's code: plain functions and
/// template patterns, never instantiations.
class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  explicit KernelFinder(const SourceManager &SM) : SM(SM) {}
  std::vector<const FunctionDecl *> Kernels;
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
        !FD->isTemplateInstantiation() && frontend::isUserLocation(SM, FD->getLocation()))
      Kernels.push_back(FD);
    return true;
  }

private:
  const SourceManager &SM;
};

bool inMainFile(const SourceManager &SM, const FunctionDecl *K) {
  return SM.isWrittenInMainFile(SM.getExpansionLoc(K->getLocation()));
}
} // namespace

Expected<AnalyzeResult> analyzeFile(const frontend::Toolchain &TC,
                                    const frontend::ParseOptions &Parse, StringRef File,
                                    StringRef Kernel, const AnalysisOptions &Opts,
                                    frontend::ParseDiagnostics &Diags) {
  if (Error E = frontend::checkCudaInput(File))
    return std::move(E);
  AnalyzeResult R;
  R.File = File.str();
  frontend::ParseRequest PR;
  PR.File = File.str();
  PR.S = frontend::Side::Device;
  Error Failure = Error::success();
  Error E = frontend::parseCuda(
      TC, Parse, PR, Diags,
      [&](ASTContext &Ctx, CompilerInstance &, const frontend::PreprocessorFacts &) {
        const SourceManager &SM = Ctx.getSourceManager();
        KernelFinder F(SM);
        F.TraverseDecl(Ctx.getTranslationUnitDecl());
        std::vector<const FunctionDecl *> Chosen;
        if (Kernel.empty()) {
          for (const FunctionDecl *K : F.Kernels)
            if (inMainFile(SM, K))
              Chosen.push_back(K);
        } else {
          for (const FunctionDecl *K : F.Kernels)
            if (K->getQualifiedNameAsString() == Kernel)
              Chosen.push_back(K);
          if (Chosen.empty())
            for (const FunctionDecl *K : F.Kernels)
              if (K->getName() == Kernel)
                Chosen.push_back(K);
          std::vector<std::string> Names;
          for (const FunctionDecl *K : F.Kernels)
            if (inMainFile(SM, K))
              Names.push_back(K->getQualifiedNameAsString());
          if (Chosen.size() > 1) {
            Failure = makeError("kernel name '{0}' is ambiguous in {1}; use the qualified "
                                "name: {2}",
                                Kernel, File, join(Names, ", "));
            return;
          }
          if (Chosen.empty()) {
            Failure =
                makeError("kernel '{0}' is not defined in {1}; kernels defined there: {2}", Kernel,
                          File, Names.empty() ? std::string("none") : join(Names, ", "));
            return;
          }
        }
        for (const FunctionDecl *K : Chosen) {
          auto M = analyzeKernel(Ctx, *K, Opts);
          if (!M) {
            Failure = M.takeError();
            return;
          }
          M->detach();
          R.Kernels.push_back(std::move(*M));
        }
      });
  if (E) {
    consumeError(std::move(Failure));
    return std::move(E);
  }
  if (Failure)
    return std::move(Failure);
  R.ParseErrors = Diags.errors();
  return R;
}

std::string renderText(const AnalyzeResult &R) {
  std::string Out;
  for (const KernelModel &M : R.Kernels) {
    if (!Out.empty())
      Out += "\n";
    Out += renderText(M);
  }
  if (R.Kernels.empty())
    Out = R.File + ": no kernels defined\n";
  return Out;
}

Json toJson(const AnalyzeResult &R) {
  Json Kernels = Json::array();
  for (const KernelModel &M : R.Kernels)
    Kernels.push_back(toJson(M));
  return Json{{"file", R.File}, {"parse_errors", R.ParseErrors}, {"kernels", Kernels}};
}

} // namespace forge::analysis
