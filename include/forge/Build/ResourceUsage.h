//===- Build/ResourceUsage.h - Parse `ptxas -v` output ---------*- C++ -*-===//
///
/// \file
/// Per-function resource usage from `nvcc -Xptxas -v` or `--resource-usage`
/// (CUDA 13 format):
///
///   ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_90'
///   ptxas info    : Function properties for _Z6kernelPf
///       128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
///   ptxas info    : Used 27 registers, used 1 barriers, 128 bytes cumulative
///                   stack size, 4096 bytes smem, 376 bytes cmem[0]
///   ptxas info    : Compile time = 7.220 ms
///
/// Device functions compiled separately (non-inlined, or with -rdc) appear as
/// "Function properties for NAME" without a "Compiling entry function" line;
/// they take the target of the entry functions before them.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_BUILD_RESOURCEUSAGE_H
#define FORGE_BUILD_RESOURCEUSAGE_H

#include "forge/Build/CompileResult.h"

namespace forge::build {

/// Records in the order ptxas reported them. DefaultArch fills Arch for
/// functions whose target the log does not name.
std::vector<KernelResources> parseResourceUsage(llvm::StringRef Log,
                                                llvm::StringRef DefaultArch = "");

/// llvm::demangle, or the name itself when it is not a mangled name.
std::string demangleName(llvm::StringRef Mangled);

} // namespace forge::build

#endif
