//===- passes/optimize/CoefficientStaging.cpp - Coefficients staged once --===//
//
// See CoefficientStaging.h.
//
//===----------------------------------------------------------------------===//
#include "CoefficientStaging.h"
#include "RuleAst.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes::stencil {

int64_t CoefficientPlan::registers() const {
  int64_t N = 0;
  for (const CoefficientStage &S : Stages)
    if (S.Registers)
      N += S.C.span();
  return N;
}

bool CoefficientPlan::anyShared() const {
  return any_of(Stages, [](const CoefficientStage &S) { return !S.Registers; });
}

std::set<int> CoefficientPlan::unrollLoops() const {
  std::set<int> Out;
  for (const CoefficientStage &S : Stages)
    if (S.Registers)
      Out.insert(S.C.Loops.begin(), S.C.Loops.end());
  return Out;
}

std::string CoefficientPlan::describe() const {
  std::vector<std::string> Parts;
  for (const CoefficientStage &S : Stages)
    Parts.push_back(formatv("'{0}' ({1} values) in {2}", S.C.Buffer, S.C.span(),
                            S.Registers ? "registers" : "shared memory")
                        .str());
  return join(Parts, ", ");
}

size_t CoefficientPlan::reads(const an::KernelModel &M) const {
  size_t N = 0;
  for (const CoefficientStage &S : Stages)
    for (unsigned A : S.C.Accesses) {
      size_t Taps = 1;
      for (unsigned L : M.Accesses[A].Loops)
        Taps *= size_t(std::max<int64_t>(M.Loops[L].TripCount.value_or(1), 1));
      N += Taps;
    }
  return N;
}

CoefficientPlan planCoefficients(const agent::RuleInput &In, const an::KernelModel &M,
                                 const std::vector<const CallExpr *> &Calls,
                                 int64_t MaxRegisters, StringRef Remapped) {
  CoefficientPlan Plan;
  an::CoefficientReads CR = an::coefficientReads(M, &In.Ctx);
  Plan.Declined = CR.Declined;
  for (const an::Access &W : M.Accesses)
    if (W.writes() && W.Space == an::MemorySpace::Unknown) {
      for (const an::CoefficientRead &C : CR.Buffers)
        Plan.Declined.push_back(formatv("'{0}': the kernel writes through '{1}' (line {2}), a "
                                        "pointer the analysis cannot trace",
                                        C.Buffer, W.Text, W.Loc.Line)
                                    .str());
      return Plan;
    }
  for (an::CoefficientRead &C : CR.Buffers) {
    const auto *P = dyn_cast_or_null<ParmVarDecl>(C.Base);
    auto Decline = [&](const std::string &Why) {
      Plan.Declined.push_back("'" + C.Buffer + "': " + Why);
    };
    if (!P || !P->getType()->isPointerType()) {
      Decline("not a pointer parameter");
      continue;
    }
    QualType Elem = P->getType()->getPointeeType().getUnqualifiedType();
    if (!Elem->isArithmeticType() && !Elem->isDependentType()) {
      Decline("its elements are not numbers");
      continue;
    }
    bool SameType = all_of(C.Accesses, [&](unsigned A) {
      const Expr *E = M.Accesses[A].E;
      return E && In.Ctx.hasSameUnqualifiedType(E->getType(), Elem);
    });
    if (!SameType) {
      Decline("a read takes it as another type");
      continue;
    }
    if (const CallExpr *Call = writableEscape(P, Calls)) {
      Decline(formatv("it is passed to '{0}' as a writable pointer",
                      textOf(Call->getCallee(), In.Ctx))
                  .str());
      continue;
    }
    // A store that runs before a read in its own thread could write the
    // buffer (the pointers may alias) and the read would see it. When
    // every store follows every read, a store of another thread that
    // aliases the filter races with the original's read, so reading early
    // gives a value the original may read too.
    if (!CR.WriteBeforeRead.empty() && !P->getType().isRestrictQualified()) {
      Decline(CR.WriteBeforeRead + ", and '" + C.Buffer +
              "' is not __restrict__: a store could change what a later read sees");
      continue;
    }
    if (any_of(Remapped, [&](char D) {
          auto B = M.atoms().findBuiltin("blockIdx", D);
          return B && M.atoms().dependsOn(C.Origin, *B);
        })) {
      Decline(formatv("its index '{0}' moves with the blocks along a dimension the rewrite "
                      "remaps",
                      M.render(C.Origin))
                  .str());
      continue;
    }
    if (C.span() > MaxCoefficientShared) {
      Decline(formatv("its reads span {0} elements, more than the {1} the rule stages",
                      C.span(), MaxCoefficientShared)
                  .str());
      continue;
    }
    CoefficientStage S;
    S.Param = P;
    S.Elem = Elem;
    S.C = std::move(C);
    Plan.Stages.push_back(std::move(S));
  }
  // Registers for the smallest first.
  llvm::stable_sort(Plan.Stages, [](const CoefficientStage &A, const CoefficientStage &B) {
    return A.C.span() < B.C.span();
  });
  int64_t Left = MaxRegisters;
  for (CoefficientStage &S : Plan.Stages) {
    S.Registers = S.C.span() <= Left;
    if (S.Registers)
      Left -= S.C.span();
  }
  return Plan;
}

Error CoefficientPlan::edits(const agent::RuleInput &In, const an::KernelModel &M,
                             FormPrinter &FP, function_ref<std::string(StringRef)> Fresh,
                             std::vector<SourceEdit> &Out) {
  EditCollector EC(In);
  for (CoefficientStage &S : Stages) {
    S.Name = Fresh(S.C.Buffer + (S.Registers ? "_c" : "_s"));
    for (unsigned AI : S.C.Accesses) {
      const an::Access &A = M.Accesses[AI];
      auto Range = EC.rangeOf(A.E->getSourceRange());
      if (!Range)
        return makeError("the read '{0}' (line {1}) is written through a macro", A.Text,
                         A.Loc.Line);
      std::string Index;
      // The subscript as written, where it indexes the parameter itself.
      const auto *Sub = dyn_cast<ArraySubscriptExpr>(A.E->IgnoreParens());
      const auto *Ref = Sub ? dyn_cast<DeclRefExpr>(Sub->getBase()->IgnoreParenImpCasts()) : nullptr;
      auto IdxRange = Sub ? EC.rangeOf(Sub->getIdx()->getSourceRange()) : std::nullopt;
      if (Ref && Ref->getDecl() == S.Param && S.C.Origin.isZero() && IdxRange) {
        Index = In.Source.slice(IdxRange->first, IdxRange->second).str();
        if (S.C.lo())
          Index = "(" + Index + ")" + (S.C.lo() > 0 ? " - " : " + ") +
                  std::to_string(S.C.lo() > 0 ? S.C.lo() : -S.C.lo());
      } else {
        auto P = FP.print(A.Index - S.C.Origin - IndexForm::constant(S.C.lo()), false);
        if (!P)
          return makeError("the index of '{0}' (line {1}) cannot be written: {2}", A.Text,
                           A.Loc.Line, FP.why());
        Index = *P;
      }
      Out.push_back({Range->first, Range->second - Range->first, S.Name + "[" + Index + "]"});
    }
  }
  return Error::success();
}

Error CoefficientPlan::loads(const agent::RuleInput &In, FormPrinter &FP, const std::string &Ind,
                             function_ref<std::string(StringRef)> Fresh, bool BarrierAfter,
                             std::vector<std::string> &Lines) const {
  if (Stages.empty())
    return Error::success();
  Lines.push_back(Ind + "// Coefficients loaded once: " + describe() + ".");
  for (const CoefficientStage &S : Stages) {
    auto Base = FP.print(S.C.Origin + IndexForm::constant(S.C.lo()), true);
    if (!Base)
      return makeError("the first element of '{0}' cannot be written: {1}", S.C.Buffer, FP.why());
    std::string C = Fresh("c");
    std::string Src = S.Param->getName().str() + "[" + (*Base == "0" ? C : *Base + " + " + C) + "]";
    std::string Type = typeSpelling(S.Elem, In.Ctx);
    if (S.Registers) {
      Lines.push_back(Ind + formatv("{0} {1}[{2}];", Type, S.Name, S.C.span()).str());
      Lines.push_back("#pragma unroll");
      Lines.push_back(Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0})", C, S.C.span()).str());
    } else {
      Lines.push_back(Ind + formatv("__shared__ {0} {1}[{2}];", Type, S.Name, S.C.span()).str());
      Lines.push_back(Ind + formatv("for (int {0} = threadIdx.x + blockDim.x * (threadIdx.y + "
                                    "blockDim.y * threadIdx.z); {0} < {1};",
                                    C, S.C.span())
                                .str());
      Lines.push_back(Ind + formatv("     {0} += blockDim.x * blockDim.y * blockDim.z)", C).str());
    }
    Lines.push_back(Ind + formatv("  {0}[{1}] = {2};", S.Name, C, Src).str());
  }
  if (BarrierAfter && anyShared())
    Lines.push_back(Ind + "__syncthreads();");
  return Error::success();
}

Error unrollEdits(const agent::RuleInput &In, const an::KernelModel &M, const std::set<int> &Loops,
                  std::vector<SourceEdit> &Edits) {
  EditCollector C(In);
  for (int L : Loops) {
    const an::Loop &Lp = M.Loops[L];
    if (!Lp.S || !Lp.TripCount)
      return makeError("the loop over '{0}' (line {1}) has no constant trip count", Lp.Var,
                       Lp.Loc.Line);
    auto O = C.offsetOf(Lp.S->getBeginLoc());
    if (!O)
      return makeError("the loop over '{0}' (line {1}) is written through a macro", Lp.Var,
                       Lp.Loc.Line);
    unsigned LS = lineStart(In.Source, *O);
    StringRef Before = In.Source.slice(lineStart(In.Source, LS ? LS - 1 : 0), LS);
    if (Before.contains("#pragma") && Before.contains("unroll"))
      continue;
    if (StringRef(In.Source).slice(LS, *O).trim().empty())
      Edits.push_back({LS, 0, "#pragma unroll\n"});
    else
      Edits.push_back({*O, 0, "\n#pragma unroll\n" + lineIndent(In.Source, *O).str()});
  }
  return Error::success();
}

} // namespace forge::passes::stencil
