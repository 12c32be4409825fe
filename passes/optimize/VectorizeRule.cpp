//===- passes/optimize/VectorizeRule.cpp - vectorize ------------------------===//
///
/// \file
/// Rewrites an elementwise kernel (RuleUtil.h, ElementwiseShape) whose
/// global accesses are all p[i] on 4- or 8-byte elements so that each
/// thread moves 16 bytes of every array per access: float4, int4, uint4,
/// double2, longlong2 loads and stores through reinterpret_cast, in a
/// grid-stride loop over vectors (correct for any grid), then a scalar
/// grid-stride loop for the last n % VEC elements. A run-time check falls
/// back to the scalar loop when a pointer is not 16-byte aligned (an
/// offset pointer; cudaMalloc gives 256-byte alignment), so the rewrite
/// never faults on a misaligned buffer (docs/passes/vectorize.md).
///
//===----------------------------------------------------------------------===//
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

/// The 16-byte vector of an element type, and its lane count.
struct VectorType {
  const char *Name;
  unsigned Lanes;
};

std::optional<VectorType> vectorFor(QualType Elem, ASTContext &Ctx) {
  const auto *B = Elem.getCanonicalType().getUnqualifiedType()->getAs<BuiltinType>();
  if (!B)
    return std::nullopt;
  switch (B->getKind()) {
  case BuiltinType::Float: return VectorType{"float4", 4};
  case BuiltinType::Int: return VectorType{"int4", 4};
  case BuiltinType::UInt: return VectorType{"uint4", 4};
  case BuiltinType::Double: return VectorType{"double2", 2};
  case BuiltinType::LongLong: return VectorType{"longlong2", 2};
  case BuiltinType::ULongLong: return VectorType{"ulonglong2", 2};
  case BuiltinType::Long:
    return Ctx.getTypeSize(Elem) == 64 ? std::optional<VectorType>(VectorType{"longlong2", 2})
                                       : std::nullopt;
  case BuiltinType::ULong:
    return Ctx.getTypeSize(Elem) == 64 ? std::optional<VectorType>(VectorType{"ulonglong2", 2})
                                       : std::nullopt;
  default: return std::nullopt;
  }
}

/// Whether Body surely assigns p[i] (with '=') on every path: a top-level
/// statement of the body is that assignment. Otherwise the vector is loaded
/// first, so that lanes the body skips keep their value.
bool surelyAssigned(const Stmt *Body, const ParmVarDecl *P) {
  auto Check = [&](const Stmt *S) {
    const auto *A = dyn_cast<BinaryOperator>(S);
    if (!A || A->getOpcode() != BO_Assign)
      return false;
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(A->getLHS()->IgnoreParens());
    if (!Sub)
      return false;
    const auto *DRE = dyn_cast<DeclRefExpr>(Sub->getBase()->IgnoreParenImpCasts());
    return DRE && DRE->getDecl() == P;
  };
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    return llvm::any_of(CS->body(), Check);
  return Check(Body);
}

/// The lines of a statement's text, each after the first without the
/// leading Indent of the line it began on (the first line starts mid-line).
std::vector<std::string> dedent(StringRef Text, StringRef Indent) {
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  std::vector<std::string> Out;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef Line = Lines[I];
    if (I)
      Line.consume_front(Indent);
    Out.push_back(Line.rtrim().str());
  }
  return Out;
}

class VectorizeRule : public ExpertRule {
public:
  StringRef name() const override { return "vectorize"; }

  RuleOutcome propose(const RuleInput &In) override {
    ASTContext &Ctx = In.Ctx;
    auto Shape = matchOneElementPerThread(In.Kernel, Ctx);
    if (!Shape)
      return notApplicable(toString(Shape.takeError()));

    // One vector width for all arrays: 16 bytes of 4- or 8-byte elements.
    std::optional<unsigned> Lanes;
    std::vector<std::string> VecNames;
    for (const auto &A : Shape->Arrays) {
      QualType Elem = A.Param->getType()->getPointeeType();
      if (Elem->isDependentType())
        return notApplicable("the element type of '" + A.Param->getName().str() +
                             "' is a template parameter");
      auto V = vectorFor(Elem, Ctx);
      if (!V)
        return notApplicable("'" + A.Param->getName().str() + "' has elements of type '" +
                             Elem.getUnqualifiedType().getAsString() +
                             "'; only float, double, int, unsigned and 64-bit integers "
                             "vectorize");
      if (Lanes && *Lanes != V->Lanes)
        return notApplicable("the arrays mix 4- and 8-byte elements");
      Lanes = V->Lanes;
      VecNames.push_back(V->Name);
    }
    unsigned VEC = *Lanes;
    static const char *const Comp[] = {"x", "y", "z", "w"};

    EditCollector C(In);
    auto Decl = C.rangeOfStatement(Shape->IndexDecl);
    auto Guard = C.rangeOfStatement(Shape->Guard);
    auto BodyR = C.rangeOfStatement(Shape->Body);
    std::string Bound = textOf(Shape->Bound, Ctx);
    if (!Decl || !Guard || !BodyR || Bound.empty())
      return notApplicable("the index, the guard or the body is written through a macro");

    // Lane k of the body: p[i] -> forge_p.<k>, i -> (forge_v * VEC + k).
    StringRef BodyText = In.Source.slice(BodyR->first, BodyR->second);
    auto Local = [&](const Stmt *S) -> std::optional<std::pair<unsigned, unsigned>> {
      auto R = C.rangeOf(S->getSourceRange());
      if (!R || R->first < BodyR->first || R->second > BodyR->second)
        return std::nullopt;
      return std::make_pair(R->first - BodyR->first, R->second - BodyR->first);
    };
    std::vector<std::string> LaneBodies;
    for (unsigned K = 0; K < VEC; ++K) {
      std::vector<SourceEdit> Edits;
      for (const ArraySubscriptExpr *S : Shape->Subscripts) {
        auto R = Local(S);
        const auto *DRE = dyn_cast<DeclRefExpr>(S->getBase()->IgnoreParenImpCasts());
        if (!R || !DRE)
          return notApplicable("'" + textOf(S, Ctx) + "' is written through a macro");
        Edits.push_back({R->first, R->second - R->first,
                         "forge_" + DRE->getDecl()->getName().str() + "." + Comp[K]});
      }
      for (const DeclRefExpr *U : Shape->IndexValueUses) {
        auto R = Local(U);
        if (!R)
          return notApplicable("the index is used through a macro");
        Edits.push_back({R->first, R->second - R->first,
                         "(forge_v * " + std::to_string(VEC) + " + " + std::to_string(K) + ")"});
      }
      auto Text = applySourceEdits(BodyText, Edits);
      if (!Text)
        return notApplicable("internal error: " + toString(Text.takeError()));
      LaneBodies.push_back(*Text);
    }

    std::string I = Shape->Index->getName().str();
    std::string T = wideIndexType(Shape->Bound, Ctx);
    std::vector<std::string> Ptrs, Loads, Stores;
    for (size_t A = 0; A < Shape->Arrays.size(); ++A) {
      const auto &Arr = Shape->Arrays[A];
      std::string P = Arr.Param->getName().str();
      std::string V = VecNames[A];
      bool ConstPointee = Arr.Param->getType()->getPointeeType().isConstQualified();
      Ptrs.push_back("reinterpret_cast<size_t>(" + P + ")");
      bool Load = Arr.Read || !surelyAssigned(Shape->Body, Arr.Param);
      std::string Cast = "reinterpret_cast<" + std::string(ConstPointee ? "const " : "") + V +
                         " *>(" + P + ")";
      if (Load)
        Loads.push_back(formatv("{0}{1} forge_{2} = {3}[forge_v];",
                                Arr.Written ? "" : "const ", V, P, Cast)
                            .str());
      else
        Loads.push_back(V + " forge_" + P + ";");
      if (Arr.Written)
        Stores.push_back(formatv("reinterpret_cast<{0} *>({1})[forge_v] = forge_{1};", V, P)
                             .str());
    }

    std::vector<std::string> L;
    L.push_back(formatv("// {0} elements per access while every pointer is 16-byte aligned "
                        "(cudaMalloc",
                        VEC)
                    .str());
    L.push_back("// gives 256 bytes), then one at a time; both loops stride over the grid.");
    L.push_back(formatv("const {0} forge_n = {1};", T, Bound).str());
    L.push_back(formatv("const {0} forge_first = ({0})blockIdx.x * blockDim.x + threadIdx.x;", T)
                    .str());
    L.push_back(formatv("const {0} forge_stride = ({0})blockDim.x * gridDim.x;", T).str());
    L.push_back("const bool forge_aligned = ((" + join(Ptrs, " | ") + ") % 16) == 0;");
    L.push_back(formatv("const {0} forge_vectors = forge_aligned && forge_n > 0 ? forge_n / {1} "
                        ": 0;",
                        T, VEC)
                    .str());
    L.push_back(formatv("for ({0} forge_v = forge_first; forge_v < forge_vectors; forge_v += "
                        "forge_stride) {{",
                        T)
                    .str());
    for (const std::string &S : Loads)
      L.push_back("  " + S);
    std::string Indent = lineIndent(In.Source, Guard->first).str();
    bool Compound = isa<CompoundStmt>(Shape->Body);
    for (unsigned K = 0; K < VEC; ++K) {
      // Each lane in a block of its own, so its locals do not clash.
      if (!Compound) {
        L.push_back("  { " + LaneBodies[K] + " }");
        continue;
      }
      for (const std::string &Line : dedent(LaneBodies[K], Indent))
        L.push_back(Line.empty() ? Line : "  " + Line);
    }
    for (const std::string &S : Stores)
      L.push_back("  " + S);
    L.push_back("}");
    std::string Loop = formatv("for ({0} {1} = forge_vectors * {2} + forge_first; {1} < forge_n; "
                               "{1} += forge_stride)",
                               T, I, VEC)
                           .str();
    if (Compound) {
      std::vector<std::string> Tail = dedent(BodyText, Indent);
      L.push_back(Loop + " " + Tail.front());
      L.insert(L.end(), Tail.begin() + 1, Tail.end());
    } else {
      L.push_back(Loop);
      L.push_back("  " + BodyText.str());
    }
    std::string Code = indentLines(L, Indent);

    C.add(eraseWithLine(In.Source, Decl->first, Decl->second));
    C.add({Guard->first, Guard->second - Guard->first, Code});

    std::vector<std::string> Names, Types;
    for (const auto &A : Shape->Arrays)
      Names.push_back(A.Param->getName().str());
    for (const std::string &V : VecNames)
      if (!is_contained(Types, V))
        Types.push_back(V);
    std::string Rationale = formatv(
        "Each thread now moves 16 bytes of {0} per load or store ({1}), a {2}x cut in memory "
        "instructions and address arithmetic for a memory-bound kernel. Contiguity: every "
        "global access is {3}[{4}] on an unoffset kernel pointer. Alignment: assumed from "
        "cudaMalloc (256 bytes) and checked at run time; a misaligned pointer takes the scalar "
        "loop. The vector loop is a grid-stride loop and the scalar loop takes the last "
        "n % {2} elements, so the kernel is correct for any grid.",
        join(Names, ", "), join(Types, ", "), VEC, Names.front(), I)
                                .str();
    std::optional<agent::SpecChange> Spec;
    auto Grid = In.Request.Geometry.find("grid.x");
    if (Grid != In.Request.Geometry.end()) {
      std::string Expr = formatv("ceil_div({0}, {1})", Grid->second, VEC).str();
      if (auto Parsed = measure::IntExpr::parse(Expr)) {
        agent::SpecChange S;
        S.Geometry["grid.x"] = Expr;
        S.Justification = formatv("each thread handles {0} elements and the loops cover all "
                                  "{1} elements for any grid, so 1/{0} of the blocks suffice",
                                  VEC, Bound)
                              .str();
        Spec = std::move(S);
      } else {
        consumeError(Parsed.takeError());
      }
    }
    return proposeEdits(In, name(),
                        formatv("16-byte accesses ({0}) to {1}", join(Types, ", "),
                                join(Names, ", "))
                            .str(),
                        Rationale, C.edits(), std::move(Spec));
  }
};
} // namespace

std::unique_ptr<ExpertRule> createVectorizeRule() { return std::make_unique<VectorizeRule>(); }

} // namespace forge::passes
