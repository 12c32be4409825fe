#include "forge/Frontend/Matchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace forge::frontend::matchers {

DeclarationMatcher kernelDecl() {
  return functionDecl(hasAttr(attr::CUDAGlobal)).bind("kernel");
}

StatementMatcher chevronLaunch() {
  return cudaKernelCallExpr(optionally(forCallable(functionDecl().bind("fn"))))
      .bind("launch");
}

StatementMatcher runtimeLaunch() {
  auto Names = hasAnyName("::cudaLaunchKernel", "::cudaLaunchCooperativeKernel",
                          "::cudaLaunchKernelEx", "::cudaLaunchKernelExC",
                          "::cudaLaunchCooperativeKernelMultiDevice");
  return callExpr(anyOf(callee(functionDecl(Names)),
                        callee(unresolvedLookupExpr(hasAnyDeclaration(namedDecl(Names))))),
                  optionally(forCallable(functionDecl().bind("fn"))))
      .bind("launch");
}

} // namespace forge::frontend::matchers
