//===- passes/optimize/RestrictRule.cpp - restrict --------------------------===//
///
/// \file
/// `const` on the pointee of pointer parameters the kernel only reads, and
/// `__restrict__` on its pointer parameters, so that the compiler may keep
/// loads apart from stores, reorder them and use the read-only data path
/// (ld.global.nc). Reads and writes come from ParamAccess.h; a launch in the
/// file that passes one buffer for two pointers, one of them written, makes
/// the promise false and the rule stays away (docs/passes/restrict.md).
///
//===----------------------------------------------------------------------===//
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Frontend/ParamAccess.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

/// The buffer an argument points into, as text: `x + off` and `&x[k]` are
/// both "x"; "" when unknown.
std::string bufferOf(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParenImpCasts();
  while (true) {
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
      E = C->getSubExpr()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->isAdditiveOp()) {
        E = (B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS())
                ->IgnoreParenImpCasts();
        continue;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_AddrOf)
        if (const auto *A = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens())) {
          E = A->getBase()->IgnoreParenImpCasts();
          continue;
        }
    }
    break;
  }
  if (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E) || isa<IntegerLiteral>(E))
    return "";
  return textOf(E, Ctx);
}

/// The launches of Kernel (or an instantiation of it) in the file.
class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  explicit LaunchFinder(const FunctionDecl &Kernel) : Kernel(Kernel) {}
  std::vector<const CUDAKernelCallExpr *> Launches;
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *L) {
    const FunctionDecl *Callee = L->getDirectCallee();
    if (!Callee)
      return true;
    const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern();
    if (Callee->getCanonicalDecl() == Kernel.getCanonicalDecl() ||
        (Pattern && Pattern->getCanonicalDecl() == Kernel.getCanonicalDecl()))
      Launches.push_back(L);
    return true;
  }

private:
  const FunctionDecl &Kernel;
};

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

    // One buffer passed for two pointers, one of them written: restrict
    // would be a false promise.
    LaunchFinder LF(K);
    LF.TraverseDecl(Ctx.getTranslationUnitDecl());
    for (const CUDAKernelCallExpr *L : LF.Launches) {
      std::map<std::string, const ParmVarDecl *> Seen;
      for (const ParmVarDecl *P : Pointers) {
        unsigned I = P->getFunctionScopeIndex();
        if (I >= L->getNumArgs())
          continue;
        std::string Buf = bufferOf(L->getArg(I), Ctx);
        if (Buf.empty())
          continue;
        auto [It, New] = Seen.emplace(Buf, P);
        if (New)
          continue;
        const ParmVarDecl *Other = It->second;
        if (AccessOf(P).Written || AccessOf(Other).Written) {
          unsigned Line =
              Ctx.getSourceManager().getPresumedLineNumber(L->getBeginLoc());
          return notApplicable(formatv("the launch at line {0} passes '{1}' for both '{2}' and "
                                       "'{3}', and one of them is written: the pointers alias",
                                       Line, Buf, Other->getName(), P->getName())
                                   .str());
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
    if (LF.Launches.empty())
      Rationale += "\nNo launch of the kernel is in this file, so the promise is not checked "
                   "here: every caller must pass distinct buffers.";
    else
      Rationale += "\nThe " + std::to_string(LF.Launches.size()) +
                   " launch(es) in this file pass distinct buffers.";
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
