//===- Frontend/KernelLookup.cpp ------------------------------------------===//
#include "forge/Frontend/KernelLookup.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::frontend {

namespace {
class KernelFinder : public DynamicRecursiveASTVisitor {
public:
  explicit KernelFinder(const SourceManager &SM) : SM(SM) {}
  std::vector<const FunctionDecl *> Kernels;
  bool VisitFunctionDecl(FunctionDecl *FD) override {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
        !FD->isTemplateInstantiation() && isUserLocation(SM, FD->getLocation()))
      Kernels.push_back(FD);
    return true;
  }

private:
  const SourceManager &SM;
};
} // namespace

std::vector<const FunctionDecl *> userKernels(ASTContext &Ctx) {
  KernelFinder F(Ctx.getSourceManager());
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  return std::move(F.Kernels);
}

bool inMainFile(ASTContext &Ctx, const FunctionDecl &K) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.isWrittenInMainFile(SM.getExpansionLoc(K.getLocation()));
}

Expected<const FunctionDecl *> findKernel(ASTContext &Ctx, StringRef Name, StringRef File) {
  std::vector<const FunctionDecl *> Kernels = userKernels(Ctx);
  for (const FunctionDecl *K : Kernels)
    if (K->getQualifiedNameAsString() == Name)
      return K;
  std::vector<const FunctionDecl *> ByName;
  for (const FunctionDecl *K : Kernels)
    if (K->getName() == Name)
      ByName.push_back(K);
  if (ByName.size() == 1)
    return ByName.front();
  std::vector<std::string> Names;
  for (const FunctionDecl *K : Kernels)
    Names.push_back(K->getQualifiedNameAsString());
  if (ByName.size() > 1)
    return makeError("kernel name '{0}' is ambiguous in {1}; use the qualified name: {2}", Name,
                     File, join(Names, ", "));
  return makeError("kernel '{0}' is not defined in {1}; kernels defined there: {2}", Name, File,
                   Names.empty() ? std::string("none") : join(Names, ", "));
}

} // namespace forge::frontend
