//===- Frontend/Toolchain.h - Where CUDA and Clang's headers are -*- C++ -*-===//
#ifndef FORGE_FRONTEND_TOOLCHAIN_H
#define FORGE_FRONTEND_TOOLCHAIN_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace forge::frontend {

/// The installations a parse needs. A relocated bundle carries Clang's
/// resource headers beside the binary, so they are looked up relative to it
/// before the build-time location.
struct Toolchain {
  std::string CudaPath;    ///< Empty when no toolkit was found.
  std::string ResourceDir; ///< Clang's resource directory.
  /// An omp.h for host code that includes it, when Clang's resource
  /// directory has none: the host GCC's (nvcc compiles host code with GCC,
  /// which always finds its own). Empty: none, or Clang's own suffices.
  std::string OmpHeader;
  /// CUDA_VERSION of the toolkit's cuda.h (13000 for 13.0); 0 when unknown.
  int CudaVersion = 0;

  /// Finds both. Argv0 locates the running binary; CudaOverride (a path)
  /// wins over $CUDA_PATH, the build-time default, /usr/local/cuda and
  /// nvcc on PATH.
  static Toolchain detect(const char *Argv0, llvm::StringRef CudaOverride = "");

  bool hasCuda() const { return !CudaPath.empty(); }
};

/// Clang's resource directory relative to a binary in Dir: Dir/../lib/clang/N.
std::string resourceDirBeside(llvm::StringRef Dir);

} // namespace forge::frontend

#endif
