//===- Analysis/AnalyzeFile.cpp - The model of every kernel of a file -----===//
#include "forge/Analysis/AnalyzeFile.h"
#include "forge/Analysis/ModelRender.h"
#include "forge/Frontend/KernelLookup.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

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
        std::vector<const FunctionDecl *> Chosen;
        if (Kernel.empty()) {
          for (const FunctionDecl *K : frontend::userKernels(Ctx))
            if (frontend::inMainFile(Ctx, *K))
              Chosen.push_back(K);
        } else {
          auto K = frontend::findKernel(Ctx, Kernel, File);
          if (!K) {
            Failure = K.takeError();
            return;
          }
          Chosen.push_back(*K);
        }
        for (const FunctionDecl *K : Chosen) {
          auto M = analyzeKernel(Ctx, *K, Opts);
          if (!M) {
            Failure = M.takeError();
            return;
          }
          M->HostLaunches = findHostLaunches(Ctx, *K);
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
