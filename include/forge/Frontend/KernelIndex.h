//===- Frontend/KernelIndex.h - Kernels, launch sites, tunables -*- C++ -*-===//
///
/// \file
/// What `forge-port list` reports and every later stage starts from: the
/// __global__ functions of a file and its project headers, every launch
/// site, and the parameters worth tuning. The JSON form (KernelIndexJson.h)
/// is a user-facing contract (DESIGN.md, "CLI contract").
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_KERNELINDEX_H
#define FORGE_FRONTEND_KERNELINDEX_H

#include "forge/Frontend/CudaParser.h"
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forge::frontend {

struct Location {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  unsigned Offset = 0; ///< bytes from the file's start (the index sets it)
  bool operator<(const Location &O) const {
    return std::tie(File, Line, Column) < std::tie(O.File, O.Line, O.Column);
  }
  bool operator==(const Location &O) const {
    return File == O.File && Line == O.Line && Column == O.Column;
  }
};

/// An expression as written, with its value where it is a compile-time
/// constant: a scalar, or three components for a dim3.
struct ValueText {
  std::string Text;
  std::optional<int64_t> Value;
  std::optional<std::array<int64_t, 3>> Dim3;
  bool known() const { return Value || Dim3; }
};

struct TemplateParamInfo {
  std::string Name;
  std::string Kind; ///< "type", "non-type" or "template"
  std::string Type; ///< the type of a non-type parameter
  std::string Default;
};

struct ParamInfo {
  std::string Name;
  std::string Type;
  bool Pointer = false;
  bool ConstPointee = false;
  bool Restrict = false;
  bool Read = false, Written = false; ///< through a pointer (ParamAccess.h)
};

struct TemplateArgInfo {
  std::string Text;                 ///< as written (or as deduced)
  std::optional<int64_t> IntValue;  ///< non-type integral argument
  std::string TypeValue;            ///< type argument, canonical spelling
};

struct KernelInstantiation {
  std::vector<TemplateArgInfo> Args;
  std::string Mangled; ///< the symbol (as ptxas names it)
  bool Explicit = false; ///< an explicit instantiation definition
  std::optional<uint64_t> StaticSharedBytes;
};

struct KernelInfo {
  std::string Name;
  std::string QualifiedName;
  Location Loc;
  std::string Signature; ///< "void name(float *x, int n)"
  std::string Mangled;   ///< the symbol of a kernel that is not a template
  bool IsTemplate = false;
  bool ExternC = false;
  bool Active = true; ///< false: only in code the preprocessor skipped
  std::vector<TemplateParamInfo> TemplateParams;
  std::vector<ParamInfo> Params;
  std::optional<ValueText> MaxThreads; ///< __launch_bounds__
  std::optional<ValueText> MinBlocks;
  std::optional<ValueText> MaxBlocksPerCluster;
  std::optional<uint64_t> StaticSharedBytes; ///< unknown for dependent types
  bool DynamicShared = false;
  std::set<std::string> Features;
  /// Features seen only in regions the preprocessor skipped for this target.
  std::set<std::string> InactiveFeatures;
  std::vector<KernelInstantiation> Instantiations;
};

/// One resolution of a launch site inside a host function template.
struct LaunchInstantiation {
  std::string Context; ///< the enclosing function's specialisation
  std::string Kernel;  ///< qualified name of the kernel launched
  std::string KernelMangled; ///< its symbol, when the launch resolves to one
  std::vector<TemplateArgInfo> TemplateArgs;
  ValueText Grid, Block, SharedMem;
};

struct LaunchSiteInfo {
  std::string Kernel; ///< qualified name; as written when unresolved
  /// The symbol of the kernel launched, when the launch names one
  /// specialisation (not in a template pattern); empty otherwise.
  std::string KernelMangled;
  bool Resolved = true;
  Location Loc;
  std::string Syntax; ///< "chevron", "cudaLaunchKernel", ...
  std::string Callee; ///< the callee expression as written
  std::string Via;    ///< the variable a kernel pointer went through
  std::string EnclosingFunction;
  bool InTemplate = false;
  bool DeviceSide = false; ///< dynamic parallelism
  bool Active = true;
  std::vector<TemplateArgInfo> TemplateArgs;
  ValueText Grid, Block, SharedMem, Stream;
  std::vector<LaunchInstantiation> Instantiations;
};

struct TunableInfo {
  std::string Name;
  std::string Origin; ///< template, macro, constexpr, launch, unroll, launch_bounds, annotation
  std::string Kernel; ///< the kernel it affects, if one
  Location Loc;       ///< where its value is written
  std::optional<int64_t> Current;
  std::string CurrentText;
  std::vector<int64_t> Candidates;
  std::vector<Location> UsedAt; ///< launch sites it flows into
  std::string Role; ///< "block", "block-dim", "template-arg", "unroll", ...
};

struct InactiveRegion {
  Location Begin;
  unsigned EndLine = 0;
  std::set<std::string> Features;
  std::vector<std::string> Kernels; ///< __global__ functions declared inside
  std::vector<Location> KernelLocs;
  std::vector<std::string> Launches; ///< kernels launched with <<<>>> inside
  std::vector<Location> LaunchLocs;
};

struct FileIndex {
  std::string File;
  std::string Arch; ///< the device target the file was read for
  std::vector<KernelInfo> Kernels;
  std::vector<LaunchSiteInfo> LaunchSites;
  std::vector<TunableInfo> Tunables;
  std::vector<InactiveRegion> InactiveRegions;
  unsigned Errors = 0; ///< parse errors (after nvcc-compatible downgrades)
};

/// Builds a FileIndex from ASTs that someone else parses: a tool that
/// parses the file anyway (the port passes) indexes the same ASTs instead
/// of parsing twice. buildKernelIndex is this over its own two parses.
class KernelIndexBuilder {
public:
  /// File: the path as the user gave it (the index names it so).
  explicit KernelIndexBuilder(llvm::StringRef File);
  ~KernelIndexBuilder();
  /// Indexes one side's AST; each side at most once.
  void addSide(clang::ASTContext &Ctx, clang::CompilerInstance &CI, Side S,
               const PreprocessorFacts &Facts);
  /// The index of the sides added, with Arch set to Arch.
  FileIndex finish(llvm::StringRef Arch);

private:
  std::string File, Abs;
  FileIndex Out;
  /// Named constants used as the warp width (docs/list.md): not tunables.
  std::set<std::string> WarpWidths;
};

/// Whether a constant's name says it is the warp size: WARP_SIZE, WARPSIZE,
/// kWarpSize, warp_size, WARP_SZ, WARP_THREADS... (a qualified name is
/// judged by its last component).
bool namesWarpSize(llvm::StringRef Name);

/// Parses File for the host and for the device target of Opts (the host
/// side alone for a host compiler's unit, ParseOptions::HostCompiler) and
/// builds its index. Parse errors are printed through Diags and counted in
/// FileIndex::Errors; what could be recovered is still returned. Fails when
/// the file cannot be read or Clang cannot run.
llvm::Expected<FileIndex> buildKernelIndex(const Toolchain &TC, const ParseOptions &Opts,
                                           llvm::StringRef File, ParseDiagnostics &Diags);
/// The index of the host side alone: one parse instead of two, for what
/// host code decides (launch sites, the constants and template arguments
/// they name); code that only the device compile sees (`#ifdef
/// __CUDA_ARCH__`, device-side launches) is not in it.
llvm::Expected<FileIndex> buildHostIndex(const Toolchain &TC, const ParseOptions &Opts,
                                         llvm::StringRef File, ParseDiagnostics &Diags);

/// Default candidate values for a tunable of a given role and current value.
std::vector<int64_t> defaultCandidates(llvm::StringRef Role, std::optional<int64_t> Current);

/// Features named in inline PTX (wgmma, setmaxnreg, cp.async, tma, ...).
std::set<std::string> featuresInAsm(llvm::StringRef Asm);

} // namespace forge::frontend

#endif
