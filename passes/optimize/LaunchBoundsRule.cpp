//===- passes/optimize/LaunchBoundsRule.cpp - launch-bounds -----------------===//
///
/// \file
/// `__launch_bounds__(N)` on a kernel that has none, N the largest block it
/// runs with: the request's block size and every launch of the kernel in
/// the file (template instantiations included), so that ptxas allocates
/// registers for the block sizes actually used and no launch exceeds the
/// bound. Declined when a launch's block size is known only at run time.
/// The bound is the block size's own name (a template parameter or macro
/// the spec names) only when every launch in the file uses that name
/// (docs/passes/launch-bounds.md).
///
//===----------------------------------------------------------------------===//
#include "RuleUtil.h"
#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "forge/Frontend/KernelFacts.h"
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

/// The block argument of a launch as written, without a dim3 of one
/// argument around it: "BLOCK" for `<<<g, BLOCK>>>` and `<<<g, dim3(BLOCK)>>>`.
std::string blockSpelling(const Expr *Block, ASTContext &Ctx) {
  const Expr *E = Block->IgnoreParenImpCasts();
  while (true) {
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      unsigned Args = 0;
      const Expr *First = nullptr;
      for (const Expr *A : C->arguments())
        if (!isa<CXXDefaultArgExpr>(A) && Args++ == 0)
          First = A;
      if (Args == 1 && First) {
        E = First->IgnoreParenImpCasts();
        continue;
      }
    }
    if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = F->getSubExpr()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = M->getSubExpr()->IgnoreParenImpCasts();
      continue;
    }
    break;
  }
  return StringRef(textOf(E, Ctx)).trim().str();
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
    ASTContext &Ctx = In.Ctx;
    int MaxThreads = In.Target.limits().MaxThreadsPerBlock;
    if (Req.BlockThreads && (*Req.BlockThreads <= 0 || *Req.BlockThreads > MaxThreads))
      return notApplicable(formatv("the block size {0} is not one {1} can launch",
                                   *Req.BlockThreads, In.Target.Name)
                               .str());

    // Where the block size is a template parameter or a macro that the spec
    // names, write that name: the bound then follows the tuned value.
    std::string Text;
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
    std::string Name = Symbolic && AllKnown && !Factors.empty() ? join(Factors, " * ") : "";

    // Every launch in the file: the bound must admit the largest block.
    std::vector<const CUDAKernelCallExpr *> Launches = launchesOf(K, Ctx);
    std::optional<int64_t> Largest = Req.BlockThreads;
    std::string LargestFrom = Req.BlockThreads ? "the requested block size" : "";
    bool AllNamed = true;
    SourceManager &SM = Ctx.getSourceManager();
    // One HostValues for every launch: its mutation analyses of the host
    // functions are kept (retune-needed's fix, de64a8e).
    frontend::HostValues Values(Ctx);
    for (const CUDAKernelCallExpr *L : Launches) {
      const CallExpr *Config = L->getConfig();
      unsigned Line = SM.getPresumedLineNumber(SM.getFileLoc(L->getBeginLoc()));
      if (!Config || Config->getNumArgs() < 2)
        return notApplicable(formatv("the launch at line {0} has no block size", Line).str());
      const Expr *Block = Config->getArg(1);
      bool Named = !Name.empty() && blockSpelling(Block, Ctx) == Name;
      AllNamed = AllNamed && Named;
      std::optional<int64_t> T;
      if (!Block->isValueDependent())
        T = frontend::constantThreadsPerBlock(Block, Values);
      if (!T) {
        if (Named)
          continue; // the spec's name: its tuned values are the request's
        return notApplicable(formatv("the launch at line {0} has a block size known only at "
                                     "run time ('{1}')",
                                     Line, textOf(Block, Ctx))
                                 .str());
      }
      if (*T <= 0 || *T > MaxThreads)
        return notApplicable(formatv("the launch at line {0} has a block of {1} threads, which "
                                     "{2} cannot launch",
                                     Line, *T, In.Target.Name)
                                 .str());
      if (!Largest || *T > *Largest) {
        Largest = *T;
        LargestFrom = formatv("the launch at line {0}", Line).str();
      }
    }
    if (!Largest)
      return notApplicable("the block size is not known: give --block or --spec, or launch "
                           "the kernel with a constant block size in this file");
    int64_t N = *Largest;
    Text = std::to_string(N);
    if (!Name.empty() && AllNamed && (!Req.BlockThreads || N == *Req.BlockThreads))
      Text = Name;

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
    if (!Launches.empty())
      Rationale += formatv("\nThe {0} launch{1} of the kernel in this file {2} checked: the "
                           "largest block, {3} threads, is {4}'s.",
                           Launches.size(), Launches.size() == 1 ? "" : "es",
                           Launches.size() == 1 ? "was" : "were", N, LargestFrom)
                       .str();
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
