//===- Support/FileUtil.h - Reading and atomic writing ---------*- C++ -*-===//
#ifndef FORGE_SUPPORT_FILEUTIL_H
#define FORGE_SUPPORT_FILEUTIL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace forge {

/// Reads a whole file; the error names the file and the reason.
llvm::Expected<std::string> readFile(llvm::StringRef Path);

/// Writes Contents to Path through a temporary file in the same directory
/// and a rename, so that readers see the old or the new file, never a part.
/// "-" writes to stdout.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

/// The directory that holds the running executable.
std::string executableDir(const char *Argv0);

} // namespace forge

#endif
