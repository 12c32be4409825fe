//===- passes/optimize/RestrictRule.cpp - restrict --------------------------===//
///
/// \file
/// `const` on the pointee of pointer parameters the kernel only reads, and
/// `__restrict__` on its pointer parameters, so that the compiler may keep
/// loads apart from stores, reorder them and use the read-only data path
/// (ld.global.nc). Reads and writes come from ParamAccess.h. Every launch of
/// the kernel in the file must pass pointers into distinct allocations
/// (Analysis/Allocations.h) for each pair of which one is written; with no
/// launch in the file only --assume-no-alias, the user's promise, lets the
/// rule apply (docs/passes/restrict.md).
///
//===----------------------------------------------------------------------===//
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/Allocations.h"
#include "forge/Frontend/ParamAccess.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

class RestrictRule : public ExpertRule {
public:
  StringRef name() const override { return "restrict"; }

  RuleOutcome propose(const RuleInput &In) override {
    const FunctionDecl &K = In.Kernel;
    ASTContext &Ctx = In.Ctx;
    std::vector<const ParmVarDecl *> Pointers;
    for (const ParmVarDecl *P : K.parameters())
      if (P->getType()->isPointerType() && !P->getType()->isFunctionPointerType())
        Pointers.push_back(P);
    if (Pointers.empty())
      return notApplicable("the kernel has no pointer parameters");

    std::vector<frontend::PointerAccess> Access = frontend::analyzePointerParams(K, Ctx);
    auto AccessOf = [&](const ParmVarDecl *P) {
      unsigned I = P->getFunctionScopeIndex();
      return I < Access.size() ? Access[I] : frontend::PointerAccess{true, true, true};
    };

    // Two pointers into one allocation, one of them written: restrict
    // would be a false promise. Every launch must show distinct
    // allocations for every such pair (Analysis/Allocations.h).
    std::vector<const CallExpr *> Launches;
    for (const CallExpr *L : analysis::callsOf(K, Ctx))
      if (isa<CUDAKernelCallExpr>(L))
        Launches.push_back(L);
    // Pairs that matter: one pointer written (or used in a way that is not
    // followed). Two read-only pointers may alias.
    std::vector<std::pair<const ParmVarDecl *, const ParmVarDecl *>> Pairs;
    for (size_t I = 0; I < Pointers.size(); ++I)
      for (size_t J = I + 1; J < Pointers.size(); ++J) {
        frontend::PointerAccess A = AccessOf(Pointers[I]), B = AccessOf(Pointers[J]);
        if (A.Written || A.Unknown || B.Written || B.Unknown)
          Pairs.push_back({Pointers[I], Pointers[J]});
      }
    std::set<unsigned> LaunchLines;
    std::string Promised; // the first pair --assume-no-alias vouches for
    for (const CallExpr *L : Launches) {
      unsigned Line = Ctx.getSourceManager().getPresumedLineNumber(L->getBeginLoc());
      LaunchLines.insert(Line);
      std::map<const ParmVarDecl *, analysis::AllocationOrigin> Origins;
      auto OriginOf = [&](const ParmVarDecl *P) -> const analysis::AllocationOrigin & {
        auto It = Origins.find(P);
        if (It == Origins.end()) {
          unsigned I = P->getFunctionScopeIndex();
          analysis::AllocationOrigin O;
          if (I < L->getNumArgs())
            O = analysis::traceAllocation(L->getArg(I), Ctx);
          else
            O.Why = "the launch passes no argument for it";
          It = Origins.emplace(P, std::move(O)).first;
        }
        return It->second;
      };
      for (auto [P, Q] : Pairs) {
        const analysis::AllocationOrigin &A = OriginOf(P), &B = OriginOf(Q);
        switch (analysis::compareOrigins(A, B)) {
        case analysis::AliasVerdict::Distinct:
          continue;
        case analysis::AliasVerdict::Same:
          return notApplicable(
              formatv("the launch at line {0} passes {1} for both '{2}' and '{3}', and one "
                      "of them is written: the pointers alias",
                      Line,
                      A.Variable && A.Variable == B.Variable
                          ? "'" + A.Variable->getName().str() + "'"
                          : "pointers into " + A.Sites.front().What,
                      P->getName(), Q->getName())
                  .str());
        case analysis::AliasVerdict::Unknown: {
          std::string Why = formatv("the launch at line {0} is not shown to pass distinct "
                                    "allocations for '{1}' and '{2}', and one of them is "
                                    "written: {3}",
                                    Line, P->getName(), Q->getName(),
                                    !A.known() ? A.Why
                                    : !B.known()
                                        ? B.Why
                                        : "'" + P->getName().str() + "' points into " +
                                              A.describe() + ", '" + Q->getName().str() +
                                              "' into " + B.describe())
                                .str();
          if (!In.Request.AssumeNoAlias)
            return notApplicable(Why + "; pass --assume-no-alias to promise it");
          if (Promised.empty())
            Promised = Why;
          continue;
        }
        }
      }
    }
    // Every declaration of the kernel gets the same parameter types, or a
    // const pointee would declare a different function.
    std::vector<const FunctionDecl *> Decls;
    for (const FunctionDecl *D : K.redecls())
      Decls.push_back(D);
    bool ExplicitInstances = false;
    for (const FunctionDecl *I : instantiationsOf(K))
      ExplicitInstances |= I->getTemplateSpecializationKind() ==
                               TSK_ExplicitInstantiationDefinition ||
                           I->getTemplateSpecializationKind() ==
                               TSK_ExplicitInstantiationDeclaration;

    EditCollector C(In);
    std::vector<std::string> ConstNames, RestrictNames, Unknown;
    bool AddsRestrict = false;
    for (const ParmVarDecl *P : Pointers) {
      frontend::PointerAccess A = AccessOf(P);
      if (A.Unknown) {
        Unknown.push_back(P->getName().str());
        continue;
      }
      QualType Pointee = P->getType()->getPointeeType();
      bool AddConst = !A.Written && !Pointee.isConstQualified() && !Pointee->isPointerType() &&
                      !ExplicitInstances;
      bool AddRestrict = !P->getType().isRestrictQualified();
      if (!AddConst && !AddRestrict)
        continue;
      // Every declaration must spell the parameter as `T *name` (not a
      // typedef of a pointer), or the words have nowhere to go.
      unsigned Index = P->getFunctionScopeIndex();
      std::vector<PointerTypeLoc> Locs;
      for (const FunctionDecl *D : Decls) {
        if (Index >= D->getNumParams())
          continue;
        TypeSourceInfo *TSI = D->getParamDecl(Index)->getTypeSourceInfo();
        PointerTypeLoc PTL;
        if (TSI)
          PTL = TSI->getTypeLoc().getUnqualifiedLoc().getAs<PointerTypeLoc>();
        if (!PTL) {
          Locs.clear();
          break;
        }
        Locs.push_back(PTL);
      }
      if (Locs.empty()) {
        Unknown.push_back(P->getName().str());
        continue;
      }
      for (PointerTypeLoc PTL : Locs) {
        if (AddConst)
          C.insertBefore(PTL.getPointeeLoc().getBeginLoc(), "const ");
        if (AddRestrict) {
          auto Star = C.offsetOf(PTL.getStarLoc());
          bool SpaceAfter = Star && *Star + 1 < In.Source.size() &&
                            isspace(static_cast<unsigned char>(In.Source[*Star + 1]));
          C.insertAfterToken(PTL.getStarLoc(), SpaceAfter ? " __restrict__" : "__restrict__ ");
        }
      }
      AddsRestrict |= AddRestrict;
      if (AddConst)
        ConstNames.push_back(P->getName().str());
      else if (AddRestrict)
        RestrictNames.push_back(P->getName().str());
    }
    if (C.failed())
      return notApplicable("a pointer parameter cannot be rewritten: " + C.failure());
    const std::vector<SourceEdit> &Edits = C.edits();
    if (Edits.empty()) {
      if (!Unknown.empty())
        return notApplicable("the kernel's use of '" + join(Unknown, "', '") +
                             "' cannot be followed (passed on, stored, cast or typedef'd), and the other "
                             "pointers already have const and __restrict__");
      return notApplicable("every pointer parameter already has __restrict__, and const where "
                           "it is only read");
    }
    if (Launches.empty() && !Pairs.empty() && AddsRestrict && !In.Request.AssumeNoAlias)
      return notApplicable(
          formatv("no launch of '{0}' in this file shows that its pointers point into distinct "
                  "allocations; pass --assume-no-alias to promise it for every caller",
                  K.getName())
              .str());

    std::string Summary;
    if (!ConstNames.empty())
      Summary = "const __restrict__ on the read-only pointer" +
                std::string(ConstNames.size() > 1 ? "s " : " ") + join(ConstNames, ", ");
    if (!RestrictNames.empty())
      Summary += (Summary.empty() ? "" : "; ") + std::string("__restrict__ on ") +
                 join(RestrictNames, ", ");
    std::string Rationale =
        "__restrict__ promises that the buffers do not overlap, so the compiler may reorder "
        "loads across stores and keep values in registers; on a pointer that is only read, "
        "const __restrict__ also lets it use the read-only data path (ld.global.nc).";
    if (Launches.empty() && Pairs.empty())
      Rationale += "\nNo pointer the kernel writes could alias another one: no launch needs to "
                   "be checked.";
    else if (Launches.empty())
      Rationale += "\nNo launch of the kernel is in this file: that no two of its pointers point "
                   "into one allocation is the user's promise (--assume-no-alias), not checked "
                   "here.";
    else if (!Promised.empty())
      Rationale += formatv("\nOf the {0} launch(es) in this file, not all are shown to pass "
                           "distinct allocations ({1}): that they do is the user's promise "
                           "(--assume-no-alias).",
                           LaunchLines.size(), Promised)
                       .str();
    else
      Rationale += formatv("\nThe {0} launch(es) in this file pass distinct allocations for "
                           "every pair of pointers one of which is written (traced to their "
                           "allocations through the calls in this file).",
                           LaunchLines.size())
                       .str();
    if (!Unknown.empty())
      Rationale += "\nLeft alone: '" + join(Unknown, "', '") +
                   "' (a use the analysis cannot follow, or a typedef'd pointer type).";
    if (ExplicitInstances)
      Rationale += "\nNo const added: explicit instantiations name the parameter types.";
    return proposeEdits(In, name(), Summary, Rationale, Edits);
  }
};
} // namespace

std::unique_ptr<ExpertRule> createRestrictRule() { return std::make_unique<RestrictRule>(); }

} // namespace forge::passes
