//===- Build/CudaToolkit.h - Locating nvcc ---------------------*- C++ -*-===//
#ifndef FORGE_BUILD_CUDATOOLKIT_H
#define FORGE_BUILD_CUDATOOLKIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace forge::build {

/// An installed CUDA toolkit: where nvcc is and which version it is.
struct CudaToolkit {
  std::string Root;      ///< "/usr/local/cuda" (the parent of bin/).
  std::string NvccPath;  ///< "/usr/local/cuda/bin/nvcc".
  std::string Version;   ///< "13.0.88"; "13.0" when only the release is known.
  unsigned Major = 0;
  unsigned Minor = 0;

  /// Finds nvcc. Explicit (a toolkit root or the nvcc binary) wins; then
  /// $CUDA_PATH, FORGE_DEFAULT_CUDA_PATH, /usr/local/cuda, nvcc on PATH.
  /// The version is read from `nvcc --version` (or <root>/version.json) once
  /// per nvcc path and process.
  static llvm::Expected<CudaToolkit> find(llvm::StringRef Explicit = "");

  /// The toolkit of one nvcc binary.
  static llvm::Expected<CudaToolkit> fromNvcc(llvm::StringRef NvccPath);

  /// The version string used in cache keys ("nvcc 13.0.88").
  std::string versionTag() const { return "nvcc " + Version; }
};

/// Reads "release 13.0, V13.0.88" from `nvcc --version` output. Returns the
/// full version ("13.0.88", or "13.0"), or an empty string.
std::string parseNvccVersion(llvm::StringRef VersionOutput);

} // namespace forge::build

#endif
