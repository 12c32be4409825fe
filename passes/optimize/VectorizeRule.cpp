//===- passes/optimize/VectorizeRule.cpp - vectorize ------------------------===//
///
/// \file
/// Rewrites an elementwise map (ElementwiseKernel.h: the model's
/// elementwise pattern over the 1D global index, guarded by `if (i < n
/// ...)`, an early `if (i >= n ...) return;`, or already a grid-stride loop)
/// whose global accesses are all p[i] so that each thread moves 4 elements
/// of every array per access (2 where an array has 8-byte elements): float4,
/// int4, char4, uchar4, short4, double2, longlong2, float2 loads and stores
/// through reinterpret_cast (element sizes may differ), in a
/// grid-stride loop over vectors (correct for any grid), then a scalar
/// grid-stride loop for the last n % VEC elements. A run-time check falls
/// back to the scalar loop when a pointer is not aligned to its vector (an
/// offset pointer; cudaMalloc gives 256-byte alignment), or when two
/// pointers whose order of accesses matters are the same buffer, so the
/// rewrite never faults and never reorders an in-place update
/// (docs/passes/vectorize.md).
///
//===----------------------------------------------------------------------===//
#include "ElementwiseKernel.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

using analysis::Access;
using analysis::AccessKind;

/// The 16-bit floats of cuda_fp16.h and cuda_bf16.h: CUDA has no vector of
/// four of them (__half2 holds two, and its arithmetic differs), so the
/// rewrite declares one, x, y, z, w like the others, aligned to its size.
std::optional<std::string> halfName(QualType Elem) {
  const auto *R = Elem.getCanonicalType().getUnqualifiedType()->getAsRecordDecl();
  if (!R || !R->getIdentifier())
    return std::nullopt;
  StringRef N = R->getName();
  if (N == "__half")
    return std::string("half");
  if (N == "__nv_bfloat16")
    return std::string("bfloat16");
  return std::nullopt;
}

/// The declaration of forge_<Base><Lanes> for a 16-bit float (guarded, so
/// that a second kernel of the file may use it too).
std::string halfVectorDecl(StringRef Type, StringRef Base, unsigned Lanes) {
  std::string Name = ("forge_" + Base + Twine(Lanes)).str(),
              Guard = ("FORGE_VECTOR_" + Base + Twine(Lanes)).str();
  const char *Members = Lanes == 4 ? "x, y, z, w" : "x, y";
  return formatv("// vectorize: {0} {1}s travel as one {2}-byte access.\n#ifndef {3}\n#define "
                 "{3}\nstruct alignas({2}) {4} {{\n  {1} {5};\n};\n#endif\n",
                 Lanes, Type, 2 * Lanes, StringRef(Guard).upper(), Name, Members)
      .str();
}

/// The CUDA vector of Lanes (2 or 4) elements of an element type: 1-, 2-,
/// 4- and 8-byte integers and floats (char4 for 4 bytes, float4 and
/// double2 for 16), and for __half and __nv_bfloat16 a struct the rewrite
/// declares (halfVectorDecl); none for other types (double4 is deprecated
/// in CUDA 13).
std::optional<std::string> vectorFor(QualType Elem, unsigned Lanes, ASTContext &Ctx) {
  if (Lanes != 2 && Lanes != 4)
    return std::nullopt;
  if (auto H = halfName(Elem))
    return "forge_" + *H + std::to_string(Lanes);
  const auto *B = Elem.getCanonicalType().getUnqualifiedType()->getAs<BuiltinType>();
  if (!B)
    return std::nullopt;
  const char *Base = nullptr;
  switch (B->getKind()) {
  case BuiltinType::Float: Base = "float"; break;
  case BuiltinType::Int: Base = "int"; break;
  case BuiltinType::UInt: Base = "uint"; break;
  case BuiltinType::Short: Base = "short"; break;
  case BuiltinType::UShort: Base = "ushort"; break;
  case BuiltinType::SChar:
  case BuiltinType::Char_S: Base = "char"; break;
  case BuiltinType::UChar:
  case BuiltinType::Char_U: Base = "uchar"; break;
  case BuiltinType::Double: Base = "double"; break;
  case BuiltinType::LongLong: Base = "longlong"; break;
  case BuiltinType::ULongLong: Base = "ulonglong"; break;
  case BuiltinType::Long: Base = Ctx.getTypeSize(Elem) == 64 ? "longlong" : "int"; break;
  case BuiltinType::ULong: Base = Ctx.getTypeSize(Elem) == 64 ? "ulonglong" : "uint"; break;
  default: return std::nullopt;
  }
  if (Ctx.getTypeSizeInChars(Elem).getQuantity() == 8 && Lanes != 2)
    return std::nullopt;
  return std::string(Base) + std::to_string(Lanes);
}

/// One pointer parameter the map reads or writes.
struct Buffer {
  const ParmVarDecl *Param = nullptr;
  std::string Vec;
  /// The element's size in bytes.
  unsigned Size = 0;
  bool Read = false, Written = false;
  /// Assigned with '=' by a statement every element runs: its vector need
  /// not be loaded first.
  bool SurelyAssigned = false;
  /// Where its reads are in the source, where its writes take effect (the
  /// end of their assignments), and the last of those.
  std::vector<unsigned> Reads, Writes;
  unsigned LastWrite = 0;
};

/// The pointer parameter an access subscripts directly (`p[i]`, or the
/// `&p[i]` of `__ldg`); null otherwise.
const ParmVarDecl *directParam(const Access &A) {
  const Expr *E = A.E;
  if (const auto *Call = dyn_cast_or_null<CallExpr>(E)) {
    if (!StringRef(A.Callee).starts_with("__ld") || Call->getNumArgs() != 1)
      return nullptr;
    const auto *U = dyn_cast<UnaryOperator>(Call->getArg(0)->IgnoreParenImpCasts());
    if (!U || U->getOpcode() != UO_AddrOf)
      return nullptr;
    E = U->getSubExpr()->IgnoreParens();
  }
  const auto *S = dyn_cast_or_null<ArraySubscriptExpr>(E);
  if (!S)
    return nullptr;
  const auto *D = dyn_cast<DeclRefExpr>(S->getBase()->IgnoreParenImpCasts());
  return D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
}

/// The statements every element runs unconditionally.
std::vector<const Stmt *> topStatements(const ElementwiseKernel &K) {
  if (!K.Rest.empty())
    return {};
  std::vector<const Stmt *> Out;
  for (const Stmt *S : K.Body) {
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      Out.insert(Out.end(), CS->body_begin(), CS->body_end());
    else
      Out.push_back(S);
  }
  return Out;
}

/// The access is the left side of an '=' that is one of Tops (a class
/// type's operator= included: __half).
bool assignedAtTop(const Access &A, ArrayRef<const Stmt *> Tops) {
  for (const Stmt *S : Tops) {
    if (const auto *E = dyn_cast<Expr>(S))
      S = E->IgnoreImplicit();
    const auto *B = dyn_cast<BinaryOperator>(S);
    if (B && B->getOpcode() == BO_Assign && B->getLHS()->IgnoreParens() == A.E)
      return true;
    const auto *O = dyn_cast<CXXOperatorCallExpr>(S);
    if (O && O->getOperator() == OO_Equal && O->getNumArgs() == 2 &&
        O->getArg(0)->IgnoreParens() == A.E)
      return true;
  }
  return false;
}

class VectorizeRule : public ExpertRule {
public:
  StringRef name() const override { return "vectorize"; }

  RuleOutcome propose(const RuleInput &In) override {
    ASTContext &Ctx = In.Ctx;
    auto KE = matchElementwiseKernel(In, /*AllowGridStride=*/true);
    if (!KE)
      return notApplicable(toString(KE.takeError()));
    ElementwiseKernel &K = *KE;
    if (!K.AtIndex)
      return notApplicable("the accesses are at '" + K.Model.render(K.Accesses.front()->Index) +
                           "', an offset from the index '" + K.indexName() +
                           "': their vectors would not line up with the index's");
    EditCollector C(In);

    // The buffers, in parameter order, and one vector width for all.
    std::map<unsigned, Buffer> ByIndex;
    std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> Replace;
    std::vector<const Stmt *> Tops = topStatements(K);
    // Where a write takes effect: after its assignment's right side.
    ParentMap PM(const_cast<Stmt *>(In.Kernel.getBody()));
    auto WriteAt = [&](const Access &A) -> unsigned {
      const Stmt *Child = A.E, *P = PM.getParent(A.E);
      while (P && isa<ParenExpr>(P))
        Child = P, P = PM.getParent(P);
      const Stmt *Whole = A.E;
      if (const auto *B = dyn_cast_or_null<BinaryOperator>(P);
          B && B->isAssignmentOp() && B->getLHS() == Child)
        Whole = B;
      else if (const auto *U = dyn_cast_or_null<UnaryOperator>(P); U && U->isIncrementDecrementOp())
        Whole = U;
      auto R = C.rangeOf(Whole->getSourceRange());
      return R ? R->second : ~0u;
    };
    for (const Access *A : K.Accesses) {
      const ParmVarDecl *P = directParam(*A);
      if (!P || !P->getType()->isPointerType())
        return notApplicable("'" + A->Text + "' (line " + std::to_string(A->Loc.Line) +
                             ") is not an element p[" + K.indexName() +
                             "] of a kernel pointer parameter");
      if (!A->Callee.empty() && A->writes())
        return notApplicable("'" + A->Text + "' stores through '" + A->Callee + "'");
      auto R = C.rangeOf(A->E->getSourceRange());
      if (!R)
        return notApplicable("'" + A->Text + "' is written through a macro");
      Buffer &B = ByIndex[P->getFunctionScopeIndex()];
      if (!B.Param) {
        QualType Elem = P->getType()->getPointeeType();
        if (Elem->isDependentType())
          return notApplicable("the element type of '" + P->getName().str() +
                               "' is a template parameter");
        if (!vectorFor(Elem, 2, Ctx))
          return notApplicable("'" + P->getName().str() + "' has elements of type '" +
                               Elem.getUnqualifiedType().getAsString() +
                               "'; only the 1-, 2-, 4- and 8-byte integers, __half, "
                               "__nv_bfloat16, float and double vectorize");
        B.Param = P;
        B.Size = unsigned(Ctx.getTypeSizeInChars(Elem).getQuantity());
      }
      if (A->reads()) {
        B.Read = true;
        B.Reads.push_back(R->first);
      }
      if (A->writes()) {
        B.Written = true;
        unsigned W = WriteAt(*A);
        B.Writes.push_back(W);
        B.LastWrite = std::max(B.LastWrite, W);
        if (A->Kind == AccessKind::Store && assignedAtTop(*A, Tops))
          B.SurelyAssigned = true;
      }
      Replace.push_back({*R, P->getName().str()});
    }
    std::vector<Buffer> Buffers;
    for (auto &[Index, B] : ByIndex)
      Buffers.push_back(B);
    // Four elements per vector (16 bytes of the widest 4-byte array: a
    // float4 beside the char4 of an int8 input), two where an array has
    // 8-byte elements (double2).
    unsigned Widest = 0;
    for (const Buffer &B : Buffers)
      Widest = std::max(Widest, B.Size);
    unsigned VEC = Widest == 8 ? 2 : 4;
    for (Buffer &B : Buffers)
      B.Vec = *vectorFor(B.Param->getType()->getPointeeType(), VEC, Ctx);
    static const char *const Comp[] = {"x", "y", "z", "w"};

    // Pairs whose accesses, if they were the same buffer, would see each
    // other's values in a different order once several elements travel as
    // one vector: a read after a write of the other, or two writes of which
    // one is conditional. They are checked at run time (the scalar loop
    // runs per element, as the original did).
    std::vector<std::pair<std::string, std::string>> MustDiffer;
    for (const Buffer &A : Buffers) {
      if (!A.Written)
        continue;
      for (const Buffer &B : Buffers) {
        if (&A == &B || A.Param->getType().isRestrictQualified() ||
            B.Param->getType().isRestrictQualified())
          continue;
        bool ReadAfter = any_of(B.Reads, [&](unsigned R) {
          return any_of(A.Writes, [&](unsigned W) { return W < R; });
        });
        bool Conditional = B.Written && (&A < &B) && (!A.SurelyAssigned || !B.SurelyAssigned);
        if (ReadAfter || Conditional) {
          std::pair<std::string, std::string> Pair{A.Param->getName().str(),
                                                   B.Param->getName().str()};
          if (Pair.first > Pair.second)
            std::swap(Pair.first, Pair.second);
          if (!is_contained(MustDiffer, Pair))
            MustDiffer.push_back(Pair);
        }
      }
    }

    // Lane k of a piece of the source: p[i] -> forge_p.<k>, i -> (forge_v *
    // VEC + k).
    std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> IndexUses;
    for (const DeclRefExpr *U : K.IndexUses) {
      auto R = C.rangeOf(U->getSourceRange());
      if (!R)
        return notApplicable("the index is used through a macro");
      IndexUses.push_back({*R, ""});
    }
    std::string LaneFailure;
    auto Lane = [&](unsigned Begin, unsigned End, unsigned L) -> std::string {
      std::vector<SourceEdit> Edits;
      for (const auto &[R, P] : Replace)
        if (R.first >= Begin && R.second <= End)
          Edits.push_back({R.first - Begin, R.second - R.first,
                           "forge_" + P + "." + Comp[L]});
      for (unsigned U = 0; U < IndexUses.size(); ++U) {
        const auto &R = IndexUses[U].first;
        if (R.first >= Begin && R.second <= End)
          Edits.push_back({R.first - Begin, R.second - R.first,
                           K.useText(U, "(forge_v * " + std::to_string(VEC) + " + " +
                                            std::to_string(L) + ")")});
      }
      auto Text = applySourceEdits(In.Source.slice(Begin, End), Edits);
      if (!Text) {
        LaneFailure = toString(Text.takeError());
        return "";
      }
      return *Text;
    };
    auto RestOf = [&](unsigned L, StringRef Sep) {
      std::vector<std::string> Parts;
      for (const Expr *R : K.Rest) {
        auto Range = C.rangeOf(R->getSourceRange());
        Parts.push_back(L == ~0u ? K.scalarText(In.Source, Range->first, Range->second)
                                 : Lane(Range->first, Range->second, L));
      }
      return join(Parts, Sep);
    };

    // The statement that handles one element: lane L of the vector, or the
    // original element (L == ~0u) in the scalar loop.
    bool Early = K.RestExits;
    auto Element = [&](unsigned L) {
      std::string Text = L == ~0u ? K.BodyText : Lane(K.BodyRange.first, K.BodyRange.second, L);
      std::vector<std::string> Body = dedentLines(Text, K.BodyIndent), Stmt;
      if (!Early) {
        Stmt = Body;
        if (!K.Rest.empty())
          Stmt.front() = "if (" + RestOf(L, " && ") + ") " + Stmt.front();
        return Stmt;
      }
      if (K.Rest.empty())
        Stmt.push_back("{");
      else if (L == ~0u)
        Stmt.push_back("{"), Stmt.push_back("  if (" + RestOf(L, " || ") + ") continue;");
      else
        Stmt.push_back("if (!(" + RestOf(L, " || ") + ")) {");
      for (const std::string &Line : Body)
        Stmt.push_back(Line.empty() ? Line : "  " + Line);
      Stmt.push_back("}");
      return Stmt;
    };

    std::string I = K.indexName(), T = K.IndexType;
    std::string Bound = K.BoundText;
    std::vector<std::string> Loads, Stores;
    // Each pointer aligned to its vector (16 bytes for a float4, 4 for a
    // char4), the pointers of one alignment tested together.
    std::map<unsigned, std::vector<std::string>> Ptrs;
    for (const Buffer &B : Buffers) {
      std::string P = B.Param->getName().str();
      bool ConstPointee = B.Param->getType()->getPointeeType().isConstQualified();
      Ptrs[B.Size * VEC].push_back("reinterpret_cast<size_t>(" + P + ")");
      std::string Cast = "reinterpret_cast<" + std::string(ConstPointee ? "const " : "") +
                         B.Vec + " *>(" + P + ")";
      if (B.Read || !B.SurelyAssigned)
        Loads.push_back(formatv("{0}{1} forge_{2} = {3}[forge_v];", B.Written ? "" : "const ",
                                B.Vec, P, Cast)
                            .str());
      else
        Loads.push_back(B.Vec + " forge_" + P + ";");
    }
    // Stores in the order of each buffer's last write, so that the last
    // writer wins as it did per element.
    std::vector<const Buffer *> Written;
    for (const Buffer &B : Buffers)
      if (B.Written)
        Written.push_back(&B);
    llvm::stable_sort(Written, [](const Buffer *A, const Buffer *B) {
      return A->LastWrite < B->LastWrite;
    });
    for (const Buffer *B : Written)
      Stores.push_back(formatv("reinterpret_cast<{0} *>({1})[forge_v] = forge_{1};", B->Vec,
                               B->Param->getName())
                           .str());

    std::vector<std::string> L;
    bool AllWide = Ptrs.size() == 1 && Ptrs.begin()->first == 16;
    L.push_back(formatv("// {0} elements per access while every pointer is {1} aligned "
                        "(cudaMalloc",
                        VEC, AllWide ? "16-byte" : "its vector's size")
                    .str());
    L.push_back("// gives 256 bytes), then one at a time; both loops stride over the grid.");
    std::vector<std::string> Distinct;
    for (const auto &[A, B] : MustDiffer)
      Distinct.push_back("(const void *)" + A + " != (const void *)" + B);
    if (!Distinct.empty())
      L.push_back("// The same buffer passed twice runs element by element, as before.");
    L.push_back(formatv("const {0} forge_n = {1};", T,
                        K.Inclusive ? "(" + T + ")(" + Bound + ") + 1" : Bound)
                    .str());
    L.push_back(formatv("const {0} forge_first = ({0})blockIdx.x * blockDim.x + threadIdx.x;", T)
                    .str());
    L.push_back(formatv("const {0} forge_stride = ({0})blockDim.x * gridDim.x;", T).str());
    std::vector<std::string> Aligned;
    for (auto It = Ptrs.rbegin(); It != Ptrs.rend(); ++It)
      Aligned.push_back("((" + join(It->second, " | ") + ") % " + std::to_string(It->first) +
                        ") == 0");
    L.push_back("const bool forge_aligned = " + join(Aligned, " && ") + ";");
    std::string Fast = "forge_aligned";
    if (!Distinct.empty()) {
      L.push_back("const bool forge_distinct = " + join(Distinct, " && ") + ";");
      Fast += " && forge_distinct";
    }
    L.push_back(formatv("const {0} forge_vectors = {1} && forge_n > 0 ? forge_n / {2} : 0;", T,
                        Fast, VEC)
                    .str());
    L.push_back(formatv("for ({0} forge_v = forge_first; forge_v < forge_vectors; forge_v += "
                        "forge_stride) {{",
                        T)
                    .str());
    for (const std::string &S : Loads)
      L.push_back("  " + S);
    for (unsigned Ln = 0; Ln < VEC; ++Ln) {
      // Each lane in a block of its own, so that its locals do not clash.
      std::vector<std::string> Stmt = Element(Ln);
      if (!LaneFailure.empty())
        return notApplicable("internal error: " + LaneFailure);
      if (!StringRef(Stmt.front()).starts_with("{") && !StringRef(Stmt.front()).starts_with("if (!(")) {
        Stmt.front() = "{ " + Stmt.front();
        Stmt.back() += " }";
      }
      for (const std::string &Line : Stmt)
        L.push_back(Line.empty() ? Line : "  " + Line);
    }
    for (const std::string &S : Stores)
      L.push_back("  " + S);
    L.push_back("}");
    std::string Head = formatv("for ({0} {1} = forge_vectors * {2} + forge_first; {1} < forge_n; "
                               "{1} += forge_stride)",
                               T, I, VEC)
                           .str();
    for (const std::string &Line : underHead(Head, Element(~0u)))
      L.push_back(Line);
    std::string Code = indentLines(L, K.Indent);

    // The 16-bit floats' vectors, declared above the kernel.
    std::string Decls;
    for (const Buffer &B : Buffers) {
      QualType Elem = B.Param->getType()->getPointeeType();
      if (auto H = halfName(Elem); H && !StringRef(Decls).contains(B.Vec + " {"))
        Decls += halfVectorDecl(Elem.getUnqualifiedType().getAsString(), *H, VEC);
    }
    if (!Decls.empty()) {
      const auto *KBody = dyn_cast<CompoundStmt>(In.Kernel.getBody());
      auto Site = kernelBodySite(In, In.Kernel, *KBody);
      if (!Site)
        return notApplicable(toString(Site.takeError()));
      C.add({Site->DeclLine, 0, Decls});
    }
    if (K.IndexDecl && !K.KeepIndexDecl)
      C.add(eraseIndexDecl(In, K));
    C.add({K.Replaced.first, K.Replaced.second - K.Replaced.first, Code});

    std::vector<std::string> Names, Types;
    for (const Buffer &B : Buffers) {
      Names.push_back(B.Param->getName().str());
      if (!is_contained(Types, B.Vec))
        Types.push_back(B.Vec);
    }
    std::string Bytes = AllWide ? "16 bytes" : formatv("{0} elements", VEC).str();
    std::string Rationale = formatv(
        "Each thread now moves {5} of {0} per load or store ({1}), a {2}x cut in memory "
        "instructions and address arithmetic for a memory-bound kernel. Contiguity: the kernel "
        "model sees an elementwise map whose every global access is {3}[{4}] with '{4}' = "
        "blockIdx.x * blockDim.x + threadIdx.x on an unoffset kernel pointer, and a body whose "
        "values come from its own elements, '{4}' and grid-uniform values. Alignment: assumed "
        "from cudaMalloc (256 bytes) and checked at run time; a misaligned pointer takes the "
        "scalar loop. The vector loop is a grid-stride loop and the scalar loop takes the last "
        "n % {2} elements, so the kernel is correct for any grid.",
        join(Names, ", "), join(Types, ", "), VEC, Names.front(), I, Bytes)
                                .str();
    if (!Distinct.empty())
      Rationale += "\nIf " + join(Distinct, " or ") +
                   " fails (one buffer passed twice), the order of its reads and writes matters: "
                   "the scalar loop runs.";

    // The grid is divided by the vector width, not capped at a number of
    // waves: on the H200 one vector per thread (suite copy at 2^28 floats:
    // 503.6 us) beat the same loop capped at 4 waves (537.9 us); grid-stride
    // proposes the cap, and a cap already in the spec stays.
    std::optional<agent::SpecChange> Spec;
    auto Grid = In.Request.Geometry.find("grid.x");
    bool Waves = In.Request.Tunables.count("FORGE_GRID_WAVES") &&
                 Grid != In.Request.Geometry.end() &&
                 StringRef(Grid->second).contains("FORGE_GRID_WAVES");
    // A grid-stride loop on a grid of a fixed number of blocks (CUDA by
    // Example's <<<128, 128>>>) is not sized to the data: fewer blocks would
    // only leave more of the GPU idle.
    bool Fixed = K.Form == ElementGuard::GridStrideLoop && Grid != In.Request.Geometry.end() &&
                 none_of(Grid->second, [](char Ch) { return isAlpha(Ch) || Ch == '_'; });
    if (Waves) {
      Rationale += "\nThe grid is already capped at FORGE_GRID_WAVES waves; it stays.";
    } else if (Fixed) {
      Rationale += "\nThe grid-stride loop runs on a fixed grid of " + Grid->second +
                   " blocks, not one sized to the data; it stays.";
    } else if (Grid != In.Request.Geometry.end()) {
      std::string Expr = formatv("ceil_div({0}, {1})", Grid->second, VEC).str();
      if (auto Parsed = measure::IntExpr::parse(Expr)) {
        agent::SpecChange S;
        S.Geometry["grid.x"] = Expr;
        S.Justification = formatv("each thread handles {0} elements per step and the loops "
                                  "cover all {1} elements for any grid, so 1/{0} of the blocks "
                                  "suffice",
                                  VEC, Bound)
                              .str();
        Spec = std::move(S);
      } else {
        consumeError(Parsed.takeError());
      }
    }
    return proposeEdits(In, name(),
                        formatv("{0} accesses ({1}) to {2}",
                                AllWide ? "16-byte" : formatv("{0}-element", VEC).str(),
                                join(Types, ", "), join(Names, ", "))
                            .str(),
                        Rationale, C.edits(), std::move(Spec));
  }
};
} // namespace

std::unique_ptr<ExpertRule> createVectorizeRule() { return std::make_unique<VectorizeRule>(); }

} // namespace forge::passes
