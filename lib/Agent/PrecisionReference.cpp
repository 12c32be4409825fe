//===- Agent/PrecisionReference.cpp - The original, summed in double ------===//
///
/// \file
/// See PrecisionReference.h. The rewrite, for a kernel
///
///     __global__ void dot(const float *a, const float *b, float *r, int n) {
///       int i = ...;
///       if (i < n) atomicAdd(r, a[i] * b[i]);
///     }
///
/// is
///
///     __device__ double __forge_hp_r[1];
///     __device__ unsigned long long __forge_hp_ticket;
///     __device__ __forceinline__ void __forge_hp_body_dot(const float *a, ...) {
///       int i = ...;
///       if (i < n) atomicAdd(&__forge_hp_r[(r) - (r)], (double)(a[i] * b[i]));
///     }
///     __global__ void dot(const float *a, const float *b, float *r, int n) {
///       __forge_hp_body_dot(a, b, r, n);
///       ... the last block adds __forge_hp_r into r and clears it ...
///     }
///
/// The body moves into a device function so that its `return`s still reach
/// the last-block epilogue.
///
//===----------------------------------------------------------------------===//
#include "forge/Agent/PrecisionReference.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelLookup.h"
#include "forge/Frontend/ParamAccess.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace clang;
using namespace llvm;

namespace forge::agent {
namespace {

/// The most elements a shadow may have (128 MiB of doubles).
constexpr int64_t MaxShadowElements = int64_t(1) << 24;

/// A text replacement at file offsets of the main file.
struct TextEdit {
  unsigned Begin = 0, End = 0;
  std::string Text;
};

class Builder {
public:
  Builder(ASTContext &Ctx, const FunctionDecl &K, StringRef Source,
          const measure::LaunchSpec &Spec, const measure::ValueMap &Values)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), K(K), Source(Source), Spec(Spec),
        Values(Values) {}

  PrecisionReferenceResult run();

private:
  /// [Begin, End) of a token range in the main file; none inside macros.
  std::optional<std::pair<unsigned, unsigned>> range(SourceRange R) const;
  std::string text(SourceRange R) const;
  /// Whether the value of E is unused (an expression statement).
  bool resultUnused(const Expr *E) const;
  PrecisionReferenceResult fail(std::string Why) const { return {std::nullopt, std::move(Why)}; }

  ASTContext &Ctx;
  const SourceManager &SM;
  const FunctionDecl &K;
  StringRef Source;
  const measure::LaunchSpec &Spec;
  const measure::ValueMap &Values;
};

std::optional<std::pair<unsigned, unsigned>> Builder::range(SourceRange R) const {
  // A macro is allowed where it lies wholly inside the range (an argument
  // that is a macro, `__global__` at the start of the kernel).
  CharSourceRange F =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (F.isInvalid() || !SM.isWrittenInMainFile(F.getBegin()))
    return std::nullopt;
  unsigned B = SM.getFileOffset(F.getBegin()), E = SM.getFileOffset(F.getEnd());
  if (B > E || E > Source.size())
    return std::nullopt;
  return std::make_pair(B, E);
}

std::string Builder::text(SourceRange R) const {
  auto Rg = range(R);
  return Rg ? Source.slice(Rg->first, Rg->second).str() : std::string();
}

bool Builder::resultUnused(const Expr *E) const {
  DynTypedNodeList Ps = Ctx.getParents(*E);
  while (Ps.size() == 1) {
    if (const auto *P = Ps[0].get<Expr>()) {
      if (isa<ParenExpr>(P) || (isa<CastExpr>(P) && cast<CastExpr>(P)->getType()->isVoidType())) {
        Ps = Ctx.getParents(*P);
        continue;
      }
      return false;
    }
    return Ps[0].get<Stmt>() != nullptr;
  }
  return false;
}

/// Whether the kernel assigns to the parameter itself (`r += off`).
bool reassigned(const FunctionDecl &K, const ParmVarDecl *P) {
  struct Finder : DynamicRecursiveASTVisitor {
    const ParmVarDecl *P;
    bool Found = false;
    bool isP(const Expr *E) const {
      const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return D && D->getDecl() == P;
    }
    bool VisitBinaryOperator(BinaryOperator *B) override {
      Found |= B->isAssignmentOp() && isP(B->getLHS());
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) override {
      Found |= (U->isIncrementDecrementOp() && isP(U->getSubExpr())) ||
               (U->getOpcode() == UO_AddrOf && isP(U->getSubExpr()));
      return true;
    }
  } F;
  F.P = P;
  F.TraverseStmt(K.getBody());
  return F.Found;
}

PrecisionReferenceResult Builder::run() {
  if (K.getDescribedFunctionTemplate() || K.isTemplateInstantiation() ||
      K.isDependentContext())
    return fail("the kernel is a template (the reference is built for plain kernels only)");
  auto M = analysis::analyzeKernel(Ctx, K);
  if (!M)
    return fail("the kernel cannot be analysed: " + toString(M.takeError()));

  // The float buffers the kernel sums into with atomics.
  std::map<unsigned, std::vector<const analysis::Access *>> Targets; // by parameter index
  for (const analysis::Access &A : M->Accesses)
    if (A.Kind == analysis::AccessKind::Atomic && A.ParamIndex >= 0 &&
        A.Atomic == analysis::AtomicOp::Add && A.ElementType == "float")
      Targets[unsigned(A.ParamIndex)].push_back(&A);
  if (Targets.empty())
    return fail("the kernel has no float atomicAdd into a buffer");

  std::vector<frontend::PointerAccess> PA = frontend::analyzePointerParams(K, Ctx);
  auto Env = Spec.environment(Values);
  if (!Env)
    return fail("the spec's sizes do not evaluate: " + toString(Env.takeError()));

  std::vector<TextEdit> BodyEdits; // inside the body, at file offsets
  std::string Globals, Epilogue;
  std::vector<std::string> Buffers, Lines;
  for (const auto &[Index, Atomics] : Targets) {
    const ParmVarDecl *P = K.getParamDecl(Index);
    std::string Name = P->getName().str();
    if (Name.empty())
      return fail("parameter " + std::to_string(Index + 1) + " has no name");
    for (const analysis::Access *A : M->accessesTo(P))
      if (A->Kind != analysis::AccessKind::Atomic || A->Atomic != analysis::AtomicOp::Add)
        return fail(formatv("'{0}' is also accessed by '{1}' (line {2}), not only summed into "
                            "with atomics",
                            Name, A->Text, A->Loc.Line)
                        .str());
    if (Index < PA.size() && PA[Index].Unknown)
      return fail("the use of '" + Name + "' cannot be followed (passed on, stored or cast)");
    if (reassigned(K, P))
      return fail("'" + Name + "' is assigned or its address taken in the kernel");
    if (Index >= Spec.Args.size())
      return fail("the spec has no argument for '" + Name + "'");
    const measure::Buffer *B = nullptr;
    for (const measure::Buffer &Buf : Spec.Buffers)
      if (Buf.Name == Spec.Args[Index])
        B = &Buf;
    if (!B || B->Type != measure::DType::F32 || B->Role == measure::BufferRole::In)
      return fail("'" + Name + "' is not a float output buffer of the spec");
    auto Count = B->Count.evaluate(*Env);
    if (!Count)
      return fail("the size of '" + B->Name + "' does not evaluate: " + toString(Count.takeError()));
    if (*Count <= 0 || *Count > MaxShadowElements)
      return fail(formatv("'{0}' has {1} elements; a double shadow is kept for at most {2}",
                          B->Name, *Count, MaxShadowElements)
                      .str());
    std::string Shadow = "__forge_hp_" + Name;
    Globals += formatv("__device__ double {0}[{1}];\n", Shadow, *Count).str();
    Epilogue += formatv("    for (unsigned long long __forge_i = __forge_tid; __forge_i < {0}ull; "
                        "__forge_i += __forge_threads) {{\n"
                        "      {1}[__forge_i] = (float)((double){1}[__forge_i] + "
                        "__ldcg(&{2}[__forge_i]));\n"
                        "      {2}[__forge_i] = 0.0;\n"
                        "    }\n",
                        *Count, Name, Shadow)
                    .str();
    Buffers.push_back(B->Name);

    for (const analysis::Access *A : Atomics) {
      const auto *C = dyn_cast_or_null<CallExpr>(A->E);
      if (!C || C->getNumArgs() != 2)
        return fail("'" + A->Text + "' is not a two-argument atomic call");
      if (!resultUnused(C))
        return fail(formatv("the value of '{0}' (line {1}) is used", A->Text, A->Loc.Line).str());
      auto Whole = range(C->getSourceRange());
      std::string Ptr = text(C->getArg(0)->getSourceRange());
      std::string Val = text(C->getArg(1)->getSourceRange());
      if (!Whole || Ptr.empty() || Val.empty())
        return fail("'" + A->Text + "' is written through a macro");
      BodyEdits.push_back({Whole->first, Whole->second,
                           formatv("atomicAdd(&{0}[({1}) - ({2})], (double)({3}))", Shadow, Ptr,
                                   Name, Val)
                               .str()});
      Lines.push_back(formatv("{0} (line {1})", A->Callee, A->Loc.Line).str());
      // The accumulator that is the atomic's operand, summed in double too.
      const Expr *Op = C->getArg(1)->IgnoreParenImpCasts();
      if (const auto *D = dyn_cast<DeclRefExpr>(Op))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          if (const analysis::Reduction *R = M->reductionOf(V);
              R && R->Op == analysis::ReductionOp::Add && V->getType()->isSpecificBuiltinType(
                                                              BuiltinType::Float)) {
            TypeSourceInfo *TSI = V->getTypeSourceInfo();
            if (TSI)
              if (auto T = range(TSI->getTypeLoc().getSourceRange());
                  T && Source.slice(T->first, T->second) == "float") {
                bool Seen = llvm::any_of(BodyEdits, [&](const TextEdit &E) {
                  return E.Begin == T->first;
                });
                if (!Seen)
                  BodyEdits.push_back({T->first, T->second, "double"});
              }
          }
    }
  }

  // The kernel: its parameters as written, its body with the edits.
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K.getBody());
  if (!Body)
    return fail("the kernel has no body");
  auto BodyRange = range(Body->getSourceRange());
  auto Decl = range(K.getSourceRange());
  if (!BodyRange || !Decl)
    return fail("the kernel is written through a macro");
  if (K.getNumParams() == 0)
    return fail("the kernel has no parameters");
  auto Params = range(SourceRange(K.getParamDecl(0)->getBeginLoc(),
                                  K.getParamDecl(K.getNumParams() - 1)->getEndLoc()));
  if (!Params)
    return fail("the kernel's parameters are written through a macro");
  std::vector<std::string> Args;
  for (const ParmVarDecl *P : K.parameters()) {
    if (P->getName().empty())
      return fail("a parameter has no name");
    Args.push_back(P->getName().str());
  }
  llvm::sort(BodyEdits, [](const TextEdit &A, const TextEdit &B) { return A.Begin < B.Begin; });
  std::string NewBody;
  unsigned At = BodyRange->first;
  for (const TextEdit &E : BodyEdits) {
    if (E.Begin < At || E.End > BodyRange->second)
      return fail("two atomics overlap");
    NewBody += Source.slice(At, E.Begin).str() + E.Text;
    At = E.End;
  }
  NewBody += Source.slice(At, BodyRange->second).str();

  std::string Fn = "__forge_hp_body_" + K.getName().str();
  std::string Helper = Globals + "__device__ unsigned long long __forge_hp_ticket;\n" +
                       "__device__ __forceinline__ void " + Fn + "(" +
                       Source.slice(Params->first, Params->second).str() + ") " + NewBody + "\n";
  std::string Kernel =
      "{\n  " + Fn + "(" + join(Args, ", ") + ");\n" +
      "  // The last block to finish adds the double sums into the outputs, rounding\n"
      "  // once, and clears them for the next launch.\n"
      "  __shared__ bool __forge_last;\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {\n"
      "    __threadfence();\n"
      "    unsigned long long __forge_t = atomicAdd(&__forge_hp_ticket, 1ull);\n"
      "    __forge_last = __forge_t + 1 == (unsigned long long)gridDim.x * gridDim.y * gridDim.z;\n"
      "  }\n"
      "  __syncthreads();\n"
      "  if (__forge_last) {\n"
      "    __threadfence();\n"
      "    unsigned long long __forge_threads = (unsigned long long)blockDim.x * blockDim.y * "
      "blockDim.z;\n"
      "    unsigned long long __forge_tid = threadIdx.x + (unsigned long long)blockDim.x * "
      "(threadIdx.y + (unsigned long long)blockDim.y * threadIdx.z);\n" +
      Epilogue +
      "    if (__forge_tid == 0)\n"
      "      __forge_hp_ticket = 0;\n"
      "  }\n"
      "}";

  PrecisionReference R;
  R.Source = Source.take_front(Decl->first).str() + Helper +
             Source.slice(Decl->first, BodyRange->first).str() + Kernel +
             Source.drop_front(BodyRange->second).str();
  R.Buffers = Buffers;
  R.Summary = formatv("{0} into '{1}' accumulated in double", join(Lines, ", "),
                      join(Buffers, "', '"))
                  .str();
  return {std::move(R), ""};
}

} // namespace

Expected<PrecisionReferenceResult>
buildPrecisionReference(const frontend::Toolchain &TC, const frontend::ParseOptions &Parse,
                        StringRef File, StringRef Source, const measure::LaunchSpec &Spec,
                        const measure::ValueMap &Values) {
  frontend::ParseRequest PR;
  PR.File = File.str();
  PR.S = frontend::Side::Device;
  PR.Contents = Source.str();
  frontend::ParseDiagnostics Diags(nullptr);
  PrecisionReferenceResult Out;
  Out.WhyNot = "the kernel was not found";
  Error E = frontend::parseCuda(
      TC, Parse, PR, Diags,
      [&](ASTContext &Ctx, CompilerInstance &, const frontend::PreprocessorFacts &) {
        auto K = frontend::findKernel(Ctx, Spec.Kernel, File);
        if (!K) {
          Out.WhyNot = toString(K.takeError());
          return;
        }
        if (!Ctx.getSourceManager().isWrittenInMainFile(
                Ctx.getSourceManager().getExpansionLoc((*K)->getLocation()))) {
          Out.WhyNot = "the kernel is defined in another file";
          return;
        }
        Out = Builder(Ctx, **K, Source, Spec, Values).run();
      });
  if (E)
    return std::move(E);
  if (Out.Reference && Diags.errors())
    return PrecisionReferenceResult{std::nullopt, "the file has parse errors"};
  return Out;
}

} // namespace forge::agent
