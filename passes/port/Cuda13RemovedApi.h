//===- Cuda13RemovedApi.h - cuda13-removed-api ------------------*- C++ -*-===//
///
/// \file
/// Host APIs that CUDA 13 removed or deprecated. The cudaDeviceProp fields
/// clockRate, memoryClockRate, deviceOverlap and kernelExecTimeoutEnabled are
/// gone: a use is rewritten to a cudaDeviceGetAttribute query when the device
/// that filled the struct is known. The 4-component 64-bit vector types
/// (double4, long4, ...) are renamed to their _16a form, which keeps the old
/// size and alignment. The cudaThread* calls (removed in 13, deprecated
/// since 4.0) are renamed to their cudaDevice* equivalents. cudaMemAdvise and
/// cudaMemPrefetchAsync called with a device number get a cudaMemLocation
/// (and prefetch its flags), cuMemAdvise and cuMemPrefetchAsync a
/// CUmemLocation. The graph calls that gained an edge-data argument in CUDA
/// 13 (runtime and driver) get nullptr there, their CUDA 12.3 _v2/_v3 names
/// the plain name; cuCtxCreate a null CUctxCreateParams, cuGetProcAddress
/// (CUDA 12.0) a null symbolStatus; the batched copies lose a null failIdx;
/// cudaGetDriverEntryPoint becomes ...ByVersion with CUDART_VERSION; the
/// CCCL 3 functors cub::Max, cub::Sum, ... become cuda::maximum<>,
/// cuda::std::plus<>, ..., CUB_MAX/CUB_MIN cuda::std::max/min (max<T> for
/// two arithmetic types), CUB_QUOTIENT_CEILING and the rounding macros
/// cuda::ceil_div/round_up/round_down (for non-negative integers),
/// CUB_QUOTIENT_FLOOR the division, cub::Swap and cub::CTA_SYNC & co. their
/// replacements; a thrust::unary_function/binary_function base is deleted,
/// with the typedefs it gave that the file names; cuGraphExecUpdate's old
/// outputs are stored from a CUgraphExecUpdateResultInfo by a lambda;
/// cudaSetDoubleForDevice/Host, which did nothing, are deleted. What has no
/// replacement (cudaLaunchCooperativeKernelMultiDevice, cudaConfigureCall,
/// cub's removed iterators, cub::BAR, ...)
/// and surface references are reported, with no fix; texture references
/// are the texture-references pass's (TextureReferences.cpp), which
/// rewrites them to texture objects. Works on files that no longer compile:
/// a removed field or an old-form call is a RecoveryExpr in the AST and a
/// parse error; a removed function is an undeclared name, which this pass
/// reports instead of Clang (explainsParseError).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_CUDA13REMOVEDAPI_H
#define FORGE_PASSES_PORT_CUDA13REMOVEDAPI_H

#include "../PortPass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace forge::passes {

struct VectorMapping;

struct RenameMapping;
struct LocationMapping;
struct InsertArgMapping;
struct DropArgMapping;
struct MacroMapping;
struct NamespaceMapping;

class Cuda13RemovedApi : public PortPass {
public:
  llvm::StringRef name() const override { return "cuda13-removed-api"; }
  /// Host for the runtime API; the device side too for the vector types,
  /// which code under `#if __CUDA_ARCH__` may use.
  bool wantsSide(frontend::Side S) const override { return true; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;
  void finish(PassContext &C) override;

private:
  void checkField(const clang::Expr &Use, const clang::Expr &Base, clang::SourceLocation NameLoc,
                  llvm::StringRef Field, const clang::FunctionDecl *Fn, Severity Level,
                  PassContext &C);
  void checkVectorType(clang::TypeLoc TL, PassContext &C);
  /// Operands: the arguments of a call of the name, for a row that checks
  /// them (SameTypeOperands).
  void checkRename(const RenameMapping &M, clang::SourceLocation Loc, PassContext &C,
                   std::optional<llvm::ArrayRef<const clang::Expr *>> Operands = std::nullopt,
                   const clang::Expr *Call = nullptr);
  void checkMacroCall(const MacroMapping &M, clang::SourceLocation Callee,
                      const clang::RecoveryExpr &Call, PassContext &C);
  void checkLocationCall(const LocationMapping &M, const clang::RecoveryExpr &Call,
                         PassContext &C);
  void checkInsertArg(const InsertArgMapping &M, clang::SourceLocation Callee,
                      llvm::ArrayRef<const clang::Expr *> Args, bool Resolved, PassContext &C);
  void checkDropArg(const DropArgMapping &M, clang::SourceLocation Callee,
                    llvm::ArrayRef<const clang::Expr *> Args, PassContext &C,
                    const clang::Expr *Call = nullptr);
  void checkResultStruct(const DropArgMapping &M, clang::SourceLocation Callee,
                         llvm::ArrayRef<const clang::Expr *> Args, PassContext &C,
                         const clang::Expr *Call);
  /// Call: the call of the name, for a row whose call is deleted (NoOp).
  void reportRemoved(llvm::StringRef Name, clang::SourceLocation Loc, PassContext &C,
                     const clang::RecoveryExpr *Call = nullptr);
  std::optional<std::string> removeFunctionBase(const NamespaceMapping &M, llvm::StringRef Buf,
                                                clang::SourceLocation FileStart, size_t Begin,
                                                size_t NameEnd, PassContext &C,
                                                std::vector<clang::FixItHint> &Fixes);
  void checkNamespaceMember(llvm::StringRef Namespace, llvm::StringRef Name,
                            clang::SourceLocation Loc, PassContext &C);

public:
  bool explainsParseError(llvm::StringRef Message) const override;

private:

  /// Member-name locations already diagnosed from the AST, so that finish()
  /// reports only the parse errors that the matchers did not see.
  llvm::DenseSet<clang::SourceLocation> FieldSeen;
  llvm::DenseSet<clang::SourceLocation> TypeSeen;
  /// Uses of a deprecated vector type, reported in finish(): renamed all
  /// together or not at all.
  struct VectorUse {
    clang::SourceLocation NameLoc;
    const VectorMapping *M;
  };
  std::vector<VectorUse> VectorUses;
  void reportVectorTypes(PassContext &C);
  llvm::DenseSet<clang::SourceLocation> RenameSeen;
  llvm::DenseSet<clang::SourceLocation> LocationSeen;
  llvm::DenseSet<clang::SourceLocation> InsertSeen;
  llvm::DenseSet<clang::SourceLocation> RemovedSeen;
  llvm::DenseSet<clang::SourceLocation> MacroSeen;
  /// Calls of a renamed function that also gains an argument
  /// (cudaStreamGetCaptureInfo_v2), by the spelling location of the callee:
  /// the name is undeclared in CUDA 13, so finish() finds the call here.
  llvm::DenseMap<clang::SourceLocation, std::vector<const clang::Expr *>> CallArgs;
  /// Calls of a removed or renamed name, by name and callee location, which
  /// finish() reports where Clang did not (an argument with errors of its
  /// own silences "use of undeclared identifier").
  std::vector<std::pair<std::string, clang::SourceLocation>> UndeclaredCalls;
};

} // namespace forge::passes

#endif
