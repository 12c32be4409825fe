//===- Cuda13RemovedApi.cpp - cuda13-removed-api --------------------------===//
#include "Cuda13RemovedApi.h"
#include "PortEdits.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"
#include <initializer_list>

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
  /// A macro of two operands whose replacement is a function template
  /// taking one type (CUB_MAX -> cuda::std::max): renamed only where it is
  /// called with operands of one arithmetic, enumeration or pointer type
  /// and no side effects (the macro evaluated one of them twice).
  bool SameTypeOperands = false;
};
/// How the runtime and the driver API spell a memory location.
struct LocationSpelling {
  const char *Type;   ///< cudaMemLocation, CUmemLocation
  const char *Device; ///< the device location type
  const char *Host;   ///< the host location type
  const char *CpuId;  ///< the old API's device number for the host
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
  const LocationSpelling *Spelling;
  /// The name cuda.h's macro maps Name to (`#define cuMemAdvise
  /// cuMemAdvise_v2`), which Clang's errors name; nullptr: none.
  const char *DeclaredAs = nullptr;
};
/// Functions whose current form dropped output arguments (CUDA 12.8's
/// batched copies lost failIdx in CUDA 13, cuGraphInstantiate its error node
/// and log in CUDA 12.0). Null ones are deleted, and Instead written in
/// their place; ones the code reads are reported.
struct DropArgMapping {
  const char *Name;
  unsigned DropAt;  ///< the first dropped argument's index in the old form
  unsigned OldArgs; ///< the old form's argument count
  const char *OldForm;
  const char *Message;
  const char *DeclaredAs = nullptr; ///< as in LocationMapping
  unsigned DropCount = 1;
  /// What the current form takes where they were; nullptr: nothing. With
  /// nothing there and no argument after them, no call is written.
  const char *Instead = nullptr;
  const char *IfNotNull = "failIdx is not null, and CUDA 13 does not say which copy failed; "
                          "drop it and find the failed copy by hand";
  /// The struct that returns the dropped outputs now, and its field for
  /// each of them in order (cuGraphExecUpdate: CUgraphExecUpdateResultInfo,
  /// errorNode, result): the call becomes a lambda that passes one and
  /// stores its fields where the old call did.
  const char *ResultStruct = nullptr;
  std::initializer_list<const char *> ResultFields = {};
  const char *ResultType = nullptr; ///< the call's return type
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
  const char *DeclaredAs = nullptr; ///< as in LocationMapping
  /// An older form that took only the first ShortArgs arguments (CUDA 11's
  /// cuStreamGetCaptureInfo(stream, &status, &id)): ShortAppend is appended
  /// and ShortMessage reported. 0: none.
  unsigned ShortArgs = 0;
  const char *ShortAppend = nullptr;
  const char *ShortMessage = nullptr;
};
/// Names removed with nothing that does the same: reported, not rewritten
/// (but for a call that does nothing, NoOp). With CUDA 13's headers a use
/// is "use of undeclared identifier" (a function, an enumerator, a macro)
/// or "unknown type name".
struct RemovedMapping {
  const char *Name;
  const char *RemovedIn;
  const char *DeprecatedIn; ///< nullptr: not known
  const char *Advice;
  /// Why no fix; nullptr: nothing in CUDA 13 does the same.
  const char *NotRewritten = nullptr;
  /// The call does nothing on every GPU CUDA 13 supports: a call that is a
  /// statement of its own is deleted with it.
  bool NoOp = false;
};
/// Vector types deprecated in CUDA 13. The _16a form has the old type's size
/// and 16-byte alignment, so renaming to it changes no layout.
struct VectorMapping {
  const char *Name;
  const char *Aligned16;
  const char *Aligned32;
  const char *DeprecatedIn;
};

/// CCCL 2.x's integer macros of cub/util_macro.cuh, which CCCL 2.8
/// deprecated and CCCL 3.0 removed for <cuda/cmath>'s functions:
///   CUB_QUOTIENT_FLOOR(x, y)     ((x) / (y))
///   CUB_QUOTIENT_CEILING(x, y)   (((x) + (y) - 1) / (y))
///   CUB_ROUND_UP_NEAREST(x, y)   ((((x) + (y) - 1) / (y)) * y)
///   CUB_ROUND_DOWN_NEAREST(x, y) (((x) / (y)) * y)
/// A call (an undeclared name with CUDA 13's headers, so a RecoveryExpr with
/// its operands) is replaced whole.
enum class MacroKind {
  Divide,  ///< written out as the division the macro expanded to
  Library, ///< a <cuda/cmath> function of two integers (a >= 0, b > 0)
};
struct MacroMapping {
  const char *Name;
  const char *Replacement; ///< the function; Divide: "a / b"
  MacroKind Kind;
  const char *Why;
  /// The macro's body multiplies by its second operand unparenthesized
  /// ('* y'): renamed only where the operand is one term.
  bool BareMultiplier = false;
};
struct NamespaceMapping {
  const char *Namespace;
  const char *Name;
  const char *Replacement; ///< same behaviour; nullptr: none, see Advice
  const char *RemovedIn;
  const char *Advice;
  /// A class template that code inherits from for its member typedefs
  /// (thrust::unary_function): the base-specifier is deleted, and the
  /// typedefs, one for each template argument in order, declared in the
  /// class where the file names them.
  std::initializer_list<const char *> BaseTypedefs = {};
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
const char CCCL3[] = "CCCL 3.0 (CUDA 13.0)";
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
    // cub/util_macro.cuh of CCCL 2.x (every CUDA 12): ((b) > (a)) ? (b) : (a)
    // and ((b) < (a)) ? (b) : (a), which is what cuda::std::max and min
    // compute for two operands of one arithmetic, enumeration or pointer type.
    {"CUB_MAX", "cuda::std::max", "CCCL 2.8", CCCL3,
     "which returns the same value for two operands of one scalar type", true},
    {"CUB_MIN", "cuda::std::min", "CCCL 2.8", CCCL3,
     "which returns the same value for two operands of one scalar type", true},
};

const char SameIntegerValue[] =
    "which returns the same value for integers a >= 0 and b > 0 (its preconditions) where "
    "the macro's arithmetic did not overflow";
const MacroMapping MacroTable[] = {
    {"CUB_QUOTIENT_FLOOR", "a / b", MacroKind::Divide, "the division the macro expanded to"},
    {"CUB_QUOTIENT_CEILING", "cuda::ceil_div", MacroKind::Library, SameIntegerValue},
    {"CUB_ROUND_UP_NEAREST", "cuda::round_up", MacroKind::Library, SameIntegerValue, true},
    {"CUB_ROUND_DOWN_NEAREST", "cuda::round_down", MacroKind::Library, SameIntegerValue, true},
};

const LocationSpelling RuntimeLocation = {"cudaMemLocation", "cudaMemLocationTypeDevice",
                                          "cudaMemLocationTypeHost", "cudaCpuDeviceId"};
const LocationSpelling DriverLocation = {"CUmemLocation", "CU_MEM_LOCATION_TYPE_DEVICE",
                                         "CU_MEM_LOCATION_TYPE_HOST", "CU_DEVICE_CPU"};
const LocationMapping LocationTable[] = {
    {"cudaMemAdvise", 3, 4, 4, false, "(ptr, count, advice, device)", "13", &RuntimeLocation},
    {"cudaMemPrefetchAsync", 2, 3, 4, true, "(ptr, count, device[, stream])", "13",
     &RuntimeLocation},
    // cuda.h of 13.0: `#define cuMemAdvise cuMemAdvise_v2`, `#define
    // cuMemPrefetchAsync __CUDA_API_PTSZ(cuMemPrefetchAsync_v2)`; the driver
    // form has no default stream.
    {"cuMemAdvise", 3, 4, 4, false, "(ptr, count, advice, device)", "13", &DriverLocation,
     "cuMemAdvise_v2"},
    {"cuMemPrefetchAsync", 2, 4, 4, true, "(ptr, count, device, stream)", "13", &DriverLocation,
     "cuMemPrefetchAsync_v2"},
};

#define FORGE_EDGE_DATA(Fn, Param)                                                          \
  "'" Fn "' takes a '" Param "' argument since CUDA 13 (the form CUDA 12.3 named "          \
  "'" Fn "_v2'); nullptr there means default edges, as the old form had"
#define FORGE_EDGE_DATA_OUT(Fn, Type)                                                       \
  "'" Fn "' takes a 'const " Type " **edgeData_out' argument before the dependency count "  \
  "since CUDA 13 (the form CUDA 12.3 named '" Fn "_v3'); nullptr there asks for no edge "   \
  "data, as the old form did"
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
     FORGE_EDGE_DATA_OUT("cudaStreamGetCaptureInfo", "cudaGraphEdgeData"), false},
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
    // The driver API: cuda.h of 13.0 maps each plain name to the form with
    // the new argument (`#define cuGraphAddDependencies
    // cuGraphAddDependencies_v2`), which Clang's "no matching function"
    // names; cudaTypedefs.h dates each form (PFN_cuGraphAddDependencies_v12030).
    {"cuGraphAddDependencies", nullptr, 3, 4, 4, "nullptr", "(graph, from, to, count)",
     FORGE_EDGE_DATA("cuGraphAddDependencies", "const CUgraphEdgeData *edgeData"), false,
     nullptr, "cuGraphAddDependencies_v2"},
    {"cuGraphRemoveDependencies", nullptr, 3, 4, 4, "nullptr", "(graph, from, to, count)",
     FORGE_EDGE_DATA("cuGraphRemoveDependencies", "const CUgraphEdgeData *edgeData"), false,
     nullptr, "cuGraphRemoveDependencies_v2"},
    {"cuGraphGetEdges", nullptr, 3, 4, 4, "nullptr", "(graph, from, to, numEdges)",
     FORGE_EDGE_DATA("cuGraphGetEdges", "CUgraphEdgeData *edgeData"), false, nullptr,
     "cuGraphGetEdges_v2"},
    {"cuGraphNodeGetDependencies", nullptr, 2, 3, 3, "nullptr",
     "(node, dependencies, numDependencies)",
     FORGE_EDGE_DATA("cuGraphNodeGetDependencies", "CUgraphEdgeData *edgeData"), false, nullptr,
     "cuGraphNodeGetDependencies_v2"},
    {"cuGraphNodeGetDependentNodes", nullptr, 2, 3, 3, "nullptr",
     "(node, dependentNodes, numDependentNodes)",
     FORGE_EDGE_DATA("cuGraphNodeGetDependentNodes", "CUgraphEdgeData *edgeData"), false,
     nullptr, "cuGraphNodeGetDependentNodes_v2"},
    {"cuStreamUpdateCaptureDependencies", nullptr, 2, 4, 4, "nullptr",
     "(stream, dependencies, count, flags)",
     FORGE_EDGE_DATA("cuStreamUpdateCaptureDependencies",
                     "const CUgraphEdgeData *dependencyData"),
     false, nullptr, "cuStreamUpdateCaptureDependencies_v2"},
    {"cuGraphAddNode", nullptr, 3, 5, 5, "nullptr", "(node, graph, dependencies, count, params)",
     FORGE_EDGE_DATA("cuGraphAddNode", "const CUgraphEdgeData *dependencyData"), false, nullptr,
     "cuGraphAddNode_v2"},
    // CUDA 12's cuStreamGetCaptureInfo_v2 form; CUDA 11's three-argument one
    // (status and id only) is reported without a fix.
    // CUDA 11.3's form (status and id) is cuStreamGetCaptureInfo_v2's with
    // the four outputs after id null ("Optional location" each in 13.0's
    // cuda.h).
    {"cuStreamGetCaptureInfo", nullptr, 5, 6, 6, "nullptr",
     "(stream, status, id, graph, dependencies, count)",
     FORGE_EDGE_DATA_OUT("cuStreamGetCaptureInfo", "CUgraphEdgeData"), false, nullptr,
     "cuStreamGetCaptureInfo_v3", 3, "nullptr, nullptr, nullptr, nullptr",
     "'cuStreamGetCaptureInfo' takes graph_out, dependencies_out, edgeData_out and "
     "numDependencies_out after id_out since CUDA 13 (CUDA 11's form returned the status "
     "and id only); nullptr there asks for nothing, as the old form returned"},
    // cuda.h: "ctxCreateParams - Context creation parameters"; a null one
    // creates a context without execution affinity or CIG data, as the old
    // form did (checked on an H100, see docs/passes/cuda13-removed-api.md).
    {"cuCtxCreate", nullptr, 1, 3, 3, "nullptr", "(pctx, flags, dev)",
     "'cuCtxCreate' takes a 'CUctxCreateParams *ctxCreateParams' argument since CUDA 13 (the "
     "form CUDA 12.5 named 'cuCtxCreate_v4'); nullptr there creates a plain context, as the "
     "old form did",
     false, nullptr, "cuCtxCreate_v4"},
    // CUDA 12.0 (cudaTypedefs.h: PFN_cuGetProcAddress_v12000); cuda.h:
    // "symbolStatus - Optional location to store the status of the search".
    {"cuGetProcAddress", nullptr, 4, 4, 4, "nullptr", "(symbol, pfn, cudaVersion, flags)",
     "'cuGetProcAddress' takes a 'CUdriverProcAddressQueryResult *symbolStatus' argument "
     "since CUDA 12.0 (cuGetProcAddress_v2); nullptr there asks for no status, as the old form "
     "returned none",
     false, nullptr, "cuGetProcAddress_v2"},
    // CUDA 12's names of the old forms, written out: 13.0's cuda.h declares
    // them only for __CUDA_API_VERSION_INTERNAL.
    {"cuStreamGetCaptureInfo_v2", "cuStreamGetCaptureInfo", 5, 6, 6, "nullptr",
     "(stream, status, id, graph, dependencies, count)",
     "'cuStreamGetCaptureInfo_v2' was removed from cuda.h in CUDA 13; use "
     "'cuStreamGetCaptureInfo', which takes a 'const CUgraphEdgeData **edgeData_out' argument "
     "before the dependency count (nullptr: no edge data, as before)",
     false},
    {"cuCtxCreate_v2", "cuCtxCreate", 1, 3, 3, "nullptr", "(pctx, flags, dev)",
     "'cuCtxCreate_v2' was removed from cuda.h in CUDA 13; use 'cuCtxCreate', which takes a "
     "'CUctxCreateParams *ctxCreateParams' argument before the flags (nullptr: a plain "
     "context, as before)",
     false},
};
#undef FORGE_EDGE_DATA
#undef FORGE_EDGE_DATA_OUT

const DropArgMapping DropArgTable[] = {
    {"cudaMemcpyBatchAsync", 7, 9,
     "(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, stream)",
     "'cudaMemcpyBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 "
     "had it before the stream)"},
    {"cudaMemcpy3DBatchAsync", 2, 5, "(numOps, opList, failIdx, flags, stream)",
     "'cudaMemcpy3DBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 "
     "had it after the operations)"},
    // cuda.h of 13.0: `#define cuMemcpyBatchAsync
    // __CUDA_API_PTSZ(cuMemcpyBatchAsync_v2)`; cudaTypedefs.h:
    // PFN_cuMemcpyBatchAsync_v12080 (with failIdx) and _v13000 (without).
    {"cuMemcpyBatchAsync", 7, 9,
     "(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, stream)",
     "'cuMemcpyBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 had it "
     "before the stream)",
     "cuMemcpyBatchAsync_v2"},
    {"cuMemcpy3DBatchAsync", 2, 5, "(numOps, opList, failIdx, flags, stream)",
     "'cuMemcpy3DBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 had "
     "it after the operations)",
     "cuMemcpy3DBatchAsync_v2"},
    // CUDA 12.0: `#define cuGraphInstantiate cuGraphInstantiateWithFlags`
    // (cudaTypedefs.h: PFN_cuGraphInstantiate_v10000 against
    // PFN_cuGraphInstantiateWithFlags_v11040); flags 0 instantiates as the
    // old call did.
    {"cuGraphInstantiate", 2, 5, "(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize)",
     "'cuGraphInstantiate' takes (phGraphExec, hGraph, flags) since CUDA 12.0 (cuda.h maps it "
     "to cuGraphInstantiateWithFlags); the error node and the log buffer are gone",
     "cuGraphInstantiateWithFlags", 3, "0",
     "the code passes an error node or a log buffer; since CUDA 12.0 "
     "cuGraphInstantiateWithParams returns the error node (hErrNode_out), and no call a log"},
    // CUDA 12.0: `#define cuGraphExecUpdate cuGraphExecUpdate_v2`
    // (PFN_cuGraphExecUpdate_v10020 against _v12000); no null output can
    // stand for the result the old call returned.
    // The outputs are the struct's errorNode and result: cuda_runtime.h of
    // 13.0 keeps the old runtime form as an inline overload that stores
    // exactly those two fields.
    {"cuGraphExecUpdate", 2, 4, "(hGraphExec, hGraph, hErrorNode_out, updateResult_out)",
     "'cuGraphExecUpdate' takes a 'CUgraphExecUpdateResultInfo *resultInfo' instead of the "
     "error node and result outputs since CUDA 12.0 (cuda.h maps it to cuGraphExecUpdate_v2)",
     "cuGraphExecUpdate_v2", 2, nullptr,
     "declare a CUgraphExecUpdateResultInfo, pass its address, and read its 'result' and "
     "'errorNode' where the code read the two outputs",
     "CUgraphExecUpdateResultInfo", {"errorNode", "result"}, "CUresult"},
};

const char MultiDeviceAdvice[] =
    "launch the kernel on each device with cudaLaunchCooperativeKernel; a grid-wide "
    "barrier across devices (this_multi_grid) has no replacement";
const char ProfilerAdvice[] =
    "profiling is configured by the profiler (Nsight Systems, Nsight Compute); keep "
    "cudaProfilerStart/cudaProfilerStop to delimit the range";
const char DoubleAdvice[] =
    "it did nothing on a GPU with double-precision arithmetic, which every GPU CUDA 13 "
    "supports has; delete the call";
const char LaunchAdvice[] =
    "launch the kernel with kernel<<<grid, block, sharedMem, stream>>>(args...) or "
    "cudaLaunchKernel(kernel, grid, block, args, sharedMem, stream)";
const char LaunchNotRewritten[] =
    "the launch spans cudaConfigureCall, a cudaSetupArgument per argument and cudaLaunch";
const RemovedMapping RemovedTable[] = {
    {"cudaLaunchCooperativeKernelMultiDevice", "13", "11.3", MultiDeviceAdvice},
    {"cudaLaunchParams", "13", "11.3", MultiDeviceAdvice},
    {"cudaCooperativeLaunchMultiDeviceNoPreSync", "13", "11.3", MultiDeviceAdvice},
    {"cudaCooperativeLaunchMultiDeviceNoPostSync", "13", "11.3", MultiDeviceAdvice},
    {"cudaDevAttrCooperativeMultiDeviceLaunch", "13", nullptr,
     "multi-device cooperative launch is gone; cudaDevAttrCooperativeLaunch tells whether "
     "one device can launch a cooperative kernel"},
    {"cudaProfilerInitialize", "12.0", "11.0", ProfilerAdvice},
    // Its outputMode argument's type and values (generated_cudart_removed_meta.h).
    {"cudaOutputMode_t", "12.0", "11.0", ProfilerAdvice},
    {"cudaKeyValuePair", "12.0", "11.0", ProfilerAdvice},
    {"cudaCSV", "12.0", "11.0", ProfilerAdvice},
    // "Converts the double value of d to an internal float representation if
    // the device does not support double arithmetic. If the device does
    // natively support doubles, then this function does nothing."
    {"cudaSetDoubleForDevice", "13", "7.5", DoubleAdvice, nullptr, true},
    {"cudaSetDoubleForHost", "13", "7.5", DoubleAdvice, nullptr, true},
    // The launch API that <<<...>>> lowered to before CUDA 9.2; a launch is
    // the three of them together.
    {"cudaConfigureCall", "10.1", "7.0", LaunchAdvice, LaunchNotRewritten},
    {"cudaSetupArgument", "10.1", "7.0", LaunchAdvice, LaunchNotRewritten},
    {"cudaLaunch", "10.1", "7.0", LaunchAdvice, LaunchNotRewritten},
    // Texture and surface reference API (see texture-references): the
    // prelude does not declare these two, so they stay undeclared names.
    {"cudaBindTextureToMipmappedArray", "12.0", "11",
     "bind the mipmapped array to a texture object: cudaCreateTextureObject with a "
     "cudaResourceDesc of resType cudaResourceTypeMipmap",
     "the texture reference it binds must become a texture object first, by hand"},
    // CUDA 11.4's context with execution affinity, gone from 13.0's cuda.h
    // but for __CUDA_API_VERSION_INTERNAL.
    {"cuCtxCreate_v3", "13", nullptr,
     "pass its execution-affinity parameters to cuCtxCreate in a CUctxCreateParams "
     "(execAffinityParams, numExecAffinityParams)",
     "the parameters go into a struct the code must declare"},
    {"cudaGetSurfaceReference", "12.0", "11",
     "use a surface object (cudaSurfaceObject_t, created with cudaCreateSurfaceObject) "
     "instead of the surface reference",
     "the surface reference must become a surface object, by hand"},
};

/// Names removed from a namespace: CCCL 3.0 (CUDA 13.0) dropped CUB's
/// functors, which CCCL 2.8 had deprecated for the libcu++ ones, and its own
/// fancy iterators for Thrust's; CUDA 13 dropped cooperative groups'
/// multi-device grid. With CUDA 13's headers a use is "no member / type /
/// template named 'Max' in namespace 'cub'".
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
    {"cub", "DeviceSpmv", nullptr, CCCL3,
     "use cuSPARSE (cusparseSpMV with a CSR matrix from cusparseCreateCsr); CUB has no "
     "sparse matrix-vector product"},
    {"thrust", "unary_function", nullptr, CCCL3,
     "remove the base class; declare in the functor any 'argument_type' or 'result_type' "
     "the code reads",
     {"argument_type", "result_type"}},
    {"thrust", "binary_function", nullptr, CCCL3,
     "remove the base class; declare in the functor any 'first_argument_type', "
     "'second_argument_type' or 'result_type' the code reads",
     {"first_argument_type", "second_argument_type", "result_type"}},
    // The CCCL 2.x -> 3.0 migration guide, "Removed functions and classes";
    // none of these names is in 13.0's include/cccl. cub::Swap(T &, T &)
    // copied through a temporary; cuda::std::swap (<cuda/std/utility>, which
    // CUB's headers include) moves, the same for the scalars it swapped.
    {"cub", "Swap", "cuda::std::swap", CCCL3, nullptr},
    // cub/util_ptx.cuh of CCCL 2.x: CTA_SYNC() { __syncthreads(); },
    // CTA_SYNC_AND(int p) { return __syncthreads_and(p); }, likewise _OR,
    // WARP_SYNC(unsigned member_mask) { __syncwarp(member_mask); }.
    {"cub", "CTA_SYNC", "__syncthreads", CCCL3, nullptr},
    {"cub", "CTA_SYNC_AND", "__syncthreads_and", CCCL3, nullptr},
    {"cub", "CTA_SYNC_OR", "__syncthreads_or", CCCL3, nullptr},
    {"cub", "WARP_SYNC", "__syncwarp", CCCL3, nullptr},
    // WARP_ANY(int predicate, unsigned member_mask): the intrinsic takes the
    // mask first.
    {"cub", "WARP_ANY", nullptr, CCCL3,
     "use __any_sync(member_mask, predicate); its arguments come in the other order"},
    {"cub", "WARP_ALL", nullptr, CCCL3,
     "use __all_sync(member_mask, predicate); its arguments come in the other order"},
    {"cub", "WARP_BALLOT", nullptr, CCCL3,
     "use __ballot_sync(member_mask, predicate); its arguments come in the other order"},
    {"cub", "BAR", nullptr, CCCL3,
     "CCCL 3 has no replacement; a named barrier is 'bar.sync id, count' in inline PTX"},
    {"cub", "LaneId", nullptr, CCCL3,
     "use cuda::ptx::get_sreg_laneid() (<cuda/ptx>, which cub/util_ptx.cuh does not include)"},
    {"cub", "WarpId", nullptr, CCCL3,
     "use cuda::ptx::get_sreg_warpid() (<cuda/ptx>, which cub/util_ptx.cuh does not include)"},
    {"cub", "ThreadTrap", nullptr, CCCL3,
     "use cuda::std::terminate() (<cuda/std/exception>, which CUB's headers do not include)"},
    {"cub", "Int2Type", nullptr, CCCL3,
     "use cuda::std::integral_constant<int, N>; its value is 'value', not 'VALUE'"},
    {"cub", "ArrayWrapper", nullptr, CCCL3,
     "use cuda::std::array<T, N>; its elements are the array itself, not 'array'"},
    {"cub", "FpLimits", nullptr, CCCL3, "use cuda::std::numeric_limits<T>"},
    {"cub", "GridBarrier", nullptr, CCCL3,
     "use a cooperative launch and cooperative_groups::this_grid().sync()"},
    {"cub", "GridBarrierLifetime", nullptr, CCCL3,
     "use a cooperative launch and cooperative_groups::this_grid().sync()"},
    // thrust::identity<T> converted its argument to T; cuda::std::identity
    // returns it as it is.
    {"thrust", "identity", nullptr, CCCL3,
     "use cuda::std::identity (<cuda/std/functional>); thrust::identity<T> converted its "
     "argument to T, so where it served as a cast, write a function object that casts"},
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

/// Whether Name (a callee as written, or as Clang's errors name it) is the
/// function of a row: its name, or the one cuda.h's macro maps that name
/// to, with the _ptsz suffix CUDA_API_PER_THREAD_DEFAULT_STREAM adds.
template <typename Mapping> bool names(const Mapping &M, StringRef Name) {
  Name.consume_back("_ptsz");
  return Name == M.Name || (M.DeclaredAs && Name == M.DeclaredAs);
}

const InsertArgMapping *lookupInsertArg(StringRef Name) {
  for (const InsertArgMapping &M : InsertArgTable)
    if (names(M, Name))
      return &M;
  return nullptr;
}

const DropArgMapping *lookupDropArg(StringRef Name) {
  for (const DropArgMapping &M : DropArgTable)
    if (names(M, Name))
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
    if (names(M, Name))
      return &M;
  return nullptr;
}

/// The header that declares a function of the tables.
StringRef headerOf(StringRef Function) {
  return Function.starts_with("cuda") ? "cuda_runtime_api.h" : "cuda.h";
}

/// Where the name of a called function is written: its spelling, or where
/// the name was written that a macro of the CUDA headers turned into it
/// (cuda.h's `#define cuMemAdvise cuMemAdvise_v2`).
SourceLocation writtenName(const SourceManager &SM, SourceLocation Loc) {
  while (Loc.isMacroID() && !frontend::isUserLocation(SM, SM.getSpellingLoc(Loc)))
    Loc = SM.getImmediateMacroCallerLoc(Loc);
  return SM.getSpellingLoc(Loc);
}

/// A release as the messages name it: "CUDA 13" for a CUDA version, a
/// library's release ("CCCL 3.0 (CUDA 13.0)") as it is.
std::string release(StringRef Version) {
  return (isDigit(Version.front()) ? "CUDA " + Version : Twine(Version)).str();
}

/// "'Name' was removed in CUDA 13 (deprecated since CUDA 4.0)".
std::string removedMessage(StringRef Name, StringRef RemovedIn, const char *DeprecatedIn) {
  std::string Deprecated =
      DeprecatedIn ? " (deprecated since " + release(DeprecatedIn) + ")" : std::string();
  return ("'" + Name + "' was removed in " + release(RemovedIn) + Deprecated).str();
}

std::string renameMessage(const RenameMapping &M) {
  return removedMessage(M.Name, M.RemovedIn, M.DeprecatedIn) + "; use '" + M.Replacement +
         "', " + M.Why;
}

const MacroMapping *lookupMacro(StringRef Name) {
  for (const MacroMapping &M : MacroTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

std::string macroMessage(const MacroMapping &M) {
  return removedMessage(M.Name, CCCL3, "CCCL 2.8") + "; use " +
         (M.Kind == MacroKind::Divide ? "'a / b', " : "'" + std::string(M.Replacement) + "', ") +
         M.Why;
}

std::string locationMessage(const LocationMapping &M) {
  const LocationSpelling &L = *M.Spelling;
  return ("'" + Twine(M.Name) + "' takes a " + L.Type +
          " instead of a device number since CUDA " + M.RemovedIn +
          (M.AddsFlags ? ", and a flags argument after it" : "") + "; pass " + L.Type + "{" +
          L.Device + ", device} (" + L.Host + " for " + L.CpuId + ")")
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

/// The type of `a > b ? a : b` for operands of types A and B, by the usual
/// arithmetic conversions: the type CUB_MAX's comparison and result had.
/// Only for the standard integer and floating types (not enumerations,
/// _Float16, __int128's kin are integers too).
std::optional<QualType> commonArithmeticType(ASTContext &Ctx, QualType A, QualType B) {
  auto Standard = [](QualType T) {
    const auto *BT = T->getAs<BuiltinType>();
    return BT && (BT->isInteger() || BT->getKind() == BuiltinType::Float ||
                  BT->getKind() == BuiltinType::Double ||
                  BT->getKind() == BuiltinType::LongDouble);
  };
  if (!Standard(A) || !Standard(B))
    return std::nullopt;
  if (A->isRealFloatingType() || B->isRealFloatingType()) {
    if (!B->isRealFloatingType())
      return A;
    if (!A->isRealFloatingType())
      return B;
    return Ctx.getFloatingTypeOrder(A, B) >= 0 ? A : B;
  }
  if (Ctx.isPromotableIntegerType(A))
    A = Ctx.getPromotedIntegerType(A);
  if (Ctx.isPromotableIntegerType(B))
    B = Ctx.getPromotedIntegerType(B);
  if (Ctx.hasSameType(A, B))
    return A;
  bool AU = A->isUnsignedIntegerType(), BU = B->isUnsignedIntegerType();
  if (AU == BU)
    return Ctx.getIntegerTypeOrder(A, B) >= 0 ? A : B;
  QualType U = AU ? A : B, S = AU ? B : A;
  if (Ctx.getIntegerTypeOrder(U, S) >= 0)
    return U;
  if (Ctx.getIntWidth(S) > Ctx.getIntWidth(U))
    return S;
  return Ctx.getCorrespondingUnsignedType(S);
}

/// Whether a reference binds to the value of E (a prvalue before, a
/// reference to a temporary of the call after).
bool boundToReference(ASTContext &Ctx, const Expr &E) {
  const Expr *Child = nullptr;
  DynTypedNode P = semanticParent(Ctx, E, Child);
  if (const auto *VD = P.get<VarDecl>())
    return VD->getType()->isReferenceType();
  return P.get<MaterializeTemporaryExpr>() != nullptr;
}

/// How a macro's operands go to Function, a template of one type
/// (cuda::std::max for CUB_MAX): "" for operands of one type, "<T>" for two
/// arithmetic types whose common type is T; or why they may not.
llvm::Expected<std::string> operandTemplateArgs(ArrayRef<const Expr *> Operands,
                                                StringRef Function, ASTContext &Ctx,
                                                const Expr *Call) {
  auto Why = [](const Twine &T) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), T);
  };
  if (Operands.size() != 2 || !Operands[0] || !Operands[1])
    return Why("the macro is not given two operands");
  if (Operands[0]->isTypeDependent() || Operands[1]->isTypeDependent())
    return Why("an operand's type depends on a template parameter");
  if (Operands[0]->HasSideEffects(Ctx) || Operands[1]->HasSideEffects(Ctx))
    return Why("an operand has side effects, and the macro evaluated one operand twice");
  QualType A = Operands[0]->getType().getCanonicalType().getUnqualifiedType();
  QualType B = Operands[1]->getType().getCanonicalType().getUnqualifiedType();
  if (A != B) {
    std::optional<QualType> T = commonArithmeticType(Ctx, A, B);
    if (!T)
      return Why("the operands have different types ('" + A.getAsString() + "' and '" +
                 B.getAsString() + "') that are not both arithmetic; '" + Function +
                 "' takes one type");
    // The macro compared and returned the common type; max<T> converts
    // both to T and returns a reference to one of the temporaries.
    if (Call && boundToReference(Ctx, *Call))
      return Why("a reference binds to the result, which '" + Function + "<" +
                 T->getAsString(Ctx.getPrintingPolicy()) + ">' returns as a reference to a "
                 "temporary");
    return ("<" + T->getAsString(Ctx.getPrintingPolicy()) + ">");
  }
  if (!A->isArithmeticType() && !A->isEnumeralType() && !A->isPointerType())
    return Why("the operands are of type '" + A.getAsString() + "'; only for a scalar type is '" +
               Function + "' known to give the value the macro gave");
  return std::string();
}

/// The removal of a call of a function that did nothing (a NoOp row) with
/// its statement; nullopt, with the reason in Why, where it cannot go.
std::optional<FixItHint> noOpRemoval(const RecoveryExpr &Call, ASTContext &Ctx,
                                     std::string &Why) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *Child = nullptr;
  if (!semanticParent(Ctx, Call, Child).get<CompoundStmt>()) {
    Why = "the call is not a statement of its own in a block (its result is used, or it is "
          "the body of an if or a loop); it returned cudaSuccess";
    return std::nullopt;
  }
  if (any_of(Call.subExpressions().drop_front(),
             [&](const Expr *A) { return !A || A->HasSideEffects(Ctx); })) {
    Why = "its argument has side effects";
    return std::nullopt;
  }
  SourceLocation Semi =
      Call.getBeginLoc().isMacroID() || Call.getEndLoc().isMacroID()
          ? SourceLocation()
          : Lexer::findLocationAfterToken(Call.getEndLoc(), tok::semi, SM, Ctx.getLangOpts(),
                                          /*SkipTrailingWhitespace=*/false);
  if (Semi.isInvalid()) {
    Why = "the call is written inside a macro";
    return std::nullopt;
  }
  return FixItHint::CreateRemoval(statementWithLine(SM, Call.getBeginLoc(), Semi));
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
    if (!M || !names(*M, Lexer::getSourceText(CharSourceRange::getTokenRange(writtenName(SM, L)),
                                              SM, C.Ctx.getLangOpts())))
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
    // In C an undeclared name called is declared implicitly, by the call.
    if (M && M->Replacement &&
        (!FD || !FD->getIdentifier() || FD->getIdentifier()->getName() != Text ||
         FD->isImplicit()))
      CallArgs[L] = writtenArgs(*CE);
    return;
  }
  const auto *RE = R.Nodes.getNodeAs<RecoveryExpr>("rec");
  if (!RE || RE->subExpressions().empty() || !RE->subExpressions()[0])
    return;
  // A call whose overload resolution failed, or of an undeclared name: the
  // callee, then the arguments. An undeclared name is no parse error when
  // an argument has errors of its own (cudaProfilerInitialize(cfg, out,
  // cudaKeyValuePair)): finish() reports the parse errors, in their order,
  // then such calls.
  // In C, where nothing is overloaded, a call of a declared function with
  // too few or too many arguments (cuCtxCreate(&ctx, flags, dev)) names
  // the function itself.
  const auto *ULE = dyn_cast<UnresolvedLookupExpr>(RE->subExpressions()[0]);
  const auto *DRE = dyn_cast<DeclRefExpr>(RE->subExpressions()[0]);
  if (DRE && (C.Ctx.getLangOpts().CPlusPlus || !isa<FunctionDecl>(DRE->getDecl())))
    DRE = nullptr;
  if (ULE || DRE) {
    SourceLocation NameLoc = ULE ? ULE->getExprLoc() : DRE->getExprLoc();
    // The name as written, where Clang names its guess for an undeclared
    // one (cudaStreamGetCaptureInfo for cuStreamGetCaptureInfo_v2).
    SourceLocation Written = writtenName(SM, NameLoc);
    std::string Callee =
        frontend::isUserLocation(SM, Written)
            ? Lexer::getSourceText(CharSourceRange::getTokenRange(Written), SM,
                                   C.Ctx.getLangOpts())
                  .str()
        : ULE ? ULE->getName().getAsString()
              : DRE->getNameInfo().getAsString();
    if (const LocationMapping *M = lookupLocation(Callee))
      checkLocationCall(*M, *RE, C);
    else if (const InsertArgMapping *M = lookupInsertArg(Callee))
      checkInsertArg(*M, NameLoc,
                     std::vector<const Expr *>(RE->subExpressions().begin() + 1,
                                               RE->subExpressions().end()),
                     false, C);
    else if (const DropArgMapping *M = lookupDropArg(Callee))
      checkDropArg(*M, NameLoc, RE->subExpressions().drop_front(), C, RE);
    else if (const MacroMapping *M = lookupMacro(Callee))
      checkMacroCall(*M, NameLoc, *RE, C);
    else if (const RenameMapping *M = lookupRename(Callee); M && M->SameTypeOperands)
      checkRename(*M, NameLoc, C, RE->subExpressions().drop_front(), RE);
    else if (const RemovedMapping *M = lookupRemoved(Callee); M && M->NoOp)
      reportRemoved(Callee, NameLoc, C, RE);
    else if (lookupRename(Callee) || lookupRemoved(Callee))
      UndeclaredCalls.push_back({Callee, NameLoc});
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

void Cuda13RemovedApi::checkRename(const RenameMapping &M, SourceLocation Loc, PassContext &C,
                                   std::optional<ArrayRef<const Expr *>> Operands,
                                   const Expr *Call) {
  SourceManager &SM = C.Ctx.getSourceManager();
  // The name as written: in a macro's argument or body it is renamed where
  // it is spelled, which renames every expansion.
  SourceLocation Spelled = SM.getSpellingLoc(Loc);
  if (!frontend::isUserLocation(SM, Spelled) || !RenameSeen.insert(Spelled).second)
    return;
  StringRef Text = Lexer::getSourceText(CharSourceRange::getTokenRange(Spelled), SM,
                                        C.Ctx.getLangOpts());
  std::string Msg = renameMessage(M);
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Severity::Error, Spelled, Msg, {},
                  {{Spelled, ("not rewritten: " + Why).str()}});
  };
  if (Text != M.Name)
    return NoFix("the name is formed by the preprocessor");
  std::string TemplateArgs;
  if (M.SameTypeOperands) {
    if (!Operands)
      return NoFix("the call's operands were not found");
    // One rename in a macro's body serves every expansion, each with its
    // own operands.
    if (Loc.isMacroID() && !SM.isMacroArgExpansion(Loc))
      return NoFix("the name is written inside a macro's body");
    Expected<std::string> Args = operandTemplateArgs(*Operands, M.Replacement, C.Ctx, Call);
    if (!Args)
      return NoFix(toString(Args.takeError()));
    TemplateArgs = *Args;
  }
  C.Diag.report(name(), Severity::Error, Spelled, Msg,
                {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Spelled),
                                              M.Replacement + TemplateArgs)});
}

/// Whether an integer operand is known to be >= 0 (Positive: > 0): an
/// unsigned type, or a constant.
static bool knownNonNegative(const Expr &E, ASTContext &Ctx, bool Positive) {
  if (E.getType()->isUnsignedIntegerType())
    return true;
  Expr::EvalResult V;
  if (E.isValueDependent() || !E.EvaluateAsInt(V, Ctx))
    return false;
  return Positive ? V.Val.getInt().isStrictlyPositive() : V.Val.getInt().isNonNegative();
}

/// Whether the text of E can stand as an operand of '/' or '*' without
/// parentheses.
static bool isOneTerm(const Expr &E) {
  const Expr *S = E.IgnoreImplicit();
  return !isa<BinaryOperator, AbstractConditionalOperator, CXXOperatorCallExpr>(S);
}

void Cuda13RemovedApi::checkMacroCall(const MacroMapping &M, SourceLocation Callee,
                                      const RecoveryExpr &Call, PassContext &C) {
  SourceManager &SM = C.Ctx.getSourceManager();
  const LangOptions &LO = C.Ctx.getLangOpts();
  SourceLocation Spelled = SM.getSpellingLoc(Callee);
  if (!frontend::isUserLocation(SM, Spelled) || !MacroSeen.insert(Spelled).second)
    return;
  std::string Msg = macroMessage(M);
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Severity::Error, Spelled, Msg, {},
                  {{Spelled, ("not rewritten: " + Why).str()}});
  };
  if (Lexer::getSourceText(CharSourceRange::getTokenRange(Spelled), SM, LO) != M.Name)
    return NoFix("the name is formed by the preprocessor");
  if (Callee.isMacroID() && !SM.isMacroArgExpansion(Callee))
    return NoFix("the name is written inside a macro's body");
  ArrayRef<const Expr *> Ops = Call.subExpressions().drop_front();
  if (Ops.size() != 2 || !Ops[0] || !Ops[1])
    return NoFix("the macro is not given two operands");
  const Expr &A = *Ops[0], &B = *Ops[1];
  if (A.isTypeDependent() || B.isTypeDependent() || A.isValueDependent() ||
      B.isValueDependent())
    return NoFix("an operand depends on a template parameter");
  CharSourceRange Whole = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Call.getSourceRange()), SM, LO);
  CharSourceRange RA = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(A.getSourceRange()), SM, LO);
  CharSourceRange RB = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(B.getSourceRange()), SM, LO);
  if (Whole.isInvalid() || RA.isInvalid() || RB.isInvalid() ||
      !frontend::isUserLocation(SM, Whole.getBegin()))
    return NoFix("the call is written inside a macro");
  std::string TA = Lexer::getSourceText(RA, SM, LO).str();
  std::string TB = Lexer::getSourceText(RB, SM, LO).str();
  std::string Replacement;
  if (M.Kind == MacroKind::Divide) {
    // ((x) / (y)): the same expression, each operand evaluated once.
    auto Term = [](const Expr &E, const std::string &T) {
      return isOneTerm(E) ? T : "(" + T + ")";
    };
    Replacement = Term(A, TA) + " / " + Term(B, TB);
    // Parenthesized unless its place takes any expression.
    const Expr *Child = nullptr;
    DynTypedNode P = semanticParent(C.Ctx, Call, Child);
    const auto *BO = P.get<BinaryOperator>();
    bool Bare = !P.get<Expr>() || P.get<CallExpr>() || P.get<InitListExpr>() ||
                P.get<ParenListExpr>() || (BO && BO->isAssignmentOp() && BO->getRHS() == Child);
    for (const Expr *E = &Call; !Bare;) {
      auto Ps = C.Ctx.getParents(*E);
      E = Ps.empty() ? nullptr : Ps[0].get<Expr>();
      if (!E || !isa<ParenExpr, ImplicitCastExpr>(E))
        break;
      Bare = isa<ParenExpr>(E);
    }
    if (!Bare)
      Replacement = "(" + Replacement + ")";
  } else {
    auto Integer = [&](const Expr &E) {
      QualType T = E.getType();
      return T->isIntegerType() && !T->isEnumeralType() && !T->isBooleanType() &&
             !C.Ctx.isPromotableIntegerType(T);
    };
    if (!Integer(A) || !Integer(B))
      return NoFix(("'" + Twine(M.Replacement) +
                    "' takes integers, and the macro computed in int or wider: an operand is "
                    "not an integer of int's rank or above ('" +
                    A.getType().getAsString() + "', '" + B.getType().getAsString() + "')")
                       .str());
    if (A.HasSideEffects(C.Ctx) || B.HasSideEffects(C.Ctx))
      return NoFix("an operand has side effects, and the macro evaluated its second operand "
                   "more than once");
    if (!knownNonNegative(A, C.Ctx, false) || !knownNonNegative(B, C.Ctx, true))
      return NoFix(("an operand is signed and not a constant; '" + Twine(M.Replacement) +
                    "' requires a >= 0 and b > 0, where the macro gave another value for "
                    "negative ones; write " + M.Replacement + "(" + TA + ", " + TB +
                    ") where they are known to hold")
                       .str());
    if (M.BareMultiplier && !isOneTerm(B))
      return NoFix("the macro multiplied by its second operand without parentheses ('* y'), "
                   "so it did not compute what its name says for '" + TB + "'");
    Replacement = (M.Replacement + Twine("(") + TA + ", " + TB + ")").str();
  }
  C.Diag.report(name(), Severity::Error, Spelled, Msg,
                {FixItHint::CreateReplacement(Whole, Replacement)});
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
                  " nor CUDA 13's; see its declaration in " + headerOf(M.Name))
                     .str());
  const Expr *Dev = Args[M.DeviceArg];
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Dev->getSourceRange()), SM, LO);
  if (Range.isInvalid() || !frontend::isUserLocation(SM, Range.getBegin()))
    return NoFix("the device argument is written inside a macro");
  std::string Text = Lexer::getSourceText(Range, SM, LO).str();
  const LocationSpelling &L = *M.Spelling;
  std::string Location;
  Expr::EvalResult V;
  if (!Dev->isValueDependent() && Dev->EvaluateAsInt(V, C.Ctx)) {
    int64_t D = V.Val.getInt().getSExtValue();
    if (D == -1) // cudaCpuDeviceId, CU_DEVICE_CPU
      Location = (Twine(L.Type) + "{" + L.Host + ", 0}").str();
    else if (D >= 0)
      Location = (Twine(L.Type) + "{" + L.Device + ", " + Text + "}").str();
    else
      return NoFix("the device argument is " + std::to_string(D) +
                   ", neither a device number nor " + L.CpuId);
  } else if (Dev->HasSideEffects(C.Ctx)) {
    return NoFix(Twine("the device argument has side effects; the location needs it twice "
                       "(device or ") +
                 L.CpuId + ")");
  } else {
    // Not a constant: it may be the host's number at run time.
    Location = (Twine(L.Type) + "{(" + Text + ") == " + L.CpuId + " ? " + L.Host + " : " +
                L.Device + ", " + Text + "}")
                   .str();
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
  bool Short = M.ShortArgs && N == M.ShortArgs && N > 0;
  bool OldForm = (N >= M.MinArgs && N <= M.MaxArgs) || Short;
  if (Resolved && !OldForm)
    return;
  SourceLocation Loc = SM.getFileLoc(Callee);
  SourceLocation Spelled = writtenName(SM, Callee);
  bool Pasted = !frontend::isUserLocation(SM, Spelled);
  if ((Pasted && !frontend::isUserLocation(SM, Loc)) ||
      !InsertSeen.insert(Pasted ? Loc : Spelled).second)
    return;
  Severity Level = M.Deprecated ? Severity::Warning : Severity::Error;
  // C (a .c unit) has NULL where the message says nullptr.
  std::string Msg = Short ? M.ShortMessage : M.Message;
  for (size_t At = 0; !LO.CPlusPlus11 && (At = Msg.find("nullptr", At)) != std::string::npos;)
    Msg.replace(At, 7, "NULL");
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Level, Loc, Msg, {}, {{Loc, ("not rewritten: " + Why).str()}});
  };
  if (Pasted)
    return NoFix("the name is formed by the preprocessor");
  if (!OldForm)
    return NoFix(("the call has neither the old form " + Twine(M.Name) + M.OldForm +
                  " nor CUDA 13's; see its declaration in " + headerOf(M.Name))
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
  // Arguments before the new one line up in both forms. It goes before the
  // argument in its place, or after the last one when it is the last
  // parameter (cuGetProcAddress's symbolStatus).
  if (Short) {
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Args[N - 1] ? Args[N - 1]->getSourceRange() : SourceRange()),
        SM, LO);
    if (R.isInvalid() || !frontend::isUserLocation(SM, R.getBegin()))
      return NoFix("the arguments are written inside a macro");
    std::string Append = M.ShortAppend;
    for (size_t At = 0;
         !LO.CPlusPlus11 && (At = Append.find("nullptr", At)) != std::string::npos;)
      Append.replace(At, 7, "NULL");
    Fixes.push_back(FixItHint::CreateInsertion(R.getEnd(), ", " + Append));
    return C.Diag.report(name(), Level, Loc, Msg, Fixes);
  }
  bool Appended = N == M.InsertAt && M.InsertAt == M.MaxArgs && N > 0;
  if (N > M.InsertAt || Appended) {
    const Expr *Next = Args[Appended ? N - 1 : M.InsertAt];
    if (!Next)
      return NoFix("the arguments were not found");
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Next->getSourceRange()), SM, LO);
    if (R.isInvalid() || !frontend::isUserLocation(SM, R.getBegin()))
      return NoFix("the arguments are written inside a macro");
    StringRef Value = M.Inserted;
    if (Value == "nullptr" && !LO.CPlusPlus11)
      Value = "NULL";
    Fixes.push_back(Appended ? FixItHint::CreateInsertion(R.getEnd(), (", " + Value).str())
                             : FixItHint::CreateInsertion(R.getBegin(), (Value + ", ").str()));
  }
  C.Diag.report(name(), Level, Loc, Msg, Fixes);
}

/// A call whose outputs went into a struct (cuGraphExecUpdate): replaced by
/// a lambda that declares the struct, calls the current form with it and
/// stores its fields through the old outputs, as cuda_runtime.h's own
/// overload of the old runtime form does; a null output is left out.
void Cuda13RemovedApi::checkResultStruct(const DropArgMapping &M, SourceLocation Callee,
                                         ArrayRef<const Expr *> Args, PassContext &C,
                                         const Expr *Call) {
  SourceManager &SM = C.Ctx.getSourceManager();
  const LangOptions &LO = C.Ctx.getLangOpts();
  SourceLocation Loc = SM.getFileLoc(Callee);
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Severity::Error, Loc, M.Message, {},
                  {{Loc, ("not rewritten: " + Why + "; " + M.IfNotNull).str()}});
  };
  if (!LO.CPlusPlus11)
    return NoFix("the rewrite is a C++ lambda, and the file is C");
  if (!Call)
    return NoFix("the call was not found");
  CharSourceRange Whole = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Call->getSourceRange()), SM, LO);
  CharSourceRange Name =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Callee), SM, LO);
  if (Whole.isInvalid() || Name.isInvalid() || !frontend::isUserLocation(SM, Whole.getBegin()))
    return NoFix("the call is written inside a macro");
  auto Text = [&](const Expr *E) -> std::optional<std::string> {
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM, LO);
    if (R.isInvalid())
      return std::nullopt;
    return Lexer::getSourceText(R, SM, LO).str();
  };
  std::string Kept;
  for (unsigned I = 0; I < M.DropAt; ++I) {
    std::optional<std::string> T = Text(Args[I]);
    if (!T)
      return NoFix("the arguments are written inside a macro");
    Kept += *T + ", ";
  }
  std::string Stores;
  for (unsigned I = 0; I < M.DropCount; ++I) {
    const Expr *Out = Args[M.DropAt + I];
    if (Out->isValueDependent())
      return NoFix("an output depends on a template parameter");
    if (Out->isNullPointerConstant(C.Ctx, Expr::NPC_ValueDependentIsNotNull))
      continue;
    // '&x': x is stored to after the call, which wrote it before.
    const auto *UO = dyn_cast<UnaryOperator>(Out->IgnoreParenImpCasts());
    if (!UO || UO->getOpcode() != UO_AddrOf || UO->getSubExpr()->HasSideEffects(C.Ctx))
      return NoFix("an output is neither null nor the address of a variable ('&x')");
    std::optional<std::string> T = Text(UO->getSubExpr());
    if (!T)
      return NoFix("the arguments are written inside a macro");
    Stores += " " + *T + " = info_." + M.ResultFields.begin()[I] + ";";
  }
  std::string Replacement =
      ("[&] { " + Twine(M.ResultStruct) + " info_{}; " + M.ResultType + " status_ = " +
       Lexer::getSourceText(Name, SM, LO) + "(" + Kept + "&info_);" + Stores +
       " return status_; }()")
          .str();
  C.Diag.report(name(), Severity::Error, Loc, M.Message,
                {FixItHint::CreateReplacement(Whole, Replacement)});
}

void Cuda13RemovedApi::checkDropArg(const DropArgMapping &M, SourceLocation Callee,
                                    ArrayRef<const Expr *> Args, PassContext &C,
                                    const Expr *Call) {
  SourceManager &SM = C.Ctx.getSourceManager();
  const LangOptions &LO = C.Ctx.getLangOpts();
  SourceLocation Loc = SM.getFileLoc(Callee);
  if (!frontend::isUserLocation(SM, Loc) || !InsertSeen.insert(Loc).second)
    return;
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Severity::Error, Loc, M.Message, {},
                  {{Loc, ("not rewritten: " + Why).str()}});
  };
  if (Args.size() != M.OldArgs || is_contained(Args, nullptr))
    return NoFix(("the call has neither the old form " + Twine(M.Name) + M.OldForm +
                  " nor the current one; see its declaration in " + headerOf(M.Name))
                     .str());
  if (M.ResultStruct)
    return checkResultStruct(M, Callee, Args, C, Call);
  ArrayRef<const Expr *> Dropped = Args.slice(M.DropAt, M.DropCount);
  if (any_of(Dropped, [&](const Expr *A) {
        return A->isValueDependent() ||
               !A->isNullPointerConstant(C.Ctx, Expr::NPC_ValueDependentIsNotNull);
      }))
    return NoFix(M.IfNotNull);
  // Deletes 'failIdx, ' up to the next argument, or writes Instead in
  // place of the dropped ones.
  bool HasNext = M.DropAt + M.DropCount < Args.size();
  if (!M.Instead && !HasNext)
    return NoFix(M.IfNotNull);
  CharSourceRange From = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Dropped.front()->getSourceRange()), SM, LO);
  CharSourceRange To = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(
          (M.Instead ? Dropped.back() : Args[M.DropAt + M.DropCount])->getSourceRange()),
      SM, LO);
  if (From.isInvalid() || To.isInvalid() || !frontend::isUserLocation(SM, From.getBegin()) ||
      SM.getFileID(From.getBegin()) != SM.getFileID(To.getBegin()))
    return NoFix("the arguments are written inside a macro");
  C.Diag.report(name(), Severity::Error, Loc, M.Message,
                {M.Instead ? FixItHint::CreateReplacement(
                                 CharSourceRange::getCharRange(From.getBegin(), To.getEnd()),
                                 M.Instead)
                           : FixItHint::CreateRemoval(
                                 CharSourceRange::getCharRange(From.getBegin(), To.getBegin()))});
}

void Cuda13RemovedApi::reportRemoved(StringRef Name, SourceLocation Loc, PassContext &C,
                                     const RecoveryExpr *Call) {
  const RemovedMapping *M = lookupRemoved(Name);
  SourceManager &SM = C.Ctx.getSourceManager();
  SourceLocation Spelled = SM.getSpellingLoc(Loc);
  if (!frontend::isUserLocation(SM, Spelled)) // formed by token pasting
    Spelled = SM.getFileLoc(Loc);
  if (!M || !frontend::isUserLocation(SM, Spelled) || !RemovedSeen.insert(Spelled).second)
    return;
  std::string Msg = removedMessage(M->Name, M->RemovedIn, M->DeprecatedIn) + "; " + M->Advice;
  std::string Why = M->NotRewritten ? M->NotRewritten : "nothing in CUDA 13 does the same";
  if (M->NoOp) {
    Why = "only a call that is a statement of its own, an undeclared name with CUDA 13's "
          "headers, is deleted";
    if (Call)
      if (std::optional<FixItHint> Removal = noOpRemoval(*Call, C.Ctx, Why))
        return C.Diag.report(name(), Severity::Error, Spelled, Msg, {*Removal});
  }
  C.Diag.report(name(), Severity::Error, Spelled, Msg, {}, {{Spelled, "not rewritten: " + Why}});
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
  if (!M->Replacement && M->BaseTypedefs.size() == 0)
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
  if (M->BaseTypedefs.size()) {
    std::vector<FixItHint> Fixes;
    if (auto Why = removeFunctionBase(*M, Buf, Spelled.getLocWithOffset(-(int)Off), Begin,
                                      At + Name.size(), C, Fixes))
      return NoFix(*Why);
    return C.Diag.report(name(), Severity::Error, NameLoc, Msg, Fixes);
  }
  CharSourceRange Range = CharSourceRange::getCharRange(
      Spelled.getLocWithOffset(Begin - Off), NameLoc.getLocWithOffset(Name.size()));
  C.Diag.report(name(), Severity::Error, NameLoc, Msg,
                {FixItHint::CreateReplacement(Range, M->Replacement)});
}

/// Deletes the base-specifier `[public] thrust::unary_function<A, R>` that
/// spans [Begin, NameEnd + its template arguments) of Buf (the file that
/// starts at FileStart) with the ':' or ',' that goes with it, and declares
/// in the class the typedefs it gave that the file names. Returns why not.
std::optional<std::string>
Cuda13RemovedApi::removeFunctionBase(const NamespaceMapping &M, StringRef Buf,
                                     SourceLocation FileStart, size_t Begin, size_t NameEnd,
                                     PassContext &C, std::vector<FixItHint> &Fixes) {
  auto IsIdent = [](char Ch) { return isAlnum(Ch) || Ch == '_'; };
  auto SkipBack = [&](size_t P) {
    while (P > 0 && isWhitespace(Buf[P - 1]))
      --P;
    return P;
  };
  auto SkipFwd = [&](size_t P) {
    while (P < Buf.size() && isWhitespace(Buf[P]))
      ++P;
    return P;
  };
  // The template arguments, split at top-level commas.
  size_t P = SkipFwd(NameEnd);
  if (P >= Buf.size() || Buf[P] != '<')
    return std::string("the base is not written with its template arguments");
  std::vector<std::string> Args;
  int Depth = 0;
  size_t ArgBegin = P + 1, End = StringRef::npos;
  for (size_t I = P; I < Buf.size() && End == StringRef::npos; ++I) {
    char Ch = Buf[I];
    if (Ch == '<' || Ch == '(' || Ch == '[')
      ++Depth;
    else if (Ch == '>' || Ch == ')' || Ch == ']') {
      if (--Depth == 0) {
        Args.push_back(Buf.slice(ArgBegin, I).trim().str());
        End = I + 1;
      }
    } else if (Ch == ',' && Depth == 1) {
      Args.push_back(Buf.slice(ArgBegin, I).trim().str());
      ArgBegin = I + 1;
    } else if (Ch == '{' || Ch == ';')
      break;
  }
  if (End == StringRef::npos || Args.size() != M.BaseTypedefs.size())
    return "the base does not have the " + std::to_string(M.BaseTypedefs.size()) +
           " template arguments of '" + M.Namespace + "::" + M.Name + "'";
  // Backwards over the access and 'virtual' keywords to the ':' or ','.
  size_t SpecBegin = Begin;
  for (size_t Q = SkipBack(Begin);;) {
    size_t W = Q;
    while (W > 0 && IsIdent(Buf[W - 1]))
      --W;
    StringRef Word = Buf.slice(W, Q);
    if (Word != "public" && Word != "protected" && Word != "private" && Word != "virtual")
      break;
    SpecBegin = W;
    Q = SkipBack(W);
  }
  size_t Before = SkipBack(SpecBegin);
  char Lead = Before > 0 ? Buf[Before - 1] : 0;
  if ((Lead != ':' && Lead != ',') || (Lead == ':' && Before > 1 && Buf[Before - 2] == ':'))
    return std::string("the base-specifier was not found where Clang points");
  size_t After = SkipFwd(End);
  if (After >= Buf.size() || (Buf[After] != ',' && Buf[After] != '{'))
    return std::string("the base-specifier is not followed by another base or the class body");
  // The class: the definition whose base clause this is.
  SourceLocation BaseLoc = FileStart.getLocWithOffset(Begin);
  const SourceManager &SM = C.Ctx.getSourceManager();
  const CXXRecordDecl *Record = nullptr;
  for (const auto &N : match(cxxRecordDecl(isDefinition(), unless(isExpansionInSystemHeader()))
                                 .bind("r"),
                             C.Ctx)) {
    const auto *RD = N.getNodeAs<CXXRecordDecl>("r");
    SourceRange R = RD->getSourceRange();
    if (RD->isImplicit() || R.isInvalid() || R.getBegin().isMacroID() ||
        RD->getBraceRange().getBegin().isInvalid() ||
        !contains(SM, SourceRange(R.getBegin(), RD->getBraceRange().getBegin()), BaseLoc))
      continue;
    if (!Record || SM.isBeforeInTranslationUnit(Record->getBeginLoc(), RD->getBeginLoc()))
      Record = RD;
  }
  if (!Record)
    return std::string("the class that names the base was not found");
  size_t Brace = SM.getFileOffset(Record->getBraceRange().getBegin());
  if (SM.getFileID(Record->getBraceRange().getBegin()) != SM.getFileID(BaseLoc) ||
      Brace >= Buf.size() || Buf[Brace] != '{')
    return std::string("the class body's brace was not found");
  auto Loc = [&](size_t O) { return FileStart.getLocWithOffset(O); };
  if (Lead == ':' && Buf[After] == '{')
    // `struct F : thrust::unary_function<float, float> {` -> `struct F {`.
    Fixes.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getCharRange(Loc(SkipBack(Before - 1)), Loc(After)), " "));
  else if (Lead == ':')
    // The first of several: it goes with the ',' after it.
    Fixes.push_back(FixItHint::CreateRemoval(
        CharSourceRange::getCharRange(Loc(SpecBegin), Loc(SkipFwd(After + 1)))));
  else
    // A later one: it goes with the ',' before it.
    Fixes.push_back(
        FixItHint::CreateRemoval(CharSourceRange::getCharRange(Loc(Before - 1), Loc(End))));
  // The typedefs the file's code names (in the class, or as F::result_type;
  // not in comments).
  llvm::StringSet<> Names;
  Lexer Raw(SM.getLocForStartOfFile(SM.getFileID(BaseLoc)), C.Ctx.getLangOpts(), Buf.begin(),
            Buf.begin(), Buf.end());
  for (Token T;;) {
    bool Last = Raw.LexFromRawLexer(T);
    if (T.is(tok::raw_identifier))
      Names.insert(T.getRawIdentifier());
    if (Last)
      break;
  }
  std::string Decls;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef Typedef = M.BaseTypedefs.begin()[I];
    if (Names.contains(Typedef))
      Decls += ("\n  using " + Typedef + " = " + Args[I] + ";").str();
  }
  if (!Decls.empty()) {
    // Public, as in the base; a class's members after them stay private.
    if (Record->isClass())
      Decls = "\npublic:" + Decls + "\nprivate:";
    Fixes.push_back(FixItHint::CreateInsertion(Loc(Brace + 1), Decls));
  }
  return std::nullopt;
}

bool Cuda13RemovedApi::explainsParseError(StringRef Message) const {
  SmallVector<StringRef, 4> Groups;
  if (undeclaredRegex().match(Message, &Groups)) {
    const InsertArgMapping *I = lookupInsertArg(Groups[1]);
    return lookupRename(Groups[1]) || lookupRemoved(Groups[1]) || lookupMacro(Groups[1]) ||
           (I && I->Replacement);
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
      else if (const MacroMapping *M = lookupMacro(Groups[1])) {
        SourceLocation Spelled = SM.getSpellingLoc(E.Loc);
        if (frontend::isUserLocation(SM, Spelled) && MacroSeen.insert(Spelled).second)
          C.Diag.report(name(), Severity::Error, Spelled, macroMessage(*M), {},
                        {{Spelled, "not rewritten: the call's operands were not found"}});
      }
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
  // Calls of removed names that Clang reported no error for (seen ones are
  // skipped by the Seen sets).
  for (const auto &[Name, Loc] : UndeclaredCalls) {
    if (const RenameMapping *M = lookupRename(Name))
      checkRename(*M, Loc, C);
    else
      reportRemoved(Name, Loc, C);
  }
  UndeclaredCalls.clear();
}

} // namespace forge::passes
