//===- Frontend/KernelIndex.cpp -------------------------------------------===//
///
/// \file
/// Builds the FileIndex from two parses of a file: the host side (launch
/// sites, template instantiations) and the device side for the target arch
/// (what device code really contains under that target's __CUDA_ARCH__,
/// device-side launches). The results are merged by source location.
///
//===----------------------------------------------------------------------===//
#include "forge/Frontend/KernelIndex.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Frontend/Matchers.h"
#include "forge/Frontend/ParamAccess.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <map>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::frontend {

//===----------------------------------------------------------------------===//
// Small pure helpers
//===----------------------------------------------------------------------===//

std::set<std::string> featuresInAsm(StringRef Asm) {
  std::set<std::string> F;
  // Table: substring of the PTX -> feature name.
  static const std::pair<const char *, const char *> Table[] = {
      {"wgmma.", "wgmma"},
      {"setmaxnreg", "setmaxnreg"},
      {"tcgen05.", "tcgen05"},
      {"cp.async.bulk.tensor", "tma"},
      {"cp.async.bulk", "cp.async.bulk"},
      {"cp.reduce.async.bulk", "cp.async.bulk"},
      {"mbarrier", "mbarrier"},
      {"mma.sync", "mma"},
      {"ldmatrix", "ldmatrix"},
      {"stmatrix", "stmatrix"},
      {"barrier.cluster", "cluster"},
      {"%cluster_", "cluster"},
      {"mapa.", "cluster"},
      {"elect.sync", "elect"},
      {"shfl.sync", "warp-shuffle"},
      {"vote.", "warp-vote"},
      {"atom.", "atomics"},
      {"red.", "atomics"},
      {"griddepcontrol", "pdl"},
  };
  for (auto &[Needle, Name] : Table)
    if (Asm.contains(Needle))
      F.insert(Name);
  // "cp.async." that is not the bulk form.
  for (size_t Pos = Asm.find("cp.async"); Pos != StringRef::npos;
       Pos = Asm.find("cp.async", Pos + 1)) {
    StringRef Rest = Asm.drop_front(Pos + 8);
    if (!Rest.starts_with(".bulk") && !Rest.starts_with("_bulk"))
      F.insert("cp.async");
  }
  return F;
}

/// Features of a called function, by name (without namespace).
static const char *featureOfCallee(StringRef Name) {
  if (Name.starts_with("__shfl"))
    return "warp-shuffle";
  if (Name.starts_with("__any") || Name.starts_with("__all") ||
      Name.starts_with("__ballot") || Name == "__activemask" ||
      Name.starts_with("__match_") || Name.starts_with("__reduce_") ||
      Name == "__uni_sync")
    return "warp-vote";
  if (Name.starts_with("atomic") || Name.starts_with("__nv_atomic"))
    return "atomics";
  if (Name.starts_with("__pipeline_memcpy_async") || Name == "memcpy_async" ||
      Name.starts_with("__pipeline_commit"))
    return "cp.async";
  if (Name.starts_with("cp_async_bulk_tensor") || Name.starts_with("__tma"))
    return "tma";
  if (Name.starts_with("tex1D") || Name.starts_with("tex2D") ||
      Name.starts_with("tex3D") || Name.starts_with("surf"))
    return "texture";
  if (Name == "this_cluster" || Name == "__cluster_dims__" ||
      Name.starts_with("cluster_"))
    return "cluster";
  return nullptr;
}

/// Features of a referenced declaration, by its enclosing namespace.
static const char *featureOfNamespace(StringRef Qualified) {
  if (Qualified.starts_with("cub::"))
    return "cub";
  if (Qualified.starts_with("cooperative_groups::"))
    return "cooperative-groups";
  if (Qualified.starts_with("nvcuda::wmma::"))
    return "wmma";
  if (Qualified.starts_with("thrust::"))
    return "thrust";
  if (Qualified.starts_with("cuda::") && Qualified.contains("barrier"))
    return "barrier";
  if (Qualified.starts_with("cuda::") && Qualified.contains("pipeline"))
    return "cp.async";
  return nullptr;
}

std::vector<int64_t> defaultCandidates(StringRef Role, std::optional<int64_t> Current) {
  std::vector<int64_t> C;
  if (Role == "block" || Role == "launch_bounds")
    C = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
  else if (Role == "block-dim")
    C = {4, 8, 16, 32};
  else if (Role == "unroll")
    C = {1, 2, 4, 8, 16};
  else if (Current && *Current > 0) {
    int64_t Lo = std::max<int64_t>(1, *Current / 4);
    for (int64_t V = 1; V <= *Current * 4; V *= 2)
      if (V >= Lo)
        C.push_back(V);
  } else {
    C = {1, 2, 4, 8, 16};
  }
  if (Current && *Current > 0 && !is_contained(C, *Current)) {
    C.push_back(*Current);
    llvm::sort(C);
  }
  return C;
}

namespace {

//===----------------------------------------------------------------------===//
// The per-side builder
//===----------------------------------------------------------------------===//

/// Collects what one function body (and the user device functions it calls)
/// uses.
struct BodyFacts {
  std::set<std::string> Features;
  uint64_t StaticShared = 0;
  bool StaticSharedKnown = true;
  bool DynamicShared = false;
  std::vector<const AttributedStmt *> Unrolls;
};

class BodyScanner : public DynamicRecursiveASTVisitor {
public:
  BodyScanner(ASTContext &Ctx, BodyFacts &Facts, SmallPtrSetImpl<const Decl *> &Visited)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Facts(Facts), Visited(Visited) {
    ShouldVisitTemplateInstantiations = true;
  }

  void scanFunction(const FunctionDecl *FD) {
    if (!FD || !Visited.insert(FD->getCanonicalDecl()).second)
      return;
    if (FD->hasAttr<CUDAClusterDimsAttr>())
      Facts.Features.insert("cluster");
    for (const ParmVarDecl *P : FD->parameters())
      if (P->getType().getAsString().find("CUtensorMap") != std::string::npos)
        Facts.Features.insert("tma");
    if (const Stmt *Body = FD->getBody())
      TraverseStmt(const_cast<Stmt *>(Body));
  }

  bool VisitGCCAsmStmt(GCCAsmStmt *S) override {
    Facts.Features.insert("inline-asm");
    std::string Asm = S->generateAsmString(Ctx);
    for (const std::string &F : featuresInAsm(Asm))
      Facts.Features.insert(F);
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) override {
    Facts.Features.insert("dynamic-parallelism");
    return true;
  }

  bool VisitCallExpr(CallExpr *E) override {
    const FunctionDecl *Callee = E->getDirectCallee();
    if (!Callee)
      return true;
    noteDecl(Callee);
    if (const IdentifierInfo *II = Callee->getIdentifier())
      if (const char *F = featureOfCallee(II->getName()))
        Facts.Features.insert(F);
    // Follow calls into the user's own device functions: their features and
    // shared memory belong to the kernel.
    if (isUserLocation(SM, Callee->getLocation()) &&
        !Callee->hasAttr<CUDAGlobalAttr>()) {
      const FunctionDecl *Def = Callee->getDefinition();
      if (Def)
        scanFunction(Def);
    }
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    noteDecl(E->getDecl());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) override {
    noteDecl(E->getMemberDecl());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) override {
    noteDecl(E->getConstructor());
    return true;
  }
  bool VisitTypeLoc(TypeLoc TL) override {
    QualType T = TL.getType();
    if (const auto *TST = T->getAs<TemplateSpecializationType>()) {
      if (const TemplateDecl *TD = TST->getTemplateName().getAsTemplateDecl())
        noteDecl(TD);
    } else if (const TagDecl *TD = T->getAsTagDecl()) {
      noteDecl(TD);
    } else if (const auto *TT = T->getAs<TypedefType>()) {
      noteDecl(TT->getDecl());
    }
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) override {
    if (!VD->hasAttr<CUDASharedAttr>())
      return true;
    QualType T = VD->getType();
    if (VD->hasExternalStorage() || T->isIncompleteArrayType()) {
      Facts.DynamicShared = true;
      return true;
    }
    if (T->isDependentType() || T->isIncompleteType()) {
      Facts.StaticSharedKnown = false;
      return true;
    }
    Facts.StaticShared += Ctx.getTypeSizeInChars(T).getQuantity();
    return true;
  }

  bool VisitAttributedStmt(AttributedStmt *S) override {
    for (const Attr *A : S->getAttrs())
      if (const auto *LH = dyn_cast<LoopHintAttr>(A))
        if (LH->getOption() == LoopHintAttr::UnrollCount)
          Facts.Unrolls.push_back(S);
    return true;
  }

private:
  void noteDecl(const NamedDecl *D) {
    if (!D)
      return;
    const DeclContext *DC = D->getDeclContext();
    // Cheap test first: only declarations inside a namespace can match.
    if (!DC || DC->isTranslationUnit())
      return;
    std::string Q = D->getQualifiedNameAsString();
    if (const char *F = featureOfNamespace(Q))
      Facts.Features.insert(F);
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  BodyFacts &Facts;
  SmallPtrSetImpl<const Decl *> &Visited;
};

struct KernelRecord {
  KernelInfo Info;
  FileID File;
  unsigned BodyBegin = 0, BodyEnd = 0; ///< offsets of the body in File
};

class SideIndexer : public MatchFinder::MatchCallback {
public:
  SideIndexer(ASTContext &Ctx, CompilerInstance &CI, Side S, StringRef MainAbs,
              StringRef MainDisplay)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), PP(CI.getPreprocessor()),
        LO(Ctx.getLangOpts()), Policy(Ctx.getPrintingPolicy()), S(S),
        MainAbs(MainAbs), MainDisplay(MainDisplay) {
    Policy.SuppressTagKeyword = true;
    Policy.FullyQualifiedName = false;
    SmallString<256> Cwd;
    if (!sys::fs::current_path(Cwd))
      CwdPrefix = (Cwd + "/").str();
  }

  void run(const MatchFinder::MatchResult &R) override {
    if (const auto *FD = R.Nodes.getNodeAs<FunctionDecl>("kernel"))
      onKernel(FD);
    else if (const auto *CE = R.Nodes.getNodeAs<CallExpr>("launch"))
      onLaunch(CE, R.Nodes.getNodeAs<FunctionDecl>("fn"));
    else if (const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("warp-op"))
      onWarpOperator(BO);
    else if (const auto *Shfl = R.Nodes.getNodeAs<CallExpr>("shuffle"))
      onShuffle(Shfl);
  }

  void finish(const PreprocessorFacts &Facts, FileIndex &Out,
              std::set<std::string> &WarpWidths);

private:
  // --- locations and text -------------------------------------------------
  std::string displayPath(StringRef Name) const {
    if (Name == MainAbs)
      return MainDisplay;
    // A header included from a relative main file is named "./dir/h.cuh".
    while (Name.consume_front("./"))
      ;
    if (!CwdPrefix.empty() && Name.starts_with(CwdPrefix))
      return Name.drop_front(CwdPrefix.size()).str();
    return Name.str();
  }

  Location loc(SourceLocation L) const {
    Location Out;
    // A macro argument is reported where it is written, a macro body where
    // the macro is used.
    L = SM.getFileLoc(L);
    PresumedLoc P = SM.getPresumedLoc(L);
    if (P.isInvalid())
      return Out;
    Out.File = displayPath(P.getFilename());
    Out.Line = P.getLine();
    Out.Column = P.getColumn();
    Out.Offset = SM.getFileOffset(L);
    return Out;
  }

  std::string text(SourceRange R) const {
    if (R.isInvalid())
      return "";
    CharSourceRange CR = CharSourceRange::getTokenRange(R);
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID()) {
      // Prefer the spelling as written at the use: a macro argument's own
      // text, else the whole expansion.
      CharSourceRange File = Lexer::makeFileCharRange(CR, SM, LO);
      if (File.isValid())
        CR = File;
      else
        CR = SM.getExpansionRange(R);
    }
    bool Invalid = false;
    StringRef T = Lexer::getSourceText(CR, SM, LO, &Invalid);
    if (Invalid)
      return "";
    // Collapse whitespace so that multi-line expressions print on one line.
    std::string Out;
    bool Space = false;
    for (char C : T) {
      if (isSpace(C)) {
        Space = !Out.empty();
        continue;
      }
      if (Space)
        Out += ' ';
      Space = false;
      Out += C;
    }
    return Out;
  }

  /// True when the token at L is written in the source itself, possibly as
  /// an argument of a macro call (__launch_bounds__(256)), and not taken
  /// from a macro's body (__launch_bounds__(THREADS)).
  bool writtenHere(SourceLocation L) const {
    while (L.isMacroID()) {
      if (!SM.isMacroArgExpansion(L))
        return false;
      L = SM.getImmediateSpellingLoc(L);
    }
    return true;
  }

  // --- values ---------------------------------------------------------------
  const FunctionDecl *CurrentFn = nullptr;

  ValueText valueOf(const Expr *E) {
    ValueText V;
    if (!E)
      return V;
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E)) {
      V.Text = "";
      V.Value = Values.intValue(DA->getExpr());
      if (!V.Value && HostValues::isDim3(DA->getType()))
        V.Dim3 = std::array<int64_t, 3>{1, 1, 1};
      return V;
    }
    V.Text = text(E->getSourceRange());
    if (E->isValueDependent() || E->isTypeDependent())
      return V;
    if (HostValues::isDim3(E->getType())) {
      if (auto Parts = Values.dim3Parts(E)) {
        std::array<int64_t, 3> D;
        for (int I = 0; I < 3; ++I) {
          auto X = Values.intValue((*Parts)[I]);
          if (!X)
            return V;
          D[I] = *X;
        }
        V.Dim3 = D;
      }
      return V;
    }
    if (E->getType()->isIntegralOrEnumerationType() || E->getType()->isPointerType())
      V.Value = Values.intValue(E);
    return V;
  }

  // --- template arguments -------------------------------------------------
  void appendArg(const TemplateArgument &A, std::vector<TemplateArgInfo> &Out) {
    switch (A.getKind()) {
    case TemplateArgument::Pack:
      for (const TemplateArgument &P : A.pack_elements())
        appendArg(P, Out);
      return;
    case TemplateArgument::Type: {
      TemplateArgInfo I;
      I.TypeValue = A.getAsType().getAsString(Policy);
      I.Text = I.TypeValue;
      Out.push_back(I);
      return;
    }
    case TemplateArgument::Integral: {
      TemplateArgInfo I;
      I.IntValue = A.getAsIntegral().getExtValue();
      raw_string_ostream OS(I.Text);
      A.print(Policy, OS, /*IncludeType=*/false); // "true", not "1", for bool
      Out.push_back(I);
      return;
    }
    default: {
      TemplateArgInfo I;
      raw_string_ostream OS(I.Text);
      A.print(Policy, OS, /*IncludeType=*/false);
      Out.push_back(I);
      return;
    }
    }
  }

  std::vector<TemplateArgInfo> argsOf(const FunctionDecl *FD) {
    std::vector<TemplateArgInfo> Out;
    if (const TemplateArgumentList *L = FD ? FD->getTemplateSpecializationArgs() : nullptr)
      for (const TemplateArgument &A : L->asArray())
        appendArg(A, Out);
    return Out;
  }

  /// The symbol of a kernel specialisation as ptxas names it (what
  /// `nvcc --resource-usage` reports); empty for a template pattern or a
  /// specialisation with dependent arguments.
  std::string mangled(const FunctionDecl *FD) {
    if (!FD || FD->isInvalidDecl() || FD->isDependentContext() ||
        FD->getDescribedFunctionTemplate() || FD->getType()->isDependentType())
      return "";
    if (const TemplateArgumentList *L = FD->getTemplateSpecializationArgs())
      for (const TemplateArgument &A : L->asArray())
        if (A.isDependent())
          return "";
    if (!Mangler)
      Mangler.reset(Ctx.createMangleContext());
    std::string Name;
    raw_string_ostream OS(Name);
    if (Mangler->shouldMangleDeclName(FD))
      Mangler->mangleName(GlobalDecl(FD, KernelReferenceKind::Kernel), OS);
    else
      OS << FD->getName();
    return Name;
  }

  // --- kernels ----------------------------------------------------------------
  static const FunctionDecl *patternOf(const FunctionDecl *FD) {
    if (const FunctionTemplateDecl *Primary = FD->getPrimaryTemplate())
      return Primary->getTemplatedDecl();
    if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
      return P;
    return FD;
  }

  static std::string kernelName(const FunctionDecl *FD) {
    return patternOf(FD)->getQualifiedNameAsString();
  }

  std::string signatureOf(const FunctionDecl *FD) {
    std::string Sig = FD->getReturnType().getAsString(Policy) + " " +
                      FD->getNameAsString() + "(";
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const ParmVarDecl *P = FD->getParamDecl(I);
      if (I)
        Sig += ", ";
      std::string T = P->getType().getAsString(Policy);
      Sig += T;
      if (!P->getName().empty())
        Sig += (StringRef(T).ends_with("*") || StringRef(T).ends_with("&") ? "" : " ") +
               P->getNameAsString();
    }
    return Sig + ")";
  }

  void scanBody(const FunctionDecl *FD, BodyFacts &Facts) {
    SmallPtrSet<const Decl *, 16> Visited;
    BodyScanner Scanner(Ctx, Facts, Visited);
    Scanner.scanFunction(FD);
  }

  std::optional<ValueText> attrExpr(Expr *E) {
    if (!E)
      return std::nullopt;
    ValueText V = valueOf(E);
    if (!V.Value && !E->isValueDependent())
      V.Value = Values.intValue(E);
    return V;
  }

  void onKernel(const FunctionDecl *FD) {
    const FunctionDecl *Pattern = patternOf(FD);
    if (!isUserLocation(SM, Pattern->getLocation()))
      return;
    bool IsInstantiation = Pattern != FD;
    if (!IsInstantiation && !FD->doesThisDeclarationHaveABody())
      return;
    if (IsInstantiation && FD->getTemplateSpecializationKind() ==
                               TSK_ExplicitInstantiationDeclaration)
      return;
    KernelRecord &K = kernelFor(Pattern);
    if (!IsInstantiation)
      return;
    KernelInstantiation Inst;
    Inst.Args = argsOf(FD);
    Inst.Mangled = mangled(FD);
    TemplateSpecializationKind TSK = FD->getTemplateSpecializationKind();
    Inst.Explicit = TSK == TSK_ExplicitInstantiationDefinition ||
                    TSK == TSK_ExplicitSpecialization;
    if (FD->hasBody()) {
      BodyFacts Facts;
      scanBody(FD, Facts);
      K.Info.Features.insert(Facts.Features.begin(), Facts.Features.end());
      if (Facts.StaticSharedKnown)
        Inst.StaticSharedBytes = Facts.StaticShared;
      K.Info.DynamicShared |= Facts.DynamicShared;
    }
    // Explicit instantiations repeat; keep one of each argument list.
    for (KernelInstantiation &Old : K.Info.Instantiations) {
      if (argsText(Old.Args) == argsText(Inst.Args)) {
        Old.Explicit |= Inst.Explicit;
        if (Old.Mangled.empty())
          Old.Mangled = Inst.Mangled;
        return;
      }
    }
    K.Info.Instantiations.push_back(std::move(Inst));
  }

  static std::string argsText(const std::vector<TemplateArgInfo> &Args) {
    std::string S;
    for (const auto &A : Args)
      S += A.Text + ",";
    return S;
  }

  KernelRecord &kernelFor(const FunctionDecl *Pattern) {
    const Decl *Key = Pattern->getCanonicalDecl();
    auto It = KernelSlot.find(Key);
    if (It != KernelSlot.end()) {
      // A later redeclaration may be the definition.
      return Kernels[It->second];
    }
    KernelSlot[Key] = Kernels.size();
    Kernels.emplace_back();
    KernelRecord &K = Kernels.back();
    const FunctionDecl *Def = Pattern->getDefinition() ? Pattern->getDefinition() : Pattern;
    KernelInfo &I = K.Info;
    I.Name = Def->getNameAsString();
    I.QualifiedName = Def->getQualifiedNameAsString();
    I.Loc = loc(Def->getLocation());
    I.Signature = signatureOf(Def);
    I.Mangled = mangled(Def);
    I.ExternC = Def->isExternC();
    if (const FunctionTemplateDecl *TD = Def->getDescribedFunctionTemplate()) {
      I.IsTemplate = true;
      for (const NamedDecl *P : *TD->getTemplateParameters()) {
        TemplateParamInfo TP;
        TP.Name = P->getNameAsString();
        if (const auto *T = dyn_cast<TemplateTypeParmDecl>(P)) {
          TP.Kind = "type";
          if (T->hasDefaultArgument())
            TP.Default = text(T->getDefaultArgument().getSourceRange());
        } else if (const auto *N = dyn_cast<NonTypeTemplateParmDecl>(P)) {
          TP.Kind = "non-type";
          TP.Type = N->getType().getAsString(Policy);
          if (N->hasDefaultArgument())
            TP.Default = text(N->getDefaultArgument().getSourceRange());
        } else {
          TP.Kind = "template";
        }
        I.TemplateParams.push_back(TP);
      }
    }
    std::vector<PointerAccess> Access = analyzePointerParams(*Def, Ctx);
    for (const ParmVarDecl *P : Def->parameters()) {
      ParamInfo PI;
      PI.Name = P->getNameAsString();
      QualType T = P->getType();
      PI.Type = T.getAsString(Policy);
      PI.Pointer = T->isPointerType();
      if (PI.Pointer) {
        PI.ConstPointee = T->getPointeeType().isConstQualified();
        PI.Restrict = T.isRestrictQualified();
        if (P->getFunctionScopeIndex() < Access.size()) {
          PI.Read = Access[P->getFunctionScopeIndex()].Read;
          PI.Written = Access[P->getFunctionScopeIndex()].Written;
        }
      }
      I.Params.push_back(PI);
    }
    if (const auto *LB = Def->getAttr<CUDALaunchBoundsAttr>()) {
      I.MaxThreads = attrExpr(LB->getMaxThreads());
      I.MinBlocks = attrExpr(LB->getMinBlocks());
      I.MaxBlocksPerCluster = attrExpr(LB->getMaxBlocks());
    }
    BodyFacts Facts;
    scanBody(Def, Facts);
    I.Features = Facts.Features;
    I.DynamicShared = Facts.DynamicShared;
    if (Facts.StaticSharedKnown)
      I.StaticSharedBytes = Facts.StaticShared;
    if (Def->hasAttr<CUDAClusterDimsAttr>())
      I.Features.insert("cluster");
    if (const Stmt *Body = Def->getBody()) {
      SourceLocation B = SM.getExpansionLoc(Body->getBeginLoc());
      SourceLocation E = SM.getExpansionLoc(Body->getEndLoc());
      K.File = SM.getFileID(B);
      K.BodyBegin = SM.getFileOffset(B);
      K.BodyEnd = SM.getFileOffset(E);
    }
    for (const AttributedStmt *U : Facts.Unrolls)
      noteUnroll(U, I.QualifiedName);
    if (I.MaxThreads)
      traceLaunchBounds(Def->getAttr<CUDALaunchBoundsAttr>()->getMaxThreads(), I);
    return K;
  }

  // --- launch sites ---------------------------------------------------------
  struct KernelRef {
    const FunctionDecl *FD = nullptr; ///< resolved callee, if any
    std::string Name;                 ///< qualified name or the name as written
    std::string Via;
    const DeclRefExpr *DRE = nullptr;
    const OverloadExpr *ULE = nullptr;
  };

  KernelRef resolveKernel(const Expr *E, int Depth = 0) {
    KernelRef R;
    if (!E || Depth > 4)
      return R;
    E = E->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      if (UO->getOpcode() == UO_AddrOf)
        E = UO->getSubExpr()->IgnoreParenCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl())) {
        R.FD = FD;
        R.Name = kernelName(FD);
        R.DRE = DRE;
        return R;
      }
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl())) {
        if (VD->hasInit() && !isa<ParmVarDecl>(VD)) {
          KernelRef Inner = resolveKernel(VD->getInit(), Depth + 1);
          Inner.Via = VD->getNameAsString();
          if (Inner.FD || !Inner.Name.empty())
            return Inner;
        }
        R.Name = VD->getNameAsString();
        R.Via = VD->getNameAsString();
        return R;
      }
    }
    if (const auto *OE = dyn_cast<OverloadExpr>(E)) {
      R.ULE = OE;
      // All candidates usually share one template; then the kernel is known
      // even though its arguments are not.
      std::string Common;
      bool Same = true;
      for (const NamedDecl *D : OE->decls()) {
        const NamedDecl *U = D->getUnderlyingDecl();
        std::string Q = U->getQualifiedNameAsString();
        if (Common.empty())
          Common = Q;
        else if (Common != Q)
          Same = false;
      }
      R.Name = Same && !Common.empty() ? Common : OE->getName().getAsString();
      return R;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      R.Name = ME->getMemberDecl()->getNameAsString();
      R.Via = R.Name;
      return R;
    }
    R.Name = text(E->getSourceRange());
    return R;
  }

  /// Template arguments as written at the launch, with values from the
  /// resolved specialisation where there is one.
  std::vector<TemplateArgInfo> launchArgs(const KernelRef &K, bool &HasWritten,
                                          std::vector<const Expr *> *ArgExprs) {
    std::vector<TemplateArgInfo> Resolved = K.FD ? argsOf(K.FD) : std::vector<TemplateArgInfo>();
    ArrayRef<TemplateArgumentLoc> Written;
    if (K.DRE && K.DRE->hasExplicitTemplateArgs())
      Written = K.DRE->template_arguments();
    else if (K.ULE && K.ULE->hasExplicitTemplateArgs())
      Written = K.ULE->template_arguments();
    HasWritten = !Written.empty();
    if (Written.empty())
      return Resolved;
    std::vector<TemplateArgInfo> Out;
    for (size_t I = 0; I < Written.size(); ++I) {
      TemplateArgInfo A;
      A.Text = text(Written[I].getSourceRange());
      if (I < Resolved.size()) {
        A.IntValue = Resolved[I].IntValue;
        A.TypeValue = Resolved[I].TypeValue;
      }
      const TemplateArgument &TA = Written[I].getArgument();
      if (TA.getKind() == TemplateArgument::Expression) {
        if (!A.IntValue)
          A.IntValue = Values.intValue(TA.getAsExpr());
        if (ArgExprs)
          ArgExprs->push_back(TA.getAsExpr());
      } else if (ArgExprs) {
        ArgExprs->push_back(nullptr);
      }
      Out.push_back(A);
    }
    // Trailing arguments deduced or defaulted.
    for (size_t I = Written.size(); I < Resolved.size(); ++I)
      Out.push_back(Resolved[I]);
    return Out;
  }

  struct LaunchExprs {
    const Expr *Callee = nullptr;
    const Expr *Grid = nullptr, *Block = nullptr, *Shmem = nullptr, *Stream = nullptr;
    std::string Syntax;
  };

  /// For cudaLaunchKernelEx: the fields of the cudaLaunchConfig_t, from its
  /// initializer or the last assignments before the call.
  void configFields(const Expr *CfgArg, const CallExpr *Call, LaunchExprs &L) {
    const Expr *E = CfgArg->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      if (UO->getOpcode() == UO_AddrOf)
        E = UO->getSubExpr()->IgnoreParenImpCasts();
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const VarDecl *Cfg = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!Cfg)
      return;
    if (const auto *IL = dyn_cast_or_null<InitListExpr>(
            Cfg->hasInit() ? Cfg->getInit()->IgnoreImplicit() : nullptr)) {
      const Expr **Slots[] = {&L.Grid, &L.Block, &L.Shmem, &L.Stream};
      for (unsigned I = 0; I < 4 && I < IL->getNumInits(); ++I) {
        const Expr *Init = IL->getInit(I);
        const auto *Ctor = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
        bool Implicit = isa<ImplicitValueInitExpr>(Init) ||
                        (Ctor && Ctor->getNumArgs() == 0) ||
                        Init->getSourceRange().isInvalid();
        if (!Implicit)
          *Slots[I] = Init;
      }
    }
    if (!CurrentFn || !CurrentFn->getBody())
      return;
    struct Finder : DynamicRecursiveASTVisitor {
      const VarDecl *Cfg;
      SourceLocation Before;
      const SourceManager *SM;
      LaunchExprs *L;
      bool VisitBinaryOperator(BinaryOperator *BO) override {
        if (BO->getOpcode() == BO_Assign)
          assign(BO->getLHS(), BO->getRHS(), BO->getBeginLoc());
        return true;
      }
      // dim3 fields are assigned through the implicit operator=.
      bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) override {
        if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2)
          assign(OC->getArg(0), OC->getArg(1), OC->getBeginLoc());
        return true;
      }
      void assign(const Expr *LHS, const Expr *RHS, SourceLocation At) {
        const auto *ME = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts());
        if (!ME)
          return;
        const auto *Base = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts());
        if (!Base || Base->getDecl() != Cfg || !SM->isBeforeInTranslationUnit(At, Before))
          return;
        StringRef F = ME->getMemberDecl()->getName();
        if (F == "gridDim")
          L->Grid = RHS;
        else if (F == "blockDim")
          L->Block = RHS;
        else if (F == "dynamicSmemBytes")
          L->Shmem = RHS;
        else if (F == "stream")
          L->Stream = RHS;
      }
    } F;
    F.Cfg = Cfg;
    F.Before = Call->getBeginLoc();
    F.SM = &SM;
    F.L = &L;
    F.TraverseStmt(const_cast<Stmt *>(CurrentFn->getBody()));
  }

  LaunchExprs launchExprs(const CallExpr *CE) {
    LaunchExprs L;
    if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(CE)) {
      L.Syntax = "chevron";
      L.Callee = KC->getCallee();
      if (const CallExpr *Cfg = KC->getConfig()) {
        // A device-side launch configures through cudaLaunchDevice(func,
        // buffer, grid, block, shmem, stream): skip the first two.
        unsigned Base = 0;
        if (const FunctionDecl *CD = Cfg->getDirectCallee())
          if (CD->getName() == "cudaLaunchDevice")
            Base = 2;
        const Expr **Slots[] = {&L.Grid, &L.Block, &L.Shmem, &L.Stream};
        for (unsigned I = 0; I < 4 && Base + I < Cfg->getNumArgs(); ++I)
          *Slots[I] = Cfg->getArg(Base + I);
      }
      return L;
    }
    std::string Name;
    if (const FunctionDecl *FD = CE->getDirectCallee())
      Name = FD->getNameAsString();
    else if (const auto *OE = dyn_cast<OverloadExpr>(CE->getCallee()->IgnoreParenImpCasts()))
      Name = OE->getName().getAsString();
    L.Syntax = Name;
    unsigned N = CE->getNumArgs();
    auto Arg = [&](unsigned I) -> const Expr * { return I < N ? CE->getArg(I) : nullptr; };
    if (Name == "cudaLaunchKernelEx" || Name == "cudaLaunchKernelExC") {
      L.Callee = Arg(1);
      if (Arg(0))
        configFields(Arg(0), CE, L);
    } else {
      // cudaLaunchKernel(func, grid, block, args, sharedMem, stream) and
      // cudaLaunchCooperativeKernel with the same layout.
      L.Callee = Arg(0);
      L.Grid = Arg(1);
      L.Block = Arg(2);
      L.Shmem = Arg(4);
      L.Stream = Arg(5);
    }
    return L;
  }

  std::string functionDisplayName(const FunctionDecl *FD) {
    std::string S;
    raw_string_ostream OS(S);
    FD->getNameForDiagnostic(OS, Policy, /*Qualified=*/true);
    return S;
  }

  void onLaunch(const CallExpr *CE, const FunctionDecl *Fn) {
    SourceLocation Begin = CE->getBeginLoc();
    if (!isUserLocation(SM, Begin))
      return;
    CurrentFn = Fn;
    LaunchExprs L = launchExprs(CE);
    KernelRef K = resolveKernel(L.Callee);
    // A runtime launch call whose first argument is not a kernel at all
    // (a driver-API CUfunction, say) is still a launch site, unresolved.
    SourceLocation Key = SM.getExpansionLoc(Begin);
    auto It = LaunchSlot.find(Key.getRawEncoding());
    bool FnIsInstantiation = Fn && Fn->isTemplateInstantiation();
    if (It == LaunchSlot.end()) {
      It = LaunchSlot.insert({Key.getRawEncoding(), Launches.size()}).first;
      Launches.emplace_back();
      LaunchSiteInfo &S = Launches.back();
      S.Loc = loc(Begin);
      S.Syntax = L.Syntax;
      S.Resolved = false;
    }
    LaunchSiteInfo &S = Launches[It->second];
    if (FnIsInstantiation) {
      LaunchInstantiation LI;
      LI.Context = functionDisplayName(Fn);
      LI.Kernel = K.FD ? functionDisplayName(K.FD) : K.Name;
      LI.KernelMangled = mangled(K.FD);
      LI.TemplateArgs = K.FD ? argsOf(K.FD) : std::vector<TemplateArgInfo>();
      LI.Grid = valueOf(L.Grid);
      LI.Block = valueOf(L.Block);
      LI.SharedMem = valueOf(L.Shmem);
      S.Instantiations.push_back(LI);
      if (K.FD && S.Kernel.empty()) {
        S.Kernel = K.Name;
        S.Resolved = true;
      }
      if (K.FD && !S.Resolved) {
        S.Kernel = K.Name;
        S.Resolved = true;
      }
      return;
    }
    S.Callee = L.Callee ? text(L.Callee->getSourceRange()) : "";
    S.Via = K.Via;
    if (K.FD || (K.ULE && !K.Name.empty())) {
      S.Kernel = K.Name;
      S.KernelMangled = mangled(K.FD);
      S.Resolved = true;
    } else if (S.Kernel.empty()) {
      S.Kernel = K.Name;
    }
    if (Fn) {
      S.EnclosingFunction = Fn->getQualifiedNameAsString();
      S.InTemplate = Fn->getDescribedFunctionTemplate() != nullptr ||
                     Fn->isDependentContext();
      S.DeviceSide = (Fn->hasAttr<CUDAGlobalAttr>() || Fn->hasAttr<CUDADeviceAttr>()) &&
                     !Fn->hasAttr<CUDAHostAttr>();
    }
    bool HasWritten = false;
    std::vector<const Expr *> ArgExprs;
    S.TemplateArgs = launchArgs(K, HasWritten, &ArgExprs);
    S.Grid = valueOf(L.Grid);
    S.Block = valueOf(L.Block);
    S.SharedMem = valueOf(L.Shmem);
    S.Stream = valueOf(L.Stream);
    traceLaunch(S, K, L, ArgExprs);
  }

  // --- tunables ---------------------------------------------------------------
  struct TunableKey {
    std::string Origin, Name;
    bool operator<(const TunableKey &O) const {
      return std::tie(Origin, Name) < std::tie(O.Origin, O.Name);
    }
  };
  std::map<TunableKey, TunableInfo> Tunables;

  TunableInfo &tunable(StringRef Origin, StringRef Name) {
    TunableInfo &T = Tunables[{Origin.str(), Name.str()}];
    T.Origin = Origin.str();
    T.Name = Name.str();
    return T;
  }

  void useAt(TunableInfo &T, const Location &At) {
    if (!At.File.empty() && !is_contained(T.UsedAt, At))
      T.UsedAt.push_back(At);
  }

  /// An object-like macro defined in user code as one integer literal.
  std::optional<int64_t> macroIntValue(const MacroInfo *MI) {
    if (!MI || !MI->isObjectLike() || !isUserLocation(SM, MI->getDefinitionLoc()))
      return std::nullopt;
    ArrayRef<Token> Toks = MI->tokens();
    while (Toks.size() >= 3 && Toks.front().is(tok::l_paren) && Toks.back().is(tok::r_paren))
      Toks = Toks.drop_front().drop_back();
    if (Toks.size() != 1 || !Toks[0].is(tok::numeric_constant))
      return std::nullopt;
    StringRef Lit(Toks[0].getLiteralData(), Toks[0].getLength());
    Lit = Lit.rtrim("uUlL");
    int64_t V;
    if (Lit.getAsInteger(0, V))
      return std::nullopt;
    return V;
  }

  void noteMacros(SourceLocation L, StringRef Role, StringRef Kernel, const Location &At) {
    while (L.isMacroID()) {
      if (SM.isMacroArgExpansion(L)) {
        L = SM.getImmediateSpellingLoc(L);
        continue;
      }
      StringRef Name = Lexer::getImmediateMacroName(L, SM, LO);
      SourceLocation ExpLoc = SM.getImmediateExpansionRange(L).getBegin();
      if (!Name.empty()) {
        IdentifierInfo *II = PP.getIdentifierInfo(Name);
        MacroDefinition MD = PP.getMacroDefinitionAtLoc(II, SM.getExpansionLoc(ExpLoc));
        const MacroInfo *MI = MD.getMacroInfo();
        if (auto V = macroIntValue(MI)) {
          TunableInfo &T = tunable("macro", Name);
          T.Current = V;
          T.CurrentText = std::to_string(*V);
          T.Loc = loc(MI->getDefinitionLoc());
          if (T.Role.empty())
            T.Role = Role.str();
          if (T.Kernel.empty())
            T.Kernel = Kernel.str();
          useAt(T, At);
        }
      }
      L = SM.getImmediateMacroCallerLoc(L);
    }
  }

  /// The name of a variable's tunable. Locals of different functions often
  /// share a name (block_size): they are qualified with their function.
  static std::string variableTunableName(const VarDecl *VD) {
    std::string Name = VD->getQualifiedNameAsString();
    if (VD->isLocalVarDecl())
      if (const auto *Fn = dyn_cast<FunctionDecl>(VD->getDeclContext()))
        Name = Fn->getQualifiedNameAsString() + "::" + VD->getNameAsString();
    return Name;
  }

  /// Records the knobs an expression's value comes from: macros,
  /// constexpr variables and literal-initialised locals.
  void traceExpr(const Expr *E, StringRef Role, StringRef Kernel, const Location &At,
                 int Depth = 0) {
    if (!E || Depth > 4)
      return;
    struct Walker : DynamicRecursiveASTVisitor {
      SideIndexer *Self;
      StringRef Role, Kernel;
      const Location *At;
      int Depth;
      Walker() { ShouldVisitImplicitCode = true; }
      bool VisitExpr(Expr *X) override {
        Self->noteMacros(X->getBeginLoc(), Role, Kernel, *At);
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *DRE) override {
        Self->noteMacros(DRE->getBeginLoc(), Role, Kernel, *At);
        const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        if (!VD || !VD->hasInit() || isa<ParmVarDecl>(VD) ||
            !isUserLocation(Self->SM, VD->getLocation()))
          return true;
        const Expr *Init = VD->getInit();
        bool IsConst = VD->isConstexpr() || VD->getType().isConstQualified();
        const Expr *Lit = Init->IgnoreParenImpCasts();
        bool WrittenAsLiteral = isa<IntegerLiteral>(Lit) && Self->writtenHere(Lit->getBeginLoc());
        if (WrittenAsLiteral && VD->getType()->isIntegralOrEnumerationType()) {
          StringRef Origin = IsConst ? "constexpr" : "launch";
          if (IsConst || (VD->isLocalVarDecl() && !Self->Values.isMutated(VD))) {
            TunableInfo &T = Self->tunable(Origin, variableTunableName(VD));
            T.Current = cast<IntegerLiteral>(Lit)->getValue().getSExtValue();
            T.CurrentText = std::to_string(*T.Current);
            T.Loc = Self->loc(Lit->getBeginLoc());
            if (T.Role.empty())
              T.Role = Role.str();
            if (T.Kernel.empty())
              T.Kernel = Kernel.str();
            Self->useAt(T, *At);
          }
          return true;
        }
        if (IsConst || (VD->isLocalVarDecl() && !Self->Values.isMutated(VD)))
          Self->traceExpr(Init, Role, Kernel, *At, Depth + 1);
        return true;
      }
    } W;
    W.Self = this;
    W.Role = Role;
    W.Kernel = Kernel;
    W.At = &At;
    W.Depth = Depth;
    W.TraverseStmt(const_cast<Expr *>(E));
  }

  void traceBlock(const Expr *Block, StringRef Kernel, const LaunchSiteInfo &S) {
    if (!Block || isa<CXXDefaultArgExpr>(Block))
      return;
    const Expr *Stripped = Block->IgnoreImplicit();
    auto Parts = Values.dim3Parts(Block);
    // dim3 block(BX, BY): each component is a block dimension.
    const auto *CE = dyn_cast<CXXConstructExpr>(Stripped);
    bool MultiDim = false;
    if (Parts && HostValues::isDim3(Block->getType())) {
      for (int I = 1; I < 3; ++I) {
        const Expr *P = (*Parts)[I];
        if (P && !isa<CXXDefaultArgExpr>(P))
          MultiDim = true;
      }
    }
    if (Parts && MultiDim) {
      for (int I = 0; I < 3; ++I)
        if ((*Parts)[I] && !isa<CXXDefaultArgExpr>((*Parts)[I]))
          traceExpr((*Parts)[I], "block-dim", Kernel, S.Loc);
    } else {
      traceExpr(Block, "block", Kernel, S.Loc);
    }
    (void)CE;
    // A literal written right at the launch: <<<g, 256>>>.
    const Expr *Scalar = Parts && !MultiDim ? (*Parts)[0] : Stripped;
    if (Scalar) {
      const Expr *Lit = Scalar->IgnoreParenImpCasts();
      if (isa<IntegerLiteral>(Lit) && writtenHere(Lit->getBeginLoc())) {
        TunableInfo &T = tunable("launch", (Kernel + ".block@" + Twine(S.Loc.Line)).str());
        T.Current = cast<IntegerLiteral>(Lit)->getValue().getSExtValue();
        T.CurrentText = std::to_string(*T.Current);
        T.Loc = loc(Lit->getBeginLoc());
        T.Role = "block";
        T.Kernel = Kernel.str();
        useAt(T, S.Loc);
      }
    }
  }

  void traceLaunch(const LaunchSiteInfo &S, const KernelRef &K, const LaunchExprs &L,
                   const std::vector<const Expr *> &ArgExprs) {
    std::string Kernel = S.Kernel;
    traceBlock(L.Block, Kernel, S);
    // Template arguments bound at the launch.
    const FunctionTemplateDecl *TD = nullptr;
    if (K.FD && K.FD->getPrimaryTemplate())
      TD = K.FD->getPrimaryTemplate();
    else if (K.ULE)
      for (const NamedDecl *D : K.ULE->decls())
        if ((TD = dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl())))
          break;
    for (size_t I = 0; I < ArgExprs.size(); ++I) {
      const Expr *A = ArgExprs[I];
      if (!A)
        continue;
      traceExpr(A, "template-arg", Kernel, S.Loc);
      const NamedDecl *Param =
          TD && I < TD->getTemplateParameters()->size() ? TD->getTemplateParameters()->getParam(I)
                                                        : nullptr;
      const Expr *Lit = A->IgnoreParenImpCasts();
      if (Param && isa<NonTypeTemplateParmDecl>(Param) && isa<IntegerLiteral>(Lit) &&
          writtenHere(Lit->getBeginLoc())) {
        TunableInfo &T = tunable("template", Kernel + "::" + Param->getNameAsString());
        T.Current = cast<IntegerLiteral>(Lit)->getValue().getSExtValue();
        T.CurrentText = std::to_string(*T.Current);
        T.Loc = loc(Lit->getBeginLoc());
        T.Role = "template-arg";
        T.Kernel = Kernel;
        useAt(T, S.Loc);
      } else if (Param && isa<NonTypeTemplateParmDecl>(Param) && A->isValueDependent()) {
        // Bound through a template parameter of the enclosing host function:
        // the values come from its instantiations.
        TunableInfo &T = tunable("template", Kernel + "::" + Param->getNameAsString());
        T.Loc = loc(A->getBeginLoc());
        T.CurrentText = text(A->getSourceRange());
        T.Role = "template-arg";
        T.Kernel = Kernel;
        useAt(T, S.Loc);
      }
    }
  }

  void traceLaunchBounds(const Expr *MaxThreads, const KernelInfo &K) {
    if (!MaxThreads)
      return;
    traceExpr(MaxThreads, "launch_bounds", K.QualifiedName, K.Loc);
    const Expr *Lit = MaxThreads->IgnoreParenImpCasts();
    if (isa<IntegerLiteral>(Lit) && writtenHere(Lit->getBeginLoc())) {
      TunableInfo &T = tunable("launch_bounds", K.QualifiedName + ".launch_bounds");
      T.Current = cast<IntegerLiteral>(Lit)->getValue().getSExtValue();
      T.CurrentText = std::to_string(*T.Current);
      T.Loc = loc(Lit->getBeginLoc());
      T.Role = "launch_bounds";
      T.Kernel = K.QualifiedName;
    }
  }

  void noteUnroll(const AttributedStmt *S, StringRef Kernel) {
    if (!isUserLocation(SM, S->getBeginLoc()))
      return;
    for (const Attr *A : S->getAttrs()) {
      const auto *LH = dyn_cast<LoopHintAttr>(A);
      if (!LH || LH->getOption() != LoopHintAttr::UnrollCount || !LH->getValue())
        continue;
      const Expr *V = LH->getValue();
      Location At = loc(S->getBeginLoc());
      // '#pragma unroll N' with N a macro or a constant: trace it.
      traceExpr(V, "unroll", Kernel, At);
      const Expr *Lit = V->IgnoreParenImpCasts();
      if (!isa<IntegerLiteral>(Lit) || !writtenHere(V->getBeginLoc()))
        continue;
      TunableInfo &T = tunable("unroll", (Kernel + ".unroll@" + Twine(At.Line)).str());
      T.Current = cast<IntegerLiteral>(Lit)->getValue().getSExtValue();
      T.CurrentText = std::to_string(*T.Current);
      T.Loc = loc(LH->getLocation());
      T.Role = "unroll";
      T.Kernel = Kernel.str();
    }
  }

  // --- the warp width -----------------------------------------------------------
  // A named constant used as the warp width is a fact of the hardware, not
  // a knob: 'lane = threadIdx.x % WARP_SIZE', 'warp = threadIdx.x / W',
  // 'threadIdx.x & (W - 1)' with W == 32, a shuffle's width, or a 32 that
  // a shuffle's arguments come from ('for (o = W / 2; ...) __shfl_down_sync
  // (m, v, o)'). Such constants are dropped from the tunables.

  /// The user's named constants in E (object-like macros of one integer
  /// literal, variables with a constant initializer) whose value is Value,
  /// or any value when Value is empty, by their tunable names.
  /// FollowLocals: also those a local variable's initializer uses (the
  /// offset of a shuffle loop), whatever the variable's value later.
  void namedConstants(const Expr *E, std::optional<int64_t> Value, bool FollowLocals,
                      int Depth = 0) {
    if (!E || Depth > 3 || isa<CXXDefaultArgExpr>(E))
      return;
    struct Walker : DynamicRecursiveASTVisitor {
      SideIndexer *Self;
      std::optional<int64_t> Value;
      bool FollowLocals;
      int Depth;
      Walker() { ShouldVisitImplicitCode = true; }
      bool VisitExpr(Expr *X) override {
        for (SourceLocation L = X->getBeginLoc(); L.isMacroID();
             L = Self->SM.getImmediateMacroCallerLoc(L)) {
          if (Self->SM.isMacroArgExpansion(L))
            continue;
          StringRef Name = Lexer::getImmediateMacroName(L, Self->SM, Self->LO);
          if (Name.empty())
            continue;
          SourceLocation ExpLoc = Self->SM.getImmediateExpansionRange(L).getBegin();
          MacroDefinition MD = Self->PP.getMacroDefinitionAtLoc(
              Self->PP.getIdentifierInfo(Name), Self->SM.getExpansionLoc(ExpLoc));
          auto V = Self->macroIntValue(MD.getMacroInfo());
          if (V && (!Value || *V == *Value))
            Self->WarpWidths.insert(Name.str());
        }
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *DRE) override {
        const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        if (!VD || !VD->hasInit() || isa<ParmVarDecl>(VD) ||
            !isUserLocation(Self->SM, VD->getLocation()))
          return true;
        auto V = constantInt(VD->getInit(), Self->Ctx);
        bool Const = VD->isConstexpr() || VD->getType().isConstQualified();
        if (V && (Const || VD->isLocalVarDecl()) && (!Value || *V == *Value))
          Self->WarpWidths.insert(variableTunableName(VD));
        else if (FollowLocals && VD->isLocalVarDecl())
          Self->namedConstants(VD->getInit(), Value, FollowLocals, Depth + 1);
        return true;
      }
    } W;
    W.Self = this;
    W.Value = Value;
    W.FollowLocals = FollowLocals;
    W.Depth = Depth;
    W.TraverseStmt(const_cast<Expr *>(E));
  }

  /// Whether E varies with the thread's index in its block (threadIdx, a
  /// thread_rank() call, or a local initialised from them).
  bool threadVarying(const Expr *E, int Depth = 0) {
    if (!E || Depth > 3)
      return false;
    struct Walker : DynamicRecursiveASTVisitor {
      SideIndexer *Self;
      int Depth;
      bool Found = false;
      bool VisitDeclRefExpr(DeclRefExpr *DRE) override {
        const ValueDecl *D = DRE->getDecl();
        if (D->getName() == "threadIdx")
          Found = true;
        else if (const auto *VD = dyn_cast<VarDecl>(D))
          if (VD->isLocalVarDecl() && VD->hasInit() && !isa<ParmVarDecl>(VD))
            Found |= Self->threadVarying(VD->getInit(), Depth + 1);
        return !Found;
      }
      bool VisitCallExpr(CallExpr *CE) override {
        if (const FunctionDecl *FD = CE->getDirectCallee())
          if (FD->getIdentifier() && FD->getName() == "thread_rank")
            Found = true;
        return !Found;
      }
    } W;
    W.Self = this;
    W.Depth = Depth;
    W.TraverseStmt(const_cast<Expr *>(E));
    return W.Found;
  }

  void onWarpOperator(const BinaryOperator *BO) {
    if (!isUserLocation(SM, BO->getOperatorLoc()) || !threadVarying(BO->getLHS()))
      return;
    const Expr *RHS = BO->getRHS()->IgnoreParenImpCasts();
    if (BO->getOpcode() == BO_And) {
      // threadIdx.x & (W - 1)
      const auto *Sub = dyn_cast<BinaryOperator>(RHS);
      if (!Sub || Sub->getOpcode() != BO_Sub || constantInt(Sub->getRHS(), Ctx) != 1)
        return;
      RHS = Sub->getLHS();
    }
    namedConstants(RHS, 32, /*FollowLocals=*/false);
  }

  void onShuffle(const CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !isUserLocation(SM, CE->getBeginLoc()))
      return;
    // The width is the last parameter: (mask, var, lane, width) for the
    // _sync forms, (var, lane, width) for the legacy ones.
    unsigned Width = FD->getName().ends_with("_sync") ? 3 : 2;
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      if (I == Width)
        namedConstants(CE->getArg(I), std::nullopt, /*FollowLocals=*/false);
      else
        namedConstants(CE->getArg(I), 32, /*FollowLocals=*/true);
    }
  }

  // --- state ------------------------------------------------------------------
  ASTContext &Ctx;
  HostValues Values{Ctx};
  const SourceManager &SM;
  Preprocessor &PP;
  const LangOptions &LO;
  PrintingPolicy Policy;
  Side S;
  std::string MainAbs, MainDisplay, CwdPrefix;
  DenseMap<const Decl *, size_t> KernelSlot;
  std::vector<KernelRecord> Kernels;
  DenseMap<unsigned, size_t> LaunchSlot;
  std::vector<LaunchSiteInfo> Launches;
  std::unique_ptr<MangleContext> Mangler;
  std::set<std::string> WarpWidths; ///< tunable names used as the warp width
};

/// Names matched by Pattern's first group in preprocessor-skipped text,
/// with their offsets in Text.
static std::vector<std::pair<std::string, size_t>> namesInText(StringRef Text,
                                                               const char *Pattern) {
  std::vector<std::pair<std::string, size_t>> Names;
  Regex Re(Pattern);
  StringRef Rest = Text;
  SmallVector<StringRef, 2> M;
  while (Re.match(Rest, &M)) {
    size_t Off = M[1].data() - Text.data();
    Names.push_back({M[1].str(), Off});
    Rest = Text.drop_front(Off + M[1].size());
  }
  return Names;
}

static const char KernelDeclPattern[] =
    "__global__[^;{(]*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*\\(";
static const char ChevronPattern[] = "([A-Za-z_][A-Za-z0-9_:]*)[ \t\n]*(<[^<>;]*>)?[ \t\n]*<<<";

/// Features named in preprocessor-skipped text: PTX in asm strings and the
/// intrinsics of featureOfCallee.
static std::set<std::string> featuresInText(StringRef Text) {
  std::set<std::string> F = featuresInAsm(Text);
  if (Text.contains("asm"))
    F.insert("inline-asm");
  static const char *const Names[] = {"__shfl", "__ballot", "__any", "__all", "atomic",
                                      "memcpy_async", "cub::", "cooperative_groups::"};
  for (const char *N : Names) {
    if (!Text.contains(N))
      continue;
    if (StringRef(N) == "cub::")
      F.insert("cub");
    else if (StringRef(N) == "cooperative_groups::")
      F.insert("cooperative-groups");
    else if (const char *Feat = featureOfCallee(N))
      F.insert(Feat);
  }
  return F;
}

void SideIndexer::finish(const PreprocessorFacts &Facts, FileIndex &Out,
                         std::set<std::string> &WarpWidthsOut) {
  WarpWidthsOut.insert(WarpWidths.begin(), WarpWidths.end());
  // Inactive regions (device side only: that is the target's view).
  std::vector<InactiveRegion> Regions;
  if (S == Side::Device) {
    for (SourceRange R : Facts.Skipped) {
      SourceLocation B = SM.getExpansionLoc(R.getBegin());
      SourceLocation E = SM.getExpansionLoc(R.getEnd());
      FileID FID = SM.getFileID(B);
      if (FID != SM.getFileID(E))
        continue;
      bool Invalid = false;
      StringRef Buf = SM.getBufferData(FID, &Invalid);
      if (Invalid)
        continue;
      unsigned BO = SM.getFileOffset(B), EO = SM.getFileOffset(E);
      StringRef Text = Buf.slice(BO, EO);
      InactiveRegion IR;
      IR.Begin = loc(B);
      IR.EndLine = SM.getPresumedLoc(E).getLine();
      IR.Features = featuresInText(Text);
      for (auto &[Name, Off] : namesInText(Text, KernelDeclPattern)) {
        IR.Kernels.push_back(Name);
        IR.KernelLocs.push_back(loc(B.getLocWithOffset(Off)));
      }
      for (auto &[Name, Off] : namesInText(Text, ChevronPattern)) {
        IR.Launches.push_back(Name);
        IR.LaunchLocs.push_back(loc(B.getLocWithOffset(Off)));
      }
      for (KernelRecord &K : Kernels)
        if (K.File == FID && BO >= K.BodyBegin && EO <= K.BodyEnd)
          K.Info.InactiveFeatures.insert(IR.Features.begin(), IR.Features.end());
      if (!IR.Features.empty() || !IR.Kernels.empty() || !IR.Launches.empty())
        Regions.push_back(IR);
    }
  }

  // Merge into Out: kernels by location, launches by location and kernel,
  // tunables by origin and name.
  for (KernelRecord &K : Kernels) {
    auto It = llvm::find_if(Out.Kernels, [&](const KernelInfo &O) { return O.Loc == K.Info.Loc; });
    if (It == Out.Kernels.end()) {
      Out.Kernels.push_back(K.Info);
      continue;
    }
    It->Features.insert(K.Info.Features.begin(), K.Info.Features.end());
    It->InactiveFeatures.insert(K.Info.InactiveFeatures.begin(), K.Info.InactiveFeatures.end());
    It->DynamicShared |= K.Info.DynamicShared;
    if (K.Info.StaticSharedBytes)
      It->StaticSharedBytes = K.Info.StaticSharedBytes; // the device view wins
    if (It->Mangled.empty())
      It->Mangled = K.Info.Mangled;
    for (const KernelInstantiation &I : K.Info.Instantiations) {
      auto Same = llvm::find_if(It->Instantiations, [&](const KernelInstantiation &O) {
        return argsText(O.Args) == argsText(I.Args);
      });
      if (Same == It->Instantiations.end()) {
        It->Instantiations.push_back(I);
        continue;
      }
      if (I.StaticSharedBytes)
        Same->StaticSharedBytes = I.StaticSharedBytes;
      if (Same->Mangled.empty())
        Same->Mangled = I.Mangled;
    }
  }
  for (LaunchSiteInfo &L : Launches) {
    auto It = llvm::find_if(Out.LaunchSites, [&](const LaunchSiteInfo &O) {
      return O.Loc == L.Loc && O.Syntax == L.Syntax;
    });
    if (It == Out.LaunchSites.end())
      Out.LaunchSites.push_back(L);
  }
  for (auto &[Key, T] : Tunables) {
    auto It = llvm::find_if(Out.Tunables, [&](const TunableInfo &O) {
      return O.Origin == T.Origin && O.Name == T.Name;
    });
    if (It == Out.Tunables.end()) {
      Out.Tunables.push_back(T);
    } else {
      for (const Location &U : T.UsedAt)
        useAt(*It, U);
      if (!It->Current && T.Current) {
        It->Current = T.Current;
        It->CurrentText = T.CurrentText;
      }
    }
  }
  for (InactiveRegion &R : Regions)
    Out.InactiveRegions.push_back(std::move(R));
}

} // namespace

//===----------------------------------------------------------------------===//
// Post-processing over the merged index
//===----------------------------------------------------------------------===//

/// `// forge: tune NAME = 64, 128, 256` in the main file.
static void addAnnotations(StringRef MainText, StringRef Display, FileIndex &Out) {
  Regex Ann("//[ \t]*forge:[ \t]*tune[ \t]+([A-Za-z_][A-Za-z0-9_:]*)[ \t]*=[ \t]*([-0-9x, \t]+)");
  unsigned Line = 0;
  SmallVector<StringRef, 0> Lines;
  MainText.split(Lines, '\n');
  for (StringRef L : Lines) {
    ++Line;
    SmallVector<StringRef, 3> M;
    if (!Ann.match(L, &M))
      continue;
    std::vector<int64_t> Values;
    SmallVector<StringRef, 8> Parts;
    M[2].split(Parts, ',', -1, false);
    for (StringRef P : Parts) {
      int64_t V;
      if (!P.trim().getAsInteger(0, V))
        Values.push_back(V);
    }
    StringRef Name = M[1];
    auto It = llvm::find_if(Out.Tunables, [&](const TunableInfo &T) {
      return T.Name == Name || StringRef(T.Name).ends_with(("::" + Name).str());
    });
    if (It != Out.Tunables.end()) {
      It->Candidates = Values;
      continue;
    }
    TunableInfo T;
    T.Name = Name.str();
    T.Origin = "annotation";
    T.Loc = {Display.str(), Line, unsigned(L.find("forge:") + 1)};
    T.Candidates = Values;
    T.Role = "annotation";
    // The value the code uses now, if NAME is a literal macro in this file.
    Regex Def(("#[ \t]*define[ \t]+" + Name + "[ \t]+\\(?([0-9]+)").str());
    SmallVector<StringRef, 2> DM;
    if (Def.match(MainText, &DM)) {
      int64_t V;
      if (!DM[1].getAsInteger(10, V)) {
        T.Current = V;
        T.CurrentText = DM[1].str();
      }
    }
    Out.Tunables.push_back(T);
  }
}

bool namesWarpSize(StringRef Name) {
  if (size_t Colons = Name.rfind("::"); Colons != StringRef::npos)
    Name = Name.drop_front(Colons + 2);
  std::string N;
  for (char C : Name) {
    if (!isAlnum(C) && C != '_')
      return false; // "k.block@12" names a launch, not a constant
    if (C != '_')
      N += toLower(C);
  }
  StringRef S(N);
  return S.contains("warpsize") || S.contains("warpsz") || S.contains("warpthreads") ||
         S.contains("threadsperwarp") || S.contains("warpwidth");
}

KernelIndexBuilder::KernelIndexBuilder(StringRef File) : File(File.str()) {
  SmallString<256> A(File);
  sys::fs::make_absolute(A);
  sys::path::remove_dots(A, true);
  Abs = A.str().str();
  Out.File = File.str();
}

KernelIndexBuilder::~KernelIndexBuilder() = default;

void KernelIndexBuilder::addSide(ASTContext &Ctx, CompilerInstance &CI, Side S,
                                 const PreprocessorFacts &Facts) {
  SideIndexer Indexer(Ctx, CI, S, Abs, File);
  MatchFinder Finder;
  Finder.addMatcher(matchers::kernelDecl(), &Indexer);
  Finder.addMatcher(matchers::chevronLaunch(), &Indexer);
  Finder.addMatcher(matchers::runtimeLaunch(), &Indexer);
  Finder.addMatcher(binaryOperator(hasAnyOperatorName("%", "/", "&")).bind("warp-op"), &Indexer);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasAnyName(
                   "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
                   "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor"))))
          .bind("shuffle"),
      &Indexer);
  Finder.matchAST(Ctx);
  Indexer.finish(Facts, Out, WarpWidths);
}

namespace {
Expected<FileIndex> indexSides(const Toolchain &TC, const ParseOptions &Opts, StringRef File,
                               ParseDiagnostics &Diags, ArrayRef<Side> Sides) {
  if (Error E = checkCudaInput(File))
    return std::move(E);
  unsigned ErrorsBefore = Diags.errors();
  KernelIndexBuilder Builder(File);
  for (Side S : Sides) {
    ParseRequest Req;
    Req.File = File.str();
    Req.S = S;
    Error E = parseCuda(TC, Opts, Req, Diags,
                        [&](ASTContext &Ctx, CompilerInstance &CI,
                            const PreprocessorFacts &Facts) {
                          Builder.addSide(Ctx, CI, S, Facts);
                        });
    if (E)
      return std::move(E);
  }
  FileIndex Out = Builder.finish(Opts.target().Name);
  Out.Errors = Diags.errors() - ErrorsBefore;
  return Out;
}
} // namespace

Expected<FileIndex> buildKernelIndex(const Toolchain &TC, const ParseOptions &Opts,
                                     StringRef File, ParseDiagnostics &Diags) {
  // A host compiler's unit (a C unit, ParseOptions::HostCompiler) is one side.
  if (Opts.HostCompiler)
    return indexSides(TC, Opts, File, Diags, {Side::Host});
  return indexSides(TC, Opts, File, Diags, {Side::Host, Side::Device});
}

Expected<FileIndex> buildHostIndex(const Toolchain &TC, const ParseOptions &Opts,
                                   StringRef File, ParseDiagnostics &Diags) {
  return indexSides(TC, Opts, File, Diags, {Side::Host});
}

FileIndex KernelIndexBuilder::finish(StringRef Arch) {
  Out.Arch = Arch.str();
  // The warp width is the hardware's, not a knob (an annotation still
  // makes one).
  llvm::erase_if(Out.Tunables, [&](const TunableInfo &T) {
    if (T.Origin != "macro" && T.Origin != "constexpr" && T.Origin != "launch" &&
        T.Origin != "template")
      return false;
    return namesWarpSize(T.Name) || (T.Origin != "template" && WarpWidths.count(T.Name));
  });

  // Kernels only in skipped code are reported inactive for this target.
  for (const InactiveRegion &R : Out.InactiveRegions) {
    for (size_t I = 0; I < R.Kernels.size(); ++I) {
      const std::string &Name = R.Kernels[I];
      bool Known = llvm::any_of(Out.Kernels, [&](const KernelInfo &K) { return K.Name == Name; });
      if (Known)
        continue;
      KernelInfo K;
      K.Name = K.QualifiedName = Name;
      K.Loc = R.KernelLocs[I];
      K.Active = false;
      K.InactiveFeatures = R.Features;
      Out.Kernels.push_back(K);
    }
    for (size_t I = 0; I < R.Launches.size(); ++I) {
      LaunchSiteInfo L;
      L.Kernel = R.Launches[I];
      L.Loc = R.LaunchLocs[I];
      L.Syntax = "chevron";
      L.Active = false;
      L.Resolved = false;
      Out.LaunchSites.push_back(L);
    }
  }

  // Fill candidates and the current value of template tunables bound
  // through host templates (one instantiation: its value).
  for (TunableInfo &T : Out.Tunables) {
    if (T.Origin == "template" && !T.Current) {
      std::set<int64_t> Seen;
      StringRef ParamName = StringRef(T.Name).rsplit("::").second;
      for (const LaunchSiteInfo &L : Out.LaunchSites) {
        if (!is_contained(T.UsedAt, L.Loc))
          continue;
        const KernelInfo *K = nullptr;
        for (const KernelInfo &KI : Out.Kernels)
          if (KI.QualifiedName == L.Kernel)
            K = &KI;
        if (!K)
          continue;
        for (size_t P = 0; P < K->TemplateParams.size(); ++P)
          if (K->TemplateParams[P].Name == ParamName)
            for (const LaunchInstantiation &LI : L.Instantiations)
              if (P < LI.TemplateArgs.size() && LI.TemplateArgs[P].IntValue)
                Seen.insert(*LI.TemplateArgs[P].IntValue);
      }
      if (Seen.size() == 1)
        T.Current = *Seen.begin();
      if (!Seen.empty()) {
        // Powers of two around the values in use, and those values.
        T.Candidates = defaultCandidates(T.Role, *Seen.rbegin());
        for (int64_t V : Seen)
          if (!is_contained(T.Candidates, V))
            T.Candidates.push_back(V);
        llvm::sort(T.Candidates);
      }
    }
  }
  auto MainText = MemoryBuffer::getFile(Abs);
  if (MainText)
    addAnnotations((*MainText)->getBuffer(), File, Out);
  for (TunableInfo &T : Out.Tunables) {
    if (T.Candidates.empty()) {
      std::vector<int64_t> D = defaultCandidates(T.Role, T.Current);
      for (int64_t V : D)
        if (!is_contained(T.Candidates, V))
          T.Candidates.push_back(V);
      llvm::sort(T.Candidates);
    }
  }

  auto ByLoc = [](const auto &A, const auto &B) { return A.Loc < B.Loc; };
  llvm::stable_sort(Out.Kernels, ByLoc);
  llvm::stable_sort(Out.LaunchSites, ByLoc);
  llvm::stable_sort(Out.Tunables, [](const TunableInfo &A, const TunableInfo &B) {
    return std::tie(A.Loc, A.Name) < std::tie(B.Loc, B.Name);
  });
  return std::move(Out);
}

} // namespace forge::frontend
