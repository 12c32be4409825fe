//===- RetuneNeeded.cpp - retune-needed -----------------------------------===//
#include "RetuneNeeded.h"
#include "../PortPass.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Frontend/Matchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

void RetuneNeeded::registerMatchers(MatchFinder &Finder) {
  Finder.addMatcher(functionDecl(hasAttr(attr::CUDALaunchBounds), isDefinition()).bind("bounded"),
                    this);
  Finder.addMatcher(frontend::matchers::chevronLaunch(), this);
}

void RetuneNeeded::check(const MatchFinder::MatchResult &R, PassContext &C) {
  SourceManager &SM = *R.SourceManager;
  const arch::TargetInfo &T = C.Target, &S = C.Source;
  if (const auto *FD = R.Nodes.getNodeAs<FunctionDecl>("bounded")) {
    if (!frontend::isUserLocation(SM, FD->getLocation()) || FD->isTemplateInstantiation())
      return;
    const auto *LB = FD->getAttr<CUDALaunchBoundsAttr>();
    auto Threads = frontend::constantInt(LB->getMaxThreads(), *R.Context);
    auto MinBlocks = frontend::constantInt(LB->getMinBlocks(), *R.Context);
    if (!Threads || !MinBlocks || *MinBlocks <= 0)
      return;
    int64_t Want = *Threads * *MinBlocks;
    const arch::SmLimits &L = T.limits();
    if (Want > L.MaxThreadsPerSM || *MinBlocks > L.MaxBlocksPerSM)
      C.Diag.report(name(), Severity::Warning, LB->getLocation(),
                    formatv("'__launch_bounds__({0}, {1})' asks for {2} threads per SM; {3} runs at "
                            "most {4} threads and {5} blocks per SM, so the register budget it "
                            "implies is wrong there; retune the launch bounds for {3}",
                            *Threads, *MinBlocks, Want, T.Name, L.MaxThreadsPerSM,
                            L.MaxBlocksPerSM)
                        .str());
    return;
  }
  const auto *Launch = R.Nodes.getNodeAs<CUDAKernelCallExpr>("launch");
  if (!Launch || !frontend::isUserLocation(SM, Launch->getBeginLoc()) ||
      Launch->isValueDependent() || T.Name == S.Name)
    return;
  const FunctionDecl *Kernel = Launch->getDirectCallee();
  const CallExpr *Cfg = Launch->getConfig();
  if (!Kernel || !Cfg || Cfg->getNumArgs() < 3)
    return;
  // Only shared-memory sizing is judged here (registers come later): the
  // block size, which takes the host function's mutation analysis, is
  // worked out only for a launch that uses shared memory.
  const FunctionDecl *Def = Kernel->getDefinition() ? Kernel->getDefinition() : Kernel;
  auto Dynamic = frontend::constantInt(Cfg->getArg(2), *R.Context);
  arch::KernelResources K;
  K.StaticSharedBytes = int(frontend::totalBytes(frontend::staticSharedVariables(*Def, *R.Context)));
  K.DynamicSharedBytes = Dynamic ? int(*Dynamic) : 0;
  if (K.StaticSharedBytes + K.DynamicSharedBytes == 0)
    return;
  if (!Values)
    Values = std::make_unique<frontend::HostValues>(*R.Context);
  auto Threads = frontend::constantThreadsPerBlock(Cfg->getArg(1), *Values);
  if (!Threads || *Threads <= 0)
    return;
  K.ThreadsPerBlock = int(*Threads);
  auto OnSource = arch::computeOccupancy(S, K);
  auto OnTarget = arch::computeOccupancy(T, K);
  if (!OnSource || !OnTarget) {
    // Limits are the shared-memory-limits pass's business.
    consumeError(OnSource.takeError());
    consumeError(OnTarget.takeError());
    return;
  }
  if (OnTarget->BlocksBySharedMemory >= OnSource->BlocksBySharedMemory ||
      OnTarget->Occupancy >= OnSource->Occupancy)
    return;
  C.Diag.report(
      name(), Severity::Warning, Launch->getBeginLoc(),
      formatv("'{0}' uses {1} bytes of shared memory per block, sized for {2} ({3} blocks and {4:P0} "
              "occupancy per SM there); on {5} it fits {6} blocks ({7:P0}); retune the tile sizes "
              "or pipeline depth for {5}",
              Def->getNameAsString(), K.StaticSharedBytes + K.DynamicSharedBytes, S.Name,
              OnSource->ActiveBlocksPerSM, OnSource->Occupancy, T.Name,
              OnTarget->ActiveBlocksPerSM, OnTarget->Occupancy)
          .str(),
      {},
      {{Launch->getBeginLoc(),
        "predicted from the Arch database, registers not counted; with a " +
            std::string(T.Name) + " GPU present, 'forge-port tune' measures it"}});
}

} // namespace forge::passes
