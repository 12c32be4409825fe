//===- passes/optimize/SpecializeScalarRule.cpp - specialize-scalar --------===//
///
/// \file
/// Value specialisation of a kernel's scalar parameters: when the trip
/// count of a loop depends on integer parameters (a mask width, a radius, a
/// filter size passed at run time), the kernel runs a copy of its body in
/// which those parameters are compile-time constants at the spec's values,
/// and calls its original body, moved unchanged into a `__noinline__`
/// device function, for any other values. nvcc unrolls the specialised
/// loops and folds their index arithmetic, and the stencil rules see a
/// constant footprint in the copy (docs/passes/specialize-scalar.md).
///
/// The model's loops say which parameters decide a trip count: a loop
/// counted by a constant step whose start, step and bound are constants
/// once the parameters take the spec's values, with at most 64 iterations
/// there (what unroll unrolls fully).
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "FormCode.h"
#include "forge/Frontend/KernelFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

namespace an = forge::analysis;

/// Iterations beyond which a specialised loop would not be unrolled fully
/// (unroll's limit), so specialising buys little.
constexpr int64_t MaxTrips = 64;

class SpecializeScalarRule : public ExpertRule {
public:
  StringRef name() const override { return "specialize-scalar"; }
  RuleOutcome propose(const RuleInput &In) override;
};

RuleOutcome SpecializeScalarRule::propose(const RuleInput &In) {
  const FunctionDecl &K = In.Kernel;
  ASTContext &Ctx = In.Ctx;
  const CompoundStmt *Body = kernelBody(K);
  if (!Body)
    return notApplicable("the kernel has no body");
  if (K.isTemplated())
    return notApplicable("a template kernel: the copy for other values would have to be a "
                         "template too (not written)");
  const measure::LaunchSpec *Spec = In.Request.Spec;
  if (!Spec)
    return notApplicable("no launch spec: the values to specialise for are the spec's scalars");
  auto Env = Spec->environment();
  if (!Env)
    return notApplicable("the spec's sizes cannot be evaluated: " + toString(Env.takeError()));
  auto Model = kernelModel(In);
  if (!Model)
    return notApplicable(toString(Model.takeError()));
  an::KernelModel &M = *Model;
  an::AtomTable &T = M.atoms();

  // The integer parameters the model knows as never assigned.
  std::map<an::AtomId, const ParmVarDecl *> Params;
  for (an::AtomId A = 0; A < T.size(); ++A)
    if (T[A].Kind == an::AtomKind::Param)
      if (const auto *P = dyn_cast_or_null<ParmVarDecl>(T[A].Decl))
        if (paramIndex(K, P) && P->getType()->isIntegerType() &&
            !P->getType()->isBooleanType() && !P->getName().empty())
          Params[A] = P;
  if (Params.empty())
    return notApplicable("no integer parameter the kernel never assigns");

  // Loops whose trip count the parameters decide.
  std::map<an::AtomId, int64_t> Values; // parameter -> the spec's value
  std::vector<std::string> LoopsSaid;
  std::string Why;
  for (const an::Loop &L : M.Loops) {
    if (L.TripCount || !L.Start || !L.Step || !L.Bound || L.StepK != an::StepKind::Constant)
      continue;
    std::vector<an::AtomId> Uses;
    for (const auto &[A, P] : Params)
      if (T.dependsOn(*L.Start, A) || T.dependsOn(*L.Step, A) || T.dependsOn(*L.Bound, A))
        Uses.push_back(A);
    if (Uses.empty())
      continue;
    std::map<an::AtomId, int64_t> Here;
    bool Known = true;
    for (an::AtomId A : Uses) {
      auto V = evaluateForm(an::IndexForm::atom(A), T, In, *Env);
      if (!V) {
        Why = formatv("the spec gives no integer value for '{0}'", T[A].Name).str();
        Known = false;
        break;
      }
      Here[A] = *V;
    }
    if (!Known)
      continue;
    auto At = [&](const an::IndexForm &F) {
      return T.substitute(F, [&](an::AtomId A) -> std::optional<an::IndexForm> {
                if (auto It = Here.find(A); It != Here.end())
                  return an::IndexForm::constant(It->second);
                return std::nullopt;
              })
          .constantValue();
    };
    auto S = At(*L.Start), St = At(*L.Step), B = At(*L.Bound);
    if (!S || !St || !B) {
      Why = formatv("the loop over '{0}' (line {1}) depends on more than the parameters",
                    L.Var, L.Loc.Line)
                .str();
      continue;
    }
    auto N = an::arithmeticTripCount(*S, *St, *B, L.Cmp);
    if (!N || *N > MaxTrips || *N < 1) {
      Why = formatv("the loop over '{0}' (line {1}) runs {2} iterations at the spec's values "
                    "(specialising pays for loops of 1 to {3})",
                    L.Var, L.Loc.Line,
                    !N              ? std::string("unbounded")
                    : std::to_string(*N),
                    MaxTrips)
                .str();
      continue;
    }
    for (const auto &[A, V] : Here)
      Values[A] = V;
    LoopsSaid.push_back(formatv("'{0}' (line {1}, {2} iterations)", L.Var, L.Loc.Line, *N).str());
  }
  if (Values.empty())
    return notApplicable(Why.empty() ? "no loop's trip count depends on an integer parameter"
                                     : Why);

  for (const auto &[A, V] : Values)
    if (isModified(Params[A], Body))
      return notApplicable(formatv("'{0}' is assigned, or its address or a reference to it is "
                                   "taken",
                                   Params[A]->getName())
                               .str());
  // Static shared memory would be declared twice (the copy and the
  // original each hold theirs), halving the blocks an SM holds.
  if (!frontend::staticSharedVariables(K, Ctx).empty())
    return notApplicable("the kernel declares __shared__ arrays: the copy for the spec's "
                         "values and the original would each hold theirs");

  auto Site = kernelBodySite(In, K, *Body);
  if (!Site)
    return notApplicable(toString(Site.takeError()));
  EditCollector C(In);
  auto First = C.rangeOf(K.getParamDecl(0)->getSourceRange());
  auto Last = C.rangeOf(K.getParamDecl(K.getNumParams() - 1)->getSourceRange());
  if (!First || !Last)
    return notApplicable("the parameter list is not plain text of the file: " + C.failure());
  std::string ParamText = In.Source.slice(First->first, Last->second).str();
  std::string BodyText = In.Source.slice(Site->Open, Site->Close + 1).str();
  // The original body's function: a name the kernel's scope does not declare.
  const DeclContext *Scope = K.getDeclContext();
  auto Taken = [&](const std::string &N) {
    return !Scope->lookup(DeclarationName(&Ctx.Idents.get(N))).empty();
  };
  std::string Any = K.getNameAsString() + "_forge_any";
  for (int I = 2; Taken(Any); ++I)
    Any = K.getNameAsString() + "_forge_any" + std::to_string(I);

  // The thread's indices go in as arguments, parameters that shadow the
  // builtins in the moved body: a rule that later runs the kernel's body
  // for other indices (several rows per thread) passes it those.
  std::vector<std::string> Args, Tests, Decls, Said, Names, IndexParams;
  std::set<std::string> Read = indexVariablesRead(Body);
  for (StringRef Var : {"threadIdx", "blockIdx"})
    if (Read.count(Var.str())) {
      IndexParams.push_back(("const uint3 " + Var).str());
      Args.push_back(forwardedIndexArgument(Var));
    }
  if (!IndexParams.empty())
    ParamText = join(IndexParams, ", ") + ", " + ParamText;
  for (const ParmVarDecl *P : K.parameters())
    Args.push_back(P->getNameAsString());
  for (const auto &[A, V] : Values) {
    const ParmVarDecl *P = Params[A];
    std::string Name = P->getNameAsString();
    Tests.push_back(formatv("{0} != {1}", Name, V).str());
    Decls.push_back(formatv("constexpr {0} {1} = {2};",
                            typeSpelling(P->getType().getUnqualifiedType(), Ctx), Name, V)
                        .str());
    Said.push_back(formatv("'{0}' = {1}", Name, V).str());
    Names.push_back("'" + Name + "'");
  }
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = C.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  std::string Inner = StringRef(BodyText).drop_front().drop_back().trim("\n").rtrim().str();

  std::string Preamble =
      formatv("// specialize-scalar: {0}'s original body, for any values of its parameters "
              "and of the\n// thread's indices (passed in): the kernel calls it when {1}.\n"
              "static __device__ __noinline__ void {2}({3}) {4}\n\n",
              K.getNameAsString(), join(Tests, " || "), Any, ParamText, BodyText)
          .str();
  std::vector<std::string> Lines;
  Lines.push_back("{");
  Lines.push_back(Ind + "// specialize-scalar: " + join(Said, ", ") +
                  " (the spec's values) as compile-time constants below; other values run "
                  "the original body.");
  Lines.push_back(Ind + "if (" + join(Tests, " || ") + ") {");
  Lines.push_back(Ind + "  " + Any + "(" + join(Args, ", ") + ");");
  Lines.push_back(Ind + "  return;");
  Lines.push_back(Ind + "}");
  Lines.push_back(Ind + "{");
  for (const std::string &D : Decls)
    Lines.push_back(Ind + "  " + D);
  SmallVector<StringRef, 32> InnerLines;
  StringRef(Inner).split(InnerLines, '\n');
  for (StringRef L : InnerLines)
    Lines.push_back(L.trim().empty() ? std::string() : "  " + L.str());
  Lines.push_back(Ind + "}");
  Lines.push_back("}");
  std::vector<SourceEdit> Edits = {{Site->DeclLine, 0, Preamble},
                                   {Site->Open, Site->Close + 1 - Site->Open, join(Lines, "\n")}};

  std::string Summary = formatv("a copy of the body with {0} as compile-time constants (the "
                                "spec's values); other values call the original in {1}",
                                join(Said, ", "), Any)
                            .str();
  std::string Rationale = formatv(
      "The trip counts of the loops over {0} depend on {1}, kernel parameters given at run "
      "time, so nvcc cannot unroll them or fold the index arithmetic they drive, and the stencil "
      "rules see a footprint whose size is not known. The spec launches with {2}. The kernel "
      "now tests those values first: when they hold, it runs its body with each parameter "
      "shadowed by a constexpr of the same name and value, so the code is the original's with "
      "constants in it; any other values call the original body, moved unchanged into the "
      "__noinline__ device function {3} (so that it does not add its registers to the "
      "specialised path), which takes threadIdx and blockIdx as arguments of the same names "
      "(so that a rule that later runs the body for other indices, such as several rows per "
      "thread, can pass it those).\nPreconditions (kernel model): each parameter is an integer the "
      "kernel never assigns and whose address it never takes; each loop steps by a constant "
      "and has a start, step and bound that are constants once the parameters take the spec's "
      "values, at most {4} iterations; the kernel is not a template and declares no static "
      "__shared__ arrays (both copies would hold them). The results are the original's for "
      "every value: the same code runs, with the spec's values folded or not at all.",
      join(LoopsSaid, ", "), join(Names, ", "), join(Said, " and "), Any, MaxTrips)
                              .str();
  return proposeEdits(In, "specialize-scalar", Summary, Rationale, Edits);
}

} // namespace

std::unique_ptr<ExpertRule> createSpecializeScalarRule() {
  return std::make_unique<SpecializeScalarRule>();
}

} // namespace forge::passes
