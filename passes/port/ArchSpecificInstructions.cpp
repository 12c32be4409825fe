//===- ArchSpecificInstructions.cpp - arch-specific-instructions ----------===//
#include "ArchSpecificInstructions.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/DiagnosticSema.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

using arch::Feature;

namespace {

/// What a feature needs, and how to guard code that uses it.
struct Requirement {
  Feature F;
  const char *Needs; ///< after "; "
  const char *Remedy;
};
const Requirement Requirements[] = {
    {Feature::WGMMA, "it assembles only for sm_90a (sm_100a uses 'tcgen05')",
     "guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a"},
    {Feature::TCGen05,
     "it needs an arch- or family-specific target of family 10x (sm_100a/f, sm_103a/f, "
     "sm_110a/f)",
     "guard it with '#if defined(__CUDA_ARCH_FEAT_SM100_ALL)' (or the family macro) or "
     "compile for sm_100a or sm_100f"},
    {Feature::SetMaxNReg,
     "it needs an arch- or family-specific target (sm_90a, sm_100a/f, sm_120a/f, ...), "
     "never plain sm_90 or sm_100",
     "guard it with '#if defined(__CUDA_ARCH_SPECIFIC__) || "
     "defined(__CUDA_ARCH_FAMILY_SPECIFIC__)' or compile for an 'a' or 'f' target"},
    {Feature::TMA, "TMA needs sm_90 or later",
     "guard it with '#if __CUDA_ARCH__ >= 900' or compile for sm_90 or later"},
    {Feature::Clusters, "thread-block clusters need sm_90 or later",
     "guard it with '#if __CUDA_ARCH__ >= 900' or compile for sm_90 or later"},
    {Feature::CpAsync, "it needs sm_80 or later",
     "guard it with '#if __CUDA_ARCH__ >= 800' or compile for sm_80 or later"},
};

const Requirement &requirementOf(Feature F) {
  for (const Requirement &R : Requirements)
    if (R.F == F)
      return R;
  llvm_unreachable("every feature has a requirement");
}

/// A PTX mnemonic (or special register) prefix and the feature it needs.
/// Longer prefixes first: the first match wins.
struct Instruction {
  const char *Prefix;
  const char *Display; ///< the name in messages; null: the token itself
  Feature F;
};
const Instruction Instructions[] = {
    {"wgmma", "wgmma", Feature::WGMMA},
    {"tcgen05", "tcgen05", Feature::TCGen05},
    {"setmaxnreg", "setmaxnreg", Feature::SetMaxNReg},
    {"cp.async.bulk.tensor", "cp.async.bulk.tensor", Feature::TMA},
    {"cp.reduce.async.bulk.tensor", "cp.reduce.async.bulk.tensor", Feature::TMA},
    {"cp.async.bulk", "cp.async.bulk", Feature::TMA},
    {"cp.reduce.async.bulk", "cp.reduce.async.bulk", Feature::TMA},
    {"cp.async", "cp.async", Feature::CpAsync},
    {"barrier.cluster", "barrier.cluster", Feature::Clusters},
    {"mapa", "mapa", Feature::Clusters},
};

/// Special registers of clusters (%cluster_ctarank, %clusterid, ...).
const char *const ClusterRegisters[] = {"cluster", "nclusterid", "is_explicit_cluster"};

bool isTokenChar(char Ch) { return isAlnum(Ch) || Ch == '_' || Ch == '.' || Ch == '%'; }

/// The instructions of an asm string that need a feature, each once, in
/// order of appearance.
SmallVector<std::pair<std::string, Feature>, 4> scanPtx(StringRef Asm) {
  SmallVector<std::pair<std::string, Feature>, 4> Found;
  SmallSet<std::string, 4> Seen;
  auto Add = [&](StringRef Name, Feature F) {
    if (Seen.insert(Name.str()).second)
      Found.push_back({Name.str(), F});
  };
  size_t I = 0;
  while (I < Asm.size()) {
    if (!isTokenChar(Asm[I])) {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Asm.size() && isTokenChar(Asm[J]))
      ++J;
    StringRef Tok = Asm.slice(I, J);
    I = J;
    if (Tok.starts_with("%")) {
      // "%%cluster_ctarank" in an asm with operands.
      StringRef Reg = Tok.ltrim('%');
      for (const char *P : ClusterRegisters)
        if (Reg.starts_with(P))
          Add(("%" + Reg).str(), Feature::Clusters);
      continue;
    }
    for (const Instruction &In : Instructions) {
      StringRef P(In.Prefix);
      if (Tok == P || (Tok.starts_with(P) && Tok[P.size()] == '.')) {
        Add(In.Display, In.F);
        break;
      }
    }
  }
  return Found;
}

std::string message(StringRef What, const arch::TargetInfo &T, Feature F) {
  return ("'" + What + "' is not available on " + T.Name + "; " + requirementOf(F).Needs).str();
}

} // namespace

void ArchSpecificInstructions::registerMatchers(MatchFinder &Finder) {
  // Only code that is compiled for the device: asm in a host-only function
  // is host assembly.
  auto InDeviceCode = hasAncestor(
      functionDecl(anyOf(hasAttr(attr::CUDADevice), hasAttr(attr::CUDAGlobal))));
  Finder.addMatcher(asmStmt(InDeviceCode).bind("asm"), this);
  Finder.addMatcher(functionDecl(hasAttr(attr::CUDAClusterDims)).bind("cluster-dims"), this);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasName("::cooperative_groups::this_cluster")))).bind("cg"),
      this);
}

void ArchSpecificInstructions::check(const MatchFinder::MatchResult &R, PassContext &C) {
  SourceManager &SM = *R.SourceManager;
  const arch::TargetInfo &T = C.Target;
  if (const auto *Asm = dyn_cast_or_null<GCCAsmStmt>(R.Nodes.getNodeAs<AsmStmt>("asm"))) {
    SourceLocation Loc = Asm->getAsmLoc();
    if (!frontend::isUserLocation(SM, Loc))
      return;
    // A C++26 constant-expression asm string is not a literal; leave it.
    const auto *Lit = dyn_cast_or_null<clang::StringLiteral>(Asm->getAsmStringExpr());
    if (!Lit)
      return;
    for (const auto &[What, F] : scanPtx(Lit->getString()))
      if (!T.hasFeature(F))
        C.Diag.report(name(), Severity::Error, Loc, message(What, T, F), {},
                      {{Loc, requirementOf(F).Remedy}});
    return;
  }
  if (T.hasFeature(Feature::Clusters))
    return;
  if (const auto *FD = R.Nodes.getNodeAs<FunctionDecl>("cluster-dims")) {
    const auto *A = FD->getAttr<CUDAClusterDimsAttr>();
    SourceLocation Loc = A->getLocation();
    if (!frontend::isUserLocation(SM, Loc))
      return;
    C.Diag.report(name(), Severity::Error, Loc, message("__cluster_dims__", T, Feature::Clusters),
                  {}, {{Loc, requirementOf(Feature::Clusters).Remedy}});
    return;
  }
  if (const auto *Call = R.Nodes.getNodeAs<CallExpr>("cg")) {
    SourceLocation Loc = Call->getBeginLoc();
    if (!frontend::isUserLocation(SM, Loc))
      return;
    C.Diag.report(name(), Severity::Error, Loc,
                  message("cooperative_groups::this_cluster", T, Feature::Clusters), {},
                  {{Loc, requirementOf(Feature::Clusters).Remedy}});
  }
}

void ArchSpecificInstructions::finish(PassContext &C) {
  // Clang drops a __cluster_dims__ it rejects for the target, and CUDA's
  // headers declare this_cluster() only for sm_90 and later: both show up
  // as parse errors rather than as AST nodes.
  const arch::TargetInfo &T = C.Target;
  if (T.hasFeature(Feature::Clusters))
    return;
  SourceManager &SM = C.Ctx.getSourceManager();
  for (const ParseError &E : C.ParseErrors) {
    if (!frontend::isUserLocation(SM, E.Loc))
      continue;
    StringRef What;
    if (E.ID == diag::err_cluster_attr_not_supported)
      What = "__cluster_dims__";
    else if (StringRef(E.Message).contains("'this_cluster'"))
      What = "cooperative_groups::this_cluster";
    else
      continue;
    C.Diag.report(name(), Severity::Error, E.Loc, message(What, T, Feature::Clusters), {},
                  {{E.Loc, requirementOf(Feature::Clusters).Remedy}});
  }
}

} // namespace forge::passes
