//===- Agent/EditCheck.cpp - What an edit adds, on the AST ----------------===//
#include "forge/Agent/EditCheck.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include <map>

using namespace clang;
using namespace llvm;

namespace forge::agent {

namespace {

/// Host functions an edit of a kernel or its launch may call: the CUDA
/// runtime's launch, attribute, occupancy, device-query, error, memory and
/// synchronisation API (a launch change may need a workspace, a zeroed
/// counter or a symbol's address), dim3, and std::min/max and math.
bool allowedHostFunction(StringRef Name) {
  static const StringSet<> Exact = {
      // launch
      "cudaLaunchKernel", "cudaLaunchKernelEx", "cudaLaunchKernelExC",
      "cudaLaunchCooperativeKernel", "cudaConfigureCall", "__cudaPushCallConfiguration",
      "cudaLaunchKernel_ptsz", "cudaLaunchKernelExC_ptsz", "cudaLaunchCooperativeKernel_ptsz",
      // attributes and device queries
      "cudaFuncSetAttribute", "cudaFuncGetAttributes", "cudaFuncSetCacheConfig",
      "cudaGetDevice", "cudaGetDeviceCount", "cudaDeviceGetAttribute",
      "cudaGetDeviceProperties", "cudaGetSymbolAddress", "cudaGetSymbolSize",
      // errors and synchronisation
      "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
      "cudaDeviceSynchronize", "cudaStreamSynchronize",
      // memory for workspaces and counters
      "cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync",
      // std::min/max, clamp, numeric limits
      "std::min", "std::max", "std::clamp", "min", "max",
      // <cmath> and the CUDA math API on the host
      "abs", "labs", "llabs", "fabs", "fabsf", "ceil", "ceilf", "floor", "floorf", "round",
      "roundf", "lround", "trunc", "truncf", "sqrt", "sqrtf", "cbrt", "cbrtf", "pow", "powf",
      "exp", "expf", "exp2", "exp2f", "log", "logf", "log2", "log2f", "log10", "log10f",
      "fmin", "fminf", "fmax", "fmaxf", "fmod", "fmodf", "ldexp", "frexp", "ilogb",
      "std::abs", "std::fabs", "std::ceil", "std::floor", "std::round", "std::lround",
      "std::trunc", "std::sqrt", "std::cbrt", "std::pow", "std::exp", "std::exp2", "std::log",
      "std::log2", "std::log10", "std::fmin", "std::fmax", "std::fmod", "std::ldexp",
      "std::frexp", "std::ilogb"};
  if (Exact.contains(Name))
    return true;
  for (StringRef Prefix : {"cudaOccupancy", "cudaMemcpy", "cudaMemset", "std::numeric_limits<"})
    if (Name.starts_with(Prefix))
      return true;
  return false;
}

/// Classes whose non-trivial constructors host code may run.
bool allowedHostClass(StringRef Name) {
  return Name == "dim3" || Name == "uint3" || Name == "cudaLaunchConfig_t" ||
         Name == "cudaLaunchAttribute" || Name == "cudaFuncAttributes" ||
         Name == "cudaDeviceProp";
}

/// Attributes kernel optimisation needs: the CUDA declaration specifiers,
/// launch bounds and cluster dimensions, alignment, inlining, unused.
bool allowedAttribute(const Attr &A) {
  return isa<CUDAGlobalAttr, CUDADeviceAttr, CUDAHostAttr, CUDAConstantAttr, CUDASharedAttr,
             CUDALaunchBoundsAttr, CUDAClusterDimsAttr, CUDAGridConstantAttr, AlignedAttr,
             AlwaysInlineAttr, NoInlineAttr, UnusedAttr, WarnUnusedResultAttr, LoopHintAttr,
             LikelyAttr, UnlikelyAttr, FallThroughAttr>(A);
}

/// Headers a kernel edit may include: the toolkit's device headers (half
/// and bfloat types, cooperative groups, warp matrix functions, pipelines,
/// libcu++ and CUB), as <...> and only when they resolve to a system header.
bool allowedInclude(StringRef Name) {
  static const StringSet<> Exact = {"cuda_fp16.h",  "cuda_bf16.h",      "cuda_fp8.h",
                                    "mma.h",        "cooperative_groups.h", "cuda_pipeline.h",
                                    "cuda_awbarrier.h", "cuda/pipeline", "cuda/barrier",
                                    "cuda/atomic",  "cub/cub.cuh"};
  return Exact.contains(Name) || Name.starts_with("cooperative_groups/") ||
         Name.starts_with("cuda/std/") || Name.starts_with("cub/block/") ||
         Name.starts_with("cub/warp/");
}

/// Host globals whose values are the process's secrets or its identity.
bool secretGlobal(StringRef Name) {
  return Name == "environ" || Name == "__environ" || Name == "_environ" ||
         Name == "program_invocation_name" || Name == "program_invocation_short_name" ||
         Name == "__progname";
}

bool deviceOnly(const Decl *D) {
  return (D->hasAttr<CUDAGlobalAttr>() || D->hasAttr<CUDADeviceAttr>()) &&
         !D->hasAttr<CUDAHostAttr>();
}

bool deviceVariable(const VarDecl *V) {
  return V->hasAttr<CUDADeviceAttr>() || V->hasAttr<CUDAConstantAttr>() ||
         V->hasAttr<CUDASharedAttr>();
}

std::string nameOf(const NamedDecl &D) {
  std::string N = D.getQualifiedNameAsString();
  return N.empty() ? std::string("(anonymous)") : N;
}

class Recorder {
public:
  Recorder(const SourceManager &SM, std::vector<EditFact> &Out) : SM(SM), Out(Out) {}
  bool inMain(SourceLocation L) const {
    L = SM.getExpansionLoc(L);
    return L.isValid() && SM.isWrittenInMainFile(L);
  }
  void add(SourceLocation L, std::string Key, std::string What, bool Widened = false) {
    Out.push_back({std::move(Key), std::move(What), SM.getExpansionLineNumber(L), Widened});
  }
  const SourceManager &SM;
  std::vector<EditFact> &Out;
};

class FactVisitor : public DynamicRecursiveASTVisitor {
public:
  explicit FactVisitor(Recorder &R) : R(R) { ShouldVisitTemplateInstantiations = false; }

  bool TraverseDecl(Decl *D) override {
    if (!D)
      return true;
    bool Saved = Device;
    if (isa<FunctionDecl>(D) && deviceOnly(D))
      Device = true;
    if (const auto *V = dyn_cast<VarDecl>(D); V && deviceVariable(V))
      Device = true;
    bool Ok = DynamicRecursiveASTVisitor::TraverseDecl(D);
    Device = Saved;
    return Ok;
  }

  bool VisitDecl(Decl *D) override {
    if (D->isImplicit())
      return true;
    for (const Attr *A : D->attrs())
      attribute(*A);
    if (const auto *F = dyn_cast<FileScopeAsmDecl>(D); F && R.inMain(F->getAsmLoc()))
      R.add(F->getAsmLoc(), "asm", "an asm declaration at file scope");
    return true;
  }

  bool VisitAttributedStmt(AttributedStmt *S) override {
    for (const Attr *A : S->getAttrs())
      attribute(*A);
    return true;
  }

  bool VisitVarDecl(VarDecl *V) override {
    if (Device || !R.inMain(V->getLocation()) || isa<ParmVarDecl>(V))
      return true;
    StorageDuration SD = V->getStorageDuration();
    if (SD != SD_Static && SD != SD_Thread)
      return true;
    const Expr *Init = V->getInit();
    if (!Init || V->isConstexpr())
      return true;
    if (Init->isValueDependent() || !V->hasConstantInitialization())
      R.add(V->getLocation(), "static-init " + nameOf(*V),
            "a static initialiser that is not a constant ('" + nameOf(*V) +
                "' is initialised by code run when the program starts or first passes it)");
    return true;
  }

  bool VisitGCCAsmStmt(GCCAsmStmt *S) override { return asmStmt(S); }
  bool VisitMSAsmStmt(MSAsmStmt *S) override { return asmStmt(S); }

  bool VisitCallExpr(CallExpr *E) override {
    const Expr *Callee = E->getCallee() ? E->getCallee()->IgnoreParenImpCasts() : nullptr;
    if (Callee)
      Direct.insert(Callee);
    if (Device || !R.inMain(E->getBeginLoc()) || isa<CUDAKernelCallExpr>(E))
      return true;
    const auto *F = dyn_cast_or_null<FunctionDecl>(E->getCalleeDecl());
    if (!F) {
      std::string Name;
      if (const auto *U = dyn_cast_or_null<OverloadExpr>(Callee))
        Name = U->getName().getAsString();
      if (Name.empty())
        R.add(E->getBeginLoc(), "call-indirect",
              "a call through a function pointer or an unresolved callee in host code");
      else
        R.add(E->getBeginLoc(), "call " + Name,
              "calls '" + Name + "' in host code (an unresolved callee)");
      return true;
    }
    if (!allowedCallee(*F))
      R.add(E->getBeginLoc(), "call " + nameOf(*F),
            "calls '" + nameOf(*F) + "' in host code (not in the allowlist)");
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *E) override {
    if (Device || !R.inMain(E->getBeginLoc()))
      return true;
    const CXXConstructorDecl *C = E->getConstructor();
    if (!C || C->isTrivial() || allowedHostClass(nameOf(*C->getParent())) || definedInMain(*C))
      return true;
    std::string Class = nameOf(*C->getParent());
    R.add(E->getBeginLoc(), "construct " + Class,
          "constructs a '" + Class + "' in host code (not in the allowlist)");
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    if (Device || !R.inMain(E->getLocation()))
      return true;
    if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl())) {
      if (!Direct.contains(E) && !deviceOnly(F))
        R.add(E->getLocation(), "address " + nameOf(*F),
              "takes the address of the host function '" + nameOf(*F) + "'");
      return true;
    }
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (!V || !V->hasGlobalStorage() || deviceVariable(V))
      return true;
    bool Secret = secretGlobal(V->getName());
    const VarDecl *Def = V->getDefinition();
    if (Secret || !Def || !R.inMain(Def->getLocation()))
      R.add(E->getLocation(), "global " + nameOf(*V),
            "uses the host global '" + nameOf(*V) + "'" +
                (Secret ? std::string(" (the process's environment or identity)")
                        : std::string(" (not defined in this file)")));
    return true;
  }

private:
  bool definedInMain(const FunctionDecl &F) const {
    const FunctionDecl *Def = nullptr;
    return F.hasBody(Def) && Def && R.inMain(Def->getLocation());
  }

  bool allowedCallee(const FunctionDecl &F) const {
    if (deviceOnly(&F) || definedInMain(F))
      return true;
    if (const auto *M = dyn_cast<CXXMethodDecl>(&F); M && M->isTrivial())
      return true;
    std::string Name = nameOf(F);
    if (F.getBuiltinID() && StringRef(Name).starts_with("__builtin_"))
      return true;
    if (!allowedHostFunction(Name))
      return false;
    // A name from the toolkit or the C++ library, not one the edit declared.
    SourceLocation L = R.SM.getExpansionLoc(F.getCanonicalDecl()->getLocation());
    return L.isValid() && R.SM.isInSystemHeader(L);
  }

  void attribute(const Attr &A) {
    if (A.isImplicit() || A.isInherited() || allowedAttribute(A) || !R.inMain(A.getLocation()))
      return;
    std::string Name = A.getSpelling();
    if (Name.empty())
      Name = A.getAttrName() ? A.getAttrName()->getName().str() : "(unnamed)";
    R.add(A.getLocation(), "attribute " + Name, "attribute '" + Name + "'");
  }

  bool asmStmt(AsmStmt *S) {
    // Inline PTX in device code is compiled by ptxas only; it cannot reach
    // the host. asm anywhere else is host assembly (syscall, ...).
    if (!Device && R.inMain(S->getAsmLoc()))
      R.add(S->getAsmLoc(), "asm", "an asm statement in host code");
    return true;
  }

  Recorder &R;
  bool Device = false;
  SmallPtrSet<const Expr *, 16> Direct; ///< callees of calls seen so far
};

/// New file-scope declarations (namespaces and extern "C" blocks looked
/// into): allowed in the default scope only for device and global functions
/// and device variables (the expert rules' helpers and counters).
void fileScope(const DeclContext &DC, Recorder &R) {
  for (const Decl *D : DC.decls()) {
    if (D->isImplicit() || !R.inMain(D->getLocation()))
      continue;
    if (isa<LinkageSpecDecl>(D) || isa<ExportDecl>(D)) {
      fileScope(*cast<DeclContext>(D), R);
      continue;
    }
    if (isa<StaticAssertDecl>(D) || isa<EmptyDecl>(D))
      continue;
    if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(D);
        S && S->getSpecializationKind() == TSK_ImplicitInstantiation)
      continue;
    const Decl *Inner = D;
    if (const auto *T = dyn_cast<FunctionTemplateDecl>(D))
      Inner = T->getTemplatedDecl();
    if (isa<FunctionDecl>(Inner) &&
        (Inner->hasAttr<CUDAGlobalAttr>() || Inner->hasAttr<CUDADeviceAttr>()))
      continue;
    if (const auto *V = dyn_cast<VarDecl>(Inner); V && deviceVariable(V))
      continue;
    std::string Kind = D->getDeclKindName();
    std::string Name;
    if (const auto *N = dyn_cast<NamedDecl>(D))
      Name = nameOf(*N);
    std::string What = "a new file-scope declaration (" + Kind +
                       (Name.empty() ? std::string("") : " '" + Name + "'") +
                       "; widen with --scope=file)";
    R.add(D->getLocation(), "decl " + Kind + " " + Name, What, /*Widened=*/true);
    if (const auto *NS = dyn_cast<NamespaceDecl>(D))
      fileScope(*NS, R);
  }
}

} // namespace

/// Directives of the main file.
class EditFactCollector::Callbacks : public PPCallbacks {
public:
  Callbacks(const SourceManager &SM, std::vector<EditFact> &Out) : R(SM, Out) {}

  void InclusionDirective(SourceLocation Hash, const Token &, StringRef FileName, bool Angled,
                          CharSourceRange, OptionalFileEntryRef File, StringRef, StringRef,
                          const Module *, bool, SrcMgr::CharacteristicKind Kind) override {
    if (!R.inMain(Hash))
      return;
    if (Angled && File && Kind != SrcMgr::C_User && allowedInclude(FileName))
      return;
    std::string Spelled = Angled ? "<" + FileName.str() + ">" : "\"" + FileName.str() + "\"";
    R.add(Hash, "#include " + Spelled, "#include " + Spelled);
  }

  void EmbedDirective(SourceLocation Hash, StringRef FileName, bool Angled,
                      OptionalFileEntryRef, const LexEmbedParametersResult &) override {
    if (R.inMain(Hash))
      R.add(Hash, "#embed " + FileName.str(), "#embed " + FileName.str());
  }

  void MacroDefined(const Token &Name, const MacroDirective *MD) override {
    SourceLocation L = MD ? MD->getLocation() : Name.getLocation();
    if (!R.inMain(L))
      return;
    std::string N = Name.getIdentifierInfo() ? Name.getIdentifierInfo()->getName().str() : "";
    R.add(L, "#define " + N, "#define " + N + " (widen with --scope=file)", /*Widened=*/true);
  }

  void MacroUndefined(const Token &Name, const MacroDefinition &, const MacroDirective *) override {
    if (!R.inMain(Name.getLocation()))
      return;
    std::string N = Name.getIdentifierInfo() ? Name.getIdentifierInfo()->getName().str() : "";
    R.add(Name.getLocation(), "#undef " + N, "#undef " + N + " (widen with --scope=file)",
          /*Widened=*/true);
  }

  void PragmaDirective(SourceLocation Loc, PragmaIntroducerKind Introducer) override {
    if (!R.inMain(Loc))
      return;
    if (Introducer != PIK_HashPragma) {
      R.add(Loc, "_Pragma", "_Pragma");
      return;
    }
    // "#  pragma  name ...": the name from the main file's text.
    bool Invalid = false;
    StringRef Text = R.SM.getCharacterData(R.SM.getSpellingLoc(Loc), &Invalid);
    if (Invalid)
      return;
    Text = Text.split('\n').first;
    Text = Text.ltrim();
    if (Text.consume_front("#"))
      Text = Text.ltrim();
    Text.consume_front("pragma");
    Text = Text.ltrim();
    StringRef Name = Text.take_while([](char C) { return isAlnum(C) || C == '_'; });
    if (Name == "unroll" || Name == "nounroll")
      return;
    std::string Line = Text.rtrim().str();
    R.add(Loc, "#pragma " + Name.str(), "#pragma " + Line);
  }

  void FileChanged(SourceLocation Loc, FileChangeReason Reason, SrcMgr::CharacteristicKind,
                   FileID) override {
    if (Reason == RenameFile && Loc.isValid() && R.SM.isWrittenInMainFile(Loc))
      R.add(Loc, "#line", "#line (renames the file or its lines)");
  }

private:
  Recorder R;
};

EditFactCollector::EditFactCollector() = default;
EditFactCollector::~EditFactCollector() = default;

void EditFactCollector::attach(CompilerInstance &CI) {
  CI.getPreprocessor().addPPCallbacks(std::make_unique<Callbacks>(CI.getSourceManager(), Facts));
}

void EditFactCollector::collect(ASTContext &Ctx, const frontend::PreprocessorFacts &PF) {
  const SourceManager &SM = Ctx.getSourceManager();
  Recorder R(SM, Facts);
  fileScope(*Ctx.getTranslationUnitDecl(), R);
  FactVisitor V(R);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  // Code in an inactive #if branch (`#ifndef __CUDA_ARCH__` on this
  // device-side parse) is not in the AST: its lines may not change.
  for (SourceRange S : PF.Skipped) {
    if (!R.inMain(S.getBegin()))
      continue;
    bool Invalid = false;
    StringRef Buf = SM.getBufferData(SM.getMainFileID(), &Invalid);
    if (Invalid)
      continue;
    unsigned B = SM.getFileOffset(SM.getExpansionLoc(S.getBegin()));
    unsigned E = SM.getFileOffset(SM.getExpansionLoc(S.getEnd()));
    if (B >= E || E > Buf.size())
      continue;
    SmallVector<StringRef, 0> Lines;
    Buf.slice(B, E).split(Lines, '\n');
    unsigned Line = SM.getExpansionLineNumber(S.getBegin());
    for (StringRef L : Lines) {
      StringRef T = L.trim();
      if (!T.empty() && !T.starts_with("#"))
        Facts.push_back({"hidden " + T.str(),
                         "code in an inactive preprocessor branch, which the check cannot see: '" +
                             T.take_front(80).str() + "'",
                         Line, false});
      ++Line;
    }
  }
}

std::vector<std::string> checkEdit(const std::vector<EditFact> &Before,
                                   const std::vector<EditFact> &After, bool WidenedScope) {
  std::map<std::string, int> Have;
  for (const EditFact &F : Before)
    ++Have[F.Key];
  std::vector<const EditFact *> Sorted;
  for (const EditFact &F : After)
    Sorted.push_back(&F);
  llvm::stable_sort(Sorted, [](const EditFact *A, const EditFact *B) { return A->Line < B->Line; });
  std::vector<std::string> Out;
  for (const EditFact *P : Sorted) {
    const EditFact &F = *P;
    auto It = Have.find(F.Key);
    if (It != Have.end() && It->second > 0) {
      --It->second;
      continue;
    }
    if (F.WidenedScopeAllows && WidenedScope)
      continue;
    std::string Text = "line " + std::to_string(F.Line) + ": " + F.What;
    if (!is_contained(Out, Text))
      Out.push_back(Text);
  }
  return Out;
}

bool allowedNewFileInclude(StringRef Name) {
  return Name == "cuda_runtime.h" || Name == "cstddef" || Name == "cstdint" ||
         Name == "cstring" || Name == "climits" || Name == "cfloat" || Name == "cmath";
}

std::vector<std::string> checkNewFile(const std::vector<EditFact> &Facts) {
  std::vector<EditFact> Judged;
  for (const EditFact &F : Facts) {
    StringRef Key = F.Key;
    // Angled includes only: a quoted one reads the user's files.
    if (Key.consume_front("#include <") && Key.consume_back(">") && allowedNewFileInclude(Key))
      continue;
    Judged.push_back(F);
  }
  return checkEdit({}, Judged, /*WidenedScope=*/true);
}

} // namespace forge::agent
