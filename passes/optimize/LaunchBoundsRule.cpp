//===- passes/optimize/LaunchBoundsRule.cpp - launch-bounds -----------------===//
///
/// \file
/// `__launch_bounds__(N)` on a kernel that has none, N the block size the
/// loop runs it with, so that ptxas allocates registers for the block size
/// actually used (docs/passes/launch-bounds.md).
///
//===----------------------------------------------------------------------===//
#include "RuleUtil.h"
#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

bool isIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

class LaunchBoundsRule : public ExpertRule {
public:
  StringRef name() const override { return "launch-bounds"; }

  RuleOutcome propose(const RuleInput &In) override {
    const FunctionDecl &K = In.Kernel;
    for (const FunctionDecl *D : K.redecls())
      if (D->hasAttr<CUDALaunchBoundsAttr>())
        return notApplicable("the kernel already has __launch_bounds__");
    const agent::ProposalRequest &Req = In.Request;
    if (!Req.BlockThreads)
      return notApplicable("the block size is not known: give --block or --spec, or launch "
                           "the kernel with a constant block size in this file");
    int64_t N = *Req.BlockThreads;
    int MaxThreads = In.Target.limits().MaxThreadsPerBlock;
    if (N <= 0 || N > MaxThreads)
      return notApplicable(formatv("the block size {0} is not one {1} can launch", N,
                                   In.Target.Name)
                               .str());

    // Where the block size is a template parameter or a macro that the spec
    // names, write that name: the bound then follows the tuned value.
    std::string Text = std::to_string(N);
    std::vector<std::string> Factors;
    bool Symbolic = false, AllKnown = true;
    for (const char *Dim : {"block.x", "block.y", "block.z"}) {
      auto It = Req.Geometry.find(Dim);
      if (It == Req.Geometry.end())
        continue;
      StringRef F = StringRef(It->second).trim();
      int64_t V;
      if (!F.getAsInteger(10, V)) {
        if (V != 1)
          Factors.push_back(F.str());
        continue;
      }
      if (isIdentifier(F) && (isTemplateParam(K, F) || isMacroBefore(In.CI, F, K))) {
        Factors.push_back(F.str());
        Symbolic = true;
        continue;
      }
      AllKnown = false;
    }
    if (Symbolic && AllKnown && !Factors.empty())
      Text = join(Factors, " * ");

    EditCollector C(In);
    SourceLocation At = K.getQualifierLoc() ? K.getQualifierLoc().getBeginLoc() : K.getLocation();
    C.insertBefore(At, "__launch_bounds__(" + Text + ") ");
    if (C.failed())
      return notApplicable(C.failure());
    int64_t Regs = std::min<int64_t>(In.Target.limits().MaxRegistersPerThread,
                                     In.Target.limits().RegistersPerSM / N);
    std::string Rationale = formatv(
        "__launch_bounds__({2}) tells ptxas the largest block the kernel runs with ({1} "
        "threads; without a bound it must allow for {0}). It keeps register use within what "
        "a block of {1} threads can get on {4} (at most {3} per thread), so the launch cannot "
        "fail for lack of registers, and it can weigh registers against occupancy knowing "
        "the block size; the PTX carries .maxntid. A launch with more threads than the bound "
        "fails instead of running.",
        MaxThreads, N, Text, Regs, In.Target.Name);
    if (Text != std::to_string(N))
      Rationale += "\n'" + Text + "' is the block size's own name, so the bound follows it when "
                   "it is retuned.";
    return proposeEdits(In, name(), "__launch_bounds__(" + Text + ") from the block size " +
                                        std::to_string(N),
                        Rationale, C.edits());
  }

private:
  static bool isTemplateParam(const FunctionDecl &K, StringRef Name) {
    const FunctionTemplateDecl *TD = K.getDescribedFunctionTemplate();
    if (!TD)
      return false;
    for (const NamedDecl *P : *TD->getTemplateParameters())
      if (const auto *NT = dyn_cast<NonTypeTemplateParmDecl>(P))
        if (NT->getName() == Name && NT->getType()->isIntegerType())
          return true;
    return false;
  }
  /// A macro defined before the kernel (so the attribute can use it).
  static bool isMacroBefore(CompilerInstance &CI, StringRef Name, const FunctionDecl &K) {
    if (!CI.hasPreprocessor())
      return false;
    Preprocessor &PP = CI.getPreprocessor();
    const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo(Name));
    if (!MI || MI->isFunctionLike())
      return false;
    SourceManager &SM = CI.getSourceManager();
    return SM.isBeforeInTranslationUnit(MI->getDefinitionLoc(), SM.getExpansionLoc(K.getBeginLoc()));
  }
};
} // namespace

std::unique_ptr<ExpertRule> createLaunchBoundsRule() {
  return std::make_unique<LaunchBoundsRule>();
}

} // namespace forge::passes
