//===- Cuda13RemovedApi.cpp - cuda13-removed-api --------------------------===//
#include "Cuda13RemovedApi.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Regex.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

/// Runtime functions removed in CUDA 13 whose replacement takes the same
/// arguments and does the same (the CUDA 4.0 renames of the per-thread
/// context calls to per-device ones): a use is renamed. CUDA 13's headers
/// do not declare them, so a use is the parse error "use of undeclared
/// identifier", often with Clang's own guess at the replacement.
struct RenameMapping {
  const char *Name;
  const char *Replacement;
  const char *DeprecatedIn; ///< nullptr: removed without a deprecation first
  const char *RemovedIn;
  const char *Why;          ///< why the replacement keeps the behaviour
};
/// Functions whose device-number argument became a cudaMemLocation in CUDA
/// 13; cudaMemPrefetchAsync also gained a flags argument after it.
struct LocationMapping {
  const char *Name;
  unsigned DeviceArg;   ///< index of the old int device argument
  unsigned MinArgs;     ///< the CUDA 12 form's argument counts
  unsigned MaxArgs;
  bool AddsFlags;       ///< ', 0' (flags) goes after the location
  const char *OldForm;
  const char *RemovedIn;
};
/// Functions whose CUDA 13 form dropped an output argument (CUDA 12.8's
/// batched copies lost failIdx). A null one is deleted; one the code reads
/// is reported.
struct DropArgMapping {
  const char *Name;
  unsigned DropAt;  ///< the dropped argument's index in the old form
  unsigned OldArgs; ///< the old form's argument count
  const char *OldForm;
  const char *Message;
};
/// Functions whose CUDA 13 form takes one argument more than the old one:
/// the graph calls that take edge data (CUDA 12.3 added them as _v2/_v3,
/// CUDA 13 gave the plain names their signature), and the deprecated
/// cudaGetDriverEntryPoint, whose replacement takes the CUDA version. The
/// argument is inserted, with the value that keeps the old behaviour; a
/// renamed function (Replacement) is renamed too.
struct InsertArgMapping {
  const char *Name;
  const char *Replacement; ///< the CUDA 13 name; nullptr: the same name
  unsigned InsertAt;       ///< the new argument's index in the CUDA 13 form
  unsigned MinArgs;        ///< the old form's written argument counts; a
  unsigned MaxArgs;        ///< call with InsertAt or fewer is only renamed
  const char *Inserted;    ///< its value ("nullptr" is NULL in C)
  const char *OldForm;
  const char *Message;
  bool Deprecated;         ///< still declared in CUDA 13: a warning
  /// The enum of the old form's argument after InsertAt, where an old call
  /// can compile against the new form: a literal 0 there becomes the null
  /// edge data, and the flags the count.
  const char *SilentIfEnumAfter = nullptr;
};
/// Vector types deprecated in CUDA 13. The _16a form has the old type's size
/// and 16-byte alignment, so renaming to it changes no layout.
struct VectorMapping {
  const char *Name;
  const char *Aligned16;
  const char *Aligned32;
  const char *DeprecatedIn;
};

namespace {
/// cudaDeviceProp fields removed in CUDA 13 and the attribute that replaces
/// each of them.
struct FieldMapping {
  const char *Field;
  const char *Attribute; ///< nullptr: no attribute replaces it
  const char *RemovedIn;
  const char *Advice;    ///< for a field with no attribute
};
const FieldMapping FieldTable[] = {
    {"clockRate", "cudaDevAttrClockRate", "13", nullptr},
    {"memoryClockRate", "cudaDevAttrMemoryClockRate", "13", nullptr},
    {"deviceOverlap", "cudaDevAttrGpuOverlap", "13", nullptr},
    {"kernelExecTimeoutEnabled", "cudaDevAttrKernelExecTimeout", "13", nullptr},
    {"computeMode", "cudaDevAttrComputeMode", "13", nullptr},
    // The attribute the field was read from; CUDA 13's release notes also
    // name cudaDeviceGetTexture1DLinearMaxWidth, which asks per format.
    {"maxTexture1DLinear", "cudaDevAttrMaxTexture1DLinearWidth", "13", nullptr},
    {"singleToDoublePrecisionPerfRatio", "cudaDevAttrSingleToDoublePrecisionPerfRatio", "13",
     nullptr},
    {"cooperativeMultiDeviceLaunch", nullptr, "13",
     "multi-device cooperative launch is gone (cudaLaunchCooperativeKernelMultiDevice); "
     "cudaDevAttrCooperativeLaunch tells whether one device can launch a cooperative kernel"},
};

const char SameBehaviour[] = "which does the same";
/// The CUDA 12.3 (12.8 for the event timer) names of the edge-data forms:
/// CUDA 13 gave the plain names these signatures and dropped the suffixed
/// ones.
const char SameSignature[] = "which takes the same arguments since CUDA 13";
const RenameMapping RenameTable[] = {
    {"cudaThreadSynchronize", "cudaDeviceSynchronize", "4.0", "13", SameBehaviour},
    {"cudaThreadExit", "cudaDeviceReset", "4.0", "13", SameBehaviour},
    {"cudaThreadSetLimit", "cudaDeviceSetLimit", "4.0", "13", SameBehaviour},
    {"cudaThreadGetLimit", "cudaDeviceGetLimit", "4.0", "13", SameBehaviour},
    {"cudaThreadSetCacheConfig", "cudaDeviceSetCacheConfig", "4.0", "13", SameBehaviour},
    {"cudaThreadGetCacheConfig", "cudaDeviceGetCacheConfig", "4.0", "13", SameBehaviour},
    {"cudaGraphAddDependencies_v2", "cudaGraphAddDependencies", nullptr, "13", SameSignature},
    {"cudaGraphRemoveDependencies_v2", "cudaGraphRemoveDependencies", nullptr, "13",
     SameSignature},
    {"cudaGraphGetEdges_v2", "cudaGraphGetEdges", nullptr, "13", SameSignature},
    {"cudaGraphNodeGetDependencies_v2", "cudaGraphNodeGetDependencies", nullptr, "13",
     SameSignature},
    {"cudaGraphNodeGetDependentNodes_v2", "cudaGraphNodeGetDependentNodes", nullptr, "13",
     SameSignature},
    {"cudaStreamUpdateCaptureDependencies_v2", "cudaStreamUpdateCaptureDependencies", nullptr,
     "13", SameSignature},
    {"cudaStreamGetCaptureInfo_v3", "cudaStreamGetCaptureInfo", nullptr, "13", SameSignature},
    {"cudaGraphAddNode_v2", "cudaGraphAddNode", nullptr, "13", SameSignature},
    {"cudaEventElapsedTime_v2", "cudaEventElapsedTime", nullptr, "13", SameSignature},
    // driver_types.h of CUDA 12: both names are attribute 114.
    {"cudaDevAttrMaxTimelineSemaphoreInteropSupported",
     "cudaDevAttrTimelineSemaphoreInteropSupported", nullptr, "13",
     "the same attribute (114) under its current name"},
};

const LocationMapping LocationTable[] = {
    {"cudaMemAdvise", 3, 4, 4, false, "(ptr, count, advice, device)", "13"},
    {"cudaMemPrefetchAsync", 2, 3, 4, true, "(ptr, count, device[, stream])", "13"},
};

#define FORGE_EDGE_DATA(Fn, Param)                                                          \
  "'" Fn "' takes a '" Param "' argument since CUDA 13 (the form CUDA 12.3 named "          \
  "'" Fn "_v2'); nullptr there means default edges, as the old form had"
const InsertArgMapping InsertArgTable[] = {
    {"cudaGraphAddDependencies", nullptr, 3, 4, 4, "nullptr", "(graph, from, to, count)",
     FORGE_EDGE_DATA("cudaGraphAddDependencies", "const cudaGraphEdgeData *edgeData"), false},
    {"cudaGraphRemoveDependencies", nullptr, 3, 4, 4, "nullptr", "(graph, from, to, count)",
     FORGE_EDGE_DATA("cudaGraphRemoveDependencies", "const cudaGraphEdgeData *edgeData"), false},
    {"cudaGraphGetEdges", nullptr, 3, 4, 4, "nullptr", "(graph, from, to, numEdges)",
     FORGE_EDGE_DATA("cudaGraphGetEdges", "cudaGraphEdgeData *edgeData"), false},
    {"cudaGraphNodeGetDependencies", nullptr, 2, 3, 3, "nullptr",
     "(node, dependencies, numDependencies)",
     FORGE_EDGE_DATA("cudaGraphNodeGetDependencies", "cudaGraphEdgeData *edgeData"), false},
    {"cudaGraphNodeGetDependentNodes", nullptr, 2, 3, 3, "nullptr",
     "(node, dependentNodes, numDependentNodes)",
     FORGE_EDGE_DATA("cudaGraphNodeGetDependentNodes", "cudaGraphEdgeData *edgeData"), false},
    {"cudaStreamUpdateCaptureDependencies", nullptr, 2, 3, 4, "nullptr",
     "(stream, dependencies, count[, flags])",
     FORGE_EDGE_DATA("cudaStreamUpdateCaptureDependencies",
                     "const cudaGraphEdgeData *dependencyData"),
     false, "cudaStreamUpdateCaptureDependenciesFlags"},
    {"cudaGraphAddNode", nullptr, 3, 5, 5, "nullptr",
     "(node, graph, dependencies, count, params)",
     FORGE_EDGE_DATA("cudaGraphAddNode", "const cudaGraphEdgeData *dependencyData"), false},
    // CUDA 12's six-argument form; with fewer arguments both forms agree.
    {"cudaStreamGetCaptureInfo", nullptr, 5, 6, 6, "nullptr",
     "(stream, status, id, graph, dependencies, count)",
     "'cudaStreamGetCaptureInfo' takes a 'const cudaGraphEdgeData **edgeData_out' argument "
     "before the dependency count since CUDA 13 (the form CUDA 12.3 named "
     "'cudaStreamGetCaptureInfo_v3'); nullptr there asks for no edge data, as the old form did",
     false},
    {"cudaStreamGetCaptureInfo_v2", "cudaStreamGetCaptureInfo", 5, 2, 6, "nullptr",
     "(stream, status[, id, graph, dependencies, count])",
     "'cudaStreamGetCaptureInfo_v2' was removed in CUDA 13; use 'cudaStreamGetCaptureInfo', "
     "which takes a 'const cudaGraphEdgeData **edgeData_out' argument before the dependency "
     "count (nullptr: no edge data, as before)",
     false},
    // The old call looked the symbol up for the runtime's own version,
    // CUDART_VERSION with the static runtime nvcc links by default.
    {"cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", 2, 3, 4, "CUDART_VERSION",
     "(symbol, funcPtr, flags[, status])",
     "'cudaGetDriverEntryPoint' is deprecated in CUDA 13; use "
     "'cudaGetDriverEntryPointByVersion' (CUDA 12.5) with cudaVersion = CUDART_VERSION, the "
     "runtime version the old call looked the symbol up for",
     true},
};
#undef FORGE_EDGE_DATA

const DropArgMapping DropArgTable[] = {
    {"cudaMemcpyBatchAsync", 7, 9,
     "(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, stream)",
     "'cudaMemcpyBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 "
     "had it before the stream)"},
    {"cudaMemcpy3DBatchAsync", 2, 5, "(numOps, opList, failIdx, flags, stream)",
     "'cudaMemcpy3DBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 "
     "had it after the operations)"},
};

/// Names removed with nothing that does the same: reported, never
/// rewritten. With CUDA 13's headers a use is "use of undeclared
/// identifier" (a function, an enumerator, a macro) or "unknown type name".
struct RemovedMapping {
  const char *Name;
  const char *RemovedIn;
  const char *DeprecatedIn; ///< nullptr: not known
  const char *Advice;
};
const char MultiDeviceAdvice[] =
    "launch the kernel on each device with cudaLaunchCooperativeKernel; a grid-wide "
    "barrier across devices (this_multi_grid) has no replacement";
const RemovedMapping RemovedTable[] = {
    {"cudaLaunchCooperativeKernelMultiDevice", "13", "11.3", MultiDeviceAdvice},
    {"cudaLaunchParams", "13", "11.3", MultiDeviceAdvice},
    {"cudaCooperativeLaunchMultiDeviceNoPreSync", "13", "11.3", MultiDeviceAdvice},
    {"cudaCooperativeLaunchMultiDeviceNoPostSync", "13", "11.3", MultiDeviceAdvice},
    {"cudaDevAttrCooperativeMultiDeviceLaunch", "13", nullptr,
     "multi-device cooperative launch is gone; cudaDevAttrCooperativeLaunch tells whether "
     "one device can launch a cooperative kernel"},
    {"cudaProfilerInitialize", "12.0", "11.0",
     "profiling is configured by the profiler (Nsight Systems, Nsight Compute); keep "
     "cudaProfilerStart/cudaProfilerStop to delimit the range"},
};

/// Names removed from a namespace: CCCL 3.0 (CUDA 13.0) dropped CUB's
/// functors, which CCCL 2.8 had deprecated for the libcu++ ones, and its own
/// fancy iterators for Thrust's; CUDA 13 dropped cooperative groups'
/// multi-device grid. With CUDA 13's headers a use is "no member / type /
/// template named 'Max' in namespace 'cub'".
struct NamespaceMapping {
  const char *Namespace;
  const char *Name;
  const char *Replacement; ///< same behaviour; nullptr: none, see Advice
  const char *RemovedIn;
  const char *Advice;
};
const char CCCL3[] = "CCCL 3.0 (CUDA 13.0)";
const NamespaceMapping NamespaceTable[] = {
    // <cub/thread/thread_operators.cuh>, which every CUB header that takes
    // an operator includes, includes <cuda/functional> (cuda::maximum,
    // cuda::minimum) and <cuda/std/functional> (cuda::std::plus, ...).
    {"cub", "Max", "cuda::maximum<>", CCCL3, nullptr},
    {"cub", "Min", "cuda::minimum<>", CCCL3, nullptr},
    {"cub", "Sum", "cuda::std::plus<>", CCCL3, nullptr},
    {"cub", "Difference", "cuda::std::minus<>", CCCL3, nullptr},
    {"cub", "Division", "cuda::std::divides<>", CCCL3, nullptr},
    {"cub", "Equality", "cuda::std::equal_to<>", CCCL3, nullptr},
    {"cub", "Inequality", "cuda::std::not_equal_to<>", CCCL3, nullptr},
    {"cub", "CountingInputIterator", nullptr, CCCL3,
     "use thrust::counting_iterator<T> (<thrust/iterator/counting_iterator.h>)"},
    {"cub", "ConstantInputIterator", nullptr, CCCL3,
     "use thrust::constant_iterator<T> (<thrust/iterator/constant_iterator.h>)"},
    {"cub", "TransformInputIterator", nullptr, CCCL3,
     "use thrust::transform_iterator<Op, It> (<thrust/iterator/transform_iterator.h>); its "
     "template arguments come in another order"},
    {"cub", "DiscardOutputIterator", nullptr, CCCL3,
     "use thrust::discard_iterator<> (<thrust/iterator/discard_iterator.h>)"},
    {"cooperative_groups", "this_multi_grid", nullptr, "CUDA 13.0",
     "multi-device grids are gone with cudaLaunchCooperativeKernelMultiDevice; synchronize "
     "the devices from the host"},
    {"cooperative_groups", "multi_grid_group", nullptr, "CUDA 13.0",
     "multi-device grids are gone with cudaLaunchCooperativeKernelMultiDevice; synchronize "
     "the devices from the host"},
};


const VectorMapping VectorTable[] = {
    {"double4", "double4_16a", "double4_32a", "13"},
    {"long4", "long4_16a", "long4_32a", "13"},
    {"ulong4", "ulong4_16a", "ulong4_32a", "13"},
    {"longlong4", "longlong4_16a", "longlong4_32a", "13"},
    {"ulonglong4", "ulonglong4_16a", "ulonglong4_32a", "13"},
};

/// Templates removed in CUDA 13 (texture and surface references); with CUDA
/// 13 headers a use is the parse error "no template named '<Name>'".
struct TemplateMapping {
  const char *Name;
  const char *Message;
};
const TemplateMapping TemplateTable[] = {
    {"texture", "texture references were removed in CUDA 13; use texture objects "
                "(cudaTextureObject_t, created with cudaCreateTextureObject)"},
    {"surface", "surface references were removed in CUDA 13; use surface objects "
                "(cudaSurfaceObject_t, created with cudaCreateSurfaceObject)"},
};

const FieldMapping *lookupField(StringRef Name) {
  for (const FieldMapping &M : FieldTable)
    if (Name == M.Field)
      return &M;
  return nullptr;
}

const RenameMapping *lookupRename(StringRef Name) {
  for (const RenameMapping &M : RenameTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

const InsertArgMapping *lookupInsertArg(StringRef Name) {
  for (const InsertArgMapping &M : InsertArgTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

const DropArgMapping *lookupDropArg(StringRef Name) {
  for (const DropArgMapping &M : DropArgTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

const RemovedMapping *lookupRemoved(StringRef Name) {
  for (const RemovedMapping &M : RemovedTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

const NamespaceMapping *lookupNamespace(StringRef Namespace, StringRef Name) {
  for (const NamespaceMapping &M : NamespaceTable)
    if (Namespace == M.Namespace && Name == M.Name)
      return &M;
  return nullptr;
}

const LocationMapping *lookupLocation(StringRef Name) {
  for (const LocationMapping &M : LocationTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

std::string renameMessage(const RenameMapping &M) {
  std::string Deprecated =
      M.DeprecatedIn ? (" (deprecated since CUDA " + Twine(M.DeprecatedIn) + ")").str() : "";
  return ("'" + Twine(M.Name) + "' was removed in CUDA " + M.RemovedIn + Deprecated +
          "; use '" + M.Replacement + "', " + M.Why)
      .str();
}

std::string locationMessage(const LocationMapping &M) {
  return ("'" + Twine(M.Name) + "' takes a cudaMemLocation instead of a device number since CUDA " +
          M.RemovedIn + (M.AddsFlags ? ", and a flags argument after it" : "") +
          "; pass cudaMemLocation{cudaMemLocationTypeDevice, device} "
          "(cudaMemLocationTypeHost for cudaCpuDeviceId)")
      .str();
}

/// Clang's errors for a use of a renamed function and for a call of a
/// LocationTable function in its CUDA 12 form.
const Regex &undeclaredRegex() {
  static const Regex R("^use of undeclared identifier '([A-Za-z_0-9]+)'");
  return R;
}
const Regex &noMemberRegex() {
  static const Regex R("^no member named '([A-Za-z_0-9]+)' in '(struct )?cudaDeviceProp'");
  return R;
}
const Regex &unknownTypeRegex() {
  static const Regex R("^unknown type name '([A-Za-z_0-9]+)'");
  return R;
}
const Regex &namespaceMemberRegex() {
  static const Regex R(
      "^no (member|type|template) named '([A-Za-z_0-9]+)' in namespace '([A-Za-z_0-9:]+)'");
  return R;
}
const Regex &oldCaptureInfoRegex() {
  static const Regex R("^cannot initialize a parameter of type 'const cudaGraphEdgeData \\*\\*' "
                       "\\(aka '[^']*'\\) with an [lr]value of type 'size_t \\*'");
  return R;
}
const Regex &noMatchingCallRegex() {
  static const Regex R("^no matching function for call to '([A-Za-z_0-9]+)'");
  return R;
}

const VectorMapping *lookupVector(StringRef Name) {
  for (const VectorMapping &M : VectorTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

std::string fieldMessage(const FieldMapping &M) {
  if (!M.Attribute)
    return ("'cudaDeviceProp::" + Twine(M.Field) + "' was removed in CUDA " + M.RemovedIn +
            "; " + M.Advice)
        .str();
  return ("'cudaDeviceProp::" + Twine(M.Field) + "' was removed in CUDA " + M.RemovedIn +
          "; use cudaDeviceGetAttribute(&value, " + M.Attribute + ", device)")
      .str();
}

/// The cudaDeviceProp record behind E (an object or a pointer to one).
bool isDeviceProp(const Expr &E) {
  QualType T = E.IgnoreParenImpCasts()->getType();
  if (T.isNull())
    return false;
  if (const auto *PT = T->getAs<PointerType>())
    T = PT->getPointeeType();
  const auto *RD = T->getAsRecordDecl();
  return RD && RD->getName() == "cudaDeviceProp";
}

const VarDecl *referencedVar(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

bool refersTo(const Expr *E, const VarDecl *V) { return E && referencedVar(E) == V; }

/// The nearest parent of E that is not a parenthesis or an implicit cast.
DynTypedNode semanticParent(ASTContext &Ctx, const Expr &E, const Expr *&Child) {
  DynTypedNode N = DynTypedNode::create(E);
  Child = &E;
  while (true) {
    auto Parents = Ctx.getParents(N);
    if (Parents.empty())
      return DynTypedNode();
    N = Parents[0];
    const auto *PE = N.get<Expr>();
    if (PE && (isa<ParenExpr>(PE) || isa<ImplicitCastExpr>(PE))) {
      Child = PE;
      continue;
    }
    return N;
  }
}

/// Why the value of the field cannot be replaced by a prvalue: it is
/// written, its address is taken, or a non-const reference binds to it.
std::optional<std::string> usedAsLValue(ASTContext &Ctx, const Expr &Use) {
  const Expr *Child = nullptr;
  DynTypedNode P = semanticParent(Ctx, Use, Child);
  if (const auto *UO = P.get<UnaryOperator>())
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      return std::string("the field is modified or its address is taken");
  if (const auto *BO = P.get<BinaryOperator>())
    if (BO->isAssignmentOp() && BO->getLHS() == Child)
      return std::string("the field is assigned to");
  if (const auto *VD = P.get<VarDecl>())
    if (VD->getType()->isReferenceType() &&
        !VD->getType().getNonReferenceType().isConstQualified())
      return std::string("a non-const reference binds to the field");
  return std::nullopt;
}

bool contains(const SourceManager &SM, SourceRange Outer, SourceLocation L) {
  return !SM.isBeforeInTranslationUnit(L, Outer.getBegin()) &&
         !SM.isBeforeInTranslationUnit(Outer.getEnd(), L);
}

/// The innermost loop around S within Fn, if any.
const Stmt *enclosingLoop(ASTContext &Ctx, const Stmt &S) {
  DynTypedNode N = DynTypedNode::create(S);
  while (true) {
    auto Parents = Ctx.getParents(N);
    if (Parents.empty())
      return nullptr;
    N = Parents[0];
    if (N.get<Decl>() && isa<FunctionDecl>(N.get<Decl>()))
      return nullptr;
    if (const auto *St = N.get<Stmt>()) {
      // `do { ... } while (0)`, as statement-like macros are written, runs once.
      if (const auto *Do = dyn_cast<DoStmt>(St)) {
        bool Cond = true;
        if (!Do->getCond()->isValueDependent() &&
            Do->getCond()->EvaluateAsBooleanCondition(Cond, Ctx) && !Cond)
          continue;
      }
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(St))
        return St;
    }
  }
}

/// Whether the device argument Dev of Call still holds, at Use, the value
/// that Call saw. Returns the reason when it may not.
std::optional<std::string> deviceStable(ASTContext &Ctx, const FunctionDecl &Fn,
                                        const CallExpr &Call, const Expr &Dev,
                                        const Expr &Use) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *D = Dev.IgnoreParenImpCasts();
  if (isa<IntegerLiteral>(D))
    return std::nullopt;
  const auto *DRE = dyn_cast<DeclRefExpr>(D);
  if (DRE && isa<EnumConstantDecl>(DRE->getDecl()))
    return std::nullopt;
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  std::string Unknown = "the device argument of cudaGetDeviceProperties is not a "
                        "constant or a local variable";
  if (!V || V->getType()->isReferenceType())
    return Unknown;
  if (V->hasGlobalStorage())
    return V->getType().isConstQualified() ? std::nullopt : std::optional(Unknown);
  // A local: it must be in scope at Use, and not written after Call.
  if (!isa<ParmVarDecl>(V)) {
    // Its scope: the block of its declaration, or the for/if/while/switch
    // whose init or condition declares it (`for (int d = 0; ...)`).
    auto Parents = Ctx.getParents(*V);
    const Stmt *Scope = nullptr;
    if (!Parents.empty()) {
      if (const auto *DS = Parents[0].get<DeclStmt>()) {
        auto PP = Ctx.getParents(*DS);
        if (!PP.empty())
          Scope = PP[0].get<Stmt>();
      } else {
        Scope = Parents[0].get<Stmt>();
      }
    }
    if (Scope && !isa<CompoundStmt, ForStmt, IfStmt, WhileStmt, SwitchStmt, CXXForRangeStmt>(Scope))
      Scope = nullptr;
    if (!Scope || !contains(SM, Scope->getSourceRange(), Use.getBeginLoc()))
      return "'" + V->getName().str() + "' is not in scope at this use";
  }
  auto ToV = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(V)))));
  auto Writes = match(
      findAll(expr(anyOf(binaryOperator(isAssignmentOperator(), hasLHS(ToV)),
                         unaryOperator(hasAnyOperatorName("++", "--", "&"),
                                       hasUnaryOperand(ToV))))
                  .bind("w")),
      *Fn.getBody(), Ctx);
  // A write after the use is harmless when no loop repeats the use without
  // the call: the call is a statement of a block that holds the use later
  // on, and no loop between the use and that block holds the write
  // (helper_cuda.h's `while (d < n) { cudaGetDeviceProperties(&p, d); if
  // (p.computeMode ...) ...; d++; }`).
  const CompoundStmt *Block = nullptr;
  const Stmt *CallStmt = &Call;
  for (DynTypedNode N = DynTypedNode::create(Call);;) {
    auto Ps = Ctx.getParents(N);
    if (Ps.empty())
      break;
    if (const auto *CS = Ps[0].get<CompoundStmt>()) {
      Block = CS;
      break;
    }
    if (!Ps[0].get<Stmt>() || Ps[0].get<IfStmt>() || Ps[0].get<SwitchStmt>() ||
        isa_and_nonnull<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Ps[0].get<Stmt>()))
      break; // the call is conditional or repeated on its own
    CallStmt = Ps[0].get<Stmt>();
    N = Ps[0];
  }
  auto LoopsBetween = [&](const Expr &From) {
    std::vector<const Stmt *> Loops;
    for (DynTypedNode N = DynTypedNode::create(From);;) {
      auto Ps = Ctx.getParents(N);
      if (Ps.empty() || Ps[0].get<CompoundStmt>() == Block)
        break;
      if (const Stmt *St = Ps[0].get<Stmt>(); St && isa<ForStmt, WhileStmt, DoStmt,
                                                          CXXForRangeStmt>(St))
        Loops.push_back(St);
      N = Ps[0];
    }
    return Loops;
  };
  bool UseInBlock = Block && contains(SM, Block->getSourceRange(), Use.getBeginLoc()) &&
                    SM.isBeforeInTranslationUnit(CallStmt->getEndLoc(), Use.getBeginLoc());
  for (const auto &W : Writes) {
    SourceLocation WL = W.getNodeAs<Expr>("w")->getBeginLoc();
    if (!SM.isBeforeInTranslationUnit(Call.getBeginLoc(), WL))
      continue;
    bool AfterUse = SM.isBeforeInTranslationUnit(Use.getEndLoc(), WL);
    if (UseInBlock && AfterUse &&
        none_of(LoopsBetween(Use),
                [&](const Stmt *L) { return contains(SM, L->getSourceRange(), WL); }))
      continue;
    return "'" + V->getName().str() + "' may change after cudaGetDeviceProperties";
  }
  if (const Stmt *Loop = enclosingLoop(Ctx, Call))
    if (!contains(SM, Loop->getSourceRange(), Use.getBeginLoc()))
      return std::string("cudaGetDeviceProperties is called in a loop that does not "
                         "contain this use");
  return std::nullopt;
}
/// The arguments written in the call, without the defaulted ones.
std::vector<const Expr *> writtenArgs(const CallExpr &CE) {
  std::vector<const Expr *> Args;
  for (const Expr *A : CE.arguments())
    if (!isa<CXXDefaultArgExpr>(A))
      Args.push_back(A);
  return Args;
}
} // namespace

/// ASTMatchers has no matcher for RecoveryExpr.
const internal::VariadicDynCastAllOfMatcher<Stmt, RecoveryExpr> recoveryExpr;

void Cuda13RemovedApi::registerMatchers(MatchFinder &Finder) {
  auto Fn = optionally(hasAncestor(functionDecl(hasBody(stmt())).bind("fn")));
  // CUDA 13 headers: the member does not exist; the base survives in a
  // RecoveryExpr whose range ends at the member name.
  Finder.addMatcher(recoveryExpr(Fn).bind("rec"), this);
  // Older headers: an ordinary member access.
  std::vector<StringRef> Fields, Renamed, Inserted, Removed;
  for (const FieldMapping &M : FieldTable)
    Fields.push_back(M.Field);
  for (const RenameMapping &M : RenameTable)
    Renamed.push_back(M.Name);
  for (const InsertArgMapping &M : InsertArgTable)
    Inserted.push_back(M.Name);
  for (const RemovedMapping &M : RemovedTable)
    Removed.push_back(M.Name);
  Finder.addMatcher(
      memberExpr(member(fieldDecl(hasAnyName(Fields),
                                  hasParent(recordDecl(hasName("cudaDeviceProp"))))),
                 Fn)
          .bind("member"),
      this);
  // Headers that still declare the renamed functions (CUDA 12 and older).
  Finder.addMatcher(declRefExpr(to(namedDecl(hasAnyName(Renamed)))).bind("renamed"), this);
  Finder.addMatcher(declRefExpr(to(namedDecl(hasAnyName(Removed)))).bind("removed"), this);
  // Calls in the old form that still resolve: a deprecated function, or
  // headers that still declare the old form.
  Finder.addMatcher(callExpr(callee(functionDecl(hasAnyName(Inserted)))).bind("insertcall"),
                    this);
  // Any call of the file: one of a removed name that also gains an argument
  // is an undeclared name (Clang may call its guess instead); finish()
  // needs its arguments.
  Finder.addMatcher(callExpr(isExpansionInMainFile()).bind("anycall"), this);
  Finder.addMatcher(
      typeLoc(loc(qualType(hasDeclaration(namedDecl(
                  hasAnyName("double4", "long4", "ulong4", "longlong4", "ulonglong4"))))))
          .bind("tl"),
      this);
}

void Cuda13RemovedApi::check(const MatchFinder::MatchResult &R, PassContext &C) {
  SourceManager &SM = *R.SourceManager;
  const auto *Fn = R.Nodes.getNodeAs<FunctionDecl>("fn");
  if (const auto *TL = R.Nodes.getNodeAs<TypeLoc>("tl")) {
    checkVectorType(*TL, C);
    return;
  }
  if (C.S != frontend::Side::Host)
    return;
  if (const auto *ME = R.Nodes.getNodeAs<MemberExpr>("member")) {
    checkField(*ME, *ME->getBase(), ME->getMemberLoc(), ME->getMemberDecl()->getName(), Fn,
               Severity::Warning, C);
    return;
  }
  if (const auto *DRE = R.Nodes.getNodeAs<DeclRefExpr>("renamed")) {
    if (const RenameMapping *M = lookupRename(DRE->getDecl()->getName()))
      checkRename(*M, DRE->getLocation(), C);
    return;
  }
  if (const auto *DRE = R.Nodes.getNodeAs<DeclRefExpr>("removed")) {
    reportRemoved(DRE->getDecl()->getName(), DRE->getLocation(), C);
    return;
  }
  if (const auto *CE = R.Nodes.getNodeAs<CallExpr>("insertcall")) {
    const auto *Callee = CE->getDirectCallee();
    const InsertArgMapping *M = Callee ? lookupInsertArg(Callee->getName()) : nullptr;
    // Not Clang's guess for another name (cudaStreamGetCaptureInfo for the
    // removed _v2): finish() reports that one, from the parse error.
    SourceLocation L = CE->getCallee()->getExprLoc();
    if (!M || Lexer::getSourceText(CharSourceRange::getTokenRange(SM.getSpellingLoc(L)), SM,
                                   C.Ctx.getLangOpts()) != M->Name)
      return;
    std::vector<const Expr *> Args = writtenArgs(*CE);
    // The old declaration (older headers, or the deprecated function).
    if (Callee->getNumParams() == M->MaxArgs)
      return checkInsertArg(*M, L, Args, true, C);
    // The new one, called the old way with a literal 0 count: it compiles,
    // the 0 as the null edge data and the flags as the count.
    if (M->SilentIfEnumAfter && Args.size() == M->MaxArgs) {
      const Expr *Zero = Args[M->InsertAt]->IgnoreParenImpCasts();
      const auto *Lit = dyn_cast<IntegerLiteral>(Zero);
      const auto *ET = Args[M->InsertAt + 1]->IgnoreParenImpCasts()->getType()->getAs<EnumType>();
      if (Lit && Lit->getValue() == 0 && ET &&
          ET->getDecl()->getName() == M->SilentIfEnumAfter)
        checkInsertArg(*M, L, Args, true, C);
    }
    return;
  }
  if (const auto *CE = R.Nodes.getNodeAs<CallExpr>("anycall")) {
    SourceLocation L = SM.getSpellingLoc(CE->getCallee()->getExprLoc());
    StringRef Text = Lexer::getSourceText(CharSourceRange::getTokenRange(L), SM,
                                          C.Ctx.getLangOpts());
    const InsertArgMapping *M = lookupInsertArg(Text);
    const FunctionDecl *FD = CE->getDirectCallee();
    if (M && M->Replacement &&
        (!FD || !FD->getIdentifier() || FD->getIdentifier()->getName() != Text))
      CallArgs[L] = writtenArgs(*CE);
    return;
  }
  const auto *RE = R.Nodes.getNodeAs<RecoveryExpr>("rec");
  if (!RE || RE->subExpressions().empty() || !RE->subExpressions()[0])
    return;
  // A call whose overload resolution failed: the callee, then the arguments.
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(RE->subExpressions()[0])) {
    std::string Callee = ULE->getName().getAsString();
    if (const LocationMapping *M = lookupLocation(Callee))
      checkLocationCall(*M, *RE, C);
    else if (const InsertArgMapping *M = lookupInsertArg(Callee))
      checkInsertArg(*M, ULE->getExprLoc(),
                     std::vector<const Expr *>(RE->subExpressions().begin() + 1,
                                               RE->subExpressions().end()),
                     false, C);
    else if (const DropArgMapping *M = lookupDropArg(Callee))
      checkDropArg(*M, ULE->getExprLoc(), RE->subExpressions().drop_front(), C);
    return;
  }
  if (RE->subExpressions().size() != 1)
    return;
  const Expr &Base = *RE->subExpressions()[0];
  if (!isDeviceProp(Base))
    return;
  SourceLocation NameLoc = RE->getEndLoc();
  if (NameLoc.isInvalid())
    return;
  StringRef Name = Lexer::getSourceText(CharSourceRange::getTokenRange(SM.getSpellingLoc(NameLoc)),
                                        SM, C.Ctx.getLangOpts());
  checkField(*RE, Base, NameLoc, Name, Fn, Severity::Error, C);
}

void Cuda13RemovedApi::checkField(const Expr &Use, const Expr &Base, SourceLocation NameLoc,
                                  StringRef Field, const FunctionDecl *Fn, Severity Level,
                                  PassContext &C) {
  const FieldMapping *M = lookupField(Field);
  SourceManager &SM = C.Ctx.getSourceManager();
  if (!M || !frontend::isUserLocation(SM, NameLoc))
    return;
  FieldSeen.insert(NameLoc);
  std::string Msg = fieldMessage(*M);
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Level, NameLoc, Msg, {}, {{NameLoc, ("not rewritten: " + Why).str()}});
  };
  if (!M->Attribute)
    return NoFix("CUDA 13 has no attribute that replaces it");

  // A use in a macro's argument (CUDA_SAFE_CALL(...)) is rewritten where it
  // is written; one in a macro's body is not.
  SourceRange Written = Use.getSourceRange();
  CharSourceRange UseRange = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Written), SM, C.Ctx.getLangOpts());
  if (UseRange.isInvalid() || SM.isMacroBodyExpansion(Written.getBegin()) ||
      SM.isMacroBodyExpansion(Written.getEnd()))
    return NoFix("the expression is written inside a macro");
  SourceRange Range = UseRange.getAsRange();
  const VarDecl *Prop = referencedVar(&Base);
  if (!Prop)
    return NoFix("the cudaDeviceProp is not a named variable, so the device it describes is "
                 "not known; query the attribute by hand");
  if (auto Why = usedAsLValue(C.Ctx, Use))
    return NoFix(*Why + "; cudaDeviceGetAttribute yields a value");
  std::string NotFilled = ("no cudaGetDeviceProperties(" +
                           Twine(Prop->getType()->isPointerType() ? "" : "&") +
                           Prop->getName() + ", device) call before this use in the same "
                           "function says which device '" + Prop->getName() +
                           "' describes; pass that device to cudaDeviceGetAttribute by hand")
                              .str();
  if (!Fn || !Fn->getBody())
    return NoFix(NotFilled);

  // The calls that filled Prop earlier in this function.
  bool IsPtr = Prop->getType()->isPointerType();
  const CallExpr *Filler = nullptr;
  std::string DevText;
  auto Calls = match(findAll(callExpr(callee(functionDecl(hasName("cudaGetDeviceProperties"))),
                                      argumentCountIs(2))
                                 .bind("gdp")),
                     *Fn->getBody(), C.Ctx);
  for (const auto &N : Calls) {
    const auto *Call = N.getNodeAs<CallExpr>("gdp");
    const Expr *Arg0 = Call->getArg(0)->IgnoreParenImpCasts();
    bool Fills = false;
    if (IsPtr)
      Fills = refersTo(Arg0, Prop);
    else if (const auto *UO = dyn_cast<UnaryOperator>(Arg0))
      Fills = UO->getOpcode() == UO_AddrOf && refersTo(UO->getSubExpr(), Prop);
    if (!Fills ||
        !SM.isBeforeInTranslationUnit(SM.getFileLoc(Call->getBeginLoc()), Range.getBegin()))
      continue;
    const Expr *Dev = Call->getArg(1);
    CharSourceRange DR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Dev->getSourceRange()), SM, C.Ctx.getLangOpts());
    if (DR.isInvalid())
      return NoFix("the device argument of cudaGetDeviceProperties is written in a macro");
    std::string Text = Lexer::getSourceText(DR, SM, C.Ctx.getLangOpts()).str();
    if (Filler && Text != DevText)
      return NoFix("'" + Prop->getName() + "' is filled for more than one device");
    Filler = Call;
    DevText = Text;
  }
  if (!Filler || DevText.empty())
    return NoFix(NotFilled);
  if (auto Why = deviceStable(C.Ctx, *Fn, *Filler, *Filler->getArg(1), Use))
    return NoFix(*Why);

  std::string Replacement = ("[&] { int v_ = 0; cudaDeviceGetAttribute(&v_, " +
                             Twine(M->Attribute) + ", " + DevText + "); return v_; }()")
                                .str();
  C.Diag.report(name(), Level, NameLoc, Msg, {FixItHint::CreateReplacement(UseRange, Replacement)});
}

void Cuda13RemovedApi::checkRename(const RenameMapping &M, SourceLocation Loc, PassContext &C) {
  SourceManager &SM = C.Ctx.getSourceManager();
  // The name as written: in a macro's argument or body it is renamed where
  // it is spelled, which renames every expansion.
  SourceLocation Spelled = SM.getSpellingLoc(Loc);
  if (!frontend::isUserLocation(SM, Spelled) || !RenameSeen.insert(Spelled).second)
    return;
  StringRef Text = Lexer::getSourceText(CharSourceRange::getTokenRange(Spelled), SM,
                                        C.Ctx.getLangOpts());
  std::string Msg = renameMessage(M);
  if (Text != M.Name) {
    C.Diag.report(name(), Severity::Error, Spelled, Msg, {},
                  {{Spelled, "not rewritten: the name is formed by the preprocessor"}});
    return;
  }
  C.Diag.report(name(), Severity::Error, Spelled, Msg,
                {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Spelled),
                                              M.Replacement)});
}

void Cuda13RemovedApi::checkLocationCall(const LocationMapping &M, const RecoveryExpr &Call,
                                         PassContext &C) {
  SourceManager &SM = C.Ctx.getSourceManager();
  const LangOptions &LO = C.Ctx.getLangOpts();
  SourceLocation Loc = SM.getFileLoc(Call.getBeginLoc());
  if (!frontend::isUserLocation(SM, Loc) || !LocationSeen.insert(Loc).second)
    return;
  std::string Msg = locationMessage(M);
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Severity::Error, Loc, Msg, {}, {{Loc, ("not rewritten: " + Why).str()}});
  };
  ArrayRef<const Expr *> Args = Call.subExpressions().drop_front();
  if (Args.size() < M.MinArgs || Args.size() > M.MaxArgs || !Args[M.DeviceArg] ||
      !Args[M.DeviceArg]->getType()->isIntegralOrUnscopedEnumerationType())
    return NoFix(("the call has neither the CUDA 12 form " + Twine(M.OldForm) +
                  " nor CUDA 13's; see its declaration in cuda_runtime_api.h")
                     .str());
  const Expr *Dev = Args[M.DeviceArg];
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Dev->getSourceRange()), SM, LO);
  if (Range.isInvalid() || !frontend::isUserLocation(SM, Range.getBegin()))
    return NoFix("the device argument is written inside a macro");
  std::string Text = Lexer::getSourceText(Range, SM, LO).str();
  std::string Location;
  Expr::EvalResult V;
  if (!Dev->isValueDependent() && Dev->EvaluateAsInt(V, C.Ctx)) {
    int64_t D = V.Val.getInt().getSExtValue();
    if (D == -1) // cudaCpuDeviceId
      Location = "cudaMemLocation{cudaMemLocationTypeHost, 0}";
    else if (D >= 0)
      Location = "cudaMemLocation{cudaMemLocationTypeDevice, " + Text + "}";
    else
      return NoFix("the device argument is " + std::to_string(D) +
                   ", neither a device number nor cudaCpuDeviceId");
  } else if (Dev->HasSideEffects(C.Ctx)) {
    return NoFix("the device argument has side effects; the location needs it twice "
                 "(device or cudaCpuDeviceId)");
  } else {
    // Not a constant: it may be cudaCpuDeviceId at run time.
    Location = "cudaMemLocation{(" + Text + ") == cudaCpuDeviceId ? cudaMemLocationTypeHost : "
               "cudaMemLocationTypeDevice, " + Text + "}";
  }
  if (M.AddsFlags)
    Location += ", 0";
  C.Diag.report(name(), Severity::Error, Loc, Msg,
                {FixItHint::CreateReplacement(Range, Location)});
}

void Cuda13RemovedApi::checkInsertArg(const InsertArgMapping &M, SourceLocation Callee,
                                      ArrayRef<const Expr *> Args, bool Resolved,
                                      PassContext &C) {
  SourceManager &SM = C.Ctx.getSourceManager();
  const LangOptions &LO = C.Ctx.getLangOpts();
  unsigned N = Args.size();
  // A call that resolves is in the old form only with the old arity.
  bool OldForm = N >= M.MinArgs && N <= M.MaxArgs;
  if (Resolved && !OldForm)
    return;
  SourceLocation Loc = SM.getFileLoc(Callee);
  SourceLocation Spelled = SM.getSpellingLoc(Callee);
  bool Pasted = !frontend::isUserLocation(SM, Spelled);
  if ((Pasted && !frontend::isUserLocation(SM, Loc)) ||
      !InsertSeen.insert(Pasted ? Loc : Spelled).second)
    return;
  Severity Level = M.Deprecated ? Severity::Warning : Severity::Error;
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Level, Loc, M.Message, {}, {{Loc, ("not rewritten: " + Why).str()}});
  };
  if (Pasted)
    return NoFix("the name is formed by the preprocessor");
  if (!OldForm)
    return NoFix(("the call has neither the old form " + Twine(M.Name) + M.OldForm +
                  " nor CUDA 13's; see its declaration in cuda_runtime_api.h")
                     .str());
  std::vector<FixItHint> Fixes;
  if (M.Replacement) {
    CharSourceRange Name =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Callee), SM, LO);
    if (Name.isInvalid())
      return NoFix("the name is written inside a macro");
    if (Lexer::getSourceText(Name, SM, LO) != M.Name)
      return NoFix("the name is formed by the preprocessor");
    Fixes.push_back(FixItHint::CreateReplacement(Name, M.Replacement));
  }
  // Arguments before the new one line up in both forms.
  if (N > M.InsertAt) {
    const Expr *Next = Args[M.InsertAt];
    if (!Next)
      return NoFix("the arguments were not found");
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Next->getSourceRange()), SM, LO);
    if (R.isInvalid() || !frontend::isUserLocation(SM, R.getBegin()))
      return NoFix("the arguments are written inside a macro");
    StringRef Value = M.Inserted;
    if (Value == "nullptr" && !LO.CPlusPlus11)
      Value = "NULL";
    Fixes.push_back(FixItHint::CreateInsertion(R.getBegin(), (Value + ", ").str()));
  }
  C.Diag.report(name(), Level, Loc, M.Message, Fixes);
}

void Cuda13RemovedApi::checkDropArg(const DropArgMapping &M, SourceLocation Callee,
                                    ArrayRef<const Expr *> Args, PassContext &C) {
  SourceManager &SM = C.Ctx.getSourceManager();
  const LangOptions &LO = C.Ctx.getLangOpts();
  SourceLocation Loc = SM.getFileLoc(Callee);
  if (!frontend::isUserLocation(SM, Loc) || !InsertSeen.insert(Loc).second)
    return;
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Severity::Error, Loc, M.Message, {},
                  {{Loc, ("not rewritten: " + Why).str()}});
  };
  if (Args.size() != M.OldArgs || M.DropAt + 1 >= Args.size() || !Args[M.DropAt] ||
      !Args[M.DropAt + 1])
    return NoFix(("the call has neither the CUDA 12.8 form " + Twine(M.Name) + M.OldForm +
                  " nor CUDA 13's; see its declaration in cuda_runtime_api.h")
                     .str());
  const Expr *Dropped = Args[M.DropAt];
  if (Dropped->isValueDependent() ||
      !Dropped->isNullPointerConstant(C.Ctx, Expr::NPC_ValueDependentIsNotNull))
    return NoFix("failIdx is not null, and CUDA 13 does not say which copy failed; drop it "
                 "and find the failed copy by hand");
  CharSourceRange From = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Dropped->getSourceRange()), SM, LO);
  CharSourceRange Next = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Args[M.DropAt + 1]->getSourceRange()), SM, LO);
  if (From.isInvalid() || Next.isInvalid() || !frontend::isUserLocation(SM, From.getBegin()) ||
      SM.getFileID(From.getBegin()) != SM.getFileID(Next.getBegin()))
    return NoFix("the arguments are written inside a macro");
  // Deletes 'failIdx, ' up to the next argument.
  C.Diag.report(name(), Severity::Error, Loc, M.Message,
                {FixItHint::CreateRemoval(
                    CharSourceRange::getCharRange(From.getBegin(), Next.getBegin()))});
}

void Cuda13RemovedApi::reportRemoved(StringRef Name, SourceLocation Loc, PassContext &C) {
  const RemovedMapping *M = lookupRemoved(Name);
  SourceManager &SM = C.Ctx.getSourceManager();
  SourceLocation Spelled = SM.getSpellingLoc(Loc);
  if (!frontend::isUserLocation(SM, Spelled)) // formed by token pasting
    Spelled = SM.getFileLoc(Loc);
  if (!M || !frontend::isUserLocation(SM, Spelled) || !RemovedSeen.insert(Spelled).second)
    return;
  std::string Deprecated =
      M->DeprecatedIn ? (" (deprecated since CUDA " + Twine(M->DeprecatedIn) + ")").str() : "";
  C.Diag.report(name(), Severity::Error, Spelled,
                ("'" + Twine(M->Name) + "' was removed in CUDA " + M->RemovedIn + Deprecated +
                 "; " + M->Advice)
                    .str(),
                {}, {{Spelled, "not rewritten: nothing in CUDA 13 does the same"}});
}

void Cuda13RemovedApi::checkNamespaceMember(StringRef Namespace, StringRef Name,
                                            SourceLocation Loc, PassContext &C) {
  const NamespaceMapping *M = lookupNamespace(Namespace, Name);
  SourceManager &SM = C.Ctx.getSourceManager();
  SourceLocation Spelled = SM.getSpellingLoc(Loc);
  std::string Qualified = (Twine(Namespace) + "::" + Name).str();
  std::string Msg =
      M ? ("'" + Twine(Qualified) + "' was removed in " + M->RemovedIn + "; " +
           (M->Replacement ? ("use '" + Twine(M->Replacement) + "', which does the same").str()
                           : std::string(M->Advice)))
              .str()
        : std::string();
  auto Report = [&](SourceLocation At, const Twine &Why) {
    C.Diag.report(name(), Severity::Error, At, Msg, {},
                  {{At, ("not rewritten: " + Why).str()}});
  };
  if (!M)
    return;
  if (!frontend::isUserLocation(SM, Spelled)) {
    // Formed by token pasting: reported where the macro is used.
    SourceLocation FileLoc = SM.getFileLoc(Loc);
    if (frontend::isUserLocation(SM, FileLoc) && RemovedSeen.insert(FileLoc).second)
      Report(FileLoc, "the name is formed by the preprocessor");
    return;
  }
  // Clang points at the qualifier or at the name: find the name, then the
  // qualifier written before it.
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(Spelled), &Invalid);
  if (Invalid) {
    if (RemovedSeen.insert(Spelled).second)
      Report(Spelled, "the source text was not found");
    return;
  }
  auto IsIdent = [](char Ch) { return isAlnum(Ch) || Ch == '_'; };
  size_t Off = SM.getFileOffset(Spelled);
  size_t At = Off;
  while (true) {
    At = Buf.find(Name, At);
    if (At == StringRef::npos || At - Off > 80) {
      if (RemovedSeen.insert(Spelled).second)
        Report(Spelled, "the name was not found where Clang points");
      return;
    }
    bool Whole = (At == 0 || !IsIdent(Buf[At - 1])) &&
                 (At + Name.size() >= Buf.size() || !IsIdent(Buf[At + Name.size()]));
    if (Whole)
      break;
    ++At;
  }
  SourceLocation NameLoc = Spelled.getLocWithOffset(At - Off);
  if (Buf.substr(Off, At - Off).find_first_not_of(" \t\r\n:_abcdefghijklmnopqrstuvwxyz"
                                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") !=
      StringRef::npos)
    NameLoc = Spelled;
  if (!RemovedSeen.insert(NameLoc).second)
    return;
  auto NoFix = [&](const Twine &Why) { Report(NameLoc, Why); };
  if (NameLoc == Spelled && At != Off)
    return NoFix("the name was not found where Clang points");
  if (!M->Replacement)
    return NoFix("nothing in CUDA 13 does the same under the same name and arguments");
  // Backwards from the name: '::', the namespace as written, an optional
  // leading '::'.
  auto SkipSpace = [&](size_t P) {
    while (P > 0 && isWhitespace(Buf[P - 1]))
      --P;
    return P;
  };
  size_t P = SkipSpace(At);
  if (P < 2 || Buf.substr(P - 2, 2) != "::")
    return NoFix("the name is not written as " + Qualified);
  size_t End = SkipSpace(P - 2), Begin = End;
  while (Begin > 0 && IsIdent(Buf[Begin - 1]))
    --Begin;
  if (Buf.substr(Begin, End - Begin) != M->Namespace)
    return NoFix(("the namespace is written '" + Buf.substr(Begin, End - Begin) +
                  "', not '" + M->Namespace + "'")
                     .str());
  size_t Lead = SkipSpace(Begin);
  if (Lead >= 2 && Buf.substr(Lead - 2, 2) == "::" && (Lead == 2 || !IsIdent(Buf[Lead - 3])))
    Begin = Lead - 2;
  CharSourceRange Range = CharSourceRange::getCharRange(
      Spelled.getLocWithOffset(Begin - Off), NameLoc.getLocWithOffset(Name.size()));
  C.Diag.report(name(), Severity::Error, NameLoc, Msg,
                {FixItHint::CreateReplacement(Range, M->Replacement)});
}

bool Cuda13RemovedApi::explainsParseError(StringRef Message) const {
  SmallVector<StringRef, 4> Groups;
  if (undeclaredRegex().match(Message, &Groups)) {
    const InsertArgMapping *I = lookupInsertArg(Groups[1]);
    return lookupRename(Groups[1]) || lookupRemoved(Groups[1]) || (I && I->Replacement);
  }
  if (unknownTypeRegex().match(Message, &Groups))
    return lookupRemoved(Groups[1]) != nullptr;
  if (namespaceMemberRegex().match(Message, &Groups))
    return lookupNamespace(Groups[3], Groups[2]) != nullptr;
  if (noMatchingCallRegex().match(Message, &Groups))
    return lookupLocation(Groups[1]) || lookupInsertArg(Groups[1]) || lookupDropArg(Groups[1]);
  // CUDA 12's six-argument cudaStreamGetCaptureInfo_v2, which Clang calls as
  // its guess, cudaStreamGetCaptureInfo: the count lands on edgeData_out.
  // The pass reports the call (the undeclared name) with its fix.
  if (oldCaptureInfoRegex().match(Message))
    return true;
  if (noMemberRegex().match(Message, &Groups))
    return lookupField(Groups[1]) != nullptr;
  return false;
}

void Cuda13RemovedApi::checkVectorType(TypeLoc TL, PassContext &C) {
  // `const double4` matches as a whole; its name is on the unqualified part.
  TL = TL.getUnqualifiedLoc();
  SourceLocation NameLoc;
  if (auto T = TL.getAs<TypedefTypeLoc>())
    NameLoc = T.getNameLoc();
  else if (auto T = TL.getAs<UsingTypeLoc>())
    NameLoc = T.getNameLoc();
  else if (auto T = TL.getAs<RecordTypeLoc>()) {
    if (T.isDefinition())
      return;
    NameLoc = T.getNameLoc();
  } else
    return;
  SourceManager &SM = C.Ctx.getSourceManager();
  if (NameLoc.isInvalid() || !frontend::isUserLocation(SM, NameLoc) ||
      !TypeSeen.insert(NameLoc).second)
    return;
  // The name as written: an alias of double4 is diagnosed where it is
  // declared, not at each use.
  StringRef Spelled = Lexer::getSourceText(
      CharSourceRange::getTokenRange(SM.getSpellingLoc(NameLoc)), SM, C.Ctx.getLangOpts());
  if (const VectorMapping *M = lookupVector(Spelled))
    VectorUses.push_back({NameLoc, M});
}

/// double4 and double4_16a are distinct types: a rename is safe only when
/// every use of the type in the file is renamed and no value of the old type
/// comes from elsewhere (make_double4, __ldg, a library's function). So the
/// uses of a type are renamed together, or none is, with the reason.
void Cuda13RemovedApi::reportVectorTypes(PassContext &C) {
  // Nothing to report: skip the whole-file scan of calls (0.3 s a side on
  // SGEMM_CUDA's sgemm.cu).
  if (VectorUses.empty())
    return;
  SourceManager &SM = C.Ctx.getSourceManager();
  std::map<std::string, std::pair<SourceLocation, std::string>> Blocked; // type -> why
  for (const VectorUse &U : VectorUses)
    if (U.NameLoc.isMacroID())
      Blocked.emplace(U.M->Name, std::make_pair(U.NameLoc, "a use is written inside a macro"));
  // Values of the old type made outside the user's code.
  auto Calls = match(findAll(callExpr().bind("c")), C.Ctx);
  for (const auto &B : Calls) {
    const auto *CE = B.getNodeAs<CallExpr>("c");
    const auto *RD = CE->getType()->getAsRecordDecl();
    const FunctionDecl *Callee = CE->getDirectCallee();
    if (!RD || !Callee || !frontend::isUserLocation(SM, CE->getBeginLoc()) ||
        frontend::isUserLocation(SM, Callee->getLocation()))
      continue;
    // The type's own members (its implicit assignment) make no old value.
    if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee); MD && MD->getParent() == RD)
      continue;
    if (const VectorMapping *M = lookupVector(RD->getName()))
      Blocked.emplace(M->Name, std::make_pair(CE->getBeginLoc(),
                                              "'" + Callee->getNameAsString() +
                                                  "' returns the old type"));
  }
  // make_double4 in code this side of the parse does not see (#if
  // __CUDA_ARCH__ branches): the other side would decide otherwise.
  std::set<FileID> Files;
  for (const VectorUse &U : VectorUses)
    Files.insert(SM.getFileID(SM.getSpellingLoc(U.NameLoc)));
  for (FileID F : Files)
    for (const VectorMapping &M : VectorTable) {
      StringRef Text = SM.getBufferData(F);
      size_t At = Text.find(("make_" + Twine(M.Name) + "(").str());
      if (At != StringRef::npos)
        Blocked.emplace(M.Name, std::make_pair(SM.getComposedLoc(F, At),
                                               "'make_" + std::string(M.Name) +
                                                   "' returns the old type"));
    }
  for (const VectorUse &U : VectorUses) {
    const VectorMapping *M = U.M;
    std::string Msg = ("'" + Twine(M->Name) + "' is deprecated in CUDA " + M->DeprecatedIn +
                       "; use '" + M->Aligned16 +
                       "' (16-byte aligned, same layout as before) or '" + M->Aligned32 + "'")
                          .str();
    auto It = Blocked.find(M->Name);
    if (It == Blocked.end()) {
      C.Diag.report(name(), Severity::Warning, U.NameLoc, Msg,
                    {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(U.NameLoc),
                                                  M->Aligned16)});
      continue;
    }
    std::string Why = "not rewritten: '" + std::string(M->Name) + "' and '" + M->Aligned16 +
                      "' are distinct types, so every use in the file is renamed or none, and " +
                      It->second.second;
    if (It->second.first != U.NameLoc)
      Why += " (line " + std::to_string(SM.getPresumedLineNumber(It->second.first)) + ")";
    C.Diag.report(name(), Severity::Warning, U.NameLoc, Msg, {}, {{U.NameLoc, Why}});
  }
  VectorUses.clear();
}

void Cuda13RemovedApi::finish(PassContext &C) {
  reportVectorTypes(C);
  if (C.S != frontend::Side::Host)
    return;
  SourceManager &SM = C.Ctx.getSourceManager();
  static const Regex NoTemplate("^no template named '([A-Za-z_0-9]+)'");
  for (const ParseError &E : C.ParseErrors) {
    if (!frontend::isUserLocation(SM, E.Loc))
      continue;
    SmallVector<StringRef, 3> Groups;
    if (undeclaredRegex().match(E.Message, &Groups)) {
      if (const RenameMapping *M = lookupRename(Groups[1]))
        checkRename(*M, E.Loc, C);
      else if (lookupRemoved(Groups[1]))
        reportRemoved(Groups[1], E.Loc, C);
      else if (const InsertArgMapping *M = lookupInsertArg(Groups[1])) {
        auto It = CallArgs.find(SM.getSpellingLoc(E.Loc));
        if (It != CallArgs.end())
          checkInsertArg(*M, E.Loc, It->second, false, C);
        else if (M->Replacement && InsertSeen.insert(SM.getSpellingLoc(E.Loc)).second)
          C.Diag.report(name(), Severity::Error, SM.getFileLoc(E.Loc), M->Message, {},
                        {{SM.getFileLoc(E.Loc),
                          "not rewritten: the call's arguments were not found"}});
      }
      continue;
    }
    if (unknownTypeRegex().match(E.Message, &Groups)) {
      reportRemoved(Groups[1], E.Loc, C);
      continue;
    }
    if (namespaceMemberRegex().match(E.Message, &Groups)) {
      checkNamespaceMember(Groups[3], Groups[2], E.Loc, C);
      continue;
    }
    if (noMemberRegex().match(E.Message, &Groups)) {
      // Fields the matchers saw are already reported (with a fix or a reason).
      const FieldMapping *M = lookupField(Groups[1]);
      if (!M || FieldSeen.contains(E.Loc))
        continue;
      C.Diag.report(name(), Severity::Error, E.Loc, fieldMessage(*M), {},
                    {{E.Loc, "not rewritten: the expression was not found in the AST"}});
      continue;
    }
    if (NoTemplate.match(E.Message, &Groups))
      for (const TemplateMapping &T : TemplateTable)
        if (Groups[1] == T.Name)
          C.Diag.report(name(), Severity::Warning, E.Loc, T.Message);
  }
}

} // namespace forge::passes
